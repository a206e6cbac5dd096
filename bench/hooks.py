"""Capture hooks: what they cost the caller, measured against their anchors in the same run.

1. `git commit` with the post-commit capture hook installed vs the same repository without it
   (median of interleaved runs; goal: the hook adds at most 40 ms). The default hook captures in
   the background; the synchronous mode (REFLECT_GIT_HOOK_SYNC=1) is reported too.
2. the PostToolUse hook (`python -c HOOK_CODE PostToolUse`, as the installer writes it) as a whole process vs `python -c pass` (goal: at most 3x).
3. Signal scan throughput over big.jsonl: the enqueue gate reading the transcript and scanning
   its dialogue, in MB/s (goal: at least 20).

Run: .venv/bin/python bench/hooks.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("REFLECT_SHARED_DIR", ROOT.parent / "shared")).resolve() / "data"
sys.path.insert(0, str(ROOT))

from reflectgit.workflows.installer import HOOK_CODE  # noqa: E402 - the command it installs


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def run(args: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None) -> None:
    subprocess.run(args, cwd=cwd, env=env, input=stdin, text=True, check=True, capture_output=True)


def captured(kb: Path) -> int:
    path = kb / ".git" / "reflect-git" / "commits.jsonl"
    return len(path.read_text().splitlines()) if path.exists() else 0


def bench_commit(tmp: Path, kb: Path, env: dict[str, str], runs: int) -> dict[str, float]:
    repos = {}
    for name in ("plain", "hooked", "hooked-sync"):
        repo = tmp / name
        run(["git", "init", "-q", "-b", "main", str(repo)], tmp, env)
        repos[name] = repo
    for name in ("hooked", "hooked-sync"):
        run([sys.executable, "-m", "reflectgit", "hooks", "install", str(repos[name])], tmp, env)
    modes = {"plain": env, "hooked": env, "hooked-sync": dict(env, REFLECT_GIT_HOOK_SYNC="1")}
    times: dict[str, list[float]] = {name: [] for name in repos}
    for i in range(runs + 2):
        for name, repo in repos.items():
            (repo / "f.txt").write_text(f"{i}\n")
            run(["git", "add", "f.txt"], repo, env)
            before = captured(kb)
            ms = timed(
                lambda repo=repo, use=modes[name], i=i: run(
                    ["git", "commit", "-q", "-m", f"c{i}"], repo, use
                )
            )
            if name == "hooked":  # let the background capture finish outside the timing,
                deadline = time.monotonic() + 30  # so it cannot slow the next measurement
                while captured(kb) == before and time.monotonic() < deadline:
                    time.sleep(0.01)
            if i >= 2:  # the first commits warm caches
                times[name].append(ms)
    return {name: statistics.median(values) for name, values in times.items()}


def bench_hook(tmp: Path, env: dict[str, str], runs: int) -> tuple[float, float]:
    payload = json.dumps(
        {
            "session_id": "bench-session",
            "transcript_path": str(tmp / "none.jsonl"),
            "cwd": str(tmp),
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": str(tmp / "f.txt")},
            "tool_response": {"type": "text", "file": {"content": "hello"}},
        }
    )
    hook_times, pass_times = [], []
    for _ in range(runs):
        pass_times.append(timed(lambda: run([sys.executable, "-c", "pass"], tmp, env)))
        hook_times.append(
            timed(
                lambda: run(
                    [sys.executable, "-c", HOOK_CODE, "PostToolUse"],
                    tmp,
                    env,
                    payload,
                )
            )
        )
    return statistics.median(hook_times), statistics.median(pass_times)


def bench_scan(runs: int) -> float:
    from reflectgit.workflows.capture.gate import evaluate

    big = DATA / "transcripts" / "claude" / "big.jsonl"
    size = big.stat().st_size
    best = []
    for _ in range(runs):
        ms = timed(lambda: evaluate(big))
        best.append(ms)
    verdict = evaluate(big)
    assert verdict.enqueue, verdict
    return size / (statistics.median(best) / 1000) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="reflect-git-bench-") as name:
        tmp = Path(name)
        home = tmp / "home"
        home.mkdir()
        kb = tmp / "kb"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "REFLECT_"))} | {
            "HOME": str(home),
            "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "Bench",
            "GIT_AUTHOR_EMAIL": "bench@example.com",
            "GIT_COMMITTER_NAME": "Bench",
            "GIT_COMMITTER_EMAIL": "bench@example.com",
            "REFLECT_GIT_KB": str(kb),
            "PYTHONPATH": str(ROOT),
            # An installed package has its bytecode compiled; a source checkout run with
            # PYTHONDONTWRITEBYTECODE=1 would recompile every module on every hook call.
            "PYTHONPYCACHEPREFIX": str(tmp / "pycache"),
        }
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        (home / ".gitconfig").write_text("[commit]\n\tgpgsign = false\n")
        run(["git", "init", "-q", "-b", "main", str(kb)], tmp, env)

        commits = bench_commit(tmp, kb, env, args.runs)
        added = commits["hooked"] - commits["plain"]
        added_sync = commits["hooked-sync"] - commits["plain"]
        print(f"git commit, no hook:               {commits['plain']:7.1f} ms (median)")
        print(f"git commit, capture hook:          {commits['hooked']:7.1f} ms  (+{added:.1f} ms)")
        print(
            f"git commit, capture hook (sync):   {commits['hooked-sync']:7.1f} ms  "
            f"(+{added_sync:.1f} ms)"
        )
        verdict = "ok" if added <= 40 else "OVER"
        print(f"  goal: the hook adds <= 40 ms -> {added:.1f} ms [{verdict}]")

        hook_ms, pass_ms = bench_hook(tmp, env, args.runs)
        ratio = hook_ms / pass_ms
        print(f"hook PostToolUse (whole process):  {hook_ms:7.1f} ms (median)")
        print(f"python -c pass:                    {pass_ms:7.1f} ms (median)")
        print(f"  goal: <= 3x -> {ratio:.2f}x [{'ok' if ratio <= 3 else 'OVER'}]")

        mbps = bench_scan(max(5, args.runs))
        print(f"signal scan over big.jsonl (gate): {mbps:7.1f} MB/s")
        print(f"  goal: >= 20 MB/s [{'ok' if mbps >= 20 else 'UNDER'}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
