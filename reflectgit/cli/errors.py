"""``reflect-git errors [--since 7d]``: what went wrong, by kind, with the last message of each."""

import typer

from reflectgit.cli import render
from reflectgit.cli.options import globals_of

commands = typer.Typer()


@commands.command("errors")
def errors_cmd(
    ctx: typer.Context,
    since: str = typer.Option("7d", "--since", help="7d, 12h, 2w, an ISO date, or all."),
) -> None:
    """What went wrong, by kind: drain poison, oversized inputs, quota deferrals, hook failures."""
    from reflectgit.workflows.errors import errors_report

    cfg = globals_of(ctx).config()
    cfg.require_kb()
    report = errors_report(cfg.state_dir, since)
    render.emit(ctx, report.to_json(), render.errors_table(report))
