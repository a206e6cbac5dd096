"""Recalls not yet counted: the line a SessionStart hook appends instead of opening the ranking
counters' database, folded into it by the next process that opens it (``state/ranking.py``).

``<state>/ranking-recalled.log`` holds one recall a line: the time, then the ids it showed,
separated by tabs. A line is appended under the file's lock in one write (not fsynced: the
counters are soft state, as their database is); the ranking database takes the same lock,
counts every whole line and empties the file, so a recall is counted once, and a torn line (a
killed writer) is skipped. Only ``os`` is imported (and ``flock``, ``state/files``): this runs
at every session start.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from reflectgit import flock
from reflectgit.state.files import append_lines

if TYPE_CHECKING:
    from collections.abc import Iterable

NAME = "ranking-recalled.log"
WAIT = 5.0  # seconds a session start waits for the file's lock before it counts nothing


def path(state_dir: str | os.PathLike[str]) -> str:
    return os.path.join(state_dir, NAME)


def line(ts: float, ids: Iterable[str]) -> bytes:
    """One line (newline included); ids holding a tab or a line break are left out (no note
    id does)."""
    fields = [repr(ts), *(i for i in dict.fromkeys(ids) if not set(i) & set("\t\r\n"))]
    return ("\t".join(fields) + "\n").encode("utf-8")


def fields(raw: bytes) -> tuple[float, list[str]] | None:
    """``(ts, ids)`` of one whole line; None for a torn or unreadable one."""
    if not raw.endswith(b"\n"):
        return None
    try:
        ts, *ids = raw[:-1].decode("utf-8").split("\t")
        return float(ts), [i for i in ids if i]
    except ValueError:  # UnicodeDecodeError too
        return None


def append(state_dir: str | os.PathLike[str], ts: float, ids: Iterable[str]) -> None:
    """Append one recall of ``ids`` at ``ts`` (``OSError``, ``TimeoutError`` on a held lock)."""
    os.makedirs(state_dir, exist_ok=True)
    fd = os.open(path(state_dir), os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        if not flock.hold(fd, WAIT):
            raise TimeoutError(f"another process has held {NAME} for over {WAIT:g}s")
        append_lines(fd, line(ts, ids), sync=False)
    finally:
        os.close(fd)


def take(state_dir: str | os.PathLike[str]) -> list[tuple[float, list[str]]]:
    """Every recall appended so far, the file emptied under its lock; [] when there is none.
    The caller counts them before it lets go of them (a crash between loses them: soft state)."""
    try:
        fd = os.open(path(state_dir), os.O_RDWR)
    except FileNotFoundError:
        return []
    try:
        if not flock.hold(fd, WAIT):
            return []  # a writer is stuck: the next opener counts them
        data = b""
        while chunk := os.read(fd, 1 << 16):
            data += chunk
        os.ftruncate(fd, 0)
    finally:
        os.close(fd)
    found = (fields(raw) for raw in data.splitlines(keepends=True))
    return [f for f in found if f is not None]
