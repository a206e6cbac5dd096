"""Git tree objects, edited as bytes.

A KB keeps thousands of notes in one folder, so its ``documents`` tree object holds thousands
of entries. Parsing it into Python objects and serialising it again for every one-note commit
is what made a commit slow; here the raw entries are found in one pass, the few changed names
are located by binary search, and the new tree is spliced together from the untouched byte
ranges. Entries follow git's order (a folder sorts as if its name ended in ``/``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

DIR_MODE = 0o040000
FILE_MODE = 0o100644
GITLINK_MODE = 0o160000  # a submodule's commit
SYMLINK_MODE = 0o120000  # a symbolic link: its blob holds the target


@dataclass(frozen=True)
class TreeEntry:
    name: bytes
    mode: int
    sha: bytes  # 20 raw bytes


def sort_key(name: bytes, mode: int) -> bytes:
    """git's tree order: folders compare as if their name ended in '/'."""
    return name + b"/" if mode == DIR_MODE else name


class RawTree:
    """One tree object's bytes, with edits applied on ``serialize``."""

    def __init__(self, raw: bytes = b"") -> None:
        self.raw = raw
        self.starts: list[int] = []
        self.nuls: list[int] = []
        off = 0
        find = raw.find
        size = len(raw)
        while off < size:
            nul = find(b"\x00", off)
            if nul < 0:
                raise ValueError("malformed tree object")
            self.starts.append(off)
            self.nuls.append(nul)
            off = nul + 21
        self._keys: list[bytes | None] = [None] * len(self.starts)
        self._edits: dict[bytes, TreeEntry | None] = {}

    def __len__(self) -> int:
        return len(self.starts)

    def fork(self) -> RawTree:
        """A copy sharing this tree's parsed bytes, with no edits (cached trees stay pristine)."""
        twin = RawTree.__new__(RawTree)
        twin.raw, twin.starts, twin.nuls, twin._keys = self.raw, self.starts, self.nuls, self._keys
        twin._edits = {}
        return twin

    def _entry(self, i: int) -> TreeEntry:
        start, nul = self.starts[i], self.nuls[i]
        space = self.raw.index(b" ", start, nul)
        return TreeEntry(
            name=self.raw[space + 1 : nul],
            mode=int(self.raw[start:space], 8),
            sha=self.raw[nul + 1 : nul + 21],
        )

    def _key(self, i: int) -> bytes:
        key = self._keys[i]
        if key is None:
            entry = self._entry(i)
            key = sort_key(entry.name, entry.mode)
            self._keys[i] = key
        return key

    def _locate(self, name: bytes) -> int | None:
        """Position of the existing entry called ``name`` (file or folder), if any."""
        keys = _LazyKeys(self)
        for key in (name, name + b"/"):
            i = bisect_left(keys, key)
            if i < len(self.starts) and self._key(i) == key:
                return i
        return None

    def get(self, name: bytes) -> TreeEntry | None:
        """The entry called ``name`` (edits included), or None."""
        if name in self._edits:
            return self._edits[name]
        i = self._locate(name)
        return None if i is None else self._entry(i)

    def set(self, name: bytes, mode: int, sha: bytes) -> None:
        self._edits[name] = TreeEntry(name, mode, sha)

    def remove(self, name: bytes) -> None:
        self._edits[name] = None

    def is_empty(self) -> bool:
        removed = sum(
            1 for name, e in self._edits.items() if e is None and self._locate(name) is not None
        )
        added = sum(
            1 for name, e in self._edits.items() if e is not None and self._locate(name) is None
        )
        return len(self.starts) - removed + added == 0

    def serialize(self) -> bytes:
        """The tree's new bytes: untouched ranges copied, edits spliced in order."""
        if not self._edits:
            return self.raw
        drop: AbstractSet[int] = {i for i in map(self._locate, self._edits) if i is not None}
        inserts: list[tuple[bytes, bytes]] = []
        for entry in self._edits.values():
            if entry is not None:
                encoded = b"%o %s\x00%s" % (entry.mode, entry.name, entry.sha)
                inserts.append((sort_key(entry.name, entry.mode), encoded))
        inserts.sort()
        out = bytearray()
        pos = 0  # next original entry to copy
        count = len(self.starts)
        keys = _LazyKeys(self)
        for key, encoded in inserts:
            i = bisect_left(keys, key)
            pos = self._copy(out, pos, i, drop)
            out += encoded
        self._copy(out, pos, count, drop)
        return bytes(out)

    def _copy(self, out: bytearray, start: int, stop: int, drop: AbstractSet[int]) -> int:
        """Copy original entries [start, stop) minus dropped ones; return ``stop``."""
        run_start = start
        for i in sorted(d for d in drop if start <= d < stop):
            if run_start < i:
                out += self.raw[self.starts[run_start] : self.nuls[i - 1] + 21]
            run_start = i + 1
        if run_start < stop:
            out += self.raw[self.starts[run_start] : self.nuls[stop - 1] + 21]
        return max(stop, start)


class _LazyKeys:
    def __init__(self, tree: RawTree) -> None:
        self.tree = tree

    def __len__(self) -> int:
        return len(self.tree.starts)

    def __getitem__(self, i: int) -> bytes:
        return self.tree._key(i)
