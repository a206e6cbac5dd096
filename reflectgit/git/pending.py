"""Is a write interrupted? The names of the two files that say so, and the recovery door for
code that reads a KB without opening a ``Store`` (search, recall).

Its own small module so the readers do not import ``git.worktree`` (the write path's journal,
index lock and checkout: about 10 ms of imports) to make two ``stat`` calls.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

JOURNAL_NAME = "reflect-git-journal.json"
WRITER_NAME = "reflect-git-writer.pid"  # present only while a writer is inside the KB lock


def recover_if_pending(path: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> None:
    """Two ``stat`` calls, and only when a write was interrupted, ``Store.open`` (which
    finishes or rolls it back)."""
    from reflectgit.git.repo_info import repository_dir

    root = Path(path)
    try:
        git_dir = repository_dir(root)
    except (OSError, ValueError):
        return  # an unreadable .git file: opening the KB will say what is wrong
    if (git_dir / JOURNAL_NAME).exists() or (git_dir / WRITER_NAME).exists():
        from reflectgit.git.store import Store  # only now: it imports dulwich

        Store.open(root, env).close()
