"""``reflect-git merge-driver``: git's merge driver for notes and sidecars, by hand.

Git's own calls never reach this module: ``cli.main`` hands them to ``hooks.merge`` before the
command parser is built (the driver runs once per merged file). This is the same driver for
``--help``, ``--json`` and a person trying it on three files.
"""

import typer

from reflectgit.cli import render

commands = typer.Typer()


@commands.command("merge-driver")
def merge_driver(
    ctx: typer.Context,
    base: str = typer.Argument(..., help="%O: the common ancestor's version (a file)."),
    ours: str = typer.Argument(..., help="%A: our version; the merge is written here."),
    theirs: str = typer.Argument(..., help="%B: their version."),
    marker_size: int = typer.Argument(7, help="%L: the conflict-marker size."),
    path: str = typer.Argument("", help="%P: the path of the file being merged."),
) -> None:
    """Git's merge driver for notes and sidecars: field by field (`init` registers it)."""
    from reflectgit.hooks import merge

    result = merge.run(base, ours, theirs, marker_size, path or ours)
    if result is not None:
        render.emit(ctx, result.to_dict(), None)
        for line in merge.lines(result):
            render.echo(line, err=True)
    code = merge.exit_code(result)
    if code:
        raise typer.Exit(code)
