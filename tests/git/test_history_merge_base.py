"""``history.merge_base`` against git itself, on real histories: a merge, a criss-cross, a
forge's merge commit dated before the tip it merges, unrelated roots, a missing commit."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from reflectgit.errors import NotFoundError
from reflectgit.git.history import merge_base
from reflectgit.git.store import Store


def _git(repo: Path, *args: str, date: int | None = None) -> str:
    env = {
        "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.com",
        "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@example.com",
        "PATH": "/usr/bin:/bin", "HOME": str(repo),
    }  # fmt: skip
    if date is not None:
        env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"] = f"@{1_700_000_000 + date} +0000"
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env
    ).stdout.strip()


def _commit(repo: Path, name: str, date: int, *parents: str) -> str:
    (repo / name).write_text(name + "\n")
    _git(repo, "add", name)
    tree = _git(repo, "write-tree")
    flags = [f for p in parents for f in ("-p", p)]
    return _git(repo, "commit-tree", tree, *flags, "-m", name, date=date)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q")
    return tmp_path


def test_the_merge_base_is_gits(repo: Path) -> None:
    seed = _commit(repo, "seed", 1_000)
    tip = _commit(repo, "tip", 3_000, seed)
    side = _commit(repo, "side", 2_000, seed)
    merged = _commit(repo, "merged", 1_500, seed, tip)  # dated before the tip it merges
    cross_a = _commit(repo, "cross_a", 4_000, tip, side)
    cross_b = _commit(repo, "cross_b", 4_000, side, tip)
    store = Store.open(repo)
    for a, b in [(merged, tip), (tip, merged), (side, tip), (cross_a, cross_b), (seed, seed)]:
        assert merge_base(store, a, b) == _git(repo, "merge-base", a, b), (a, b)
    assert merge_base(store, merged, tip) == tip


def test_unrelated_commits_have_no_merge_base_and_a_missing_one_is_an_error(repo: Path) -> None:
    one = _commit(repo, "one", 1_000)
    other = _commit(repo, "other", 1_000)
    store = Store.open(repo)
    assert merge_base(store, one, other) is None
    with pytest.raises(NotFoundError):
        merge_base(store, one, "0" * 40)
