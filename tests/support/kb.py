"""Shared helpers for the knowledge-base tests: a KB repository and small readers over git."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DATA, git

VALID = DATA / "notes" / "valid"
INVALID = DATA / "notes" / "invalid"
COMPAT = DATA / "compat"


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    """An empty KB: a git repository on main with no commits."""
    path = tmp_path / "kb"
    git("init", "-q", "-b", "main", str(path), cwd=tmp_path)
    return path


@pytest.fixture
def home_kb(pinned_env: Path) -> Path:
    """A KB where a command finds one when nothing names it: ``~/.learnings`` (an empty git
    repository), so ``hooks install --agent`` has a KB to point the hooks at."""
    path = pinned_env / ".learnings"
    git("init", "-q", "-b", "main", str(path), cwd=pinned_env)
    return path


@pytest.fixture
def rg(cli: Callable[..., Any], kb: Path) -> Callable[..., Any]:
    """The CLI bound to the test's ``kb`` (this one, or the test module's own): ``rg("list")``."""

    def invoke(*args: str) -> Any:
        return cli("--kb", str(kb), *args)

    return invoke


def head(repo: Path) -> str:
    return git("rev-parse", "HEAD", cwd=repo, check=False).strip()


def count_commits(repo: Path) -> int:
    out = git("rev-list", "--count", "HEAD", cwd=repo, check=False).strip()
    return int(out) if out.isdigit() else 0


def trailers(repo: Path, key: str, rev: str = "HEAD") -> list[str]:
    out = git("log", "-1", f"--format=%(trailers:key={key},valueonly)", rev, cwd=repo)
    return [line for line in out.splitlines() if line.strip()]


def subject(repo: Path, rev: str = "HEAD") -> str:
    return git("log", "-1", "--format=%s", rev, cwd=repo).strip()


def ls(repo: Path, rev: str = "HEAD") -> list[str]:
    return git("ls-tree", "-r", "--name-only", rev, cwd=repo).split()


def assert_clean(repo: Path) -> None:
    assert git("status", "--porcelain", cwd=repo) == ""
    fsck = git("fsck", "--strict", "--no-dangling", cwd=repo)
    assert "error" not in fsck and "missing" not in fsck


def as_json(text: str) -> object:
    return json.loads(text)
