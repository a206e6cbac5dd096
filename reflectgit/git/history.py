"""Questions about commit history that need the object graph: merge bases."""

from __future__ import annotations

from typing import Any


def merge_base(store: Any, a: str, b: str) -> str | None:
    """The best common ancestor of two commits in ``store``'s repository; None when unrelated."""
    from dulwich.graph import find_merge_base

    bases = find_merge_base(store.repo, [a.encode("ascii"), b.encode("ascii")])
    return bases[0].decode("ascii") if bases else None
