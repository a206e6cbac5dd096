"""The event log and the capture pass: hooks append, the pass writes the notes at a turn's end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from reflectgit.config import Config
from reflectgit.git.lockwait import take
from reflectgit.state import eventlog
from reflectgit.workflows.capture.commits import Capture
from tests.conftest import git, needs_shared
from tests.support.capture import (
    SYNC,
    event_log,
    inbox_events,
    kb_fixture,  # noqa: F401  (the kb fixture)
    load_events,
    notes,
    queue_entries,
    run_hook,
    run_pass,
    session_events,
    state_dir,
    transcripts_fixture,  # noqa: F401  (the transcripts fixture)
    wait_for,
)

SESSION = "5e55-10n"


def _append(kb: Path, ts: float, event: str, payload: dict[str, Any]) -> None:
    """An event as the hook logs it, at a receive time of our choosing."""
    line = eventlog.record(ts, None, event, {"session_id": SESSION, **payload})
    eventlog.append(state_dir(kb), SESSION, line, take)


def _failure(command: str = "pip install -r requirements.txt") -> dict[str, Any]:
    return {
        "hook_event_name": "PostToolUseFailure",
        "cwd": "/home/dev/src/pip-app",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "error": "exit status 1: Cannot start a runtime from within a runtime",
    }


def _correction() -> dict[str, Any]:
    return {
        "hook_event_name": "UserPromptSubmit",
        "cwd": "/home/dev/src/pip-app",
        "prompt": "No, don't use pip here. Use uv instead of pip, always.",
    }


@needs_shared
def test_post_tool_use_only_appends_and_the_stop_hook_runs_the_detectors(kb, transcripts):
    payloads = load_events("test-fix.json", transcripts)
    before = git("log", "--format=%H", "--all", cwd=kb)
    for payload in payloads[:-1]:  # SessionStart and the red and green runs: no Stop yet
        proc = run_hook(json.loads(payload)["hook_event_name"], payload)
        assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    assert git("log", "--format=%H", "--all", cwd=kb) == before  # nothing committed
    assert not (state_dir(kb) / "capture" / "test-state").exists()  # no detector ran
    # Recorded as they came (the inbox), nothing parsed: no session's log yet.
    logged = inbox_events(kb)
    assert [e["event"] for e in logged] == ["SessionStart", "PostToolUse", "PostToolUse"]
    assert all(isinstance(e["ts"], float) and e["harness"] is None for e in logged)
    assert event_log(kb) == {}
    session = logged[1]["payload"]["session_id"]
    proc = run_hook("Stop", payloads[-1])  # the end of the turn: the pass runs (in the foreground)
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    # Red, then green with no edit between: the session's events, no note.
    assert [e["kind"] for e in session_events(kb)[session]] == ["tests-failed", "tests-fixed"]
    assert notes(kb) == {}
    assert [e["trigger"] for e in queue_entries(kb)] == ["stop"]
    assert event_log(kb) == {} and inbox_events(kb) == []  # every event handled and retired


@needs_shared
def test_the_stop_hook_starts_the_pass_detached(kb, transcripts):
    payloads = load_events("correction.json", transcripts)
    detached = {SYNC: "0"}
    for payload in payloads:
        proc = run_hook(json.loads(payload)["hook_event_name"], payload, detached)
        assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    wait_for(lambda: len(notes(kb)) == 1 and event_log(kb) == {}, "the detached capture pass")
    text = next(iter(notes(kb).values()))
    assert "title: Use uv instead of pip" in text
    wait_for(lambda: len(queue_entries(kb)) == 1, "the queued transcript")


def test_ttls_are_measured_on_the_events_receive_times(kb):
    # The pass runs long after these times; the watcher's 10 minutes are between the events.
    _append(kb, 1_000_000.0, "PostToolUseFailure", _failure())
    _append(kb, 1_000_000.0 + 601, "UserPromptSubmit", _correction())
    run_pass(SESSION)
    assert notes(kb) == {}
    assert "expired armed" in (state_dir(kb) / "logs" / "hooks.log").read_text()
    _append(kb, 2_000_000.0, "PostToolUseFailure", _failure("pip install ."))
    _append(kb, 2_000_000.0 + 599, "UserPromptSubmit", _correction())
    run_pass(SESSION)
    (text,) = notes(kb).values()
    assert "title: Use uv instead of pip" in text
    assert "created: 1970-01-24" in text  # the note is dated by its event, not by the pass


def test_a_killed_pass_loses_no_event_and_records_none_twice(kb):
    items = [f"Step {i:02d} of the migration" for i in range(24)]

    def todos(done: int) -> dict[str, Any]:
        listed = [
            {"content": c, "status": "completed" if i < done else "pending"}
            for i, c in enumerate(items)
        ]
        return {
            "hook_event_name": "PostToolUse",
            "cwd": "/home/dev/src/migrate",
            "tool_name": "TodoWrite",
            "tool_input": {"todos": listed},
            "tool_response": {},
        }

    for done in range(len(items) + 1):  # each completion is one event of the session
        _append(kb, 3_000_000.0 + 60 * done, "PostToolUse", todos(done))
    cursor = state_dir(kb) / "events" / f"{SESSION}.cursor"
    proc = subprocess.Popen(
        [sys.executable, "-m", "reflectgit.hooks.background", "pass", SESSION],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: len(_recorded(kb)) >= 3 or proc.poll() is not None, "the pass to start")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    killed_at = int(cursor.read_text()) if cursor.exists() else None
    run_pass(SESSION)
    found = [e["content"] for e in _recorded(kb)]
    assert found == items, killed_at  # each once, in order
    assert notes(kb) == {} and event_log(kb) == {}
    git("fsck", "--no-progress", cwd=kb)


def _recorded(kb: Path) -> list[dict[str, Any]]:
    return session_events(kb).get(SESSION, [])


def test_a_torn_line_is_passed_by_and_the_next_event_is_read(kb):
    _append(kb, 4_000_000.0, "PostToolUseFailure", _failure())
    path = Path(eventlog.log_path(state_dir(kb), SESSION))
    with path.open("ab") as fh:
        fh.write(b'{"ts": 4000001, "event": "UserPr')  # a writer killed mid-line
    _append(kb, 4_000_030.0, "UserPromptSubmit", _correction())
    lines = path.read_bytes().splitlines()
    assert len(lines) == 3 and lines[1].startswith(b'{"ts": 4000001')
    run_pass(SESSION)
    assert len(notes(kb)) == 1
    assert "unreadable line" in (state_dir(kb) / "logs" / "hooks.log").read_text()


@needs_shared
def test_the_idle_sweep_runs_the_pass_of_a_session_that_never_stopped(kb, transcripts, tmp_path):
    for payload in load_events("correction.json", transcripts)[:-1]:  # no Stop ever comes
        assert run_hook(json.loads(payload)["hook_event_name"], payload).returncode == 0
    assert (
        notes(kb) == {}
        and len(inbox_events(kb)) == len(load_events("correction.json", transcripts)) - 1
    )
    (tmp_path / "projects").mkdir()
    env = {
        "REFLECT_IDLE_THRESHOLD_SEC": "0",
        "REFLECT_IDLE_PROJECTS_ROOT": str(tmp_path / "projects"),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "reflectgit", "capture", "idle"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(notes(kb)) == 1 and event_log(kb) == {}


@needs_shared
def test_the_drain_runs_the_pass_of_a_session_that_never_stopped(kb, transcripts):
    for payload in load_events("correction.json", transcripts)[:-1]:  # no Stop ever comes
        assert run_hook(json.loads(payload)["hook_event_name"], payload).returncode == 0
    assert notes(kb) == {}
    proc = subprocess.run(
        [sys.executable, "-m", "reflectgit", "drain"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(notes(kb)) == 1 and event_log(kb) == {}
    assert "capture pass:" in (state_dir(kb) / "drain.log").read_text()


def test_the_stop_sweep_removes_old_pass_locks_of_sessions_with_no_events(kb):
    _append(kb, 5_000_000.0, "PostToolUseFailure", _failure())
    run_pass(SESSION)
    lock = state_dir(kb) / "events" / f"{SESSION}.pass"
    assert lock.is_file() and event_log(kb) == {}
    cap = Capture(Config.resolve(kb, dict(os.environ)))
    assert cap.sweep() >= 0 and lock.is_file()  # young: kept
    os.utime(lock, (1, 1))
    _append(kb, 5_000_001.0, "PostToolUseFailure", _failure())  # events waiting: kept
    cap.sweep()
    assert lock.is_file()
    run_pass(SESSION)
    os.utime(lock, (1, 1))
    cap.sweep()
    assert not lock.exists()
