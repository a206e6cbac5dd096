"""The errors ledger: what went wrong that no other file records, one JSON line each.

The drain's failures are rows of its cost ledger already (``state/ledger.py``: ``poison*``,
``quarantine_oversized``, ``quota_deferred``, ``fail_*``) and Copilot's ``errorOccurred``
breadcrumbs are ``logs/errors.jsonl``; this file holds the rest: a hook that swallowed an
error (``hook_failure``) and a search index found damaged and rebuilt (``index_repair``).
``workflows/errors.py`` reads all three. Recording never raises: a ledger that cannot be
written must not turn a swallowed error into a failure.
"""

from __future__ import annotations

import contextlib
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reflectgit.notes.dates import format_epoch
from reflectgit.notes.privacy import clean
from reflectgit.state.ledger import append_jsonl, read_jsonl

ERRORS_LEDGER = "error-ledger.jsonl"
MESSAGE_CAP = 500
HOOK_FAILURE = "hook_failure"
INDEX_REPAIR = "index_repair"


TRACEBACK_LOG = "error.log"  # in the state directory's logs/: the tracebacks of our own bugs


def append_traceback(folder: Path, headline: str, exc: BaseException) -> Path:
    """Append ``exc``'s traceback under a ``### reflect-git VERSION: headline`` line to
    ``folder/error.log`` (made if missing), where a bug report can pick it up; its path.
    ``OSError`` is the caller's to swallow."""
    from reflectgit import __version__

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / TRACEBACK_LOG
    with path.open("a", encoding="utf-8") as fh:
        fh.write(f"### reflect-git {__version__}: {headline}\n")
        fh.write("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
        fh.write("\n")
    return path


def ledger_path(state_dir: Path) -> Path:
    return Path(state_dir) / ERRORS_LEDGER


def record(state_dir: Path, kind: str, message: str, **extra: Any) -> None:
    """Append one row (``ts``, ``kind``, ``message`` masked and cut, and ``extra``)."""
    row: dict[str, Any] = {
        "ts": format_epoch(time.time()),
        "kind": kind,
        "message": clean(" ".join(message.split()))[:MESSAGE_CAP],
    }
    row.update({k: v for k, v in extra.items() if v is not None})
    with contextlib.suppress(Exception):
        append_jsonl(ledger_path(state_dir), row)


def rows(state_dir: Path) -> Iterator[dict[str, Any]]:
    return read_jsonl(ledger_path(state_dir))
