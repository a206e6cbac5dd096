"""The typer application: the command registry, the global options, and ``run`` (errors -> exit codes).

Commands are registered by name (``COMMANDS``: word -> the module under ``reflectgit.cli`` that
declares it, as pip's ``commands_dict``), and ``Commands``, the root click group, imports a
module only when one of its words runs; ``--help`` lists every command, so it imports them all.
The global options (``--kb``, ``--json``, ``-q``) are the root callback's; they may follow the
command word too (``reflect-git list --json``), so every command takes them again, hidden from
its help. Workflows raise ``ReflectGitError``; ``run`` turns those into ``error:``/``hint:``
lines and exit codes (1 failed, 2 usage, 3 internal with a traceback in the state directory's
log).
"""

import copy
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
import typer.main
from typer.core import TyperGroup

from reflectgit import __version__
from reflectgit.cli import render
from reflectgit.cli.options import Globals, globals_of
from reflectgit.config import Config
from reflectgit.errors import EXIT_INTERNAL, EXIT_USAGE, ReflectGitError, storage_error

PROG = "reflect-git"

# Every command word -> its module (reflectgit/cli/<module>.py, whose `commands` typer app
# declares it), in the order `--help` lists them. A new command is one line here.
COMMANDS: dict[str, str] = {
    "init": "kb",
    "add": "kb",
    "update": "kb",
    "confirm": "kb",
    "archive": "kb",
    "restore": "kb",
    "forget": "kb",
    "supersede": "kb",
    "undo": "kb",
    "list": "kb",
    "show": "kb",
    "log": "kb",
    "import": "kb",
    "export": "kb",
    "status": "kb",
    "config": "config",
    "validate": "validate",
    "check": "validate",
    "route": "team",
    "team": "team",
    "review": "team",
    "merge-driver": "merge",
    "hook": "capture",
    "hooks": "capture",
    "capture": "capture",
    "drain": "drain",
    "cost": "drain",
    "queue": "drain",
    "search": "search",
    "recall": "search",
    "reindex": "search",
    "mcp": "mcp",
    "serve": "serve",
    "ingest": "ingest",
    "errors": "errors",
    "rules": "rules",
    "stale": "code",
    "pr-notes": "code",
    "code-ci": "code",
}

# The root callback's options that a command takes after its word as well.
AFTER_THE_WORD = ("kb", "json", "quiet")


def _version(value: bool) -> None:
    if value:
        render.echo(f"{PROG} {__version__}")
        raise typer.Exit(0)


def main_options(
    ctx: typer.Context,
    kb: str | None = typer.Option(None, "--kb", help="The knowledge base (a git repository)."),
    json: bool = typer.Option(False, "--json", help="One JSON document on stdout."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="Only errors."),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """Keep a team's engineering knowledge in git."""
    g = globals_of(ctx)
    g.kb, g.json, g.quiet = kb, json, quiet


def _store(ctx: Any, param: Any, value: Any) -> Any:
    """A global option written after the command word: into the root's ``Globals``."""
    if value is not None and value is not False and param.name:
        setattr(globals_of(ctx), param.name, value)
    return value


class Commands(TyperGroup):
    """The root group: lists ``COMMANDS`` and imports a command's module when it is asked for."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self._loaded: dict[str, Any] = {}

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """The command of one word: its module imported, and only that word's command built
        (typer reads each command's signature to build it: the module's other commands cost
        a command that does not run them)."""
        module = COMMANDS.get(cmd_name)
        if module is None:
            return None
        if cmd_name not in self._loaded:
            declared = importlib.import_module(f"reflectgit.cli.{module}").commands
            app = _typer_app()  # this word's command or group, with the root's settings
            app.registered_commands += [
                c for c in declared.registered_commands if c.name == cmd_name
            ]
            app.registered_groups += [g for g in declared.registered_groups if g.name == cmd_name]
            command = typer.main.get_group(app).commands.get(cmd_name)
            if command is not None:
                _take_globals(command, [p for p in self.params if p.name in AFTER_THE_WORD])
            self._loaded[cmd_name] = command
        return self._loaded[cmd_name]

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in COMMANDS:
            # An unknown word: every command is loaded, so typer can say "Did you mean ...?".
            self.commands.update((word, self.get_command(ctx, word)) for word in COMMANDS)
        return super().resolve_command(ctx, args)


def _take_globals(command: Any, options: Sequence[Any]) -> None:
    """Give ``command`` (and its subcommands) the root's global options, hidden from its help;
    a flag the command declares itself (``queue list --json``) stays the command's."""
    taken = {flag for param in command.params for flag in getattr(param, "opts", ())}
    for option in options:
        if taken.isdisjoint(option.opts):
            twin = copy.copy(option)
            twin.expose_value = False
            twin.hidden = True
            twin.callback = _store
            command.params.append(twin)
    for sub in getattr(command, "commands", {}).values():
        _take_globals(sub, options)


def _typer_app(add_completion: bool = False, **settings: Any) -> typer.Typer:
    """A typer app as every one of ours is: plain help, errors left to ``run``."""
    return typer.Typer(
        context_settings={"help_option_names": ["-h", "--help"]},
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        add_completion=add_completion,
        **settings,
    )


def root_command() -> Any:
    """The click group typer builds for the root: the global options and the lazy commands."""
    # `--install-completion` / `--show-completion` (bash, zsh, fish, PowerShell).
    app = _typer_app(add_completion=True, cls=Commands, no_args_is_help=True)
    app.callback()(main_options)
    return typer.main.get_command(app)


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
        from reflectgit.state.errors import append_traceback

        return append_traceback(log_dir, " ".join(argv), exc)
    except Exception:
        return None


def _click_exceptions() -> Any:
    """The usage errors of the click that typer parses with: its own copy in recent releases
    (typer exports ``Exit`` and ``Abort``, but no base class of its usage errors), the click
    package in older ones."""
    try:
        from typer._click import exceptions
    except ImportError:  # typer releases that use the click package
        from click import exceptions  # type: ignore[no-redef]
    return exceptions


def _json_word(args: Sequence[str]) -> bool:
    """``--json`` among the arguments (before any ``--``): a usage error stops click before it
    reads every option, and the error document is still owed."""
    end = args.index("--") if "--" in args else len(args)
    return "--json" in args[:end]


def run(argv: Sequence[str] | None = None) -> int:
    """Run the typer CLI; return the exit code instead of exiting (tests call this directly).

    A failure prints ``error:``/``hint:`` on stderr and, under ``--json``, one JSON document
    ``{"error", "hint", "exit_code"}`` on stdout too, so a script always has one to read.
    """
    clicks = _click_exceptions()
    args = list(sys.argv[1:] if argv is None else argv)
    render.begin()
    g = Globals()
    try:
        result = root_command().main(args=args, prog_name=PROG, standalone_mode=False, obj=g)
        return int(result) if isinstance(result, int) else 0
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except getattr(clicks, "NoArgsIsHelpError", ()) as exc:
        # a group without a subcommand: its help is what the user asked for, not a failure
        render.write_lines([exc.ctx.get_help()] if exc.ctx is not None else [])
        return 0
    except typer.Abort:
        render.failure("aborted", None, 1, g.json)
        return 1
    except clicks.ClickException as exc:
        as_json = g.json or _json_word(args)
        render.failure(exc.format_message(), render.USAGE_HINT, EXIT_USAGE, as_json)
        return EXIT_USAGE
    except (KeyboardInterrupt, Exception) as exc:  # ReflectGitError, a bug, a full disk
        return failed(exc, args, g.json, g.kb)


def failed(exc: BaseException, args: Sequence[str], as_json: bool, kb: str | None) -> int:
    """Say what went wrong and return the exit code: ``error:``/``hint:`` for a
    ``ReflectGitError`` or a full, read-only or forbidden disk; else an internal error, its
    traceback logged."""
    if isinstance(exc, ReflectGitError):
        render.failure(exc.message, exc.hint, exc.exit_code, as_json)
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        render.failure("interrupted", None, 130, as_json)
        return 130
    disk = storage_error(exc)  # a full, read-only or forbidden disk is the user's to fix
    if disk is not None:
        render.failure(disk.message, disk.hint, disk.exit_code, as_json)
        return disk.exit_code
    render.internal_error(exc, _log_internal_error(exc, args, kb), as_json)
    return EXIT_INTERNAL
