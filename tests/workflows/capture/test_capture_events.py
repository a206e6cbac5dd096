"""Events are not lessons: what capture keeps in a session's event record, and the one
test-fix note that carries a lesson (its failing tests, error line, edited files, rule)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reflectgit.config import Config
from reflectgit.workflows.capture.commits import Capture
from reflectgit.workflows.capture.events import AgentEvents, _rule_in, normalise
from tests.conftest import DATA, needs_shared
from tests.support.capture import (
    kb_fixture,  # noqa: F401  (the kb fixture)
    notes,
    session_events,
    state_dir,
    subjects,
)

SID = "s-events"
CWD = "/home/dev/src/billing"
RED = (
    "============================= test session starts ==============================\n"
    "platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0\n"
    "rootdir: /home/dev/src/billing\ncollected 44 items\n\n"
    "=================================== FAILURES ===================================\n"
    "E       AssertionError: assert Decimal('10.00') == Decimal('10.01')\n"
    "=========================== short test summary info ============================\n"
    "FAILED tests/test_invoice.py::test_rounding - AssertionError\n"
    "FAILED tests/test_invoice.py::test_total - AssertionError\n"
    "========================= 2 failed, 42 passed in 1.84s ========================="
)
HEADERS_ONLY = (
    "============================= test session starts ==============================\n"
    "platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0\n"
    "rootdir: /home/dev/src/billing\ncollected 44 items\n\n"
    "========================= 2 failed, 42 passed in 1.84s ========================="
)
GREEN = "============================== 44 passed in 1.62s =============================="


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        self.now += 1
        return self.now


def _events(kb: Path) -> AgentEvents:
    return AgentEvents(Capture(Config.resolve(str(kb)), clock=Clock()))


def _pytest(events: AgentEvents, output: str) -> None:
    payload = {"session_id": SID, "cwd": CWD, "tool_name": "Bash"}
    payload["tool_input"] = {"command": "pytest -q"}
    if "failed" in output:
        events.handle("PostToolUseFailure", payload | {"error": "Exit code 1\n" + output})
    else:
        events.handle("PostToolUse", payload | {"tool_response": {"stdout": output}})


REWRITE = ("def total(lines):\n    return sum(lines)", "def total(lines):\n    return fsum(lines)")


def _edit(
    events: AgentEvents,
    path: str,
    *,
    failed: bool = False,
    tool: str = "Edit",
    change: tuple[str, str] = REWRITE,
) -> None:
    payload = {"session_id": SID, "cwd": CWD, "tool_name": tool}
    payload["tool_input"] = {"file_path": path, "old_string": change[0], "new_string": change[1]}
    if failed:
        events.handle("PostToolUseFailure", payload | {"error": "String to replace not found"})
    else:
        events.handle("PostToolUse", payload | {"tool_response": {"filePath": path}})


def _record(kb: Path) -> list[dict[str, Any]]:
    return session_events(kb).get(SID, [])


def test_red_edit_green_writes_the_one_note_that_carries_the_lesson(kb):
    events = _events(kb)
    _pytest(events, RED)
    _edit(events, f"{CWD}/billing/invoice.py")
    _pytest(events, GREEN)
    ((path, text),) = notes(kb).items()
    assert path.startswith("documents/lrn-test-fix-")
    title = (
        "AssertionError: assert Decimal('10.00') == Decimal('10.01') (fixed in billing/invoice.py)"
    )
    assert f"title: {json.dumps(title)}" in text or title.replace("'", "''") in text
    assert "- `tests/test_invoice.py::test_rounding`" in text
    assert "- `billing/invoice.py`" in text
    for header in ("rootdir:", "platform linux", "collected 44 items", "test session starts"):
        assert header not in text
    failed, fixed = _record(kb)
    assert failed["kind"] == "tests-failed" and failed["failures"] == 2
    assert fixed["kind"] == "tests-fixed" and fixed["note"] in path
    assert fixed["files"] == ["billing/invoice.py"]


def test_the_one_small_replacement_between_the_runs_is_the_fix_the_title_names(kb):
    events = _events(kb)
    _pytest(events, RED)
    _edit(events, f"{CWD}/billing/invoice.py", change=("round(x, 2)", "x.quantize(CENT)"))
    _pytest(events, GREEN)
    ((_path, text),) = notes(kb).items()
    assert (
        "title: 'Use `x.quantize(CENT)`, not `round(x, 2)`, in billing/invoice.py (Assert" in text
    )
    assert "`round(x, 2)` became `x.quantize(CENT)` in `billing/invoice.py`." in text


@pytest.mark.parametrize(
    "changes",
    [
        [("round(x, 2)", "x.quantize(CENT)"), ("TAX = 0.2", "TAX = Decimal('0.2')")],  # two edits
        [REWRITE],  # over lines: a rewrite, no single change to name
        [("round(x, 2)", "")],  # a deletion
    ],
    ids=["two-edits", "rewrite", "deletion"],
)
def test_no_single_small_replacement_leaves_the_title_on_the_error(kb, changes):
    events = _events(kb)
    _pytest(events, RED)
    for change in changes:
        _edit(events, f"{CWD}/billing/invoice.py", change=change)
    _pytest(events, GREEN)
    ((_path, text),) = notes(kb).items()
    assert "(fixed in billing/invoice.py)" in text and "became" not in text


def test_green_with_nothing_edited_is_an_event_not_a_note(kb):
    events = _events(kb)
    _pytest(events, RED)
    _pytest(events, GREEN)
    assert notes(kb) == {} and subjects(kb) == ["init"]
    failed, fixed = _record(kb)
    assert failed["error"] == "AssertionError: assert Decimal('10.00') == Decimal('10.01')"
    assert fixed["no_note"] == "no file was edited between the failing and the green run"
    assert "note" not in fixed and "no note" in fixed["summary"]


def test_green_after_a_run_that_named_no_error_is_an_event_not_a_note(kb):
    events = _events(kb)
    _pytest(events, HEADERS_ONLY)  # a header and a summary: no error line
    _edit(events, f"{CWD}/billing/invoice.py")
    _pytest(events, GREEN)
    assert notes(kb) == {}
    (_failed, fixed) = _record(kb)
    assert fixed["no_note"] == "the failing run's output holds no error line"


def test_a_failed_edit_changed_nothing(kb):
    events = _events(kb)
    _pytest(events, RED)
    _edit(events, f"{CWD}/billing/invoice.py", failed=True)
    _pytest(events, GREEN)
    assert notes(kb) == {}


def test_one_fix_one_note(kb):
    events = _events(kb)
    for _ in range(3):  # the same tests fail and are fixed three times in one session
        _pytest(events, RED)
        _edit(events, f"{CWD}/billing/invoice.py")
        _pytest(events, GREEN)
    (path,) = notes(kb)
    fixes = [e for e in _record(kb) if e["kind"] == "tests-fixed"]
    assert len(fixes) == 3
    assert fixes[0]["note"] in path
    assert [f.get("no_note") for f in fixes[1:]] == [f"the same fix as {fixes[0]['note']}"] * 2


def test_another_failing_test_set_is_another_fix(kb):
    events = _events(kb)
    _pytest(events, RED)
    _edit(events, f"{CWD}/billing/invoice.py")
    _pytest(events, GREEN)
    _pytest(events, RED.replace("test_total", "test_tax"))
    _edit(events, f"{CWD}/billing/tax.py")
    _pytest(events, GREEN)
    assert len(notes(kb)) == 2


def test_the_rule_the_person_states_while_tests_fail_goes_with_the_fix(kb):
    events = _events(kb)
    _pytest(events, RED)
    prompt = "Why is that? Money must always be rounded with Decimal.quantize, never round()."
    events.handle("UserPromptSubmit", {"session_id": SID, "cwd": CWD, "prompt": prompt})
    _edit(events, f"{CWD}/billing/invoice.py")
    _pytest(events, GREEN)
    (text,) = notes(kb).values()
    rule = "Money must always be rounded with Decimal.quantize, never round()."
    assert f"title: {rule}" in text and f"rule: {rule}" in text
    assert "## The rule the session stated" in text


def test_a_question_or_chatter_while_tests_fail_is_no_rule(kb):
    events = _events(kb)
    _pytest(events, RED)
    for prompt in ("why does it fail?", "ok, go on", "Thanks, that looks right."):
        events.handle("UserPromptSubmit", {"session_id": SID, "cwd": CWD, "prompt": prompt})
    _edit(events, f"{CWD}/billing/invoice.py")
    _pytest(events, GREEN)
    (text,) = notes(kb).values()
    assert "\nrule:" not in text and "title: 'AssertionError" in text


def test_codex_apply_patch_names_the_files_it_changed(kb):
    events = _events(kb)
    _pytest(events, RED)
    patch = "*** Begin Patch\n*** Update File: billing/invoice.py\n@@\n-a\n+b\n*** End Patch\n"
    events.handle(
        "PostToolUse",
        {
            "session_id": SID,
            "cwd": CWD,
            "tool_name": "apply_patch",
            "tool_input": {"input": patch},
            "tool_response": "Process exited with code 0\nOutput:\nDone!",
        },
    )
    _pytest(events, GREEN)
    (text,) = notes(kb).values()
    assert "- `billing/invoice.py`" in text


@pytest.mark.parametrize(
    ("response", "failed"),
    [
        ("Process exited with code 2\nOutput:\nboom", True),
        (
            "Exit code: 129\nWall time: 3.1 seconds\nOutput:\nerror: option `short' takes no value",
            True,
        ),
        ("Exit code: 0\nWall time: 0.1 seconds\nOutput:\n3 passed", False),
        # a program printing the words further down says nothing of the command
        ("Wall time: 0.1 seconds\nOutput:\nExit code: 1", False),
    ],
)
def test_a_codex_results_exit_code_is_read_from_its_first_lines(response, failed):
    payload = {"session_id": SID, "tool_name": "shell", "tool_response": response}
    assert normalise("PostToolUse", payload, "codex")["_failed"] is failed


def _todo(events: AgentEvents, status: str) -> None:
    events.handle(
        "PostToolUse",
        {
            "session_id": SID,
            "tool_name": "TodoWrite",
            "tool_input": {"todos": [{"content": "Wire the retry", "status": status}]},
        },
    )


def test_a_finished_todo_is_an_event_and_a_replayed_one_is_not_recorded_twice(kb):
    events = _events(kb)
    _todo(events, "in_progress")
    state = state_dir(kb) / "capture" / "todo-state" / f"{SID}.json"
    before = state.read_bytes()
    _todo(events, "completed")
    state.write_bytes(before)  # a pass killed after the event, before the todo state was saved
    _todo(events, "completed")
    assert notes(kb) == {}
    (done,) = _record(kb)
    assert done["kind"] == "todo-done" and done["summary"].startswith("Done: Wire the retry")


def test_a_todo_that_never_finished_records_nothing(kb):
    events = _events(kb)
    _todo(events, "pending")
    _todo(events, "in_progress")
    assert _record(kb) == [] and notes(kb) == {}


REAL_HOOK_EVENTS = DATA / "real" / "hook-events"


def _prompts(name: str) -> list[str]:
    for folder in (REAL_HOOK_EVENTS, DATA / "hook-events"):
        if (folder / name).exists():
            events = json.loads((folder / name).read_text())
            return [e["prompt"] for e in events if isinstance(e, dict) and e.get("prompt")]
    raise AssertionError(name)


@needs_shared
def test_the_rules_people_state_in_real_prompts():
    said = {
        p: _rule_in(p)
        for name in ("correction.json", "codex-hooks.json", "loop.json")
        for p in _prompts(name)
    }
    assert said["No, don't use pip here. Use uv instead of pip, always."] == (
        "No, don't use pip here. Use uv instead of pip, always."
    )
    assert said["Stop doing that, use ruff check instead of make lint."] == (
        "Stop doing that, use ruff check instead of make lint."
    )
    assert said["let's update the default context compaction to 90 in env var"] is None


@needs_shared
@pytest.mark.parametrize(
    "name",
    [
        "doc-claude-pytest-red-green.json",
        "copilot-cli-camelcase.json",
        "derived-codemie-9eda1058.json",
        "derived-spotter-short.json",
        "failure-then-unrelated-prompt.json",
        "permissions.json",
    ],
)
def test_real_requests_and_answers_state_no_rule(name):
    asked = [p for p in _prompts(name) if not p.startswith("No, don't")]
    assert asked and all(_rule_in(p) is None for p in asked), asked


def test_rule_sentences_positive_and_negative():
    assert _rule_in("Why? Never call round() on money.") == "Never call round() on money."
    assert _rule_in("use Decimal instead") == "use Decimal instead"
    for chatter in ("why does it fail?", "ok, go on", "run the tests", "what else?", ""):
        assert _rule_in(chatter) is None, chatter


def test_an_assertion_made_green_by_editing_the_tests_only_is_an_event_not_a_note(kb):
    """The test's expected value brought in line with the code: routine, no lesson."""
    events = _events(kb)
    _pytest(events, RED)
    _edit(events, f"{CWD}/tests/test_invoice.py", change=("Decimal('10.01')", "Decimal('10.00')"))
    _pytest(events, GREEN)
    assert notes(kb) == {}
    (_failed, fixed) = _record(kb)
    assert fixed["no_note"] == "a test's expected value brought in line with the code"


def test_an_assertion_made_green_by_editing_the_code_and_the_tests_is_a_note(kb):
    events = _events(kb)
    _pytest(events, RED)
    _edit(events, f"{CWD}/tests/test_invoice.py", change=("Decimal('10.01')", "Decimal('10.00')"))
    _edit(events, f"{CWD}/billing/invoice.py", change=("round(x, 2)", "x.quantize(CENT)"))
    _pytest(events, GREEN)
    assert len(notes(kb)) == 1
