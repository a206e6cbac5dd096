"""``git.run.run``: git started with ``posix_spawn`` behaves as ``subprocess.run`` started it.

Real git in a real repository: input and output of a megabyte both ways, stderr and the exit
code, the timeout (git killed, ``GitFailed``), the working folder (pathspecs and output
relative to it), a missing folder or git, descriptors the test process holds open, and the
signals Python ignores (git gets their defaults back).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from reflectgit.digest import sha1
from reflectgit.errors import NotFoundError
from reflectgit.git.run import GitFailed, run
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
    assert hashed.ok and hashed.out == sha1(b"blob %d\x00" % len(data) + data)
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


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_descriptors_we_hold_are_not_passed_on(repo: Path, tmp_path: Path) -> None:
    held = os.open(tmp_path / "held", os.O_WRONLY | os.O_CREAT)
    os.set_inheritable(held, True)  # as a caller's descriptor would be
    try:
        listed = run(["-c", "alias.fds=!ls /proc/$$/fd", "fds"], cwd=repo, env=dict(os.environ))
    finally:
        os.close(held)
    assert listed.ok and str(held) not in listed.out.split(), (held, listed.out)
    assert {"0", "1", "2"} <= set(listed.out.split())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/PID/status")
def test_git_gets_the_signals_python_ignores_back(repo: Path) -> None:
    status = run(["-c", "alias.sig=!cat /proc/$$/status", "sig"], cwd=repo, env=dict(os.environ))
    ignored = next(line for line in status.out.splitlines() if line.startswith("SigIgn:"))
    mask = int(ignored.split()[1], 16)
    assert not mask & (1 << (13 - 1)), ignored  # SIGPIPE
    assert not mask & (1 << (25 - 1)), ignored  # SIGXFSZ
