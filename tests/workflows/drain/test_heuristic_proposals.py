"""A way the person proposes as a question that names the way it replaces, granted by the
assistant (issue 34, recall): "Are you looking in the workload container, not the charm
container?" then "Ah, excellent point! ..." keeps "Look in the workload container, not the
charm container". Tune sets with the shape: held-apart-4, -6, -8. The negatives are the
junk's questions of the same grammar (held-apart-3: a question asking for options; held-apart-4:
a report asked as a question) and a proposal the assistant does not grant."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflectgit.workflows.drain.heuristic import rules
from tests.support.drain import drained_notes

ASKED = "Are you looking in the workload container, not the charm container?"
GRANT = (
    "Ah, excellent point! I've been checking the charm container, not the sungather workload "
    "container. Let me check the actual workload container:"
)


def drained(tmp_path: Path, repo: Path, turns: list[tuple[str, str]]) -> dict[str, dict]:
    """The notes the real drain writes into the KB ``repo`` from a Claude Code transcript of
    ``turns``, by title."""
    path = tmp_path / "session.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {
                    "type": role,
                    "message": {"role": role, "content": text},
                    "sessionId": "s-1",
                    "uuid": f"u{i}",
                }
            )
            + "\n"
            for i, (role, text) in enumerate(turns)
        )
    )
    return drained_notes(repo, path)


def _drained(tmp_path: Path, repo: Path, question: str, reply: str) -> dict[str, dict]:
    return drained(
        tmp_path,
        repo,
        [
            ("user", "Deploy the sungather charm and find out why the service does not start."),
            (
                "assistant",
                "The pod is running, but the service does not start: `sungather.py` is missing "
                "from `/app` in the rock we built.",
            ),
            ("user", question),
            ("assistant", reply),
            ("assistant", "The files are there in the workload container."),
        ],
    )


def test_a_way_proposed_against_another_and_granted_is_a_low_note(tmp_path, repo):
    notes = _drained(tmp_path, repo, ASKED, GRANT)
    front = notes["Look in the workload container, not the charm container"]
    assert front["confidence"] == "low"
    assert front["rule"] == "Look in the workload container, not the charm container."


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        # the assistant does not grant it: the person's question stays a question
        (ASKED, "Let me list the rock's files first and then decide where to look."),
        # granted with a "but": the assistant keeps its own way
        (ASKED, "Yes, but the rock's files are copied into the charm container at start-up."),
        # the junk's grammar: a question asking for options (held-apart-3)
        (
            "What are the options to set up a full test suite for all shells, not the Go side?",
            "Good point — there are three options.",
        ),
        # the junk's grammar: a report asked as a question (held-apart-4)
        ("Still reporting CPS instead of CPM?", "Yes, the tool descriptions still say CPS."),
    ],
    ids=["not-granted", "granted-but", "asks-for-options", "a-report"],
)
def test_a_question_of_that_grammar_not_granted_or_proposing_no_way_is_no_note(
    tmp_path, repo, question, reply
):
    notes = _drained(tmp_path, repo, question, reply)
    assert not [t for t in notes if "container" in t or "CPS" in t or "Go side" in t]


@pytest.mark.parametrize(
    ("said", "rule"),
    [
        (
            "could we instead just run cargo package on all of the crates and subcrates "
            "instead of the tag checking?",
            "Run cargo package on all of the crates and subcrates instead of the tag checking",
        ),
        (ASKED, "Look in the workload container, not the charm container"),
        (
            "Can you try to combine git add and git commit into one line instead of two commands?",
            "Combine git add and git commit into one line instead of two commands",
        ),
        ("Should we pin uv rather than pip?", "Pin uv rather than pip"),
        # no refused way named: a proposal the question does not weigh against another
        ("maybe use github mcp instead?", ""),
        ("Could we just run cargo package?", ""),
        # not a proposal: a report, a question asking what, a statement
        ("Still reporting CPS instead of CPM?", ""),
        ("Why is it reading the cache instead of the file?", ""),
        ("We run cargo package instead of the tag checking.", ""),
    ],
)
def test_proposed_rule_reads_only_a_way_weighed_against_another(said, rule):
    assert rules.proposed_rule(said) == rule


@pytest.mark.parametrize(
    ("reply", "grants"),
    [
        (GRANT, True),
        ("Yeah, that's a simpler direction.", True),
        # a concession as the shared reading has it (``signals.CONCESSION_RE``)
        ("You're right — the workload container is where the files are.", True),
        ("Good catch. I was in the charm container.", True),
        ("Yes, but the rock's files are copied into the charm container at start-up.", False),
        ("You're right to ask, but I checked both.", False),
        ("Let me list the rock's files first.", False),
    ],
)
def test_a_grant_is_a_concession_or_a_yes_not_one_with_a_but(reply, grants):
    assert rules._grants(reply) is grants
