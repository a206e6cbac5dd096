"""Ids that a case-insensitive or normalising checkout, or a person, would take for one another.

``Foo-1.md`` and ``foo-1.md`` are two files to git and one to macOS and Windows; so are ``é``
composed and decomposed; ``redis-pool`` and ``rеdis-pool`` (a Cyrillic е) are one to a reader.
A new id that shares ``names.id_key`` (its confusable skeleton) with an existing one (live,
archived or forgotten) is refused when given, and skipped over when generated.
"""

from __future__ import annotations

from reflectgit.config import ARCHIVED, DOCUMENTS, FORGOTTEN
from reflectgit.errors import RefusedError
from reflectgit.git.folders import entry_names, lowered
from reflectgit.git.store import Store
from reflectgit.notes import names

SUFFIX = b".md"
Known = dict[bytes, bytes]  # key of a file name -> the file name (UTF-8, as git stores it)


def _key(name: bytes) -> bytes:
    if name.isascii():
        return name.lower()  # what id_key gives an ASCII name, at bytes speed
    return names.id_key(name.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


def existing_ids(store: Store, tree: str | None) -> Known:
    """Every note's id key (its file name's, lowered) under ``tree``, in every state."""
    out: Known = {}
    for folder in (FORGOTTEN, ARCHIVED, DOCUMENTS):  # later wins: name the live note
        raw = store.folder_object(tree, folder)
        found = entry_names(raw)
        out.update(zip(lowered(found), found, strict=True))  # exact for ASCII names
        if not b"".join(found).isascii():
            for name in found:  # the few others need Unicode folding
                if not name.isascii():
                    out[_key(name)] = name
    return out


def clash(ident: str, existing: Known) -> str | None:
    """The existing id that ``ident`` would clash with, or None (an exact match is no clash)."""
    raw = ident.encode("utf-8", "surrogateescape") + SUFFIX
    other = existing.get(_key(raw))
    if other is None or other == raw:
        return None
    return other[: -len(SUFFIX)].decode("utf-8", "surrogateescape")


def refuse_clash(ident: str, existing: Known) -> None:
    """``RefusedError`` naming the existing id when ``ident`` differs from it only by case or
    Unicode normalisation."""
    other = clash(ident, existing)
    if other is not None:
        raise RefusedError(
            f"the id {ident!r} clashes with the existing note {other!r}: they differ only by "
            "case, Unicode normalisation or look-alike characters, so a macOS or Windows "
            "checkout holds them as one file or a reader takes one for the other",
            hint=f"to change that note, use its id {other!r} (`reflect-git show {other}`); "
            "for a new note, choose another id (or remove `id:` to get one)",
        )


def clash_reason(ident: str, known: Known) -> str | None:
    """For a bulk import: why ``ident`` is skipped (it clashes with an id already in the KB or
    earlier in the import), or None, and then ``ident`` is remembered in ``known``."""
    other = clash(ident, known)
    if other is not None:
        return (
            f"{ident}: clashes with the id {other} (they differ only by case, Unicode "
            "normalisation or look-alike characters; a checkout or a reader takes them for one)"
        )
    raw = ident.encode("utf-8", "surrogateescape") + SUFFIX
    known.setdefault(_key(raw), raw)
    return None
