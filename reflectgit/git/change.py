"""What a commit changes: new bytes for a path, or its removal.

``write`` and ``delete`` make a ``Change``, the path cleaned and refused when it would leave the
repository or enter ``.git``; ``Store.commit`` takes any number of them, the last change to a
path winning (``dedupe``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reflectgit.errors import ReflectGitError


@dataclass(frozen=True)
class Change:
    """One path change: new bytes for ``path``, or ``data=None`` to delete it."""

    path: str
    data: bytes | None


def write(path: str, data: bytes) -> Change:
    """Write ``data`` at ``path`` (create or replace)."""
    return Change(clean_path(path), data)


def delete(path: str) -> Change:
    """Remove ``path``."""
    return Change(clean_path(path), None)


def clean_path(path: str) -> str:
    """``path`` as git names it (``/`` between parts, no empty or ``.`` part); refused when it
    would leave the repository or enter ``.git``."""
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts) or parts[0] == ".git":
        raise ReflectGitError(f"refusing an unsafe repository path: {path!r}")
    return "/".join(parts)


def dedupe(changes: Iterable[Change]) -> list[Change]:
    """Later changes to the same path win; order otherwise kept."""
    merged: dict[str, Change] = {}
    for change in changes:
        merged.pop(change.path, None)
        merged[change.path] = change
    return list(merged.values())
