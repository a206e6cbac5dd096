"""The loopback git servers themselves: clone, push and refuse like a real host."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import git
from tests.support.remote import BareRepo, GitDaemon, GitHTTP, git_daemon, git_http, prompt_off

__all__ = ["git_daemon", "git_http", "prompt_off"]


def _push_one(url: str, work: Path) -> subprocess.CompletedProcess[str]:
    git("clone", "-q", url, str(work), cwd=work.parent)
    (work / "a.txt").write_text("a\n")
    git("add", "a.txt", cwd=work)
    git("commit", "-qm", "a", cwd=work)
    return subprocess.run(
        ["git", "push", "origin", "HEAD:main"], cwd=work, capture_output=True, text=True
    )


def test_daemon_accepts_push(git_daemon: GitDaemon, tmp_path: Path, prompt_off: None) -> None:
    repo: BareRepo = git_daemon.new_repo()
    proc = _push_one(repo.url, tmp_path / "w")
    assert proc.returncode == 0, proc.stderr
    assert repo.files() == ["a.txt"]


def test_http_backend_push_and_auth(git_http: GitHTTP, tmp_path: Path, prompt_off: None) -> None:
    repo = git_http.new_repo()
    proc = _push_one(repo.url, tmp_path / "w")
    assert proc.returncode == 0, proc.stderr
    assert "main" in repo.heads()
    bad = subprocess.run(
        ["git", "ls-remote", git_http.url_for(repo.name, password="wrong")],
        capture_output=True,
        text=True,
    )
    assert bad.returncode != 0
    assert "Authentication failed" in bad.stderr


def test_seed_writes_main(git_daemon: GitDaemon) -> None:
    repo = git_daemon.new_repo()
    first = repo.seed({"documents/a.md": "x"})
    second = repo.seed({"documents/b.md": "y"})
    assert repo.heads()["main"] == second
    assert repo.git("rev-parse", "main^").strip() == first
    assert repo.files() == ["documents/a.md", "documents/b.md"]
