"""git's automatic housekeeping after our commits, as ``git commit`` runs it.

``git commit`` ends with ``git maintenance run --auto`` (``git gc --auto`` before git 2.29)
unless ``maintenance.auto`` is false; ``gc --auto`` packs the loose objects once git's
estimate passes ``gc.auto`` (0 turns it off). reflect-git's commits are written as objects
directly, so without this a KB written through reflect-git never packs: each ``add`` leaves
about four loose objects behind, and every later git command pays for them.

The mutation door asks ``due`` after a commit (a few small reads: git's own estimate, the
loose objects of ``objects/17`` and the number of packs, against the same settings) and, when
it says yes, starts ``run`` detached (``workflows/background.py``), so no command, hook or
agent waits for a repack. git itself makes the final decision in ``run``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reflectgit.git.run import run as run_git

if TYPE_CHECKING:
    from reflectgit.git.store import Store

GC_AUTO = 6700  # git's defaults
GC_AUTO_PACK_LIMIT = 50
SAMPLE = "17"  # the one fan-out folder git counts to estimate all 256
_HEX = frozenset("0123456789abcdef")


def due(store: Store) -> bool:
    """Would git's automatic maintenance find work after this commit? (Its estimate, read
    cheaply; any scheduled-maintenance setting of the user's leaves the decision to git.)"""
    setting = store.config_value
    if not _true(setting(b"maintenance", b"auto"), default=True):
        return False
    if setting(b"maintenance", b"strategy") is not None or store.maintenance_tasks_enabled():
        return True  # tasks of the user's choosing, each with its own condition: git decides
    limit = _int(setting(b"gc", b"auto"), GC_AUTO)
    if limit <= 0:
        return False
    objects = store.common_dir / "objects"
    if _loose_in(objects / SAMPLE) > -(-limit // 256):
        return True
    pack_limit = _int(setting(b"gc", b"autopacklimit"), GC_AUTO_PACK_LIMIT)
    return pack_limit > 0 and _packs(objects / "pack") > pack_limit


def run(repo: Path, env: Mapping[str, str]) -> None:
    """``git maintenance run --auto``, else (git before 2.29) ``git gc --auto``, in the
    repository at ``repo``: git checks its settings and its estimate again, and packs when
    they say so."""
    result = run_git(["maintenance", "run", "--auto", "--quiet"], cwd=repo, env=env, timeout=None)
    if result.code != 0 and b"is not a git command" in result.stderr:
        run_git(["gc", "--auto", "--quiet"], cwd=repo, env=env, timeout=None)


def _loose_in(folder: Path) -> int:
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    return sum(1 for n in names if len(n) == 38 and set(n) <= _HEX)


def _packs(folder: Path) -> int:
    try:
        names = set(os.listdir(folder))
    except OSError:
        return 0
    return sum(1 for n in names if n.endswith(".pack") and n[:-5] + ".keep" not in names)


def _int(value: str | None, default: int) -> int:
    if value is None:
        return default
    text = value.strip().lower()
    scale = {"k": 1024, "m": 1024**2, "g": 1024**3}.get(text[-1:], 1)
    try:
        return int(text[:-1] if scale > 1 else text) * scale
    except ValueError:
        return default


def _true(value: str | None, *, default: bool) -> bool:
    if value is None:
        return default
    return value.strip().lower() not in ("false", "no", "off", "0")
