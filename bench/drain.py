"""Drain benchmarks (issue 6).

1. The $0 cascade (gate + slice + privacy, i.e. ``cascade.prepare``) on ``big.jsonl`` and on a
   synthetic transcript ten times larger, in MB/s. Anchor: at least 20 MB/s, and linear in size
   (the 10x file's throughput at least half the 1x file's; timing noise aside, 1.0).
2. A heuristic drain of the whole sample corpus into a fresh KB, per transcript.
3. Finding the JSON answer in a model's output after megabytes of ordinary code (issue 12):
   2.9 MB took 81 s before (quadratic); anchor: linear, at least 5 MB/s.

Run: ``.venv/bin/python bench/drain.py``
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reflectgit.config import Config  # noqa: E402
from reflectgit.state.queue import Queue  # noqa: E402
from reflectgit.workflows.drain import cascade  # noqa: E402
from reflectgit.workflows.drain.loop import run_drain  # noqa: E402

SHARED = Path(os.environ.get("REFLECT_SHARED_DIR", ROOT.parent / "shared")).resolve()
TRANSCRIPTS = SHARED / "data" / "transcripts"
GOAL_MBPS = 20.0


def best_of(fn, repeat: int = 15) -> float:  # type: ignore[no-untyped-def]
    """Best CPU time of ``repeat`` runs (CPU time: other jobs on the machine add less noise)."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def cascade_throughput(tmp: Path) -> bool:
    big = TRANSCRIPTS / "claude" / "big.jsonl"
    data = big.read_bytes()
    synthetic = tmp / "big-x10.jsonl"
    synthetic.write_bytes(data * 10)  # ten sessions' worth, signals at the very end
    rows = []
    for path in (big, synthetic):
        size = path.stat().st_size
        prepared = cascade.prepare(str(path))
        assert prepared.skip is None and prepared.chunks, "the signals near the end are found"
        seconds = best_of(lambda p=path: cascade.prepare(str(p)))
        rows.append((path.name, size, seconds, size / seconds / 1e6))
    print("cascade (gate + slice + privacy):")
    for name, size, seconds, mbps in rows:
        print(f"  {name:<16} {size / 1e6:7.2f} MB  {seconds * 1000:8.1f} ms  {mbps:7.1f} MB/s")
    linear = rows[1][3] / rows[0][3]
    worst = min(r[3] for r in rows)
    print(
        f"  goal >= {GOAL_MBPS:.0f} MB/s: worst {worst:.1f} MB/s -> ratio {worst / GOAL_MBPS:.2f}x"
    )
    print(f"  linearity (10x throughput / 1x throughput): {linear:.2f} (1.0 = linear)")
    return worst >= GOAL_MBPS and linear >= 0.5


def corpus_drain(tmp: Path) -> None:
    kb = tmp / "kb"
    subprocess.run(["git", "init", "-q", "-b", "main", str(kb)], check=True)
    env = {
        "HOME": str(tmp),
        "PATH": os.environ.get("PATH", ""),
        "REFLECT_DRAIN_WRITER": "heuristic",
        "REFLECT_DRAIN_DEBOUNCE_SEC": "0",
        "REFLECT_DRAIN_MAX": "100",
        "REFLECT_DRAIN_DAILY_MAX": "100",
    }
    cfg = Config.resolve(kb, env)
    queue = Queue(cfg.state_dir)
    manifest = json.loads((TRANSCRIPTS / "MANIFEST.json").read_text())
    for item in manifest:
        src = SHARED / "data" / item["path"]
        dst = tmp / "t" / item["path"].replace("/", "_")
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        queue.add(str(dst), "stop", dst.stem)
    start = time.perf_counter()
    report = run_drain(cfg)
    total = time.perf_counter() - start
    print(f"heuristic drain of the sample corpus ({len(report.rows)} transcripts):")
    for row in report.rows:
        name = Path(row["transcript"]).name.replace("transcripts_", "")
        ms = row.get("duration_ms")
        took = f"{ms:5d} ms" if isinstance(ms, int) else "    - ms"
        print(f"  {name:<38} {row['outcome']:<24} notes={len(row['notes'])}  {took}")
    notes = sum(len(r["notes"]) for r in report.rows)
    print(
        f"  total {total:.2f} s, {notes} notes, {total / len(report.rows) * 1000:.0f} ms/transcript"
    )


ANSWER_GOAL_MBPS = 5.0
ANSWER_BEFORE_S = 81.0  # issue 12: 2.9 MB of ordinary code before the answer, quadratic


def answer_extraction() -> bool:
    from reflectgit.workflows.drain import writer as wr

    block = (
        'function reducer(state = {}, action) {\n  if (action.type === "actions") {\n'
        '    return { ...state, "actions": [...state.actions, action] };\n  }\n'
        '  const cfg = {"a": 1, "b": {"c": [1, 2, {"d": "}"}]}};\n  return state;\n}\n'
    )
    answer = '\nHere it is: {"actions": [{"action": "CREATE", "title": "t"}]}\n'
    rows = []
    for mb in (2.9, 29.0):
        text = block * int(mb * 1e6 / len(block)) + answer
        assert wr.find_actions(text) is not None
        seconds = best_of(lambda t=text: wr.find_actions(t), repeat=3)
        rows.append((mb, seconds, len(text) / seconds / 1e6))
    print("answer extraction after ordinary code (find_actions):")
    for mb, seconds, mbps in rows:
        print(f"  {mb:5.1f} MB  {seconds * 1000:8.1f} ms  {mbps:7.1f} MB/s")
    print(
        f"  2.9 MB: {rows[0][1]:.2f} s vs {ANSWER_BEFORE_S:.0f} s before -> "
        f"{ANSWER_BEFORE_S / rows[0][1]:.0f}x faster; goal >= {ANSWER_GOAL_MBPS:.0f} MB/s -> "
        f"ratio {min(r[2] for r in rows) / ANSWER_GOAL_MBPS:.2f}x"
    )
    linear = rows[1][2] / rows[0][2]
    print(f"  linearity (10x throughput / 1x throughput): {linear:.2f} (1.0 = linear)")
    return min(r[2] for r in rows) >= ANSWER_GOAL_MBPS and linear >= 0.5


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        ok = cascade_throughput(Path(tmp))
        corpus_drain(Path(tmp))
    ok = answer_extraction() and ok
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
