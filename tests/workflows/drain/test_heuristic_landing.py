"""A request that says how the work lands (issue 34, recall): "Commit these changes with
conventional commit message" is the repository's way for every commit, though the commit is
this task's (``signals.LANDS_BY``). Tune sets with the shape: held-apart-5, -8, -9, -14. The
negative is the junk's request of the same grammar that says no way ("Commit and push, then
...")."""

from __future__ import annotations

import pytest

from tests.workflows.drain.test_heuristic_proposals import drained


def _session(request: str) -> list[tuple[str, str]]:
    return [
        ("user", "Add a CI job that builds the rock and runs the integration tests with it."),
        ("assistant", "The CI workflow now builds the rock, then runs the integration tests."),
        ("user", request),
        ("assistant", "Committed as `ci: build the rock before the integration tests`."),
    ]


def test_a_request_that_says_how_the_work_lands_is_a_note(tmp_path, repo):
    notes = drained(
        tmp_path, repo, _session("Commit these changes with conventional commit message")
    )
    front = notes["Commit these changes with conventional commit message"]
    assert front["confidence"] == "medium"
    assert front["rule"] == "Commit these changes with conventional commit message."


@pytest.mark.parametrize(
    "request_",
    [
        "Commit and push, then do the agent-tools doctor.",  # the junk's: no way said
        "can you commit it with a conventional commit message?",  # asked, not told
    ],
)
def test_a_request_to_commit_that_says_no_way_or_asks_is_no_note(tmp_path, repo, request_):
    notes = drained(tmp_path, repo, _session(request_))
    assert not [t for t in notes if "ommit" in t]
