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
from reflectgit.cli.options import GLOBAL_OPTIONS, Globals
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
    "rules": ("rules",),
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
        # `--install-completion` / `--show-completion` (bash, zsh, fish, PowerShell).
        add_completion=True,
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


def _log_internal_error(
    exc: BaseException, argv: Sequence[str], kb: str | None = None
) -> Path | None:
    """Write the traceback where a bug report can pick it up; never raise from here.

    The state directory's ``logs/error.log`` of the KB the command was given (``--kb``, else
    ``REFLECT_GIT_KB``...); the user cache folder only when that KB does not exist."""
    try:
        cfg = Config.resolve(kb)
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


def _takes_value(option: Any) -> bool:
    return not (getattr(option, "is_flag", False) or getattr(option, "count", False))


def _option_of(command: Any, flag: str) -> Any:
    for param in getattr(command, "params", ()):
        if flag in getattr(param, "opts", ()) or flag in getattr(param, "secondary_opts", ()):
            return param
    return None


def hoist_globals(args: Sequence[str], root: Any) -> list[str]:
    """``args`` with the global options that follow a command word moved in front of it.

    click reads the root's options only before the first command word; users write
    ``reflect-git list --json``. The walk follows the click commands, so an option's value is
    never mistaken for a global (``--title --json`` stays a title); ``--`` ends the walk. A
    command's own ``--json`` (queue, drain, cost) means the global one, so it moves too.
    """
    front: list[str] = []
    rest: list[str] = []
    command = root
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest.extend(args[i:])
            break
        name, eq, _ = arg.partition("=")
        flag = name if eq and arg.startswith("--") else arg
        spec = GLOBAL_OPTIONS.get(flag)
        if spec is not None and command is not root:
            if spec[1] and not eq:
                if i + 1 >= len(args):
                    rest.append(arg)  # the value is missing: click says so
                    break
                front += [arg, args[i + 1]]
                i += 2
            else:
                front.append(arg)
                i += 1
            continue
        rest.append(arg)
        i += 1
        if arg.startswith("-") and len(arg) > 1:
            option = _option_of(command, flag)
            if option is not None and _takes_value(option) and not eq and i < len(args):
                rest.append(args[i])
                i += 1
            continue
        sub = getattr(command, "commands", None)
        if isinstance(sub, dict) and arg in sub:
            command = sub[arg]
        elif command is root:
            command = None  # an unknown word: click reports it; --json still gets its document
    return front + rest


def _wants_json(args: Sequence[str]) -> bool:
    """``--json`` among the options before the command word (where hoisting put them all)."""
    i = 0
    while i < len(args):
        name, eq, _ = args[i].partition("=")
        spec = GLOBAL_OPTIONS.get(name if eq else args[i])
        if spec is None:
            return False
        if spec[0] == "json":
            return True
        i += 2 if spec[1] and not eq else 1
    return False


def run(argv: Sequence[str] | None = None) -> int:
    """Run the typer CLI; return the exit code instead of exiting (tests call this directly).

    A failure prints ``error:``/``hint:`` on stderr and, under ``--json``, one JSON document
    ``{"error", "hint", "exit_code"}`` on stdout too, so a script always has one to read.
    """
    clicks = _click_exceptions()
    args = list(sys.argv[1:] if argv is None else argv)
    render.begin()
    seen = peek(args)
    as_json = bool(seen and seen.options.json) or "--json" in args
    try:
        app = build(seen.word if seen else None)
        command = typer.main.get_command(app)
        args = hoist_globals(args, command)
        as_json = _wants_json(args)
        result = command.main(args=args, prog_name="reflect-git", standalone_mode=False)
        return int(result) if isinstance(result, int) else 0
    except ReflectGitError as exc:
        render.failure(exc.message, exc.hint, exc.exit_code, as_json)
        return exc.exit_code
    except clicks.Exit as exc:
        return int(exc.exit_code or 0)
    except clicks.NoArgsIsHelpError as exc:
        # a group without a subcommand: its help is what the user asked for, not a failure
        render.write_lines([exc.ctx.get_help()] if exc.ctx is not None else [])
        return 0
    except clicks.Abort:
        render.failure("aborted", None, 1, as_json)
        return 1
    except clicks.ClickException as exc:
        render.failure(exc.format_message(), render.USAGE_HINT, EXIT_USAGE, as_json)
        return EXIT_USAGE
    except KeyboardInterrupt:
        render.failure("interrupted", None, 130, as_json)
        return 130
    except Exception as exc:
        disk = storage_error(exc)  # a full, read-only or forbidden disk is the user's to fix
        if disk is not None:
            render.failure(disk.message, disk.hint, disk.exit_code, as_json)
            return disk.exit_code
        kb = seen.options.kb if seen else None
        render.internal_error(exc, _log_internal_error(exc, args, kb), as_json)
        return EXIT_INTERNAL
