"""git's own ``core.fsync`` / ``core.fsyncMethod``, for the files we write into a repository.

git flushes only the components ``core.fsync`` names. Unset, it flushes packs and their
metadata (``pack``, ``pack-metadata``, ``commit-graph``) but not loose objects, the index or
refs; ``core.fsyncObjectFiles = true`` (deprecated) adds loose objects. A value is a comma list
read from that default: ``none`` clears it, ``-word`` removes, ``word`` adds, and a word names
every component whose name it starts (git's ``strncmp``); unknown words are ignored. The result
is ``(current & ~removed) | added``. ``core.fsyncMethod``: ``fsync`` (default), ``writeout-only``
and ``batch``; we flush with ``fsync`` for the first and ``batch`` and ``fdatasync`` for
``writeout-only`` (git's weaker page-cache writeout has no Python call; this is stronger).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

LOOSE_OBJECT = "loose-object"
PACK = "pack"
PACK_METADATA = "pack-metadata"
COMMIT_GRAPH = "commit-graph"
INDEX = "index"
REFERENCE = "reference"

# git's fsync_component_names, aggregates included (Documentation/config/core.txt)
_NAMES: dict[str, frozenset[str]] = {
    LOOSE_OBJECT: frozenset({LOOSE_OBJECT}),
    PACK: frozenset({PACK}),
    PACK_METADATA: frozenset({PACK_METADATA}),
    COMMIT_GRAPH: frozenset({COMMIT_GRAPH}),
    INDEX: frozenset({INDEX}),
    REFERENCE: frozenset({REFERENCE}),
    "objects": frozenset({LOOSE_OBJECT, PACK}),
    "derived-metadata": frozenset({PACK_METADATA, COMMIT_GRAPH}),
    "committed": frozenset({LOOSE_OBJECT, PACK, REFERENCE}),
    "added": frozenset({LOOSE_OBJECT, PACK, REFERENCE, INDEX}),
    "all": frozenset({LOOSE_OBJECT, PACK, REFERENCE, INDEX, PACK_METADATA, COMMIT_GRAPH}),
}
DEFAULT = frozenset({PACK, PACK_METADATA, COMMIT_GRAPH})


def components(value: str | None, object_files: bool = False) -> frozenset[str]:
    """The components a ``core.fsync`` value names (None: unset, git's default)."""
    current = set(DEFAULT)
    added: set[str] = set()
    removed: set[str] = set()
    for raw in (value or "").split(","):
        word = raw.strip()
        negated = word.startswith("-")
        word = word[1:] if negated else word
        if not word:
            continue
        if "none".startswith(word):
            current = set()
            continue
        for name, bits in _NAMES.items():
            if name.startswith(word):
                (removed if negated else added).update(bits)
    out = (current - removed) | added
    if object_files:
        out.add(LOOSE_OBJECT)
    return frozenset(out)


@dataclass(frozen=True)
class Policy:
    """What to flush (components) and how (``core.fsyncMethod``)."""

    names: frozenset[str] = DEFAULT
    method: str = "fsync"

    def wants(self, component: str) -> bool:
        return component in self.names

    def flush(self, fd: int, component: str) -> None:
        """Flush ``fd`` when ``component`` is named."""
        if component in self.names:
            _flusher(self.method)(fd)

    def flush_dir(self, path: os.PathLike[str] | str, component: str) -> None:
        """Make a rename into ``path`` durable when ``component`` is named."""
        if component not in self.names:
            return
        fd = os.open(os.fspath(path), os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


GIT_DEFAULT = Policy()


def _flusher(method: str) -> Callable[[int], None]:
    if method == "writeout-only" and hasattr(os, "fdatasync"):
        return os.fdatasync
    return os.fsync


def policy(fsync: str | None, method: str | None, object_files: str | None) -> Policy:
    """The policy from the three config values as git reads them (None when unset)."""
    files = (object_files or "").strip().lower() in {"true", "yes", "on", "1"}
    how = (method or "fsync").strip().lower()
    return Policy(components(fsync, files), how if how else "fsync")
