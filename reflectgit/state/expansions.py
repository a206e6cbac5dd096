"""The cache of `search --expand`: a model's related terms for a query, asked once.

``<state_dir>/expansions.json`` maps a key (the model command, the model and the query) to the
terms the model suggested. Written whole through a temporary file and a rename, so a reader
never sees half a file; bounded to the most recent MAX_ENTRIES queries. Derived data: deleting
the file only costs a model call per query.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

CACHE_NAME = "expansions.json"
MAX_ENTRIES = 500


def cache_key(command: Sequence[str], model: str, query: str) -> str:
    """The cache key of a query (case and spacing do not matter) asked of one model."""
    text = "\0".join([*command, model, " ".join(query.lower().split())])
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _read(path: Path) -> dict[str, list[str]]:
    try:
        doc = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}  # missing or damaged: an empty cache
    if not isinstance(doc, dict):
        return {}
    return {
        k: [t for t in v if isinstance(t, str)]
        for k, v in doc.items()
        if isinstance(k, str) and isinstance(v, list)
    }


def cached(state_dir: Path, key: str) -> list[str] | None:
    """The terms stored for ``key``, or None when the query was never expanded."""
    return _read(state_dir / CACHE_NAME).get(key)


def store(state_dir: Path, key: str, terms: Sequence[str]) -> None:
    """Remember ``terms`` for ``key`` (the newest entries kept)."""
    path = state_dir / CACHE_NAME
    entries = _read(path)
    entries.pop(key, None)
    entries[key] = list(terms)
    kept = dict(list(entries.items())[-MAX_ENTRIES:])
    state_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=CACHE_NAME + ".tmp.", dir=state_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(kept, out, ensure_ascii=False)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
