"""``reflect-git-check``: the pre-commit hook that checks whole-KB invariants.

Runs from the repository root (pre-commit's working directory) with no file names: unique ids,
sidecars matching their notes, no ranking fields, supersede links, no secrets, nothing outside
the layout. It judges what the commit will hold: the files git tracks, with their staged
content (the index; the temporary one ``git commit -a`` names in ``GIT_INDEX_FILE``), so an
untracked draft never blocks a commit. ``--worktree`` judges the folder as it is instead (and
outside a git repository that is what it does). Imports no CLI library. Exit 0 when the KB holds
together, 1 when it does not, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from reflectgit.config import environ
from reflectgit.notes.report import FORMATS, render, summary
from reflectgit.workflows.checks import check_index, check_worktree


def main(argv: Sequence[str] | None = None) -> int:
    """Check the KB at ``--kb`` (default: the current folder) and print every problem."""
    parser = argparse.ArgumentParser(
        prog="reflect-git-check", description="Check whole-KB invariants of a reflect-git KB."
    )
    parser.add_argument("--kb", default=".", help="the KB's work tree (default: .)")
    parser.add_argument("--format", choices=FORMATS, default="text", dest="fmt")
    parser.add_argument(
        "--worktree",
        action="store_true",
        help="check every file in the folder, untracked ones too (default: what git tracks)",
    )
    # pre-commit may pass file names (a config with pass_filenames: true); the check is whole-KB.
    parser.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    root = Path(args.kb)
    if not root.is_dir():
        print(f"error: {args.kb}: no such folder", file=sys.stderr)
        return 2
    run = None if args.worktree else check_index(root, environ())
    if run is None:
        run = check_worktree(root)
    for line in render(run.problems, args.fmt, run.notes, suite="reflect-git check"):
        print(line)
    if args.fmt == "text" and run.problems:
        print(summary(run.problems, run.notes, noun="note", clean="no problems"), file=sys.stderr)
    return 0 if run.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
