"""Ref housekeeping that dulwich leaves undone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reflectgit.git.repo_info import reflog_dir


def drop_branch(store: Any, branch: str) -> None:
    """Delete a (scratch) branch and its reflog (dulwich's ref removal leaves the log file)."""
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
