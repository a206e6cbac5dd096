"""``codebase.texts``: file versions read in one ``git cat-file``, by path at a revision, or by
the blob id a diff already gave (``known``), with no lookup of the path."""

from __future__ import annotations

from pathlib import Path

from reflectgit.git import codebase
from tests.conftest import git
from tests.support.coderepo import CodeRepo


def blob(repo: Path, rev: str, path: str) -> str:
    return git("rev-parse", f"{rev}:{path}", cwd=repo).strip()


def test_a_known_blob_id_is_read_by_id_not_by_path(tmp_path: Path) -> None:
    code = CodeRepo(tmp_path / "code")
    first = code.write("a.py", "A = 1\n").write("b.py", "B = 1\n").commit("first")
    # the id given for (first, "a.py") is b.py's blob: what is read is what the id names
    known = {(first, "a.py"): blob(code.path, first, "b.py")}
    assert codebase.texts(code.path, [(first, "a.py")], known=known) == ["B = 1\n"]
    assert codebase.texts(code.path, [(first, "a.py")]) == ["A = 1\n"]  # by path: its own


def test_pairs_without_a_known_id_are_read_at_their_revision(tmp_path: Path) -> None:
    code = CodeRepo(tmp_path / "code")
    for i in range(codebase.LS_TREE_FROM + 2):  # enough paths for the batched lookup
        code.write(f"m{i}.py", f"X = {i}\n")
    first = code.commit("first")
    code.write("m0.py", "X = 100\n")
    second = code.commit("second")
    wanted = [(first, f"m{i}.py") for i in range(codebase.LS_TREE_FROM + 2)] + [
        (second, "m0.py"),
        (second, "gone.py"),
    ]
    known = {(second, "m0.py"): blob(code.path, second, "m0.py")}
    got = codebase.texts(code.path, wanted, known=known)
    assert got[: codebase.LS_TREE_FROM + 2] == [
        f"X = {i}\n" for i in range(codebase.LS_TREE_FROM + 2)
    ]
    assert got[-2:] == ["X = 100\n", None]  # by its id; a path the revision lacks: None
