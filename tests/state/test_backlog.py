"""``state/backlog.py``: a drain is due for a queued transcript, an unhandled event or a legacy
queue file, and for nothing else. Real files in a tmp state directory."""

from __future__ import annotations

import json
from pathlib import Path

from reflectgit.git.lockwait import take
from reflectgit.state import backlog, eventlog, inbox


def test_nothing_waits_in_an_empty_or_missing_state_directory(tmp_path: Path) -> None:
    assert not backlog.waiting(tmp_path / "nowhere", str(tmp_path / "home"))
    for folder in ("queue", "events", "dead", "policy"):
        (tmp_path / folder).mkdir()
    (tmp_path / "queue" / "order").write_text("")  # the queue's own files are no entry
    (tmp_path / "events" / "inbox.spool").write_bytes(b"")  # an emptied inbox
    (tmp_path / "dead" / "x.json").write_text("{}")  # a dead letter waits for a person
    assert not backlog.waiting(tmp_path, str(tmp_path / "home"))
    assert not backlog.waiting(tmp_path, None)


def test_a_queued_transcript_waits(tmp_path: Path) -> None:
    (tmp_path / "queue").mkdir()
    (tmp_path / "queue" / "0123456789abcdef.json").write_text("{}")
    assert backlog.waiting(tmp_path, None)


def test_an_event_no_pass_handled_waits_until_a_pass_handles_it(tmp_path: Path) -> None:
    payload = json.dumps({"session_id": "s-1", "tool_name": "Bash"}).encode()
    inbox.append(str(tmp_path), inbox.line(1.0, "claude", "PostToolUse", payload), wait=1.0)
    assert backlog.waiting(tmp_path, None)  # in the inbox
    assert eventlog.ingest(tmp_path, take)[0] == 1
    assert backlog.waiting(tmp_path, None)  # in the session's log, past its cursor
    size = Path(eventlog.log_path(tmp_path, "s-1")).stat().st_size
    eventlog.advance(tmp_path, "s-1", size)  # what a capture pass does once it handled them
    assert not backlog.waiting(tmp_path, None)


def test_a_legacy_queue_file_waits_in_the_state_directory_or_the_home_folder(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    (home / ".reflect").mkdir(parents=True)
    state = tmp_path / "state"
    state.mkdir()
    assert not backlog.waiting(state, str(home))
    (home / ".reflect" / backlog.LEGACY_FILE).write_text("{}\n")
    assert backlog.waiting(state, str(home))
    assert not backlog.waiting(state, None)  # no home folder known: only the state directory's
    (state / backlog.LEGACY_FILE).write_text("{}\n")
    assert backlog.waiting(state, None)


def test_a_legacy_queue_file_a_drain_imported_no_longer_waits(tmp_path: Path) -> None:
    """The import keeps the original tool's file (it may still own it) and records it in the
    queue's marker: that file starts no drain again, another one not imported yet does."""
    from reflectgit.state.queue import Queue

    home = tmp_path / "home"
    (home / ".reflect").mkdir(parents=True)
    state = tmp_path / "state"
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{}\n")
    record = json.dumps({"transcript_path": str(transcript), "session_id": "s-1"})
    (home / ".reflect" / backlog.LEGACY_FILE).write_text(record + "\n")
    queue = Queue(state)
    assert backlog.waiting(state, str(home))
    assert queue.import_all_legacy(str(home)) == 1
    assert backlog.waiting(state, str(home))  # the imported entry itself waits in the queue
    entry = queue.list()[0]
    queue.remove(entry.id)
    assert (home / ".reflect" / backlog.LEGACY_FILE).exists()  # left where it was
    assert not backlog.waiting(state, str(home))  # imported: no drain for it again
    assert queue.import_all_legacy(str(home)) == 0
    (state / backlog.LEGACY_FILE).write_text(record + "\n")  # a second file, not imported yet
    assert backlog.waiting(state, str(home))


def test_an_unreadable_import_marker_leaves_the_legacy_file_waiting(tmp_path: Path) -> None:
    state = tmp_path / "state"
    (state / backlog.QUEUE_DIR).mkdir(parents=True)
    (state / backlog.LEGACY_FILE).write_text("{}\n")
    for marker in (b"{not json", b"[]", b"\xff\xfe"):
        (state / backlog.QUEUE_DIR / backlog.LEGACY_MARKER).write_bytes(marker)
        assert backlog.waiting(state, None)  # the drain reads it and decides
