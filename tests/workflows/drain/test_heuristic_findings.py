"""A finding the person relays (issue 34.3): a reviewer's or a failed job's finding pasted into
the person's turn, which the assistant's edits then act on and a passing test run or the
person's go-ahead confirms. Each case is a Claude Code transcript in tmp_path run through the
real cascade (the gate passes it on the person's expected behaviour or the finding's
suggestion alone); every shape has its negatives."""

from __future__ import annotations

from pathlib import Path

import pytest

from reflectgit.workflows.drain import cascade, heuristic
from tests.support.dialogue import session_file, tool_call

GREEN = "12 passed in 0.40s"
RED = "E   AssertionError: spinner\n=== 1 failed, 11 passed in 0.40s ==="

FINDINGS = (
    "Can you improve the flaky windows test job?\n\n"
    "Findings\n"
    "TestUploadRetry failed because Windows still held the upload.tmp file open: Access is "
    "denied.\n"
    "Several tests passed but were reported as failures because spinner escape sequences were "
    "written directly to stdout and corrupted the go test -json stream.\n"
    "Expected behavior\n"
    "Upload cleanup should tolerate transient Windows file locks without sleeps.\n"
    "Spinner output should honor the injected writer so test JSON stays machine-readable.\n"
)
REVIEW = (
    "*2. (Medium) On failure, the cleanup defer deletes a pre-existing target directory*\n"
    "ensureEmptyTarget accepts an existing empty directory, but cleanupTarget calls "
    "os.RemoveAll on it, so the user's directory is destroyed when a later step fails. "
    "Consider removing only the entries, or recording whether this run created the dir."
)


def _actions(tmp_path: Path, turns: list) -> list[dict]:
    path = session_file(tmp_path, turns)
    prepared = cascade.prepare(str(path))
    assert prepared.skip is None, prepared.skip
    return [a for a in heuristic.write(prepared)["actions"] if "relaying" in a["body"]]


def _run(call: str, output: str) -> list:
    return tool_call(call, "Bash", {"command": "pytest -q"}, output)


def _edit(call: str, path: str, new: str) -> list:
    edit = {"file_path": path, "old_string": "x", "new_string": new}
    return tool_call(call, "Edit", edit, "The file has been updated.")


UPLOAD_FIX = _edit("e1", "upload/cleanup_windows.go", "retry removing upload.tmp on file locks")
SPINNER_FIX = _edit("e2", "ux/spinner.go", "spinner writes to the injected writer, not stdout")
CLEANUP_FIX = _edit(
    "e1", "convert.go", "created, err := ensureEmptyTarget(dir) // cleanupTarget keeps it"
)


def test_each_finding_is_a_note_titled_by_the_expected_behaviour_it_pairs_with(tmp_path):
    turns = [
        ("user", FINDINGS),
        ("assistant", "Tracing each failure path."),
        *UPLOAD_FIX,
        *SPINNER_FIX,
        *_run("t1", GREEN),
        ("assistant", "Both fixed; the tests pass."),
    ]
    actions = _actions(tmp_path, turns)
    assert [a["title"] for a in actions] == [
        "Upload cleanup should tolerate transient Windows file locks without sleeps",
        "Spinner output should honor the injected writer so test JSON stays machine-readable",
    ]
    assert actions[0]["root_cause"].startswith("TestUploadRetry failed because Windows")
    assert "corrupted the go test -json stream" in actions[1]["root_cause"]
    assert "passing test run" in actions[0]["body"]
    assert {a["confidence"] for a in actions} == {"medium"}


def test_a_finding_with_its_suggestion_the_person_goes_on_with_is_a_note(tmp_path):
    turns = [
        ("user", REVIEW),
        ("assistant", "The finding is valid: the cleanup removes the directory itself."),
        *CLEANUP_FIX,
        ("assistant", "Fixed: the cleanup now removes only what this run created."),
        ("user", "commit and push"),
        ("assistant", "Committed and pushed."),
    ]
    [action] = _actions(tmp_path, turns)
    assert action["title"] == (
        "On failure, the cleanup defer deletes a pre-existing target directory: consider "
        "removing only the entries, or recording whether this run created the dir"
    )
    assert "the person going on with the fix: “commit and push”" in action["body"]


@pytest.mark.parametrize(
    "turns",
    [
        # the person turns the fix down
        [
            ("user", REVIEW),
            *CLEANUP_FIX,
            *_run("t1", GREEN),
            ("user", "not sure I like this, can you revert it?"),
        ],
        # nothing confirms it: the last run fails and the person complains
        [("user", REVIEW), *CLEANUP_FIX, *_run("t1", RED), ("user", "still broken?")],
        # the edits are about something else
        [
            ("user", REVIEW),
            *_edit("e1", "README.md", "Document the sync flags"),
            *_run("t1", GREEN),
        ],
        # no edit at all: the finding was only discussed
        [
            ("user", REVIEW),
            ("assistant", "The finding is against a stale revision."),
            *_run("t1", GREEN),
        ],
    ],
    ids=["turned-down", "unconfirmed", "other-edit", "no-edit"],
)
def test_a_finding_not_acted_on_and_confirmed_is_no_note(tmp_path, turns):
    assert _actions(tmp_path, [*turns, ("assistant", "Done.")]) == []


@pytest.mark.parametrize(
    "said",
    [
        # a brief's task list: instructions, no statement of what went wrong
        "Fix the failing upload test in cleanup_windows.go.\n"
        "Make the spinner use the injected writer, it should not write to stdout.\n",
        # a wish for more, not a failure seen
        "It would be good to show the upload errors in the spinner output as well.\n"
        "The spinner should use the injected writer.\n",
        # the failure word only in a refactor's instruction
        "spinner.go and upload.go carry duplicated cleanup blocks.\n"
        "Extract a shared cleanup(dir) (int, error) helper; both should call it.\n",
        # a table's rows (a pasted report), not a finding with its suggestion
        "| Severity | Error | Suggestion |\n| Upload cleanup fails | spinner | Consider retrying |\n"
        "The spinner output should honor the injected writer.\n",
    ],
    ids=["task-list", "wish", "refactor", "table"],
)
def test_no_finding_in_a_task_list_a_wish_or_a_refactor(tmp_path, said):
    turns = [
        ("user", said),
        *UPLOAD_FIX,
        *SPINNER_FIX,
        *_run("t1", GREEN),
        ("assistant", "Done."),
    ]
    assert _actions(tmp_path, turns) == []
