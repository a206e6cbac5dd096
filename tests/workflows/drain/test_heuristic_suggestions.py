"""The person's suggestion the assistant grants (issue 34, recall): a hunch about a way is a
rule only once the assistant's reply opens by granting it and says no point of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflectgit.notes.signals import LOW, SUGGESTION, Signal
from reflectgit.workflows.drain import cascade, heuristic
from reflectgit.workflows.drain.heuristic import rules


def _session(tmp_path: Path, turns: list[tuple[str, str]]) -> str:
    lines = [
        json.dumps(
            {
                "type": role,
                "message": {"role": role, "content": text},
                "sessionId": "s-1",
                "uuid": f"u{i}",
            }
        )
        for i, (role, text) in enumerate(turns)
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _actions(tmp_path: Path, turns: list[tuple[str, str]]) -> list[dict]:
    prepared = cascade.prepare(_session(tmp_path, turns))
    return heuristic.write(prepared)["actions"] if prepared.skip is None else []


SIG = Signal(line_index=0, tier=LOW, kind=SUGGESTION, category="Unknown", text="")
GRANT = "Good point — the current guidance says 5-10 km, which is too small."


@pytest.mark.parametrize(
    "said",
    [
        "The model puts Mitsue in Mie. Maybe we should make the search area of villages and "
        "towns much bigger, maybe a 50km radius?",
        "How about reading the retry limit from `settings.toml` instead of hard-coding it?",
        "Perhaps the fixtures should build their own temporary repository for every test.",
    ],
    ids=["maybe-we-should", "how-about", "perhaps"],
)
def test_a_proposal_in_a_suggestions_words_is_titled_by_its_sentence(said):
    action = rules.granted_suggestion(said, GRANT, SIG)
    assert action is not None
    assert action["title"].split()[0] in ("Maybe", "How", "Perhaps")
    assert action["confidence"] == "low"
    assert "the assistant granting it" in action["body"]


@pytest.mark.parametrize(
    "said",
    [
        # the person's words for this task: a question that asks, a hunch naming nothing,
        # a request, a report
        "Is there any need to redact anything at all unless it is patient data?",
        "maybe tabs?",
        "Can you add the sensor table to the answer?",
        "The map still shows the old sensors after the reload.",
        # a question first: the grant answers it, whatever a later sentence hedges
        "Is the radius too small? which will maybe matter for the villages in Nara as well?",
    ],
    ids=["question", "hunch", "request", "report", "question-first"],
)
def test_a_question_a_hunch_a_request_or_a_report_is_no_suggestion(said):
    assert rules.granted_suggestion(said, GRANT, SIG) is None


SUGGESTED = (
    "user",
    "The model put Mitsue in Mie, not Nara. Maybe we should make the search area of villages "
    "and towns much bigger, maybe a 50km radius?",
)


def test_a_suggestion_the_assistant_grants_is_a_low_note_titled_by_the_suggestion(tmp_path):
    granted = (
        "assistant",
        'Good point — the current guidance says "Village: 5000-10000m", which is way too '
        "small. Let me update it.",
    )
    turns = [("user", "find the sensors near Mitsue"), ("assistant", "None found."), SUGGESTED]
    [action] = _actions(tmp_path, [*turns, granted])
    assert action["title"].startswith("Maybe we should make the search area of villages")
    assert action["confidence"] == "low"
    assert "Confirmed by the assistant granting it: “Good point" in action["body"]


@pytest.mark.parametrize(
    "reply",
    [
        # the assistant's account of the work: no grant, whatever it did
        "Done — I increased the radius to 50km in `prompts/system.md` and pushed.",
        # a grant that only promises to look
        "Let me check what radius the tool descriptions use first.",
    ],
    ids=["account", "no-grant"],
)
def test_a_suggestion_nobody_granted_is_no_note(tmp_path, reply):
    turns = [("user", "find the sensors near Mitsue"), ("assistant", "None found."), SUGGESTED]
    assert _actions(tmp_path, [*turns, ("assistant", reply)]) == []


def test_a_question_the_assistant_grants_is_no_note(tmp_path):
    asked = (
        "user",
        "Is there any need to redact the author names at all unless it is patient data?",
    )
    turns = [("user", "strip the metadata"), ("assistant", "Stripped."), asked]
    assert _actions(tmp_path, [*turns, ("assistant", "You're right. Thinking about it:")]) == []


def test_a_grant_that_states_its_own_point_is_the_concessions_note_not_the_suggestion(tmp_path):
    granted = (
        "assistant",
        "You're right — the `sensor_current` tool already takes a `radius_km` argument, so the "
        "prompt is the only place with the small default.",
    )
    turns = [("user", "find the sensors near Mitsue"), ("assistant", "None found."), SUGGESTED]
    actions = _actions(tmp_path, [*turns, granted])
    assert [a["title"][:40] for a in actions] == ["The `sensor_current` tool already takes "]
