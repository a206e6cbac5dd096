"""Capture anchors its notes to the files the session edited: a test-fix note names the files
the Edit calls between the red and the green run touched, at the repository's HEAD; files
outside the repository are not anchors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from reflectgit.git.lockwait import take
from reflectgit.state import eventlog
from tests.support.capture import kb_fixture, notes, run_pass, state_dir
from tests.support.coderepo import POOL_PY, CodeRepo

__all__ = ["kb_fixture"]
SESSION = "anch-0r5"
RED = (
    "============================= test session starts ==============================\n"
    "collected 12 items\n\n"
    "=================================== FAILURES ===================================\n"
    "TimeoutError: the pool had no connection\n"
    "=========================== short test summary info ============================\n"
    "FAILED tests/test_pool.py::test_first_request\n"
    "========================= 1 failed, 11 passed in 0.84s ========================="
)
GREEN = "============================== 12 passed in 0.80s =============================="


def _append(kb: Path, ts: float, payload: dict[str, Any]) -> None:
    line = eventlog.record(ts, None, "PostToolUse", {"session_id": SESSION, **payload})
    eventlog.append(state_dir(kb), SESSION, line, take)


def test_a_test_fix_note_is_anchored_to_the_files_its_session_edited(
    kb: Path, tmp_path: Path
) -> None:
    code = CodeRepo(tmp_path / "billing-api")
    code.write("src/pool.py", POOL_PY).commit("pool")

    def bash(stdout: str) -> dict[str, Any]:
        return {
            "hook_event_name": "PostToolUse",
            "cwd": str(code.path),
            "tool_name": "Bash",
            "tool_input": {"command": "pytest -q"},
            "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
        }

    def edit(path: str) -> dict[str, Any]:
        return {
            "hook_event_name": "PostToolUse",
            "cwd": str(code.path),
            "tool_name": "Edit",
            "tool_input": {"file_path": path, "old_string": "a", "new_string": "b"},
            "tool_response": {"filePath": path},
        }

    _append(kb, 5_000_000.0, bash(RED))
    _append(kb, 5_000_060.0, edit(str(code.path / "src" / "pool.py")))
    _append(kb, 5_000_090.0, edit("/etc/hosts"))  # not a file of the repository
    _append(kb, 5_000_120.0, bash(GREEN))
    run_pass(SESSION)
    (text,) = notes(kb).values()
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["project"] == "billing-api"
    assert front["anchors"] == [{"path": "src/pool.py", "commit": code.head()}]
