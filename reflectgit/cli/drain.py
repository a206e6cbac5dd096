"""Queue and drain commands: queue add|list|failed|retry|purge, drain, cost."""

from pathlib import Path
from typing import Any

import typer

from reflectgit.cli import render
from reflectgit.cli.options import fail, globals_of, want_json

commands = typer.Typer()

queue_app = typer.Typer(
    help="The durable queue of transcripts waiting for the drain, and its dead letters.",
    no_args_is_help=True,
)
commands.add_typer(queue_app, name="queue")

_JSON_HELP = "One JSON document on stdout (same as the global --json)."


def _open_queue(ctx: typer.Context) -> Any:
    """The KB's queue; what importing a legacy queue file skipped is said once, on stderr."""
    from reflectgit.state.queue import open_queue

    queue = open_queue(globals_of(ctx).config())
    for notice in queue.notices:
        render.note_line(ctx, f"warning: {notice}")
    return queue


@queue_app.command("add")
def queue_add(
    ctx: typer.Context,
    transcript: str = typer.Argument(..., help="Path of the session transcript (.jsonl)."),
    trigger: str = typer.Option("manual", "--trigger", help="What queued it (stop, idle, ...)."),
    session: str | None = typer.Option(None, "--session", help="Session id (default: file stem)."),
    json_out: bool = typer.Option(False, "--json", help=_JSON_HELP),
) -> None:
    """Queue a transcript for the drain (a no-op when it is already queued)."""
    import os

    want_json(ctx, json_out)
    path = Path(os.path.expanduser(transcript)).absolute()
    if not path.is_file():
        fail(f"no transcript at {path}", hint="give the path of a session transcript file")
    queue = _open_queue(ctx)
    entry, created = queue.add(str(path), trigger, session or path.stem)
    doc = {"id": entry.id, "created": created, "entry": entry.to_dict()}
    render.emit(ctx, doc, render.queued(entry, created))


@queue_app.command("list")
def queue_list(
    ctx: typer.Context, json_out: bool = typer.Option(False, "--json", help=_JSON_HELP)
) -> None:
    """Pending entries, front of the queue first, with retry and backoff state."""

    want_json(ctx, json_out)
    queue = _open_queue(ctx)
    entries = queue.list()
    dead = queue.failed()
    corrupt = queue.corrupt()
    lines = render.queue_listing(entries, dead, corrupt, queue.corrupt_dir)
    render.emit(
        ctx,
        {
            "pending": [e.to_dict() for e in entries],
            "dead_letters": len(dead),
            "corrupt": [
                {"name": c.name, "reason": c.reason, "transcript": c.transcript} for c in corrupt
            ],
        },
        lines,
    )


@queue_app.command("failed")
def queue_failed(
    ctx: typer.Context, json_out: bool = typer.Option(False, "--json", help=_JSON_HELP)
) -> None:
    """Dead letters: entries whose retries ran out or that poisoned the writer."""
    want_json(ctx, json_out)
    queue = _open_queue(ctx)
    dead = queue.failed()
    render.emit(ctx, [e.to_dict() for e in dead], render.dead_letters(dead))


@queue_app.command("retry")
def queue_retry(
    ctx: typer.Context,
    entry_id: str = typer.Argument(..., metavar="ID", help="Entry id (or a unique prefix)."),
    json_out: bool = typer.Option(False, "--json", help=_JSON_HELP),
) -> None:
    """Put a dead letter (or a backed-off entry) back in the queue with its retries reset."""
    want_json(ctx, json_out)
    entry = _open_queue(ctx).retry(entry_id)
    render.emit(ctx, {"id": entry.id, "entry": entry.to_dict()}, f"requeued {entry.id}")


@queue_app.command("purge")
def queue_purge(
    ctx: typer.Context,
    entry_id: str = typer.Argument(..., metavar="ID", help="Entry id (or a unique prefix)."),
    json_out: bool = typer.Option(False, "--json", help=_JSON_HELP),
) -> None:
    """Remove a dead letter (or a pending entry) for good."""
    want_json(ctx, json_out)
    entry, dead = _open_queue(ctx).purge(entry_id)
    where = "dead letter" if dead else "pending entry"
    render.emit(
        ctx,
        {"id": entry.id, "purged": where.replace(" ", "_")},
        f"purged {where} {entry.id}",
    )


@commands.command("drain")
def drain_cmd(
    ctx: typer.Context,
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Say what would happen; call no model, write nothing durable."
    ),
    max_entries: int | None = typer.Option(
        None, "--max", help="Entries this run (default REFLECT_DRAIN_MAX, 3)."
    ),
    writer: str | None = typer.Option(
        None, "--writer", help="extract (one model call) or heuristic (no model)."
    ),
    background: bool = typer.Option(
        False, "--background", help="Detach and return at once (for a SessionStart hook)."
    ),
    json_out: bool = typer.Option(False, "--json", help=_JSON_HELP),
) -> None:
    """Turn queued transcripts into notes: one validated commit per transcript."""
    want_json(ctx, json_out)
    cfg = globals_of(ctx).config()
    if background:
        # A SessionStart hook runs this, and its harness reads stdout as the agent's context:
        # stdout holds nothing but the --json document; the line for a person goes to stderr.
        if cfg.disabled:
            if globals_of(ctx).json:
                render.write_json({"background": False, "pid": None})
            else:
                render.note_line(ctx, "REFLECT_DISABLED=1: no drain started")
            return
        args = ["--dry-run"] if dry_run else []
        if max_entries is not None:
            args += ["--max", str(max_entries)]
        if writer:
            args += ["--writer", writer]
        from reflectgit.workflows import background as detached  # none of the drain here

        pid = detached.drain(cfg, args)
        if globals_of(ctx).json:
            render.write_json({"background": True, "pid": pid})
        else:
            render.note_line(ctx, f"drain started in the background (pid {pid})")
        return
    from reflectgit.workflows.drain.loop import run_drain

    bar = render.ProgressBar.for_ctx(ctx, "draining")  # drawn on a terminal only
    try:
        report = run_drain(
            cfg,
            dry_run=True if dry_run else None,
            max_entries=max_entries,
            writer=writer,
            progress=bar,
        )
    finally:
        bar.close()
    for warning in report.warnings:
        render.note_line(ctx, f"warning: {warning}")
    # The run's status with its rows, also when it stopped at a gate (debounced, locked ...).
    render.emit(ctx, report.to_dict(), render.drained(report))


@commands.command("cost")
def cost_cmd(
    ctx: typer.Context,
    since: str = typer.Option("30d", "--since", help="30d, 12h, 2w, an ISO date, or all."),
    by: str = typer.Option("day", "--by", help="day, transcript, model, outcome or writer."),
    json_out: bool = typer.Option(False, "--json", help=_JSON_HELP),
) -> None:
    """The drain's ledger: runs, entries charged, tokens, cost and notes, grouped."""
    from reflectgit.workflows.drain.loop import cost_report

    want_json(ctx, json_out)
    doc = cost_report(globals_of(ctx).config(), since=since, by=by)
    render.emit(ctx, doc, render.cost_table(doc, by))
