"""The synonym table of a KB: the shipped one extended by the KB's own file.

Both files are read at run time and go through the one parser (``query.Synonyms.parse``).
Parsing and indexing the shipped table's groups costs about 3.5 ms, more than the rest of a
search against a fresh index spends in Python, so the parsed table is kept in the state
directory, next to the KB's index (``CACHE_NAME``), with what it was parsed from: the KB
file's very text (small, and the file people edit) and the shipped file's size, modification
time and inode (a release installs a new one). When either differs the table is parsed again
and the cache rewritten, atomically; a cache that cannot be read or does not hold a table is
ignored and rewritten the same way.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from reflectgit import jsonio
from reflectgit.errors import ConfigError
from reflectgit.workflows.search.query import SHIPPED_TABLE, Synonyms, shipped
from reflectgit.workflows.search.storage import index_file

if TYPE_CHECKING:
    from typing import Any, TypeGuard

SYNONYMS_FILE = "synonyms.txt"  # the KB's own synonym table, at its root (query.py)
CACHE_NAME = "search.synonyms.json"  # next to the KB's index file
CACHE_FORMAT = 1  # raised when what the cache holds changes


class SynonymTableError(ConfigError):
    """The KB's own synonym table cannot be read (not UTF-8, not a readable file)."""


def kb_synonyms(
    kb: str | os.PathLike[str],
    name: str | None,
    state_dir: str | os.PathLike[str] | None = None,
) -> Synonyms:
    """The shipped synonym table extended by the KB's own file ``name`` (a path in the KB,
    ``synonyms.txt``), if any. With ``state_dir``, the table parsed from these very files is
    read from the cache there, or parsed and kept there."""
    own = _kb_text(kb, name)
    if state_dir is None:
        return _parsed(own)
    # What the table is parsed from: the shipped file as the file system sees it, and the KB's
    # own text (None without one).
    packaged = os.stat(SHIPPED_TABLE)
    source = [CACHE_FORMAT, packaged.st_size, packaged.st_mtime_ns, packaged.st_ino, own]
    path = cache_file(state_dir, kb)
    table = _cached(path, source)
    if table is None:
        table = _parsed(own)
        _keep(path, source, table)
    return table


def cache_file(state_dir: str | os.PathLike[str], kb: str | os.PathLike[str]) -> str:
    """Where the KB's parsed synonym table is kept: next to its index file."""
    return os.path.join(os.path.dirname(index_file(state_dir, kb)), CACHE_NAME)


def _kb_text(kb: str | os.PathLike[str], name: str | None) -> str | None:
    """The KB's own table's text; None when there is none (no name, no file)."""
    if not name:
        return None
    try:
        with open(os.path.join(kb, name), "rb") as fh:
            return fh.read().decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        from pathlib import Path

        raise SynonymTableError(
            f"cannot read the synonym table {Path(kb) / name}: {exc}",
            hint="fix the file (UTF-8, one group of comma-separated terms a line) or remove it",
        ) from exc


def _parsed(own: str | None) -> Synonyms:
    return shipped() if own is None else Synonyms.parse(own, shipped())


def _cached(path: str, source: list[Any]) -> Synonyms | None:
    """The table the cache at ``path`` holds, parsed from ``source``; None if it holds none
    (missing, parsed from other files, unreadable, or not the shape ``_keep`` writes)."""
    try:
        with open(path, "rb") as fh:
            doc = jsonio.loads(fh.read())
    except (OSError, ValueError, RecursionError):  # missing; not JSON, not UTF-8; nested deep
        return None
    if not isinstance(doc, dict) or doc.get("source") != source:
        return None
    groups, buckets, idioms = doc.get("groups"), doc.get("buckets"), doc.get("idioms")
    if not isinstance(groups, list) or not all(
        isinstance(g, list) and all(isinstance(t, str) for t in g) for g in groups
    ):
        return None
    if not (_is_lookup(buckets, len(groups)) and _is_lookup(idioms, len(groups))):
        return None
    return Synonyms.compiled(tuple(tuple(g) for g in groups), buckets, idioms)


def _is_lookup(value: Any, groups: int) -> TypeGuard[dict[str, list[int]]]:
    """A lookup as ``Synonyms._lookup`` holds it: text to the numbers of existing groups."""
    return isinstance(value, dict) and all(
        isinstance(found, list) and all(type(i) is int and 0 <= i < groups for i in found)
        for found in value.values()
    )


def _keep(path: str, source: list[Any], table: Synonyms) -> None:
    """Write the cache, atomically, into the index's folder if it exists (derived state never
    makes a folder where no index is); a cache that cannot be written is not one."""
    import contextlib
    from pathlib import Path

    from reflectgit.state.files import atomic_write

    buckets, idioms = table._lookup
    doc = {"source": source, "groups": table.groups, "buckets": buckets, "idioms": idioms}
    # No folder, or a read-only or full state directory: the next search parses the files again.
    with contextlib.suppress(OSError):
        atomic_write(Path(path), jsonio.dumps(doc, ensure_ascii=False).encode("utf-8"))
