"""Where a working repository's top and branch are, read from its files, against real git.

``repo_info.toplevel`` and ``current_branch`` (recall and the Stop hook ask them in every
process) read ``.git``, HEAD and the refs instead of starting ``git rev-parse``. Each case here
asks real git the same question in the same place and compares; the common layouts must be
answered from the files alone (``_discover`` does not give up), the odd ones may ask git but
must still agree with it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from reflectgit.git import repo_info
from tests.conftest import git


def _git_top(cwd: Path) -> Path | None:
    proc = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=cwd, capture_output=True)
    out = proc.stdout.decode().strip()
    return Path(out) if proc.returncode == 0 and out else None


def _git_branch(cwd: Path) -> str | None:
    proc = subprocess.run(
        ["git", "rev-parse", "--abbrev-ref", "HEAD"], cwd=cwd, capture_output=True
    )
    out = proc.stdout.decode().strip()
    return out if proc.returncode == 0 and out and out != "HEAD" else None


def _env() -> dict[str, str]:
    return dict(os.environ)


def _agrees(cwd: Path, *, from_files: bool) -> tuple[Path | None, str | None]:
    """Our answers equal git's at ``cwd``; ``from_files``: and the files alone gave them."""
    env = _env()
    top = repo_info.toplevel(cwd, env)
    assert top == _git_top(cwd)
    branch = repo_info.current_branch(top, env) if top else None
    assert branch == (_git_branch(cwd) if top else None)
    assert repo_info.top_and_branch(cwd, env) == (top, branch)  # one reading, the same answers
    if from_files:
        found = repo_info._discover(cwd, env)  # raises _Unsure if it had to ask git
        assert (found[0] if found else None) == top
        if found:
            assert repo_info._branch_of(found[1]) == branch
    return top, branch


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    git("init", "-q", "-b", "main", str(path), cwd=tmp_path)
    (path / "src" / "pkg").mkdir(parents=True)
    (path / "src" / "pkg" / "a.py").write_text("x = 1\n")
    git("add", ".", cwd=path)
    git("commit", "-q", "-m", "one", cwd=path)
    return path


def test_a_plain_repository_from_its_top_and_from_deep_inside(repo: Path) -> None:
    assert _agrees(repo, from_files=True) == (repo, "main")
    assert _agrees(repo / "src" / "pkg", from_files=True) == (repo, "main")


def test_a_symlinked_folder_gives_the_physical_top_as_git_does(repo: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(repo / "src")
    top, _ = _agrees(link, from_files=True)
    assert top == repo


def test_outside_any_repository_there_is_no_top(tmp_path: Path) -> None:
    plain = tmp_path / "plain" / "deeper"
    plain.mkdir(parents=True)
    assert _agrees(plain, from_files=True) == (None, None)
    assert repo_info.toplevel(tmp_path / "missing", _env()) is None


def test_packed_refs_a_detached_head_and_an_unborn_branch(repo: Path) -> None:
    git("pack-refs", "--all", cwd=repo)
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert _agrees(repo, from_files=True) == (repo, "main")
    git("checkout", "-q", "--detach", cwd=repo)
    assert _agrees(repo, from_files=True) == (repo, None)
    git("checkout", "-q", "--orphan", "fresh", cwd=repo)  # a branch with no commit yet
    assert _agrees(repo, from_files=True) == (repo, None)


def test_a_chain_of_symbolic_refs_ends_at_the_branch_git_names(repo: Path) -> None:
    git("symbolic-ref", "refs/heads/alias", "refs/heads/main", cwd=repo)
    git("symbolic-ref", "HEAD", "refs/heads/alias", cwd=repo)
    assert _agrees(repo, from_files=True) == (repo, "main")


def test_a_linked_worktree_has_its_own_top_and_branch(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    git("worktree", "add", "-q", "-b", "feature/x", str(other), cwd=repo)
    (other / "deep").mkdir()
    assert _agrees(other / "deep", from_files=True) == (other, "feature/x")
    git("pack-refs", "--all", cwd=repo)
    assert _agrees(other, from_files=True) == (other, "feature/x")
    assert _agrees(repo, from_files=True) == (repo, "main")


def test_a_branch_name_a_tag_shares_is_left_to_git(repo: Path) -> None:
    git("tag", "main", cwd=repo)  # git now prints heads/main, not main
    _top, branch = _agrees(repo, from_files=False)
    assert branch == "heads/main"
    with pytest.raises(repo_info._Unsure):
        repo_info._branch_of(repo / ".git")


def test_core_worktree_and_submodules_are_left_to_git(repo: Path, tmp_path: Path) -> None:
    parent = tmp_path / "parent"
    git("init", "-q", "-b", "main", str(parent), cwd=tmp_path)
    git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(repo), "sub", cwd=parent)
    sub = parent / "sub"
    top, _branch = _agrees(sub, from_files=False)
    assert top == sub  # the submodule's work tree (its git dir's core.worktree)
    with pytest.raises(repo_info._Unsure):
        repo_info._discover(sub, _env())


def test_bare_repositories_git_dirs_and_ceilings_agree_with_git(repo: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    git("init", "-q", "--bare", str(bare), cwd=tmp_path)
    assert _agrees(bare, from_files=False) == (None, None)
    assert _agrees(repo / ".git" / "objects", from_files=False) == (None, None)
    env = {**_env(), "GIT_CEILING_DIRECTORIES": str(repo)}
    assert repo_info.toplevel(repo / "src", env) is None  # git stops below the ceiling
    with pytest.raises(repo_info._Unsure):
        repo_info._discover(repo / "src", env)


def test_an_empty_git_folder_is_not_taken_for_a_repository(repo: Path) -> None:
    inner = repo / "src" / "pkg"
    (inner / ".git").mkdir()  # git skips it and finds the repository above
    top, _ = _agrees(inner, from_files=False)
    assert top == repo


def test_config_may_set_is_false_only_when_no_file_names_the_key(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.write_text("[core]\n\tbare = false\n[user]\n\tname = A\n")
    fsync = tmp_path / "fsync"
    fsync.write_text("[core]\n\tFsyncMethod = batch\n")
    including = tmp_path / "including"
    including.write_text('[includeIf "gitdir:~/kb/"]\n\tpath = other\n')
    missing = tmp_path / "missing"
    assert not repo_info.config_may_set([plain, missing], b"fsync")
    assert repo_info.config_may_set([plain, fsync], b"fsync")  # any case
    assert repo_info.config_may_set([including], b"fsync")  # an include may set anything
    assert not repo_info.config_may_set([fsync], b"extensions")
    unreadable = tmp_path / "dir"
    unreadable.mkdir()  # reading a folder fails: it counts as a mention
    assert repo_info.config_may_set([unreadable], b"fsync")


# What the config check stood for before it was read line by line: the same answers, or
# more caution, on every line the cases below make.
_ODD_CONFIG = (
    r"^[ \t]*(worktree\b|bare[ \t]*(=[ \t]*(true|yes|on|1)[ \t]*)?$"
    r"|repositoryformatversion[ \t]*=[ \t]*(?![ \t]|[01][ \t]*$))"
    r"|\[[ \t]*(include|extensions)"
)
_CONFIG_LINES = [
    "[core]", "\trepositoryformatversion = 0", "\trepositoryformatversion = 1",
    "\trepositoryformatversion = 2", "repositoryformatversion=", "repositoryformatversion = 1 ",
    "repositoryformatversion = 10", "repositoryformatversion = \t0", "repositoryformatversion",
    "\tbare = false", "\tbare = true", "\tBare = Yes", "bare", "bare =", "bare = on  ",
    "bare = 1", "bare = 0", "barefoot = true", "bare\r", "\tworktree = /x", "worktree=/x",
    "worktrees = 1", "worktree_x = 1", "Worktree", "[include]", "[ includeIf \"gitdir:x\"]",
    "[extensions]", "\t[EXTENSIONS]", "x = [include", "[remote \"origin\"]", "\tfilemode = true",
    "", "#worktree = x", "  ; bare",
]  # fmt: skip


def test_the_config_check_agrees_with_the_expression_it_replaced() -> None:
    import random
    import re

    rng = random.Random(7)
    seen = set()
    for _ in range(3000):
        text = "\n".join(rng.choice(_CONFIG_LINES) for _ in range(rng.randint(0, 5)))
        want = re.search(_ODD_CONFIG, text, re.IGNORECASE | re.MULTILINE) is not None
        assert repo_info.odd_config(text) == want, text
        seen.add(want)
    assert seen == {True, False}
