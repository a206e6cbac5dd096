"""The command line. ``main(argv) -> int`` is the entry point; the only package that imports typer.

``main`` peeks at argv (``fastpath``): hook events, commit capture, validate, add, recall and
plain searches run without typer. Everything else goes to ``app.run``, which imports typer and only the module of
the command group the word belongs to: ``kb`` (init, add ... status), ``validate`` (validate,
check), ``team`` (team, route, review), ``capture`` (hooks, capture, hook), ``drain`` (queue,
drain, cost), ``search`` (search, recall, reindex). ``render`` prints everything.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run reflect-git with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    from reflectgit.cli.fastpath import try_fast

    args = list(sys.argv[1:] if argv is None else argv)
    fast = try_fast(args)
    if fast is not None:
        return fast
    from reflectgit.cli.app import run

    return run(args)


def script() -> None:
    """``scripts/reflect-git``: ``sys.exit(main())``, except that a fast ``add`` ends without
    the interpreter's teardown when nothing waits for it (``fastpath.end_now``)."""
    code = main()
    from reflectgit.cli.fastpath import end_now

    end_now(code)
    sys.exit(code)
