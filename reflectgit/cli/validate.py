"""Validation commands: validate (notes and sidecars, by file) and check (whole-KB invariants)."""

import typer

from reflectgit.cli import render
from reflectgit.cli.options import fail, globals_of, kb_folder
from reflectgit.errors import EXIT_USAGE

commands = typer.Typer()


def report_format(ctx: typer.Context, fmt: str) -> str:
    """The report format asked for (``--json`` means json); a usage error for an unknown one."""
    from reflectgit.notes.report import FORMATS

    if fmt not in FORMATS:
        fail(f"unknown format {fmt!r}", hint=f"use one of: {', '.join(FORMATS)}", code=EXIT_USAGE)
    return "json" if globals_of(ctx).json else fmt


@commands.command("validate")
def validate_command(
    ctx: typer.Context,
    paths: list[str] | None = typer.Argument(  # noqa: B008
        None, help="Notes, sidecars or folders (default: the KB's documents/ and archived/)."
    ),
    fmt: str = typer.Option(
        "text", "--format", help="text, json, github, codequality (GitLab) or junit."
    ),
    strict: bool = typer.Option(
        False, "--strict", help="Sidecars also need document_id, extracted_at, known endpoints."
    ),
) -> None:
    """Validate notes (*.md) and sidecars (*.entities.yaml); exit 1 if any file fails."""
    from reflectgit.config import ARCHIVED, DOCUMENTS
    from reflectgit.notes import report
    from reflectgit.workflows import validation

    fmt = report_format(ctx, fmt)
    if paths:
        targets = validation.collect(list(paths))
    else:
        kb = kb_folder(ctx)
        folders = [kb / name for name in (DOCUMENTS, ARCHIVED) if (kb / name).is_dir()]
        targets = validation.collect(folders, base=kb)
    run = validation.validate_targets(targets, strict=strict)
    checked = len(run.checked)
    lines = report.render(run.problems, fmt, checked, suite="reflect-git validate")
    render.problems(ctx, lines, fmt, report.summary(run.problems, checked))
    if not run.ok:
        raise typer.Exit(1)


@commands.command("check")
def check_command(
    ctx: typer.Context,
    fmt: str = typer.Option(
        "text", "--format", help="text, json, github, codequality (GitLab) or junit."
    ),
    base: str | None = typer.Option(
        None,
        "--base",
        help="Also check history against this revision (e.g. origin/main): ids added here "
        "must be new to it and to other knowledge branches; supersede links; no secrets.",
    ),
) -> None:
    """Whole-KB invariants: unique ids, sidecars match notes, no ranking fields, the layout."""
    from reflectgit.notes import report
    from reflectgit.workflows import checks

    fmt = report_format(ctx, fmt)
    kb = kb_folder(ctx)
    run = checks.check_worktree(kb)
    if base:
        from reflectgit.workflows.history_checks import check_with_base

        run.problems = sorted(
            [*run.problems, *check_with_base(kb, base, globals_of(ctx).config().env)],
            key=lambda p: p.sort_key(),
        )
    lines = report.render(run.problems, fmt, run.notes, suite="reflect-git check", kb=str(kb))
    summary = report.summary(run.problems, run.notes, noun="note", clean="no problems")
    render.problems(ctx, lines, fmt, summary)
    if not run.ok:
        raise typer.Exit(1)
