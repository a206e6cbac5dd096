"""Bulk import: `reflect-git import` of 10,000 notes vs `git fast-import` of the same files.

The anchor is git's own bulk path: `git fast-import` fed a ready-made stream of the same
files (stream building not timed). reflect-git's import is timed whole: read, parse and
validate every note, write the objects, move the branch, and write the work tree and index.
Goal (issue 3): at least half of fast-import's throughput.

    .venv/bin/python bench/import.py [--notes 10000] [--runs 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kbgen import env, fast_import_stream, note_bytes

from reflectgit.workflows.kb import KnowledgeBase


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", default=None, help="Where to write (default: temp).")
    args = parser.parse_args()
    genv = env()
    with tempfile.TemporaryDirectory(prefix="rg-bench-import-", dir=args.dir) as tmp:
        root = Path(tmp)
        src = root / "notes"
        src.mkdir()
        files = []
        for i in range(args.notes):
            ident, data = note_bytes(i, "imp")
            (src / f"{ident}.md").write_bytes(data)
            files.append((f"documents/{ident}.md", data))
        stream = fast_import_stream(files, "import")

        fast, ours, checkout, bare = [], [], [], []
        for run in range(args.runs):
            target = root / f"fast-{run}"
            subprocess.run(["git", "init", "-q", "-b", "main", str(target)], check=True, env=genv)
            start = time.perf_counter()
            subprocess.run(
                ["git", "fast-import", "--quiet"], cwd=target, input=stream, check=True, env=genv
            )
            fast.append(time.perf_counter() - start)
            start = time.perf_counter()
            subprocess.run(["git", "reset", "-q", "--hard"], cwd=target, check=True, env=genv)
            checkout.append(time.perf_counter() - start)

            kb_path = root / f"kb-{run}"
            subprocess.run(["git", "init", "-q", "-b", "main", str(kb_path)], check=True, env=genv)
            start = time.perf_counter()
            with KnowledgeBase.open(kb_path, env=genv) as kb:
                result = kb.import_notes(src)
            ours.append(time.perf_counter() - start)
            assert len(result.imported) == args.notes, result.skipped[:3]
            status = subprocess.run(
                ["git", "status", "--porcelain"], cwd=kb_path, capture_output=True, env=genv
            )
            assert status.stdout == b"", status.stdout[:200]
            trees = [
                subprocess.run(
                    ["git", "rev-parse", "HEAD^{tree}"], cwd=where, capture_output=True,
                    text=True, env=genv, check=True,
                ).stdout.strip()
                for where in (target, kb_path)
            ]  # fmt: skip
            same = trees[0] == trees[1]
            shutil.rmtree(target)
            shutil.rmtree(kb_path)

            # Like for like with fast-import: a bare KB, objects and the branch only.
            bare_path = root / f"bare-{run}.git"
            subprocess.run(
                ["git", "init", "-q", "--bare", "-b", "main", str(bare_path)], check=True, env=genv
            )
            start = time.perf_counter()
            with KnowledgeBase.open(bare_path, env=genv) as kb:
                result = kb.import_notes(src)
            bare.append(time.perf_counter() - start)
            assert len(result.imported) == args.notes
            fsck = subprocess.run(["git", "fsck", "--strict"], cwd=bare_path, env=genv)
            assert fsck.returncode == 0
            shutil.rmtree(bare_path)
        f, o, c = statistics.median(fast), statistics.median(ours), statistics.median(checkout)
        b = statistics.median(bare)
        n = args.notes
        print(
            f"{n} notes: git fast-import {f:.2f} s ({n / f:,.0f} notes/s) | reflect-git import "
            f"{o:.2f} s ({n / o:,.0f} notes/s) | throughput ratio {f / o:.2f} (goal >= 0.5)"
        )
        print(
            f"  like for like (a bare KB: objects and branch, no work tree): reflect-git import "
            f"{b:.2f} s ({n / b:,.0f} notes/s) -> throughput ratio {f / b:.2f} (goal >= 0.5)"
        )
        print(
            f"  for scale: fast-import + `git reset --hard` (objects plus work tree) {f + c:.2f} s "
            f"-> ratio {(f + c) / o:.2f}; same tree as fast-import: "
            f"{'yes' if same else 'NO'}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
