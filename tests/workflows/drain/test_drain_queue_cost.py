"""A drain's cost does not grow with the queue's length: a run that takes 3 entries of a long
queue reads the front of the queue, not every entry file in it.

Work done is counted, not time: a real drain in a subprocess, with a Python audit hook
counting the queue entry files it opens.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from reflectgit.state.queue import Entry, encode_entry, entry_id
from tests.conftest import git

COUNT_OPENS = r"""
import json, os, sys
opened = []
def hook(event, args):
    if event == "open" and args and isinstance(args[0], (str, os.PathLike)):
        path = os.fspath(args[0])
        if os.sep + "queue" + os.sep in path and path.endswith(".json"):
            opened.append(path)
sys.addaudithook(hook)
from reflectgit.config import Config, environ
from reflectgit.workflows.drain.loop import run_drain
report = run_drain(Config.resolve(sys.argv[1], environ()), writer="heuristic")
print(json.dumps({"opened": len(opened), "rows": len(report.rows), "status": report.status}))
"""


def _long_queue(state: Path, tmp_path: Path, n: int) -> None:
    """``n`` pending entries, as any version of the queue writes them (one file each)."""
    folder = state / "queue"
    folder.mkdir(parents=True, exist_ok=True)
    for seq in range(1, n + 1):
        transcript = str(tmp_path / "gone" / f"session-{seq}.jsonl")
        entry = Entry(id=entry_id(transcript), transcript_path=transcript, seq=seq)
        (folder / f"{entry.id}.json").write_bytes(encode_entry(entry))


def _drain(kb: Path) -> dict:
    env = {**os.environ, "REFLECT_DRAIN_DEBOUNCE_SEC": "0", "REFLECT_DRAIN_MAX": "3"}
    proc = subprocess.run(
        [sys.executable, "-c", COUNT_OPENS, str(kb)], capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_a_run_that_takes_three_entries_reads_three_not_the_queue(cli, tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    assert cli("init", str(kb), "--no-pre-commit").code == 0
    git("commit", "-q", "--allow-empty", "-m", "start", cwd=kb)
    state = kb / ".git" / "reflect-git"
    n = 2000
    _long_queue(state, tmp_path, n)
    first = _drain(kb)  # the first run orders the queue once (every file read, once)
    assert first["rows"] == 3, first
    for _ in range(3):
        run = _drain(kb)
        assert run["rows"] == 3, run
        assert run["opened"] <= 3 * 3, f"a 3-entry run opened {run['opened']} entry files"
    remaining = len(list((state / "queue").glob("*.json")))
    assert remaining == n - 4 * 3  # each run took the 3 at the front, and only those
