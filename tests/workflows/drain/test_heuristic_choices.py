"""The person's pick among the ways a question tool offered (issue 34, recall): Claude Code's
``AskUserQuestion`` (and Copilot CLI's ``ask_user``) returns the person's choice as the tool's
result, never as a typed turn. A question that says what stands in the way, asks how to handle
it, and is answered with one of its options is a low note: the pick, with what it was chosen
over. Tune sets with the shape: held-apart-10, -12, -13 (and -15, a session the gate skips).
The negatives are the picks of the same sets that are no lesson: a go-ahead, a value asked for,
the task's own content asked about with nothing in the way, and words of the person's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflectgit.notes.transcripts import Transcript, parse_lines
from reflectgit.workflows.drain.heuristic.choices import chosen_ways
from tests.support.drain import drained_notes

APPARMOR = (
    "AppArmor in docker-compose.yml breaks `docker compose up` on macOS (no AppArmor kernel). "
    "How should we handle this?"
)
OPTIONS = [
    {
        "label": "Compose override file (Recommended)",
        "description": "Remove AppArmor from base docker-compose.yml, add docker-compose.prod.yml "
        "with the AppArmor line.",
    },
    {"label": "Comment + document", "description": "Keep the line commented out."},
    {"label": "Remove entirely", "description": "Drop the AppArmor profile."},
]


def _record(kind: str, content: object, i: int) -> str:
    return (
        json.dumps(
            {
                "type": kind,
                "message": {"role": kind, "content": content},
                "sessionId": "s-1",
                "uuid": f"u{i}",
            }
        )
        + "\n"
    )


def drained(tmp_path: Path, repo: Path, question: str, options: list, answer: str) -> dict:
    """The notes the real drain writes into ``repo`` from a Claude Code transcript where the
    assistant asks ``question`` through AskUserQuestion and the person answers ``answer``."""
    ask = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "AskUserQuestion",
        "input": {
            "questions": [{"question": question, "header": "AppArmor fix", "options": options}]
        },
    }
    result = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": f'User has answered your questions: "{question}"="{answer}". '
        "You can now continue with the user's answers in mind.",
    }
    records = [
        ("user", "Audit phase 10 against the plan and fix the bugs you find."),
        (
            "user",
            "No, don't run the stack with sudo, always use the docker group instead.",
        ),
        ("assistant", [{"type": "text", "text": "Understood."}, ask]),
        ("user", [result]),
        ("assistant", [{"type": "text", "text": "Done: the override file is in place."}]),
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(_record(k, c, i) for i, (k, c) in enumerate(records)))
    return drained_notes(repo, path)


TITLE = "AppArmor fix: Compose override file, not Comment + document or Remove entirely"


def test_a_way_picked_for_what_stands_in_the_way_is_a_low_note(tmp_path, repo):
    notes = drained(tmp_path, repo, APPARMOR, OPTIONS, "Compose override file (Recommended)")
    front = notes[TITLE]
    assert front["confidence"] == "low"
    assert front["rule"].startswith("Compose override file: Remove AppArmor from base")
    assert "Chosen over: Comment + document; Remove entirely." in front["rule"]
    assert "breaks `docker compose up` on macOS" in front["problem"]


@pytest.mark.parametrize(
    ("question", "options", "answer"),
    [
        # a go-ahead, not a way
        (
            "The lint fails in 3 locked files. How should I proceed?",
            [{"label": "Yes, fix all"}, {"label": "No, skip them"}],
            "Yes, fix all",
        ),
        # a value asked for (held-apart-12: "Which visibility?")
        (
            "There is still no GitHub remote, the toolkit can't run. Which visibility?",
            [{"label": "Public"}, {"label": "Private"}],
            "Public",
        ),
        # the task's own content, nothing in the way (held-apart-10's packaging question)
        (
            "How should this PR-review context be packaged so you can invoke it?",
            [{"label": "Custom subagent"}, {"label": "Plain reference doc"}],
            "Custom subagent",
        ),
        # words of the person's own, not one of the ways offered
        (APPARMOR, OPTIONS, "main was clean; fix the issues"),
    ],
)
def test_a_pick_that_is_no_way_writes_nothing(tmp_path, repo, question, options, answer):
    notes = drained(tmp_path, repo, question, options, answer)
    assert not [t for t in notes if "not" in t and any(o["label"] in t for o in options)]
    assert TITLE not in notes


def _copilot(question: str, choices: list[str], answer: str) -> Transcript:
    """A Copilot CLI events file: the assistant's ``ask_user`` request and its result."""
    events = [
        {"type": "session.start", "data": {"sessionId": "c-1", "producer": "copilot-agent"}},
        {
            "type": "assistant.message",
            "data": {
                "content": "",
                "toolRequests": [
                    {
                        "toolCallId": "t1",
                        "name": "ask_user",
                        "arguments": {"question": question, "choices": choices},
                    }
                ],
            },
        },
        {
            "type": "tool.execution_complete",
            "data": {"toolCallId": "t1", "success": True, "result": {"content": answer}},
        },
    ]
    return parse_lines([json.dumps(e) for e in events])


def test_a_copilot_pick_is_read_as_the_same_choice():
    question = "The cached hook blocks every dispatch. How should we unblock it?"
    choices = ["Restart the CLI now (Recommended)", "Hide the entire binary"]
    notes = chosen_ways(_copilot(question, choices, "User selected: Hide the entire binary"))
    assert [n["title"] for n in notes] == ["Hide the entire binary, not Restart the CLI now"]
    # the person's own words in place of a choice are none
    assert not chosen_ways(_copilot(question, choices, "User responded: restart later"))
