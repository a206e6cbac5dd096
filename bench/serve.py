"""Benchmark: `reflect-git serve` pages at 10,000 notes against the 150 ms goal (issue 15).

Run: .venv/bin/python bench/serve.py [--notes 10000] [--confirms 100] [--runs 20] [--keep DIR]

It generates a KB (bench/kbgen.py: one `git fast-import` commit), then makes ``--confirms``
real `reflect-git confirm` commits spread over the notes (three on the note the page shows), so
history walks have something to walk. It starts a real `reflect-git serve` (uvicorn, a free
loopback port), opens the notes page once to build the search index, then times over HTTP, as
a browser would get them:

- the notes page (first page, sorted by title), a search on it, a filtered one;
- a note page (body, frontmatter, sidecar, history with diffs);

and prints the median and the best of ``--runs`` for each, and the ratio to the 150 ms anchor.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.kbgen import env, make_kb, note_bytes  # noqa: E402

GOAL_MS = 150.0
SEED = 20261201


def confirm_commits(kb: Path, count: int, focus: str, total: int) -> float:
    """``count`` confirm commits through the KnowledgeBase (three on ``focus``). Seconds."""
    from reflectgit.workflows.kb import KnowledgeBase

    rng = random.Random(SEED)
    start = time.perf_counter()
    with KnowledgeBase.open(kb, env=env()) as base:
        for i in range(count):
            ident = focus if i % max(1, count // 3) == 0 else note_bytes(rng.randrange(total))[0]
            base.confirm(ident, f"bench-source-{i}")
    return time.perf_counter() - start


def start_server(kb: Path) -> tuple[subprocess.Popen[str], str, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "reflectgit", "--kb", str(kb), "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("open http"):
            url = line.split(" ", 1)[1].strip()
            return proc, url.split("/?", 1)[0], url.split("token=", 1)[1]
    raise SystemExit(proc.stderr.read() if proc.stderr else "the server printed no URL")


def get(base: str, token: str, path: str) -> tuple[float, int, int]:
    req = urllib.request.Request(base + path, headers={"Authorization": f"token {token}"})
    start = time.perf_counter()
    with urllib.request.urlopen(req, timeout=120) as res:
        body = res.read()
        status = res.status
    return (time.perf_counter() - start) * 1000, status, len(body)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--confirms", type=int, default=100)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--keep", type=Path, default=None, help="Keep the KB in this folder.")
    args = ap.parse_args()

    root = Path(args.keep or tempfile.mkdtemp(prefix="bench-serve-"))
    kb = root / f"kb-{args.notes}"
    if kb.exists():
        shutil.rmtree(kb)
    root.mkdir(parents=True, exist_ok=True)
    made = make_kb(kb, args.notes, checkout=True)
    focus = note_bytes(args.notes // 2)[0]
    took = confirm_commits(kb, args.confirms, focus, args.notes)
    print(
        f"KB: {args.notes} notes in {made:.1f} s, then {args.confirms} confirm commits in {took:.1f} s"
    )

    proc, base, token = start_server(kb)
    try:
        first, status, _ = get(base, token, "/notes")
        assert status == 200
        print(f"first notes page (builds the search index): {first:.0f} ms")
        pages = {
            "notes page": "/notes",
            "notes page, search": "/notes?q=pools+retries",
            "notes page, tier+tag, by proofs": "/notes?tier=high&tag=bench&sort=-proofs",
            "notes page 100": "/notes?page=100",
            "note page (history with 3 diffs), warm": f"/notes/{focus}",
        }
        # A note page seen for the first time at this HEAD walks the history (cold); the server
        # then keeps it per (HEAD, id) until HEAD moves (warm). Cold: a different note each run.
        rng = random.Random(SEED + 1)
        cold = []
        for _ in range(args.runs):
            ident = note_bytes(rng.randrange(args.notes))[0]
            ms, status, _ = get(base, token, f"/notes/{ident}")
            assert status == 200, (ident, status)
            cold.append(ms)
        worst = statistics.median(cold)
        print(
            f"note page, first view at this HEAD: median {worst:.1f} ms, best {min(cold):.1f} ms"
            f" ({args.runs} different notes)"
        )
        print(f"{'page':40} {'median':>8} {'best':>8} {'bytes':>8}  vs {GOAL_MS:.0f} ms")
        for name, path in pages.items():
            times = []
            size = 0
            for _ in range(args.runs):
                ms, status, size = get(base, token, path)
                assert status == 200, (path, status)
                times.append(ms)
            median = statistics.median(times)
            worst = max(worst, median)
            print(
                f"{name:40} {median:7.1f}  {min(times):7.1f}  {size:8d}  "
                f"{GOAL_MS / median:5.1f}x under the goal"
                if median < GOAL_MS
                else f"{name:40} {median:7.1f}  {min(times):7.1f}  {size:8d}  OVER the goal"
            )
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    print(
        f"slowest median {worst:.1f} ms: ratio to the {GOAL_MS:.0f} ms anchor {GOAL_MS / worst:.1f}x"
    )
    return 0 if worst < GOAL_MS else 1


if __name__ == "__main__":
    os.environ.setdefault("TZ", "UTC")
    raise SystemExit(main())
