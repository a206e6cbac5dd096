"""Memory slots on disk: ``<state>/slots/<project>.json``, the last session's slots per project.

Written at Stop when ``REFLECT_SLOTS=1`` (``workflows/capture/slots.py``), read by ``recall``
at the next session start. Each write replaces the file atomically; a file that cannot be read
is no slots at all (soft state, never an error).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

SLOTS_DIR = "slots"


def slots_path(state_dir: Path, project: str) -> Path:
    """One file per project; the name is safe whatever the project is called."""
    import hashlib  # only where a slot is read or written (a session start mostly finds none)

    safe = re.sub(r"[^A-Za-z0-9._-]", "_", project)[:60].lstrip(".") or "_"
    digest = hashlib.sha256(project.encode("utf-8")).hexdigest()[:8]
    return Path(state_dir) / SLOTS_DIR / f"{safe}-{digest}.json"


def save(state_dir: Path, project: str, doc: Mapping[str, Any]) -> Path:
    from reflectgit.state.files import atomic_write  # only a Stop that keeps slots needs it

    path = slots_path(state_dir, project)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, (json.dumps(dict(doc), sort_keys=True, indent=1) + "\n").encode("utf-8"))
    return path


def load(state_dir: Path, project: str) -> dict[str, Any] | None:
    """The slots the last session in ``project`` left; None when it left none."""
    if not (Path(state_dir) / SLOTS_DIR).is_dir():
        return None  # no session kept slots here (REFLECT_SLOTS)
    try:
        doc = json.loads(slots_path(state_dir, project).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None
