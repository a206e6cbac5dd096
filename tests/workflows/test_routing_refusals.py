"""What route refuses or normalises before anything is pushed (issue 11, points 1, 2 and 7).

Real team remotes on loopback (git daemon), real personal KBs, the real CLI; what reached the
team is read back with plain git and checked with ``reflect-git validate``.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
from pathlib import Path

import pytest

from reflectgit.notes import secrets
from reflectgit.notes.note import parse_note, slugify
from reflectgit.workflows import routing
from tests.conftest import git
from tests.support.forge_server import TOKEN, make_forge
from tests.support.remote import BareRepo, GitDaemon, git_daemon
from tests.support.routing import kb_factory, note_bytes

__all__ = ["git_daemon", "kb_factory", "make_forge"]


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode())
    return path


def _validate_on_team(team: BareRepo, rev: str, rel: str, tmp_path: Path, cli) -> object:  # type: ignore[no-untyped-def]
    """Run `reflect-git validate` on the file as the team's branch holds it."""
    out = tmp_path / "from-team" / Path(rel).name
    out.parent.mkdir(exist_ok=True)
    out.write_bytes(team.git("show", f"{rev}:{rel}").encode())
    return cli("validate", str(out))


NOTE = """---
id: lrn-pool-prefill
title: Prefill the pool
created: 2026-03-04
# how sure we are
confidence: {conf}
tags: [db, pool]
---
Warm the pool before traffic.
"""


def test_confidence_aliases_are_normalised_before_the_push(
    git_daemon: GitDaemon, kb_factory, tmp_path: Path, cli
) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kb = kb_factory(team)
    source = _write(tmp_path / "pool.md", NOTE.format(conf="H"))
    # The file as it is fails the validator the team's main is checked with.
    assert cli("validate", str(source)).code == 1

    result = routing.route(kb.config(), str(source))

    assert result.route == "main" and result.tier == "high" and result.pushed
    assert result.notes[0] == "normalised confidence: H -> high"
    pushed = team.git("show", "main:documents/lrn-pool-prefill.md")
    assert pushed == NOTE.format(conf="high")  # one line changed; comment and order stay
    check = _validate_on_team(team, "main", "documents/lrn-pool-prefill.md", tmp_path, cli)
    assert check.code == 0, check  # type: ignore[attr-defined]
    assert source.read_text() == NOTE.format(conf="H")  # the source is read, never rewritten


def test_low_and_med_aliases_route_by_their_tier_and_arrive_normalised(
    git_daemon: GitDaemon, kb_factory, tmp_path: Path
) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kb = kb_factory(team)
    med = _write(tmp_path / "med.md", NOTE.format(conf="Med").replace("pool-prefill", "med-one"))
    low = _write(tmp_path / "low.md", NOTE.format(conf="LOW").replace("pool-prefill", "low-one"))
    crlf = NOTE.format(conf="'HIGH'").replace("pool-prefill", "crlf-one").replace("\n", "\r\n")
    windows = tmp_path / "crlf.md"
    windows.write_bytes(b"\xef\xbb\xbf" + crlf.encode())

    routed_med = routing.route(kb.config(), str(med))
    routed_low = routing.route(kb.config(), str(low))
    routed_crlf = routing.route(kb.config(), str(windows))

    assert (routed_med.route, routed_med.tier) == ("branch", "medium")
    on_branch = team.git("show", f"{routed_med.branch}:documents/lrn-med-one.md")
    assert "\nconfidence: medium\n" in on_branch and "Med" not in on_branch
    assert (routed_low.route, routed_low.tier) == ("queue", "low")
    assert routed_crlf.route == "main" and routed_crlf.pushed
    raw = subprocess.run(
        ["git", "--git-dir", str(team.path), "cat-file", "blob", "main:documents/lrn-crlf-one.md"],
        capture_output=True,
        check=True,
    ).stdout
    # BOM and CRLF stay; only the value changed (its quotes went with the alias).
    assert raw == b"\xef\xbb\xbf" + crlf.replace("'HIGH'", "high").encode()


def test_a_canonical_note_is_pushed_byte_for_byte(
    git_daemon: GitDaemon, kb_factory, tmp_path: Path
) -> None:
    team = git_daemon.new_repo()
    kb = kb_factory(team)
    source = _write(tmp_path / "ok.md", NOTE.format(conf="high"))
    result = routing.route(kb.config(), str(source))
    assert result.pushed and not any(n.startswith("normalised") for n in result.notes)
    assert team.git("show", "main:documents/lrn-pool-prefill.md") == source.read_text()


def test_an_invalid_note_is_refused_with_file_line_col_and_nothing_is_pushed(
    git_daemon: GitDaemon, kb_factory, tmp_path: Path, cli
) -> None:
    team = git_daemon.new_repo()
    main = team.seed({"README.md": "x\n"})
    kb = kb_factory(team)
    cases = {
        "date.md": (NOTE.format(conf="high").replace("2026-03-04", "last tuesday"), 4, "created"),
        "tier.md": (NOTE.format(conf="maybe"), 6, "confidence"),
        "ranking.md": (NOTE.format(conf="high").replace("tags:", "recall_count: 3\ntags:"), 7, ""),
    }
    log = git("log", "--format=%H", cwd=kb.path)
    for name, (text, line, fld) in cases.items():
        path = _write(tmp_path / name, text)
        res = cli("--kb", str(kb.path), "route", str(path))
        assert res.code == 1, (name, res)
        match = re.search(rf"{re.escape(str(path))}:(\d+):(\d+): (\S+)", res.err)
        assert match, (name, res.err)
        assert int(match.group(1)) == line, (name, res.err)
        if fld:
            assert match.group(3) == f"{fld}:", (name, res.err)
        assert "hint: " in res.err and "nothing was pushed" in res.err
        # the same answer `reflect-git validate` gives, at the same place
        validated = cli("validate", str(path))
        assert f"{path}:{match.group(1)}:{match.group(2)}:" in validated.out + validated.err
    assert team.heads() == {"main": main}
    assert git("log", "--format=%H", cwd=kb.path) == log


def test_a_file_is_placed_by_its_id_and_one_without_an_id_is_refused(
    git_daemon: GitDaemon, kb_factory, tmp_path: Path, cli
) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kb = kb_factory(team)
    saved = _write(tmp_path / "My pool notes.md", NOTE.format(conf="high"))
    (tmp_path / "My pool notes.entities.yaml").write_text(
        "document_id: lrn-pool-prefill\nentities: []\nrelationships: []\n"
    )
    assert routing.route(kb.config(), str(saved)).pushed
    assert team.files("main") == [
        "README.md",
        "documents/lrn-pool-prefill.entities.yaml",
        "documents/lrn-pool-prefill.md",
    ]
    no_id = _write(
        tmp_path / "anonymous.md", NOTE.format(conf="high").replace("id: lrn-pool-prefill\n", "")
    )
    res = cli("--kb", str(kb.path), "route", str(no_id))
    assert res.code == 1 and f"{no_id}:1:1: id:" in res.err
    wrong = _write(tmp_path / "other.md", NOTE.format(conf="high").replace("pool-prefill", "other"))
    (tmp_path / "other.entities.yaml").write_text(
        "document_id: lrn-somebody-else\nentities: []\nrelationships: []\n"
    )
    res = cli("--kb", str(kb.path), "route", str(wrong))
    assert res.code == 1 and "document_id" in res.err and "lrn-other" in res.err
    assert "documents/lrn-other.md" not in team.files("main")


# ---------------------------------------------------------------------------- never overwrite


def _teammate_has(team: BareRepo, text: str) -> str:
    return team.seed({"documents/lrn-pool-prefill.md": text}, "teammate's note")


def test_a_high_route_never_overwrites_a_teammates_note(
    git_daemon: GitDaemon, kb_factory, tmp_path: Path, cli
) -> None:
    team = git_daemon.new_repo()
    theirs = NOTE.format(conf="high").replace("Warm the pool", "Their version: warm the pool")
    main = _teammate_has(team, theirs)
    kb = kb_factory(team)
    mine = _write(tmp_path / "mine.md", NOTE.format(conf="high"))

    dry = cli("--kb", str(kb.path), "--json", "route", str(mine), "--dry-run")
    assert dry.code == 0, dry
    doc = dry.json()
    assert doc["conflict"]["path"] == "documents/lrn-pool-prefill.md"
    assert doc["conflict"]["commit"] == main
    assert any(n.startswith("would refuse: ") for n in doc["notes"])
    text = cli("--kb", str(kb.path), "route", str(mine), "--dry-run")
    assert "would refuse: documents/lrn-pool-prefill.md on the team's main" in text.out
    assert "hint: compare the two" in text.out and text.code == 0

    res = cli("--kb", str(kb.path), "route", str(mine))
    assert res.code == 1
    assert "refused to overwrite a teammate's note" in res.err
    assert "--review" in res.err and "--force" in res.err and "nothing was pushed" in res.err
    assert team.heads() == {"main": main}
    assert team.git("show", "main:documents/lrn-pool-prefill.md") == theirs

    # the same bytes are no conflict at all
    same = _write(tmp_path / "same.md", theirs)
    again = routing.route(kb.config(), str(same))
    assert again.conflict is None and not again.pushed and "already on" in again.notes[-1]


def test_force_replaces_and_says_so_in_the_commit(
    git_daemon: GitDaemon, kb_factory, tmp_path: Path
) -> None:
    team = git_daemon.new_repo()
    theirs = NOTE.format(conf="high").replace("Warm", "Old: warm")
    _teammate_has(team, theirs)
    their_blob = team.git("rev-parse", "main:documents/lrn-pool-prefill.md").strip()
    kb = kb_factory(team)
    mine = _write(tmp_path / "mine.md", NOTE.format(conf="high"))

    result = routing.route(kb.config(), str(mine), force=True)

    assert result.pushed and result.forced
    assert team.git("show", "main:documents/lrn-pool-prefill.md") == mine.read_text()
    trailer = team.git("log", "-1", "--format=%(trailers:key=Reflect-Replaces,valueonly)", "main")
    assert trailer.strip() == f"documents/lrn-pool-prefill.md {their_blob}"
    # the teammate's version is still in history, one commit back
    assert team.git("show", "main~1:documents/lrn-pool-prefill.md") == theirs


def test_review_sends_the_update_to_a_knowledge_branch(
    git_daemon: GitDaemon, kb_factory, tmp_path: Path
) -> None:
    team = git_daemon.new_repo()
    theirs = NOTE.format(conf="high").replace("Warm", "Old: warm")
    main = _teammate_has(team, theirs)
    kb = kb_factory(team)
    mine = _write(tmp_path / "mine.md", NOTE.format(conf="high"))

    result = routing.route(kb.config(), str(mine), review=True)

    assert result.route == "branch" and result.pushed and result.branch
    assert team.heads()["main"] == main
    diff = team.git("diff", "--name-only", f"main...{result.branch}")
    assert diff.split() == ["documents/lrn-pool-prefill.md"]
    assert any("pull request shows the change" in n for n in result.notes)


def test_two_files_with_one_id_are_one_note_on_main(
    git_daemon: GitDaemon, kb_factory, tmp_path: Path
) -> None:
    team = git_daemon.new_repo()
    kb = kb_factory(team)
    one = _write(tmp_path / "a.md", NOTE.format(conf="high"))
    two = _write(tmp_path / "b.md", NOTE.format(conf="high").replace("Warm", "Also warm"))
    assert routing.route(kb.config(), str(one)).pushed
    try:
        routing.route(kb.config(), str(two))
    except Exception as exc:
        assert "refused to overwrite" in str(exc)
    else:  # pragma: no cover - the test fails here
        raise AssertionError("the second file replaced the first")
    assert [f for f in team.files("main") if f.startswith("documents/")] == [
        "documents/lrn-pool-prefill.md"
    ]


def test_a_note_that_is_not_on_main_is_no_conflict(git_daemon: GitDaemon, kb_factory) -> None:
    team = git_daemon.new_repo()
    team.seed({"documents/lrn-other.md": note_bytes("Other").decode()})
    kb = kb_factory(team)
    note_id = kb.add("Brand new", "high")
    result = routing.route(kb.config(), note_id)
    assert result.pushed and result.conflict is None and not result.forced


def test_normalise_confidence_changes_one_line_only() -> None:
    from reflectgit.notes.note import parse_note

    cases = {
        "confidence: H\n": "confidence: high\n",
        'confidence: "m"  # unsure\n': "confidence: medium  # unsure\n",
        "confidence:\n": "confidence: medium\n",
        "confidence: \n": "confidence: medium\n",
        "confidence: ~\n": "confidence: medium\n",
        "confidence_num: 0.9\n": "confidence_num: 0.9\nconfidence: high\n",
        "": "confidence: medium\n",
    }
    for line, expected in cases.items():
        data = f"---\nid: x\ntitle: T\n{line}created: 2026-01-01\n---\nbody\n".encode()
        if not line:
            data = b"---\nid: x\ntitle: T\ncreated: 2026-01-01\n---\nbody\n"
        fixed, changed = routing.normalise_confidence(data, parse_note(data))
        want = (
            data.decode().replace(line, expected, 1)
            if line
            else ("---\nid: x\ntitle: T\ncreated: 2026-01-01\nconfidence: medium\n---\nbody\n")
        )
        if line.startswith("confidence_num"):
            want = data.decode().replace(
                "created: 2026-01-01\n", "created: 2026-01-01\nconfidence: high\n"
            )
        assert fixed.decode() == want, (line, fixed)
        assert changed, line
    # negatives: canonical tiers and values the reader cannot read are left alone
    for value in ("high", "'low'", "maybe", "7"):
        data = f"---\nid: x\ntitle: T\nconfidence: {value}\n---\nbody\n".encode()
        fixed, changed = routing.normalise_confidence(data, parse_note(data))
        assert fixed == data and changed == [], value


def test_an_id_a_hand_named_file_on_main_already_uses_is_refused_even_with_force(
    git_daemon: GitDaemon, kb_factory, tmp_path: Path, cli
) -> None:
    team = git_daemon.new_repo()
    mention = NOTE.format(conf="high").replace("lrn-pool-prefill", "lrn-mention")
    main = team.seed(
        {
            "documents/pool notes.md": NOTE.format(conf="high"),  # pushed by hand
            "documents/lrn-mention.md": mention + "See lrn-unrelated.\n",
        }
    )
    kb = kb_factory(team)
    mine = _write(tmp_path / "mine.md", NOTE.format(conf="high").replace("Warm", "Also warm"))
    for extra in ((), ("--force",), ("--dry-run",)):
        res = cli("--kb", str(kb.path), "route", str(mine), *extra)
        assert res.code == 1, (extra, res)
        assert "already used on the team's main by documents/pool notes.md" in res.err
    assert team.heads() == {"main": main}
    # an id that another note only mentions in its text is no twin
    other = _write(
        tmp_path / "other.md",
        NOTE.format(conf="high").replace("id: lrn-pool-prefill", "id: lrn-unrelated"),
    )
    assert routing.route(kb.config(), str(other)).pushed


# --------------------------------------------------------------------------- encoded secrets
# A medium note whose title carries an encoded token (pulled from a teammate, or written by
# hand and committed without `add`): route refuses it, and nothing of the token reaches a
# branch name on the team remote or a request to the (loopback) forge.

_TOKEN = "ghp_" + "R8mQ2vLx7KpZ4nWc9TbY3hJf6DsA1gUe5oNi"
_ENCODED_TITLES = {
    "base64": base64.b64encode(_TOKEN.encode()).decode(),
    "url-encoded": _TOKEN.replace("_", "%5F"),
    "zero-width": _TOKEN[:8] + "\u200b" + _TOKEN[8:],
    "reversed": _TOKEN[::-1],
}


@pytest.mark.parametrize("how", sorted(_ENCODED_TITLES))
def test_an_encoded_secret_in_a_title_never_reaches_a_branch_name_or_the_forge(
    how: str, git_daemon: GitDaemon, kb_factory, make_forge, monkeypatch, cli
) -> None:
    encoded = _ENCODED_TITLES[how]
    team = git_daemon.new_repo()
    team.seed({"README.md": "team kb\n"})
    forge = make_forge("github", {"acme/team": team.path})
    monkeypatch.setenv("GH_TOKEN", TOKEN)
    kb = kb_factory(
        team, f'[forge]\nprovider = "github"\napi_url = "{forge.api_url}"\nrepo = "acme/team"\n'
    )
    note_id = kb.add(f"Deploy with {encoded}", "medium", note_id="lrn-deploy-token")

    res = cli("--kb", str(kb.path), "route", note_id)

    assert res.code == 1 and "GitHub token" in res.err, res.out + res.err
    assert encoded not in res.out + res.err
    assert list(team.heads()) == ["main"]  # no knowledge branch, named after it or not
    slug_part = slugify(encoded)[:16]
    assert all(slug_part not in name for name in team.heads())
    sent = json.dumps(forge.requests)
    assert encoded not in sent and slug_part not in sent.lower()


def test_a_routed_title_and_pull_request_body_are_masked() -> None:
    """What names and requests are built from goes through the scanner itself (belt and
    braces: prepare refuses such a note before anything is built)."""
    encoded = _ENCODED_TITLES["base64"]
    data = note_bytes(f"Deploy with {encoded}", "medium", note_id="lrn-deploy-token")
    data = data.replace(b"key_insight: Insight", f"key_insight: use {encoded}. Insight".encode())
    src = routing.SourceNote(
        data, parse_note(data, "n.md"), "n.md", "documents/lrn-deploy-token.md", None
    )
    assert encoded not in src.title and secrets.REDACTED in src.title
    assert slugify(src.title) == "deploy-with-redacted"
    body = routing.pr_body(src, "knowledge/deploy-with-redacted")
    assert encoded not in body and secrets.REDACTED in body


@pytest.mark.parametrize("tier", ["high", "medium"])
def test_a_look_alike_of_a_team_id_is_not_routed_next_to_it(
    tier: str, git_daemon: GitDaemon, kb_factory, cli
) -> None:
    team = git_daemon.new_repo()
    team.seed({"documents/poe.md": note_bytes("Poe", note_id="poe").decode()})
    kb = kb_factory(team)
    twin = kb.add("Twin", tier, note_id="\u0440\u043e\u0435")  # Cyrillic р о е
    before = team.heads()
    res = cli("--kb", str(kb.path), "route", twin)
    assert res.code == 1 and "looks like the team's documents/poe.md" in res.err, res.err
    assert team.heads() == before
