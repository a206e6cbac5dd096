"""Objects (loose and packed) and refs read straight from a repository's files, without dulwich.

The paths that run on every command (a commit's tree edits, a search against a fresh index)
need a handful of small reads; importing and driving dulwich for them costs more than the work.
Packs are read as git's documentation describes them (``gitformat-pack``: index version 2, the
four object types, ``OBJ_OFS_DELTA`` and ``OBJ_REF_DELTA``). Anything these readers cannot
answer (an odd ref, an index of another version, a damaged pack) returns None and the caller
falls back to dulwich or git.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where an object is read (a process that reads refs only: none)
    import mmap

TYPE_NAMES = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}
_OFS_DELTA, _REF_DELTA = 6, 7
_IDX_MAGIC = b"\377tOc\x00\x00\x00\x02"
_CHUNK = 65536
_MAX_CHAIN = 1000  # git's own pack.depth ceiling is 4095; deeper than this, ask dulwich


def object_id(type_name: bytes, raw: bytes) -> str:
    """The sha git gives an object of ``type_name`` (b"blob", b"tree", ...) holding ``raw``."""
    import hashlib  # where an object is hashed: reading refs and objects (a hook) needs none

    return hashlib.sha1(b"%s %d\x00" % (type_name, len(raw)) + raw).hexdigest()


def blob_id(data: bytes) -> str:
    """The sha git gives ``data`` as a blob."""
    return object_id(b"blob", data)


def read_loose(objects_dir: Path, hexsha: str, type_name: bytes) -> bytes | None:
    """The body of a loose object of ``type_name``; None if absent, packed, damaged or another type."""
    import zlib

    try:
        data = zlib.decompress((objects_dir / hexsha[:2] / hexsha[2:]).read_bytes())
    except (OSError, zlib.error):
        return None
    head, sep, body = data.partition(b"\x00")
    kind, _, size = head.partition(b" ")
    if not sep or kind != type_name or not size.isdigit() or int(size) != len(body):
        return None
    return body


def read_ref(common_dir: Path, ref: str) -> str | None:
    """The sha a ref names (loose file, symbolic ref or ``packed-refs``), or None."""
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        value = (common_dir / ref).read_text(encoding="utf-8").strip()
        if value.startswith("ref:"):
            return read_ref(common_dir, value[4:].strip())
        return value
    return packed_refs(common_dir).get(ref)


def packed_refs(common_dir: Path) -> dict[str, str]:
    """``packed-refs``: each ref name -> its sha (peeled ``^`` lines and comments skipped)."""
    try:
        text = (common_dir / "packed-refs").read_text(encoding="utf-8", errors="surrogateescape")
        lines = text.splitlines()
    except FileNotFoundError:
        return {}
    found: dict[str, str] = {}
    for line in lines:
        if line and not line.startswith(("#", "^")):
            sha, _, name = line.partition(" ")
            found[name] = sha
    return found


def common_dir(git_dir: Path) -> Path:
    """Where refs and objects live: a linked worktree's ``commondir``, else ``git_dir``."""
    try:
        rel = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return git_dir
    return (git_dir / rel).resolve()


# Refs a linked worktree keeps in its own git directory (``git help worktree``, "REFS"):
# HEAD and the other pseudo refs (no ``refs/`` prefix), and these three families.
_PER_WORKTREE = ("refs/worktree/", "refs/bisect/", "refs/rewritten/")
_MAX_SYMREFS = 5  # git's own SYMREF_MAXDEPTH


def _ref_home(git_dir: Path, common: Path, ref: str) -> Path:
    per_worktree = not ref.startswith("refs/") or ref.startswith(_PER_WORKTREE)
    return git_dir if per_worktree else common


def resolve_ref(git_dir: Path, ref: str) -> tuple[str, str | None] | None:
    """Follow ``ref`` (``HEAD``, say) through its symbolic refs to the ref that names a commit:
    (that ref's name, its sha, or None when it does not exist yet: an unborn branch). A linked
    worktree's own refs are read from its git directory, the rest from ``commondir``. None when
    the files cannot say (a chain deeper than git follows, an unreadable file)."""
    common = common_dir(git_dir)
    packed: dict[str, str] | None = None
    for _ in range(_MAX_SYMREFS):
        try:
            value = (_ref_home(git_dir, common, ref) / ref).read_text(encoding="utf-8").strip()
        except (FileNotFoundError, NotADirectoryError):
            if packed is None:
                packed = packed_refs(common)
            return ref, packed.get(ref)
        except (OSError, ValueError):
            return None
        if not value.startswith("ref:"):
            return ref, value
        ref = value[4:].strip()
    return None


def ref_exists(git_dir: Path, ref: str) -> bool:
    """Is there a ref of this name (a loose file, a symbolic ref or a ``packed-refs`` line)?"""
    home = _ref_home(git_dir, common_dir(git_dir), ref)
    return (home / ref).is_file() or ref in packed_refs(common_dir(git_dir))


def head_commit(git_dir: Path) -> str | None:
    """The commit HEAD names, from the ref files alone (no object read, no git process); None
    on an unborn branch or when the files cannot say (a linked worktree's ``commondir`` is
    followed)."""
    try:
        common = common_dir(git_dir)
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        sha = read_ref(common, head[4:].strip()) if head.startswith("ref:") else head
    except (OSError, ValueError):
        return None
    if not sha or len(sha) not in (40, 64) or any(c not in "0123456789abcdef" for c in sha):
        return None
    return sha


# --------------------------------------------------------------------------- packs


def read_object(objects_dir: Path, hexsha: str, type_name: bytes) -> bytes | None:
    """The body of an object of ``type_name``, loose or packed; None when neither reader can
    answer (absent, another type, damaged, a form this reader does not know)."""
    body = read_loose(objects_dir, hexsha, type_name)
    if body is not None:
        return body
    found = read_packed(objects_dir, bytes.fromhex(hexsha))
    if found is None or found[0] != type_name:
        return None
    return found[1]


def _indexes(objects_dir: Path) -> list[Path]:
    try:
        names = sorted((objects_dir / "pack").glob("pack-*.idx"))
    except OSError:
        return []
    return [p for p in names if p.with_suffix(".pack").exists()]


def packed_offset(idx: Path, sha: bytes) -> int | None:
    """Where the object ``sha`` (20 bytes) starts in the pack of ``idx``; None when that pack
    does not hold it. ``ValueError`` for an index this reader does not know."""
    import mmap
    import struct

    with open(idx, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        if data[:8] != _IDX_MAGIC:
            raise ValueError(f"{idx.name}: not a version 2 pack index")
        first = sha[0]
        lo = struct.unpack_from(">I", data, 8 + 4 * (first - 1))[0] if first else 0
        hi, count = (
            struct.unpack_from(">I", data, 8 + 4 * first)[0],
            struct.unpack_from(">I", data, 8 + 4 * 255)[0],
        )
        base = 8 + 1024
        while lo < hi:
            mid = (lo + hi) // 2
            here = data[base + 20 * mid : base + 20 * mid + 20]
            if here == sha:
                at = base + 24 * count + 4 * mid
                offset = struct.unpack_from(">I", data, at)[0]
                if offset & 0x80000000:
                    large = base + 28 * count + 8 * (offset & 0x7FFFFFFF)
                    offset = struct.unpack_from(">Q", data, large)[0]
                return int(offset)
            if here < sha:
                lo = mid + 1
            else:
                hi = mid
    return None


def has_packed(objects_dir: Path, sha: bytes) -> bool | None:
    """Does a pack of this repository hold ``sha`` (20 bytes)? None when an index cannot be
    read (the caller asks dulwich)."""
    import struct

    try:
        return any(packed_offset(idx, sha) is not None for idx in _indexes(objects_dir))
    except (OSError, ValueError, struct.error):
        return None


def read_packed(objects_dir: Path, sha: bytes) -> tuple[bytes, bytes] | None:
    """(type name, body) of a packed object (deltas resolved); None when no pack holds it or
    the pack cannot be read here."""
    import mmap
    import struct
    import zlib

    try:
        for idx in _indexes(objects_dir):
            offset = packed_offset(idx, sha)
            if offset is not None:
                with (
                    open(idx.with_suffix(".pack"), "rb") as fh,
                    mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as pack,
                ):
                    code, body = _entry(objects_dir, pack, offset, 0)
                return TYPE_NAMES[code], body
    except (OSError, ValueError, KeyError, IndexError, struct.error, zlib.error, RecursionError):
        return None
    return None


def _entry(objects_dir: Path, pack: mmap.mmap, offset: int, depth: int) -> tuple[int, bytes]:
    """(type code, body) of the entry at ``offset``, following its delta chain."""
    if depth > _MAX_CHAIN:
        raise ValueError("delta chain too deep")
    byte = pack[offset]
    code, size, shift, pos = (byte >> 4) & 7, byte & 0x0F, 4, offset + 1
    while byte & 0x80:
        byte = pack[pos]
        size |= (byte & 0x7F) << shift
        shift, pos = shift + 7, pos + 1
    if code == _OFS_DELTA:
        byte = pack[pos]
        back, pos = byte & 0x7F, pos + 1
        while byte & 0x80:
            byte = pack[pos]
            back, pos = ((back + 1) << 7) | (byte & 0x7F), pos + 1
        base_code, base = _entry(objects_dir, pack, offset - back, depth + 1)
        return base_code, _patch(base, _inflate(pack, pos, size))
    if code == _REF_DELTA:
        base_sha = bytes(pack[pos : pos + 20])
        found = read_packed(objects_dir, base_sha)
        if found is None:
            raise ValueError("a delta base outside the packs")
        kind = next(c for c, name in TYPE_NAMES.items() if name == found[0])
        return kind, _patch(found[1], _inflate(pack, pos + 20, size))
    if code not in TYPE_NAMES:
        raise ValueError(f"pack entry type {code}")
    return code, _inflate(pack, pos, size)


def _inflate(pack: mmap.mmap, pos: int, size: int) -> bytes:
    """The zlib stream at ``pos``, fed in chunks (never the rest of the pack at once)."""
    import zlib

    stream = zlib.decompressobj()
    out = []
    view = memoryview(pack)
    try:
        while not stream.eof:
            chunk = view[pos : pos + _CHUNK]
            if not chunk:
                raise ValueError("truncated pack entry")
            out.append(stream.decompress(chunk))
            pos += _CHUNK
    finally:
        view.release()
    body = b"".join(out)
    if len(body) != size:
        raise ValueError("pack entry of the wrong size")
    return body


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        shift, pos = shift + 7, pos + 1
        if not byte & 0x80:
            return value, pos


def _patch(base: bytes, delta: bytes) -> bytes:
    """Apply a git delta (copy and insert instructions) to ``base``."""
    source, pos = _varint(delta, 0)
    target, pos = _varint(delta, pos)
    if source != len(base):
        raise ValueError("delta for another base")
    out = bytearray()
    end = len(delta)
    while pos < end:
        op = delta[pos]
        pos += 1
        if op & 0x80:
            start = length = 0
            for k in range(4):
                if op & (1 << k):
                    start |= delta[pos] << (8 * k)
                    pos += 1
            for k in range(3):
                if op & (0x10 << k):
                    length |= delta[pos] << (8 * k)
                    pos += 1
            out += base[start : start + (length or 0x10000)]
        elif op:
            out += delta[pos : pos + op]
            pos += op
        else:
            raise ValueError("delta opcode 0")
    if len(out) != target:
        raise ValueError("delta result of the wrong size")
    return bytes(out)
