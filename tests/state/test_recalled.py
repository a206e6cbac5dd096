"""Recalls appended by a session start (``state/recalled.py``) are counted once, in order, by
the next process that opens the ranking counters; a torn line is skipped."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from reflectgit.state import recalled
from reflectgit.state.ranking import Ranking, counters, record_recall

T0 = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.timezone.utc).timestamp()


def test_appended_recalls_are_counted_once_with_their_time(tmp_path: Path) -> None:
    recalled.append(tmp_path, T0, ["a", "b", "a"])  # one recall of a and b
    recalled.append(tmp_path, T0 + 60, ["a"])
    assert not (tmp_path / "ranking.sqlite3").exists()  # a session start opens no database
    a = counters(tmp_path, "a")
    assert (a.recall_count, a.last_recalled_at) == (2, "2026-12-01T09:01:00Z")
    assert counters(tmp_path, "b").recall_count == 1
    assert (tmp_path / recalled.NAME).read_bytes() == b""  # taken: never counted twice
    assert counters(tmp_path, "a").recall_count == 2


def test_a_recall_counted_now_comes_after_the_appended_ones(tmp_path: Path) -> None:
    recalled.append(tmp_path, T0, ["a"])
    record_recall(tmp_path, ["a"], dt.datetime(2026, 12, 2, tzinfo=dt.timezone.utc))
    a = counters(tmp_path, "a")
    assert (a.recall_count, a.last_recalled_at) == (2, "2026-12-02T00:00:00Z")


def test_a_torn_line_is_skipped_and_the_next_starts_anew(tmp_path: Path) -> None:
    (tmp_path / recalled.NAME).write_bytes(recalled.line(T0, ["a"])[:-3])  # a killed writer
    recalled.append(tmp_path, T0, ["b", "bad\tid"])
    assert Ranking(tmp_path).many(["a", "b", "bad\tid", "bad"]).keys() == {"b"}
    assert recalled.fields(b"1.0\ta") is None and recalled.fields(b"x\ta\n") is None
