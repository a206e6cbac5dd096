"""pre-commit: what a one-file commit's hook run costs, measured against `python -c pass`.

A KB of N notes (default 100) uses the `.pre-commit-config.yaml` that `reflect-git init`
writes, pointed at a tagged copy of this checkout (file://, rev v<version>), so pre-commit builds
the hooks' environment exactly as a user's would (not timed). One new note is staged, then:

1. `pre-commit run` (the staged file only: both hooks, as `git commit` runs them);
2. each hook's entry point alone in the hooks' environment: `reflect-git-validate ONE.md` and
   `reflect-git-check` (the index), and `reflect-git-check --worktree` for comparison;
3. the anchor, `python -c pass` in the same environment.

Best and median of R runs each (interleaved). The issue measured ~0.5 s for the pre-commit run.

Run: .venv/bin/python bench/precommit.py [--notes N] [--runs R]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from kbgen import env as bench_env  # noqa: E402
from kbgen import make_kb, note_bytes  # noqa: E402

from reflectgit import __version__  # noqa: E402
from reflectgit.workflows.release import REPOSITORY, TAG, pre_commit_config_text  # noqa: E402


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def tagged_copy(target: Path, env: dict[str, str]) -> Path:
    """This checkout's files (tracked and untracked, not ignored), committed and tagged."""
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT, env)
    for rel in filter(None, listed.stdout.split("\0")):
        source = ROOT / rel
        if source.is_file():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target / rel)
    for args in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "-A"],
        ["git", "commit", "-q", "-m", "snapshot"],
        ["git", "tag", TAG],
    ):
        assert run(args, target, env).returncode == 0, args
    return target


def timed(args: list[str], cwd: Path, env: dict[str, str], expect: int = 0) -> float:
    start = time.perf_counter()
    proc = run(args, cwd, env)
    elapsed = (time.perf_counter() - start) * 1000
    assert proc.returncode == expect, (args, proc.stdout, proc.stderr)
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=100)
    parser.add_argument("--runs", type=int, default=7)
    opts = parser.parse_args()
    env = bench_env()
    env["PRE_COMMIT_HOME"] = tempfile.mkdtemp(prefix="bench-precommit-home-")
    tmp = Path(tempfile.mkdtemp(prefix="bench-precommit-"))
    try:
        hooks = tagged_copy(tmp / "reflect-git", env)
        kb = tmp / "kb"
        make_kb(kb, opts.notes)
        config = pre_commit_config_text().replace(REPOSITORY, hooks.as_uri())
        (kb / ".pre-commit-config.yaml").write_text(config)
        ident, data = note_bytes(opts.notes + 1, "new")
        (kb / "documents" / f"{ident}.md").write_bytes(data)
        for args in (["git", "add", "-A"],):
            assert run(args, kb, env).returncode == 0
        pre_commit = [sys.executable, "-m", "pre_commit"]
        start = time.perf_counter()
        built = run([*pre_commit, "install-hooks"], kb, env)
        assert built.returncode == 0, built.stdout + built.stderr
        print(
            f"reflect-git {__version__} ({TAG}); hooks' environment built in "
            f"{time.perf_counter() - start:.1f} s (not timed below)"
        )
        (venv_bin,) = Path(env["PRE_COMMIT_HOME"]).glob("repo*/py_env-*/bin")
        one = f"documents/{ident}.md"
        cases = {
            "pre-commit run (1 staged note)": [*pre_commit, "run"],
            "reflect-git-validate ONE.md": [str(venv_bin / "reflect-git-validate"), one],
            "reflect-git-check (index)": [str(venv_bin / "reflect-git-check")],
            "reflect-git-check --worktree": [str(venv_bin / "reflect-git-check"), "--worktree"],
            "python -c pass": [str(venv_bin / "python"), "-c", "pass"],
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(opts.runs):
            for name, args in cases.items():
                times[name].append(timed(args, kb, env))
        load = os.getloadavg()[0]
        print(
            f"{opts.notes + 1} notes in the KB; load average {load:.1f} on {os.cpu_count()} cores"
        )
        anchor = min(times["python -c pass"])
        for name, values in times.items():
            best, median = min(values), statistics.median(values)
            print(
                f"{name:34s} best {best:7.1f} ms  median {median:7.1f} ms  "
                f"({best / anchor:4.1f}x python -c pass)"
            )
        best_run = min(times["pre-commit run (1 staged note)"])
        print(f"pre-commit one-file run: {best_run / 1000:.2f} s (issue's measurement: ~0.5 s)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(env["PRE_COMMIT_HOME"], ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
