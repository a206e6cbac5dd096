"""Memory slots (``REFLECT_SLOTS=1``): kept at Stop, shown by ``recall`` at the next start.

``remember`` reads the session's transcript once (``notes/slots.py`` says what fills each
slot), makes the edited files relative to the project, masks secrets and private spans, and
keeps the result per project in the state directory (``state/slots.py``). ``recall_lines``
gives ``recall`` the lines to show; slots older than ``MAX_AGE_DAYS`` are not shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reflectgit.state import slots as slot_files

if TYPE_CHECKING:
    import datetime as dt
    from typing import Any

# The transcript parser and the queue's writer are imported when a session leaves slots, so a
# recall with none costs one failed open (session start is measured, issue 17).

MAX_AGE_DAYS = 14


def _relative(files: list[str], root: str | None) -> list[str]:
    if not root:
        return files
    prefix = root.rstrip("/") + "/"
    return [f[len(prefix) :] if f.startswith(prefix) else f for f in files]


def remember(cap: Any, payload: Mapping[str, Any], session: str, transcript: str) -> str | None:
    """Fill the slots from the transcript at ``transcript``; returns the file written (None
    when the session left nothing to keep)."""
    import datetime as dt

    from reflectgit.git import repo_info
    from reflectgit.notes import slots as slot_notes
    from reflectgit.notes.privacy import clean_data
    from reflectgit.workflows.project import project_name
    from reflectgit.workflows.transcript_file import read_transcript

    t = read_transcript(transcript)
    if t.error:
        return None
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else t.cwd
    project = project_name(cwd, cap.cfg.env) if cwd else None
    if not project:
        return None
    found = slot_notes.extract(t)
    if found.empty:
        return None
    root = repo_info.toplevel(Path(cwd), cap.cfg.env) if cwd and Path(cwd).is_dir() else None
    found.files_touched = _relative(found.files_touched, str(root) if root else cwd)
    doc = {
        "project": project,
        "session_id": session,
        "updated": dt.datetime.fromtimestamp(cap.clock(), dt.timezone.utc).isoformat(),
        **found.to_json(),
    }
    return str(slot_files.save(cap.state_dir, project, clean_data(doc)))


def recall_lines(state_dir: Path, project: str, now: dt.datetime | None = None) -> list[str]:
    """What the last session in ``project`` left: pending items, files, command counts."""
    doc = slot_files.load(state_dir, project)
    if doc is None:
        return []
    import datetime as dt  # a session start that finds no slot file never needs it

    from reflectgit.notes import slots as slot_notes
    from reflectgit.notes.dates import parse_instant

    when = parse_instant(doc["updated"]) if isinstance(doc.get("updated"), str) else None
    now = now or dt.datetime.now(dt.timezone.utc)
    if when is None or (now - when).days > MAX_AGE_DAYS:
        return []
    session = doc.get("session_id") if isinstance(doc.get("session_id"), str) else None
    stamp = when.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return slot_notes.describe(slot_notes.Slots.from_json(doc), stamp, session)
