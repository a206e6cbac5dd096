"""The git index file, patched in place for a few paths.

dulwich reads and rewrites every index entry as Python objects, which costs a quarter of a
second at 10,000 notes. A reflect-git commit touches one to a few paths, so this module finds
the entry boundaries in one cheap pass, binary-searches the sorted entries for the paths it
needs, splices new entries in, invalidates the cache-tree (``TREE``) entries of the touched
folders and keeps every other extension. Versions 2 and 3 are handled; anything else (version 4
path compression, split or sparse indexes) is reported as unsupported so the caller can fall
back to dulwich.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_HEADER = struct.Struct(">4sII")
_STAT = struct.Struct(">10I")
_EXTENDED = 0x4000
_NAME_MASK = 0x0FFF
_UNSUPPORTED_EXTENSIONS = {b"link", b"sdir"}


class UnsupportedIndex(Exception):
    """The index uses a format this patcher does not rewrite."""


class IndexLocked(Exception):
    """``index.lock`` exists: another git process is updating the index."""


@dataclass(frozen=True)
class Entry:
    """What the dirty check needs from one stage-0 entry."""

    sha: str
    mode: int
    size: int
    mtime_s: int
    mtime_ns: int
    stage: int


class IndexFile:
    """A parsed-on-demand index: entry offsets, lazily read names, pending edits."""

    def __init__(self, path: Path, data: bytes) -> None:
        self.path = path
        self.data = data
        self.version = 2
        self.offsets: list[int] = []
        self.ends: list[int] = []
        self.extensions: list[tuple[bytes, bytes]] = []
        self._names: list[bytes | None] = []
        self._edits: dict[bytes, bytes | None] = {}
        if data:
            self._parse()

    @classmethod
    def read(cls, path: Path) -> IndexFile:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = b""
        return cls(path, data)

    # ------------------------------------------------------------------ parsing

    def _parse(self) -> None:
        data = self.data
        if len(data) < 32:
            raise UnsupportedIndex("index too short")
        sig, version, count = _HEADER.unpack_from(data, 0)
        if sig != b"DIRC" or version not in (2, 3):
            raise UnsupportedIndex(f"index version {version}")
        self.version = version
        offsets = self.offsets
        ends = self.ends
        off = 12
        find = data.find
        for _ in range(count):
            flags = (data[off + 60] << 8) | data[off + 61]
            name_start = off + 62 + (2 if flags & _EXTENDED and version >= 3 else 0)
            namelen = flags & _NAME_MASK
            name_end = find(b"\x00", name_start) if namelen == _NAME_MASK else name_start + namelen
            offsets.append(off)
            ends.append(name_end)
            off += (name_end - off + 8) & ~7
        self._names = [None] * count
        limit = len(data) - 20
        while off + 8 <= limit:
            sig = data[off : off + 4]
            (size,) = struct.unpack_from(">I", data, off + 4)
            if sig in _UNSUPPORTED_EXTENSIONS:
                raise UnsupportedIndex(f"index extension {sig.decode(errors='replace')}")
            self.extensions.append((sig, data[off + 8 : off + 8 + size]))
            off += 8 + size
        if hashlib.sha1(data[:-20]).digest() != data[-20:]:
            raise UnsupportedIndex("index checksum mismatch")

    def _name(self, i: int) -> bytes:
        name = self._names[i]
        if name is None:
            off = self.offsets[i]
            flags = (self.data[off + 60] << 8) | self.data[off + 61]
            start = off + 62 + (2 if flags & _EXTENDED and self.version >= 3 else 0)
            name = self.data[start : self.ends[i]]
            self._names[i] = name
        return name

    def _find(self, raw: bytes) -> int:
        """Index of the first entry whose name is >= ``raw`` (binary search, lazy names)."""
        return bisect_left(_LazyNames(self), raw)

    @property
    def mtime_ns(self) -> int:
        """When the index file was last written (for git's racy-clean rule)."""
        try:
            return self.path.stat().st_mtime_ns
        except FileNotFoundError:
            return 0

    # ------------------------------------------------------------------ queries

    def get(self, path: str) -> Entry | None:
        """The stage-0 entry at ``path`` (pending edits included), or None."""
        raw = path.encode("utf-8")
        if raw in self._edits:
            blob = self._edits[raw]
            return None if blob is None else _decode_entry(blob, 0)
        i = self._find(raw)
        if i < len(self.offsets) and self._name(i) == raw:
            return _decode_entry(self.data, self.offsets[i])
        return None

    def has_conflicts(self, path: str) -> bool:
        entry = self.get(path)
        return entry is not None and entry.stage != 0

    # ------------------------------------------------------------------ edits

    def set(self, path: str, st: os.stat_result, sha_hex: str, mode: int = 0o100644) -> None:
        raw = path.encode("utf-8")
        self._edits[raw] = _encode_entry(raw, st, bytes.fromhex(sha_hex), mode)

    def remove(self, path: str) -> None:
        self._edits[path.encode("utf-8")] = None

    def write(self, reparse: bool = True) -> None:
        """Write the patched index through git's ``index.lock`` protocol.

        ``reparse=False`` is for a caller that is done with this object (a one-shot commit):
        it skips re-reading the new bytes, which costs most at 100,000 entries.
        """
        if not self._edits:
            return
        out = bytearray()
        count = len(self.offsets)
        pos = 0  # next unread entry index
        kept = 0
        body = bytearray()
        for raw in sorted(self._edits):
            i = self._find(raw)
            if pos < i:
                start = self.offsets[pos]
                end = self.offsets[i] if i < count else self._entries_end()
                body += self.data[start:end]
                kept += i - pos
                pos = i
            # Drop every existing entry for this path (all stages).
            while pos < count and self._name(pos) == raw:
                pos += 1
            new = self._edits[raw]
            if new is not None:
                body += new
                kept += 1
        if pos < count:
            body += self.data[self.offsets[pos] : self._entries_end()]
            kept += count - pos
        out += _HEADER.pack(b"DIRC", self.version if self.data else 2, kept)
        out += body
        touched = [raw for raw in self._edits]
        for sig, ext in self.extensions:
            if sig == b"TREE":
                patched = _invalidate_tree(ext, touched)
                if patched is None:
                    continue  # unreadable cache-tree: drop it, git rebuilds it
                ext = patched
            out += sig + struct.pack(">I", len(ext)) + ext
        out += hashlib.sha1(out).digest()
        lock = self.path.with_name(self.path.name + ".lock")
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            raise IndexLocked(str(lock)) from None
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(out)
            os.replace(lock, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(lock)
            raise
        self._edits.clear()
        self.offsets, self.ends, self.extensions = [], [], []
        self.data = bytes(out) if reparse else b""
        self._names = []
        if reparse:
            self._parse()

    def _entries_end(self) -> int:
        if not self.offsets:
            return 12
        last = self.offsets[-1]
        return last + ((self.ends[-1] - last + 8) & ~7)


class _LazyNames:
    """A sequence view of entry names that reads each name only when bisect asks for it."""

    def __init__(self, index: IndexFile) -> None:
        self.index = index

    def __len__(self) -> int:
        return len(self.index.offsets)

    def __getitem__(self, i: int) -> bytes:
        return self.index._name(i)


def _decode_entry(data: bytes, off: int) -> Entry:
    fields = _STAT.unpack_from(data, off)
    sha = data[off + 40 : off + 60].hex()
    flags = (data[off + 60] << 8) | data[off + 61]
    return Entry(
        sha=sha,
        mode=fields[6],
        size=fields[9],
        mtime_s=fields[2],
        mtime_ns=fields[3],
        stage=(flags >> 12) & 0x3,
    )


def _encode_entry(raw: bytes, st: os.stat_result, sha: bytes, mode: int) -> bytes:
    m = 0xFFFFFFFF
    head = _STAT.pack(
        int(st.st_ctime) & m,
        st.st_ctime_ns % 1_000_000_000,
        int(st.st_mtime) & m,
        st.st_mtime_ns % 1_000_000_000,
        st.st_dev & m,
        st.st_ino & m,
        mode,
        st.st_uid & m,
        st.st_gid & m,
        st.st_size & m,
    )
    flags = min(len(raw), _NAME_MASK)
    entry = head + sha + struct.pack(">H", flags) + raw
    return entry + b"\x00" * (8 - (len(entry) % 8))


def _invalidate_tree(ext: bytes, touched: Iterable[bytes]) -> bytes | None:
    """Mark the cache-tree entries of every folder above a touched path as invalid."""
    dirs: set[bytes] = {b""}
    for raw in touched:
        parts = raw.split(b"/")[:-1]
        for n in range(1, len(parts) + 1):
            dirs.add(b"/".join(parts[:n]))
    out = bytearray()
    pos = 0

    def walk(prefix: bytes) -> bool:
        nonlocal pos
        end = ext.find(b"\x00", pos)
        if end < 0:
            return False
        name = ext[pos:end]
        nl = ext.find(b"\n", end)
        if nl < 0:
            return False
        try:
            count_s, sub_s = ext[end + 1 : nl].split(b" ")
            count, subtrees = int(count_s), int(sub_s)
        except ValueError:
            return False
        pos = nl + 1
        path = name if not prefix else prefix + b"/" + name
        if prefix == b"" and name == b"":
            path = b""
        has_sha = count >= 0
        sha = ext[pos : pos + 20] if has_sha else b""
        if has_sha:
            pos += 20
        if path in dirs:
            out.extend(name + b"\x00-1 " + str(subtrees).encode() + b"\n")
        else:
            out.extend(name + b"\x00" + count_s + b" " + sub_s + b"\n" + sha)
        return all(walk(path) for _ in range(subtrees))

    try:
        if not walk(b"") or pos != len(ext):
            return None
    except (IndexError, ValueError):
        return None
    return bytes(out)
