"""A bug the assistant names as the one it found (issue 34, recall): "There's a small bug in
the `getInitials` function. When the string is empty, `split()` returns ...", "Copilot
flagged the same real issue: the mock target ...". The qualified name is a root-cause signal
(``signals.NAMED_BUG``); the cause is what follows it after a colon or a dash, else the next
sentence, and it is a note only once confirmed, as every stated cause is."""

from __future__ import annotations

import pytest

from reflectgit.notes.signals import MEDIUM, classify
from reflectgit.notes.transcripts import ASSISTANT
from reflectgit.workflows.drain.heuristic import causes
from tests.workflows.drain.test_heuristic import _actions


@pytest.mark.parametrize(
    "line",
    [
        "Thanks for flagging it - that was a real bug. Because I passed the team as fresh "
        "data, the query never refetched.",
        "There's a small bug in the `getInitials` function. When the string is empty, "
        "`split()` returns one empty string.",
        "Copilot and Cursor Bugbot both flagged the same real issue: the mock target is wrong.",
        "There is also a real product issue here: `sync` fetches before it checks the target.",
        "Now I see the real issue. The tests call `validate_anyhow()`, which was renamed.",
    ],
    ids=["real-bug", "small-bug-in", "same-real-issue", "here", "announced"],
)
def test_a_bug_named_as_the_one_found_is_a_root_cause_signal(line):
    assert classify(line, ASSISTANT) == (MEDIUM, "root-cause")


@pytest.mark.parametrize(
    "line",
    [
        "The same issue persists after the rebuild.",  # no qualifier: the topic again
        "The second issue: the cache.",  # a list's label
        "Is this a real bug or expected behaviour?",  # a question
        "This problem is solved now.",  # the topic of the work
        "That is a real improvement over the old loader.",  # not a bug
        "I'll look into the issue with the loader.",  # no qualifier
    ],
    ids=["same-issue", "label", "question", "topic", "improvement", "unqualified"],
)
def test_a_bug_named_without_a_qualifier_or_asked_is_no_signal(line):
    assert classify(line, ASSISTANT) is None


@pytest.mark.parametrize(
    ("said", "cause"),
    [
        (
            [
                "There's a small bug in the `getInitials` function.",
                "When the string is empty, `split()` returns one empty string.",
            ],
            "When the string is empty, `split()` returns one empty string.",
        ),
        (
            ["Copilot flagged the same real issue: the mock target is the source module."],
            "the mock target is the source module.",
        ),
        (
            ["This is a real bug in the loader \u2014 `agent_id` is never passed."],
            "`agent_id` is never passed.",
        ),
        # a search announced, not its finding
        (["Let me look at the real issue from another angle.", "Let me check `x`."], ""),
        (["Now I see the real issue.", "Does `x` hang?"], ""),
        # the name alone, nothing after it
        (["## The Real Issue"], ""),
        (["The tests fail on Windows."], ""),
    ],
    ids=["next-sentence", "colon", "dash", "intent", "question", "heading", "no-name"],
)
def test_the_cause_is_what_follows_the_name(said, cause):
    assert causes.named_bug_cause(said) == cause


FAILED = [
    ("user", "the avatar shows nothing for users without a name"),
    (
        "assistant",
        "There's a small bug in the `getInitials` function. When the name is empty after "
        "trim, `split()` returns an array with one empty string, not an empty array. Shall I "
        "fix it?",
    ),
]


def test_a_named_bug_the_person_confirms_is_a_note_titled_by_its_cause(tmp_path):
    [action] = _actions(tmp_path, [*FAILED, ("user", "yes")])
    assert action["title"].startswith("When the name is empty after trim, `split()` returns")
    assert action["learning_type"] == "bug-fix" and action["confidence"] == "medium"
    assert "There's a small bug" in action["body"], "the evidence: the assistant's words"


def test_a_named_bug_with_its_cause_after_a_colon_is_titled_by_that_clause(tmp_path):
    turns = [
        ("user", "the exporter test still patches nothing"),
        (
            "assistant",
            "The review flagged the same real issue: `cli.py` imports `default_output_dir` "
            "by name, so patching `output.default_output_dir` leaves the CLI's copy alone. "
            "Shall I change the mock target?",
        ),
        ("user", "yes"),
    ]
    [action] = _actions(tmp_path, turns)
    assert action["title"].startswith("`cli.py` imports `default_output_dir` by name")


@pytest.mark.parametrize(
    "turns",
    [
        # nobody confirms it: the person turns to something else
        [*FAILED, ("user", "leave it, look at the login page instead")],
        # the name alone, as a heading: no cause follows it on its line
        [
            ("user", "why does the sync hang?"),
            ("assistant", "## The Real Issue"),
            ("user", "yes"),
        ],
        # a search announced, not its finding (the junk kind "the assistant's account of
        # the work read as a cause")
        [
            ("user", "why does the upload hang?"),
            (
                "assistant",
                "Let me look at the real issue from a completely different angle. Let me "
                "check the `set_blob_metadata` call.",
            ),
            ("user", "yes"),
        ],
        # the assistant's account of its work: the sentence after the name names nothing
        [
            ("user", "why does the loader drop rows?"),
            (
                "assistant",
                "All 12 tests pass. I fixed a real bug in the loader. Ready for your review.",
            ),
            ("user", "great, commit it"),
        ],
    ],
    ids=["unconfirmed", "heading", "intent", "account"],
)
def test_a_named_bug_unconfirmed_or_stating_nothing_is_no_note(tmp_path, turns):
    assert _actions(tmp_path, turns) == []
