"""bench/pr_kinds.py --top (issue 35, top-3 precision): each change's first three are sorted by
what could mend them; only a relevant note listed below the third is a ranking's to mend."""

from __future__ import annotations

import pytest

from bench import pr_kinds


def _listed(*ids: str) -> list[dict[str, object]]:
    return [{"id": i, "score": 100.0, "kind": "changed: symbol in code"} for i in ids]


@pytest.mark.parametrize(
    ("listed", "why"),
    [
        (_listed("a", "b"), "every note of the first three relevant"),
        (_listed("x", "a", "y", "b"), "a relevant note listed below the third (a ranking can mend it)"),
        (_listed("x", "a", "y", "z"), "wrong notes beside the relevant ones, none relevant below the third"),
        (_listed("x", "y", "z", "w"), "wrong notes only, the relevant ones not listed"),
        ([], "nothing listed"),
    ],
)  # fmt: skip
def test_a_changes_first_three_are_read_by_what_could_mend_them(
    listed: list[dict[str, object]], why: str
) -> None:
    assert pr_kinds.top_miss({"a", "b"}, listed) == why  # type: ignore[arg-type]


def test_the_top_listing_marks_each_note_and_counts_changes_with_relevant_notes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    prs = [
        {"history": "h", "head": "abc", "subject": "s", "relevant": ["a"], "listed": _listed("x", "a")},
        {"history": "h", "head": "def", "subject": "t", "relevant": [], "listed": _listed("x")},
    ]  # fmt: skip
    pr_kinds.print_top(prs)
    out = capsys.readouterr().out
    assert "   - 100 [changed: symbol in code] x\n   + 100 [changed: symbol in code] a" in out
    # the change with nothing relevant is listed, not counted among those with relevant notes
    assert "| wrong notes beside the relevant ones, none relevant below the third | 1 | 1 |" in out
    assert "nothing listed" not in out
