"""Temporary files a dead writer left behind: found by name, age and owner, then removed.

A ``kill -9`` or a full disk in the middle of a write leaves its temporary file: the queue's
``.tmp.<name>.<pid>.<rand>``, our ``tmp_obj_<pid>_*`` / ``tmp_pack_<pid>_*`` / ``tmp_idx_<pid>_*``,
git's own ``tmp_obj_XXXXXX`` / ``tmp_pack_XXXXXX``. One is stale when it is older than
``MAX_AGE`` and the process its name gives is not alive (a name without a pid: age alone,
as ``git prune`` does). A live writer's file is never touched. The KB's are listed by
``Store.temporaries`` (git/ knows where git writes) and judged here.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterable
from pathlib import Path

MAX_AGE = 3600.0  # seconds: no write of ours keeps a temporary file an hour
_PID = re.compile(r"^(?:\.tmp\..*\.|tmp_(?:obj|pack|idx)_)(\d+)[._]")


def pid_alive(pid: int) -> bool:
    """A process with this id exists (ours or another user's)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def owner(name: str) -> int | None:
    """The pid a temporary file's name carries, or None (git's own random names)."""
    match = _PID.match(name)
    return int(match.group(1)) if match else None


def stale(
    paths: Iterable[Path], *, now: float | None = None, max_age: float = MAX_AGE
) -> list[Path]:
    """The paths that are old enough and whose writer is gone."""
    now = time.time() if now is None else now
    out = []
    for path in paths:
        try:
            age = now - path.stat().st_mtime
        except OSError:
            continue
        pid = owner(path.name)
        if pid == os.getpid():
            continue  # a write of this very process
        if age > max_age and (pid is None or not pid_alive(pid)):
            out.append(path)
    return out


def remove(paths: Iterable[Path]) -> int:
    """Unlink each path (one already gone counts as nothing); how many were removed."""
    n = 0
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            n += 1
    return n
