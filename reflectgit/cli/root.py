"""The root command's callback: the global options as typer declares them.

Its own module so that ``app.py`` (the registry every entry reads) never imports typer; only
``app.build`` does, when a command really runs. The flags and their help come from
``options.GLOBAL_OPTIONS`` / ``GLOBAL_HELP``, which the argv peek and the registry's help page
read too.
"""

from __future__ import annotations

import typer

from reflectgit import __version__
from reflectgit.cli import render
from reflectgit.cli.app import PROG
from reflectgit.cli.options import GLOBAL_HELP, VERSION_OPTION, Globals


def _version(value: bool) -> None:
    if value:
        render.echo(f"{PROG} {__version__}")
        raise typer.Exit(0)


def main_options(
    ctx: typer.Context,
    kb: str | None = typer.Option(None, "--kb", help=GLOBAL_HELP["kb"]),
    json_out: bool = typer.Option(False, "--json", help=GLOBAL_HELP["json"]),
    quiet: bool = typer.Option(False, "-q", "--quiet", help=GLOBAL_HELP["quiet"]),
    version: bool = typer.Option(
        False, VERSION_OPTION, callback=_version, is_eager=True, help=GLOBAL_HELP["version"]
    ),
) -> None:
    """reflect-git: validated notes, routed by confidence, captured from agent sessions."""
    ctx.obj = Globals(kb=kb, json=json_out, quiet=quiet)
