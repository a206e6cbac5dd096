"""How the work stands is no lesson (issue 34, precision): a cause that only says where a thing
lives now, that a run has not finished, or what a numbered change does; a fix that only
announces what follows; a memory the person's turn does not bear out; the person's own wish
for the task at hand. Each case is a Claude Code transcript in tmp_path run through the real
cascade and ``heuristic.write``, with the same shape stating a lesson as its negative."""

from __future__ import annotations

import pytest

from reflectgit.notes.generality import announces_what_follows
from tests.workflows.drain.test_heuristic import (
    GREEN,
    MEMORY,
    RED,
    _actions,
    _diagnosed,
    _edit_file,
    _edit_to,
    _run,
)

SANDBOX = "`Sandbox.mode(Repo, {:shared, self()})`"


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("The issue is that the LiveView sandbox now lives solely in `test/conn_case.ex`.", False),
        (
            "The issue is that the LiveView sandbox lives in `test/conn_case.ex`, which the "
            "LiveView process does not read.",
            True,
        ),
        (
            "The issue is that the LiveView test suite is still running: completed jobs are green.",
            False,
        ),
        (
            "The issue is that the LiveView test suite is still running when the sandbox is "
            "checked in, so the LiveView process can't access it.",
            True,
        ),
        (f"Root cause: PR #12 fixes the LiveView sandbox with {SANDBOX}.", False),
        (f"Root cause: PR #12 broke the LiveView sandbox with {SANDBOX}.", True),
    ],
    ids=[
        "placed-now",
        "placed-and-why",
        "run-going",
        "run-going-and-why",
        "pr-fixes",
        "pr-broke",
    ],
)
def test_a_cause_that_says_how_the_work_stands_is_no_note(tmp_path, said, kept):
    """Tests red to green across the statement: a cause when it says what goes wrong and why;
    where a thing lives now, a run still going or what a numbered change does is none."""
    actions = _actions(tmp_path, _diagnosed(said, RED, GREEN))
    assert len(actions) == (1 if kept else 0)


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("The issue is that someone hardened the LiveView sandbox setup meanwhile.", False),
        (
            "The issue is that someone hardened the LiveView sandbox setup, so the LiveView "
            "process can't access it.",
            True,
        ),
        ("The issue is that the LiveView process can't access the test sandbox.", True),
    ],
    ids=["history", "history-and-why", "mechanism"],
)
def test_a_cause_that_narrates_the_sessions_events_is_no_note(tmp_path, said, kept):
    """Tests red to green across the statement: a history of the session (every verb an event
    in the past, no reason, no fault) is how the work went, not what the code does; the same
    history with what goes wrong, or a mechanism, is a cause."""
    actions = _actions(tmp_path, _diagnosed(said, RED, GREEN))
    assert len(actions) == (1 if kept else 0)


def _agreed(said: str) -> list:
    return [
        ("user", "why do the LiveView tests fail?"),
        *_run("t0", RED),
        ("assistant", said),
        ("user", "yes"),
        *_edit_to("e1", "Sandbox.mode(Repo, {:shared, self()})"),
        *_run("t1", GREEN),
        ("assistant", "Done."),
    ]


CAUSE_1 = "### Root Cause 1: the LiveView process can't access the test sandbox (Primary)\n\n"


def test_a_fix_that_only_announces_what_follows_is_no_fix(tmp_path):
    # the cause a section's heading states is the note; its lead-in to a list is no fix
    # (issue 34, recall: before, the lead-in was taken as the fix and the note dropped)
    lead_in = CAUSE_1 + "Want me to fix it? The fix involves:\n1. Calling " + SANDBOX
    [headed] = _actions(tmp_path, _agreed(lead_in))
    assert headed["title"] == "The LiveView process can't access the test sandbox"
    assert headed["fix"] == ""
    said = CAUSE_1 + f"Want me to fix it? The fix is to call {SANDBOX} in the setup."
    [action] = _actions(tmp_path, _agreed(said))
    assert action["fix"].startswith("The fix is to call `Sandbox.mode")


@pytest.mark.parametrize(
    ("fix", "announces"),
    [
        ("The fix involves:.", True),
        ("Two changes fix it:", True),
        ("**The fix:**", True),
        ("The fix: pin the version.", False),
        ("Use `a:b` as the key.", False),
        ("", False),
    ],
)
def test_announces_what_follows_reads_a_fix_that_ends_in_its_colon(fix, announces):
    assert announces_what_follows(fix) == announces


def _saved(name: str, description: str) -> list:
    content = f"---\nname: {name}\ndescription: {description}\ntype: feedback\n---\n\nWhy: x.\n"
    [use, result] = _edit_file("m1", MEMORY)
    use["message"]["content"][0].update(
        name="Write", input={"file_path": MEMORY, "content": content}
    )
    return [use, result]


DRILLS = _saved(
    "chaos-drills-are-unannounced",
    "The owner runs unannounced chaos drills; the checkpoint must survive a sudden kill",
)


@pytest.mark.parametrize(
    ("turns", "kept"),
    [
        # the memory is of something the person's turn does not speak of
        ([("user", "do we need a framework like playwright for the web UI?")], False),
        # the person's turn names it
        ([("user", "remember: I run unannounced chaos drills, the checkpoint must survive")], True),
        # an assent grants what the assistant put to the person just before
        (
            [
                ("user", "why did the session die?"),
                ("assistant", "A chaos drill killed it. Shall I note that drills are unannounced?"),
                ("user", "yes"),
            ],
            True,
        ),
        # an assent to something else
        (
            [
                ("user", "why did the session die?"),
                ("assistant", "The credit limit ran out. Shall I raise it?"),
                ("user", "yes"),
            ],
            False,
        ),
    ],
    ids=["unrelated-turn", "named", "assent-to-it", "assent-to-another"],
)
def test_a_memory_the_persons_turn_does_not_bear_out_is_no_rule(tmp_path, turns, kept):
    # (a rule of the person's first: the drain reads a session from its first signal on)
    rule = [("user", "Never push to `main` directly, open a pull request."), ("assistant", "OK.")]
    actions = _actions(tmp_path, [*rule, *turns, ("assistant", "Saving it."), *DRILLS])
    assert [a["title"] for a in actions if "drills" in a["title"]] == (
        ["The owner runs unannounced chaos drills; the checkpoint must survive a sudden kill"]
        if kept
        else []
    )


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        ("what i meant was when i finally release this, i want low friction to update it", False),
        ("I'd like the sensors table to link each location", False),
        ("We want low friction to update it: the installer must pull the latest tag", True),
        ("From now on I'd like a changelog entry in every pull request", True),
    ],
    ids=["i-want", "id-like", "we-want-must", "from-now-on"],
)
def test_a_persons_own_wish_for_the_task_is_no_rule(tmp_path, reply, kept):
    done = ("assistant", "I wrote `wfc-update` as a script that re-clones the repository.")
    actions = _actions(tmp_path, [("user", "add an update command"), done, ("user", reply)])
    assert len(actions) == (1 if kept else 0)


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        # held-apart-17: the person's attached CLAUDE.md, its YAML block after the colon
        ("Every document must begin with the following front matter block:", False),
        ("Every new module must implement the interface as follows", False),
        ("The design must satisfy these", False),
        # the same shapes that go on to say the rule (held-apart-17's useful note, -3's)
        (
            "All Markdown files under `docs/` must include YAML front matter as defined in "
            "`docs/common-template.md`",
            True,
        ),
        ("Use table-driven tests for these parser cases, never copy-pasted test functions", True),
    ],
    ids=["following-block", "as-follows", "bare-these", "front-matter-rule", "these-cases"],
)
def test_a_rule_that_only_announces_what_follows_is_no_note(tmp_path, reply, kept):
    """Through ``write()``: a person's sentence that leads in to a block or a list the note
    does not carry (it ends in its colon, "the following X", "as follows", a bare "these") is
    the lead-in, not the rule; a rule that says what it asks is kept."""
    done = ("assistant", "I added the new docs page and its module.")
    actions = _actions(tmp_path, [("user", "add the docs page"), done, ("user", reply)])
    assert len(actions) == (1 if kept else 0)
