"""Git pack files, written in one pass: many new objects as one ``.pack`` + ``.idx`` pair.

A bulk import creates thousands of blobs; as loose objects that is thousands of file creations
(the slow part on most file systems). One pack holds them all, as ``git fast-import`` does.
No deltas: notes are small and distinct, and readers do not care. The ``.pack`` lands before
its ``.idx`` (git ignores a pack without an index), both by rename, so a crash leaves either
nothing visible or a complete pack.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path

from reflectgit.git import fsync

TYPE_CODES = {b"commit": 1, b"tree": 2, b"blob": 3, b"tag": 4}
_LARGE = 0x80000000


def _entry_header(code: int, size: int) -> bytes:
    first = (code << 4) | (size & 0x0F)
    size >>= 4
    out = bytearray()
    while size:
        out.append(first | 0x80)
        first = size & 0x7F
        size >>= 7
    out.append(first)
    return bytes(out)


def write_pack(
    pack_dir: Path,
    objects: Iterable[tuple[bytes, bytes, bytes]],
    level: int = 1,
    sync: fsync.Policy = fsync.GIT_DEFAULT,
) -> str | None:
    """Write ``(type_name, raw, sha20)`` objects as one pack; return its name (None if empty).

    The pack and its index are flushed as the repository's ``core.fsync`` says (``pack``,
    ``pack-metadata``; git's default flushes both), before they are renamed into place."""
    unique: dict[bytes, tuple[bytes, bytes]] = {}
    for type_name, raw, sha in objects:
        unique.setdefault(sha, (type_name, raw))
    if not unique:
        return None
    pack_dir.mkdir(parents=True, exist_ok=True)
    body = bytearray(b"PACK" + struct.pack(">II", 2, len(unique)))
    index: list[tuple[bytes, int, int]] = []  # sha, crc32, offset
    for sha, (type_name, raw) in unique.items():
        offset = len(body)
        entry = _entry_header(TYPE_CODES[type_name], len(raw)) + zlib.compress(raw, level)
        body += entry
        index.append((sha, zlib.crc32(entry) & 0xFFFFFFFF, offset))
    pack_sha = hashlib.sha1(body).digest()
    body += pack_sha
    idx = _index_bytes(index, pack_sha)
    name = f"pack-{pack_sha.hex()}"
    tmp_pack = pack_dir / f"tmp_pack_{os.getpid()}_{pack_sha.hex()[:12]}"
    tmp_idx = pack_dir / f"tmp_idx_{os.getpid()}_{pack_sha.hex()[:12]}"
    try:
        _write_file(tmp_pack, bytes(body), lambda fd: sync.flush(fd, fsync.PACK))
        _write_file(tmp_idx, idx, lambda fd: sync.flush(fd, fsync.PACK_METADATA))
        os.replace(tmp_pack, pack_dir / f"{name}.pack")
        os.replace(tmp_idx, pack_dir / f"{name}.idx")
        sync.flush_dir(pack_dir, fsync.PACK)
    except BaseException:
        # A full disk or a kill: leave no half-written temporary file behind (a ``.pack``
        # without its ``.idx`` is ignored by git and harmless).
        for tmp in (tmp_pack, tmp_idx):
            with contextlib.suppress(OSError):
                tmp.unlink()
        raise
    return name


def _index_bytes(entries: list[tuple[bytes, int, int]], pack_sha: bytes) -> bytes:
    """A version 2 pack index."""
    entries = sorted(entries)
    out = bytearray(b"\xfftOc" + struct.pack(">I", 2))
    counts = [0] * 256
    for sha, _crc, _off in entries:
        counts[sha[0]] += 1
    total = 0
    for count in counts:
        total += count
        out += struct.pack(">I", total)
    for sha, _crc, _off in entries:
        out += sha
    for _sha, crc, _off in entries:
        out += struct.pack(">I", crc)
    large: list[int] = []
    for _sha, _crc, off in entries:
        if off < _LARGE:
            out += struct.pack(">I", off)
        else:
            out += struct.pack(">I", _LARGE | len(large))
            large.append(off)
    for off in large:
        out += struct.pack(">Q", off)
    out += pack_sha
    out += hashlib.sha1(out).digest()
    return bytes(out)


def _write_file(path: Path, data: bytes, flush: Callable[[int], None] | None = None) -> None:
    write_all(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o444), data, flush)


def write_all(fd: int, data: bytes, flush: Callable[[int], None] | None = None) -> None:
    """Write every byte to a raw file descriptor, ``flush`` it when given, then close it."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if flush is not None:
            flush(fd)
    finally:
        os.close(fd)
