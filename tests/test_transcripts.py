from __future__ import annotations

import json

import pytest

from reflectgit.notes.transcripts import CLAUDE, CODEX, parse_lines
from reflectgit.workflows.transcript_file import read_transcript
from tests.conftest import DATA

T = DATA / "transcripts"
MANIFEST = json.loads((T / "MANIFEST.json").read_text())
BROKEN = sorted((T / "broken").iterdir())


def test_claude_transcript_splits_dialogue_from_tool_traffic():
    t = read_transcript(T / "claude" / "correction-0.jsonl")
    assert t.ok and t.harness == CLAUDE
    assert t.session_id == "02c8261b-740c-1a65-89be-4b4bd9ee50e2"
    assert [turn.role for turn in t.turns][:2] == ["user", "assistant"]
    assert all("ImportError" not in turn.text for turn in t.turns)
    assert t.tool_calls[0].name == "Bash"
    assert t.tool_calls[0].input["command"] == "pip install -r requirements.txt"
    assert "ImportError" in t.tool_results[0].content
    assert t.tool_results[0].call_id == t.tool_calls[0].call_id


def test_codex_rollout_reads_messages_calls_and_outputs():
    t = read_transcript(T / "codex" / "rollout-correction-0.jsonl")
    assert t.ok and t.harness == CODEX
    assert t.session_id and t.cwd == "/home/dev/src/docker-cx"
    assert any("That's wrong" in turn.text for turn in t.turns)
    assert t.tool_calls[0].input["command"][-1] == "docker build ."
    assert t.tool_results[0].is_error is True


@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.name)
def test_broken_files_never_raise(path):
    t = read_transcript(path)
    assert t.error is not None or t.turns  # a clear error value, or what could be read


def test_broken_files_have_clear_errors():
    errors = {p.name: read_transcript(p).error for p in BROKEN}
    assert errors["empty.jsonl"] == "empty"
    assert errors["binary.jsonl"].startswith("binary")
    assert errors["not-json.jsonl"].startswith("not-a-transcript")
    assert errors["wrong-shape.jsonl"].startswith("not-a-transcript")
    truncated = read_transcript(T / "broken" / "truncated.jsonl")
    assert truncated.error is None and truncated.bad_lines == 1
    assert truncated.turns[0].text == "never use sudo pip"


def test_missing_file_is_an_error_value(tmp_path):
    t = read_transcript(tmp_path / "nope.jsonl")
    assert t.error and t.error.startswith("unreadable")


def test_reading_stops_at_the_dialogue_cap():
    lines = [
        json.dumps({"type": "user", "message": {"role": "user", "content": "x" * 100}})
        for _ in range(50)
    ]
    t = parse_lines(lines, max_dialogue_chars=250)
    assert t.dialogue_chars == 250
    assert not t.complete
    assert t.records == 3


def test_big_transcript_reads_all_dialogue():
    t = read_transcript(T / "claude" / "big.jsonl")
    assert t.complete and t.ok
    assert any("VACUUM" in turn.text for turn in t.turns[-3:])
