"""``reflect-git errors``: what went wrong, counted by kind, with the last message of each.

Three sources, each written where it happens (nothing is recorded twice):

- the drain's cost ledger (``state/ledger.py``): ``poison*`` -> ``drain_poison``,
  ``quarantine_oversized`` -> ``drain_oversized_input``, ``quota_deferred`` ->
  ``drain_quota_deferred``, ``fail_unknown_command`` -> ``drain_unknown_command``,
  ``fail_internal_error`` -> ``drain_internal_error``, any other ``fail_*`` -> ``drain_failure``
  (retried until the entry is poisoned);
- the errors ledger (``state/errors.py``): ``hook_failure``, ``index_repair``;
- Copilot's ``errorOccurred`` breadcrumbs (``logs/errors.jsonl``): ``agent_error``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflectgit.notes.dates import parse_instant
from reflectgit.state import errors as error_ledger
from reflectgit.state import ledger

AGENT_BREADCRUMBS = ("logs", "errors.jsonl")  # written by capture/events.py error_occurred
# The kinds in the order they are listed (the issue's, then the rest).
KINDS = (
    "drain_poison",
    "drain_oversized_input",
    "drain_quota_deferred",
    "drain_unknown_command",
    "drain_internal_error",
    "drain_failure",
    error_ledger.HOOK_FAILURE,
    error_ledger.INDEX_REPAIR,
    "agent_error",
)


def drain_kind(outcome: str) -> str | None:
    """The error kind of a drain outcome (None: not an error)."""
    if outcome.startswith("poison"):
        return "drain_poison"
    if outcome == "quarantine_oversized":
        return "drain_oversized_input"
    if outcome == "quota_deferred":
        return "drain_quota_deferred"
    if outcome == "fail_unknown_command":
        return "drain_unknown_command"
    if outcome == "fail_internal_error":
        return "drain_internal_error"
    if outcome.startswith("fail_"):
        return "drain_failure"
    return None


@dataclass
class Kind:
    kind: str
    count: int = 0
    last_at: dt.datetime | None = None
    last_message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "count": self.count,
            "last_at": self.last_at.isoformat() if self.last_at else None,
            "last_message": self.last_message,
        }


@dataclass
class ErrorsReport:
    since: dt.datetime | None
    kinds: dict[str, Kind] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(k.count for k in self.kinds.values())

    def counts(self) -> dict[str, int]:
        return {name: k.count for name, k in self.kinds.items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "since": self.since.isoformat() if self.since else None,
            "total": self.total,
            "kinds": [k.to_json() for k in self.kinds.values()],
        }


def _events(state_dir: Path) -> Iterator[tuple[str, dt.datetime | None, str]]:
    """(kind, when, message) of every error the three sources hold."""
    for row in ledger.read_rows(state_dir):
        kind = drain_kind(str(row.get("outcome") or ""))
        if kind is not None:
            detail = str(row.get("detail") or "")
            message = f"{row.get('outcome')}: {detail}" if detail else str(row.get("outcome"))
            yield kind, ledger.row_time(row), message
    for row in error_ledger.rows(state_dir):
        kind = row.get("kind")
        if isinstance(kind, str):
            yield kind, _when(row), str(row.get("message") or "")
    for row in ledger.read_jsonl(state_dir.joinpath(*AGENT_BREADCRUMBS)):
        message = " ".join(str(row[k]) for k in ("name", "message") if row.get(k))
        yield "agent_error", _when(row), message


def _when(row: Mapping[str, Any]) -> dt.datetime | None:
    value = row.get("ts")
    return parse_instant(value) if isinstance(value, str) else None


def tally(
    events: Iterable[tuple[str, dt.datetime | None, str]], since: dt.datetime | None
) -> ErrorsReport:
    report = ErrorsReport(since=since)
    found: dict[str, Kind] = {}
    for kind, when, message in events:
        if since is not None and (when is None or when < since):
            continue
        k = found.setdefault(kind, Kind(kind))
        k.count += 1
        if k.last_at is None or when is None or when >= k.last_at:
            k.last_at = when or k.last_at
            k.last_message = message
    order = {name: i for i, name in enumerate(KINDS)}
    for name in sorted(found, key=lambda n: (order.get(n, len(order)), n)):
        report.kinds[name] = found[name]
    return report


def errors_report(
    state_dir: Path, since: str | None = "7d", now: dt.datetime | None = None
) -> ErrorsReport:
    """The errors of the last ``since`` (``7d``, ``12h``, an ISO date, or ``all``)."""
    now = now or dt.datetime.now(dt.timezone.utc)
    start = ledger.parse_since(since, now)
    return tally(_events(Path(state_dir)), start)
