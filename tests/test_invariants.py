"""Invariants hold after every command (issue 11.4): supersession is acyclic and consistent both
ways, forgotten ids are tombstones, and list, search and recall agree on a note's state. A
property test runs random sequences of real commands on a real KB and runs ``check`` after each.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reflectgit.notes.note import parse_note
from tests.conftest import git
from tests.support.kb import VALID, assert_clean, head, kb, ls, rg

__all__ = ["kb", "rg"]


def add(rg, title: str, confidence: str = "high", *extra: str) -> str:
    res = rg(
        "--json", "add", "--title", title, "--insight", f"{title}: why", "--category", "ci",
        "--confidence", confidence, *extra,
    )  # fmt: skip
    assert res.code == 0, res
    return str(res.json()["id"])


def front(kb: Path, ident: str) -> dict:
    for folder in ("documents", "archived", ".forgotten"):
        path = kb / folder / f"{ident}.md"
        if path.exists():
            return parse_note(path.read_bytes()).frontmatter
    raise AssertionError(ident)


def refused(res, *words: str, code: int = 1) -> None:
    assert res.code == code, res
    assert res.err.startswith("error: ") and "hint: " in res.err, res.err
    for word in words:
        assert word in res.err, res.err


# --------------------------------------------------------------------------- aliases


@pytest.mark.parametrize(
    ("alias", "tier"),
    [("H", "high"), ("HIGH", "high"), ("Med", "medium"), ("MEDIUM", "medium"), ("m", "medium"),
     ("L", "low"), ("LOW", "low"), (" high ", "high")],
)  # fmt: skip
def test_add_writes_the_tier_of_a_confidence_alias(rg, kb, tmp_path, alias, tier):
    note = tmp_path / "n.md"
    note.write_text(
        f"---\ntitle: Alias {alias!r}\ncreated: 2026-03-04\nconfidence: '{alias}'\n---\nx\n"
    )
    res = rg("--json", "add", str(note))
    assert res.code == 0, res
    assert front(kb, res.json()["id"])["confidence"] == tier
    assert rg("validate").code == 0 and rg("check").code == 0


def test_an_unknown_tier_is_still_refused_and_validate_names_the_alias(rg, kb, tmp_path):
    note = tmp_path / "n.md"
    note.write_text("---\ntitle: T\ncreated: 2026-03-04\nconfidence: certain\n---\n")
    refused(rg("add", str(note)), "certain")
    note.write_text("---\ntitle: T\ncreated: 2026-03-04\nconfidence: HIGH\n---\n")
    res = rg("validate", str(note))  # a file on disk holds the tier; validate says which
    assert res.code == 1 and "'HIGH' is not allowed; write 'high'" in res.out


def test_update_and_flags_take_aliases_too(rg, kb):
    ident = add(rg, "Flag alias", "HIGH")
    assert front(kb, ident)["confidence"] == "high"
    assert rg("update", ident, "--set", "confidence=Med").code == 0
    assert front(kb, ident)["confidence"] == "medium"


# --------------------------------------------------------------------------- supersede


def test_supersede_refuses_a_cycle_and_writes_nothing(rg, kb):
    a, b, c = add(rg, "Alpha rule"), add(rg, "Beta rule"), add(rg, "Gamma rule")
    assert rg("supersede", a, "--by", b).code == 0
    before = head(kb)
    refused(rg("supersede", b, "--by", a), "cycle", f"{a} -> {b}")
    assert head(kb) == before
    assert rg("supersede", b, "--by", c).code == 0
    refused(rg("supersede", c, "--by", a), "cycle")  # a -> b -> c -> a
    assert rg("check").code == 0
    assert_clean(kb)


def test_re_pointing_releases_the_old_superseder(rg, kb):
    a, b, c = add(rg, "Old way"), add(rg, "New way"), add(rg, "Newer way")
    assert rg("supersede", a, "--by", b).code == 0
    assert front(kb, b)["supersedes"] == a
    res = rg("--json", "supersede", a, "--by", c)
    assert res.code == 0, res
    assert front(kb, a)["superseded_by"] == c
    assert front(kb, c)["supersedes"] == a
    assert "supersedes" not in front(kb, b)  # B lets go of A: no dangling link
    changed = git("show", "--name-only", "--format=", "HEAD", cwd=kb).split()
    assert sorted(changed) == sorted(f"documents/{i}.md" for i in (a, b, c))  # one commit
    check = rg("check")
    assert check.code == 0, check


def test_re_pointing_keeps_the_other_notes_a_superseder_replaced(rg, kb):
    a, b, c, d = (add(rg, t) for t in ("One", "Two", "Three", "Four"))
    assert rg("supersede", a, "--by", c).code == 0
    assert rg("supersede", b, "--by", c).code == 0
    assert front(kb, c)["supersedes"] == [a, b]
    assert rg("supersede", a, "--by", d).code == 0
    assert front(kb, c)["supersedes"] == [b]
    assert rg("check").code == 0


def test_supersede_twice_is_one_commit(rg, kb):
    a, b = add(rg, "First"), add(rg, "Second")
    assert rg("supersede", a, "--by", b).code == 0
    before = head(kb)
    res = rg("--json", "supersede", a, "--by", b)
    assert res.code == 0 and res.json()["commit"] is None
    assert head(kb) == before


def test_links_are_made_by_supersede_only(rg, kb, tmp_path):
    a = add(rg, "Target")
    refused(rg("update", a, "--set", f"superseded_by={a}x"), "supersede", code=2)
    note = tmp_path / "n.md"
    note.write_text(
        f"---\ntitle: Claims\ncreated: 2026-03-04\nconfidence: high\nsupersedes: {a}\n---\n"
    )
    refused(rg("add", str(note)), f"supersedes: {a}", "does not list it")
    note.write_text(
        "---\ntitle: Claims\ncreated: 2026-03-04\nconfidence: high\nsuperseded_by: nope\n---\n"
    )
    refused(rg("add", str(note)), "not in the KB")
    assert rg("check").code == 0


# --------------------------------------------------------------------------- tombstones


def test_a_forgotten_id_is_a_tombstone_for_add(rg, kb, tmp_path):
    note = tmp_path / "n.md"
    note.write_text(
        "---\nid: pool-warmup\ntitle: Warm the pool\ncreated: 2026-03-04\nconfidence: high\n---\nx\n"
    )
    assert rg("add", str(note)).code == 0
    assert rg("forget", "pool-warmup").code == 0
    before = head(kb)
    refused(rg("add", str(note)), "was forgotten", "--restore")
    assert head(kb) == before
    # The same note without an id gets the same generated id: refused too.
    anon = tmp_path / "anon.md"
    anon.write_text("---\ntitle: Anon\ncreated: 2026-03-04\nconfidence: high\n---\nbody\n")
    anon_id = rg("--json", "add", str(anon)).json()["id"]
    assert rg("forget", anon_id).code == 0
    refused(rg("add", str(anon)), "was forgotten")
    # --restore brings it back and removes the forgotten copy in the same commit.
    res = rg("--json", "add", str(note), "--restore")
    assert res.code == 0, res
    files = ls(kb)
    assert "documents/pool-warmup.md" in files and ".forgotten/pool-warmup.md" not in files
    assert rg("check").code == 0
    assert_clean(kb)


def test_check_finds_a_forgotten_id_taken_again_and_a_cycle(rg, kb):
    a, b = add(rg, "Cycle A"), add(rg, "Cycle B")
    assert rg("forget", a).code == 0
    # A person copies the forgotten note back by hand and makes a cycle by hand.
    shutil.copy(kb / ".forgotten" / f"{a}.md", kb / "documents" / f"{a}.md")
    text = (kb / "documents" / f"{b}.md").read_text()
    (kb / "documents" / f"{b}.md").write_text(
        text.replace("confidence: high", f"confidence: high\nsuperseded_by: {b}")
    )
    res = rg("check")
    assert res.code == 1
    assert "was forgotten" in res.out
    assert "supersession cycle" in res.out


# --------------------------------------------------------------------------- one state


def _states(rg, word: str) -> tuple[dict, dict, set]:
    listed = {n["id"]: n["state"] for n in rg("--json", "list", "--all").json()}
    live_list = {n["id"] for n in rg("--json", "list").json()}
    hits = rg("--json", "search", word, "--all", "--limit", "100").json()["hits"]
    searched = {h["id"]: h["state"] for h in hits}
    live_search = {h["id"] for h in rg("--json", "search", word, "--limit", "100").json()["hits"]}
    assert live_list == {i for i, s in listed.items() if s == "live"}
    assert live_search == {i for i, s in searched.items() if s == "live"}
    return listed, searched, live_list


def test_list_search_recall_and_show_agree_on_a_superseded_note(rg, kb):
    a, b = add(rg, "Invariant pool rule"), add(rg, "Invariant pool rule, revised")
    assert rg("supersede", a, "--by", b).code == 0
    listed, searched, live = _states(rg, "invariant")
    assert listed[a] == searched[a] == "superseded"
    assert listed[b] == searched[b] == "live"
    assert a not in live
    recalled = {n["id"] for n in rg("--json", "recall", "--project", "pool").json()["notes"]}
    assert a not in recalled and b in recalled
    assert rg("--json", "show", a).json()["frontmatter"]["superseded_by"] == b
    assert "(superseded)" in rg("show", a).out.splitlines()[0]


# --------------------------------------------------------------------------- the property


WORDS = ["alpha", "beta", "gamma", "delta"]
ops = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(WORDS), st.sampled_from(["high", "Med", "L"])),
    st.tuples(st.just("update"), st.integers(0, 5), st.sampled_from(["H", "low", "medium"])),
    st.tuples(st.just("confirm"), st.integers(0, 5), st.sampled_from(["pr-1", "pr-2"])),
    st.tuples(st.just("supersede"), st.integers(0, 5), st.integers(0, 5)),
    st.tuples(st.just("archive"), st.integers(0, 5)),
    st.tuples(st.just("restore"), st.integers(0, 5)),
    st.tuples(st.just("forget"), st.integers(0, 5)),
    st.tuples(st.just("readd"), st.integers(0, 5), st.booleans()),
    st.tuples(st.just("undo")),
)


def _argv(op: tuple, ids: list[str], folder: Path) -> list[str] | None:
    kind = op[0]
    pick = (lambda n: ids[n % len(ids)]) if ids else None
    if kind == "add":
        return ["add", "--title", f"Invariant {op[1]} rule", "--insight", f"Use {op[1]}.",
                "--category", "ci", "--confidence", op[2]]  # fmt: skip
    if pick is None:
        return None
    if kind == "update":
        return ["update", pick(op[1]), "--set", f"confidence={op[2]}"]
    if kind == "confirm":
        return ["confirm", pick(op[1]), "--source", op[2]]
    if kind == "supersede":
        return ["supersede", pick(op[1]), "--by", pick(op[2])]
    if kind in ("archive", "restore", "forget"):
        return [kind, pick(op[1])]
    if kind == "readd":  # add a note under an id that may be forgotten, archived or live
        note = folder / "readd.md"
        ident = pick(op[1])
        note.write_text(
            f"---\nid: {ident}\ntitle: Again\ncreated: 2026-03-04\nconfidence: high\n---\n"
        )
        return ["add", str(note), *(["--restore"] if op[2] else [])]
    return ["undo"]


@settings(
    max_examples=15,  # 100 pass too (about 3 minutes); the suite runs on two shared cores
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(ops, min_size=4, max_size=14))
def test_check_stays_clean_after_every_command(cli, sequence):
    folder = Path(tempfile.mkdtemp(prefix="inv-"))
    try:
        kbp = folder / "kb"
        git("init", "-q", "-b", "main", str(kbp), cwd=folder)
        ids: list[str] = []
        start = [("add", "alpha", "high"), ("add", "beta", "medium"), ("add", "gamma", "low")]
        for op in [*start, *sequence]:
            argv = _argv(op, ids, folder)
            if argv is None:
                continue
            res = cli("--kb", str(kbp), "--json", *argv)
            assert res.code in (0, 1, 2), (argv, res)  # refused is fine; a crash (3) is not
            if res.code == 0 and argv[0] == "add":
                ident = json.loads(res.out)["id"]
                if ident not in ids:
                    ids.append(ident)
            check = cli("--kb", str(kbp), "check")
            assert check.code == 0, (sequence, argv, check.out)
        if ids:
            listed = {
                n["id"]: n["state"]
                for n in json.loads(cli("--kb", str(kbp), "--json", "list", "--all").out)
            }
            found = json.loads(
                cli(
                    "--kb", str(kbp), "--json", "search", "invariant", "--all", "--limit", "100"
                ).out
            )
            searched = {h["id"]: h["state"] for h in found["hits"]}
            assert {i: s for i, s in listed.items() if i in searched} == searched
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_valid_corpus_notes_keep_check_clean_through_supersede_and_forget(rg, kb):
    assert rg("import", str(VALID)).code == 0
    ids = sorted(n["id"] for n in rg("--json", "list").json())
    assert rg("supersede", ids[0], "--by", ids[1]).code == 0
    assert rg("forget", ids[1]).code == 0
    assert rg("supersede", ids[0], "--by", ids[2]).code == 0
    assert rg("check").code == 0


def test_add_force_over_a_superseded_note_keeps_its_links(rg, kb, tmp_path):
    note = tmp_path / "n.md"
    note.write_text(
        "---\nid: old-way\ntitle: Old way\ncreated: 2026-03-04\nconfidence: high\n---\nv1\n"
    )
    assert rg("add", str(note)).code == 0
    new = add(rg, "New way")
    assert rg("supersede", "old-way", "--by", new).code == 0
    note.write_text(
        "---\nid: old-way\ntitle: Old way\ncreated: 2026-03-04\nconfidence: low\n---\nv2\n"
    )
    assert rg("add", str(note), "--force").code == 0
    assert front(kb, "old-way")["superseded_by"] == new
    assert rg("check").code == 0
