"""A code repository and a KB whose notes are anchored to it, for the stale and pr-notes tests:
notes added with ``add --anchor`` inside the repository, then ``stale`` and ``pr-notes`` run
through the real command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import run_cli_proc
from tests.support.coderepo import POOL_PY, CodeRepo


class World:
    """``billing-api`` (``src/pool.py``, ``src/retry.py``, ``README.md``, one commit) and an
    empty KB beside it."""

    def __init__(self, tmp: Path) -> None:
        self.code = CodeRepo(tmp / "billing-api")
        self.code.write("src/pool.py", POOL_PY)
        self.code.write("src/retry.py", "def backoff(n):\n    return 2 ** n\n")
        self.code.write("README.md", "# billing\n")
        self.code.commit("first")
        self.kb = tmp / "kb"
        assert run_cli_proc("init", str(self.kb), "-q").returncode == 0

    def add(self, title: str, insight: str, *anchors: str, cwd: Path | None = None) -> str:
        """Add a note anchored to ``anchors`` (run in the code repository, or ``cwd``)."""
        args = ["--kb", str(self.kb), "--json", "add", "--title", title, "--insight", insight,
                "--category", "perf", "--confidence", "high"]  # fmt: skip
        for anchor in anchors:
            args += ["--anchor", anchor]
        done = run_cli_proc(*args, cwd=cwd or self.code.path)
        assert done.returncode == 0, done.stderr
        return str(json.loads(done.stdout)["id"])

    def note(self, title: str, *anchors: str) -> str:
        """A note whose insight repeats its title."""
        return self.add(title, f"{title}: what we learned", *anchors)

    def stale(self, *extra: str) -> dict[str, Any]:
        done = run_cli_proc(
            "--kb", str(self.kb), "stale", "--repo", str(self.code.path), "--json", *extra
        )
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout))

    def listed(self) -> dict[str, dict[str, Any]]:
        """The notes ``stale`` lists as stale, by id."""
        return {s["id"]: s for s in self.stale()["stale"]}

    def pr(self, *extra: str) -> list[dict[str, Any]]:
        """``pr-notes`` of the branch checked out against ``main``."""
        done = run_cli_proc(
            "--kb", str(self.kb), "--json", "pr-notes", "--repo", str(self.code.path),
            "--base", "main", *extra,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return list(json.loads(done.stdout)["notes"])
