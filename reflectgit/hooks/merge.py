"""``reflect-git merge-driver %O %A %B %L %P``: what git runs to merge a note or a sidecar.

Git starts the driver once per file it merges, so the command line hands git's exact argument
list here without building its parser (no typer, no rich: the driver's start-up is the merge's
cost); ``reflect-git merge-driver --help`` is the command line's, which calls ``run`` too.
Exit 0 for a clean merge, 1 for a conflict (git's markers left in %A), 2 when the driver could
not merge at all (%A left as it was: git reports the file as conflicted, nothing is lost).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reflectgit.workflows.merging import DriverResult

WORD = "merge-driver"
GIT_ARGS = 5  # %O %A %B %L %P


def is_git_call(args: Sequence[str]) -> bool:
    """``merge-driver`` followed by exactly git's five placeholders' values (no options)."""
    return (
        len(args) == GIT_ARGS + 1
        and args[0] == WORD
        and args[4].isdigit()
        and not any(a.startswith("-") for a in args[1:])
    )


def run(base: str, ours: str, theirs: str, marker_size: int, path: str) -> DriverResult | None:
    """Merge one file as git asked; None (after saying why on stderr) when it could not."""
    from reflectgit.config import environ
    from reflectgit.errors import ReflectGitError
    from reflectgit.workflows.merging import drive

    try:
        return drive(Path(base), Path(ours), Path(theirs), marker_size, path, environ())
    except (ReflectGitError, OSError, ValueError) as exc:
        say(f"error: {WORD}: {path}: {exc}")
        say("hint: resolve the file by hand, then `git add` it")
        return None


def exit_code(result: DriverResult | None) -> int:
    if result is None:
        return 2
    return 0 if result.clean else 1


def main(args: Sequence[str]) -> int:
    """git's call: ``merge-driver O A B L P``."""
    base, ours, theirs, size, path = args[-GIT_ARGS:]
    result = run(base, ours, theirs, int(size), path)
    if result is not None:
        for line in lines(result):
            say(line)
    return exit_code(result)


def lines(result: DriverResult) -> list[str]:
    """What the driver says (git prints it among its own lines): nothing for a clean merge,
    else where the conflict is."""
    if result.clean:
        return []
    head = f"reflect-git merge-driver: {result.path}:"
    if result.kind == "text":
        return [f"{head} does not parse on one side; merged line by line, with conflicts"]
    out = []
    fields = [c for c in result.conflicts if c != "body"]
    if fields:
        out.append(
            f"{head} both sides changed {', '.join(fields)}: conflict markers around "
            f"{'that field' if len(fields) == 1 else 'those fields'}, the rest merged"
        )
    if "body" in result.conflicts:
        out.append(f"{head} both sides changed the same lines of the body")
    out += [f"{head} the merge does not validate: {p}" for p in result.problems]
    return out


def say(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
