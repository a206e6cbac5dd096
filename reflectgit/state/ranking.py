"""Ranking counters (rule S9): state that changes on every query, kept in SQLite, never in notes.

Notes are semantic and change only when their content does; recall counts would dirty git on
every query and conflict across teammates. So ``importance, maturity, recall_count,
helpful_count, ignored_count, stale_count, last_recalled_at`` live here, in
``<state_dir>/ranking.sqlite3``, keyed by note id.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from reflectgit.notes.dates import format_timestamp, utc_now
from reflectgit.state import recalled

DB_NAME = "ranking.sqlite3"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS counters (
    id TEXT PRIMARY KEY,
    importance REAL NOT NULL DEFAULT 0,
    maturity REAL NOT NULL DEFAULT 0,
    recall_count INTEGER NOT NULL DEFAULT 0,
    helpful_count INTEGER NOT NULL DEFAULT 0,
    ignored_count INTEGER NOT NULL DEFAULT 0,
    stale_count INTEGER NOT NULL DEFAULT 0,
    last_recalled_at TEXT
)
"""


class Counters(NamedTuple):
    """The ranking state of one note (zeros for a note never seen)."""

    id: str
    importance: float = 0.0
    maturity: float = 0.0
    recall_count: int = 0
    helpful_count: int = 0
    ignored_count: int = 0
    stale_count: int = 0
    last_recalled_at: str | None = None


class Ranking:
    """The counters database of one KB's state directory."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = Path(state_dir)
        self.path = self.state_dir / DB_NAME

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            # Soft state: a crash of the machine can at worst lose the last counts or damage the
            # file, which recall then starts over. Waiting for the disk on every session start
            # (a recall counts its notes) would cost more than the recall.
            conn.execute("PRAGMA synchronous=OFF")
            conn.execute("PRAGMA busy_timeout=30000")
            conn.execute(_SCHEMA)
            self._count(conn, [])  # the recalls a session start appended (state/recalled.py)
            yield conn
        finally:
            conn.close()

    def _count(self, conn: sqlite3.Connection, rows: list[tuple[str, str]]) -> None:
        """Count one recall per (id, time) row, with every recall not yet counted."""
        # Appended before this recall: counted first, so the latest time stays.
        earlier: list[tuple[str, str]] = []
        for ts, ids in recalled.take(self.state_dir):
            when = format_timestamp(dt.datetime.fromtimestamp(int(ts), dt.timezone.utc))
            earlier.extend((i, when) for i in ids)
        rows = earlier + rows
        if not rows:
            return
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            "INSERT INTO counters (id, recall_count, last_recalled_at) VALUES (?, 1, ?) "
            "ON CONFLICT(id) DO UPDATE SET recall_count = recall_count + 1, "
            "last_recalled_at = excluded.last_recalled_at",
            rows,
        )
        conn.execute("COMMIT")

    def record_recall(self, ids: Iterable[str], when: dt.datetime | None = None) -> None:
        """Count one recall of each note and stamp ``last_recalled_at``."""
        stamp = format_timestamp(when or utc_now())
        rows = [(i, stamp) for i in dict.fromkeys(ids)]
        if not rows:
            return
        with self._db() as conn:
            self._count(conn, rows)

    def counters(self, ident: str) -> Counters:
        """The counters of one note; zeros when it has none (no file is created for a read)."""
        return self.many([ident]).get(ident, Counters(ident))

    def many(self, ids: Iterable[str]) -> dict[str, Counters]:
        """Counters for several notes at once (missing ones are left out)."""
        wanted = list(dict.fromkeys(ids))
        if not wanted or not (self.path.exists() or os.path.exists(recalled.path(self.state_dir))):
            return {}
        out: dict[str, Counters] = {}
        with self._db() as conn:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for row in conn.execute(
                    "SELECT id, importance, maturity, recall_count, helpful_count, "
                    f"ignored_count, stale_count, last_recalled_at FROM counters WHERE id IN ({marks})",
                    chunk,
                ):
                    out[row[0]] = Counters(*row)
        return out

    def forget(self, ids: Iterable[str]) -> None:
        """Drop the counters of notes that no longer exist."""
        rows = [(i,) for i in ids]
        if rows and self.path.exists():
            with self._db() as conn:
                conn.executemany("DELETE FROM counters WHERE id = ?", rows)


def record_recall(state_dir: Path, ids: Iterable[str], when: dt.datetime | None = None) -> None:
    """Module-level shortcut: count one recall of each note."""
    Ranking(state_dir).record_recall(ids, when)


def counters(state_dir: Path, ident: str) -> Counters:
    """Module-level shortcut: the counters of one note."""
    return Ranking(state_dir).counters(ident)


def count_recall(state_dir: Path, ids: Iterable[str], when: dt.datetime | None = None) -> None:
    """Count one recall of each note; the counters are soft state, so a file SQLite cannot
    read starts over rather than failing a session start."""
    try:
        Ranking(state_dir).record_recall(ids, when)
    except sqlite3.DatabaseError:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                (Path(state_dir) / (DB_NAME + suffix)).unlink()
        Ranking(state_dir).record_recall(ids, when)
