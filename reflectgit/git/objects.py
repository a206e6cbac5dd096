"""Loose objects and refs read straight from a repository's files, without dulwich.

The paths that run on every command (a commit's tree edits, a search against a fresh index)
need a handful of small reads; importing and driving dulwich for them costs more than the work.
Anything these readers cannot answer (a packed object, an odd ref) returns None and the caller
falls back to dulwich or git.
"""

from __future__ import annotations

import contextlib
import zlib
from pathlib import Path


def read_loose(objects_dir: Path, hexsha: str, type_name: bytes) -> bytes | None:
    """The body of a loose object of ``type_name``; None if absent, packed, damaged or another type."""
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
    with contextlib.suppress(FileNotFoundError):
        for line in (common_dir / "packed-refs").read_text(encoding="utf-8").splitlines():
            if line.endswith(" " + ref) and not line.startswith(("#", "^")):
                return line.split(" ", 1)[0]
    return None


def common_dir(git_dir: Path) -> Path:
    """Where refs and objects live: a linked worktree's ``commondir``, else ``git_dir``."""
    try:
        rel = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return git_dir
    return (git_dir / rel).resolve()


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
