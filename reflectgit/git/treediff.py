"""Which notes changed between two trees, fast, for a folder of 100,000 notes.

A git tree object is a sorted list of ``<mode> <name>\\0<20-byte id>`` entries, so the notes
folder of a large KB is one object of several megabytes. ``git diff-tree`` inflates and parses
both the old and the new one (about 45 ms at 100,000 notes). Here the previous folder tree is
kept, raw, in the state directory (keyed by its id); the new one is inflated once and the two
byte strings are compared: the common prefix and suffix are skipped with ``memcmp``-speed slice
comparisons, and only the entries in between are parsed. Anything unexpected (a packed object
of an unknown shape, a sub-folder that changed, an entry that does not parse) returns None and
the caller falls back to ``git diff-tree``.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from reflectgit.git.objects import read_loose

Change = tuple[str, "str | None", "str | None"]
SMALL = 64 * 1024  # below this, parse both trees whole
CHUNK = 64 * 1024
FILE_MODES = (b"100644", b"100755", b"120000")
_ENTRY = re.compile(rb"(100644|100755|120000|160000|40000) ([^\x00/]+)\x00", re.DOTALL)


def entries(
    raw: bytes, start: int = 0, stop: int | None = None
) -> list[tuple[int, bytes, bytes, bytes]]:
    """Parse tree entries from ``start`` (an entry boundary) up to ``stop``: (offset, mode, name, id)."""
    out = []
    pos = start
    end = len(raw) if stop is None else stop
    while pos < end:
        m = _ENTRY.match(raw, pos)
        if m is None or m.end() + 20 > len(raw):
            raise ValueError(f"not a tree entry at offset {pos}")
        out.append((pos, m.group(1), m.group(2), raw[m.end() : m.end() + 20]))
        pos = m.end() + 20
    return out


def _next(raw: bytes, pos: int) -> int:
    m = _ENTRY.match(raw, pos)
    if m is None or m.end() + 20 > len(raw):
        raise ValueError(f"not a tree entry at offset {pos}")
    return m.end() + 20


def _is_boundary(raw: bytes, pos: int) -> bool:
    if pos != 0 and (pos < 21 or raw[pos - 21] != 0):
        return False
    try:
        probe = pos
        for _ in range(3):  # a false start inside an id would not chain for three entries
            if probe >= len(raw):
                return probe == len(raw)
            probe = _next(raw, probe)
    except ValueError:
        return False
    return True


def _entry_start(raw: bytes, pos: int) -> int:
    """The offset of the entry that contains ``pos`` (entries are at most ~300 bytes)."""
    for candidate in range(min(pos, len(raw)), max(-1, pos - 320), -1):
        if _is_boundary(raw, candidate):
            return candidate
    raise ValueError("no entry boundary found")


def _common_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    lo = 0
    while lo + CHUNK <= n and a[lo : lo + CHUNK] == b[lo : lo + CHUNK]:
        lo += CHUNK
    hi = min(lo + CHUNK, n)
    while lo < hi:  # bisect inside the first differing chunk
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    n = 0
    while (
        n + CHUNK <= limit
        and a[len(a) - n - CHUNK : len(a) - n] == b[len(b) - n - CHUNK : len(b) - n]
    ):
        n += CHUNK
    hi = min(n + CHUNK, limit)
    while n < hi:
        mid = (n + hi + 1) // 2
        if a[len(a) - mid : len(a) - n] == b[len(b) - mid : len(b) - n]:
            n = mid
        else:
            hi = mid - 1
    return n


def diff_raw(old: bytes, new: bytes) -> dict[bytes, tuple[bytes | None, bytes | None]]:
    """Names whose entry differs between two raw trees: name -> ((mode+id) old, new)."""
    if old == new:
        return {}
    if len(old) < SMALL or len(new) < SMALL:
        return _diff_maps(entries(old), entries(new))
    prefix = _common_prefix(old, new)
    suffix = _common_suffix(old, new, min(len(old), len(new)) - prefix)
    start = _entry_start(new, prefix)  # bytes before ``prefix`` are equal: a boundary in both
    old_part: list[tuple[int, bytes, bytes, bytes]] = []
    new_part: list[tuple[int, bytes, bytes, bytes]] = []
    pos_old = _walk(old, start, len(old) - suffix, old_part)
    pos_new = _walk(new, start, len(new) - suffix, new_part)
    # Inside the common suffix, equal distances from the end mean equal entries from there on.
    while len(old) - pos_old != len(new) - pos_new:
        if len(old) - pos_old > len(new) - pos_new:
            pos_old = _walk(old, pos_old, pos_old + 1, old_part)
        else:
            pos_new = _walk(new, pos_new, pos_new + 1, new_part)
    return _diff_maps(old_part, new_part)


def _walk(raw: bytes, pos: int, stop: int, out: list[tuple[int, bytes, bytes, bytes]]) -> int:
    """Parse entries from ``pos`` until at or past ``stop``; return where parsing stopped."""
    while pos < stop:
        m = _ENTRY.match(raw, pos)
        if m is None or m.end() + 20 > len(raw):
            raise ValueError(f"not a tree entry at offset {pos}")
        out.append((pos, m.group(1), m.group(2), raw[m.end() : m.end() + 20]))
        pos = m.end() + 20
    return pos


def _diff_maps(
    old: list[tuple[int, bytes, bytes, bytes]], new: list[tuple[int, bytes, bytes, bytes]]
) -> dict[bytes, tuple[bytes | None, bytes | None]]:
    a = {name: mode + b" " + sha for _, mode, name, sha in old}
    b = {name: mode + b" " + sha for _, mode, name, sha in new}
    return {n: (a.get(n), b.get(n)) for n in a.keys() | b.keys() if a.get(n) != b.get(n)}


def loose_object(objects_dir: Path, sha: str) -> bytes | None:
    """The body of a loose tree object, or None when it is packed (or absent)."""
    return read_loose(objects_dir, sha, b"tree")


# Big trees our own commits wrote, kept raw beside the objects: a 100,000-note folder is a
# 4.5 MB tree whose inflating is most of an index refresh (about 20 ms); reading it raw costs
# 1-2 ms. Named by id, written whole then named, the last few only. A cache: when a tree is
# not here (a commit made by plain git, a fetch), its loose or packed object is read instead.
RAW_TREES_KEPT = 3


def raw_trees_dir(objects_dir: Path) -> Path:
    return objects_dir.parent / "reflect-git" / "raw-trees"


def raw_tree(objects_dir: Path, sha: str) -> bytes | None:
    """A big tree a commit of ours wrote, raw, or else its loose object (None: packed)."""
    with contextlib.suppress(OSError):
        return (raw_trees_dir(objects_dir) / sha).read_bytes()
    return loose_object(objects_dir, sha)


def remember_trees(objects_dir: Path, trees: Iterable[tuple[str, bytes]]) -> None:
    """Keep the big ones of the trees a commit wrote (never fails the commit)."""
    big = [(sha, raw) for sha, raw in trees if len(raw) >= SMALL]
    if not big:
        return
    folder = raw_trees_dir(objects_dir)
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        for sha, raw in big:
            tmp = folder / f"{sha}.{os.getpid()}.tmp"
            tmp.write_bytes(raw)
            os.rename(tmp, folder / sha)
        kept = sorted(
            (p for p in folder.iterdir() if not p.name.endswith(".tmp")),
            key=lambda p: p.stat().st_mtime_ns,
        )
        for old in kept[: max(0, len(kept) - RAW_TREES_KEPT)]:
            with contextlib.suppress(FileNotFoundError):
                old.unlink()


class TreeCache:
    """Raw folder trees of the indexed commit, kept in the state directory, keyed by id."""

    def __init__(self, folder: Path, objects_dir: Path) -> None:
        self.folder = folder
        self.objects_dir = objects_dir

    def _prefix(self, location: str) -> str:
        return f"search.tree.{location.strip('.')}"

    def _path(self, location: str, sha: str) -> Path:
        # Named by the tree's id: a new tree is a new file, never a rename over the old one
        # (ext4 flushes a file renamed over another, about 10 ms for a 4.5 MB tree).
        return self.folder / f"{self._prefix(location)}.{sha}"

    def cached(self, location: str, sha: str) -> bytes | None:
        """The raw tree ``sha`` if it is the one remembered for ``location``, or loose."""
        with contextlib.suppress(OSError):
            return self._path(location, sha).read_bytes()
        return raw_tree(self.objects_dir, sha)

    def keep(self, location: str, sha: str | None, raw: bytes | None) -> None:
        """Remember the raw tree of ``location`` for the next diff (only big ones pay off),
        and forget the one before."""
        keep = None
        if sha is not None and raw is not None and len(raw) >= SMALL:
            keep = self._path(location, sha)
            with contextlib.suppress(OSError):
                if not keep.exists():
                    tmp = keep.with_name(f"{keep.name}.{os.getpid()}.tmp")
                    try:  # the commit kept it raw already: a link costs nothing
                        os.link(raw_trees_dir(self.objects_dir) / sha, tmp)
                    except OSError:
                        tmp.write_bytes(raw)
                    os.rename(tmp, keep)  # written whole, then named: a reader never sees half
        with contextlib.suppress(OSError):
            for old in self.folder.glob(self._prefix(location) + "*"):
                if old != keep and not old.name.endswith(".tmp"):
                    with contextlib.suppress(FileNotFoundError):
                        old.unlink()


def folders(root_raw: bytes, names: tuple[str, ...]) -> dict[str, str]:
    """The tree ids of the named top-level folders of a raw root tree."""
    wanted = {n.encode("utf-8") for n in names}
    return {
        name.decode("utf-8"): sha.hex()
        for _, mode, name, sha in entries(root_raw)
        if name in wanted and mode == b"40000"
    }


def changes(
    cache: TreeCache,
    read: Callable[[str], bytes],
    old_root: str,
    new_root: str,
    names: tuple[str, ...],
) -> tuple[list[Change], dict[str, tuple[str | None, bytes | None]]] | None:
    """(path, old blob, new blob) for files that differ under the named folders, and the new
    raw folder trees to keep; None when this fast path cannot answer (the caller asks git)."""
    old_dirs = folders(read(old_root), names)
    new_dirs = folders(read(new_root), names)
    out: list[Change] = []
    keep: dict[str, tuple[str | None, bytes | None]] = {}
    for name in names:
        old_sha, new_sha = old_dirs.get(name), new_dirs.get(name)
        if old_sha == new_sha:
            continue
        old_raw = cache.cached(name, old_sha) if old_sha else b""
        new_raw = raw_tree(cache.objects_dir, new_sha) if new_sha else b""
        if old_raw is None or new_raw is None:
            return None
        for entry, (before, after) in diff_raw(old_raw, new_raw).items():
            modes = {v.split(b" ", 1)[0] for v in (before, after) if v is not None}
            if not modes <= set(FILE_MODES):
                return None  # a sub-folder changed: git diff-tree recurses for us
            path = f"{name}/{entry.decode('utf-8', 'surrogateescape')}"
            out.append(
                (
                    path,
                    before.split(b" ", 1)[1].hex() if before else None,
                    after.split(b" ", 1)[1].hex() if after else None,
                )
            )
        keep[name] = (new_sha, new_raw if new_sha else None)
    return out, keep
