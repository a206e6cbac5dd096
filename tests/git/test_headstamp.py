"""``git/headstamp.py``: the stamp of HEAD's files changes whenever git moves HEAD, and it
refuses to vouch where the files alone could mislead. Real repositories, real git."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reflectgit.git.headstamp import head_stamp
from reflectgit.git.objects import head_commit
from tests.conftest import git


def age(git_dir: Path) -> None:
    """Make every file under the git directory an hour old (past the racy window)."""
    old = os.stat(git_dir).st_mtime - 3600
    for path in [git_dir, *git_dir.rglob("*")]:
        os.utime(path, (old, old))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git("init", "-q", "-b", "main", cwd=tmp_path)
    commit(tmp_path, "one")
    age(tmp_path / ".git")
    return tmp_path


def commit(repo: Path, message: str) -> None:
    git(
        "-c",
        "user.name=a",
        "-c",
        "user.email=a@b",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        message,
        cwd=repo,
    )


def test_the_stamp_holds_while_nothing_moves_and_changes_with_every_move(repo: Path) -> None:
    gd = str(repo / ".git")
    first = head_stamp(gd)
    assert first is not None and first[0] == "refs/heads/main"
    assert head_stamp(gd) == first
    seen = [first]
    for move in (
        lambda: commit(repo, "two"),
        lambda: git("pack-refs", "--all", cwd=repo),  # the loose ref goes into packed-refs
        lambda: commit(repo, "three"),  # a loose ref again, packed-refs still there
        lambda: git("checkout", "-q", "-b", "other", cwd=repo),  # HEAD names another ref
        lambda: git("update-ref", "refs/heads/other", "HEAD~1", cwd=repo),
    ):
        move()
        age(repo / ".git")
        stamp = head_stamp(gd)
        assert stamp is not None and stamp not in seen, (stamp, seen)
        seen.append(stamp)
        assert head_stamp(gd) == stamp
    # a stamp changes when the commit may have (never the other way round): pack-refs kept it
    assert head_commit(repo / ".git") is not None


def test_it_does_not_vouch_where_the_files_could_mislead(repo: Path) -> None:
    gd = repo / ".git"
    commit(repo, "fresh")  # just written: a coarse clock could hide a second write
    assert head_stamp(str(gd)) is None
    age(gd)
    assert head_stamp(str(gd)) is not None
    git("checkout", "-q", "--detach", cwd=repo)
    age(gd)
    assert head_stamp(str(gd)) is None  # the commit is in HEAD itself
    git("checkout", "-q", "main", cwd=repo)
    git("symbolic-ref", "refs/heads/alias", "refs/heads/main", cwd=repo)
    git("symbolic-ref", "HEAD", "refs/heads/alias", cwd=repo)
    age(gd)
    assert head_stamp(str(gd)) is None  # a symbolic ref to a symbolic ref
    assert head_stamp(str(repo / "nowhere")) is None


def test_unvouched_it_names_a_fresh_change_and_still_refuses_a_detached_head(repo: Path) -> None:
    gd = str(repo / ".git")
    before = head_stamp(gd, vouch=False)
    assert before is not None and before == head_stamp(gd)  # aged: both say the same
    commit(repo, "fresh")
    fresh = head_stamp(gd, vouch=False)
    assert head_stamp(gd) is None and fresh not in (None, before)
    age(repo / ".git")  # (which changes the mtimes the stamp holds)
    assert head_stamp(gd) == head_stamp(gd, vouch=False) not in (None, fresh, before)
    git("checkout", "-q", "--detach", cwd=repo)
    assert head_stamp(gd, vouch=False) is None


def test_a_linked_worktree_is_stamped_through_its_commondir(repo: Path, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    git("worktree", "add", "-q", "-b", "side", str(linked), cwd=repo)
    wt_git = Path(git("rev-parse", "--git-dir", cwd=linked).strip())
    age(repo / ".git")
    stamp = head_stamp(str(wt_git))
    assert stamp is not None and stamp[0] == "refs/heads/side"
    commit(linked, "on side")
    age(repo / ".git")
    assert head_stamp(str(wt_git)) not in (None, stamp)
