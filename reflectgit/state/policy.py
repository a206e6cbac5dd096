"""The compiled rules in the state directory: ``policy/rules.json`` and its compile cache.

``rules.json`` holds the rules and the key they were compiled for (the KB's HEAD tree and the
size and mtime of each JSONL policy file); the PreToolUse hook reads only this small file and
compares the key. ``blobs.json`` remembers, per note blob, the rules it carries (most carry
none), so a recompile after a commit reads only the blobs it has not seen. Both are derived:
deleting them costs one compile. ``compile.lock`` lets one process compile (in the background,
``workflows/background.py``) while the hooks answer from what they have.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from reflectgit import jsonio
from reflectgit.state import rulestamp

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import Any

    from reflectgit.notes.policy import Rule

FOLDER = rulestamp.FOLDER
RULES_FILE = rulestamp.RULES_FILE
CACHE_FILE = "blobs.json"
LOCK_FILE = "compile.lock"
WAIT_FILE = "compile.wait"  # held by the one compile waiting for the running one to finish
FORMAT = 1


def folder(state_dir: Path) -> Path:
    return state_dir / FOLDER


def rules_path(state_dir: Path) -> Path:
    return folder(state_dir) / RULES_FILE


def _read_json(path: Path | str) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as fh:
            data = jsonio.loads(fh.read().decode("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("format") == FORMAT else None


def load_rules(state_dir: Path | str) -> dict[str, Any] | None:
    """The compiled document (``key``, ``rules``, ``complete``), or None when absent or
    unreadable."""
    return _read_json(os.path.join(state_dir, FOLDER, RULES_FILE))


def rules_of(doc: Mapping[str, Any]) -> list[Rule]:
    """The rules a compiled document holds."""
    from reflectgit.notes.policy import Rule

    return [Rule.from_json(r) for r in doc.get("rules", []) if isinstance(r, dict)]


def load_cache(state_dir: Path) -> dict[str, Any]:
    """Blob id -> the rules (as JSON) that blob's note carries."""
    data = _read_json(folder(state_dir) / CACHE_FILE)
    blobs = data.get("blobs") if data else None
    return dict(blobs) if isinstance(blobs, dict) else {}


def save(state_dir: Path, document: Mapping[str, Any], cache: Mapping[str, Any]) -> None:
    """Write the compile cache, then the rules (each atomically: a reader sees old or new)."""
    where = folder(state_dir)
    where.mkdir(parents=True, exist_ok=True)
    _write(where / CACHE_FILE, {"format": FORMAT, "blobs": dict(cache)})
    _write(where / RULES_FILE, {"format": FORMAT, **document})


def save_commit(
    state_dir: Path, document: Mapping[str, Any], commit: str, stamp: list[object] | None = None
) -> None:
    """Remember that ``commit`` has the tree the rules were compiled for (another commit with
    the same tree: a merge, an undo), so the next hook need not read the commit object; and
    ``stamp``, what HEAD's files looked like when ``commit`` was read from them
    (``git/headstamp.py``), so the next hook need not read the commit either."""
    data = {**document, "format": FORMAT, "commit": commit, "stamp": stamp}
    try:  # noqa: SIM105 - contextlib is not imported on the hook path
        _write(rules_path(state_dir), data)
    except OSError:
        pass


def _write(path: Path, data: Mapping[str, Any]) -> None:
    from reflectgit.state.files import atomic_write

    text = jsonio.dumps(data, sort_keys=True, separators=(",", ":"))
    atomic_write(path, text.encode("utf-8"))


def compile_lock(state_dir: Path, wait: bool) -> AbstractContextManager[bool]:
    """Hold the compile lock; yields False (without waiting) when another process holds it and
    ``wait`` is False. The lock goes when the process dies. Where no lock file can be made,
    yields True: that process can write nothing either."""
    import contextlib  # only a compile takes the lock

    return contextlib.contextmanager(_compile_lock)(state_dir, wait, LOCK_FILE)


def wait_slot(state_dir: Path) -> AbstractContextManager[bool]:
    """Hold the one place in line behind the running compile; yields False at once when another
    process holds it (that one will compile what this one would: the KB as it is then)."""
    import contextlib

    return contextlib.contextmanager(_compile_lock)(state_dir, False, WAIT_FILE)


def busy(state_dir: Path | str) -> bool:
    """Is a compile running now (another process holds the compile lock)?"""
    from reflectgit import flock

    try:
        fd = os.open(os.path.join(state_dir, FOLDER, LOCK_FILE), os.O_RDWR)
    except OSError:
        return False
    try:
        return not flock.hold(fd, 0)
    finally:
        os.close(fd)


def _compile_lock(state_dir: Path, wait: bool, name: str) -> Iterator[bool]:
    from reflectgit import flock

    where = folder(state_dir)
    try:
        where.mkdir(parents=True, exist_ok=True)
        fd = os.open(where / name, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:  # a read-only state directory: nothing can be written, so nothing races
        yield True
        return
    try:
        if not flock.hold(fd, None if wait else 0):
            yield False
            return
        yield True
    finally:
        os.close(fd)
