"""A drain run's time against the queue's length (issue 32).

A queue of N pending entries (2,000 and 200,000; their transcripts gone, so each run's 3
entries are skipped at once and the time is the queue's own), then ``drain`` runs taking 3
entries each: the first run of a queue no order file describes yet (it orders the queue
once, reading every entry) and the median of the next three. Anchor: the later runs take the
same time at 200,000 entries as at 2,000 (before: 42 s at 200,000).

Run: ``.venv/bin/python bench/queue.py [N ...]``
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reflectgit.state.queue import Entry, encode_entry, entry_id  # noqa: E402


def one_run(kb: Path) -> float:
    env = {**os.environ, "REFLECT_DRAIN_DEBOUNCE_SEC": "0", "REFLECT_DRAIN_MAX": "3"}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "reflectgit", "--kb", str(kb), "--quiet", "drain",
         "--writer", "heuristic"],
        check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return time.perf_counter() - start


def measure(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        kb = Path(tmp) / "kb"
        subprocess.run(
            [sys.executable, "-m", "reflectgit", "init", str(kb), "--no-pre-commit"],
            check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        folder = kb / ".git" / "reflect-git" / "queue"
        folder.mkdir(parents=True, exist_ok=True)
        for seq in range(1, n + 1):
            transcript = f"{tmp}/gone/session-{seq}.jsonl"
            entry = Entry(id=entry_id(transcript), transcript_path=transcript, seq=seq)
            (folder / f"{entry.id}.json").write_bytes(encode_entry(entry))
        first = one_run(kb)
        later = statistics.median(one_run(kb) for _ in range(3))
        print(f"{n:>8} entries: first run {first:6.2f} s (orders the queue once), "
              f"later runs {later:5.2f} s")  # fmt: skip


if __name__ == "__main__":
    for size in [int(a) for a in sys.argv[1:]] or [2_000, 200_000]:
        measure(size)
