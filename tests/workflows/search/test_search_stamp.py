"""A search knows the index is current from a stamp of HEAD's files (``git/headstamp.py``) kept
with the tree it was read with, and holds its paths as strings (docs/performance.md, "search,
sixth pass"): the stamp never hides a move of HEAD, and the index file is where it always was."""
# ruff: noqa: F811 - pytest fixtures are imported by name and requested as parameters

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from reflectgit.git.change import write
from reflectgit.git.store import Store
from reflectgit.workflows.search.index import Index, search
from reflectgit.workflows.search.storage import index_file, index_path
from tests.support.search import corpus_kb, note_text  # noqa: F401


def state_of(kb: Path) -> Path:
    return kb / ".git" / "reflect-git"


def _age(folder: Path) -> None:
    """Every file an hour old: past git/headstamp.py's racy window, so a stamp is taken."""
    old = os.stat(folder).st_mtime - 3600
    for path in [folder, *folder.rglob("*")]:
        os.utime(path, (old, old))


def ids(kb: Path, query: str) -> list[str]:
    return [h.id for h in search(str(kb), str(state_of(kb)), query).hits]


def meta(kb: Path) -> dict[str, str]:
    with Index.open(index_path(state_of(kb))) as index:
        return dict(index.conn.execute("SELECT key, value FROM meta"))


def test_the_stamp_is_kept_with_the_tree_and_a_commit_is_seen(corpus_kb: Path) -> None:
    kb = corpus_kb
    ids(kb, "pool")
    _age(kb / ".git")
    ids(kb, "pool")
    kept = meta(kb)
    assert kept["head"].startswith(kept["tree"] + " ['refs/heads/main', ")
    with Store.open(kb) as store:
        store.commit([write("documents/zorilla.md", note_text("zorilla", "Zorilla", "z"))], "z")
    _age(kb / ".git")  # the new ref file is old too: its inode still tells it apart
    assert ids(kb, "zorilla") == ["zorilla"]
    now = meta(kb)
    assert now["tree"] != kept["tree"] and now["head"].startswith(now["tree"] + " ")


def test_a_tree_written_after_the_stamp_voids_it(corpus_kb: Path) -> None:
    """Another writer (an older version, or a refresh to another tree) leaves the stamp in
    place: it no longer names the index's tree, so HEAD's commit is read again."""
    kb = corpus_kb
    with Store.open(kb) as store:
        before = store.tree_id()
        store.commit([write("documents/zorilla.md", note_text("zorilla", "Zorilla", "z"))], "z")
    _age(kb / ".git")
    assert ids(kb, "zorilla") == ["zorilla"]
    assert "head" in meta(kb)
    with Store.open(kb) as store, Index.open(index_path(state_of(kb))) as index:
        index.refresh(store, before)  # the index now holds the tree without the note
    assert ids(kb, "zorilla") == ["zorilla"]  # the stamp did not vouch for it


def test_no_stamp_while_heads_files_are_racy(corpus_kb: Path) -> None:
    kb = corpus_kb
    with Store.open(kb) as store:
        store.commit([write("documents/zorilla.md", note_text("zorilla", "Zorilla", "z"))], "z")
    assert ids(kb, "zorilla") == ["zorilla"]
    assert "head" not in meta(kb)  # the ref was written just now: it may change unseen


def _reference(state_dir: Path, kb: Path | None) -> Path:
    """``index_path`` as it was written with pathlib (before this pass)."""
    import re

    if kb is None:
        return state_dir / "search.sqlite3"
    root = Path(os.path.realpath(kb))
    state = Path(os.path.realpath(state_dir))
    if root == state or root in state.parents:
        return state_dir / "search.sqlite3"
    key = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", root.name)[:40] or "kb"
    return state_dir / "indexes" / f"{name}-{key}" / "search.sqlite3"


@pytest.mark.parametrize(
    ("state", "kb"),
    [
        ("kb/.git/reflect-git", "kb"),
        ("kb/.git/reflect-git", None),
        ("kb", "kb"),
        ("kb-other/state", "kb"),  # a sibling whose name starts with the KB's
        ("elsewhere/state", "kb"),
        ("elsewhere/state", "my kb (é)"),
        ("elsewhere/state", "link-to-kb"),
        ("kb/.git/reflect-git", "link-to-kb"),
        ("elsewhere/state", "/"),
    ],
)
def test_the_index_file_is_where_pathlib_put_it(tmp_path: Path, state: str, kb: str | None) -> None:
    for name in ("kb/.git/reflect-git", "kb-other/state", "elsewhere/state", "my kb (é)"):
        (tmp_path / name).mkdir(parents=True, exist_ok=True)
    (tmp_path / "link-to-kb").symlink_to(tmp_path / "kb")
    state_dir = tmp_path / state
    kb_path = None if kb is None else tmp_path / kb
    expected = _reference(state_dir, kb_path)
    assert index_file(str(state_dir), None if kb_path is None else str(kb_path)) == str(expected)
    assert index_path(state_dir, kb_path) == expected
