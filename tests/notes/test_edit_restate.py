"""``edit.restate``: the paragraph of a body that states a field's old value, restated; what a
person wrote around it (or instead of it) stays as they wrote it."""

from __future__ import annotations

import pytest

from reflectgit.notes.edit import restate

OLD = "Tests that read the wall clock fail at midnight."
NEW = "Inject a clock: tests that read the wall clock fail at midnight."


def test_the_body_add_wrote_is_restated() -> None:
    assert restate(OLD + "\n", OLD, NEW) == NEW + "\n"


def test_only_the_stating_paragraph_changes() -> None:
    body = f"## Why\n\nA person's intro.\n\n{OLD}\n\n- their list\n- kept\n"
    assert (
        restate(body, OLD, NEW) == f"## Why\n\nA person's intro.\n\n{NEW}\n\n- their list\n- kept\n"
    )


def test_a_paragraph_wrapped_over_lines_with_crlf_still_states_it() -> None:
    body = "Intro.\r\n\r\nTests that read the wall clock\r\nfail at midnight.\r\n\r\nEnd.\r\n"
    assert restate(body, OLD, NEW) == f"Intro.\r\n\r\n{NEW}\r\n\r\nEnd.\r\n"


@pytest.mark.parametrize(
    "body",
    [
        "",
        "Tests that read the wall clock fail at midnight, except in UTC.\n",  # rewritten
        f"Some words first. {OLD}\n",  # inside a longer paragraph: a person's sentence
        f"> {OLD}\n",  # quoted: the person's choice of form
    ],
)
def test_a_body_that_does_not_state_the_old_value_is_left_alone(body: str) -> None:
    assert restate(body, OLD, NEW) is None


def test_no_change_when_the_words_are_the_same() -> None:
    assert restate(OLD + "\n", OLD, "  Tests that read the wall clock\nfail at midnight. ") is None
