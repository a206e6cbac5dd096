"""``reflect-git merge-driver %O %A %B %L %P``: what git runs to merge a note or a sidecar.

Git starts the driver once per file it merges, so ``main`` hands git's exact argument list to
``run_driver`` without building the command parser (``run_driver`` imports no typer); the typer
command below is the same, for ``--help``, ``--json`` and a person trying it by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import typer

from reflectgit.cli.options import globals_of

commands = typer.Typer()

WORD = "merge-driver"
GIT_ARGS = 5  # %O %A %B %L %P


def is_git_call(args: Sequence[str]) -> bool:
    """``merge-driver`` followed by exactly git's five placeholders' values (no options)."""
    return (
        len(args) == GIT_ARGS + 1
        and args[0] == WORD
        and args[4].isdigit()
        and not any(a.startswith("-") for a in args[1:])
    )


def run_driver(args: Sequence[str], as_json: bool = False) -> int:
    """Merge one file as git asked; 0 clean, 1 conflict (markers left in %A), 2 failure."""
    from reflectgit.cli import render
    from reflectgit.config import environ
    from reflectgit.errors import ReflectGitError
    from reflectgit.workflows.merging import drive

    base, ours, theirs, size, path = args[-GIT_ARGS:]
    try:
        result = drive(Path(base), Path(ours), Path(theirs), int(size), path, environ())
    except (ReflectGitError, OSError, ValueError) as exc:
        # %A is left as it was (ours): git reports the file as conflicted, nothing is lost.
        render.error(f"{WORD}: {path}: {exc}", "resolve the file by hand, then `git add` it")
        return 2
    if as_json:
        render.write_json(result.to_dict())
    for line in render.merge_driver_lines(result):
        render.echo(line, err=True)
    return 0 if result.clean else 1


@commands.command(WORD)
def merge_driver(
    ctx: typer.Context,
    base: str = typer.Argument(..., help="%O: the common ancestor's version (a file)."),
    ours: str = typer.Argument(..., help="%A: our version; the merge is written here."),
    theirs: str = typer.Argument(..., help="%B: their version."),
    marker_size: int = typer.Argument(7, help="%L: the conflict-marker size."),
    path: str = typer.Argument("", help="%P: the path of the file being merged."),
) -> None:
    """Git's merge driver for notes and sidecars: field by field (`init` registers it)."""
    code = run_driver(
        [base, ours, theirs, str(marker_size), path or ours], as_json=globals_of(ctx).json
    )
    if code:
        raise typer.Exit(code)
