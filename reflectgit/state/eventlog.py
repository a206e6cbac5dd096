"""The sessions' event logs: one JSON-lines file per session, and how far the pass has read.

Layout under the state directory::

    events/inbox.spool        every event as the hooks received it (``state/inbox.py``)
    events/<session>.jsonl    one event a line, moved there from the inbox by ``ingest``
    events/<session>.cursor   the byte offset up to which the capture pass has handled events
    events/<session>.pass     the lock one capture pass of the session holds

An agent hook appends its event to the inbox and returns (``hooks/agent.py``); the capture pass
(``workflows/capture/sessionpass.py``) moves the inbox here (``ingest``), then reads the events
after the cursor, in order, and moves
the cursor past each one only once it is handled, so a pass killed half-way loses no event (the
next pass handles the last one again). A line is ``{"ts", "harness", "event", "payload"}``:
the time the hook received the event (the detectors' clock), the harness the hook was told
(``--harness``, or None), the event name as the harness gave it, and the payload with every
string cut to its last ``STRING_CAP`` characters and passed through ``privacy.clean_data``.

Appends take an exclusive lock on the log file, waiting at most the caller's bound; lines are
written with one ``write``, then fsynced (a new file's folder too), as the queue does. When the
pass has handled every line, it retires the log (cursor first, then the log, under the same
lock): a session's file holds only the events no pass has handled yet.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from reflectgit.state.files import append_lines, fsync_dir

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import Any

    Acquire = Callable[[int, str], None]

FOLDER = "events"
LOG_SUFFIX = ".jsonl"
CURSOR_SUFFIX = ".cursor"
PASS_SUFFIX = ".pass"
# The log of events that name no usable session (a session id never starts with "_").
UNSESSIONED = "_unsessioned"
# How a lock is taken: ``acquire(fd, what)`` takes ``flock(fd, LOCK_EX)`` or raises when it
# waited too long; the caller's (``git/lockwait.take``: the bound a hook set, else no bound).
STRING_CAP = 256 * 1024  # of any one string in a payload: the tail (what the test parsers read)
LINE_CAP = 8 * 1024 * 1024  # a longer line is not written (the hook's payload cap)


# A session id is ``^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`` (checked by hand: every event checks
# one; tests/workflows/capture/test_capture_ids.py holds it to the pattern). It names the log.
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_SESSION_CHARS = _ALNUM | frozenset("._:-")


def safe_session(value: object) -> str | None:
    """A session id usable in a file name, or None."""
    if not isinstance(value, str):
        return None
    body = value[:-1] if value.endswith("\n") else value  # ``$`` matches before a last newline
    if 0 < len(body) <= 128 and body[0] in _ALNUM and _SESSION_CHARS.issuperset(body):
        return value
    return None


def folder(state_dir: str | Path) -> str:
    return os.path.join(os.fspath(state_dir), FOLDER)


def log_path(state_dir: str | Path, session: str) -> str:
    return os.path.join(folder(state_dir), session + LOG_SUFFIX)


def _cursor_path(state_dir: str | Path, session: str) -> str:
    return os.path.join(folder(state_dir), session + CURSOR_SUFFIX)


def session_of(payload: Mapping[str, Any]) -> str | None:
    """The session whose log an event goes to (Codex ``notify``: its thread), or None."""
    for key in ("session_id", "sessionId", "thread-id", "thread_id"):
        value = payload.get(key)
        if value not in (None, ""):
            return safe_session(value)
    return None


def ingest(state_dir: str | Path, acquire: Acquire) -> tuple[int, list[str]]:
    """Move the hooks' inbox (``state/inbox.py``) into the sessions' logs, in the order the
    events came, each line made by ``record``, and empty it: ``(events moved, why each line that
    could not be moved was dropped)``. Under the inbox's lock, taken with ``acquire``; a crash
    before the inbox is emptied moves its events again (at least once, as the pass reads)."""
    from reflectgit.notes.harness import HARNESSES
    from reflectgit.state import inbox

    try:
        fd = os.open(inbox.path(os.fspath(state_dir)), os.O_RDWR)
    except FileNotFoundError:
        return 0, []
    try:
        acquire(fd, "the agent hooks' event inbox")
        data = _read_all(fd)
        if not data:
            return 0, []
        batches: dict[str, list[bytes]] = {}
        last: dict[str, float] = {}
        dropped: list[str] = []
        for raw in data.splitlines(keepends=True):
            fields = inbox.fields(raw) if raw.endswith(b"\n") else None
            if fields is None:
                dropped.append("a torn line of the inbox")
                continue
            ts, harness, event, body = fields
            try:
                payload = json.loads(body)
            except (ValueError, RecursionError):
                payload = None
            if not isinstance(payload, dict):
                dropped.append(f"{event or '?'}: the payload is not a JSON object")
                continue
            who = harness.lower() if harness and harness.lower() in HARNESSES else None
            line = record(ts, who, event, payload)
            if len(line) > LINE_CAP:
                dropped.append(f"{event}: an event of {len(line)} bytes is larger than {LINE_CAP}")
                continue
            session = session_of(payload) or UNSESSIONED
            batches.setdefault(session, []).append(line)
            last[session] = ts
        for session, lines in batches.items():
            append(state_dir, session, b"".join(lines), acquire)
            # the log's time is its last event's, as when the hooks wrote it (the idle sweep's
            # "quiet" reads it)
            os.utime(log_path(state_dir, session), (last[session], last[session]))
        os.ftruncate(fd, 0)
        os.fsync(fd)
        return sum(map(len, batches.values())), dropped
    finally:
        os.close(fd)


def _read_all(fd: int) -> bytes:
    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def capped(value: Any) -> Any:
    """``value`` with every string longer than ``STRING_CAP`` cut to its tail."""
    if isinstance(value, str):
        return value if len(value) <= STRING_CAP else value[-STRING_CAP:]
    if isinstance(value, dict):
        return {k: capped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [capped(v) for v in value]
    return value


def record(ts: float, harness: str | None, event: str, payload: Mapping[str, Any]) -> bytes:
    """One log line (newline included): the payload capped and cleaned."""
    from reflectgit.notes.privacy import clean_data

    doc = {
        "ts": ts,
        "harness": harness,
        "event": event,
        "payload": clean_data(capped(dict(payload))),
    }
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def append(state_dir: str | Path, session: str, line: bytes, acquire: Acquire) -> None:
    """Append whole lines to the session's log, durably, under the lock ``acquire`` takes
    (it raises when it waited too long); ``OSError`` on a full disk."""
    where = folder(state_dir)
    path = log_path(state_dir, session)
    os.makedirs(where, exist_ok=True)
    while True:
        created = not os.path.exists(path)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            acquire(fd, f"the event log of session {session}")
            if not _same_file(fd, path):  # retired while we waited: append to the new one
                continue
            append_lines(fd, line)
        finally:
            os.close(fd)
        if created:
            fsync_dir(where)
        return


def _same_file(fd: int, path: str) -> bool:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)


def cursor(state_dir: str | Path, session: str) -> int:
    """The offset up to which events were handled (0 when none were)."""
    try:
        with open(_cursor_path(state_dir, session), encoding="ascii") as fh:
            value = int(fh.read().strip() or 0)
    except (OSError, ValueError):
        return 0
    return max(value, 0)


def advance(state_dir: str | Path, session: str, offset: int) -> None:
    """Record that every event before ``offset`` is handled (atomically, fsynced)."""
    from pathlib import Path

    from reflectgit.state.files import atomic_write

    atomic_write(Path(_cursor_path(state_dir, session)), f"{offset}\n".encode("ascii"))


def events(state_dir: str | Path, session: str, offset: int) -> Iterator[tuple[int, Any]]:
    """``(end offset, record)`` for each whole line after ``offset``; the record is None for a
    line that is not a JSON object (a torn write). A last line without its newline is still
    being written (or was torn): it is not read yet."""
    try:
        with open(log_path(state_dir, session), "rb") as fh:
            fh.seek(offset)
            data = fh.read()
    except FileNotFoundError:
        return
    end = data.rfind(b"\n")
    position = offset
    for raw in data[: end + 1].splitlines(keepends=True) if end >= 0 else []:
        position += len(raw)
        try:
            doc = json.loads(raw)
        except ValueError:
            doc = None
        yield position, doc if isinstance(doc, dict) and isinstance(doc.get("event"), str) else None


def pending(state_dir: str | Path, session: str) -> bool:
    """Does the session's log hold events no pass has handled?"""
    try:
        size = os.stat(log_path(state_dir, session)).st_size
    except OSError:
        return False
    return size > cursor(state_dir, session)


def sessions(state_dir: str | Path, quiet: float = 0.0, now: float | None = None) -> list[str]:
    """The sessions with unhandled events, oldest log first; ``quiet``: only those whose log
    was last appended at least that many seconds before ``now``."""
    import time

    now = time.time() if now is None else now
    found: list[tuple[float, str]] = []
    try:
        entries = list(os.scandir(folder(state_dir)))
    except OSError:
        return []
    for entry in entries:
        if not entry.name.endswith(LOG_SUFFIX):
            continue
        session = entry.name[: -len(LOG_SUFFIX)]
        try:
            mtime = entry.stat().st_mtime
        except OSError:
            continue
        if now - mtime >= quiet and pending(state_dir, session):
            found.append((mtime, session))
    return [s for _, s in sorted(found)]


def retire(state_dir: str | Path, session: str, acquire: Acquire) -> bool:
    """Remove the log (and its cursor) when every event in it is handled; False when events
    came in meanwhile. The cursor goes first: a crash in between replays handled events, it
    never skips one."""
    path = log_path(state_dir, session)
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return True
    try:
        acquire(fd, f"the event log of session {session}")
        if not _same_file(fd, path) or os.fstat(fd).st_size != cursor(state_dir, session):
            return False
        for name in (_cursor_path(state_dir, session), path):
            try:  # noqa: SIM105
                os.unlink(name)
            except FileNotFoundError:
                pass
        return True
    finally:
        os.close(fd)


def pass_lock(
    state_dir: str | Path, session: str, acquire: Acquire | None
) -> AbstractContextManager[bool]:
    """Hold the session's pass lock; yields False at once when another pass holds it and
    ``acquire`` is None (else it waits as ``acquire`` does). Released if we die."""
    import contextlib

    return contextlib.contextmanager(_pass_lock)(state_dir, session, acquire)


def _pass_lock(state_dir: str | Path, session: str, acquire: Acquire | None) -> Iterator[bool]:
    from reflectgit import flock

    os.makedirs(folder(state_dir), exist_ok=True)
    path = os.path.join(folder(state_dir), session + PASS_SUFFIX)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if acquire is not None:
            acquire(fd, f"the capture pass of session {session}")
        elif not flock.hold(fd, 0):
            yield False
            return
        yield True
    finally:
        os.close(fd)


def busy(state_dir: str | Path, session: str) -> bool:
    """Is a pass of this session running now?"""
    with pass_lock(state_dir, session, None) as held:
        return not held


def sweep(state_dir: str | Path, cutoff: float) -> int:
    """Remove the pass locks of sessions whose log is gone and that no pass has taken since
    ``cutoff`` (an epoch time); returns how many went."""
    removed = 0
    try:
        names = os.listdir(folder(state_dir))
    except OSError:
        return 0
    for name in names:
        if not name.endswith(PASS_SUFFIX):
            continue
        session = name[: -len(PASS_SUFFIX)]
        path = os.path.join(folder(state_dir), name)
        try:
            if os.path.exists(log_path(state_dir, session)) or os.stat(path).st_mtime >= cutoff:
                continue
            with pass_lock(state_dir, session, None) as held:
                if held:  # no pass runs now (one that did would have its lock back)
                    os.unlink(path)
                    removed += 1
        except OSError:
            pass
    return removed
