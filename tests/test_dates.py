"""notes/dates.py: the one parser and the one formatter every module uses."""

from __future__ import annotations

import datetime as dt

import pytest

from reflectgit.notes.dates import (
    format_epoch,
    format_timestamp,
    from_epoch,
    is_bare_date,
    parse_instant,
)

UTC = dt.timezone.utc


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-03-04", dt.datetime(2026, 3, 4, tzinfo=UTC)),
        ("2026-03-04T10:00Z", dt.datetime(2026, 3, 4, 10, tzinfo=UTC)),
        ("2026-03-04t10:00:05z", dt.datetime(2026, 3, 4, 10, 0, 5, tzinfo=UTC)),
        ("2026-03-04 10:00:05", dt.datetime(2026, 3, 4, 10, 0, 5, tzinfo=UTC)),
        ("2026-03-04T10:00:05.250+00:00", dt.datetime(2026, 3, 4, 10, 0, 5, 250000, tzinfo=UTC)),
        (
            "2026-03-04T12:00:00+0200",
            dt.datetime(2026, 3, 4, 12, tzinfo=dt.timezone(dt.timedelta(hours=2))),
        ),
        (" 2026-03-04T10:00:00-05:30 ", dt.datetime(2026, 3, 4, 15, 30, tzinfo=UTC)),
    ],
)
def test_parse_instant_reads_what_people_and_tools_write(text: str, expected: dt.datetime) -> None:
    assert parse_instant(text) == expected


@pytest.mark.parametrize(
    "text", ["", "yesterday", "2026-13-01", "2026-03-04T25:00", "2026-03-04 junk", "04/03/2026"]
)
def test_parse_instant_refuses_what_is_not_a_date(text: str) -> None:
    assert parse_instant(text) is None


def test_yaml_values_are_read_too() -> None:
    assert parse_instant(dt.date(2026, 3, 4)) == dt.datetime(2026, 3, 4, tzinfo=UTC)
    naive = dt.datetime(2026, 3, 4, 10)
    assert parse_instant(naive) == naive.replace(tzinfo=UTC)
    assert parse_instant(20260304) is None


def test_one_formatter_round_trips() -> None:
    moment = dt.datetime(2026, 3, 4, 10, 0, 5, tzinfo=UTC)
    assert format_timestamp(moment) == "2026-03-04T10:00:05Z"
    assert parse_instant(format_timestamp(moment)) == moment
    assert format_epoch(moment.timestamp()) == "2026-03-04T10:00:05Z"
    assert from_epoch(moment.timestamp() + 0.7) == moment
    assert is_bare_date("2026-03-04") and not is_bare_date("2026-03-04T00:00")
