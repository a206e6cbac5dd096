"""bench/rule_shapes.py (issue 34, recall): the shapes of a rule said with no rule word, each
counted over the person's lines, and whether a line is at a rule lesson the drain misses. The
snippets are the tune sets' own (held-apart-7, -8, -10, -16)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import quality, rule_shapes
from reflectgit.workflows.drain.heuristic import answer
from tests.support.judged import judged_set

SESSION = "shapes-1"


def _line(text: str, turn: int, before: tuple[tuple[str, str, int], ...] = ()) -> rule_shapes.Line:
    return rule_shapes.Line(text, turn, turn, before)


RUN_CHECKS = "can you run lint, test and check-types"
RUN_CHECKS_AGAIN = (
    "Can you run tests, lint and check-types to ensure all is green. It's loading the data now."
)
ANSWERED = (("person", RUN_CHECKS, 19), ("assistant", "All three pass.", 20))


def test_a_standing_request_said_again_after_the_answer() -> None:
    assert rule_shapes.said_again(_line(RUN_CHECKS_AGAIN, 29, ANSWERED))


def test_a_request_said_once_or_unanswered_is_not_said_again() -> None:
    # a task's request said once (held-apart-10)
    assert not rule_shapes.said_again(_line("commit the pr-reviewer agent context file", 21))
    # the same words in the same turn, nobody answered in between
    assert not rule_shapes.said_again(_line(RUN_CHECKS_AGAIN, 19, (("person", RUN_CHECKS, 19),)))
    # too few words to be the same request ("commit and continue" after each step)
    before = (("person", "commit and continue", 43), ("assistant", "Committed.", 44))
    assert not rule_shapes.said_again(_line("Commit and continue", 52, before))


def test_a_request_repeated_because_the_first_try_failed_has_the_same_shape() -> None:
    # held-apart-8: the person asks again because CI failed, not as a rule. The structure reads
    # it as it reads the standing rule above: why the shape is measured, not built.
    before = (
        ("person", "pushed - check if CI passes now", 28),
        ("assistant", "CI is still failing on the integration job.", 29),
    )
    assert rule_shapes.said_again(_line("pushed check if it passes", 37, before))


def test_questions_and_pasted_output_are_not_read() -> None:
    assert not rule_shapes.read(_line("🦀 Current: 56.8%, Ratchet: 66.4%, Target: 75.0%", 70))
    assert not rule_shapes.read(_line("do you know the team for each of the repos?", 86))
    assert not rule_shapes.read(_line("$ npm publish --tag beta --access public", 30))
    assert rule_shapes.read(
        _line("i rather want it for each PR, because commits might be intermediate.", 112)
    )


@pytest.mark.parametrize(
    "said",
    [
        "git commit, push and open or no co-author bs",  # held-apart-21
        "remove all co-author by copilot shit, got it?",  # held-apart-20
        # held-apart-22
        "Make full-repo snapshot generation complete reliably for the cli repository without "
        "pruning, fake ignores, or reducing repository scope.",
        "Make the AGENTS.md extremely concise, only the branch name and no explanation.",  # -10
    ],
)
def test_a_terse_constraint_joined_to_a_request(said: str) -> None:
    assert rule_shapes.read(_line(said, 5))
    assert rule_shapes.terse(_line(said, 5))


@pytest.mark.parametrize(
    "not_said",
    [
        "no, keep as is",  # a correction (held-apart-13)
        "No data is showing up",  # a report opening with "no" (held-apart-7)
        "sure, no problem, go ahead and push",
        "ok, no need to rebase first",
        "5 / second shouold be ok?",  # a question about a value, not a check-back (held-apart-12)
    ],
)
def test_corrections_reports_and_questions_are_not_terse_constraints(not_said: str) -> None:
    assert not (rule_shapes.read(_line(not_said, 5)) and rule_shapes.terse(_line(not_said, 5)))


@pytest.mark.parametrize(
    ("shape", "said", "not_said"),
    [
        (
            "every one",
            "i rather want it for each PR, because commits might be intermediate.",
            "address pr feedback and failing pr checks",
        ),
        (
            "a reason",
            "No, I want to use claude login because I have a subscription",
            "yes commit the work, push the pr and then create a new branch off main",
        ),
        (
            "not what",
            "this is not what I wanted, I wanted all the functionality that it had before.",
            "okay this worked, so we can delete manual-release",
        ),
        (
            "way refused",
            'Claude Rule should appear as "Claude Rule", not just "Rule"',
            "The unit tests need fixing due to the recent updates.",
        ),
    ],
)
def test_each_word_shape_has_a_negative(shape: str, said: str, not_said: str) -> None:
    _about, test = rule_shapes.SHAPES[shape]
    assert test(_line(said, 5))
    assert not test(_line(not_said, 5))


DIALOGUE = (
    ("user", "Refactor the TeamSheet so it loads only the selected team."),
    ("assistant", "Done: the TeamSheet fetches the selected team only."),
    ("user", RUN_CHECKS),
    ("assistant", "Lint, test and check-types all pass."),
    ("user", "Now make the team mutations update optimistically."),
    ("assistant", "Done: the mutations patch the cached team."),
    ("user", RUN_CHECKS_AGAIN),
    ("assistant", "All green."),
)


def _set(tmp_path: Path) -> Path:
    real = tmp_path / "set"
    lesson = {
        "id": "lint-test-check-types-before-done",
        "kind": "rule",
        "said_by": "the person, twice",
        "lesson": "A change is done only when lint, test and check-types pass",
        "match": [["check-types"]],
        "where": "lines 6",
    }
    judged_set(real, SESSION, DIALOGUE, [lesson], cwd="/home/dev/src/dashboard")
    return real


def test_the_bench_finds_the_request_said_again_at_the_missed_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = _set(tmp_path)
    monkeypatch.setattr(quality, "REAL", tmp_path / "no-shared-sessions")
    monkeypatch.setattr(answer, "no_lesson", answer.no_lesson)  # restored after the run
    assert rule_shapes.main(["--held-apart", str(real), "--list"]) == 0
    out = capsys.readouterr().out
    assert (
        f"said again   set/{SESSION} [MISSED lint-test-check-types-before-done] Can you run" in out
    )
    assert (
        "said again      1 lines in  1 sets; at a rule:   1 lines in  1 sets; "
        "at a missed rule:   1 lines,  1 lessons in  1 sets" in out
    )
