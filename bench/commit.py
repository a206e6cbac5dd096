"""Adding one note: reflect-git's store vs `git add` + `git commit`, at 1k, 10k and 100k notes.

Two comparisons, each on identical copies of the same repository, medians of several runs:
  in-process   Store.commit (and KnowledgeBase.add) vs `git add` + `git commit` subprocesses
  whole process `reflect-git add --title ...` vs `sh -c 'cat > f && git add f && git commit'`
Goals (issue 3): in-process <= 0.5x git at 10,000 notes, growing no faster than git;
whole process <= 1.5x at 10,000 notes.

    .venv/bin/python bench/commit.py [--sizes 1000,10000,100000] [--runs 7]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kbgen import env, make_kb, note_bytes

from reflectgit import messages
from reflectgit.kb import KnowledgeBase
from reflectgit.store import Store, write

CLI = str(Path(sys.executable).with_name("reflect-git"))


def median_time(fn: Callable[[int], object], runs: int) -> float:
    times = []
    for k in range(runs):
        start = time.perf_counter()
        fn(k)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def refresh(path: Path) -> None:
    """Bring the copy's index stat data up to date, so git does not rehash on its first run."""
    subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=path, env=env(), check=False)


def bench_size(root: Path, count: int, runs: int) -> dict[str, float]:
    base = root / f"kb-{count}"
    gen = make_kb(base, count)
    copies = {}
    for name in ("git", "store", "kb", "cli", "sh"):
        target = root / f"kb-{count}-{name}"
        shutil.copytree(base, target, symlinks=True)
        refresh(target)
        copies[name] = target
    genv = env()

    def git_add(k: int) -> None:
        ident, data = note_bytes(k, "git")
        rel = f"documents/{ident}.md"
        (copies["git"] / rel).write_bytes(data)
        subprocess.run(["git", "add", rel], cwd=copies["git"], env=genv, check=True)
        subprocess.run(
            ["git", "commit", "-q", "-m", f"add {ident}"], cwd=copies["git"], env=genv, check=True
        )

    def store_add(k: int) -> None:
        ident, data = note_bytes(k, "store")
        with Store.open(copies["store"], env=genv) as st:
            st.commit(
                [write(f"documents/{ident}.md", data)],
                messages.build(f"feat(knowledge): {ident} [HIGH]", "add", [ident]),
            )

    def kb_add(k: int) -> None:
        _ident, data = note_bytes(k, "kbadd")
        with KnowledgeBase.open(copies["kb"], env=genv) as base_kb:
            base_kb.add(data)

    def cli_add(k: int) -> None:
        subprocess.run(
            [CLI, "--kb", str(copies["cli"]), "-q", "add", "--title", f"CLI note {k}",
             "--insight", "An insight.", "--category", "bench", "--confidence", "high"],
            env=genv,
            check=True,
        )  # fmt: skip

    def sh_add(k: int) -> None:
        ident, data = note_bytes(k, "sh")
        rel = f"documents/{ident}.md"
        subprocess.run(
            ["sh", "-c", f"cat > {rel} && git add {rel} && git commit -q -m 'add {ident}'"],
            cwd=copies["sh"],
            input=data,
            env=genv,
            check=True,
        )

    result = {
        "generate": gen,
        "git": median_time(git_add, runs),
        "store": median_time(store_add, runs),
        "kb": median_time(kb_add, runs),
        "cli": median_time(cli_add, max(3, runs - 2)),
        "sh": median_time(sh_add, max(3, runs - 2)),
    }
    for name in ("git", "store", "kb", "cli", "sh"):
        status = subprocess.run(
            ["git", "status", "--porcelain"], cwd=copies[name], capture_output=True, env=genv
        )
        assert status.stdout == b"", (name, status.stdout[:200])
    shutil.rmtree(base)
    for target in copies.values():
        shutil.rmtree(target)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="rg-bench-commit-") as tmp:
        for count in sizes:
            r = bench_size(Path(tmp), count, args.runs)
            rows.append((count, r))
            print(
                f"{count:>7} notes: git add+commit {r['git'] * 1000:7.1f} ms | store.commit "
                f"{r['store'] * 1000:6.1f} ms ({r['store'] / r['git']:.2f}x) | kb.add "
                f"{r['kb'] * 1000:6.1f} ms ({r['kb'] / r['git']:.2f}x) | "
                f"`reflect-git add` {r['cli'] * 1000:6.1f} ms vs sh {r['sh'] * 1000:6.1f} ms "
                f"({r['cli'] / r['sh']:.2f}x)   [generated in {r['generate']:.1f}s]",
                flush=True,
            )
    if len(rows) > 1:
        (small, a), (large, b) = rows[0], rows[-1]
        print(
            f"growth {small} -> {large} notes: git x{b['git'] / a['git']:.2f}, "
            f"store x{b['store'] / a['store']:.2f}, kb.add x{b['kb'] / a['kb']:.2f}, "
            f"cli x{b['cli'] / a['cli']:.2f}, sh x{b['sh'] / a['sh']:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
