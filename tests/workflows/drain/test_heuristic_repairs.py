"""A session with no signal words whose tool calls hold a repair (issue 34, recall): a command
failed, the assistant said what it read there, edited a file, and a test run after the edit
passed. The gate (``notes/repairs``) passes it, so the drain's structural cause readers run.
Each case is a Claude Code transcript in tmp_path, with the words of held-apart-24's wasa
session 1978f925 (issue #143, aider's positional argument), run through the real enqueue gate,
the cascade and ``heuristic.write``; every negative has the same words without the shape, or
the shape's words only in text the harness injected."""

from __future__ import annotations

from pathlib import Path

import pytest

from reflectgit.notes.signals import REPAIR
from reflectgit.workflows.capture import gate
from reflectgit.workflows.drain import cascade, heuristic
from tests.support.dialogue import session_file, tool_call

ASK = (
    "implement https://github.com/JoakimCarlsson/wasa-cli/issues/143 "
    "bring every detected agent to full support parity"
)
RED = (
    "--- FAIL: TestByRecorderTool (0.00s)\n"
    "    agent_test.go:63: ByRecorderTool(aider) reported found; want not found (no recorder)\n"
    "FAIL\nFAIL\tgithub.com/joakimcarlsson/wasa-cli/internal/agent\t0.005s\n"
)
GREEN = (
    "=== RUN   TestCreateSessionSeedsAgentPrompt\n"
    "--- PASS: TestCreateSessionSeedsAgentPrompt (0.00s)\nPASS\n"
    "ok  \tgithub.com/joakimcarlsson/wasa-cli/internal/launch\t0.003s\n"
)
SAID = (
    "Confirmed: aider's only prompt-passing flags (`--message`/`-m`) disable interactive chat "
    'mode entirely, and a positional argument means "add this file" — not "say this." Giving '
    "aider a `RecorderTool` now makes `seedPrompt` seed it via a positional argument, which "
    "would misfire. Let me fix that launch-time coupling."
)
FIX = tool_call(
    "e1",
    "Edit",
    {
        "file_path": "/work/wasa-cli/internal/launch/launch.go",
        "old_string": "if !agent.AgentForProgram(p.Program) {",
        "new_string": "// aider has a recorder but no CLI seeding: a positional argument is a file\n"
        'if !agent.AgentForProgram(p.Program) || agent.Base(p.Program) == "aider" {',
    },
    "The file has been updated.",
)


def _test(call: str, output: str, error: bool = False) -> list:
    command = {"command": "go test ./internal/launch/... -run TestCreateSessionSeedsAgentPrompt"}
    return tool_call(call, "Bash", command, output, error)


FAILED = tool_call(
    "t0", "Bash", {"command": "go test ./internal/agent/..."}, RED + "exit status 1", True
)


def _drained(tmp_path: Path, turns: list) -> tuple[gate.Verdict, cascade.Prepared, list[dict]]:
    """The enqueue gate's verdict, the cascade's entry and the notes the writer gives."""
    path = session_file(tmp_path, turns)
    prepared = cascade.prepare(str(path))
    notes = [] if prepared.skip else heuristic.write(prepared)["actions"]
    return gate.evaluate(path), prepared, notes


def test_a_failure_read_edited_and_then_green_opens_the_gate_and_gives_its_cause(tmp_path):
    turns = [("user", ASK), *FAILED, ("assistant", SAID), *FIX, *_test("t1", GREEN)]
    verdict, prepared, notes = _drained(tmp_path, turns)
    assert verdict.enqueue and verdict.reason == gate.HAS_SIGNAL and verdict.detail == REPAIR
    assert [s.kind for s in prepared.signals] == [REPAIR]
    assert prepared.signals[0].speaker == "assistant"
    assert len(notes) == 1
    assert "positional argument" in notes[0]["title"]
    assert "green test run" in notes[0]["body"]


@pytest.mark.parametrize(
    "turns",
    [
        # the same words and edit, nothing failed before them
        [("user", ASK), ("assistant", SAID), *FIX, *_test("t1", GREEN)],
        # a failure edited straight away: nobody read it before the edit
        [("user", ASK), *FAILED, *FIX, ("assistant", SAID), *_test("t1", GREEN)],
        # read and edited, but no test run passes after the edit
        [("user", ASK), *FAILED, ("assistant", SAID), *FIX, *_test("t1", RED, True)],
        # the failure passed again with no edit: a recovery's shape, not this one's
        [("user", ASK), *FAILED, ("assistant", SAID), *_test("t1", GREEN)],
    ],
    ids=["nothing-failed", "nobody-read-it", "never-green", "no-edit"],
)
def test_the_same_words_without_the_repair_keep_the_gate_closed(tmp_path, turns):
    verdict, prepared, notes = _drained(tmp_path, turns)
    assert not verdict.enqueue and verdict.reason == gate.NO_SIGNAL
    assert prepared.skip == "no-signal"
    assert notes == []


def test_a_repair_told_only_in_injected_text_is_no_note(tmp_path):
    """The harness's text (a saved memory in a system reminder, a hook's output) is never a
    person's lesson: a failure, an edit and a green run with the words only there opens
    nothing, and the reminder's rule gives no note where the repair opens the gate."""
    memory = (
        "<system-reminder>User memory: Do not include Co-authored-by: Copilot trailers in git "
        "commit messages. " + SAID + "</system-reminder>"
    )
    hook = "PostToolUse:Bash hook feedback: " + SAID
    silent = [("user", ASK), *FAILED, ("user", memory), ("user", hook), *FIX]
    verdict, prepared, notes = _drained(tmp_path, [*silent, *_test("t1", GREEN)])
    assert (verdict.reason, prepared.skip, notes) == (gate.NO_SIGNAL, "no-signal", [])
    opened = [("user", memory), ("user", ASK), *FAILED, ("assistant", SAID), *FIX]
    _verdict, prepared, notes = _drained(tmp_path, [*opened, *_test("t1", GREEN)])
    assert [s.kind for s in prepared.signals] == [REPAIR]
    assert not any("co-authored" in n["title"].lower() for n in notes)


def test_a_repair_in_a_language_the_readers_cannot_read_stays_unread(tmp_path):
    """A session whose person writes Korean is given whole to a model writer (``unread-
    language``), not sliced at a repair the heuristic writer could not read either."""
    ask = (
        "이 이슈를 구현해 주세요 그리고 테스트를 실행하고 결과를 알려 주세요 "
        "커밋은 나중에 제가 직접 하겠습니다 감사합니다"
    )
    said = "`sqlite3` import 추가 필요: 테스트가 실패한 원인은 누락된 import 입니다."
    turns = [("user", ask), *FAILED, ("assistant", said), *FIX, *_test("t1", GREEN)]
    verdict, prepared, notes = _drained(tmp_path, turns)
    assert verdict.reason == gate.UNREAD_LANGUAGE and prepared.skip == gate.UNREAD_LANGUAGE
    assert notes == []


def test_a_test_written_to_fail_first_opens_the_gate_and_gives_no_note(tmp_path):
    """The gate's weakest signal is a look, not a lesson: a red test the assistant wrote first,
    then the code that makes it pass, names no cause for the readers to keep."""
    red = "E   AssertionError: 2 != 3\n=== 1 failed in 0.10s ==="
    edit = {"file_path": "app/sum.py", "old_string": "return 0", "new_string": "return a + b"}
    turns = [
        ("user", "add the sum"),
        *tool_call("t0", "Bash", {"command": "pytest -q"}, red, True),
        ("assistant", "Red as expected. Now the code."),
        *tool_call("e1", "Edit", edit, "The file has been updated."),
        *tool_call("t1", "Bash", {"command": "pytest -q"}, "3 passed in 0.10s"),
    ]
    verdict, prepared, notes = _drained(tmp_path, turns)
    assert verdict.detail == REPAIR and prepared.skip is None
    assert notes == []
