"""Interleaved whole-process timings of a few commands: each run times every command once, in
turn, so a shared machine's load drifts over all of them alike (``bench/startup.py`` times one
install after the other, minutes apart). Prints each command's median and its ratio to the
first.

Run: .venv/bin/python bench/ab.py [--runs 21] [--cwd DIR] -- LABEL CMD... -- LABEL CMD...
e.g. -- pass /tmp/rel/bin/python -c pass -- before /tmp/a/bin/reflect-git recall --
     after /tmp/b/bin/reflect-git recall
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--cwd", type=Path, default=Path("/tmp"))
    parser.add_argument("commands", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    groups: list[list[str]] = []
    for word in args.commands:
        if word == "--":
            groups.append([])
        elif groups:
            groups[-1].append(word)
    groups = [g for g in groups if len(g) >= 2]
    if not groups:
        parser.error("give at least one `-- LABEL CMD...`")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times: list[list[float]] = [[] for _ in groups]
    for i in range(args.runs + 2):  # two warm-up rounds are dropped
        for j, (_label, *cmd) in enumerate(groups):
            start = time.perf_counter()
            proc = subprocess.run(cmd, cwd=args.cwd, env=env, capture_output=True)
            ms = (time.perf_counter() - start) * 1000
            if proc.returncode != 0:
                raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.decode()[-500:]}")
            if i >= 2:
                times[j].append(ms)
    load = os.getloadavg()[0]
    print(f"{args.runs} interleaved runs, medians; load average {load:.1f}")
    first = statistics.median(times[0])
    for (label, *_cmd), values in zip(groups, times, strict=True):
        median = statistics.median(values)
        print(f"  {label:<28} {median:7.1f} ms  (min {min(values):6.1f})  {median / first:5.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
