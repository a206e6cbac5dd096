"""Start-up: every command against the git (or the interpreter) it sits beside, in one run.

Each row times reflect-git as a whole process against its anchor, interleaved run by run, and
prints the medians and the ratio (issue 17):

  add into a 10,000-note KB                 vs `git add && git commit`     goal <= 1.5x
  reflect-git-validate ONE.md (pre-commit)  vs `python -c pass`            goal <= 2.5x
  reflect-git validate ONE.md               vs `python -c pass`            goal <= 4x
  reflect-git hook PostToolUse              vs `python -c pass`            goal <= 2.5x
  reflect-git search at 100,000 notes       vs `git grep -i`               goal >= 8x faster
  reflect-git recall --format claude, 10,000 notes                         goal < 100 ms

then the import time of each hook entry point (``-X importtime``, the entry module's
cumulative figure, best of the runs). Everything is measured twice: in the editable dev venv
that runs this script, and in a normal install, a wheel built with ``python -m build`` and
installed byte-compiled by pip into a temporary venv (its own ``python -c pass`` is the anchor
there). ``--release-venv DIR`` keeps (or reuses) that venv; given twice or more, each venv is
measured in the same run (say, one installed from main and one from a branch: before and after
side by side); ``--no-release`` skips it, ``--no-dev`` the dev venv. ``--kb-dir DIR`` keeps the generated KBs there and
reuses them on the next run (building the 100,000-note KB takes about a minute).
``--rows hook,validate-hook,validate`` times only those rows (and builds only the KBs they
need): add, validate-hook, validate, hook, search, recall, imports. ``add-ab`` times the add of
every install and its anchor in the same loop, one of each per run (each install into its own
copy of the 10,000-note KB), so two installs compare under the same load: the before and
after of a change, when the machine is shared.

Run: .venv/bin/python bench/startup.py [--runs 11] [--notes 10000] [--search-notes 100000]
     [--rows ROW,...] [--release-venv DIR]... [--kb-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("REFLECT_SHARED_DIR", ROOT.parent / "shared")).resolve() / "data"
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from kbgen import make_kb  # noqa: E402 - bench/ is not a package

HOOK_ENTRIES = (
    "reflectgit.__main__",  # `reflect-git hook EVENT` (agent harnesses)
    "reflectgit.hooks.agent",
    "reflectgit.hooks.validate",  # `reflect-git-validate` (pre-commit)
    "reflectgit.hooks.check",  # `reflect-git-check` (pre-commit, whole KB)
    "reflectgit.hooks.capture",  # the post-commit shim
    "reflectgit.hooks.prepush",
)
ROWS = ("add", "validate-hook", "validate", "hook", "search", "recall", "imports", "add-ab")
PAYLOAD = {
    "session_id": "bench-session",
    "hook_event_name": "PostToolUse",
    "tool_name": "Read",
    "tool_input": {"file_path": "f.txt"},
    "tool_response": {"type": "text", "file": {"content": "hello"}},
}


@dataclass
class Install:
    """One installation of reflect-git: its interpreter and its console scripts."""

    name: str
    python: Path

    def script(self, name: str) -> str:
        return str(self.python.parent / name)


def _run(
    cmd: Sequence[str],
    cwd: Path,
    env: dict[str, str],
    stdin: bytes | None = None,
    ok: tuple[int, ...] = (0, 1),
) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True)
    ms = (time.perf_counter() - start) * 1000
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.decode()}")
    return ms


def interleaved(
    ours: Callable[[int], float], anchor: Callable[[int], float], runs: int
) -> tuple[float, float]:
    """Medians of ``runs`` interleaved timings (two warm-up rounds are dropped)."""
    mine, theirs = [], []
    for i in range(runs + 2):
        a = anchor(i)
        b = ours(i)
        if i >= 2:
            theirs.append(a)
            mine.append(b)
    return statistics.median(mine), statistics.median(theirs)


def row(label: str, ours: float, anchor_label: str, anchor: float, goal: float) -> str:
    ratio = ours / anchor
    verdict = "met" if ratio <= goal else f"NOT met (gap {ours - goal * anchor:+.1f} ms)"
    return (
        f"  {label:<34} {ours:7.1f} ms | {anchor_label:<24} {anchor:7.1f} ms | "
        f"{ratio:5.2f}x (goal <= {goal}x: {verdict})"
    )


def base_env(tmp: Path, kb: Path) -> dict[str, str]:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    (home / ".gitconfig").write_text("[commit]\n\tgpgsign = false\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "REFLECT_"))}
    env.update(
        HOME=str(home),
        GIT_CONFIG_GLOBAL=str(home / ".gitconfig"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Bench",
        GIT_AUTHOR_EMAIL="bench@example.com",
        GIT_COMMITTER_NAME="Bench",
        GIT_COMMITTER_EMAIL="bench@example.com",
        REFLECT_GIT_KB=str(kb),
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode
    env.pop("PYTHONPATH", None)
    return env


def release_install(tmp: Path, keep: Path | None, name: str = "release") -> Install:
    """A wheel built from this checkout, pip-installed (byte-compiled) into its own venv."""
    venv = keep or tmp / "release"
    python = venv / "bin" / "python"
    if keep is not None and python.exists():
        print(f"(reusing the release venv {venv})")
        return Install(name, python)
    dist = tmp / "dist"
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
    )
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    wheel = next(dist.glob("reflect_git-*.whl"))
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--compile", str(wheel)],
        check=True,
        capture_output=True,
    )
    print(f"(built and installed {wheel.name} in {time.perf_counter() - started:.0f} s)")
    return Install(name, python)


def bench_install(inst: Install, tmp: Path, kbs: dict[str, Path], args: argparse.Namespace) -> None:
    runs = args.runs
    env = base_env(tmp, kbs["hook"])
    if inst.name == "dev":  # a source checkout: keep its bytecode in the scratch folder
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    py = str(inst.python)
    # Each install keeps its own search index and counters (two installs of different
    # versions may differ in the index's schema); indexed here, outside the timings.
    env["REFLECT_STATE_DIR"] = str(tmp / f"state-{inst.name.replace(' ', '-')}")
    for kb in [kbs[k] for k in ("search", "recall") if k in kbs]:
        subprocess.run(
            [py, "-m", "reflectgit", "--kb", str(kb), "reindex"],
            env=env,
            check=True,
            capture_output=True,
        )
    one = next((DATA / "notes" / "valid").glob("*.md"))
    print(f"\n## {inst.name} install ({inst.python})")

    def passing(_i: int) -> float:
        return _run([py, "-c", "pass"], tmp, env)

    rows = args.rows
    # add: one note per run into each of two identical 10,000-note KBs
    git_kb, our_kb = kbs.get("git", tmp), kbs.get("ours", tmp)

    # A new note each run, also in a KB kept from an earlier run (--kb-dir): a name that
    # exists would make both sides fail fast ("nothing to commit", an id that exists).
    tag = f"{inst.name.replace(' ', '-')}-{time.time_ns()}"

    def git_add(i: int) -> float:
        note = f"documents/git-{tag}-{i}.md"
        body = f"---\ntitle: Git note {i}\ncreated: 2026-03-04\nconfidence: high\n---\nx\n"
        script = f"cat > {note} && git add {note} && git commit -q -m 'add {i}'"
        return _run(["sh", "-c", script], git_kb, env, body.encode(), ok=(0,))

    def our_add(i: int) -> float:
        title = f"Bench {tag} note {i}"
        cmd = [inst.script("reflect-git"), "--kb", str(our_kb), "add", "--title", title]
        return _run([*cmd, "--confidence", "high", "--insight", "x"], our_kb, env, ok=(0,))

    if "add" in rows:
        add_ms, git_ms = interleaved(our_add, git_add, runs)
        print(row(f"add ({args.notes:,} notes)", add_ms, "git add && git commit", git_ms, 1.5))
        for kb in (git_kb, our_kb):
            status = subprocess.run(["git", "status", "--porcelain"], cwd=kb, capture_output=True)
            assert status.stdout == b"", f"{kb} is not clean: {status.stdout!r}"

    hook = json.dumps({**PAYLOAD, "cwd": str(tmp), "transcript_path": str(tmp / "t.jsonl")})
    processes = {
        "reflect-git-validate ONE.md": (
            [inst.script("reflect-git-validate"), str(one)],
            None,
            2.5,
            "validate-hook",
        ),
        "reflect-git validate ONE.md": (
            [inst.script("reflect-git"), "validate", str(one)],
            None,
            4,
            "validate",
        ),
        "reflect-git hook PostToolUse": (
            [inst.script("reflect-git"), "hook", "PostToolUse"],
            hook.encode(),
            2.5,
            "hook",
        ),
    }
    for label, (cmd, stdin, goal, name) in processes.items():
        if name not in rows:
            continue
        ours, anchor = interleaved(
            lambda _i, cmd=cmd, stdin=stdin: _run(cmd, tmp, env, stdin), passing, runs
        )
        print(row(label, ours, "python -c pass", anchor, goal))

    # search through the console script vs git grep -i, same word, same KB
    big = kbs.get("search", tmp)
    for word in ("zanzibar", "retries") if "search" in rows else ():
        search_ms, grep_ms = interleaved(
            lambda _i, w=word: _run([inst.script("reflect-git"), "--kb", str(big), "search", w], big, env),
            lambda _i, w=word: _run(["git", "grep", "-i", w], big, env),
            runs,
        )  # fmt: skip
        faster = grep_ms / search_ms
        verdict = "met" if faster >= 8 else f"NOT met (needs {grep_ms / 8:.1f} ms)"
        print(
            f"  {f'search {word!r} ({args.search_notes:,} notes)':<34} {search_ms:7.1f} ms | "
            f"{'git grep -i':<24} {grep_ms:7.1f} ms | {faster:5.1f}x faster (goal >= 8x: {verdict})"
        )

    if "recall" in rows:
        recall = [
            inst.script("reflect-git"),
            "--kb",
            str(kbs["recall"]),
            "recall",
            "--format",
            "claude",
        ]
        recall_ms, pass_ms = interleaved(lambda _i: _run(recall, tmp, env), passing, runs)
        verdict = "met" if recall_ms < 100 else f"NOT met (gap {recall_ms - 100:+.1f} ms)"
        print(
            f"  {f'recall --format claude ({args.notes:,})':<34} {recall_ms:7.1f} ms | "
            f"{'python -c pass':<24} {pass_ms:7.1f} ms | goal < 100 ms: {verdict}"
        )

    if "imports" not in rows:
        return
    print("  import time of each hook entry point (-X importtime, cumulative, best of the runs):")
    for module in HOOK_ENTRIES:
        best = min(_import_ms(py, module, tmp, env) for _ in range(runs))
        print(f"    {module:<28} {best:6.1f} ms")


def _import_ms(python: str, module: str, cwd: Path, env: dict[str, str]) -> float:
    proc = subprocess.run(
        [python, "-X", "importtime", "-c", f"import {module}"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    for line in proc.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].strip() == module:
            return int(parts[1]) / 1000
    raise SystemExit(f"no import time for {module}: {proc.stderr[-500:]}")


def add_side_by_side(
    installs: Sequence[Install], tmp: Path, kbs: dict[str, Path], args: argparse.Namespace
) -> None:
    """``add`` of every install and ``git add && git commit``, one of each per run."""
    env = base_env(tmp, kbs["hook"])
    copies = {}
    for inst in installs:
        copy = tmp / f"kb-ab-{inst.name.replace(' ', '-')}"
        shutil.copytree(kbs["ours"], copy, symlinks=True)
        copies[inst.name] = copy
    tag = f"ab-{time.time_ns()}"
    times: dict[str, list[float]] = {inst.name: [] for inst in installs}
    anchor: list[float] = []
    for i in range(args.runs + 2):
        note = f"documents/git-{tag}-{i}.md"
        body = f"---\ntitle: Git note {i}\ncreated: 2026-03-04\nconfidence: high\n---\nx\n"
        script = f"cat > {note} && git add {note} && git commit -q -m 'add {i}'"
        took = {"git": _run(["sh", "-c", script], kbs["git"], env, body.encode(), ok=(0,))}
        for inst in installs:
            kb = copies[inst.name]
            cmd = [inst.script("reflect-git"), "--kb", str(kb), "add", "--title", f"{tag} {i}"]
            took[inst.name] = _run(
                [*cmd, "--confidence", "high", "--insight", "x"], kb, env, ok=(0,)
            )
        if i >= 2:  # two warm-up rounds dropped, as in every row
            anchor.append(took["git"])
            for inst in installs:
                times[inst.name].append(took[inst.name])
    print(f"\n## add side by side ({args.runs} runs, one of each per run; median / fastest)")
    git_median = statistics.median(anchor)
    print(f"  git add && git commit              {git_median:7.1f} / {min(anchor):6.1f} ms")
    for inst in installs:
        ms = times[inst.name]
        print(
            row(
                f"add, {inst.name}", statistics.median(ms), "git add && git commit", git_median, 1.5
            )
        )
        print(f"  {'':34} fastest {min(ms):6.1f} ms ({min(ms) / min(anchor):.2f}x the fastest git)")
    for kb in copies.values():
        shutil.rmtree(kb, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--search-notes", type=int, default=100_000)
    parser.add_argument("--release-venv", type=Path, action="append", default=None)
    parser.add_argument("--kb-dir", type=Path, default=None, help="keep and reuse the KBs here")
    parser.add_argument("--no-release", action="store_true")
    parser.add_argument("--no-dev", action="store_true", help="time only the release venvs")
    parser.add_argument(
        "--rows",
        type=lambda text: [r.strip() for r in text.split(",") if r.strip()],
        default=list(ROWS),
        help=f"the rows to time, comma-separated (default: all of {','.join(ROWS)})",
    )
    args = parser.parse_args(argv)
    unknown = sorted(set(args.rows) - set(ROWS))
    if unknown:
        parser.error(f"unknown rows: {', '.join(unknown)} (known: {', '.join(ROWS)})")
    with tempfile.TemporaryDirectory(prefix="reflect-git-startup-") as name:
        tmp = Path(name)
        where = args.kb_dir.resolve() if args.kb_dir else tmp
        where.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        kbs: dict[str, Path] = {}
        if "add" in args.rows or "add-ab" in args.rows:
            kbs.update(git=where / f"kb-git-{args.notes}", ours=where / f"kb-ours-{args.notes}")
        if "recall" in args.rows:
            kbs["recall"] = where / f"kb-recall-{args.notes}"
        for kb in [kb for kb in kbs.values() if not (kb / ".git").is_dir()]:
            shutil.rmtree(kb, ignore_errors=True)  # a build cut short
            make_kb(kb, args.notes)
        if "search" in args.rows:
            kbs["search"] = where / f"kb-search-{args.search_notes}"
            if not (kbs["search"] / ".git").is_dir():
                from search import generate_kb  # bench/search.py: its vocabulary, planted words

                shutil.rmtree(kbs["search"], ignore_errors=True)
                generate_kb(kbs["search"], args.search_notes)
        kbs["hook"] = tmp / "kb-hook"
        subprocess.run(["git", "init", "-q", "-b", "main", str(kbs["hook"])], check=True)
        load = os.getloadavg()[0]
        print(
            f"KBs ready in {time.perf_counter() - started:.0f} s; {args.runs} runs per row, "
            f"medians; load average {load:.1f}; {os.cpu_count()} cores"
        )
        installs = [] if args.no_dev else [Install("dev", Path(sys.executable))]
        if not args.no_release:
            venvs = args.release_venv or [None]
            for keep in venvs:
                label = "release" if len(venvs) == 1 else f"release {keep.name}"
                installs.append(release_install(tmp, keep, label))
        for inst in installs:
            bench_install(inst, tmp, kbs, args)
        if "add-ab" in args.rows:
            add_side_by_side(installs, tmp, kbs, args)
        if args.release_venv is None and not args.no_release:
            shutil.rmtree(tmp / "release", ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
