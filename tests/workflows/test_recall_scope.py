"""Recall as the original tool does it, improved: project and branch scoping with --global
pooling, fleet authority/quarantine/domain, speculative notes ranked down, the economics line,
--as-of for sidecar edges, and a budget that never cuts a note in half. Real KBs, real git."""

from __future__ import annotations

from pathlib import Path

import pytest

from reflectgit.workflows.recall import discovery_cost, recall
from tests.conftest import git
from tests.support.search import committed_kb, committed_notes, note_text

PROJECT = "payments-api"
BRANCH = "fix/celery-prefetch"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A code repository named ``payments-api`` on branch ``fix/celery-prefetch``."""
    root = tmp_path / PROJECT
    git("init", "-q", "-b", "main", str(root), cwd=tmp_path)
    (root / "worker.py").write_text("print('hi')\n")
    git("add", "-A", cwd=root)
    git("commit", "-qm", "start", cwd=root)
    git("switch", "-q", "-c", BRANCH, cwd=root)
    return root


def celery(note_id: str, **fields: str) -> bytes:
    """A note about the same topic (celery prefetch) as every other one, so only the field
    under test tells them apart."""
    return note_text(
        note_id,
        f"Celery prefetch note {note_id}",
        "Celery workers starve with a high prefetch.",
        key_insight='"Set worker_prefetch_multiplier to 1."',
        **fields,
    )


def ids(kb: Path, cwd: Path, **kwargs: object) -> list[str]:
    result = recall(kb, kb / ".git" / "reflect-git", cwd, limit=20, record=False, **kwargs)  # type: ignore[arg-type]
    return [n.id for n in result.notes]


def test_this_branch_first_other_branches_and_projects_only_with_global(
    tmp_path: Path, project: Path
) -> None:
    kb = committed_notes(
        tmp_path,
        {
            "here": celery("here", project=PROJECT, branch=f'"{BRANCH}"'),
            "proj": celery("proj", project=PROJECT),
            "elsewhere": celery("elsewhere", project=PROJECT, branch="feature/other"),
            "other": celery("other", project="billing-ui"),
            "anywhere": celery("anywhere"),
        },
    )
    scoped = ids(kb, project)
    assert scoped[:2] == ["here", "proj"]  # this branch, then the rest of this project
    assert set(scoped) == {"here", "proj", "anywhere"}
    assert "elsewhere" not in scoped and "other" not in scoped
    pooled = ids(kb, project, everywhere=True)
    assert set(pooled) == {"here", "proj", "anywhere", "elsewhere", "other"}
    assert pooled[:3] == scoped  # the pooled notes come after this project's and branch's
    # On another branch of the same project, the branch note is the one held back.
    git("switch", "-q", "main", cwd=project)
    assert set(ids(kb, project)) == {"proj", "anywhere"}


def test_a_quarantined_fleet_note_never_comes_back_until_promoted(
    tmp_path: Path, project: Path, cli
) -> None:
    kb = committed_notes(
        tmp_path,
        {
            "held": celery("held", quarantine="true", authority="advisory"),
            "freed": celery("freed", quarantine="true", authority="promoted"),
            "plain": celery("plain"),
            "notflag": celery("notflag", quarantine="false"),
        },
    )
    for everywhere in (False, True):
        got = ids(kb, project, everywhere=everywhere)
        assert "held" not in got
        assert {"freed", "plain", "notflag"} <= set(got)
    # Only recall holds it back: a person searching still finds it.
    res = cli("--kb", str(kb), "--json", "search", "prefetch", "--limit", "10")
    assert "held" in [h["id"] for h in res.json()["hits"]]


def test_authority_orders_law_and_promoted_above_advisory_above_archived(
    tmp_path: Path, project: Path
) -> None:
    kb = committed_notes(
        tmp_path,
        {
            "a-archived": celery("a-archived", authority="archived"),
            "b-none": celery("b-none"),
            "c-law": celery("c-law", authority="law"),
            "d-advisory": celery("d-advisory", authority="advisory"),
            "e-promoted": celery("e-promoted", authority="Promoted"),
        },
    )
    assert ids(kb, project) == ["c-law", "e-promoted", "b-none", "d-advisory", "a-archived"]


def test_speculative_notes_rank_below_the_same_note_unhedged(tmp_path: Path, project: Path) -> None:
    kb = committed_notes(
        tmp_path,
        {
            "a-guess": celery("a-guess", tags="[speculative, celery]"),
            "b-known": celery("b-known", tags="[celery]"),
            "c-other": celery("c-other", tags="[celery, speculation]"),  # not the tag
        },
    )
    got = ids(kb, project)
    assert got[-1] == "a-guess"
    assert set(got[:2]) == {"b-known", "c-other"}


def test_domain_hint_favours_the_fleet_domain(tmp_path: Path, project: Path) -> None:
    kb = committed_notes(
        tmp_path,
        {"a-ui": celery("a-ui", domain="frontend"), "b-ops": celery("b-ops", domain="ops")},
    )
    assert ids(kb, project, domain="ops")[0] == "b-ops"
    assert ids(kb, project, domain="frontend")[0] == "a-ui"
    assert ids(kb, project, domain="nothing") == ["a-ui", "b-ops"]  # no hint, by id


def test_economics_line_measured_then_transcript_then_type_average(
    tmp_path: Path, project: Path
) -> None:
    transcript = tmp_path / "session.jsonl"
    transcript.write_bytes(b"x" * 4000)
    kb = committed_notes(
        tmp_path,
        {
            "a-measured": celery("a-measured", discovery_tokens="14200"),
            "b-transcript": celery(
                "b-transcript", provenance="{source_path: '" + str(transcript) + "'}"
            ),
            "c-gone": celery(
                "c-gone",
                learning_type="decision",
                provenance="{source_path: '" + str(tmp_path / "deleted.jsonl") + "'}",
            ),
            "d-plain": celery("d-plain"),
        },
    )
    result = recall(kb, kb / ".git" / "reflect-git", project, limit=10, record=False)
    cost = {n.id: (n.discovery_tokens, n.discovery_source) for n in result.notes}
    assert cost == {
        "a-measured": (14200, "measured"),
        "b-transcript": (1000, "transcript"),
        "c-gone": (1200, "estimated"),
        "d-plain": (1500, "estimated"),
    }
    line = next(ln for ln in result.text().splitlines() if ln.startswith("Economics:"))
    assert "~17,900 tokens to discover (1 measured, 1 transcript, 2 estimated)" in line
    assert result.to_json()["discovery_tokens"] == 17900
    assert discovery_cost({"learning_type": "bug-fix"}) == (3000, "estimated")
    assert discovery_cost({"discovery_tokens": 0, "learning_type": "pattern"}) == (
        1500,
        "estimated",
    )


def test_budget_takes_whole_notes_and_never_cuts_one(tmp_path: Path, project: Path) -> None:
    long_insight = "Set worker_prefetch_multiplier to one. " * 7  # about 270 characters
    kb = committed_notes(
        tmp_path,
        {
            "a-long": note_text(
                "a-long",
                "Celery prefetch long",
                key_insight='"' + long_insight.strip() + '"',
                project=PROJECT,
            ),
            "b-short": note_text("b-short", "Celery prefetch short", key_insight='"Prefetch 1."'),
        },
    )
    state = kb / ".git" / "reflect-git"
    roomy = recall(kb, state, project, limit=5, budget=2000, record=False)
    assert [n.id for n in roomy.notes] == ["a-long", "b-short"]
    tight = recall(kb, state, project, limit=5, budget=330, record=False)
    assert [n.id for n in tight.notes] == ["b-short"]
    assert tight.over_budget == ["a-long"]
    text = tight.text()
    assert len(text) <= 330 and "Prefetch 1." in text and "a-long" not in text
    assert "…" not in text
    nothing = recall(kb, state, project, limit=5, budget=200, record=False)
    assert nothing.notes == [] and "no note fits in 200 characters" in nothing.text()


def test_as_of_counts_sidecar_edges_valid_at_that_date(tmp_path: Path, project: Path) -> None:
    sidecar = (
        b"document_id: a-pump\nextracted_at: '2026-01-10T00:00:00Z'\n"
        b"relationships:\n- source: pump\n  target: celery\n  type: causes\n"
        b"  description: celery prefetch starvation\n"
        b"  tvalid: '2026-01-10'\n  tvalid_end: '2026-02-01'\n"
    )
    kb = committed_kb(
        tmp_path,
        {
            "documents/a-pump.md": note_text("a-pump", "Pump valve"),
            "documents/a-pump.entities.yaml": sidecar,
            "documents/b-valve.md": note_text("b-valve", "Valve pump"),
        },
    )
    then = recall(kb, kb / ".git" / "reflect-git", project, as_of="2026-01-15", record=False)
    assert [n.id for n in then.notes] == ["a-pump", "b-valve"]
    assert any("text match" in r for r in then.notes[0].reasons)
    now = recall(kb, kb / ".git" / "reflect-git", project, record=False)
    assert all(not any("text match" in r for r in n.reasons) for n in now.notes)


def test_as_of_and_global_on_the_command_line(
    tmp_path: Path, project: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = committed_notes(tmp_path, {"other": celery("other", project="billing-ui")})
    monkeypatch.chdir(project)
    local = cli("--kb", str(kb), "--json", "recall")
    assert local.code == 0, local
    assert local.json()["notes"] == [] and local.json()["global"] is False
    pooled = cli("--kb", str(kb), "--json", "recall", "--global", "--as-of", "2026-01-15")
    assert [n["id"] for n in pooled.json()["notes"]] == ["other"]
    assert "from project billing-ui (--global)" in pooled.json()["notes"][0]["reasons"]
    bad = cli("--kb", str(kb), "recall", "--as-of", "last tuesday")
    assert bad.code != 0 and "not a date" in bad.err


def test_import_of_a_branch_shard_scopes_its_notes_to_that_branch(
    tmp_path: Path, project: Path, cli
) -> None:
    kb = committed_notes(tmp_path, {"base": celery("base")})
    src = tmp_path / "learnings"
    shard = src / "shards" / PROJECT / "branches" / "fix__celery-prefetch" / "documents"
    shard.mkdir(parents=True)
    (shard / "sharded.md").write_bytes(celery("sharded"))
    (src / "documents").mkdir()
    res = cli("--kb", str(kb), "--json", "import", str(src))
    assert res.code == 0, res
    text = git("show", "HEAD:documents/sharded.md", cwd=kb)
    assert f"branch: {BRANCH}" in text and f"project: {PROJECT}" in text
    assert "sharded" in ids(kb, project)
    git("switch", "-q", "main", cwd=project)
    assert "sharded" not in ids(kb, project)
    assert "sharded" in ids(kb, project, everywhere=True)
