"""Agent hooks replayed through the real entry point, one process per event, as a harness does."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from reflectgit.config import Config
from reflectgit.workflows.capture.commits import Capture
from reflectgit.workflows.capture.events import AgentEvents, correction_in
from tests.conftest import git, needs_shared
from tests.support.capture import (
    EVENTS,
    LEAKS,
    all_objects,
    event_name,
    every_state_file,
    kb_fixture,  # noqa: F401  (the kb fixture)
    leaked,
    load_events,
    notes,
    queue_entries,
    replay,
    run_hook,
    session_events,
    state_dir,
    subjects,
    transcripts_fixture,  # noqa: F401  (the transcripts fixture)
    wait_for,
)


def _fronts(kb_path):
    out = {}
    for path, text in notes(kb_path).items():
        front = text.split("---\n")[1]
        out[path] = front
    return out


@needs_shared
def test_a_red_green_sequence_without_an_edit_is_an_event_and_queues_at_stop(kb, transcripts):
    # pytest -q: 3 failed ("Cannot start a runtime from within a runtime"), then 44 passed with
    # no file edited in between: nothing learned, so an event of the session, not a note.
    replay("test-fix.json", transcripts)
    assert notes(kb) == {} and subjects(kb) == ["init"]
    ((session, (failed, fixed)),) = session_events(kb).items()
    assert session == "d5f4b3b2-e4b0-6ce6-0741-c7a87ce42c82"
    assert failed["error"] == "Cannot start a runtime from within a runtime"
    assert [t.split("::")[-1] for t in failed["tests"]] == [
        "test_case_0",
        "test_case_1",
        "test_case_2",
    ]
    assert fixed["kind"] == "tests-fixed" and "note" not in fixed
    entries = queue_entries(kb)
    assert [e["trigger"] for e in entries] == ["stop"]
    assert entries[0]["session_id"] == session
    assert git("status", "--porcelain", cwd=kb) == ""


@needs_shared
def test_the_same_sequence_with_an_edit_between_writes_one_high_note(kb, transcripts):
    payloads = load_events("test-fix.json", transcripts)
    edit = dict(json.loads(payloads[1]), tool_name="Edit", tool_response={"filePath": "x"})
    edit["tool_input"] = {"file_path": "/home/dev/src/tokio-service/src/runtime.rs"}
    for payload in [*payloads[:2], json.dumps(edit), *payloads[2:]]:
        proc = run_hook(event_name(payload), payload)
        assert proc.returncode == 0 and proc.stderr == ""
    ((path, text),) = notes(kb).items()
    assert path.startswith("documents/lrn-test-fix-")
    assert "confidence: high" in text
    assert "title: Cannot start a runtime from within a runtime (fixed in src/runtime.rs)" in text
    for header in ("rootdir:", "platform linux", "collected 44 items", "test session starts"):
        assert header not in text
    log = git("log", "-1", "--format=%B", "main", cwd=kb)
    assert "Reflect-Source: capture:PostToolUse" in log
    assert "Reflect-Op: add" in log
    git("fsck", "--no-progress", cwd=kb)


@needs_shared
def test_correction_after_failure_writes_a_low_note(kb, transcripts):
    replay("correction.json", transcripts)
    found = notes(kb)
    assert len(found) == 1
    text = next(iter(found.values()))
    assert "confidence: low" in text
    assert "title: Use uv instead of pip" in text
    assert "pip install -r requirements.txt" in text
    assert list((state_dir(kb) / "capture" / "armed").glob("*.json")) == []
    assert [e["trigger"] for e in queue_entries(kb)] == ["stop"]


@needs_shared
def test_unrelated_prompt_writes_nothing_and_the_watcher_lingers(kb, transcripts):
    replay("failure-then-unrelated-prompt.json", transcripts)
    assert notes(kb) == {}
    assert subjects(kb) == ["init"]
    armed = list((state_dir(kb) / "capture" / "armed").glob("*.json"))
    assert len(armed) == 1


@needs_shared
def test_loop_then_correction(kb, transcripts):
    replay("loop.json", transcripts)
    text = next(iter(notes(kb).values()))
    assert "title: Use ruff check instead of make lint" in text
    assert "watcher_reason: loop" in text


@needs_shared
def test_prompts_after_permission_requests_are_not_answers(kb, transcripts):
    # The dialog answers a permission request; "only for this repo" or "no" typed as the next
    # prompt is about something else and writes nothing.
    replay("permissions.json", transcripts)
    assert notes(kb) == {}
    assert subjects(kb) == ["init"]


@needs_shared
def test_finished_todos_are_events_not_notes(kb, transcripts):
    replay("todos.json", transcripts)
    assert notes(kb) == {} and subjects(kb) == ["init"]
    done = [e for events in session_events(kb).values() for e in events]
    assert [e["kind"] for e in done] == ["todo-done", "todo-done"]
    assert all(isinstance(e["seconds"], int) for e in done)
    assert any(e["content"] == "Add retry with backoff to client" for e in done)
    assert all(e["summary"].startswith("Done: ") for e in done)


@needs_shared
def test_compact_session_end_and_subagent_queue(kb, transcripts):
    replay("compact.json", transcripts)
    replay("session-end.json", transcripts)
    procs = replay("subagent.json", transcripts)
    assert procs[0].stdout.strip() == "{}"
    entries = {e["trigger"]: e for e in queue_entries(kb)}
    assert set(entries) == {"auto", "session_end", "subagent_stop"}
    sub = entries["subagent_stop"]
    assert sub["scope"] == "subagent"
    assert sub["extra"]["agent_id"] == "agent-7"
    assert sub["extra"]["parent_session_id"] == "89d9bf02-0067-dba8-5898-90086a17b9af"
    assert sub["transcript_path"].endswith("889f5e9a-a6af-9b40-cc88-ebd1d0a079f5.jsonl")
    assert notes(kb) == {}


@needs_shared
def test_stop_skips_a_transcript_already_queued_and_no_signal_sessions(kb, transcripts):
    replay("compact.json", transcripts)
    stop = {
        "session_id": "d5f4b3b2-e4b0-6ce6-0741-c7a87ce42c82",
        "transcript_path": str(transcripts / "d5f4b3b2-e4b0-6ce6-0741-c7a87ce42c82.jsonl"),
        "hook_event_name": "Stop",
    }
    assert run_hook("Stop", json.dumps(stop)).returncode == 0
    quiet = dict(stop, session_id="bd1296cd-e1b4-a960-b8e7-df9b992149e8")
    quiet["transcript_path"] = str(transcripts / "bd1296cd-e1b4-a960-b8e7-df9b992149e8.jsonl")
    assert run_hook("Stop", json.dumps(quiet)).returncode == 0
    assert len(queue_entries(kb)) == 1
    log = (state_dir(kb) / "logs" / "hooks.log").read_text()
    assert "dup-already-queued" in log and "no-signal" in log


@needs_shared
@pytest.mark.parametrize("name", ["malformed.json", "not-json.txt"])
def test_malformed_payloads_change_nothing(kb, transcripts, name):
    before = git("rev-parse", "main", cwd=kb)
    payloads = [(EVENTS / name).read_text()]
    if name.endswith(".json"):
        payloads = [json.dumps(p) for p in json.loads(payloads[0])]
    for payload in payloads:
        for event in ("PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"):
            proc = run_hook(event, payload)
            assert proc.returncode == 0 and proc.stderr == ""
    assert git("rev-parse", "main", cwd=kb) == before
    assert queue_entries(kb) == []
    assert not (state_dir(kb) / "capture").exists()


def test_empty_stdin_and_garbage_bytes_exit_zero(kb):
    for data in (b"", b"\x00\xff\xfe", b"[1,2]"):
        proc = subprocess.run(
            [sys.executable, "-m", "reflectgit", "hook", "PostToolUse"],
            input=data,
            capture_output=True,
        )
        assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""


@needs_shared
def test_reflect_disabled_makes_hooks_no_ops(kb, transcripts):
    replay("test-fix.json", transcripts, env={"REFLECT_DISABLED": "1"})
    replay("compact.json", transcripts, env={"REFLECT_DISABLED": "1"})
    assert subjects(kb) == ["init"]
    assert not state_dir(kb).exists()


@needs_shared
def test_no_kb_means_nothing_is_created(tmp_path, transcripts, monkeypatch):
    missing = tmp_path / "no-kb"
    monkeypatch.setenv("REFLECT_GIT_KB", str(missing))
    replay("test-fix.json", transcripts)
    assert not missing.exists()


@needs_shared
def test_must_never_leak_strings_reach_no_object_entry_or_log(kb, transcripts):
    session = "45547d9d-0b9e-8d4d-82a4-c12e779409b9"
    path = str(transcripts / f"{session}.jsonl")
    base = {"session_id": session, "transcript_path": path, "cwd": "/home/dev/src/tokio-infra"}
    secret_cmd = (
        "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE "
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ./deploy.sh staging"
    )
    events = [
        dict(
            base,
            hook_event_name="PostToolUseFailure",
            tool_name="Bash",
            tool_input={"command": secret_cmd},
            error="Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.abc123 rejected",
        ),
        dict(
            base,
            hook_event_name="UserPromptSubmit",
            prompt=(
                "<private>The staging password is Tr0ub4dor&3 and the VPN PIN is 4471.</private> "
                "No, don't inline keys. Use the vault instead of "
                "api_key=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
            ),
        ),
        dict(base, hook_event_name="PreCompact", trigger="manual"),
        dict(base, hook_event_name="Stop"),
        {
            "hook_event_name": "PostToolUse",
            "session_id": session,
            "tool_name": "Bash",
            "tool_input": {"command": "echo password=Tr0ub4dor&3"},
            "tool_response": 7,
        },
        # The hooks record a tool call's payload as it came (state/inbox.py, mode 0600, as the
        # harness's own transcript holds it) until the next pass; the session's end runs one.
        dict(base, hook_event_name="SessionEnd", reason="exit"),
    ]
    for event in events:
        assert run_hook(event["hook_event_name"], json.dumps(event)).returncode == 0
    assert len(notes(kb)) == 1  # the correction
    assert len(queue_entries(kb)) == 1
    haystack = all_objects(kb) + every_state_file(kb)
    for leak in LEAKS:
        assert not leaked(haystack, leak), leak
    assert leaked("the PIN is 4471.", "4471") and not leaked("ts 17644471.5 abc4471", "4471")


@needs_shared
def test_hook_entry_points_import_little(kb, transcripts):
    payload = json.dumps(
        {
            "session_id": "s-1",
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": "/x"},
            "tool_response": "ok",
            "cwd": "/tmp",
        }
    )
    probe = (
        "import sys, io\n"
        "from reflectgit.hooks.agent import main as hook\n"
        "from reflectgit.hooks.capture import main as capture\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))\n"
        "hook(['PostToolUse'])\n"
        "capture(['commit'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'typer', 'rich', 'click', 'dulwich', 'git', 'yaml', 'jsonschema'})\n"
        "print(heavy)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, payload], capture_output=True, text=True, cwd=kb, check=True
    )
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_correction_phrases():
    assert correction_in("ok, what next?") is None
    assert correction_in("you should have run the tests")


@pytest.mark.parametrize(
    ("prompt", "title"),
    [
        ("use python3.11 instead of python3.9", "Use python3.11 instead of python3.9"),
        ("no, use ./gradlew", "Use ./gradlew instead"),
        ("instead of setup.py, use pyproject.toml", "Use pyproject.toml instead of setup.py"),
        ("try uv instead", "Use uv instead"),
    ],
)
def test_a_correction_naming_dotted_names_and_paths_writes_its_note(kb, prompt, title):
    events = AgentEvents(Capture(Config.resolve(str(kb)), clock=FakeClock()))
    fail = {
        "session_id": "s-d",
        "tool_name": "Bash",
        "tool_input": {"command": "x"},
        "error": "boom",
    }
    events.handle("PostToolUseFailure", fail)
    events.handle("UserPromptSubmit", {"session_id": "s-d", "prompt": prompt})
    [text] = notes(kb).values()
    assert f"title: {title}" in text


@pytest.mark.parametrize(
    "prompt",
    [
        "No, don't worry, that's fine.",
        "What should have happened here?",
        "perfect!",
        "not like this",
    ],
)
def test_reassurance_and_questions_after_a_failure_write_nothing(kb, prompt):
    cap = Capture(Config.resolve(str(kb)), clock=FakeClock())
    events = AgentEvents(cap)
    fail = {
        "session_id": "s-q",
        "tool_name": "Bash",
        "tool_input": {"command": "x"},
        "error": "boom",
    }
    events.handle("PostToolUseFailure", fail)
    events.handle("UserPromptSubmit", {"session_id": "s-q", "prompt": prompt})
    assert notes(kb) == {}
    assert cap.load("armed", "s-q") is not None  # the watcher lingers for a real correction


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def test_watcher_expires_after_ten_minutes(kb):
    clock = FakeClock()
    cap = Capture(Config.resolve(str(kb)), clock=clock)
    events = AgentEvents(cap)
    fail = {
        "session_id": "s-9",
        "tool_name": "Bash",
        "tool_input": {"command": "make"},
        "error": "boom",
    }
    events.handle("PostToolUseFailure", fail)
    clock.now += 601
    events.handle("UserPromptSubmit", {"session_id": "s-9", "prompt": "use ninja instead"})
    assert notes(kb) == {}
    assert cap.load("armed", "s-9") is None


def test_green_after_several_failing_runs_promotes_earlier_hook_notes(kb):
    clock = FakeClock()
    cap = Capture(Config.resolve(str(kb)), clock=clock)
    events = AgentEvents(cap)
    sid = "s-promote"
    events.handle(
        "PostToolUseFailure",
        {
            "session_id": sid,
            "tool_name": "Bash",
            "tool_input": {"command": "make"},
            "error": "boom",
        },
    )
    events.handle("UserPromptSubmit", {"session_id": sid, "prompt": "use ninja instead of make"})
    red = {"stdout": "=== 2 failed, 3 passed in 0.1s ===", "stderr": ""}
    green = {"stdout": "=== 5 passed in 0.1s ===", "stderr": ""}
    run = {"session_id": sid, "tool_name": "Bash", "tool_input": {"command": "pytest"}}
    red["stdout"] = "E   assert 1 == 2\n" + red["stdout"]
    events.handle("PostToolUse", dict(run, tool_response=red))
    events.handle("PostToolUse", dict(run, tool_response=red))
    events.handle("PostToolUse", {**run, "tool_name": "Write", "tool_input": {"file_path": "a.py"}})
    events.handle("PostToolUse", dict(run, tool_response=green))
    fronts = _fronts(kb)
    correction = next(f for p, f in fronts.items() if "lrn-correction-" in p)
    assert "confidence: medium" in correction and "validated: true" in correction
    assert any("lrn-test-fix-" in p for p in fronts)
    top = git("log", "-1", "--format=%B", "main", cwd=kb)
    assert "Reflect-Op: promote" in top and "Reflect-Reason: tests went green after 2" in top


def test_test_regression_arms_the_watcher(kb):
    cap = Capture(Config.resolve(str(kb)), clock=FakeClock())
    events = AgentEvents(cap)
    run = {"session_id": "s-r", "tool_name": "Bash", "tool_input": {"command": "go test ./..."}}
    events.handle("PostToolUse", dict(run, tool_response={"stdout": "ok  \tpkg\t0.1s"}))
    events.handle("PostToolUse", dict(run, tool_response={"stdout": "--- FAIL: TestX\nFAIL\tpkg"}))
    assert cap.load("armed", "s-r")["reason"] == "test-regression"


@needs_shared
def test_auto_reflect_off_stops_precompact_only(kb, transcripts):
    replay("compact.json", transcripts, env={"REFLECT_AUTO_REFLECT": "0"})
    assert queue_entries(kb) == []
    replay("session-end.json", transcripts, env={"REFLECT_AUTO_REFLECT": "0"})
    assert [e["trigger"] for e in queue_entries(kb)] == ["session_end"]


def test_a_finished_todo_records_its_files_and_duration_and_writes_no_note(kb):
    clock = FakeClock()
    events = AgentEvents(Capture(Config.resolve(str(kb)), clock=clock))
    sid = "s-todo"

    def todos(status):
        return {
            "session_id": sid,
            "tool_name": "TodoWrite",
            "tool_input": {"todos": [{"content": "Wire the retry", "status": status}]},
        }

    events.handle("PostToolUse", todos("in_progress"))
    clock.now += 300
    events.handle(
        "PostToolUse",
        {"session_id": sid, "tool_name": "Edit", "tool_input": {"file_path": "/w/src/client.py"}},
    )
    events.handle("PostToolUse", todos("completed"))
    events.handle("PostToolUse", todos("completed"))  # still completed: nothing new
    assert notes(kb) == {} and subjects(kb) == ["init"]
    (done,) = session_events(kb)[sid]
    assert done["kind"] == "todo-done" and done["content"] == "Wire the retry"
    assert done["seconds"] == 300 and done["files"] == ["/w/src/client.py"]
    assert done["summary"] == "Done: Wire the retry (about 5 min)"


def test_a_todo_holding_a_password_still_has_its_completion_recorded_masked(kb):
    clock = FakeClock()
    events = AgentEvents(Capture(Config.resolve(str(kb)), clock=clock))

    def todos(status):
        item = {"content": "Rotate password=Hunter22x in staging", "status": status}
        return {"session_id": "s-pw", "tool_name": "TodoWrite", "tool_input": {"todos": [item]}}

    events.handle("PostToolUse", todos("in_progress"))
    clock.now += 60
    events.handle("PostToolUse", todos("completed"))
    (done,) = session_events(kb)["s-pw"]
    assert done["kind"] == "todo-done"
    assert done["content"] == "Rotate password=***REDACTED*** in staging"
    assert not leaked(all_objects(kb) + every_state_file(kb), "Hunter22x")


def test_an_invalid_capture_is_never_committed(kb, monkeypatch):
    from reflectgit.workflows.capture.commits import NoteDraft

    cap = Capture(Config.resolve(str(kb)), clock=FakeClock())
    draft = NoteDraft(
        "todo-done", "PostToolUse", "Done: x", "medium", "body\n", "s-bad", fields={"importance": 3}
    )  # a ranking field (rule S9) is refused
    with pytest.raises(Exception, match="importance"):
        cap.write_notes([draft])
    assert subjects(kb) == ["init"]


@needs_shared
def test_stop_sweeps_session_state_older_than_six_hours(kb, transcripts):
    clock = FakeClock()
    clock.now = __import__("time").time()
    cap = Capture(Config.resolve(str(kb)), clock=clock)
    events = AgentEvents(cap)
    events.handle(
        "PostToolUseFailure",
        {
            "session_id": "s-old",
            "tool_name": "Bash",
            "tool_input": {"command": "make"},
            "error": "boom",
        },
    )
    assert cap.load("armed", "s-old") is not None
    clock.now += 6 * 3600 + 60
    stop = {
        "session_id": "s-new",
        "hook_event_name": "Stop",
        "transcript_path": str(transcripts / "bd1296cd-e1b4-a960-b8e7-df9b992149e8.jsonl"),
    }
    events.handle("Stop", stop)
    assert cap.load("armed", "s-old") is None
    assert cap.load("loops", "s-old") is None


@needs_shared
def test_global_kb_option_reaches_the_fast_hook_path(kb, transcripts, tmp_path, monkeypatch):
    monkeypatch.setenv("REFLECT_GIT_KB", str(tmp_path / "elsewhere"))
    stop = {
        "session_id": "s-kb",
        "hook_event_name": "Stop",
        "transcript_path": str(transcripts / "02c8261b-740c-1a65-89be-4b4bd9ee50e2.jsonl"),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "reflectgit", "--kb", str(kb), "hook", "Stop"],
        input=json.dumps(stop),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    # The Stop hook started the capture pass detached, with the KB it was given.
    wait_for(lambda: bool(queue_entries(kb)), "the detached capture pass")
    assert [e["session_id"] for e in queue_entries(kb)] == ["s-kb"]
