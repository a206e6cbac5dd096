"""The synonym table of a KB: the shipped one extended by the KB's own file."""

from __future__ import annotations

import os

from reflectgit.errors import ConfigError

TYPE_CHECKING = False  # no typing at run time
if TYPE_CHECKING:
    from reflectgit.workflows.search.query import Synonyms

SYNONYMS_FILE = "synonyms.txt"  # the KB's own synonym table, at its root (query.py)


class SynonymTableError(ConfigError):
    """The KB's own synonym table cannot be read (not UTF-8, not a readable file)."""


def kb_synonyms(kb: str | os.PathLike[str], name: str | None) -> Synonyms:
    """The shipped synonym table extended by the KB's own file (``synonyms.txt``), if any."""
    from reflectgit.workflows.search.query import Synonyms, shipped

    if not name:
        return shipped()
    try:
        with open(os.path.join(kb, name), encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return shipped()
    except (OSError, UnicodeDecodeError) as exc:
        from pathlib import Path

        raise SynonymTableError(
            f"cannot read the synonym table {Path(kb) / name}: {exc}",
            hint="fix the file (UTF-8, one group of comma-separated terms a line) or remove it",
        ) from exc
    return Synonyms.parse(text, shipped())
