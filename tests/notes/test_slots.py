"""Memory slots (REFLECT_SLOTS=1): kept at Stop by the real hook, shown by the real recall."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reflectgit.notes.slots import Slots, describe, extract, program_of, todo_lines
from reflectgit.notes.transcripts import parse_lines
from tests.conftest import DATA, git
from tests.support.capture import kb_fixture, run_hook, state_dir

__all__ = ["kb_fixture"]

REAL = DATA / "real"
EVENTS = REAL / "hook-events" / "derived-codemie-196820da.json"


def _records(*records: dict) -> list[str]:
    return [json.dumps(r) for r in records]


def _assistant(*content: dict) -> dict:
    return {"type": "assistant", "message": {"role": "assistant", "content": list(content)}}


def _tool(name: str, tool_input: dict, call: str) -> dict:
    return {"type": "tool_use", "id": call, "name": name, "input": tool_input}


def _result(call: str, text: str, error: bool) -> dict:
    block = {"type": "tool_result", "tool_use_id": call, "content": text, "is_error": error}
    return {"type": "user", "message": {"role": "user", "content": [block]}}


# --------------------------------------------------------------------------- the pure pass


def test_todo_lines_positive_and_negative() -> None:
    assert todo_lines("TODO: wire the retry budget\n# TODO(ann): drop the shim") == [
        "wire the retry budget",
        "drop the shim",
    ]
    for never in (
        "use TodoWrite to track it",
        "my todo: nothing",  # lower case is a word, not a marker
        "the TODO list is empty",  # no colon: talk about TODOs, not one
        "MYTODO: x y z",
        "TODO: ok",  # too short to be an item
    ):
        assert todo_lines(never) == [], never


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("pytest -x tests/", "pytest"),
        ("FOO=1 uv run pytest -q", "pytest"),
        ("cd app && npm test", "npm"),
        ("sudo -E /usr/bin/git status", "git"),
        ("cd app", "cd"),
        ("", None),
    ],
)
def test_program_of(command: str, program: str | None) -> None:
    assert program_of(command) == program


def test_extract_from_records() -> None:
    t = parse_lines(
        _records(
            {"type": "user", "message": {"role": "user", "content": "TODO: check the Redis TTL"}},
            _assistant(
                _tool("Bash", {"command": "pytest -q"}, "c1"),
                _tool("Bash", {"command": "pytest -q tests/a.py"}, "c2"),
                _tool(
                    "Edit", {"file_path": "/w/app/a.py", "new_string": "x  # TODO: cap it"}, "c3"
                ),
                _tool(
                    "TodoWrite",
                    {
                        "todos": [
                            {"content": "Fix the retry loop", "status": "completed"},
                            {"content": "Write the migration", "status": "in_progress"},
                            {"content": "Update the docs", "status": "pending"},
                        ]
                    },
                    "c4",
                ),
            ),
            _result("c1", "1 failed", True),
            _result("c2", "ok", False),
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": "<command-name>/review</command-name> TODO: injected skill text",
                },
            },
        )
    )
    slots = extract(t)
    assert slots.pending_items == [
        "Write the migration",
        "Update the docs",
        "TODO: check the Redis TTL",
        "TODO in code: cap it",
    ]  # the completed todo and the harness's injected text are not pending
    assert slots.commands == {"pytest": 2}
    assert slots.errors == 1 and slots.tool_calls == 4
    assert slots.files_touched == ["/w/app/a.py"]
    assert Slots.from_json(slots.to_json()) == slots
    lines = describe(slots, "2026-12-01 10:00 UTC", "abcdef1234")
    assert lines[0] == "Left by the last session here (2026-12-01 10:00 UTC, session abcdef12):"
    assert "- commands: pytest x2, 1 failed tool call" in lines


def test_a_session_with_nothing_to_keep() -> None:
    t = parse_lines(_records({"type": "user", "message": {"role": "user", "content": "hi"}}))
    assert extract(t).empty and describe(extract(t)) == []


# --------------------------------------------------------------------------- real processes


def _stop_payload(project: Path) -> str:
    events = json.loads(EVENTS.read_text())
    stop = [e for e in events if e.get("hook_event_name") == "Stop"][-1]
    stop["transcript_path"] = stop["transcript_path"].replace("REAL/", f"{REAL}/transcripts/")
    stop["cwd"] = str(project)
    return json.dumps(stop)


def _recall(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reflectgit", "recall", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "codemie-code"
    git("init", "-q", "-b", "main", str(path), cwd=tmp_path)
    return path


def test_stop_keeps_slots_and_recall_shows_them(kb: Path, project: Path) -> None:
    proc = run_hook("Stop", _stop_payload(project), {"REFLECT_SLOTS": "1"})
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    files = list((state_dir(kb) / "slots").glob("*.json"))
    assert len(files) == 1
    doc = json.loads(files[0].read_text())
    assert doc["project"] == "codemie-code"
    assert doc["session_patterns"]["commands"]["ls"] >= 1
    assert doc["session_patterns"]["errors"] >= 1
    assert any(
        f.endswith("session-lifecycle-detection.md")
        for f in doc["project_context"]["files_touched"]
    )
    assert any(i.startswith("TODO: ") for i in doc["pending_items"])
    assert git("status", "--porcelain", cwd=kb) == ""  # state directory only, never the tree

    shown = _recall(project, "--format", "claude")
    assert shown.returncode == 0, shown.stderr
    context = json.loads(shown.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Left by the last session here" in context
    assert "- commands: ls x15, find x6, grep x5" in context  # the most run first
    assert "session-lifecycle-detection.md" in context

    other = project.parent / "billing"  # another project: not its slots
    git("init", "-q", "-b", "main", str(other), cwd=project.parent)
    assert "Left by the last session" not in _recall(other).stdout


def test_slots_off_by_default(kb: Path, project: Path) -> None:
    proc = run_hook("Stop", _stop_payload(project))
    assert proc.returncode == 0 and proc.stderr == ""
    assert not (state_dir(kb) / "slots").exists()
    assert "Left by the last session" not in _recall(project).stdout
