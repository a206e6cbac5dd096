"""Adding one note: reflect-git's store vs `git add` + `git commit` (default: 10,000 notes).

Comparisons, each on identical copies of the same repository, medians of several runs:
  in-process    Store.commit (and KnowledgeBase.add) vs `git add` + `git commit` subprocesses
  plumbing      Store.commit without the index and work tree (objects and ref only): the
                difference is what git's own plumbing (`git read-tree -m -u` under index.lock)
                costs
  whole process `reflect-git add --title ...` vs `sh -c 'cat > f && git add f && git commit'`
Goal (issue 10): in-process <= 0.6x git at 10,000 notes; whole process <= 1.5x.

    .venv/bin/python bench/commit.py [--sizes 10000[,1000,100000]] [--runs 7]
"""

from __future__ import annotations

import argparse
import resource
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

from reflectgit.git.change import write
from reflectgit.git.store import Store
from reflectgit.notes import messages
from reflectgit.workflows.kb import KnowledgeBase

CLI = str(Path(sys.executable).with_name("reflect-git"))


def _cpu() -> float:
    """CPU seconds of this process and its finished children (steadier than wall time on a
    busy machine)."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def median_time(fn: Callable[[int], object], runs: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``runs`` calls."""
    walls, cpus = [], []
    for k in range(runs):
        cpu, start = _cpu(), time.perf_counter()
        fn(k)
        walls.append(time.perf_counter() - start)
        cpus.append(_cpu() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def refresh(path: Path) -> None:
    """Bring the copy's index stat data up to date, so git does not rehash on its first run."""
    subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=path, env=env(), check=False)


def bench_size(root: Path, count: int, runs: int) -> dict[str, tuple[float, float]]:
    base = root / f"kb-{count}"
    gen = make_kb(base, count)
    # Identical copies (creating 100,000 files is slow, so pairs of runs share one): git and
    # the shell script on the original, store.commit and kb.add on one copy, the CLI on another.
    copies = {"git": base, "sh": base}
    for name in ("store", "cli", "bare"):
        target = root / f"kb-{count}-{name}"
        shutil.copytree(base, target, symlinks=True)
        refresh(target)
        copies[name] = target
    copies["kb"] = copies["store"]
    refresh(base)
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

    def bare_add(k: int) -> None:
        ident, data = note_bytes(k, "bare")
        with Store.open(copies["bare"], env=genv) as st:
            st.commit(
                [write(f"documents/{ident}.md", data)],
                messages.build(f"feat(knowledge): {ident} [HIGH]", "add", [ident]),
                sync_worktree=False,
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

    result: dict[str, tuple[float, float]] = {
        "generate": (gen, gen),
        "git": median_time(git_add, runs),
        "store": median_time(store_add, runs),
        "bare": median_time(bare_add, runs),
        "kb": median_time(kb_add, runs),
        "cli": median_time(cli_add, max(3, runs - 2)),
        "sh": median_time(sh_add, max(3, runs - 2)),
    }
    for name in ("git", "store", "kb", "cli", "sh"):
        status = subprocess.run(
            ["git", "status", "--porcelain"], cwd=copies[name], capture_output=True, env=genv
        )
        assert status.stdout == b"", (name, status.stdout[:200])
    subprocess.run(["git", "reset", "-q", "--hard"], cwd=copies["bare"], env=genv, check=True)
    for target in set(copies.values()):
        shutil.rmtree(target)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--dir", default=None, help="Where to build the KBs (default: temp).")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    # Byte-compile the package first, as an installed copy is: with PYTHONDONTWRITEBYTECODE set
    # (some harnesses set it) every `reflect-git` process would otherwise recompile it.
    import compileall

    import reflectgit

    compileall.compile_dir(str(Path(reflectgit.__file__).parent), quiet=1)
    rows = []
    with tempfile.TemporaryDirectory(prefix="rg-bench-commit-", dir=args.dir) as tmp:
        for count in sizes:
            r = bench_size(Path(tmp), count, args.runs)
            rows.append((count, r))
            for kind, i in (("wall", 0), ("cpu", 1)):
                g, st, kb, cli, sh = (r[k][i] * 1000 for k in ("git", "store", "kb", "cli", "sh"))
                print(
                    f"{count:>7} notes ({kind:>4}): git add+commit {g:7.1f} ms | store.commit "
                    f"{st:6.1f} ms ({st / g:.2f}x) | kb.add {kb:6.1f} ms ({kb / g:.2f}x) | "
                    f"`reflect-git add` {cli:6.1f} ms vs sh {sh:6.1f} ms ({cli / sh:.2f}x)",
                    flush=True,
                )
            g, st, bare = (r[k][0] * 1000 for k in ("git", "store", "bare"))
            verdict = "met" if st / g <= 0.6 else "NOT met"
            print(
                f"{count:>7} notes: the index and work tree through git's plumbing cost "
                f"{st - bare:.1f} ms of the store's {st:.1f} ms (objects and ref alone "
                f"{bare:.1f} ms, {bare / g:.2f}x); goal <= 0.6x git: {verdict} ({st / g:.2f}x)",
                flush=True,
            )
    if len(rows) > 1:
        (small, a), (large, b) = rows[0], rows[-1]
        growth = ", ".join(
            f"{k} x{b[k][0] / a[k][0]:.2f}" for k in ("git", "store", "kb", "cli", "sh")
        )
        print(f"growth of wall time {small} -> {large} notes: {growth}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
