"""Before typer is built: read the global options once, then take the few fast paths.

Importing typer and building the click group costs about 50 ms, as much as a search against a
fresh index of 100,000 notes, and the hooks run on every agent event and every commit. So
``cli.main`` first ``peek``\\ s at argv (the global options as ``options.GLOBAL_OPTIONS``
declares them, then the command word) and:

- ``hook EVENT`` and ``capture commit`` go straight to ``reflectgit.hooks`` (no typer, no
  dulwich);
- the common forms of ``search`` run here and print through ``render``, the same functions
  the typer command uses; anything else (``--help``, ``--at``, an unknown option, any error)
  returns None and the typer CLI takes over and behaves, and reports, exactly as always.

``app.run`` uses the same ``peek`` to import only the command's module. There is no second
parser: the peek never decides what an argument means differently from typer; when it is not
sure, it steps aside. A test checks that the fast search prints exactly what typer prints.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from reflectgit.cli.options import (
    GLOBAL_OPTIONS,
    HELP_OPTIONS,
    SEARCH_LIMIT,
    SEARCH_OPTIONS,
    VERSION_OPTION,
    Globals,
)


@dataclass
class Peek:
    """The global options (before or after the command word), the word, and what follows it."""

    options: Globals
    word: str | None
    rest: list[str] = field(default_factory=list)


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


# Options of the fast-path commands that take a value (their value is never a global option).
_VALUE_OPTIONS = {
    "search": {flag for flag, (_, takes) in SEARCH_OPTIONS.items() if takes},
    "hook": {"--harness"},
}


def _globals_after(found: Globals, word: str, rest: list[str]) -> list[str] | None:
    """``rest`` without the global options written after the command word (they are read into
    ``found``, as ``app.hoist_globals`` moves them for typer); None when one lacks its value."""
    kept: list[str] = []
    values = _VALUE_OPTIONS.get(word, set())
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
    """Run a hook or a plain search without typer; None when the typer CLI must run."""
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
    return None


def try_search(argv: Sequence[str] | None = None) -> int | None:
    """``[--kb P] [--json] [-q] search WORDS [--limit N] [--all] [--tag T] [--confidence X]
    [--as-of D]`` without typer; None when the arguments are anything else or the search raises."""
    seen = peek(list(sys.argv[1:] if argv is None else argv))
    if seen is None or seen.word != "search":
        return None
    return _search(seen)


def _search(seen: Peek) -> int | None:
    words: list[str] = []
    options: dict[str, str] = {}
    include_all = False
    rest = seen.rest
    j = 0
    while j < len(rest):
        arg = rest[j]
        name, takes_value = SEARCH_OPTIONS.get(arg, ("", False))
        if name and takes_value and j + 1 < len(rest):
            options[name] = rest[j + 1]
            j += 2
        elif name and not takes_value:
            include_all, j = True, j + 1
        elif arg.startswith("-"):
            return None  # --help, --at, --opt=value, or a typo: the full CLI explains
        else:
            words.append(arg)
            j += 1
    if not words:
        return None
    limit_text = options.get("limit", str(SEARCH_LIMIT))
    if not limit_text.isdigit():
        return None
    from reflectgit.cli import render
    from reflectgit.config import Config
    from reflectgit.workflows.search.index import result_json, search

    g = seen.options
    bar = render.ProgressBar("indexing", sys.stderr.isatty() and not g.quiet)  # a first build
    try:
        cfg = Config.resolve(g.kb)
        result = search(
            cfg.kb,
            cfg.state_dir,
            " ".join(words),
            limit=int(limit_text),
            include_all=include_all,
            tag=options.get("tag"),
            confidence=options.get("confidence"),
            as_of=options.get("as_of"),
            explain=g.json,
            env=cfg.env,
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
        render.write_lines(render.search_hits(result, include_all))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m reflectgit.cli.fastpath ARGS``: the fast path, else the full CLI."""
    from reflectgit.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
