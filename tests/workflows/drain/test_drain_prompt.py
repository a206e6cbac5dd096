"""The extract writer's prompt says what a useful note is in issue 34's terms (the judges'
three kinds of lesson and the junk they kept throwing away), and keeps the answer contract the
parser reads, word for word."""

from __future__ import annotations

import json
from pathlib import Path

from reflectgit.workflows.drain import cascade
from reflectgit.workflows.drain import writer as wr
from tests.support.drain import drained_prompt

EXCERPT = "user: No, never use round() for money. Always use Decimal.quantize."


def _instructions(prompt: str) -> str:
    """The prompt between the drain marker and the answer contract."""
    return prompt.split(cascade.ACTION_CONTRACT, 1)[0]


def test_the_prompt_says_what_a_lesson_is() -> None:
    said = _instructions(cascade.build_prompt(cascade.Prepared(text=EXCERPT)))
    for kind in (
        "a rule the person states for the project, beyond the task at hand",
        "a root cause the assistant found",
        "confirmed by a green run or by the person",
        "a trap of the set-up",
        "shown by a failure, with the fix that worked",
    ):
        assert kind in said
    assert "the title names the thing and what to do" in said


def test_the_prompt_names_the_junk_the_judges_threw_away() -> None:
    said = _instructions(cascade.build_prompt(cascade.Prepared(text=EXCERPT)))
    for junk in (
        "an event (a todo finished, a run that went green with nothing learned)",
        "the person's instructions for this task",
        "a brief written for an agent",
        "text the person pasted",
        "a fact true only of this task",
        "text injected by hooks or CI",
        'never "this" or "it" without the thing named',
    ):
        assert junk in said


def test_the_answer_contract_is_unchanged() -> None:
    prompt = cascade.build_prompt(cascade.Prepared(text=EXCERPT))
    assert prompt.startswith(f"{cascade.DRAIN_MARKER}\n\n{cascade.LESSONS}\n\n")
    assert prompt.count(cascade.ACTION_CONTRACT) == 1
    assert prompt.index(cascade.ACTION_CONTRACT) < prompt.index(
        f"=== SESSION EXCERPT ===\n{EXCERPT}"
    )
    # The instructions hold nothing the parser could take for an answer.
    assert "{" not in cascade.LESSONS
    assert wr.classify(cascade.LESSONS)[0] == wr.PROSE
    assert wr.classify(json.dumps({"actions": []}))[0] == wr.VALID


def test_the_model_command_reads_the_lessons_guide(tmp_path: Path) -> None:
    transcript = tmp_path / "s-prompt.jsonl"
    turns = [
        ("user", "Round the invoice totals."),
        ("assistant", "I used round(x, 2)."),
        (
            "user",
            "No, never use round() for money. Always use Decimal.quantize with ROUND_HALF_UP.",
        ),
    ]
    transcript.write_text(
        "".join(
            json.dumps(
                {"type": role, "message": {"role": role, "content": text}, "sessionId": "s",
                 "uuid": f"u{n}", "timestamp": f"2026-11-18T06:00:{n:02d}.000Z"}
            ) + "\n"
            for n, (role, text) in enumerate(turns)
        )
    )  # fmt: skip
    prompt = drained_prompt(tmp_path, transcript)
    assert prompt.count(cascade.LESSONS) == 1
    assert "Decimal.quantize" in prompt.split(cascade.ACTION_CONTRACT, 1)[1]
