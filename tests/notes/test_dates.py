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


def test_format_epoch_is_the_datetime_formatter_on_any_timestamp() -> None:
    """``format_epoch`` writes with ``time`` alone; it must say what ``format_timestamp`` of
    ``from_epoch`` says, fractions rounded to microseconds (a carry included) and negatives too."""
    import random
    import time

    rng = random.Random(17)
    edges = [0.0, 0.9999995, 0.9999994, 1.0000005, -0.5, -1.0, -0.0000004, -0.9999996, 59.9999999]
    edges += [1e9 + 0.4999995, 1_780_000_000.9999996, 253402300799.0, -62135596800.0, time.time()]
    edges += [rng.uniform(-2e9, 4e9) for _ in range(5000)]
    edges += [
        rng.randrange(0, 4_000_000_000) + rng.choice((0.9999995, 0.9999996, 5e-7))
        for _ in range(500)
    ]
    for seconds in edges:
        assert format_epoch(seconds) == format_timestamp(from_epoch(seconds)), seconds
    assert format_epoch(0) == "1970-01-01T00:00:00Z"
