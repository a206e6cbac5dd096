"""The command line: parse, call a workflow, render text or ``--json``. The only typer import.

Workflows raise ``ReflectGitError``; ``run`` turns those into ``error:``/``hint:`` lines and exit
codes (1 failed, 2 usage, 3 internal with a traceback in the state directory's log).
Heavy modules are imported inside the commands that need them, so start-up stays lean.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import typer

from reflectgit import __version__
from reflectgit.config import Config
from reflectgit.errors import (
    EXIT_INTERNAL,
    EXIT_USAGE,
    NotFoundError,
    ReflectGitError,
    UsageError,
)

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Keep a team's engineering knowledge in git.",
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@dataclass
class Globals:
    """Global options, shared by every command through the typer context."""

    kb: str | None = None
    json: bool = False
    quiet: bool = False
    _config: Config | None = field(default=None, repr=False)

    def config(self) -> Config:
        if self._config is None:
            self._config = Config.resolve(self.kb)
        return self._config


def _version(value: bool) -> None:
    if value:
        typer.echo(f"reflect-git {__version__}")
        raise typer.Exit(0)


@app.callback()
def main_options(
    ctx: typer.Context,
    kb: str | None = typer.Option(None, "--kb", help="The knowledge base (a git repository)."),
    json_out: bool = typer.Option(False, "--json", help="One JSON document on stdout."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="Only errors."),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """reflect-git: validated notes, routed by confidence, captured from agent sessions."""
    ctx.obj = Globals(kb=kb, json=json_out, quiet=quiet)


def globals_of(ctx: typer.Context) -> Globals:
    obj = ctx.find_root().obj
    if not isinstance(obj, Globals):  # pragma: no cover - the callback always sets it
        obj = Globals()
        ctx.find_root().obj = obj
    return obj


def emit(ctx: typer.Context, document: Any, text: str | Sequence[str] | None = None) -> None:
    """Print the JSON document with ``--json``, else the text lines (unless ``--quiet``)."""
    g = globals_of(ctx)
    if g.json:
        sys.stdout.write(json.dumps(document, indent=2, sort_keys=False, default=str) + "\n")
        return
    if g.quiet or text is None:
        return
    lines = [text] if isinstance(text, str) else list(text)
    for line in lines:
        typer.echo(line)


def note_line(ctx: typer.Context, text: str) -> None:
    """A progress or informational line on stderr (never pollutes --json stdout)."""
    if not globals_of(ctx).quiet:
        typer.echo(text, err=True)


def fail(message: str, hint: str | None = None, code: int = 1) -> NoReturn:
    """Stop the command with an error (used for CLI-level checks)."""
    if code == EXIT_USAGE:
        raise UsageError(message, hint)
    raise ReflectGitError(message, hint)


# ============================================================================ knowledge base
# (init, add, update, confirm, archive, restore, forget, supersede, undo, list, show, log,
#  import, export, status)


@app.command("init")
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
    from reflectgit.config import environ, resolve_kb_path
    from reflectgit.workflows.kb.layout import InitOptions, init

    env = environ()
    # Not Config.resolve: the folder may not exist yet, or hold no settings to read.
    kb = resolve_kb_path(path or globals_of(ctx).kb, env)
    options = InitOptions(team_remote=team_remote, pre_commit=not no_pre_commit, force=force)
    result = init(kb, options, env=env)
    if result.commit:
        verb = "Created" if result.created else "Adopted"
        lines = [f"{verb} the knowledge base in {result.kb} (commit {result.commit[:12]})"]
        lines += [f"  wrote {p}" for p in result.written]
    else:
        lines = [f"{result.kb} is already a reflect-git knowledge base: nothing to change"]
    lines += [
        f"  left {p} alone: it exists but is not committed (commit it yourself)"
        for p in result.left_untracked
    ]
    if ci:
        from reflectgit.workflows.ci_templates import write_ci

        ci_paths = write_ci(kb, ci, env)
        result.written += [str(p.relative_to(kb)) for p in ci_paths]
        lines += [f"  CI job: {p.relative_to(kb)} (committed)" for p in ci_paths]
    if result.commit and options.pre_commit:
        lines.append(
            f"Next: `cd {result.kb} && pre-commit install` validates notes on every commit"
        )
    emit(ctx, result.to_dict(), lines)


def _open_kb(ctx: typer.Context) -> Any:
    from reflectgit.workflows.kb.core import KnowledgeBase

    cfg = globals_of(ctx).config()
    return KnowledgeBase.open(cfg.kb, env=cfg.env, state_dir=cfg.state_dir)


def _short(sha: str | None) -> str:
    return sha[:12] if sha else "-"


def _read_input(name: str, what: str) -> bytes:
    if name == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(name).read_bytes()
    except OSError as exc:
        fail(f"cannot read {what} {name}: {exc.strerror or exc}", hint="check the path")


@app.command("add")
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
) -> None:
    """Validate and commit one note (from a file, stdin, or flags)."""
    fields = {
        "title": title,
        "key_insight": insight,
        "category": category,
        "confidence": confidence,
        "tags": list(tag),
    }
    if file is None and not title:
        fail(
            "give a note FILE, `-` for stdin, or --title with --insight",
            hint="reflect-git add note.md  |  reflect-git add --title T --insight I "
            "--category C --confidence high",
            code=EXIT_USAGE,
        )
    data = _read_input(file, "the note") if file is not None else None
    side = _read_input(entities, "the sidecar") if entities else None
    with _open_kb(ctx) as kb:
        result = kb.add(
            data,
            fields=fields,
            sidecar=side,
            force=force,
            source_name=file if file and file != "-" else "<stdin>",
            sidecar_name=entities if entities and entities != "-" else "<entities>",
        )
    if result.status == "unchanged":
        text = f"{result.id} is already in the KB, unchanged (no commit)"
    else:
        text = f"{result.status} {result.id} ({result.path}) in {_short(result.commit)}"
    emit(ctx, {"id": result.id, "path": result.path, "commit": result.commit}, text)


@app.command("update")
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
        raw = _read_input(body_file, "the body")
        try:
            body = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            fail(f"{body_file} is not UTF-8 text", hint="re-save it as UTF-8")
    with _open_kb(ctx) as kb:
        result = kb.update(note_id, assignments, body)
    text = (
        f"updated {result.id} in {_short(result.commit)}"
        if result.commit
        else f"{result.id} unchanged (no commit)"
    )
    emit(ctx, {"id": result.id, "commit": result.commit}, text)


@app.command("confirm")
def confirm_cmd(
    ctx: typer.Context,
    note_id: str = typer.Argument(..., metavar="ID"),
    source: str = typer.Option(..., "--source", help="Where the confirmation comes from."),
) -> None:
    """Count one more proof of a note from SOURCE (once per source)."""
    with _open_kb(ctx) as kb:
        result = kb.confirm(note_id, source)
    text = (
        f"confirmed {result.id}: proof_count {result.proof_count} in {_short(result.commit)}"
        if result.commit
        else f"{result.id} already confirmed by {source} (proof_count {result.proof_count}; "
        "no commit)"
    )
    emit(ctx, {"id": result.id, "proof_count": result.proof_count, "commit": result.commit}, text)


@app.command("archive")
def archive_cmd(ctx: typer.Context, note_id: str = typer.Argument(..., metavar="ID")) -> None:
    """Move a note and its sidecar to archived/."""
    with _open_kb(ctx) as kb:
        result = kb.archive(note_id)
    emit(
        ctx,
        {"id": result.id, "commit": result.commit},
        f"archived {result.id} -> {result.path} in {_short(result.commit)}",
    )


@app.command("restore")
def restore_cmd(ctx: typer.Context, note_id: str = typer.Argument(..., metavar="ID")) -> None:
    """Move an archived note and its sidecar back to documents/."""
    with _open_kb(ctx) as kb:
        result = kb.restore(note_id)
    emit(
        ctx,
        {"id": result.id, "commit": result.commit},
        f"restored {result.id} -> {result.path} in {_short(result.commit)}",
    )


@app.command("forget")
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
    with _open_kb(ctx) as kb:
        if sweep:
            from reflectgit.workflows.kb.core import parse_instant

            moment = None
            if now is not None:
                moment = parse_instant(now)
                if moment is None:
                    fail(f"--now {now!r} is not an ISO date or timestamp", code=EXIT_USAGE)
            result = kb.sweep(moment, dry_run=dry_run)
        else:
            assert note_id is not None
            result = kb.forget(note_id, reason)
    if result.dry_run:
        lines = [f"would forget {i}" for i in result.forgotten] or ["nothing to forget"]
    elif result.forgotten:
        lines = [f"forgot {', '.join(result.forgotten)} in {_short(result.commit)}"]
    else:
        lines = ["nothing to forget"]
    emit(ctx, {"forgotten": result.forgotten, "commit": result.commit}, lines)


@app.command("supersede")
def supersede_cmd(
    ctx: typer.Context,
    old: str = typer.Argument(..., metavar="OLD"),
    by: str = typer.Option(..., "--by", metavar="NEW", help="The note that replaces OLD."),
) -> None:
    """Record that NEW replaces OLD (superseded_by / supersedes), in one commit."""
    with _open_kb(ctx) as kb:
        result = kb.supersede(old, by)
    text = (
        f"{result.old} superseded by {result.new} in {_short(result.commit)}"
        if result.commit
        else f"{result.old} is already superseded by {result.new} (no commit)"
    )
    emit(ctx, {"old": result.old, "new": result.new, "commit": result.commit}, text)


@app.command("undo")
def undo_cmd(ctx: typer.Context) -> None:
    """Revert the newest reflect-git commit on the current branch (and nothing else)."""
    with _open_kb(ctx) as kb:
        result = kb.undo()
    emit(
        ctx,
        {"reverted": result.reverted, "commit": result.commit},
        f"reverted {_short(result.reverted)} ({result.subject}) in {_short(result.commit)}",
    )


@app.command("list")
def list_cmd(
    ctx: typer.Context,
    include_all: bool = typer.Option(False, "--all", help="Also archived and forgotten notes."),
    confidence: str | None = typer.Option(None, "--confidence", help="Only this tier."),
    tag: str | None = typer.Option(None, "--tag", help="Only notes with this tag."),
) -> None:
    """List notes (live ones unless --all)."""
    with _open_kb(ctx) as kb:
        notes = kb.list_notes(include_all, confidence, tag)
    doc = [
        {"id": n.id, "title": n.title, "confidence": n.confidence, "path": n.path, "state": n.state}
        for n in notes
    ]
    lines = [
        f"{n.id}  [{(n.confidence or '?').upper()}]  {n.title}"
        + (f"  ({n.state})" if n.state != "live" else "")
        for n in notes
    ]
    emit(ctx, doc, lines or ["no notes"])


@app.command("show")
def show_cmd(
    ctx: typer.Context,
    note_id: str = typer.Argument(..., metavar="ID"),
    at: str | None = typer.Option(None, "--at", help="A revision or a date."),
) -> None:
    """Show one note, now or at a revision or date."""
    with _open_kb(ctx) as kb:
        shown = kb.show(note_id, at)
        raw = kb.store.read(shown.path, shown.revision) or b""
    doc = {
        "id": shown.id,
        "path": shown.path,
        "frontmatter": shown.frontmatter,
        "body": shown.body,
        "sidecar": shown.sidecar,
    }
    header = f"# {shown.path} ({shown.state}) at {_short(shown.revision)}"
    emit(ctx, doc, [header, raw.decode("utf-8", "replace").rstrip("\n")])


@app.command("log")
def log_cmd(
    ctx: typer.Context,
    note_id: str | None = typer.Argument(None, metavar="[ID]"),
    limit: int | None = typer.Option(None, "--limit", min=1, help="At most N entries."),
) -> None:
    """reflect-git's history on the branch, from commit trailers."""
    with _open_kb(ctx) as kb:
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
    lines = [f"{e.commit[:12]}  {e.date[:19]}  {(e.op or '?'):<9} {e.subject}" for e in entries]
    emit(ctx, doc, lines or ["no reflect-git commits yet"])


class _ProgressBar:
    """A one-line stderr bar, drawn only on a terminal and at most ~20 times a second."""

    def __init__(self, label: str, enabled: bool) -> None:
        import time

        self.label = label
        self.enabled = enabled
        self._clock = time.monotonic
        self._last = 0.0
        self._drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        now = self._clock()
        if done < total and now - self._last < 0.05:
            return
        self._last = now
        width = 30
        filled = width * done // total
        sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        sys.stderr.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            sys.stderr.write("\n")
            sys.stderr.flush()


@app.command("import")
def import_cmd(
    ctx: typer.Context,
    path: str = typer.Argument(..., metavar="PATH", help="A folder of notes, or an export."),
) -> None:
    """Bulk-import notes, skipping what is already there (and saying why)."""
    g = globals_of(ctx)
    bar = _ProgressBar("importing", enabled=sys.stderr.isatty() and not g.quiet)
    try:
        with _open_kb(ctx) as kb:
            result = kb.import_notes(path, progress=bar)
    finally:
        bar.close()
    doc = {
        "imported": len(result.imported),
        "skipped": [{"path": s.path, "reason": s.reason} for s in result.skipped],
        "commits": result.commits,
    }
    lines = [
        f"imported {len(result.imported)} notes in {len(result.commits)} commit(s)"
        + (f": {', '.join(_short(c) for c in result.commits)}" if result.commits else "")
    ]
    if result.skipped:
        lines.append(f"skipped {len(result.skipped)}:")
        lines += [f"  {s.path}: {s.reason}" for s in result.skipped]
    emit(ctx, doc, lines)


@app.command("export")
def export_cmd(
    ctx: typer.Context,
    file: str = typer.Argument(..., metavar="FILE", help="The tarball to write (.tar or .tar.gz)."),
) -> None:
    """Write a deterministic tarball of the notes and sidecars."""
    with _open_kb(ctx) as kb:
        result = kb.export(file)
    emit(
        ctx,
        {"file": result.file, "notes": result.notes},
        f"exported {result.notes} notes to {result.file}",
    )


@app.command("status")
def status_cmd(ctx: typer.Context) -> None:
    """Notes by state and tier, queue, index freshness, hooks."""
    with _open_kb(ctx) as kb:
        st = kb.status()
    doc = {
        "kb": st.kb,
        "branch": st.branch,
        "head": st.head,
        "notes": st.notes,
        "tiers": st.tiers,
        "queue_depth": st.queue_depth,
        "dead_letters": st.dead_letters,
        "index": st.index,
        "hooks": st.hooks,
        "clean": st.clean,
        "pending": st.pending,
    }
    n, t = st.notes, st.tiers
    lines = [
        f"kb:       {st.kb} (branch {st.branch or 'detached'} at {_short(st.head)})",
        f"notes:    {n['live']} live, {n['archived']} archived, {n['forgotten']} forgotten, "
        f"{n['review_queue']} in review-queue",
        f"tiers:    {t['high']} high, {t['medium']} medium, {t['low']} low"
        + (f", {t['unknown']} unknown" if t["unknown"] else ""),
        f"queue:    {st.queue_depth} waiting, {st.dead_letters} dead letters",
        f"index:    {st.index}",
        "hooks:    "
        + ", ".join(f"{k} {'installed' if v else 'not installed'}" for k, v in st.hooks.items()),
        f"work tree: {'clean' if st.clean else 'has uncommitted edits to notes'}",
    ] + ([f"pending:  {st.pending}"] if st.pending else [])
    emit(ctx, doc, lines)


# ============================================================================ validation
# (validate, check)


def _report_format(ctx: typer.Context, fmt: str) -> str:
    from reflectgit.notes.report import FORMATS

    if fmt not in FORMATS:
        fail(f"unknown format {fmt!r}", hint=f"use one of: {', '.join(FORMATS)}", code=EXIT_USAGE)
    return "json" if globals_of(ctx).json else fmt


def _print_problems(ctx: typer.Context, lines: Sequence[str], fmt: str, summary_line: str) -> None:
    for line in lines:
        typer.echo(line)
    if fmt == "text":
        note_line(ctx, summary_line)


def _kb_folder(ctx: typer.Context) -> Path:
    kb = globals_of(ctx).config().kb
    if not kb.is_dir():
        raise NotFoundError(
            f"no knowledge base at {kb}",
            hint="pass files or folders, point --kb at the KB, or run `reflect-git init`",
        )
    return kb


@app.command("validate")
def validate_command(
    ctx: typer.Context,
    paths: list[str] | None = typer.Argument(  # noqa: B008
        None, help="Notes, sidecars or folders (default: the KB's documents/ and archived/)."
    ),
    fmt: str = typer.Option("text", "--format", help="text, json or github."),
    strict: bool = typer.Option(
        False, "--strict", help="Sidecars also need document_id, extracted_at, known endpoints."
    ),
) -> None:
    """Validate notes (*.md) and sidecars (*.entities.yaml); exit 1 if any file fails."""
    from reflectgit.config import ARCHIVED, DOCUMENTS
    from reflectgit.notes import report
    from reflectgit.workflows import validation

    fmt = _report_format(ctx, fmt)
    if paths:
        targets = validation.collect(paths)
    else:
        kb = _kb_folder(ctx)
        folders = [kb / name for name in (DOCUMENTS, ARCHIVED) if (kb / name).is_dir()]
        targets = validation.collect(folders, base=kb)
    run = validation.validate_targets(targets, strict=strict)
    checked = len(run.checked)
    lines = report.render(run.problems, fmt, checked)
    _print_problems(ctx, lines, fmt, report.summary(run.problems, checked))
    if not run.ok:
        raise typer.Exit(1)


@app.command("check")
def check_command(
    ctx: typer.Context,
    fmt: str = typer.Option("text", "--format", help="text, json or github."),
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

    fmt = _report_format(ctx, fmt)
    kb = _kb_folder(ctx)
    run = checks.check_worktree(kb)
    if base:
        from reflectgit.workflows.history_checks import check_with_base

        run.problems = sorted(
            [*run.problems, *check_with_base(kb, base, globals_of(ctx).config().env)],
            key=lambda p: p.sort_key(),
        )
    lines = report.render(run.problems, fmt, run.notes, kb=str(kb))
    _print_problems(
        ctx, lines, fmt, report.summary(run.problems, run.notes, noun="note", clean="no problems")
    )
    if not run.ok:
        raise typer.Exit(1)


# ============================================================================ team routing
# (team clone|sync|status, route, review list|show|approve|reject)

team_app = typer.Typer(help="Keep a clone of the team KB.", no_args_is_help=True)
review_app = typer.Typer(
    help="Review knowledge branches and their pull requests.", no_args_is_help=True
)
app.add_typer(team_app, name="team")
app.add_typer(review_app, name="review")


@team_app.command("clone")
def team_clone_command(
    ctx: typer.Context,
    url: str = typer.Argument(..., help="The team KB's git URL."),
    path: str | None = typer.Option(None, "--path", help="Where to clone (default: <kb>-team)."),
) -> None:
    """Clone the team KB and record it in the KB's .reflect-git.toml."""
    from reflectgit.workflows import team

    result = team.clone(globals_of(ctx).config(), url, path)
    emit(ctx, result.to_json(), [f"cloned {result.remote} into {result.path}", *result.lines()])


@team_app.command("sync")
def team_sync_command(
    ctx: typer.Context,
    team_path: str | None = typer.Option(None, "--team", help="A team clone to use."),
) -> None:
    """Fetch the team remote and fast-forward the local main when it is safe."""
    from reflectgit.workflows import team

    result = team.sync(globals_of(ctx).config(), team_path)
    head = "fetched and fast-forwarded" if result.updated else "fetched"
    emit(ctx, result.to_json(), [f"team KB {head}", *result.lines()])


@team_app.command("status")
def team_status_command(
    ctx: typer.Context,
    team_path: str | None = typer.Option(None, "--team", help="A team clone to use."),
    offline: bool = typer.Option(False, "--offline", help="Do not fetch first."),
) -> None:
    """The team remote, how local main compares, and the open knowledge branches."""
    from reflectgit.workflows import team

    result = team.status(globals_of(ctx).config(), team_path, fetch=not offline)
    emit(ctx, result.to_json(), result.lines())


@app.command("route")
def route_command(
    ctx: typer.Context,
    target: str = typer.Argument(..., metavar="NOTE|ID", help="A note file or a note id."),
    team_path: str | None = typer.Option(None, "--team", help="A team clone to route into."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Say what would happen; do nothing."),
) -> None:
    """high: commit on the team's main and push; medium: knowledge/<slug> + draft PR; low: queue."""
    from reflectgit.errors import RemoteError
    from reflectgit.workflows import routing

    path = Path(target)
    if path.suffix == ".md" or path.exists():
        if not path.is_file():
            raise ReflectGitError(f"{target}: no such note file", hint="check the path")
        target = str(path.absolute())
    result = routing.route(globals_of(ctx).config(), target, team_path=team_path, dry_run=dry_run)
    emit(ctx, result.to_json(), result.lines())
    if result.error:
        raise RemoteError(result.error, hint=result.hint)


@review_app.command("list")
def review_list_command(
    ctx: typer.Context,
    team_path: str | None = typer.Option(None, "--team", help="A team clone to use."),
) -> None:
    """Open knowledge branches: title, tier, age, PR, validation, near-duplicates on main."""
    from reflectgit.workflows import review

    items = review.list_branches(globals_of(ctx).config(), team_path)
    lines = [line for item in items for line in item.lines()] or ["no open knowledge branches"]
    emit(ctx, [item.to_json() for item in items], lines)


@review_app.command("show")
def review_show_command(
    ctx: typer.Context,
    branch: str = typer.Argument(..., help="knowledge/<slug>"),
    team_path: str | None = typer.Option(None, "--team", help="A team clone to use."),
) -> None:
    """One knowledge branch: its note, validation and near-duplicates."""
    from reflectgit.workflows import review

    item = review.show(globals_of(ctx).config(), branch, team_path)
    emit(ctx, item.to_json(full=True), item.lines(full=True))


@review_app.command("approve")
def review_approve_command(
    ctx: typer.Context,
    branch: str = typer.Argument(..., help="knowledge/<slug>"),
    team_path: str | None = typer.Option(None, "--team", help="A team clone to use."),
) -> None:
    """Merge the branch into main keeping its commit, push, delete the branch."""
    from reflectgit.workflows import review

    result = review.approve(globals_of(ctx).config(), branch, team_path)
    emit(ctx, result.to_json(), result.lines())


@review_app.command("reject")
def review_reject_command(
    ctx: typer.Context,
    branch: str = typer.Argument(..., help="knowledge/<slug>"),
    reason: str = typer.Option(..., "--reason", help="Why (posted on the pull request)."),
    team_path: str | None = typer.Option(None, "--team", help="A team clone to use."),
) -> None:
    """Close the pull request with the reason and delete the branch."""
    from reflectgit.workflows import review

    result = review.reject(globals_of(ctx).config(), branch, reason, team_path)
    emit(ctx, result.to_json(), result.lines())


# ============================================================================ capture
# (hooks install|status, capture commit, hook EVENT)

hooks_app = typer.Typer(
    help="Install, remove and inspect the capture hooks (git post-commit, agent harnesses).",
    no_args_is_help=True,
)
app.add_typer(hooks_app, name="hooks")
capture_app = typer.Typer(
    help="What the installed hooks run (you rarely call these yourself).", no_args_is_help=True
)
app.add_typer(capture_app, name="capture")


@hooks_app.command("install")
def hooks_install(
    ctx: typer.Context,
    repo: str | None = typer.Argument(
        None, help="Repository for the post-commit hook (default: .)."
    ),
    uninstall: bool = typer.Option(False, "--uninstall", help="Remove our hooks, restore others."),
    agent: str | None = typer.Option(
        None, "--agent", help="Merge hook commands into an agent's settings: claude or codex."
    ),
    scope: str = typer.Option(
        "user", "--scope", help="Agent settings to change: user (home) or project (REPO)."
    ),
) -> None:
    """Install (or remove) the post-commit capture hook, or an agent's hook commands."""
    import os

    from reflectgit.workflows import installer

    g = globals_of(ctx)
    env = dict(g.config().env)
    base = Path(os.path.expanduser(repo)).absolute() if repo else Path.cwd()
    if agent is not None:
        home = Path(env.get("HOME") or Path.home())
        result = installer.install_agent_hooks(
            agent.lower(),
            scope.lower(),
            python=sys.executable,
            home=home,
            project=base,
            env=env,
            uninstall=uninstall,
        )
        detail = f" ({', '.join(result.events)})" if result.events else ""
        emit(
            ctx,
            result.to_dict(),
            f"{result.action}: {result.agent} hooks in {result.settings}{detail}",
        )
        return
    if uninstall:
        done = installer.uninstall_git_hook(base, env=env)
    else:
        pinned = str(g.config().kb) if g.kb else None
        done = installer.install_git_hook(base, python=sys.executable, kb=pinned, env=env)
    lines = [f"{done.action}: {done.hook}"]
    if done.chained:
        lines.append(f"chained: {done.chained} runs first")
    if done.restored:
        lines.append(f"restored: the previous hook is back at {done.restored}")
    emit(ctx, done.to_dict(), lines)


@hooks_app.command("status")
def hooks_status(
    ctx: typer.Context,
    repo: str | None = typer.Argument(None, help="Repository to inspect (default: .)."),
) -> None:
    """What is installed where: the post-commit hook and each agent's settings."""
    import os

    from reflectgit.errors import NotFoundError
    from reflectgit.workflows import installer

    g = globals_of(ctx)
    env = dict(g.config().env)
    base = Path(os.path.expanduser(repo)).absolute() if repo else Path.cwd()
    try:
        git_status: dict[str, Any] | None = installer.git_hook_status(base, env=env)
    except NotFoundError:
        git_status = None  # agent settings are still worth showing
    home = Path(env.get("HOME") or Path.home())
    agents = installer.agent_hook_status(home=home, project=base, env=env)
    lines = []
    if git_status is None:
        lines.append(f"post-commit: {base} is not a git repository")
    else:
        state = "installed" if git_status["installed"] else "not installed"
        lines.append(f"post-commit: {state} ({git_status['hook']})")
        if git_status["chained"]:
            lines.append(f"  chained: {git_status['chained']}")
        if git_status["hooks_path"]:
            lines.append(f"  core.hooksPath: {git_status['hooks_path']}")
        if git_status["installed"] and not git_status["python_ok"]:
            lines.append(f"  warning: {git_status['python']} is gone; run `hooks install` again")
    for row in agents:
        events = ", ".join(row["events"]) if row["events"] else "not installed"
        lines.append(f"{row['agent']} ({row['scope']}): {events} ({row['settings']})")
    emit(ctx, {"git": git_status, "agents": agents}, lines)


@capture_app.command("commit")
def capture_commit(
    ctx: typer.Context,
    sha: str | None = typer.Argument(None, help="Commit to record (default: HEAD)."),
    branch: str | None = typer.Argument(None, help="Branch it was made on."),
) -> None:
    """Record a commit in the state directory (what the post-commit shim runs; never fails)."""
    from reflectgit.hooks.capture import main as capture_main

    capture_main(["commit", sha or "", branch or ""], kb=globals_of(ctx).kb)


@capture_app.command("idle")
def capture_idle(ctx: typer.Context) -> None:
    """Queue agent sessions that went quiet (REFLECT_IDLE_* settings; for a timer)."""
    from reflectgit.workflows.capture.commits import Capture

    cap = Capture(globals_of(ctx).config())
    if cap.idle_disabled:
        emit(ctx, {"disabled": True, "queued": []}, "idle sweep disabled")
        return
    root, threshold, max_age, limit = cap.idle_settings()
    results = cap.idle_sweep(root, threshold=threshold, max_age=max_age, limit=limit)
    rows = [
        {
            "transcript": path,
            "reason": q.verdict.reason,
            "entry": q.entry_id,
            "created": q.created,
        }
        for path, q in results
    ]
    lines = [f"{r['reason']:<22} {r['entry'] or '-':<16} {r['transcript']}" for r in rows] or [
        f"no quiet sessions under {root}"
    ]
    emit(ctx, {"disabled": False, "root": str(root), "queued": rows}, lines)


@app.command("hook", context_settings={"allow_extra_args": True})
def hook(
    event: str = typer.Argument(..., help="The harness event (PostToolUse, Stop, ...)."),
    payload: str | None = typer.Argument(None, help="The payload, when not on stdin (Codex)."),
) -> None:
    """An agent hook: reads the event's JSON on stdin, never fails the caller."""
    from reflectgit.hooks.agent import main as hook_main

    hook_main([event] + ([payload] if payload else []))


# ============================================================================ queue and drain
# (queue add|list|failed|retry|purge, drain, cost)

queue_app = typer.Typer(
    help="The durable queue of transcripts waiting for the drain, and its dead letters.",
    no_args_is_help=True,
)
app.add_typer(queue_app, name="queue")

_JSON_HELP = "One JSON document on stdout (same as the global --json)."


def _want_json(ctx: typer.Context, flag: bool) -> None:
    if flag:
        globals_of(ctx).json = True


def _entry_line(entry: Any, now: float) -> str:
    wait = ""
    if entry.not_before and entry.not_before > now:
        wait = f" wait={int(entry.not_before - now)}s"
    session = f" session={entry.session_id}" if entry.session_id else ""
    return (
        f"{entry.id}  {entry.trigger:<12} retries={entry.retries}{wait}{session}  "
        f"{entry.transcript_path}"
    )


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
    import time

    from reflectgit.state.queue import open_queue

    _want_json(ctx, json_out)
    path = Path(os.path.expanduser(transcript)).absolute()
    if not path.is_file():
        fail(f"no transcript at {path}", hint="give the path of a session transcript file")
    queue = open_queue(globals_of(ctx).config())
    entry, created = queue.add(str(path), trigger, session or path.stem)
    verb = "queued" if created else "already queued"
    emit(
        ctx,
        {"id": entry.id, "created": created, "entry": entry.to_dict()},
        f"{verb} {entry.id}  {_entry_line(entry, time.time()).split('  ', 1)[1]}",
    )


@queue_app.command("list")
def queue_list(
    ctx: typer.Context, json_out: bool = typer.Option(False, "--json", help=_JSON_HELP)
) -> None:
    """Pending entries, front of the queue first, with retry and backoff state."""
    import time

    from reflectgit.state.queue import open_queue

    _want_json(ctx, json_out)
    queue = open_queue(globals_of(ctx).config())
    entries = queue.list()
    dead = queue.failed()
    corrupt = queue.corrupt()
    now = time.time()
    lines = [_entry_line(e, now) for e in entries] or ["queue is empty"]
    if dead:
        lines.append(f"{len(dead)} dead letter(s): `reflect-git queue failed`")
    if corrupt:
        lines.append(f"{len(corrupt)} corrupt file(s) moved aside in {queue.corrupt_dir}")
    emit(
        ctx,
        {
            "pending": [e.to_dict() for e in entries],
            "dead_letters": len(dead),
            "corrupt": [{"name": c.name, "reason": c.reason} for c in corrupt],
        },
        lines,
    )


@queue_app.command("failed")
def queue_failed(
    ctx: typer.Context, json_out: bool = typer.Option(False, "--json", help=_JSON_HELP)
) -> None:
    """Dead letters: entries whose retries ran out or that poisoned the writer."""
    from reflectgit.state.queue import open_queue

    _want_json(ctx, json_out)
    queue = open_queue(globals_of(ctx).config())
    dead = queue.failed()
    lines = []
    for e in dead:
        lines.append(f"{e.id}  {e.dead_reason}  retries={e.retries}  {e.transcript_path}")
        if e.last_error:
            lines.append(f"    last error: {e.last_error}")
    emit(ctx, [e.to_dict() for e in dead], lines or ["no dead letters"])


@queue_app.command("retry")
def queue_retry(
    ctx: typer.Context,
    entry_id: str = typer.Argument(..., metavar="ID", help="Entry id (or a unique prefix)."),
    json_out: bool = typer.Option(False, "--json", help=_JSON_HELP),
) -> None:
    """Put a dead letter (or a backed-off entry) back in the queue with its retries reset."""
    from reflectgit.state.queue import open_queue

    _want_json(ctx, json_out)
    entry = open_queue(globals_of(ctx).config()).retry(entry_id)
    emit(ctx, {"id": entry.id, "entry": entry.to_dict()}, f"requeued {entry.id}")


@queue_app.command("purge")
def queue_purge(
    ctx: typer.Context,
    entry_id: str = typer.Argument(..., metavar="ID", help="Entry id (or a unique prefix)."),
    json_out: bool = typer.Option(False, "--json", help=_JSON_HELP),
) -> None:
    """Remove a dead letter (or a pending entry) for good."""
    from reflectgit.state.queue import open_queue

    _want_json(ctx, json_out)
    entry, dead = open_queue(globals_of(ctx).config()).purge(entry_id)
    where = "dead letter" if dead else "pending entry"
    emit(
        ctx,
        {"id": entry.id, "purged": where.replace(" ", "_")},
        f"purged {where} {entry.id}",
    )


def _row_line(row: dict[str, Any]) -> str:
    parts = [f"{row['entry_id']}  {row['outcome']:<24} entries={row['entries']}"]
    if row.get("notes"):
        parts.append(f"notes={','.join(row['notes'])}")
    if row.get("confirmed"):
        parts.append(f"confirmed={','.join(row['confirmed'])}")
    if row.get("archived"):
        parts.append(f"archived={','.join(row['archived'])}")
    if row.get("dropped"):
        parts.append(f"dropped={len(row['dropped'])}")
    if row.get("cost_usd"):
        parts.append(f"cost=${row['cost_usd']:.4f}")
    if row.get("detail"):
        parts.append(f"({row['detail']})")
    return "  ".join(parts)


@app.command("drain")
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
    from reflectgit.workflows.drain.loop import run_drain, spawn_background

    _want_json(ctx, json_out)
    cfg = globals_of(ctx).config()
    if background:
        if cfg.disabled:
            emit(ctx, {"background": False, "pid": None}, "REFLECT_DISABLED=1: no drain started")
            return
        args = ["--dry-run"] if dry_run else []
        if max_entries is not None:
            args += ["--max", str(max_entries)]
        if writer:
            args += ["--writer", writer]
        pid = spawn_background(cfg, args)
        emit(ctx, {"background": True, "pid": pid}, f"drain started in the background (pid {pid})")
        return
    report = run_drain(
        cfg, dry_run=True if dry_run else None, max_entries=max_entries, writer=writer
    )
    lines = [_row_line(r) for r in report.rows]
    head = f"drain: {report.status}" + (" (dry run)" if report.dry_run else "")
    head += f", writer {report.writer}"
    if report.message:
        head += f": {report.message}"
    for warning in report.warnings:
        note_line(ctx, f"warning: {warning}")
    emit(ctx, report.rows, [head, *lines])


@app.command("cost")
def cost_cmd(
    ctx: typer.Context,
    since: str = typer.Option("30d", "--since", help="30d, 12h, 2w, an ISO date, or all."),
    by: str = typer.Option("day", "--by", help="day, transcript, model, outcome or writer."),
    json_out: bool = typer.Option(False, "--json", help=_JSON_HELP),
) -> None:
    """The drain's ledger: runs, entries charged, tokens, cost and notes, grouped."""
    from reflectgit.workflows.drain.loop import cost_report

    _want_json(ctx, json_out)
    doc = cost_report(globals_of(ctx).config(), since=since, by=by)
    width = max([len(g["key"]) for g in doc["groups"]] + [5])
    lines = [f"{by:<{width}}  runs  entries  tokens     cost_usd  ok  notes"]
    for g in [*doc["groups"], doc["total"]]:
        lines.append(
            f"{g['key']:<{width}}  {g['runs']:>4}  {g['entries']:>7}  {g['tokens']:>9}  "
            f"{g['cost_usd']:>8.4f}  {g['ok']:>2}  {g['notes']:>5}"
        )
    emit(ctx, doc, lines)


# ============================================================================ search
# (search, recall, reindex)


@app.command("search")
def search_cmd(
    ctx: typer.Context,
    query: list[str] = typer.Argument(  # noqa: B008 - typer declares options this way
        ..., help="Words to look for (any punctuation is fine)."
    ),
    limit: int = typer.Option(10, "--limit", "-n", help="At most this many notes."),
    include_all: bool = typer.Option(
        False, "--all", help="Also superseded, archived, forgotten and retired notes."
    ),
    tag: str | None = typer.Option(None, "--tag", help="Only notes with this tag."),
    confidence: str | None = typer.Option(
        None, "--confidence", help="Only notes of this tier (high, medium, low)."
    ),
    at: str | None = typer.Option(
        None, "--at", help="Search the KB as it was at a revision, or a date (YYYY-MM-DD)."
    ),
    as_of: str | None = typer.Option(
        None, "--as-of", help="Match sidecar edges valid at this date (default: now)."
    ),
) -> None:
    """Ranked notes: text relevance x confidence x proof count; live ones unless --all."""
    from reflectgit.workflows.search.index import result_json, result_lines, search

    g = globals_of(ctx)
    cfg = g.config()
    text = " ".join(query)
    result = search(
        cfg.kb,
        cfg.state_dir,
        text,
        limit=limit,
        include_all=include_all,
        tag=tag,
        confidence=confidence,
        at=at,
        as_of=as_of,
        explain=g.json,
        env=cfg.env,
    )
    emit(ctx, result_json(result), result_lines(result, include_all))


@app.command("recall")
def recall_cmd(
    ctx: typer.Context,
    project: str | None = typer.Option(
        None, "--project", help="The project name (default: this repository's name)."
    ),
    limit: int = typer.Option(5, "--limit", "-n", help="At most this many notes."),
    fmt: str = typer.Option(
        "text", "--format", help="text, or claude (the SessionStart hook's JSON)."
    ),
    budget: int | None = typer.Option(
        None,
        "--budget",
        help="At most this many characters (default REFLECT_RECALL_BUDGET or 4000).",
    ),
) -> None:
    """What an agent should know at session start in this project."""
    from reflectgit.config import env_int
    from reflectgit.workflows.recall import DEFAULT_BUDGET, FORMATS, recall, render

    if fmt not in FORMATS:
        fail(
            f"unknown format {fmt!r}", hint="use --format text or --format claude", code=EXIT_USAGE
        )
    g = globals_of(ctx)
    cfg = g.config()
    size = (
        budget if budget is not None else env_int(cfg.env, "REFLECT_RECALL_BUDGET", DEFAULT_BUDGET)
    )
    try:
        result = recall(
            cfg.kb,
            cfg.state_dir,
            Path.cwd(),
            project=project,
            limit=limit,
            budget=size,
            env=cfg.env,
        )
    except ReflectGitError as exc:
        if fmt != "claude":
            raise
        # As a SessionStart hook, recall must never fail the session: say why on stderr only.
        typer.echo(f"reflect-git recall: {exc.message}", err=True)
        return
    if fmt == "claude" and not g.json:
        # The hook's JSON is the whole point of this format: print it even with --quiet.
        sys.stdout.write(render(result, fmt) + "\n")
        return
    emit(ctx, result.to_json(), render(result, fmt))


@app.command("reindex")
def reindex_cmd(
    ctx: typer.Context,
    force: bool = typer.Option(False, "--force", help="Rebuild from scratch."),
) -> None:
    """Bring the derived search index up to date (incremental unless --force)."""
    from reflectgit.workflows.search.index import reindex

    g = globals_of(ctx)
    cfg = g.config()
    bar = _ProgressBar("indexing", enabled=sys.stderr.isatty() and not g.quiet)
    try:
        result = reindex(cfg.kb, cfg.state_dir, force=force, env=cfg.env, progress=bar)
    finally:
        bar.close()
    notes = f"{result.changed} note" + ("" if result.changed == 1 else "s")
    if result.rebuilt:
        text = f"index rebuilt: {notes} (tree {(result.tree or 'empty')[:12]})"
    elif result.changed:
        text = f"index updated: {notes} re-read (tree {(result.tree or '')[:12]})"
    else:
        text = f"index already fresh (tree {(result.tree or 'empty')[:12]})"
    emit(ctx, result.to_json, text)


# ============================================================================ entry point


def _log_internal_error(exc: BaseException, argv: Sequence[str]) -> Path | None:
    """Write the traceback where a bug report can pick it up; never raise from here."""
    try:
        cfg = Config.resolve(None)
        log_dir = cfg.state_dir / "logs"
        if not cfg.state_dir.parent.exists():
            log_dir = Path.home() / ".cache" / "reflect-git"
        log_dir.mkdir(parents=True, exist_ok=True)
        path = log_dir / "error.log"
        with path.open("a", encoding="utf-8") as fh:
            fh.write(f"### reflect-git {__version__}: {' '.join(argv)}\n")
            fh.write("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
            fh.write("\n")
        return path
    except Exception:
        return None


def _click_exceptions() -> Any:
    """The click that typer parses with: its own vendored copy in recent releases."""
    try:
        from typer._click import exceptions
    except ImportError:  # typer releases that use the click package
        from click import exceptions  # type: ignore[no-redef]
    return exceptions


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit code instead of exiting (tests call this directly)."""
    clicks = _click_exceptions()

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        result = app(args=args, prog_name="reflect-git", standalone_mode=False)
        return int(result) if isinstance(result, int) else 0
    except ReflectGitError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        if exc.hint:
            typer.echo(f"hint: {exc.hint}", err=True)
        return exc.exit_code
    except clicks.Exit as exc:
        return int(exc.exit_code or 0)
    except clicks.Abort:
        typer.echo("error: aborted", err=True)
        return 1
    except clicks.ClickException as exc:
        typer.echo(f"error: {exc.format_message()}", err=True)
        typer.echo("hint: see `reflect-git --help` or `reflect-git COMMAND --help`", err=True)
        return EXIT_USAGE
    except KeyboardInterrupt:
        typer.echo("error: interrupted", err=True)
        return 130
    except Exception as exc:
        path = _log_internal_error(exc, args)
        where = f" (traceback in {path})" if path else ""
        typer.echo(f"error: internal error: {type(exc).__name__}: {exc}{where}", err=True)
        return EXIT_INTERNAL
