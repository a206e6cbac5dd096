"""Knowledge-base commands: init, add, update, confirm, archive, restore, forget, supersede,
undo, list, show, log, import, export, status. Parse, call the KnowledgeBase, hand the result
to ``render``."""

import sys
from typing import TYPE_CHECKING

import typer

from reflectgit.cli import render
from reflectgit.cli.options import fail, globals_of, open_kb, read_input
from reflectgit.errors import EXIT_USAGE
from reflectgit.workflows.kb import lines as kblines

if TYPE_CHECKING:
    from pathlib import Path

commands = typer.Typer()


@commands.command("init")
def init_command(
    ctx: typer.Context,
    path: str | None = typer.Argument(
        None, help="Where the KB lives (default: --kb or ~/.learnings)."
    ),
    team_remote: str | None = typer.Option(None, "--team-remote", help="The team KB's git URL."),
    no_pre_commit: bool = typer.Option(
        False, "--no-pre-commit", help="Do not write .pre-commit-config.yaml."
    ),
    force: bool = typer.Option(
        False, "--force", help="Add the layout to a non-empty folder that is not a KB."
    ),
    ci: str | None = typer.Option(
        None, "--ci", help="Also write a CI job for pull requests: github or gitlab."
    ),
) -> None:
    """Create (or adopt) a KB: layout, .gitignore, settings, pre-commit config, first commit."""
    if ci is not None:
        from reflectgit.workflows.ci_templates import KINDS

        if ci not in KINDS:
            fail(f"unknown CI kind {ci!r}", hint=f"use one of: {', '.join(KINDS)}", code=EXIT_USAGE)
    from reflectgit.config import Config, current_folder, environ, load_settings, resolve_kb
    from reflectgit.workflows.kb.layout import InitOptions, init

    env = environ()
    # Not Config.resolve: the folder may not exist yet, or hold no settings to read.
    kb = resolve_kb(path or globals_of(ctx).kb, env, current_folder()).path
    options = InitOptions(
        team_remote=team_remote,
        pre_commit=not no_pre_commit,
        force=force,
        python=sys.executable,
    )
    result = init(kb, options, env=env)
    lines = render.init_lines(result)
    default = _first_default(env, kb)
    if default is not None:
        lines.append(default)
    ci_paths: list[str] = []
    if ci:
        from reflectgit.workflows.ci_templates import write_ci

        ci_paths = [str(p.relative_to(kb)) for p in write_ci(kb, ci, env)]
        result.written += ci_paths
        lines += render.init_ci_lines(ci_paths)
    to_set = _unnamed_source(result.written, ci_paths)
    lines += to_set
    written = Config(kb, kb, env, load_settings(kb))
    forge = written.forge()
    lines += render.forge_lines(forge, team=bool(written.team.remote))
    if result.commit and options.pre_commit:
        lines.append(render.init_next(result.kb))
    doc = {**result.to_dict(), "forge": render.forge_doc(forge)}
    render.emit(ctx, doc | ({"to_set": to_set} if to_set else {}), lines)


def _first_default(env: dict[str, str], kb: "Path") -> str | None:
    """``init`` makes its KB the user's default when none is set: the line saying so (or why it
    could not), or None when a default was set already."""
    from reflectgit.config import default_kb, set_default_kb
    from reflectgit.errors import ConfigError

    try:
        if default_kb(env) is not None:
            return None
        return render.default_kb_set(kb, set_default_kb(env, kb))
    except ConfigError as exc:
        return f"  default KB not set: {exc.message}"
    except OSError as exc:
        return f"  default KB not set: {exc.strerror or exc}"


def _unnamed_source(written: list[str], ci_paths: list[str]) -> list[str]:
    """What to set by hand in the files just written, when this reflect-git was installed in a
    way others cannot repeat (a local folder, an editable install, a wheel file)."""
    from reflectgit.installation import source
    from reflectgit.workflows.kb.layout import PRE_COMMIT_CONFIG

    here = source()
    pre_commit = PRE_COMMIT_CONFIG in written and (here.repo is None or here.rev is None)
    pip = bool(ci_paths) and here.requirement is None
    if not (pre_commit or pip):
        return []
    return render.init_unnamed_source(
        here.described, PRE_COMMIT_CONFIG if pre_commit else None, ci_paths if pip else []
    )


@commands.command("add")
def add_cmd(
    ctx: typer.Context,
    file: str | None = typer.Argument(None, help="A note file, or - for stdin."),
    entities: str | None = typer.Option(None, "--entities", help="An entity sidecar to attach."),
    title: str | None = typer.Option(None, "--title", help="Title (when writing from flags)."),
    insight: str | None = typer.Option(None, "--insight", help="The key insight."),
    category: str | None = typer.Option(None, "--category", help="Category."),
    confidence: str | None = typer.Option(None, "--confidence", help="high, medium or low."),
    tag: list[str] = typer.Option([], "--tag", help="A tag (repeatable)."),  # noqa: B008
    force: bool = typer.Option(False, "--force", help="Replace a different note with the same id."),
    restore: bool = typer.Option(
        False, "--restore", help="Bring back a forgotten id (its .forgotten/ copy is removed)."
    ),
    anchor: list[str] = typer.Option(  # noqa: B008
        [],
        "--anchor",
        metavar="PATH[:SYMBOL]",
        help="The code the note is about (repeatable; run inside that repository: its name "
        "becomes the note's project, its HEAD the anchor's commit).",
    ),
) -> None:
    """Validate and commit one note (from a file, stdin, or flags)."""
    fields: dict[str, object] = {
        "title": title,
        "key_insight": insight,
        "category": category,
        "confidence": confidence,
        "tags": list(tag),
    }
    if anchor:
        from reflectgit.config import current_folder
        from reflectgit.workflows.code.anchoring import anchor_fields

        here = current_folder()
        if here is None:
            fail("the current folder is gone: --anchor needs the code repository", code=EXIT_USAGE)
        fields.update(anchor_fields(anchor, here, globals_of(ctx).config().env))
    if file is None and not title:
        fail(
            "give a note FILE, `-` for stdin, or --title with --insight",
            hint="reflect-git add note.md  |  reflect-git add --title T --insight I "
            "--category C --confidence high",
            code=EXIT_USAGE,
        )
    data = read_input(file, "the note") if file is not None else None
    side = read_input(entities, "the sidecar") if entities else None
    with open_kb(ctx, writes_only=True) as kb:
        result = kb.add(
            data,
            fields=fields,
            sidecar=side,
            force=force,
            source_name="<flags>" if file is None else "<stdin>" if file == "-" else file,
            sidecar_name=entities if entities and entities != "-" else "<entities>",
            restore=restore,
        )
    doc = {"id": result.id, "path": result.path, "commit": result.commit}
    lines = [kblines.added(result)]
    if kb.guard_installed:  # the KB is a clone of the team KB: its first write guards it
        lines.append(
            f"note: installed the pre-push guard ({kb.guard_installed}): a push of main to the "
            "team refuses notes below high confidence; `reflect-git route ID` sends them to review"
        )
    render.emit(ctx, doc, lines)


@commands.command("update")
def update_cmd(
    ctx: typer.Context,
    note_id: str = typer.Argument(..., metavar="ID"),
    assignments: list[str] = typer.Option(  # noqa: B008
        [], "--set", help="KEY=VALUE (YAML-typed; repeatable)."
    ),
    body_file: str | None = typer.Option(None, "--body-file", help="New body from a file, or -."),
) -> None:
    """Change fields or the body of a note; its id and file name stay, `updated` bumps."""
    body = None
    if body_file is not None:
        raw = read_input(body_file, "the body")
        try:
            body = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            fail(f"{body_file} is not UTF-8 text", hint="re-save it as UTF-8")
    with open_kb(ctx) as kb:
        result = kb.update(note_id, assignments, body)
    doc = {"id": result.id, "commit": result.commit, "notes": list(result.notes)}
    render.emit(ctx, doc, kblines.updated(result))


@commands.command("confirm")
def confirm_cmd(
    ctx: typer.Context,
    note_id: str = typer.Argument(..., metavar="ID"),
    source: str = typer.Option(..., "--source", help="Where the confirmation comes from."),
) -> None:
    """Count one more proof of a note from SOURCE (once per source)."""
    with open_kb(ctx) as kb:
        result = kb.confirm(note_id, source)
    doc = {"id": result.id, "proof_count": result.proof_count, "commit": result.commit}
    if result.reviewed_by:  # this confirm reviewed a machine's note (docs/team.md)
        doc["reviewed_by"] = result.reviewed_by
    render.emit(ctx, doc, kblines.confirmed(result, source))


@commands.command("archive")
def archive_cmd(ctx: typer.Context, note_id: str = typer.Argument(..., metavar="ID")) -> None:
    """Move a note and its sidecar to archived/."""
    with open_kb(ctx) as kb:
        result = kb.archive(note_id)
    render.emit(ctx, {"id": result.id, "commit": result.commit}, kblines.moved("archived", result))


@commands.command("restore")
def restore_cmd(ctx: typer.Context, note_id: str = typer.Argument(..., metavar="ID")) -> None:
    """Move an archived note and its sidecar back to documents/."""
    with open_kb(ctx) as kb:
        result = kb.restore(note_id)
    render.emit(ctx, {"id": result.id, "commit": result.commit}, kblines.moved("restored", result))


@commands.command("forget")
def forget_cmd(
    ctx: typer.Context,
    note_id: str | None = typer.Argument(None, metavar="[ID]"),
    reason: str | None = typer.Option(None, "--reason", help="Why (recorded in the commit)."),
    sweep: bool = typer.Option(False, "--sweep", help="Forget every note past forget_after."),
    now: str | None = typer.Option(None, "--now", help="With --sweep: the time to compare with."),
    dry_run: bool = typer.Option(False, "--dry-run", help="With --sweep: only list them."),
) -> None:
    """Move a note to .forgotten/ now, or sweep every note whose forget_after has passed."""
    if sweep == (note_id is not None):
        fail("give one ID, or --sweep", hint="reflect-git forget ID --reason R", code=EXIT_USAGE)
    if not sweep and (now or dry_run):
        fail("--now and --dry-run go with --sweep", code=EXIT_USAGE)
    with open_kb(ctx) as kb:
        if sweep:
            from reflectgit.notes.dates import parse_instant

            moment = None
            if now is not None:
                moment = parse_instant(now)
                if moment is None:
                    fail(
                        f"--now {now!r} is not an ISO date or timestamp",
                        hint="e.g. --now 2026-03-04 or --now 2026-03-04T10:00:00Z "
                        "(default: the current time)",
                        code=EXIT_USAGE,
                    )
            result = kb.sweep(moment, dry_run=dry_run)
        else:
            assert note_id is not None
            result = kb.forget(note_id, reason)
    render.emit(
        ctx, {"forgotten": result.forgotten, "commit": result.commit}, render.forgotten(result)
    )


@commands.command("supersede")
def supersede_cmd(
    ctx: typer.Context,
    old: str = typer.Argument(..., metavar="OLD"),
    by: str = typer.Option(..., "--by", metavar="NEW", help="The note that replaces OLD."),
) -> None:
    """Record that NEW replaces OLD (superseded_by / supersedes), in one commit."""
    with open_kb(ctx) as kb:
        result = kb.supersede(old, by)
    doc = {"old": result.old, "new": result.new, "commit": result.commit}
    render.emit(ctx, doc, kblines.superseded(result))


@commands.command("undo")
def undo_cmd(ctx: typer.Context) -> None:
    """Revert the newest reflect-git commit on the current branch (and nothing else)."""
    with open_kb(ctx) as kb:
        result = kb.undo()
    render.emit(ctx, {"reverted": result.reverted, "commit": result.commit}, render.undone(result))


@commands.command("list")
def list_cmd(
    ctx: typer.Context,
    include_all: bool = typer.Option(False, "--all", help="Also archived and forgotten notes."),
    confidence: str | None = typer.Option(None, "--confidence", help="Only this tier."),
    tag: str | None = typer.Option(None, "--tag", help="Only notes with this tag."),
) -> None:
    """List notes (live ones unless --all)."""
    with open_kb(ctx) as kb:
        notes = kb.list_notes(include_all, confidence, tag)
    doc = [
        {"id": n.id, "title": n.title, "confidence": n.confidence, "path": n.path, "state": n.state}
        for n in notes
    ]
    render.emit(ctx, doc, render.note_list(notes))


@commands.command("show")
def show_cmd(
    ctx: typer.Context,
    note_id: str = typer.Argument(..., metavar="ID"),
    at: str | None = typer.Option(None, "--at", help="A revision or a date."),
) -> None:
    """Show one note, now or at a revision or date."""
    with open_kb(ctx) as kb:
        shown = kb.show(note_id, at)
        raw = kb.store.read(shown.path, shown.revision) or b""
    render.emit(ctx, shown.to_json(), kblines.shown(shown, raw))


@commands.command("log")
def log_cmd(
    ctx: typer.Context,
    note_id: str | None = typer.Argument(None, metavar="[ID]"),
    limit: int | None = typer.Option(None, "--limit", min=1, help="At most N entries."),
) -> None:
    """reflect-git's history on the branch, from commit trailers."""
    with open_kb(ctx) as kb:
        entries = kb.log(note_id, limit)
    doc = [
        {
            "commit": e.commit,
            "op": e.op,
            "id": ",".join(e.ids) if e.ids else None,
            "subject": e.subject,
            "date": e.date,
        }
        for e in entries
    ]
    render.emit(ctx, doc, render.log_lines(entries, note_id))
    render.log_empty(ctx, entries, note_id)


@commands.command("import")
def import_cmd(
    ctx: typer.Context,
    path: str = typer.Argument(..., metavar="PATH", help="A folder of notes, or an export."),
    restore: bool = typer.Option(
        False, "--restore", help="Bring back notes whose ids were forgotten (else skipped)."
    ),
) -> None:
    """Bulk-import notes, skipping what is already there (and saying why)."""
    bar = render.ProgressBar.for_ctx(ctx, "importing")
    try:
        with open_kb(ctx) as kb:
            result = kb.import_notes(path, progress=bar, restore=restore)
    finally:
        bar.close()
    doc = {
        "imported": len(result.imported),
        "skipped": [{"path": s.path, "reason": s.reason} for s in result.skipped],
        "commits": result.commits,
        "adapted": [{"path": a.path, "id": a.id, "changes": a.changes} for a in result.adapted],
    }
    render.emit(ctx, doc, render.imported(result))


@commands.command("export")
def export_cmd(
    ctx: typer.Context,
    file: str = typer.Argument(..., metavar="FILE", help="The tarball to write (.tar or .tar.gz)."),
) -> None:
    """Write a deterministic tarball of the notes and sidecars."""
    with open_kb(ctx) as kb:
        result = kb.export(file)
    render.emit(ctx, {"file": result.file, "notes": result.notes}, render.exported(result))


@commands.command("status")
def status_cmd(ctx: typer.Context) -> None:
    """Notes by state and tier, queue, index freshness, hooks."""
    choice = globals_of(ctx).config().kb_choice
    with open_kb(ctx) as kb:
        st = kb.status()
    cfg = globals_of(ctx).config()
    forge = cfg.forge()
    doc = {
        "kb": st.kb,
        "kb_source": choice.source,
        "kb_origin": choice.origin or None,
        "branch": st.branch,
        "head": st.head,
        "notes": st.notes,
        "tiers": st.tiers,
        "queue_depth": st.queue_depth,
        "dead_letters": st.dead_letters,
        "corrupt_files": st.corrupt_files,
        "stale_files": st.stale_files,
        "errors": st.errors,
        "index": st.index,
        "hooks": st.hooks,
        "clean": st.clean,
        "pending": st.pending,
        "publish": st.publish,
        "merge_driver": st.merge_driver,
        "withheld": [{"path": p, "why": w} for p, w in st.withheld or []],
        "forge": render.forge_doc(forge),
    }
    lines = render.status_lines(st, choice) + render.forge_lines(forge, team=bool(cfg.team.remote))
    render.emit(ctx, doc, lines)
