"""The session's event record: append, read, replays, its cap and its retention."""

from __future__ import annotations

import os
from pathlib import Path

from reflectgit.state import sessionrecord


def _event(key: str, summary: str = "Done: x", **more: object) -> dict[str, object]:
    return {"ts": 1.0, "kind": "todo-done", "key": key, "summary": summary, **more}


def test_events_are_read_back_in_order(tmp_path):
    assert sessionrecord.read(tmp_path, "s1") == []
    assert sessionrecord.append(tmp_path, "s1", _event("a"))
    assert sessionrecord.append(tmp_path, "s1", _event("b", "Done: y"))
    assert [e["key"] for e in sessionrecord.read(tmp_path, "s1")] == ["a", "b"]
    assert sessionrecord.read(tmp_path, "s2") == []
    path = sessionrecord.path_of(tmp_path, "s1")
    assert path.endswith(os.path.join("sessions", "s1", "events.jsonl"))
    assert os.stat(path).st_mode & 0o777 == 0o600


def test_a_replayed_event_is_not_written_twice(tmp_path):
    assert sessionrecord.append(tmp_path, "s1", _event("a"))
    assert not sessionrecord.append(tmp_path, "s1", _event("a", "Done: again"))
    assert len(sessionrecord.read(tmp_path, "s1")) == 1


def test_a_secret_never_reaches_the_record(tmp_path):
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    sessionrecord.append(tmp_path, "s1", _event("a", f"Done: rotate {secret}"))
    assert secret not in Path(sessionrecord.path_of(tmp_path, "s1")).read_text()


def test_a_torn_line_is_passed_by(tmp_path):
    sessionrecord.append(tmp_path, "s1", _event("a"))
    with open(sessionrecord.path_of(tmp_path, "s1"), "a") as fh:
        fh.write('{"ts": 2, "kind": "todo-\n')
    sessionrecord.append(tmp_path, "s1", _event("b"))
    assert [e["key"] for e in sessionrecord.read(tmp_path, "s1")] == ["a", "b"]


def test_the_record_stops_growing_at_its_cap(tmp_path):
    big = "x" * (sessionrecord.MAX_BYTES // 3)
    added = [sessionrecord.append(tmp_path, "s1", _event(k, big)) for k in "abcd"]
    assert added == [True, True, False, False]
    assert [e["key"] for e in sessionrecord.read(tmp_path, "s1")] == ["a", "b"]
    assert os.path.getsize(sessionrecord.path_of(tmp_path, "s1")) <= sessionrecord.MAX_BYTES


def test_sessions_newest_first_and_the_sweep_keeps_recent_ones(tmp_path):
    sessionrecord.append(tmp_path, "old", _event("a"))
    sessionrecord.append(tmp_path, "new", _event("a"))
    os.utime(sessionrecord.path_of(tmp_path, "old"), (1_000, 1_000))
    assert [s for s, _ in sessionrecord.sessions(tmp_path)] == ["new", "old"]
    assert sessionrecord.sweep(tmp_path, cutoff=2_000) == 1
    assert [s for s, _ in sessionrecord.sessions(tmp_path)] == ["new"]
    assert not (tmp_path / "sessions" / "old").exists()
