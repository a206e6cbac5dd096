"""``git.run.run``: the one git runner.

Real git in a real repository: input and output of a megabyte both ways, stderr and the exit
code, the timeout (git killed, ``GitFailed``), the working folder (pathspecs and output
relative to it), a missing folder or git.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reflectgit.errors import NotFoundError
from reflectgit.git.objects import blob_id
from reflectgit.git.run import GitFailed, run, start_together
from tests.conftest import git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    git("init", "-q", "-b", "main", str(path), cwd=tmp_path)
    (path / "documents").mkdir()
    (path / "documents" / "a.md").write_text("a\n")
    git("add", ".", cwd=path)
    git("-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "one", cwd=path)
    return path


def test_a_megabyte_in_and_out(repo: Path) -> None:
    data = bytes(i % 251 for i in range(1 << 20))
    hashed = run(["hash-object", "--stdin"], cwd=repo, env=dict(os.environ), input=data)
    assert hashed.ok and hashed.out == blob_id(data)
    written = run(["hash-object", "-w", "--stdin"], cwd=repo, env=dict(os.environ), input=data)
    asks = f"{written.out}\n".encode() * 3
    batch = run(["cat-file", "--batch"], cwd=repo, env=dict(os.environ), input=asks)
    assert batch.ok and batch.stdout.count(data) == 3
    assert run(["status"], cwd=repo, env=dict(os.environ), input=b"").ok  # empty input


def test_stderr_and_the_exit_code(repo: Path) -> None:
    result = run(["no-such-command"], cwd=repo, env=dict(os.environ))
    assert result.code == 1 and "is not a git command" in result.err and result.stdout == b""
    with pytest.raises(GitFailed) as caught:
        run(["no-such-command"], cwd=repo, env=dict(os.environ), check=True)
    assert "is not a git command" in caught.value.message


def test_a_git_past_its_timeout_is_killed(repo: Path) -> None:
    with pytest.raises(GitFailed) as caught:
        run(["-c", "alias.wait=!sleep 30", "wait"], cwd=repo, env=dict(os.environ), timeout=0.5)
    assert "took longer than" in caught.value.message
    assert run(["rev-parse", "HEAD"], cwd=repo, env=dict(os.environ), timeout=30).ok


def test_the_working_folder_is_gits(repo: Path) -> None:
    inside = run(["ls-files", "a.md"], cwd=repo / "documents", env=dict(os.environ))
    assert inside.out == "a.md"  # the pathspec and the answer relative to the folder
    top = run(["rev-parse", "--show-prefix"], cwd=repo / "documents", env=dict(os.environ))
    assert top.out == "documents/"


def test_a_missing_folder_or_git_is_a_clear_error(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(NotFoundError) as missing:
        run(["status"], cwd=tmp_path / "absent", env=dict(os.environ))
    assert "is not a directory" in missing.value.message
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotFoundError):
        run(["status"], cwd=tmp_path / "file", env=dict(os.environ))
    with pytest.raises(NotFoundError) as no_git:
        run(["status"], cwd=repo, env={"PATH": str(tmp_path / "empty")})
    assert "git is not installed" in no_git.value.message


def test_gits_started_together_answer_in_order(repo: Path, tmp_path: Path) -> None:
    env = dict(os.environ)
    wait = start_together(
        [["rev-parse", "--abbrev-ref", "HEAD"], ["no-such-command"]], cwd=repo, env=env
    )
    branch, failed = wait()
    assert branch.out == "main" and failed.code == 1 and "is not a git command" in failed.err
    slow = start_together([["-c", "alias.wait=!sleep 30", "wait"]], cwd=repo, env=env, timeout=0.5)
    with pytest.raises(GitFailed) as caught:
        slow()
    assert "took longer than" in caught.value.message
    with pytest.raises(NotFoundError) as missing:
        start_together([["status"]], cwd=tmp_path / "absent", env=env)
    assert "is not a directory" in missing.value.message
    with pytest.raises(NotFoundError) as no_git:
        start_together([["status"]], cwd=repo, env={"PATH": str(tmp_path / "empty")})
    assert "git is not installed" in no_git.value.message
