"""``reflect-git-validate``: the pre-commit hook that validates the notes and sidecars it is given.

Imports only what validation needs (no typer, no rich, no git library), because pre-commit
starts it on every commit. Exit 0 when every file is valid, 1 when any is not, 2 on bad usage.
The arguments pre-commit passes (file names, ``--format F``, ``--strict``) are read by
``plain_args`` without argparse (which imports ``gettext``, ``shutil`` and through it ``bz2``
and ``lzma``: ~5 ms of every commit); anything else (``--help``, a typo, ``--``, a bad format)
goes to the argparse parser, which answers and reports as always. A test checks both agree.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from reflectgit.errors import ReflectGitError
from reflectgit.notes.report import FORMATS, render, summary
from reflectgit.workflows.validation import collect, validate_targets

if TYPE_CHECKING:
    from typing import Any


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
    parser.add_argument("--format", choices=FORMATS, default="text", dest="fmt")
    parser.add_argument("--strict", action="store_true", help="also require sidecar provenance")
    return parser


def plain_args(argv: Sequence[str]) -> dict[str, Any] | None:
    """``{paths, fmt, strict}`` as ``parser()`` reads ``argv``, for plain forms: paths in one
    run, ``--format F`` (a known format), ``--strict``; None for anything else."""
    paths: list[str] = []
    fmt, strict = "text", False
    run_ended = False  # argparse takes the paths as one run: a path after an option between
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--strict":
            strict = True
        elif arg == "--format" and i + 1 < len(argv) and argv[i + 1] in FORMATS:
            fmt = argv[i + 1]
            i += 1
        elif arg.startswith("-") or (paths and run_ended):
            return None  # an option argparse explains, or a second run of paths it refuses
        else:
            paths.append(arg)
            i += 1
            continue
        run_ended = bool(paths)
        i += 1
    return {"paths": paths, "fmt": fmt, "strict": strict}


def main(argv: Sequence[str] | None = None) -> int:
    """Validate the given files and folders; print problems as ``path:line:col: field: message``."""
    args = list(sys.argv[1:] if argv is None else argv)
    given = plain_args(args)
    if given is None:
        given = vars(parser().parse_args(args))
    fmt, strict = given["fmt"], given["strict"]
    paths = given["paths"] or [p for p in ("documents", "archived") if os.path.isdir(p)]
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
