"""Whether a drain would find anything to do, read with ``os`` alone (no file is parsed):

- a transcript queued (a ``*.json`` in the queue's folder, ``state/queue.py``);
- events no capture pass has handled: the hooks' inbox holds a line (``state/inbox.py``), or a
  session's event log goes past its cursor (``state/eventlog.py``);
- a queue file of the original tool (``pending_reflections.jsonl`` in the state directory or
  ``~/.reflect``) that no drain has imported yet (a drain imports each file once, and records it
  in ``queue/legacy-imported.state``; the file itself is left where it is).

These are the drain's own gates (``workflows/drain/loop.Drain.run``): when none holds, a drain
reports "the queue is empty" and writes nothing. The SessionStart hook starts one only when one
holds (a drain's process costs about ten times the hook's own CPU time).
"""

from __future__ import annotations

import os

from reflectgit.state import eventlog, inbox

QUEUE_DIR = "queue"
LEGACY_FILE = "pending_reflections.jsonl"
LEGACY_MARKER = "legacy-imported.state"


def waiting(state_dir: str | os.PathLike[str], home: str | None) -> bool:
    """Is anything there for a drain: a queued transcript, an unhandled event, a legacy queue?"""
    state = os.fspath(state_dir)
    try:
        with os.scandir(os.path.join(state, QUEUE_DIR)) as found:
            if any(e.name.endswith(".json") for e in found):
                return True
    except FileNotFoundError:
        pass
    except OSError:
        return True  # a folder this cannot read: the drain says why
    try:
        if os.stat(inbox.path(state)).st_size > 0:
            return True
    except FileNotFoundError:
        pass
    except OSError:
        return True
    if eventlog.sessions(state):
        return True
    legacy = [p for p in legacy_paths(state, home) if os.path.exists(p)]
    return bool(legacy) and not set(map(legacy_key, legacy)) <= imported_legacy(state)


def imported_legacy(state_dir: str | os.PathLike[str]) -> set[str]:
    """The legacy queue files a drain has imported (their ``legacy_key``), read from the
    marker in the queue folder; none when it is missing or unreadable (the drain then decides)."""
    from reflectgit import jsonio

    try:
        with open(os.path.join(state_dir, QUEUE_DIR, LEGACY_MARKER), "rb") as f:
            loaded = jsonio.loads(f.read())
    except (OSError, ValueError):
        return set()
    return set(loaded) if isinstance(loaded, dict) else set()


def legacy_key(path: str | os.PathLike[str]) -> str:
    """How the marker names a legacy queue file: its absolute path, as ``Path.absolute`` gives it."""
    from pathlib import Path

    return str(Path(path).absolute())


def legacy_paths(state_dir: str | os.PathLike[str], home: str | None) -> list[str]:
    """Where the original tool kept its queue: the state directory, then ``~/.reflect``."""
    out = [os.path.join(state_dir, LEGACY_FILE)]
    if home:
        out.append(os.path.join(home, ".reflect", LEGACY_FILE))
    return out
