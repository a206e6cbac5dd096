"""check --base: ids new to main and to other knowledge branches, supersede links, no secrets."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git
from tests.support.routing import note_bytes


def _commit(repo: Path, files: dict[str, bytes], message: str = "c") -> None:
    for rel, data in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)
        git("add", rel, cwd=repo)
    git("commit", "-qm", message, cwd=repo)


def _kb(repo: Path) -> Path:
    _commit(repo, {"documents/lrn-a.md": note_bytes("A note", note_id="lrn-a")})
    return repo


def test_new_id_on_a_branch_passes(repo: Path, cli) -> None:
    _kb(repo)
    git("switch", "-qc", "knowledge/b", cwd=repo)
    _commit(repo, {"documents/lrn-b.md": note_bytes("B note", note_id="lrn-b")})
    res = cli("--kb", str(repo), "check", "--base", "main")
    assert res.code == 0, res


def test_id_also_added_on_main_fails(repo: Path, cli) -> None:
    _kb(repo)
    git("switch", "-qc", "knowledge/b", cwd=repo)
    _commit(repo, {"documents/lrn-b.md": note_bytes("B note", note_id="lrn-b")})
    git("switch", "-q", "main", cwd=repo)
    _commit(repo, {"documents/other-b.md": note_bytes("B again", note_id="lrn-b")})
    git("switch", "-q", "knowledge/b", cwd=repo)
    res = cli("--kb", str(repo), "check", "--base", "main", "--format", "github")
    assert res.code == 1
    assert "::error file=documents/lrn-b.md,line=3" in res.out
    assert "'lrn-b' is also on main (documents/other-b.md)" in res.out


def test_id_added_on_another_open_branch_fails(repo: Path, cli) -> None:
    _kb(repo)
    git("switch", "-qc", "knowledge/one", cwd=repo)
    _commit(repo, {"documents/lrn-x.md": note_bytes("X one", note_id="lrn-x")})
    git("switch", "-qc", "knowledge/two", "main", cwd=repo)
    _commit(repo, {"documents/lrn-x-2.md": note_bytes("X two", note_id="lrn-x")})
    res = cli("--kb", str(repo), "--json", "check", "--base", "main")
    assert res.code == 1
    messages = [p["message"] for p in res.json()["problems"]]
    assert any("also added on the open branch knowledge/one" in m for m in messages)
    # Once knowledge/one is merged, the clash is with main instead, and still reported.
    git("switch", "-q", "main", cwd=repo)
    git("merge", "-q", "--no-ff", "-m", "merge one", "knowledge/one", cwd=repo)
    git("switch", "-q", "knowledge/two", cwd=repo)
    again = cli("--kb", str(repo), "--json", "check", "--base", "main")
    assert [p["message"] for p in again.json()["problems"]] == [
        "'lrn-x' is also on main (documents/lrn-x.md)"
    ]


def test_supersede_links_must_resolve_both_ways(repo: Path, cli) -> None:
    old = note_bytes("Old way", note_id="lrn-old").replace(
        b"tags:", b"superseded_by: lrn-new\ntags:"
    )
    new = note_bytes("New way", note_id="lrn-new")
    _commit(repo, {"documents/lrn-old.md": old, "documents/lrn-new.md": new})
    res = cli("--kb", str(repo), "check", "--base", "main")
    assert res.code == 1
    assert "lrn-new (documents/lrn-new.md) does not list 'lrn-old' in supersedes" in res.out
    fixed = new.replace(b"tags:", b"supersedes: lrn-old\ntags:")
    _commit(repo, {"documents/lrn-new.md": fixed})
    assert cli("--kb", str(repo), "check", "--base", "main").code == 0
    dangling = note_bytes("Orphan", note_id="lrn-orphan").replace(
        b"tags:", b"supersedes: lrn-gone\ntags:"
    )
    _commit(repo, {"documents/lrn-orphan.md": dangling})
    res = cli("--kb", str(repo), "check", "--base", "main")
    assert res.code == 1 and "'lrn-gone', which is not a note" in res.out


def test_supersedes_needs_the_back_link_even_without_base(repo: Path, cli) -> None:
    new = note_bytes("New way", note_id="lrn-new").replace(b"tags:", b"supersedes: lrn-old\ntags:")
    old = note_bytes("Old way", note_id="lrn-old")
    _commit(repo, {"documents/lrn-old.md": old, "documents/lrn-new.md": new})
    res = cli("--kb", str(repo), "check")
    assert res.code == 1
    assert "lrn-old (documents/lrn-old.md) does not list 'lrn-new' in superseded_by" in res.out


def test_secrets_are_refused(repo: Path, cli) -> None:
    token = "ghp_" + "a1B2" * 9
    leaky = note_bytes("Leaky", note_id="lrn-leaky", body=f"Use the token {token} to push.\n")
    _commit(repo, {"documents/lrn-leaky.md": leaky})
    res = cli("--kb", str(repo), "check", "--base", "main")
    assert res.code == 1 and "documents/lrn-leaky.md:12:1" in res.out
    assert token not in res.out


def test_unknown_base_is_a_clear_error(repo: Path, cli) -> None:
    _kb(repo)
    res = cli("--kb", str(repo), "check", "--base", "origin/nope")
    assert res.code == 1 and "unknown base revision" in res.err and "hint:" in res.err
