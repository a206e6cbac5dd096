"""The typer application: the global options, the command table, and ``run`` (errors -> exit codes).

``run`` finds the command word (``fastpath.peek``, the one reading of the global options),
imports only the module of that command group and mounts it on the root app; ``--help``, no
command, or an unknown word mounts every group, so the help and the "no such command" error
list them all. Workflows raise ``ReflectGitError``; ``run`` turns those into ``error:``/
``hint:`` lines and exit codes (1 failed, 2 usage, 3 internal with a traceback in the state
directory's log).
"""

from __future__ import annotations

import importlib
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer

from reflectgit import __version__
from reflectgit.cli import render
from reflectgit.cli.fastpath import peek
from reflectgit.cli.options import Globals
from reflectgit.config import Config
from reflectgit.errors import EXIT_INTERNAL, EXIT_USAGE, ReflectGitError, storage_error

# The command groups, in the order `--help` lists them: module -> its command words.
GROUPS: dict[str, tuple[str, ...]] = {
    "kb": (
        "init",
        "add",
        "update",
        "confirm",
        "archive",
        "restore",
        "forget",
        "supersede",
        "undo",
        "list",
        "show",
        "log",
        "import",
        "export",
        "status",
    ),
    "validate": ("validate", "check"),
    "team": ("route", "team", "review"),
    "capture": ("hook", "hooks", "capture"),
    "drain": ("drain", "cost", "queue"),
    "search": ("search", "recall", "reindex"),
}
MODULE_OF = {word: module for module, words in GROUPS.items() for word in words}


def _version(value: bool) -> None:
    if value:
        render.echo(f"reflect-git {__version__}")
        raise typer.Exit(0)


def _main_options(
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


def build(word: str | None) -> typer.Typer:
    """The root app with the group that ``word`` belongs to (every group when it is unknown)."""
    app = typer.Typer(
        add_completion=False,
        no_args_is_help=True,
        help="Keep a team's engineering knowledge in git.",
        context_settings={"help_option_names": ["-h", "--help"]},
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    app.callback()(_main_options)
    module = MODULE_OF.get(word or "")
    names = [module] if module else list(GROUPS)
    # typer lists commands before groups; mounting in GROUPS order keeps `--help` as it was.
    for name in names:
        group: typer.Typer = importlib.import_module(f"reflectgit.cli.{name}").commands
        app.registered_commands.extend(group.registered_commands)
        app.registered_groups.extend(group.registered_groups)
    return app


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
    """Run the typer CLI; return the exit code instead of exiting (tests call this directly)."""
    clicks = _click_exceptions()
    args = list(sys.argv[1:] if argv is None else argv)
    seen = peek(args)
    try:
        app = build(seen.word if seen else None)
        result = app(args=args, prog_name="reflect-git", standalone_mode=False)
        return int(result) if isinstance(result, int) else 0
    except ReflectGitError as exc:
        render.error(exc.message, exc.hint)
        return exc.exit_code
    except clicks.Exit as exc:
        return int(exc.exit_code or 0)
    except clicks.Abort:
        render.error("aborted")
        return 1
    except clicks.ClickException as exc:
        render.usage_error(exc.format_message())
        return EXIT_USAGE
    except KeyboardInterrupt:
        render.error("interrupted")
        return 130
    except Exception as exc:
        disk = storage_error(exc)  # a full, read-only or forbidden disk is the user's to fix
        if disk is not None:
            render.error(disk.message, disk.hint)
            return disk.exit_code
        render.internal_error(exc, _log_internal_error(exc, args))
        return EXIT_INTERNAL
