"""Commits built as objects on a given parent, for a team clone (routing, review approve).

Routing and review never check a branch out: they build a commit on the remote's tip through a
scratch ref that exists only for the duration of ``Store.commit`` and is removed again with its
reflog, then push the commit by sha. These are git-layer operations on a team clone, not KB
mutations (the KB's mutation door is ``reflectgit.workflows.kb.base``); callers validate the
notes they carry before they get here.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable, Sequence
from pathlib import Path

from reflectgit.git.change import Change
from reflectgit.git.repo_info import reflog_dir
from reflectgit.git.store import Store
from reflectgit.notes.messages import CommitMessage

SCRATCH_PREFIX = "reflect-git/scratch/"


def commit_on(
    store: Store,
    changes: Iterable[Change],
    message: CommitMessage | str,
    parent: str | None,
    *,
    extra_parents: Sequence[str] = (),
    scratch: str | None = None,
) -> str | None:
    """Commit ``changes`` on top of ``parent`` as objects; no ref is left behind."""
    name = scratch or f"{SCRATCH_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    try:
        return store.commit(
            changes,
            message,
            branch=name,
            parent=parent,
            extra_parents=extra_parents,
            sync_worktree=False,
        )
    finally:
        drop_scratch_ref(store, name)


def drop_scratch_ref(store: Store, branch: str) -> None:
    """Delete a scratch branch and its reflog (dulwich's ref removal leaves the log file)."""
    store.delete_ref(branch)
    logs = reflog_dir(Path(store.common_dir))
    log = logs / branch
    try:
        log.unlink()
    except OSError:
        return
    folder = log.parent
    while folder != logs and logs in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
