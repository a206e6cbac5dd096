"""The package as users get it: an sdist and a wheel built from this checkout, once a session."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT


@dataclass(frozen=True)
class Dist:
    wheel: Path
    sdist: Path


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    """``python -m build`` (isolated: setuptools comes from the index, as on a release machine)."""
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(REPO_ROOT)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return Dist(wheel, sdist)


def snapshot(target: Path, env: dict[str, str] | None = None) -> str:
    """This checkout as it is now (committed, staged and untracked-but-not-ignored files),
    committed as the one commit of a fresh repository at ``target``; returns that commit."""

    def run(*args: str, cwd: Path) -> str:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    listed = run("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=REPO_ROOT)
    for rel in filter(None, listed.split("\0")):
        source = REPO_ROOT / rel
        if source.is_file():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target / rel)
    run("init", "-q", "-b", "main", cwd=target)
    run("add", "-A", cwd=target)
    run("commit", "-q", "-m", "snapshot", cwd=target)
    return run("rev-parse", "HEAD", cwd=target).strip()
