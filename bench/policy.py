"""Enforced rules: what the PreToolUse hook (`reflect-git-hook PreToolUse`) costs every tool call of an agent.

1. `reflect-git-hook PreToolUse` as a whole process, the rules compiled and current, vs
   `python -c pass` with the same interpreter (median of interleaved runs; goal: at most 2x).
   Measured for a call no rule matches (almost every call) and for one a rule denies, and with
   `REFLECT_POLICY=0` (the hook's start-up alone: what the rules add is the difference).
2. The one-time cost after the KB changed: the background job recompiling the rules of a KB of N notes
   (a cold compile, and the compile after one more commit, which reads only the new blob).
3. The window: a deny rule committed, then the hook called again and again (each call a whole
   process, as an agent's tool calls are) until it denies; the time from the commit's return to
   the first deny. Until then the last complete compile answers. Measured for a rule added
   through the door (`reflect-git add`, which starts the compile itself) and for one committed
   with plain git (the first hook that finds the rules stale starts it).

Both are measured in the editable dev venv that runs this script (``python -c HOOK_CODE``, as the installer writes it) and
the first in a normal install too: a wheel built from this checkout and installed byte-compiled
by pip into its own venv (``bench/startup.py``'s ``release_install``), timed through its
``reflect-git-hook`` console script against that venv's own ``python -c pass``; that is what users
run. ``--release-venv DIR`` keeps (or reuses) that venv; ``--no-release`` skips it.

Run: .venv/bin/python bench/policy.py [--runs N] [--notes N] [--windows N] [--release-venv DIR]
     [--no-release]
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
from pathlib import Path

from reflectgit.workflows.installer import HOOK_CODE  # the command the installer writes

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from startup import release_install  # noqa: E402 - bench/ is not a package

from bench.kbgen import GIT_ENV, make_kb  # noqa: E402

RULE_NOTE = """---
id: no-force-push
title: Never force-push
created: 2026-11-30
confidence: high
enforce:
  deny:
    - "Bash(git push --force:*)"
---
Force pushes rewrote the team's history twice.
"""


def payload(tmp: Path, command: str) -> str:
    return json.dumps(
        {
            "session_id": "bench-session",
            "transcript_path": str(tmp / "none.jsonl"),
            "cwd": str(tmp),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "bench"},
            "tool_use_id": "toolu_bench",
        }
    )


def timed(args: list[str], env: dict[str, str], stdin: str | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(args, env=env, input=stdin, text=True, capture_output=True, check=True)
    return (time.perf_counter() - start) * 1000, proc.stdout


DEV = [sys.executable, "-c", HOOK_CODE]


def hook(env: dict[str, str], stdin: str, cmd: list[str] = DEV) -> tuple[float, str]:
    return timed([*cmd, "PreToolUse"], env, stdin)


def ratios(
    label: str,
    python: str,
    cmd: list[str],
    env: dict[str, str],
    quiet: str,
    blocked: str,
    runs: int,
) -> None:
    """The hook's three paths against ``python -c pass`` of the same interpreter, interleaved."""
    times: dict[str, list[float]] = {"pass": [], "off": [], "quiet": [], "deny": []}
    off = dict(env, REFLECT_POLICY="0")
    for i in range(runs + 2):  # two warm-up rounds are dropped
        sample = {
            "pass": timed([python, "-c", "pass"], env)[0],
            "off": hook(off, quiet, cmd)[0],
            "quiet": hook(env, quiet, cmd)[0],
            "deny": hook(env, blocked, cmd)[0],
        }
        if i >= 2:
            for key, ms in sample.items():
                times[key].append(ms)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"\n## {label} ({' '.join(cmd)})")
    print(f"python -c pass:                          {med['pass']:7.1f} ms (median)")
    rows = (
        ("off", "REFLECT_POLICY=0"),
        ("quiet", "no rule matches"),
        ("deny", "a rule denies"),
    )
    for key, what in rows:
        ratio = med[key] / med["pass"]
        verdict = "ok" if ratio <= 2 else "OVER"
        print(f"hook PreToolUse, {what + ':':<24}{med[key]:7.1f} ms  {ratio:.2f}x [{verdict}]")
    print("  goal: <= 2x `python -c pass`")
    print(f"  the rules' own part of a call: {med['quiet'] - med['off']:+.1f} ms")


def commit_rule(kb: Path, env: dict[str, str], name: str) -> None:
    (kb / "documents" / f"{name}.md").write_text(RULE_NOTE.replace("no-force-push", name))
    subprocess.run(["git", "add", "documents"], cwd=kb, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", name], cwd=kb, env=env, check=True)


def window(kb: Path, tmp: Path, env: dict[str, str], name: str, door: bool) -> float:
    """Milliseconds from a deny rule's commit to the first hook call that denies by it."""
    note = RULE_NOTE.replace("no-force-push", name).replace("git push --force", f"make {name}")
    if door:
        draft = tmp / "drafts" / f"{name}.md"
        draft.parent.mkdir(exist_ok=True)
        draft.write_text(note)
        add = [sys.executable, "-m", "reflectgit", "add", str(draft)]
        subprocess.run(add, env=env, cwd=kb, check=True, capture_output=True)
    else:
        (kb / "documents" / f"{name}.md").write_text(note)
        subprocess.run(["git", "add", "documents"], cwd=kb, env=env, check=True)
        subprocess.run(["git", "commit", "-qm", name], cwd=kb, env=env, check=True)
    start = time.perf_counter()
    call = payload(tmp, f"make {name} now")
    while time.perf_counter() - start < 120:
        if hook(env, call)[1]:
            return (time.perf_counter() - start) * 1000
    raise SystemExit(f"the rule {name} was never enforced")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--release-venv", type=Path, default=None)
    parser.add_argument("--no-release", action="store_true")
    parser.add_argument("--windows", type=int, default=5, help="rules committed per window row")
    args = parser.parse_args()
    # Detached compiles may still write in the scratch folder as it goes.
    with tempfile.TemporaryDirectory(
        prefix="reflect-git-bench-", ignore_cleanup_errors=True
    ) as name:
        tmp = Path(name)
        home = tmp / "home"
        home.mkdir()
        kb = tmp / "kb"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "REFLECT_"))}
        env |= GIT_ENV | {
            "HOME": str(home),
            "GIT_CONFIG_GLOBAL": os.devnull,
            "REFLECT_GIT_KB": str(kb),
            "PYTHONPATH": str(ROOT),
            "PYTHONPYCACHEPREFIX": str(tmp / "pycache"),  # compiled once, as when installed
        }
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        make_kb(kb, args.notes)  # packed objects, as after `git gc`
        commit_rule(kb, env, "no-force-push")
        quiet, blocked = payload(tmp, "git status"), payload(tmp, "git push --force origin main")

        # The hooks compile nothing (a background process does); REFLECT_GIT_HOOK_SYNC=1 makes
        # these two calls compile in the foreground, so the compile's own cost shows.
        sync = env | {"REFLECT_GIT_HOOK_SYNC": "1"}
        cold, out = hook(sync, quiet)  # compiles every note once
        assert out == "", out
        commit_rule(kb, env, "no-force-push-2")
        warm, out = hook(sync, quiet)  # one more commit: reads the one new blob
        assert out == "", out
        _, denied = hook(env, blocked)
        assert json.loads(denied)["hookSpecificOutput"]["permissionDecision"] == "deny", denied

        print(
            f"KB of {args.notes + 2} notes (packed), rules compiled into the state directory; "
            f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores"
        )
        ratios("dev install", sys.executable, DEV, env, quiet, blocked, args.runs)
        if not args.no_release:
            python = release_install(tmp, args.release_venv).python
            release_env = {
                k: v for k, v in env.items() if k not in ("PYTHONPATH", "PYTHONPYCACHEPREFIX")
            }
            script = [str(python.parent / "reflect-git-hook")]
            ratios("release install", str(python), script, release_env, quiet, blocked, args.runs)
        print()
        print(f"recompile after the KB changed, cold:    {cold:7.1f} ms (once)")
        print(f"recompile after one more commit:         {warm:7.1f} ms (once)")
        for door in (True, False):
            times = [window(kb, tmp, env, f"rule-{door}-{i}", door) for i in range(args.windows)]
            how = "an add (the door)" if door else "a plain git commit"
            print(
                f"window, a deny rule by {how + ':':<20}{statistics.median(times):7.1f} ms "
                f"(median of {args.windows}: from the commit to the first hook that denies)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
