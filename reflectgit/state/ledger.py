"""The drain's cost ledger: one JSON line per processed entry, in the state directory.

Every entry the drain looks at leaves exactly one row (outcome, entries, tokens, cost, model,
writer class). The daily cap sums the ``entries`` of today's rows (UTC); ``cost`` groups rows
by day, transcript, model, outcome or writer. Appends are single ``write`` calls on an
``O_APPEND`` descriptor followed by fsync, so concurrent writers never interleave a line.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reflectgit.errors import ReflectGitError, UsageError
from reflectgit.notes.dates import parse_instant
from reflectgit.state.files import fsync_dir

LEDGER_FILE = "drain-cost.jsonl"
GROUPINGS = ("day", "transcript", "model", "outcome", "writer")
# Outcomes after which a transcript needs no further drain until it grows (the enqueue gate's
# dup-already-processed reads these, with the size the row recorded).
TERMINAL_PREFIXES = ("ok", "skip_", "stale", "poison", "quarantine_", "partial_max_turns")
# Terminal outcomes that read the transcript (a dead letter read nothing of it).
READ_PREFIXES = ("ok", "skip_", "partial_max_turns")


def ledger_path(state_dir: Path) -> Path:
    return Path(state_dir) / LEDGER_FILE


def append_row(state_dir: Path, row: Mapping[str, Any]) -> None:
    """Append one row durably (one write, fsync)."""
    append_jsonl(ledger_path(state_dir), row)


def append_jsonl(path: Path, row: Mapping[str, Any]) -> None:
    """Append one JSON line to ``path`` durably (one ``O_APPEND`` write, fsync): the one way
    the state directory's ledgers (drain cost, errors, ingest) grow."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(dict(row), sort_keys=True, ensure_ascii=False, default=str) + "\n"
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:  # the new file's name must survive a power loss too, as a queue entry's does
        fsync_dir(path.parent)


def read_rows(state_dir: Path) -> Iterator[dict[str, Any]]:
    """Every well-formed row; a torn last line (crash mid-append) is skipped."""
    return read_jsonl(ledger_path(state_dir))


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Every well-formed JSON object line of ``path``; a torn last line is skipped."""
    try:
        fh = path.open("rb")
    except FileNotFoundError:
        return
    with fh:
        for raw in fh:
            try:
                row = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                continue
            if isinstance(row, dict):
                yield row


def row_time(row: Mapping[str, Any]) -> dt.datetime | None:
    value = row.get("ts")
    return parse_instant(value) if isinstance(value, str) else None


def entries_on(rows: Iterable[Mapping[str, Any]], day: dt.date) -> tuple[int, int, int]:
    """(entries charged, successes, failures) among the rows of one UTC day."""
    charged = ok = failed = 0
    for row in rows:
        when = row_time(row)
        if when is None or when.astimezone(dt.timezone.utc).date() != day:
            continue
        n = row.get("entries")
        charged += n if isinstance(n, int) and not isinstance(n, bool) else 0
        outcome = str(row.get("outcome", ""))
        if outcome == "ok":
            ok += 1
        elif outcome.startswith(("fail_", "poison")):
            failed += 1
    return charged, ok, failed


@dataclass(frozen=True)
class Drained:
    """How far the drain got with one transcript, from its latest terminal row."""

    transcript: str
    outcome: str
    at: float | None  # when (epoch seconds)
    size: int | None  # the transcript's size in bytes when it was read (None: an old row)
    lines: int  # dialogue lines read; the next drain slices only past them

    def covers(self, size: int, mtime: float | None = None) -> bool:
        """Does this row cover the transcript as it is now (it did not grow since)?

        A row that recorded the size covers the file while it has that size (bigger: the
        session went on; smaller: the file was replaced, read it afresh); a row from before
        sizes were recorded covers it while the file is no newer than the row.
        """
        if self.size is not None:
            return size == self.size
        return self.at is not None and mtime is not None and mtime <= self.at


def drained(state_dir: Path) -> dict[str, Drained]:
    """The latest terminal row of every transcript the drain has finished with.

    ``lines`` comes from the latest row that really read the transcript (``ok``, a skip): a
    dead letter (poison, quarantine) read nothing, so a retried one is read from the start.
    """
    out: dict[str, Drained] = {}
    lines_read: dict[str, int] = {}
    for row in read_rows(state_dir):
        outcome = str(row.get("outcome", ""))
        path = row.get("transcript")
        if not outcome.startswith(TERMINAL_PREFIXES) or not isinstance(path, str) or not path:
            continue
        key = os.path.normpath(path)
        lines = row.get("dialogue_lines")
        if outcome.startswith(READ_PREFIXES):
            ok = isinstance(lines, int) and not isinstance(lines, bool)
            lines_read[key] = lines if ok else 0  # type: ignore[assignment]
        when = row_time(row)
        size = row.get("transcript_bytes")
        out[key] = Drained(
            transcript=path,
            outcome=outcome,
            at=when.timestamp() if when else None,
            size=size if isinstance(size, int) and not isinstance(size, bool) else None,
            lines=lines_read.get(key, 0),
        )
    return out


def terminal_transcripts(state_dir: Path) -> set[str]:
    """Transcript paths the drain has finished with at some point (grown or not)."""
    return set(drained(state_dir))


_SINCE = re.compile(r"^\s*(\d+)\s*([dhw])\s*$")
SPAN_UNITS = {"d": "days", "h": "hours", "w": "weeks"}


def parse_since(text: str | None, now: dt.datetime) -> dt.datetime | None:
    """``30d``, ``12h``, ``2w`` or an ISO date/time -> the earliest time included."""
    if text is None or text.strip() in ("", "all"):
        return None
    match = _SINCE.match(text)
    if match:
        n, unit = int(match.group(1)), match.group(2)
        try:
            return now - dt.timedelta(**{SPAN_UNITS[unit]: n})
        except OverflowError:  # before the year 1, or beyond what a timedelta holds
            # exit 1, not 2: the option is well-formed, its value is out of range
            raise ReflectGitError(
                f"--since {text.strip()!r} reaches back before the calendar starts",
                hint="give a shorter span (for example --since 365d), a date, or --since all",
            ) from None
    parsed = parse_instant(text)
    if parsed is None:
        raise UsageError(
            f"--since {text!r} is neither a span (30d, 12h, 2w) nor an ISO date",
            hint="for example --since 7d or --since 2026-11-01",
        )
    return parsed


@dataclass
class CostGroup:
    """Totals of the ledger rows sharing one key."""

    key: str
    runs: int = 0
    entries: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    ok: int = 0
    notes: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "runs": self.runs,
            "entries": self.entries,
            "tokens": self.tokens,
            "cost_usd": round(self.cost_usd, 6),
            "ok": self.ok,
            "notes": self.notes,
        }


def _key(row: Mapping[str, Any], by: str) -> str:
    if by == "day":
        when = row_time(row)
        return when.astimezone(dt.timezone.utc).date().isoformat() if when else "?"
    if by == "transcript":
        return str(row.get("transcript") or "?")
    if by == "model":
        return str(row.get("model") or "none")
    if by == "outcome":
        return str(row.get("outcome") or "?")
    return f"{row.get('writer') or '?'}:{row.get('writer_class') or '-'}"


def report(
    rows: Iterable[Mapping[str, Any]], *, by: str = "day", since: dt.datetime | None = None
) -> list[CostGroup]:
    """Group rows (newer than ``since``) by one of ``GROUPINGS``, sorted by key."""
    if by not in GROUPINGS:
        raise UsageError(f"--by {by!r} is not one of {', '.join(GROUPINGS)}")
    groups: dict[str, CostGroup] = {}
    for row in rows:
        when = row_time(row)
        if since is not None and (when is None or when < since):
            continue
        key = _key(row, by)
        group = groups.setdefault(key, CostGroup(key))
        group.runs += 1
        n = row.get("entries")
        group.entries += n if isinstance(n, int) and not isinstance(n, bool) else 0
        tokens = row.get("tokens")
        group.tokens += tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else 0
        cost = row.get("cost_usd")
        group.cost_usd += float(cost) if isinstance(cost, (int, float)) else 0.0
        group.ok += int(row.get("outcome") == "ok")
        notes = row.get("notes")
        group.notes += len(notes) if isinstance(notes, list) else 0
    return [groups[k] for k in sorted(groups)]
