"""A session's event record: what happened in an agent session that is not a lesson.

Layout under the state directory::

    sessions/<session>/events.jsonl    one summarized event a line

A finished todo, a test run that started failing, tests that went green again (with the note
that fix gave, or why it gave none): the capture pass (``workflows/capture/events.py``) keeps
them here instead of writing them as notes. The web UI shows a session's record on its session
page; the drain hands it to its writer as context (``workflows/drain/cascade.py``).

A line is ``{"ts", "kind", "key", "summary", ...}``: the event's receive time, its kind, a key
that names it (a replayed event, from a capture pass killed half-way, has the same key and is
not written again), one line a person reads, and the kind's own fields. Every line passes
``privacy.clean_data``. Only the capture pass of the session writes (it holds the session's
pass lock); a record stops growing at ``MAX_BYTES``; ``sweep`` removes records no event has
touched for ``RETENTION`` seconds.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from reflectgit.state.files import fsync_dir, write_all

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

FOLDER = "sessions"
FILE = "events.jsonl"
MAX_BYTES = 512 * 1024
RETENTION = 30 * 24 * 3600.0


def path_of(state_dir: str | Path, session: str) -> str:
    return os.path.join(os.fspath(state_dir), FOLDER, session, FILE)


def read(state_dir: str | Path, session: str) -> list[dict[str, Any]]:
    """The session's events, oldest first (a line that is not a JSON object is passed by)."""
    try:
        with open(path_of(state_dir, session), "rb") as fh:
            data = fh.read()
    except OSError:
        return []
    out = []
    for raw in data.splitlines():
        try:
            doc = json.loads(raw)
        except ValueError:
            continue
        if isinstance(doc, dict) and isinstance(doc.get("kind"), str):
            out.append(doc)
    return out


def append(state_dir: str | Path, session: str, event: Mapping[str, Any]) -> bool:
    """Add one event (``ts``, ``kind``, ``key``, ``summary`` and its fields); False when an
    event with the same key is already there or the record is full."""
    from reflectgit.notes.privacy import clean_data

    key = event.get("key")
    if any(e.get("key") == key for e in read(state_dir, session)):
        return False
    path = path_of(state_dir, session)
    folder = os.path.dirname(path)
    created = not os.path.isdir(folder)
    os.makedirs(folder, exist_ok=True)
    if created:
        fsync_dir(os.path.dirname(folder))
    line = json.dumps(clean_data(dict(event)), ensure_ascii=False, separators=(",", ":"))
    data = line.encode("utf-8") + b"\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        if os.fstat(fd).st_size + len(data) > MAX_BYTES:
            return False
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    return True


def sessions(state_dir: str | Path) -> list[tuple[str, float]]:
    """``(session, time of its last event)`` for every session with a record, newest first."""
    found = []
    try:
        entries = list(os.scandir(os.path.join(os.fspath(state_dir), FOLDER)))
    except OSError:
        return []
    for entry in entries:
        try:
            mtime = os.stat(os.path.join(entry.path, FILE)).st_mtime
        except OSError:
            continue
        found.append((entry.name, mtime))
    return sorted(found, key=lambda item: item[1], reverse=True)


def sweep(state_dir: str | Path, cutoff: float) -> int:
    """Remove the records last written before ``cutoff`` (an epoch time); how many went."""
    removed = 0
    for session, mtime in sessions(state_dir):
        if mtime >= cutoff:
            continue
        path = path_of(state_dir, session)
        try:
            os.unlink(path)
            os.rmdir(os.path.dirname(path))
            removed += 1
        except OSError:
            pass
    return removed
