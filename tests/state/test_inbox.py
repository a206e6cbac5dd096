"""The agent hooks' inbox (state/inbox.py) and how the pass moves it into the sessions' logs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from reflectgit.git.lockwait import take
from reflectgit.state import eventlog, inbox


def _spool(
    state: Path, event: str, payload: object, ts: float = 1.0, harness: str = "claude"
) -> None:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload, indent=2).encode()
    inbox.append(str(state), inbox.line(ts, harness, event, raw), wait=1.0)


def _log(state: Path, session: str) -> list[dict]:
    text = Path(eventlog.log_path(state, session)).read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_a_line_keeps_the_payload_as_sent_on_one_line():
    payload = b'{\r\n  "prompt": "two\\nlines",\n  "n": 1\n}'
    line = inbox.line(12.5, "codex", "PostToolUse", payload)
    assert line.count(b"\n") == 1 and line.endswith(b"\n")
    ts, harness, event, body = inbox.fields(line)
    assert (ts, harness, event) == (12.5, "codex", "PostToolUse")
    assert json.loads(body) == {"prompt": "two\nlines", "n": 1}
    assert inbox.fields(b"12.5\tclaude\tStop\n") is None  # no payload field: torn
    assert inbox.fields(b"nan-ish\tclaude\tStop\t{}\n") is None
    with pytest.raises(ValueError):
        inbox.line(1.0, "claude", "Post\tToolUse", b"{}")
    with pytest.raises(ValueError):
        inbox.line(1.0, "claude\n", "Stop", b"{}")


def test_a_held_inbox_is_waited_for_within_the_bound_only(tmp_path):
    _spool(tmp_path, "PostToolUse", {"session_id": "a"})
    import fcntl

    fd = os.open(inbox.path(str(tmp_path)), os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with pytest.raises(TimeoutError):
            inbox.append(str(tmp_path), inbox.line(2.0, None, "PostToolUse", b"{}"), wait=0.05)
    finally:
        os.close(fd)
    assert Path(inbox.path(str(tmp_path))).read_bytes().count(b"\n") == 1  # nothing half-written


def test_ingest_moves_each_session_in_order_cleaned_and_empties_the_inbox(tmp_path):
    _spool(tmp_path, "UserPromptSubmit", {"session_id": "s-1", "prompt": "first"}, ts=10.0)
    _spool(tmp_path, "PostToolUse", {"session_id": "s-2", "tool_name": "Bash"}, ts=11.0)
    secret = "api_key=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
    _spool(
        tmp_path, "PostToolUse", {"session_id": "s-1", "tool_input": {"command": secret}}, ts=12.0
    )
    _spool(tmp_path, "Notification", {"message": "no session"}, ts=13.0, harness="ClAuDe")
    _spool(tmp_path, "Stop", b"not json", ts=14.0)
    with open(inbox.path(str(tmp_path)), "ab") as fh:
        fh.write(b'15.0\tclaude\tPostToolUse\t{"session_id": "s-1"')  # a killed writer
    moved, dropped = eventlog.ingest(tmp_path, take)
    assert moved == 4
    assert dropped == ["Stop: the payload is not a JSON object", "a torn line of the inbox"]
    one = _log(tmp_path, "s-1")
    assert [e["ts"] for e in one] == [10.0, 12.0] and one[0]["payload"]["prompt"] == "first"
    assert "sk-ant-api03" not in json.dumps(one)  # cleaned as the event log always is
    assert [e["event"] for e in _log(tmp_path, "s-2")] == ["PostToolUse"]
    (orphan,) = _log(tmp_path, eventlog.UNSESSIONED)
    assert orphan["harness"] == "claude"  # as given, known: kept; unknown names become None
    assert os.path.getmtime(eventlog.log_path(tmp_path, "s-1")) == 12.0  # its last event's time
    assert Path(inbox.path(str(tmp_path))).read_bytes() == b""
    assert eventlog.ingest(tmp_path, take) == (0, [])  # nothing moves twice
    _spool(tmp_path, "PostToolUse", {"session_id": "s-1"}, ts=20.0, harness="someone-else")
    assert eventlog.ingest(tmp_path, take)[0] == 1
    assert _log(tmp_path, "s-1")[-1]["harness"] is None


def test_ingest_without_an_inbox_does_nothing(tmp_path):
    assert eventlog.ingest(tmp_path, take) == (0, [])
    assert not (tmp_path / "events").exists()
