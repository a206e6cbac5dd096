"""Shared fixtures: a pinned git environment, a throwaway home, real repositories in tmp."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("REFLECT_SHARED_DIR", REPO_ROOT.parent / "shared")).resolve()
DATA = SHARED / "data"
TEST_DATA = REPO_ROOT / "tests" / "data"

PINNED_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ADVICE": "0",
    "TZ": "UTC",
    "LC_ALL": "C.UTF-8",
}


@pytest.fixture(autouse=True)
def pinned_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own HOME and a git environment that ignores the machine's config."""
    home = tmp_path_factory.mktemp("home")
    gitconfig = home / ".gitconfig"
    gitconfig.write_text(
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"
        '[tag]\n\tgpgsign = false\n[protocol "file"]\n\tallow = always\n',
        encoding="utf-8",
    )
    for key in list(os.environ):
        if key.startswith(("REFLECT_", "GIT_")) or key in {
            "GLOBAL_LEARNINGS_PATH",
            "CLAUDE_SESSION_ID",
            "GH_TOKEN",
            "GITHUB_TOKEN",
            "GITLAB_TOKEN",
            "GITEA_TOKEN",
            "XDG_CONFIG_HOME",
        }:
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    for key, value in PINNED_GIT_ENV.items():
        monkeypatch.setenv(key, value)
    return home


def git(*args: str, cwd: Path | str, check: bool = True, input: str | None = None) -> str:
    """Run real git and return its stdout."""
    proc = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        input=input,
        check=False,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty git repository on branch main."""
    path = tmp_path / "repo"
    git("init", "-q", "-b", "main", str(path), cwd=tmp_path)
    return path


def run_cli_proc(
    *args: str,
    cwd: Path | str | None = None,
    input: str | bytes | None = None,
    env: dict | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the installed CLI as a real subprocess."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "reflectgit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        input=input if isinstance(input, str) or input is None else input.decode(),
        env=full_env,
        check=False,
    )


class CliResult:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code = code
        self.out = out
        self.err = err

    def json(self) -> object:
        import json

        return json.loads(self.out)

    def __repr__(self) -> str:
        return f"CliResult(code={self.code}, out={self.out!r}, err={self.err!r})"


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Iterator[object]:
    """Run the CLI in-process: ``cli("add", "x.md", "--kb", ...)`` -> CliResult."""
    from reflectgit.cli.app import run

    def invoke(*args: str) -> CliResult:
        capsys.readouterr()
        code = run(list(args))
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    yield invoke


def type_tree(value: object) -> object:
    """``value`` with every leaf replaced by its type's name: two parsers' values compared
    with their types (True is not 1, 1.0 is not 1)."""
    if isinstance(value, dict):
        return {k: type_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [type_tree(v) for v in value]
    return type(value).__name__
