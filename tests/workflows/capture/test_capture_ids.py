"""state/eventlog.safe_session (capture/commits uses it): the session id check, by hand, is the pattern's."""

from __future__ import annotations

import random
import re

import pytest

from reflectgit.state.eventlog import safe_session

PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")


def _expected(value: object) -> str | None:
    return value if isinstance(value, str) and PATTERN.match(value) else None


@pytest.mark.parametrize(
    "value",
    [
        "s-1", "abc", "a" * 128, "a" * 129, "", "\n", "abc\n", "abc\n\n", "abc\r", "-abc",
        ".x", "a/b", "a b", "a\tb", "é", "aé", "ABC:def.1-2_3", "a" * 127 + "\n", "0", None, 7,
        "ａ", "a\x00", "Ab:\n",
    ],
)  # fmt: skip
def test_known_ids(value: object) -> None:
    assert safe_session(value) == _expected(value)


def test_generated_ids() -> None:
    rng = random.Random(17)
    alphabet = "aZ09._:-/ \n\téﬁ\x00"
    for _ in range(20000):
        value = "".join(
            rng.choice(alphabet) for _ in range(rng.choice((0, 1, 2, 5, 127, 128, 129)))
        )
        assert safe_session(value) == _expected(value), repr(value)
