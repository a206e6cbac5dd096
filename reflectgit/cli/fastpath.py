"""Before typer is built: read the global options once, then take the few fast paths.

Importing typer and building the click group costs about 50 ms, as much as a search against a
fresh index of 100,000 notes, and the hooks run on every agent event and every commit. So
``cli.main`` first ``peek``\\ s at argv (the global options as ``options.GLOBAL_OPTIONS``
declares them, then the command word) and:

- ``hook EVENT`` and ``capture commit`` go straight to ``reflectgit.hooks`` (no typer, no
  dulwich);
- ``validate [PATHS] [--format F] [--strict]`` runs ``validate_paths`` here, the body the
  typer command runs too;
- ``add`` and ``recall`` are parsed by ``command_args`` from their tables in ``options``
  (``FAST_COMMANDS``: each flag, its parameter and kind, every default, as the typer command
  declares them) and run their one body, ``cli/bodies.py``, which the typer commands call too;
  errors are reported by ``app.failed``, as ``app.run`` reports them;
- the common forms of ``search`` run here and print through ``render``, the same functions
  the typer command uses; anything else (``--help``, ``--at``, an unknown option, any error)
  returns None and the typer CLI takes over and behaves, and reports, exactly as always.

``app.run`` uses the same ``peek`` to import only the command's module. There is no second
parser: the peek never decides what an argument means differently from typer; when it is not
sure, it steps aside. A test checks that the fast search prints exactly what typer prints.
"""

from __future__ import annotations

import sys

from reflectgit.cli.options import (
    FAST_COMMANDS,
    GLOBAL_OPTIONS,
    HELP_OPTIONS,
    SEARCH_LIMIT,
    SEARCH_OPTIONS,
    VERSION_OPTION,
    FastCommand,
    Globals,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any


class Peek:
    """The global options (before or after the command word), the word, and what follows it.
    (A plain class: a dataclass costs every hook process ``dataclasses`` and ``inspect``.)"""

    def __init__(self, options: Globals, word: str | None, rest: list[str] | None = None) -> None:
        self.options = options
        self.word = word
        self.rest: list[str] = [] if rest is None else rest


def peek(args: Sequence[str]) -> Peek | None:
    """Read the global options, before and after the command word; None for anything typer
    must handle itself (``--version``, ``--help``, an unknown option or a missing value)."""
    found = Globals()
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=")
        spec = GLOBAL_OPTIONS.get(name if eq else arg)
        if spec is None:
            if arg.startswith("-"):
                return None  # --version, --help, or an option typer will explain
            rest = _globals_after(found, arg, list(args[i + 1 :]))
            return None if rest is None else Peek(found, arg, rest)
        attr, takes_value = spec
        if takes_value and eq:
            setattr(found, attr, value)
            i += 1
        elif takes_value:
            if i + 1 >= len(args):
                return None
            setattr(found, attr, args[i + 1])
            i += 2
        elif eq:
            return None
        else:
            setattr(found, attr, True)
            i += 1
    return Peek(found, None)


# The fast-path commands, and their options that take a value (a value is never a global
# option). Only after these words does the peek read global options itself: after any other
# word it cannot know which argument is an option's value (`add --title --json`), so it
# leaves them to ``app.hoist_globals``, which walks typer's own command definitions.
_VALUE_OPTIONS: dict[str, set[str]] = {
    # `--at` is left to typer, but its value must not be read as a global option either
    "search": {flag for flag, (_, takes) in SEARCH_OPTIONS.items() if takes} | {"--at"},
    "hook": {"--harness"},
    "capture": set(),
    "validate": {"--format"},
    **{
        word: {flag for flag, (_, kind) in spec.options.items() if kind != "flag"}
        for word, spec in FAST_COMMANDS.items()
    },
}


def _globals_after(found: Globals, word: str, rest: list[str]) -> list[str] | None:
    """``rest`` without the global options written after the command word (they are read into
    ``found``, as ``app.hoist_globals`` moves them for typer); None when one lacks its value."""
    if word not in _VALUE_OPTIONS:
        return rest
    kept: list[str] = []
    values = _VALUE_OPTIONS[word]
    i = 0
    while i < len(rest):
        arg = rest[i]
        if arg == "--":
            kept.extend(rest[i:])
            break
        name, eq, value = arg.partition("=")
        spec = GLOBAL_OPTIONS.get(name if eq and arg.startswith("--") else arg)
        if spec is None:
            kept.append(arg)
            if arg in values and i + 1 < len(rest):
                kept.append(rest[i + 1])
                i += 1
            i += 1
            continue
        attr, takes_value = spec
        if takes_value and eq:
            setattr(found, attr, value)
        elif takes_value:
            if i + 1 >= len(rest):
                return None
            setattr(found, attr, rest[i + 1])
            i += 1
        elif eq:
            return None
        else:
            setattr(found, attr, True)
        i += 1
    return kept


def try_fast(args: Sequence[str]) -> int | None:
    """Run a hook, a plain search, the root help or ``--version`` without typer; None when the
    typer CLI must run."""
    from reflectgit.config import completion_requested

    if completion_requested():
        return None  # click answers the shell's completion request
    if len(args) <= 1 and (not args or args[0] in HELP_OPTIONS or args[0] == VERSION_OPTION):
        return _root(args)
    seen = peek(args)
    if seen is None or seen.word is None:
        return None
    if any(a in HELP_OPTIONS or a == VERSION_OPTION for a in seen.rest):
        return None
    if seen.word == "hook" and seen.rest:
        from reflectgit.hooks.agent import main as hook_main

        return hook_main(seen.rest, kb=seen.options.kb)
    if seen.word == "capture" and seen.rest[:1] == ["commit"]:
        from reflectgit.hooks.capture import main as capture_main

        return capture_main(seen.rest, kb=seen.options.kb)
    if seen.word == "search":
        return _search(seen)
    if seen.word == "validate":
        return _validate(seen)
    if seen.word in FAST_COMMANDS:
        return _body(seen, args)
    return None


def _root(args: Sequence[str]) -> int | None:
    """``reflect-git``, ``--help``, ``-h``: the page from the registry; ``--version``."""
    from reflectgit import __version__
    from reflectgit.cli import render
    from reflectgit.cli.app import PROG, ROOT_HELP, summaries
    from reflectgit.cli.usage import page

    if args and args[0] == VERSION_OPTION:
        render.echo(f"{PROG} {__version__}")
        return 0
    text = page(PROG, ROOT_HELP, summaries())
    if text is None:
        return None  # a command without a summary in the registry: typer lists them
    render.echo(text)
    return 0


def try_search(argv: Sequence[str] | None = None) -> int | None:
    """``[--kb P] [--json] [-q] search WORDS [--limit N] [--all] [--tag T] [--confidence X]
    [--as-of D]`` without typer; None when the arguments are anything else or the search raises."""
    seen = peek(list(sys.argv[1:] if argv is None else argv))
    if seen is None or seen.word != "search":
        return None
    return _search(seen)


def search_args(rest: Sequence[str]) -> dict[str, Any] | None:
    """The parameters of ``search`` as its typer command would receive them, for the forms
    the fast path runs; None for anything else (``--help``, ``--at``, ``--opt=value``, a typo,
    a bad ``--limit``: the full CLI explains)."""
    words: list[str] = []
    options: dict[str, Any] = {}
    j = 0
    while j < len(rest):
        arg = rest[j]
        name, takes_value = SEARCH_OPTIONS.get(arg, ("", False))
        if name and takes_value and j + 1 < len(rest):
            options[name] = rest[j + 1]
            j += 2
        elif name and not takes_value:
            options[name], j = True, j + 1
        elif arg.startswith("-"):
            return None
        else:
            words.append(arg)
            j += 1
    limit = options.get("limit", str(SEARCH_LIMIT))
    if not words or not limit.isdigit():
        return None
    return {
        "query": words,
        "limit": int(limit),
        "include_all": bool(options.get("include_all", False)),
        "tag": options.get("tag"),
        "confidence": options.get("confidence"),
        "as_of": options.get("as_of"),
    }


def _search(seen: Peek) -> int | None:
    params = search_args(seen.rest)
    if params is None:
        return None
    from reflectgit.cli import render
    from reflectgit.config import Config
    from reflectgit.workflows.search.index import search
    from reflectgit.workflows.search.results import result_json

    g = seen.options
    bar = render.ProgressBar("indexing", sys.stderr.isatty() and not g.quiet)  # a first build
    try:
        cfg = Config.resolve(g.kb)
        result = search(
            cfg.kb,
            cfg.state_dir,
            " ".join(params["query"]),
            limit=params["limit"],
            include_all=params["include_all"],
            tag=params["tag"],
            confidence=params["confidence"],
            as_of=params["as_of"],
            explain=g.json,
            env=cfg.env,
            synonyms_file=cfg.search.synonyms,
            progress=bar,
        )
    except Exception:
        # The full CLI redoes the call and reports the error (or logs the bug) its usual way.
        return None
    finally:
        bar.close()
    if g.json:
        render.write_json(result_json(result))
    elif not g.quiet:
        render.write_lines(render.search_hits(result, params["include_all"]))
    return 0


def command_args(rest: Sequence[str], spec: FastCommand) -> dict[str, Any] | None:
    """The parameters of a ``FAST_COMMANDS`` command as its typer command would receive them;
    None for anything the fast path leaves to typer (``--opt=value``, ``--``, an unknown
    option, a missing value, a number that is not one, a second argument)."""
    params = {k: list(v) if isinstance(v, list) else v for k, v in spec.defaults.items()}
    arguments: list[str] = []
    j = 0
    while j < len(rest):
        arg = rest[j]
        option = spec.options.get(arg)
        if option is None:
            if arg.startswith("-") and arg != "-":
                return None
            arguments.append(arg)
            j += 1
            continue
        name, kind = option
        if kind == "flag":
            params[name] = True
            j += 1
            continue
        if j + 1 >= len(rest):
            return None
        value: Any = rest[j + 1]
        j += 2
        if kind == "int":
            if not value.isdecimal():
                return None
            value = int(value)
        if kind == "multiple":
            params[name].append(value)
        else:
            params[name] = value
    if len(arguments) > (1 if spec.argument else 0):
        return None
    if spec.argument:
        params[spec.argument] = arguments[0] if arguments else None
    return params


def _body(seen: Peek, args: Sequence[str]) -> int | None:
    """``add`` and ``recall`` without typer: their one body (``cli/bodies.py``), the errors
    reported as ``app.run`` reports them (a write is never run twice)."""
    assert seen.word is not None
    params = command_args(seen.rest, FAST_COMMANDS[seen.word])
    if params is None:
        return None
    from reflectgit.cli import bodies, render

    body: Callable[..., None] = bodies.add_note if seen.word == "add" else bodies.recall_notes
    render.begin()
    try:
        body(Context(seen.options), **params)
    except (KeyboardInterrupt, Exception) as exc:  # ReflectGitError, a bug, a full disk
        from reflectgit.cli.app import failed

        return failed(exc, args, seen.options.json, seen.options.kb)
    if seen.word == "add":
        _Ended.add_done = True  # the commit and its report are out: see ``end_now``
    return 0


class _Ended:
    add_done = False  # this process ran a fast ``add`` to its end (never reset: one a process)


def end_now(code: int) -> None:
    """End the process at once, without the interpreter's teardown, after a fast ``add``
    (``scripts/reflect-git``; an in-process ``main`` never comes here). Returns when it may not.

    Tearing down the modules an ``add`` imports, with the collections of the garbage
    collector over them, takes 12 to 15 ms, longer than any step of the add itself; the
    commit, the work tree and the index are on disk by now (every file was written through
    ``with`` and renamed into place) and stdout and stderr are flushed here. It ends only
    when nothing else is waiting for the end: no ``atexit`` callback (coverage, logging,
    ``weakref.finalize``), no other thread, no profiler or tracer; else ``sys.exit`` runs as
    before."""
    import atexit
    import os

    if not _Ended.add_done or sys.getprofile() is not None or sys.gettrace() is not None:
        return
    count = getattr(atexit, "_ncallbacks", None)
    if count is None or count() != 0:
        return
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() != 1:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        return  # a closed pipe, say: sys.exit reports it as it always has
    os._exit(code)


class Context:
    """What a command reads from its typer context, for the fast paths: the root's globals."""

    def __init__(self, options: Globals) -> None:
        self.obj = options

    def find_root(self) -> Context:
        return self


def validate_args(rest: Sequence[str]) -> dict[str, Any] | None:
    """``validate [PATHS...] [--format F] [--strict]`` as its typer command receives them;
    None for anything else (``--help``, ``--format=F``, ``--``, an unknown option)."""
    paths: list[str] = []
    fmt, strict = "text", False
    j = 0
    while j < len(rest):
        arg = rest[j]
        if arg == "--format" and j + 1 < len(rest):
            fmt, j = rest[j + 1], j + 2
        elif arg == "--strict":
            strict, j = True, j + 1
        elif arg.startswith("-") and arg != "-":
            return None
        else:
            paths.append(arg)
            j += 1
    return {"paths": paths, "fmt": fmt, "strict": strict}


def report_format(ctx: Any, fmt: str) -> str:
    """The report format asked for (``--json`` means json); a usage error for an unknown one."""
    from reflectgit.cli.options import fail, globals_of
    from reflectgit.errors import EXIT_USAGE
    from reflectgit.notes.report import FORMATS

    if fmt not in FORMATS:
        fail(f"unknown format {fmt!r}", hint=f"use one of: {', '.join(FORMATS)}", code=EXIT_USAGE)
    return "json" if globals_of(ctx).json else fmt


def validate_paths(ctx: Any, paths: Sequence[str], fmt: str, strict: bool) -> int:
    """``reflect-git validate``: the one body the typer command and the fast path both run.
    Returns the exit code (1 when a file fails)."""
    from reflectgit.cli import render
    from reflectgit.cli.options import kb_folder
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
    return 0 if run.ok else 1


def _validate(seen: Peek) -> int | None:
    params = validate_args(seen.rest)
    if params is None:
        return None
    try:
        return validate_paths(Context(seen.options), **params)
    except Exception:
        return None  # nothing printed yet: the full CLI reports it (or logs the bug) its way


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m reflectgit.cli.fastpath ARGS``: the fast path, else the full CLI."""
    from reflectgit.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
