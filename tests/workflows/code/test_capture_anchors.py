"""Capture anchors its notes to the files the session edited: a finished todo's note names the
files its Edit calls touched, at the repository's HEAD; files outside the repository are not
anchors."""

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


def _append(kb: Path, ts: float, payload: dict[str, Any]) -> None:
    line = eventlog.record(ts, None, "PostToolUse", {"session_id": SESSION, **payload})
    eventlog.append(state_dir(kb), SESSION, line, take)


def test_a_finished_todo_is_anchored_to_the_files_its_session_edited(
    kb: Path, tmp_path: Path
) -> None:
    code = CodeRepo(tmp_path / "billing-api")
    code.write("src/pool.py", POOL_PY).commit("pool")
    todo = "Prefill the connection pool at startup"

    def todos(status: str) -> dict[str, Any]:
        return {
            "hook_event_name": "PostToolUse",
            "cwd": str(code.path),
            "tool_name": "TodoWrite",
            "tool_input": {"todos": [{"content": todo, "status": status}]},
            "tool_response": {},
        }

    def edit(path: str) -> dict[str, Any]:
        return {
            "hook_event_name": "PostToolUse",
            "cwd": str(code.path),
            "tool_name": "Edit",
            "tool_input": {"file_path": path, "old_string": "a", "new_string": "b"},
            "tool_response": {},
        }

    _append(kb, 5_000_000.0, todos("in_progress"))
    _append(kb, 5_000_060.0, edit(str(code.path / "src" / "pool.py")))
    _append(kb, 5_000_090.0, edit("/etc/hosts"))  # not a file of the repository
    _append(kb, 5_000_600.0, todos("completed"))
    run_pass(SESSION)
    (text,) = notes(kb).values()
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["project"] == "billing-api"
    assert front["anchors"] == [{"path": "src/pool.py", "commit": code.head()}]
