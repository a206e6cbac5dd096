"""Whether a drain would find anything to do, read with ``os`` alone (no file is parsed):

- a transcript queued (a ``*.json`` in the queue's folder, ``state/queue.py``);
- events no capture pass has handled: the hooks' inbox holds a line (``state/inbox.py``), or a
  session's event log goes past its cursor (``state/eventlog.py``);
- a queue file of the original tool (``pending_reflections.jsonl`` in the state directory or
  ``~/.reflect``), which a drain imports.

These are the drain's own gates (``workflows/drain/loop.Drain.run``): when none holds, a drain
reports "the queue is empty" and writes nothing. The SessionStart hook starts one only when one
holds (a drain's process costs about ten times the hook's own CPU time).
"""

from __future__ import annotations

import os

from reflectgit.state import eventlog, inbox

QUEUE_DIR = "queue"
LEGACY_FILE = "pending_reflections.jsonl"


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
    return any(os.path.exists(p) for p in legacy_paths(state, home))


def legacy_paths(state_dir: str | os.PathLike[str], home: str | None) -> list[str]:
    """Where the original tool kept its queue: the state directory, then ``~/.reflect``."""
    out = [os.path.join(state_dir, LEGACY_FILE)]
    if home:
        out.append(os.path.join(home, ".reflect", LEGACY_FILE))
    return out
