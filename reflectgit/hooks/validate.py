"""``reflect-git-validate``: the pre-commit hook that validates the notes and sidecars it is given.

Imports only what validation needs (no typer, no rich, no git library), because pre-commit
starts it on every commit. Exit 0 when every file is valid, 1 when any is not, 2 on bad usage.
argparse reads the options (``--format F``, ``--strict``, ``--help``); file names alone, which
is what pre-commit passes, need no parser, so argparse (and what it loads) is not imported.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from reflectgit.errors import ReflectGitError
from reflectgit.notes.report import FORMATS, render, summary
from reflectgit.workflows.validation import collect, validate_targets

TYPE_CHECKING = False  # ``typing`` is not imported on the pre-commit hook's path
if TYPE_CHECKING:
    from typing import Any

DEFAULT_FORMAT = "text"


def parser() -> Any:
    """The hook's argparse parser: the one definition of its arguments."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="reflect-git-validate",
        description="Validate reflect-git notes (*.md) and sidecars (*.entities.yaml).",
    )
    parser.add_argument(
        "paths", nargs="*", help="notes, sidecars or folders (default: documents archived)"
    )
    parser.add_argument("--format", choices=FORMATS, default=DEFAULT_FORMAT, dest="fmt")
    parser.add_argument("--strict", action="store_true", help="also require sidecar provenance")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Validate the given files and folders; print problems as ``path:line:col: field: message``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if any(arg.startswith("-") for arg in args):
        given = parser().parse_args(args)
        paths, fmt, strict = given.paths, given.fmt, given.strict
    else:  # file names only, as pre-commit passes them: nothing for argparse to do
        paths, fmt, strict = args, DEFAULT_FORMAT, False
    paths = paths or [p for p in ("documents", "archived") if os.path.isdir(p)]
    try:
        targets = collect(paths)
    except ReflectGitError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"hint: {exc.hint}", file=sys.stderr)
        return exc.exit_code
    run = validate_targets(targets, strict=strict)
    for line in render(run.problems, fmt, len(run.checked), suite="reflect-git validate"):
        print(line)
    if fmt == "text" and run.problems:
        print(summary(run.problems, len(run.checked)), file=sys.stderr)
    return 0 if run.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
