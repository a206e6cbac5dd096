"""Read a transcript file from disk into a ``Transcript`` (the parsing is pure, in notes/).

Paths come from hook payloads, so they are not trusted: only regular files are opened (a FIFO
would block the hook forever, ``/dev/zero`` never ends), without blocking on the open, and no
more than a bounded number of bytes is read, however long one line is.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from reflectgit.notes.transcripts import DIALOGUE_CAP, MAX_BYTES, Transcript, parse_lines

SMALL_FILE_CAP = 1024 * 1024  # settings files and the like


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a socket or a directory."""


def open_regular(path: str | Path) -> IO[bytes]:
    """Open ``path`` for reading if it is a regular file; never blocks on the open itself."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(f"not a regular file: {path}")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def is_regular_file(path: str | Path) -> bool:
    """Does ``path`` name a regular file (following symlinks)? Never opens it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_small_file(path: str | Path, cap: int = SMALL_FILE_CAP) -> bytes | None:
    """At most ``cap`` bytes of a regular file; None when it is missing, unreadable, special
    or larger than ``cap``."""
    try:
        with open_regular(path) as fh:
            data = fh.read(cap + 1)
    except (OSError, ValueError):
        return None
    return data if len(data) <= cap else None


def read_transcript(
    path: str | Path,
    *,
    max_dialogue_chars: int = DIALOGUE_CAP,
    max_bytes: int = MAX_BYTES,
) -> Transcript:
    """Read a transcript file; never raises for what the file contains or whether it exists."""
    name = str(path)
    try:
        with open_regular(path) as fh:
            result = parse_lines(
                _bounded_lines(fh, max_bytes), max_dialogue_chars=max_dialogue_chars
            )
    except NotRegularFile:
        return Transcript(path=name, error="unreadable: not a regular file")
    except (OSError, ValueError) as exc:
        return Transcript(path=name, error=f"unreadable: {getattr(exc, 'strerror', None) or exc}")
    result.path = name
    return result


def _bounded_lines(fh: IO[bytes], max_bytes: int) -> Iterator[bytes]:
    """The file's lines, stopping at ``max_bytes`` in all (a longer line is cut there)."""
    total = 0
    while total < max_bytes:
        line = fh.readline(max_bytes - total)
        if not line:
            return
        total += len(line)
        if total >= max_bytes and not line.endswith(b"\n"):
            return  # the cap fell inside this line: a partial record is no record
        yield line
