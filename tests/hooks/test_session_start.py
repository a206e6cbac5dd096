"""``reflect-git-session-start``: the SessionStart hook prints the recall, starts the drain, and
never fails the session (the installer's side: tests/workflows/test_installer_*.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reflectgit.hooks.sessionstart import parse_args
from tests.support.capture import transcript_waits

HOOK_TIMEOUT = 60  # a liveness bound, far above what the hook takes


def session_start(
    cwd: Path, state: Path, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """The hook as a harness runs it: in the project folder, the payload on stdin."""
    payload = {"session_id": "s1", "hook_event_name": "SessionStart", "cwd": str(cwd)}
    return subprocess.run(
        [sys.executable, "-m", "reflectgit.hooks.sessionstart", *args],
        cwd=cwd,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={**os.environ, "REFLECT_STATE_DIR": str(state), **env},
        timeout=HOOK_TIMEOUT,
    )


@pytest.fixture
def kb_with_note(tmp_path: Path, cli) -> Path:
    kb = tmp_path / "kb"
    assert cli("init", str(kb)).code == 0
    out = cli(
        "--kb", str(kb), "add", "--title", "Prefill connection pools at startup",
        "--insight", "cold pools time out the first requests", "--confidence", "high",
    )  # fmt: skip
    assert out.code == 0, out.err
    return kb


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], ("claude", False, None, [])),
        (["--harness", "codex", "--mcp"], ("codex", True, None, [])),
        (["--harness=COPILOT", "--kb=/k"], ("copilot", False, "/k", [])),
        (["--kb", "/k b", "--harness", "claude"], ("claude", False, "/k b", [])),
        (["--harness", "vim", "extra"], ("claude", False, None, ["--harness vim", "extra"])),
        (["--kb"], ("claude", False, None, ["--kb"])),
    ],
)
def test_arguments(args: list[str], expected: tuple) -> None:
    assert parse_args(args) == expected


def test_one_process_prints_the_recall_and_starts_the_drain(kb_with_note, tmp_path):
    state = tmp_path / "state"
    transcript_waits(state)
    proc = session_start(tmp_path, state, "--harness", "copilot", "--kb", str(kb_with_note))
    assert (proc.returncode, proc.stderr) == (0, "")
    out = json.loads(proc.stdout)  # stdout holds the one document the harness reads
    assert set(out) == {"additionalContext"}
    context = out["additionalContext"]
    assert "Prefill connection pools at startup" in context
    assert f"-m reflectgit --kb {kb_with_note} show ID` prints a note in full" in context
    assert (state / "drain-background.log").is_file()  # the detached drain's output goes there


def test_no_drain_starts_when_nothing_waits_for_one(kb_with_note, tmp_path):
    state = tmp_path / "state"
    proc = session_start(tmp_path, state, "--kb", str(kb_with_note))
    assert (proc.returncode, proc.stderr) == (0, "")
    assert "Prefill" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert not (state / "drain-background.log").exists()  # nothing queued, nothing unhandled
    (state / "pending_reflections.jsonl").write_text("{}\n")  # the original tool's queue
    assert session_start(tmp_path, state, "--kb", str(kb_with_note)).returncode == 0
    assert (state / "drain-background.log").is_file()


def test_with_mcp_the_hint_names_the_show_tool(kb_with_note, tmp_path):
    proc = session_start(tmp_path, tmp_path / "state", "--mcp", "--kb", str(kb_with_note))
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.endswith(
        "(the `show` tool of the reflect-git MCP server prints a note in full.)"
    )


def test_words_it_does_not_know_are_named_on_stderr_and_the_recall_still_comes(
    kb_with_note, tmp_path
):
    proc = session_start(tmp_path, tmp_path / "state", "--kb", str(kb_with_note), "--bogus")
    assert proc.returncode == 0
    assert proc.stderr == "reflect-git-session-start: ignored: --bogus\n"
    assert "Prefill" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def test_no_kb_is_a_line_on_stderr_and_nothing_for_the_agent(tmp_path):
    state = tmp_path / "state"
    proc = session_start(tmp_path, state, "--kb", str(tmp_path / "nowhere"))
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr.startswith("reflect-git recall: ") and "not a git repository" in proc.stderr


def test_reflect_disabled_does_nothing(kb_with_note, tmp_path):
    state = tmp_path / "state"
    proc = session_start(tmp_path, state, "--kb", str(kb_with_note), REFLECT_DISABLED="1")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert not state.exists()  # not even the drain's log
