"""Ids that a case-insensitive or normalising checkout would take for one another.

``Foo-1.md`` and ``foo-1.md`` are two files to git and one to macOS and Windows; so are ``é``
composed and decomposed. A new id that shares ``names.id_key`` with an existing one (live,
archived or forgotten) is refused when given, and skipped over when generated.
"""

from __future__ import annotations

from reflectgit.config import ARCHIVED, DOCUMENTS, FORGOTTEN
from reflectgit.errors import RefusedError
from reflectgit.git.store import Store
from reflectgit.notes import names

NOTE_SUFFIX = ".md"


def existing_ids(store: Store, tree: str | None) -> dict[str, str]:
    """``id_key`` -> id (file stem) of every note under ``tree``, in every state."""
    out: dict[str, str] = {}
    if not tree:
        return out
    for folder in (DOCUMENTS, ARCHIVED, FORGOTTEN):
        for path in store.list_tree(tree, folder):
            name = path.rsplit("/", 1)[-1]
            if name.endswith(NOTE_SUFFIX):
                stem = name[: -len(NOTE_SUFFIX)]
                out.setdefault(names.id_key(stem), stem)
    return out


def refuse_clash(ident: str, existing: dict[str, str]) -> None:
    """``RefusedError`` naming the existing id when ``ident`` differs from it only by case or
    Unicode normalisation."""
    other = clash(ident, existing)
    if other is not None:
        raise RefusedError(
            f"the id {ident!r} clashes with the existing note {other!r}: they differ only by "
            "case or Unicode normalisation, and a macOS or Windows checkout holds them as one file",
            hint=f"to change that note, use its id {other!r} (`reflect-git show {other}`); "
            "for a new note, choose another id (or remove `id:` to get one)",
        )


def clash(ident: str, existing: dict[str, str]) -> str | None:
    """The existing id that ``ident`` would clash with, or None (an exact match is no clash)."""
    other = existing.get(names.id_key(ident))
    return other if other is not None and other != ident else None


def clash_reason(ident: str, known: dict[str, str]) -> str | None:
    """For a bulk import: why ``ident`` is skipped (it clashes with an id already in the KB or
    earlier in the import), or None, and then ``ident`` is remembered in ``known``."""
    other = clash(ident, known)
    if other is not None:
        return (
            f"{ident}: clashes with the id {other} (they differ only by case or Unicode "
            "normalisation; a macOS or Windows checkout holds them as one file)"
        )
    known.setdefault(names.id_key(ident), ident)
    return None
