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
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from reflectgit.cli import render
from reflectgit.cli.fastpath import peek
from reflectgit.cli.options import GLOBAL_OPTIONS, HELP_OPTIONS
from reflectgit.config import Config
from reflectgit.errors import EXIT_INTERNAL, EXIT_USAGE, ReflectGitError, storage_error

# The command registry, in the order `--help` lists the commands: the module (cli/<module>.py)
# -> its command words -> each one's summary (the first paragraph of its docstring, as typer
# shows it). `--help` is printed from this table alone (cli/usage.py), without importing typer
# or a command module; tests/test_cli_registry.py checks it against the real commands. A new
# command is one line: `"serve": {"serve": "Serve the KB in a browser."},`.
GROUPS: dict[str, Mapping[str, str] | tuple[str, ...]] = {
    "kb": {
        "init": "Create (or adopt) a KB: layout, .gitignore, settings, pre-commit config, first commit.",
        "add": "Validate and commit one note (from a file, stdin, or flags).",
        "update": "Change fields or the body of a note; its id and file name stay, `updated` bumps.",
        "confirm": "Count one more proof of a note from SOURCE (once per source).",
        "archive": "Move a note and its sidecar to archived/.",
        "restore": "Move an archived note and its sidecar back to documents/.",
        "forget": "Move a note to .forgotten/ now, or sweep every note whose forget_after has passed.",
        "supersede": "Record that NEW replaces OLD (superseded_by / supersedes), in one commit.",
        "undo": "Revert the newest reflect-git commit on the current branch (and nothing else).",
        "list": "List notes (live ones unless --all).",
        "show": "Show one note, now or at a revision or date.",
        "log": "reflect-git's history on the branch, from commit trailers.",
        "import": "Bulk-import notes, skipping what is already there (and saying why).",
        "export": "Write a deterministic tarball of the notes and sidecars.",
        "status": "Notes by state and tier, queue, index freshness, hooks.",
    },
    "validate": {
        "validate": "Validate notes (*.md) and sidecars (*.entities.yaml); exit 1 if any file fails.",
        "check": "Whole-KB invariants: unique ids, sidecars match notes, no ranking fields, the layout.",
    },
    "team": {
        "route": "high: commit on the team's main and push; medium: knowledge/<slug> + draft PR; low: queue.",
        "team": "Keep a clone of the team KB.",
        "review": "Review knowledge branches and their pull requests.",
    },
    "capture": {
        "hook": "An agent hook: reads the event's JSON on stdin, never fails the caller.",
        "hooks": "Install, remove and inspect the capture hooks (git post-commit, agent harnesses).",
        "capture": "What the installed hooks run (you rarely call these yourself).",
    },
    "drain": {
        "drain": "Turn queued transcripts into notes: one validated commit per transcript.",
        "cost": "The drain's ledger: runs, entries charged, tokens, cost and notes, grouped.",
        "queue": "The durable queue of transcripts waiting for the drain, and its dead letters.",
    },
    "search": {
        "search": "Ranked notes: text relevance, then confidence and proof count; live ones unless --all.",
        "recall": "What an agent should know at session start in this project.",
        "reindex": "Bring the derived search index up to date (incremental unless --force).",
    },
    "mcp": {
        "mcp": "Serve search, recall, show, add, confirm and review_list over MCP on stdin/stdout.",
    },
    "serve": {
        "serve": "A local web UI for the KB, its history and team review (Ctrl-C stops it).",
    },
    "ingest": {
        "ingest": "Turn CLAUDE.md, AGENTS.md, .cursorrules, Cursor and Copilot rules into notes.",
    },
    "errors": {
        "errors": "What went wrong, by kind: drain poison, oversized inputs, quota deferrals, hook failures.",
    },
    "rules": {
        "rules": "Enforced rules: what the PreToolUse hook blocks, asks or says.",
    },
}


def summaries() -> dict[str, str]:
    """Every command word -> its summary, in registry order ("" where a line gives none)."""
    out: dict[str, str] = {}
    for words in GROUPS.values():
        if isinstance(words, Mapping):
            out.update(words)
        else:  # a bare tuple of words: still routed; `--help` then asks typer
            out.update(dict.fromkeys(words, ""))
    return out


MODULE_OF = {word: module for module, words in GROUPS.items() for word in words}
ROOT_HELP = "Keep a team's engineering knowledge in git."
PROG = "reflect-git"


def build(word: str | None) -> Any:
    """The root typer app with the group that ``word`` belongs to (every group when unknown)."""
    import typer

    app = typer.Typer(
        # `--install-completion` / `--show-completion` (bash, zsh, fish, PowerShell).
        add_completion=True,
        no_args_is_help=True,
        help=ROOT_HELP,
        context_settings={"help_option_names": list(HELP_OPTIONS)},
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    app.callback()(importlib.import_module("reflectgit.cli.root").main_options)
    module = MODULE_OF.get(word or "")
    names = [module] if module else list(GROUPS)
    for name in names:
        group: typer.Typer = importlib.import_module(f"reflectgit.cli.{name}").commands
        app.registered_commands.extend(group.registered_commands)
        app.registered_groups.extend(group.registered_groups)
    return app


def root_command(word: str | None) -> Any:
    """The click command typer builds from ``build(word)``, its commands in registry order
    (typer would list every plain command before every group)."""
    import typer.main

    command = typer.main.get_command(build(word))
    order = {name: i for i, name in enumerate(MODULE_OF)}
    listed = getattr(command, "commands", None)
    if isinstance(listed, dict):
        ranked = sorted(listed.items(), key=lambda item: order.get(item[0], len(order)))
        listed.clear()
        listed.update(ranked)
    return command


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
        command = root_command(seen.word if seen else None)
        args = hoist_globals(args, command)
        as_json = _wants_json(args)
        seen = peek(args) or seen  # every global option is in front now
        result = command.main(args=args, prog_name=PROG, standalone_mode=False)
        return int(result) if isinstance(result, int) else 0
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
    except (KeyboardInterrupt, Exception) as exc:  # ReflectGitError, a bug, a full disk
        return failed(exc, args, as_json, seen.options.kb if seen else None)


def failed(exc: BaseException, args: Sequence[str], as_json: bool, kb: str | None) -> int:
    """Say what went wrong and return the exit code, for ``run`` and for the fast paths that
    run a command's body without typer: ``error:``/``hint:`` for a ``ReflectGitError`` or a
    full, read-only or forbidden disk; else an internal error, its traceback logged."""
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
