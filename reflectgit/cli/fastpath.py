"""A typer-free entry for ``reflect-git search``: the command people run most, kept quick.

Importing typer and building the click group of every command costs about 50 ms, as much as
a search against a fresh index of 100,000 notes. ``try_search`` handles the common forms of
``search`` itself and returns None for anything else (``--help``, ``--at``, an unknown option,
any error), so the full CLI takes over and behaves, and reports, exactly as always. Output is
rendered by the same functions the CLI uses.

``__main__.main`` calls it before importing the CLI; a test checks that both print the same.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

_VALUE_OPTIONS = {"--limit": "limit", "-n": "limit", "--tag": "tag", "--confidence": "confidence"}
_VALUE_OPTIONS["--as-of"] = "as_of"


def try_search(argv: Sequence[str] | None = None) -> int | None:
    """Run ``[--kb P] [--json] [-q] search WORDS [--limit N] [--all] [--tag T] [--confidence X]
    [--as-of D]``; None when the arguments are anything else or the search raises."""
    args = list(sys.argv[1:] if argv is None else argv)
    kb: str | None = None
    as_json = quiet = False
    i = 0
    while i < len(args) and args[i] != "search":
        arg = args[i]
        if arg == "--kb" and i + 1 < len(args):
            kb, i = args[i + 1], i + 2
        elif arg.startswith("--kb="):
            kb, i = arg[len("--kb=") :], i + 1
        elif arg == "--json":
            as_json, i = True, i + 1
        elif arg in ("-q", "--quiet"):
            quiet, i = True, i + 1
        else:
            return None
    if i >= len(args):
        return None
    words: list[str] = []
    options: dict[str, str] = {}
    include_all = False
    rest = args[i + 1 :]
    j = 0
    while j < len(rest):
        arg = rest[j]
        if arg in _VALUE_OPTIONS and j + 1 < len(rest):
            options[_VALUE_OPTIONS[arg]] = rest[j + 1]
            j += 2
        elif arg == "--all":
            include_all, j = True, j + 1
        elif arg.startswith("-"):
            return None  # --help, --at, --opt=value, or a typo: the full CLI explains
        else:
            words.append(arg)
            j += 1
    if not words:
        return None
    limit_text = options.get("limit", "10")
    if not limit_text.isdigit():
        return None
    from reflectgit.config import Config
    from reflectgit.errors import ReflectGitError
    from reflectgit.workflows.search.index import result_json, result_lines, search

    try:
        cfg = Config.resolve(kb)
        result = search(
            cfg.kb,
            cfg.state_dir,
            " ".join(words),
            limit=int(limit_text),
            include_all=include_all,
            tag=options.get("tag"),
            confidence=options.get("confidence"),
            as_of=options.get("as_of"),
            explain=as_json,
            env=cfg.env,
        )
    except (ReflectGitError, Exception):
        # The full CLI redoes the call and reports the error (or logs the bug) its usual way.
        return None
    if as_json:
        sys.stdout.write(json.dumps(result_json(result), indent=2, default=str) + "\n")
    elif not quiet:
        sys.stdout.write("\n".join(result_lines(result, include_all)) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m reflectgit.cli.fastpath ARGS``: the fast path, else the full CLI."""
    code = try_search(argv)
    if code is not None:
        return code
    from reflectgit.cli.app import run

    return run(argv)


if __name__ == "__main__":
    raise SystemExit(main())
