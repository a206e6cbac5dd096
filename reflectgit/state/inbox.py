"""The agent hooks' inbox: every event as it came, appended in one write, read by nobody else.

``<state>/events/inbox.spool`` holds one event a line: the time the hook received it, the
harness it was told, the event name, and the payload's bytes as the harness sent them (a JSON
document; its line breaks, which JSON allows only between tokens, become spaces), separated by
tabs::

    1767225600.123456<TAB>claude<TAB>PostToolUse<TAB>{"session_id": "...", ...}

A hook parses nothing: which session an event belongs to, its privacy cleaning and its caps are
read later, off the agent's path, by ``eventlog.ingest``, which moves the lines into the
sessions' event logs and empties the inbox (the capture pass, the drain and the idle sweep call
it before they read a log). So the inbox holds raw payloads only until the next pass, in the
state directory (mode 0600), as the harness's own transcript holds them.

An append takes the inbox's lock (waiting at most ``wait`` seconds, then ``TimeoutError``),
writes the line with one ``write``, and fsyncs it (and a new inbox's folder), as the queue does.
Only ``os`` is imported (and ``flock``, ``state/files``): this runs inside every
tool call.
"""

from __future__ import annotations

import os

from reflectgit import flock
from reflectgit.state.files import append_lines, fsync_dir

FOLDER = "events"
NAME = "inbox.spool"
MAX_LINE = 8 * 1024 * 1024 + 4096  # the hooks' payload cap, and the line's own fields
_FIELDS = 4


def path(state_dir: str) -> str:
    return os.path.join(state_dir, FOLDER, NAME)


def line(ts: float, harness: str | None, event: str, payload: bytes) -> bytes:
    """One inbox line (newline included). ``ValueError`` when the event or harness name holds a
    tab or a line break (no harness sends one), or the payload is too large."""
    fields = (harness or "", event)
    if any(c in f for f in fields for c in "\t\r\n"):
        raise ValueError("an event or harness name holds a tab or a line break")
    if len(payload) > MAX_LINE:
        raise ValueError(f"a payload of {len(payload)} bytes is larger than {MAX_LINE}")
    body = payload.replace(b"\r", b" ").replace(b"\n", b" ")
    head = f"{ts!r}\t{fields[0]}\t{fields[1]}\t".encode()
    return head + body + b"\n"


def fields(raw: bytes) -> tuple[float, str | None, str, bytes] | None:
    """``(ts, harness or None, event, payload bytes)`` of one inbox line, or None when the line
    is not one (a torn write)."""
    parts = raw.rstrip(b"\n").split(b"\t", _FIELDS - 1)
    if len(parts) != _FIELDS:
        return None
    try:
        ts = float(parts[0])
        harness = parts[1].decode("utf-8")
        event = parts[2].decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    return ts, harness or None, event, parts[3]


def lock(fd: int, wait: float | None) -> None:
    """``flock(fd, LOCK_EX)``, waiting at most ``wait`` seconds (None: as long as it takes);
    ``TimeoutError`` past it."""
    if not flock.hold(fd, wait):
        raise TimeoutError(f"another process has held the event inbox for over {wait:g}s")


def append(state_dir: str, data: bytes, wait: float | None) -> None:
    """Append one line durably (``OSError`` on a full disk, ``TimeoutError`` on a held lock)."""
    where = os.path.join(state_dir, FOLDER)
    target = os.path.join(where, NAME)
    created = not os.path.exists(target)
    if created:
        os.makedirs(where, exist_ok=True)
    fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        lock(fd, wait)
        append_lines(fd, data)
    finally:
        os.close(fd)
    if created:
        fsync_dir(where)
