"""Hooks never hang or misread: special files, held locks, expired state, narrower green runs."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

from reflectgit.config import Config
from reflectgit.workflows.capture.commits import Capture
from reflectgit.workflows.capture.events import AgentEvents
from tests.conftest import git
from tests.support.capture import (
    SYNC,
    event_log,
    kb_fixture,  # noqa: F401  (the kb fixture)
    notes,
    queue_entries,
    run_pass,
    session_events,
    state_dir,
    subjects,
)

HOOK_TIMEOUT = 60  # a liveness bound for a hung hook, far above what any hook takes


def hook(event: str, payload: dict, *extra: str) -> subprocess.CompletedProcess[str]:
    """The hook as a harness runs it; a Stop's capture pass runs in the foreground."""
    return subprocess.run(
        [sys.executable, "-m", "reflectgit", "hook", event, *extra],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={**os.environ, SYNC: "1"},
        timeout=HOOK_TIMEOUT,
    )


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_fifo_or_dev_zero_as_transcript_path_returns_at_once(kb, tmp_path):
    fifo = tmp_path / "transcript.jsonl"
    os.mkfifo(fifo)
    for event in ("Stop", "PreCompact", "SessionEnd", "SubagentStop"):
        for path in (str(fifo), "/dev/zero"):
            payload = {"session_id": "s-fifo", "hook_event_name": event, "transcript_path": path}
            proc = hook(event, payload)
            assert proc.returncode == 0 and proc.stderr == ""
            assert proc.stdout == ("{}\n" if event == "SubagentStop" else "")
    assert queue_entries(kb) == []
    assert "not a regular file" in (state_dir(kb) / "logs" / "hooks.log").read_text()


def test_subagent_stop_prints_braces_on_every_path(kb, tmp_path, monkeypatch):
    cases = [b"", b"not json", b"[1]", json.dumps({"hook_event_name": "SubagentStop"}).encode()]
    for data in cases:
        proc = subprocess.run(
            [sys.executable, "-m", "reflectgit", "hook", "SubagentStop"],
            input=data,
            capture_output=True,
            timeout=HOOK_TIMEOUT,
        )
        assert proc.returncode == 0 and proc.stdout == b"{}\n" and proc.stderr == b""
    # an error inside the handler: the state directory is a file, nothing can be written
    env = dict(os.environ, REFLECT_STATE_DIR=str(tmp_path / "a-file"))
    (tmp_path / "a-file").write_text("x")
    payload = {"session_id": "s", "transcript_path": str(tmp_path / "t.jsonl")}
    proc = subprocess.run(
        [sys.executable, "-m", "reflectgit", "hook", "SubagentStop"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        timeout=HOOK_TIMEOUT,
    )
    assert proc.returncode == 0 and proc.stdout == "{}\n"
    env["REFLECT_DISABLED"] = "1"
    proc = subprocess.run(
        [sys.executable, "-m", "reflectgit", "hook", "SubagentStop"],
        input="{}",
        capture_output=True,
        text=True,
        env=env,
        timeout=HOOK_TIMEOUT,
    )
    assert proc.returncode == 0 and proc.stdout == "{}\n"


def _hold(path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_a_held_kb_lock_bounds_the_pass_and_the_event_waits_for_the_next(kb):
    sid = "s-lock"
    base = {"session_id": sid, "cwd": "/w/app", "tool_name": "Bash"}
    red = dict(
        base,
        tool_input={"command": "pytest -q"},
        error="E   KeyError: 'total'\n1 failed, 2 passed in 0.1s",
    )
    edit = dict(base, tool_name="Edit", tool_input={"file_path": "/w/app/invoice.py"})
    green = dict(
        base,
        tool_input={"command": "pytest -q"},
        tool_response={"stdout": "3 passed in 0.1s", "stderr": ""},
    )
    fd = _hold(kb / ".git" / "reflect-git.lock")
    try:
        assert hook("PostToolUseFailure", red).returncode == 0
        assert hook("PostToolUse", edit).returncode == 0
        proc = hook("PostToolUse", green)  # logged: it takes no KB lock
        assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
        proc = hook("Stop", dict(base, hook_event_name="Stop"))  # the pass wants the KB lock
        assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    finally:
        os.close(fd)
    assert subjects(kb) == ["init"]
    assert (
        "LockError" in (state_dir(kb) / "logs" / "hooks.log").read_text()
        or "deferred" in (state_dir(kb) / "logs" / "hooks.log").read_text()
    )
    git("fsck", "--strict", "--no-progress", cwd=kb)
    # The green run's event was not passed by: the next pass writes its note.
    assert [e["event"] for e in event_log(kb)[sid]][-2:] == ["PostToolUse", "Stop"]
    run_pass(sid)
    assert len(notes(kb)) == 1 and event_log(kb) == {}


def test_a_held_commits_lock_defers_the_commit_capture(kb, tmp_path):
    repo = tmp_path / "repo"
    git("init", "-q", "-b", "main", str(repo), cwd=tmp_path)
    git("commit", "-q", "--allow-empty", "-m", "first", cwd=repo)
    env = dict(os.environ, REFLECT_GIT_HOOK_SYNC="1")
    fd = _hold(state_dir(kb) / "commits.jsonl.lock")
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "reflectgit", "capture", "commit"],
            cwd=repo,
            capture_output=True,
            text=True,
            env=env,
            timeout=HOOK_TIMEOUT,
        )
        assert proc.returncode == 0 and proc.stderr == ""
    finally:
        os.close(fd)
    assert not (state_dir(kb) / "commits.jsonl").exists()
    assert (state_dir(kb) / "capture" / "deferred-commits.jsonl").exists()
    git("commit", "-q", "--allow-empty", "-m", "second", cwd=repo)
    subprocess.run(
        [sys.executable, "-m", "reflectgit", "capture", "commit"], cwd=repo, env=env, check=True
    )
    rows = [json.loads(x) for x in (state_dir(kb) / "commits.jsonl").read_text().splitlines()]
    assert [r["subject"] for r in rows] == ["first", "second"]
    assert not (state_dir(kb) / "capture" / "deferred-commits.jsonl").exists()


def test_state_past_its_ttl_is_ignored_when_read_without_a_sweep(kb):
    clock = FakeClock()
    events = AgentEvents(Capture(Config.resolve(str(kb)), clock=clock))
    run = {"session_id": "s-ttl", "tool_name": "Bash", "tool_input": {"command": "pytest"}}
    events.handle("PostToolUseFailure", dict(run, error="2 failed, 1 passed in 0.1s"))
    clock.now += 2 * 24 * 3600  # two days later, no Stop in between
    events.handle("PostToolUse", dict(run, tool_response={"stdout": "3 passed in 0.1s"}))
    assert notes(kb) == {}


def test_the_permission_watcher_expires(kb, tmp_path):
    clock = FakeClock()
    events = AgentEvents(Capture(Config.resolve(str(kb)), clock=clock))
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(make deploy)"]}})
    )
    ask = {
        "session_id": "s-perm",
        "cwd": str(project),
        "tool_name": "Bash",
        "tool_input": {"command": "make deploy"},
        "permission_suggestions": [
            {
                "type": "addRules",
                "rules": [{"toolName": "Bash", "ruleContent": "make deploy"}],
                "behavior": "allow",
                "destination": "localSettings",
            }
        ],
    }
    events.handle("PermissionRequest", ask)
    clock.now += 3600  # an hour later the same command runs: not the dialog's answer
    ran = {k: ask[k] for k in ("session_id", "cwd", "tool_name", "tool_input")}
    events.handle("PostToolUse", dict(ran, tool_response={"stdout": "", "stderr": ""}))
    events.handle("UserPromptSubmit", {"session_id": "s-perm", "prompt": "yes always"})
    assert notes(kb) == {}


def test_a_rejected_dialog_and_a_notification_write_nothing(kb):
    events = AgentEvents(Capture(Config.resolve(str(kb)), clock=FakeClock()))
    ask = {"session_id": "s-no", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}
    events.handle("PermissionRequest", ask)
    events.handle(
        "Notification",
        {"session_id": "s-no", "notification_type": "permission_prompt", "message": "needs"},
    )
    rejected = "The user doesn't want to proceed with this tool use. The tool use was rejected."
    events.handle("PostToolUseFailure", dict(ask, error=rejected))
    events.handle("UserPromptSubmit", {"session_id": "s-no", "prompt": "no"})
    assert notes(kb) == {}


def _file(path):
    return {"tool_input": {"file_path": path}, "tool_response": {"filePath": path}}


def test_green_of_a_narrower_target_or_another_runner_is_not_a_fix(kb):
    events = AgentEvents(Capture(Config.resolve(str(kb)), clock=FakeClock()))
    sid = "s-narrow"

    def bash(command, **kw):
        return {"session_id": sid, "tool_name": "Bash", "tool_input": {"command": command}, **kw}

    failed = "E   ValueError: no total\n2 failed, 9 passed in 0.3s"
    events.handle("PostToolUseFailure", bash("pytest -q", error=failed))
    events.handle("PostToolUse", {"session_id": sid, "tool_name": "Write"} | _file("src/t.py"))
    ok = {"stdout": "4 passed in 0.1s", "stderr": ""}
    events.handle("PostToolUse", bash("pytest -q tests/test_other.py", tool_response=ok))
    jest = {"stdout": "", "stderr": "Test Suites: 1 passed, 1 total\nTests:  3 passed, 3 total"}
    events.handle("PostToolUse", bash("npx jest", tool_response=jest))
    none = {"stdout": "no tests ran in 0.01s", "stderr": ""}
    events.handle("PostToolUse", bash("pytest -q -k nothing", tool_response=none))
    assert notes(kb) == {}
    events.handle("PostToolUse", bash("uv run pytest -q", tool_response=ok))
    (text,) = notes(kb).values()
    assert "title: 'ValueError: no total (fixed in src/t.py)'" in text


def test_jest_green_on_stderr_arms_no_watcher(kb):
    cap = Capture(Config.resolve(str(kb)), clock=FakeClock())
    events = AgentEvents(cap)
    jest = {"stdout": "", "stderr": "PASS a.test.js\nTests:       3 passed, 3 total"}
    events.handle(
        "PostToolUse",
        {"session_id": "s-j", "tool_name": "Bash", "tool_input": {"command": "npx jest"}}
        | {"tool_response": jest},
    )
    assert cap.load("armed", "s-j") is None


def test_task_create_and_update_record_a_finished_task_as_an_event(kb):
    clock = FakeClock()
    events = AgentEvents(Capture(Config.resolve(str(kb)), clock=clock))
    sid = "s-task"
    events.handle(
        "PostToolUse",
        {
            "session_id": sid,
            "tool_name": "TaskCreate",
            "tool_input": {"subject": "Wire the retry", "description": "with backoff"},
            "tool_response": {"task": {"id": "1", "subject": "Wire the retry"}},
        },
    )
    for status in ("in_progress", "completed"):
        events.handle(
            "PostToolUse",
            {
                "session_id": sid,
                "tool_name": "TaskUpdate",
                "tool_input": {"taskId": "1", "status": status},
                "tool_response": {"success": True},
            },
        )
        clock.now += 120
    assert notes(kb) == {}
    (done,) = session_events(kb)[sid]
    assert done["kind"] == "todo-done" and done["content"] == "Wire the retry"
    assert done["seconds"] == 120
