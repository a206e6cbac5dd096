"""Dates and timestamps: ONE parser and ONE formatter for everything reflect-git reads or writes.

Notes, sidecars, queue entries, ledger rows, logs and commit trailers all use ISO 8601 with a
``T`` and UTC written as ``Z`` (``2026-03-04T10:00:00Z``). What we read is more lenient: a bare
date (midnight dt.timezone.utc), a YAML date or datetime, ``Z`` or ``z`` or a numeric offset, a space for
the ``T``. Pure: no I/O, stdlib only (hooks import it, so it must stay light: ``datetime``
is imported by the functions that need it, and ``format_epoch``, every log line's stamp, needs
only ``time``).
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

from reflectgit.notes.lazyre import Pattern

if TYPE_CHECKING:
    import datetime as dt
    from typing import Any


_ISO = Pattern(
    r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})"
    r"(?:[Tt ](?P<time>[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?)"
    r"[ ]?(?P<tz>[Zz]|[+-][0-9]{2}:?[0-9]{2})?)?"
)


def utc_now() -> dt.datetime:
    """Now, in UTC, to the second (what notes record)."""
    import datetime as dt

    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def from_epoch(seconds: float) -> dt.datetime:
    """A POSIX timestamp as an aware UTC datetime, to the second."""
    import datetime as dt

    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).replace(microsecond=0)


def parse_instant(value: Any) -> dt.datetime | None:
    """A date or timestamp (an ISO string, or a YAML date/datetime) as an aware datetime.

    Bare dates are midnight UTC; a timestamp without an offset is UTC. None when the value is
    not a date at all (the callers decide whether that is an error).
    """
    import datetime as dt

    if isinstance(value, dt.datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=dt.timezone.utc)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc)
    if not isinstance(value, str):
        return None
    match = _ISO.fullmatch(value.strip())
    if not match:
        return None
    text = match.group("date") + "T" + (match.group("time") or "00:00")
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    tz = match.group("tz")
    if tz and tz not in ("Z", "z"):
        sign = 1 if tz[0] == "+" else -1
        digits = tz[1:].replace(":", "")
        hours, minutes = int(digits[:2]), int(digits[2:])
        if hours > 23 or minutes > 59:
            return None
        offset = dt.timedelta(hours=hours, minutes=minutes)
        return moment.replace(tzinfo=dt.timezone(sign * offset))
    return moment.replace(tzinfo=dt.timezone.utc)


def is_bare_date(value: str) -> bool:
    """``2026-03-04`` (no time part): callers that mean "the end of that day" need to know."""
    match = _ISO.fullmatch(value.strip())
    return bool(match) and match.group("time") is None  # type: ignore[union-attr]


def format_timestamp(value: dt.datetime) -> str:
    """ISO 8601 with ``T``; UTC written as ``Z``; naive values are written as they are."""
    import datetime as dt

    text = value.isoformat()
    if value.tzinfo is not None and value.utcoffset() == dt.timedelta(0):
        text = text[: -len("+00:00")] + "Z"
    return text


def format_epoch(seconds: float) -> str:
    """A POSIX timestamp as ``2026-03-04T10:00:00Z`` (logs, queue entries, ledger rows).

    ``format_timestamp(from_epoch(seconds))`` with ``time`` alone: ``fromtimestamp`` rounds the
    fraction to microseconds half to even (a carry makes the next second), and the second is
    then what it keeps."""
    frac, whole = math.modf(seconds)
    micros = round(frac * 1e6)
    if micros >= 1_000_000:
        whole += 1.0
    elif micros < 0:
        whole -= 1.0
    t = time.gmtime(int(whole))
    return (
        f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}"
        f"T{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}Z"
    )
