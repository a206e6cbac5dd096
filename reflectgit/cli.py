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
from reflectgit.errors import EXIT_INTERNAL, EXIT_USAGE, ReflectGitError, UsageError

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


# ============================================================================ validation
# (validate, check)


# ============================================================================ team routing
# (team clone|sync|status, route, review list|show|approve|reject)


# ============================================================================ capture
# (hooks install|status, capture commit, hook EVENT)


# ============================================================================ queue and drain
# (queue add|list|failed|retry|purge, drain, cost)


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
    from reflectgit.search import result_json, result_lines, search

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
    from reflectgit.recall import DEFAULT_BUDGET, FORMATS, recall, render

    if fmt not in FORMATS:
        fail(
            f"unknown format {fmt!r}", hint="use --format text or --format claude", code=EXIT_USAGE
        )
    g = globals_of(ctx)
    cfg = g.config()
    size = (
        budget if budget is not None else env_int(cfg.env, "REFLECT_RECALL_BUDGET", DEFAULT_BUDGET)
    )
    result = recall(
        cfg.kb,
        cfg.state_dir,
        Path.cwd(),
        project=project,
        limit=limit,
        budget=size,
        env=cfg.env,
    )
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
    from reflectgit.search import reindex

    cfg = globals_of(ctx).config()
    result = reindex(cfg.kb, cfg.state_dir, force=force, env=cfg.env)
    if result.rebuilt:
        text = f"index rebuilt: {result.changed} notes (tree {(result.tree or 'empty')[:12]})"
    elif result.changed:
        text = f"index updated: {result.changed} notes re-read (tree {(result.tree or '')[:12]})"
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


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit code instead of exiting (tests call this directly)."""
    import click

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        result = app(args=args, prog_name="reflect-git", standalone_mode=False)
        return int(result) if isinstance(result, int) else 0
    except ReflectGitError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        if exc.hint:
            typer.echo(f"hint: {exc.hint}", err=True)
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except click.exceptions.Abort:
        typer.echo("error: aborted", err=True)
        return 1
    except click.ClickException as exc:
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
