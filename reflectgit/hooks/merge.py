"""The merge driver git runs for a note or a sidecar: ``PYTHON -m reflectgit.hooks.merge %O %A %B %L %P``.

Git starts the driver once per file it merges, so git's registration names this entry point of
its own (as the agent hooks name ``reflectgit.hooks.agent``): no command-line parser is built,
the driver's start-up is the merge's cost. ``reflect-git merge-driver`` is the same driver on
the command line (``--help``, ``--json``, a person trying it on three files); it calls ``run``.
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


def main(args: Sequence[str] | None = None) -> int:
    """git's call: ``O A B L P`` (the values of git's five placeholders)."""
    args = list(sys.argv[1:] if args is None else args)
    if len(args) != GIT_ARGS or not args[3].isdigit():
        say(f"error: {WORD}: expected git's five values %O %A %B %L %P, got {len(args)}")
        say(
            "hint: git runs this from merge.reflect-git.driver; by hand, use `reflect-git merge-driver`"
        )
        return 2
    base, ours, theirs, size, path = args
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


if __name__ == "__main__":
    raise SystemExit(main())
