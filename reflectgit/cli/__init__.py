"""The command line. ``main(argv) -> int`` is the entry point; the only package that imports typer.

``app.run`` builds the root group, whose commands are registered by name (``app.COMMANDS``) and
imported on demand: only the module of the word being run, one per command group: ``kb``
(init, add ... status), ``validate`` (validate, check), ``team`` (team, route, review),
``capture`` (hooks, capture, hook), ``drain`` (queue, drain, cost), ``search`` (search, recall,
reindex), ``mcp``, ``serve``, ``ingest``, ``errors``, ``rules``. ``render`` prints everything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run reflect-git with ``argv`` (default ``sys.argv[1:]``); return the exit code.

    The ``reflect-git`` console script is ``sys.exit(main())``."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    from reflectgit.cli.app import run

    return run(args)
