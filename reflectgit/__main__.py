"""`python -m reflectgit` and the `reflect-git` console script."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def _fast_path(args: list[str]) -> int | None:
    """Hook commands skip the CLI framework: they run on every agent event and every commit."""
    kb = None
    rest = args
    while rest and rest[0].startswith("--kb"):
        if rest[0] == "--kb" and len(rest) > 1:
            kb, rest = rest[1], rest[2:]
        elif rest[0].startswith("--kb="):
            kb, rest = rest[0][len("--kb=") :], rest[1:]
        else:
            return None
    if any(a in ("-h", "--help") for a in rest):
        return None
    if len(rest) >= 2 and rest[0] == "hook":
        from reflectgit.hooks.agent import main as hook_main

        return hook_main(rest[1:], kb=kb)
    if rest[:2] == ["capture", "commit"]:
        from reflectgit.hooks.capture import main as capture_main

        return capture_main(rest[1:], kb=kb)
    if "search" in args[:4]:
        # The command people run most: plain searches skip the CLI framework (~50 ms); any
        # other form (--help, --at, a typo) returns None and the full CLI handles it.
        from reflectgit.cli.fastpath import try_search

        return try_search(args)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    fast = _fast_path(args)
    if fast is not None:
        return fast
    from reflectgit.cli.app import run

    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
