"""``reflect-git ingest [PATH...]``: other tools' memory files into the KB, after approval."""

import sys
from pathlib import Path

import typer

from reflectgit.cli import render
from reflectgit.cli.options import fail, globals_of, open_kb

commands = typer.Typer()


@commands.command("ingest")
def ingest_cmd(
    ctx: typer.Context,
    paths: list[Path] = typer.Argument(  # noqa: B008 - typer declares arguments this way
        None,
        metavar="[PATH]...",
        help="Memory files, or project folders to look in (default: this repository and "
        "your ~/.claude memory).",
    ),
    yes: bool = typer.Option(False, "--yes", "-y", help="Ingest every new rule, no questions."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the table; write nothing."),
    confidence: str = typer.Option(
        "medium", "--confidence", help="The tier of the notes written (high, medium, low)."
    ),
) -> None:
    """Turn CLAUDE.md, AGENTS.md, .cursorrules, Cursor and Copilot rules into notes."""
    from reflectgit.notes.note import normalize_tier
    from reflectgit.workflows import ingest as ing

    g = globals_of(ctx)
    cfg = g.config()
    tier = normalize_tier(confidence)
    if tier is None:
        fail(f"unknown confidence {confidence!r}", hint="use --confidence high, medium or low")
    files = ing.find_files(paths or [], home=cfg.home, cwd=Path.cwd(), env=cfg.env)
    found = ing.scan(files, cfg.state_dir)
    new = found.new
    if dry_run or not new:
        doc = {**found.to_json(), "dry_run": dry_run, "written": []}
        render.emit(ctx, doc, render.ingest_table(found, dry_run=dry_run))
        return
    if yes:
        chosen = new
    elif not sys.stdin.isatty():
        if not g.json and not g.quiet:  # under --json the error is the one document
            render.write_lines(render.ingest_table(found))
        fail(
            f"{len(new)} new rules wait for approval and stdin is not a terminal",
            hint="pass --yes to ingest them all, or --dry-run to only see the table",
        )
    else:
        render.write_lines(render.ingest_table(found))
        answer = typer.prompt(
            "ingest which? (all, numbers like 1,3-5, or none)", default="none"
        ).strip()
        if answer.lower() in ("", "n", "no", "none", "q"):
            render.emit(ctx, {**found.to_json(), "written": []}, "nothing ingested")
            return
        chosen = ing.select(found.candidates, answer)
    with open_kb(ctx) as kb:
        kb.source = "ingest"
        done = ing.ingest(kb, cfg.state_dir, chosen, confidence=tier)
    doc = {**found.to_json(), "written": [c.to_json() for c in done.written]}
    render.emit(ctx, doc, (render.ingest_table(found) if yes else []) + render.ingested(done))
