"""``reflect-git-check``: the pre-commit hook that checks whole-KB invariants.

Runs from the repository root (pre-commit's working directory) with no file names: unique ids,
sidecars matching their notes, no ranking fields, nothing outside the layout. Imports no CLI
library. Exit 0 when the KB holds together, 1 when it does not.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from reflectgit.notes.report import FORMATS, render, summary
from reflectgit.workflows.checks import check_worktree


def main(argv: Sequence[str] | None = None) -> int:
    """Check the KB at ``--kb`` (default: the current folder) and print every problem."""
    parser = argparse.ArgumentParser(
        prog="reflect-git-check", description="Check whole-KB invariants of a reflect-git KB."
    )
    parser.add_argument("--kb", default=".", help="the KB's work tree (default: .)")
    parser.add_argument("--format", choices=FORMATS, default="text", dest="fmt")
    args = parser.parse_args(argv)
    root = Path(args.kb)
    if not root.is_dir():
        print(f"error: {args.kb}: no such folder", file=sys.stderr)
        return 2
    run = check_worktree(root)
    for line in render(run.problems, args.fmt, run.notes):
        print(line)
    if args.fmt == "text" and run.problems:
        print(summary(run.problems, run.notes, noun="note", clean="no problems"), file=sys.stderr)
    return 0 if run.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
