"""A cause the assistant states, checks over turns of its own and only then fixes (issue 34,
recall): after a failure, a turn says the cause; other turns of the assistant's check it (a
file read, a command); the first edit comes after them and a red-to-green run, the failing
command run again or the person's report confirms it. Each case is a Claude Code transcript in
tmp_path run through the real cascade and ``heuristic.write``; every shape has its negatives."""

from __future__ import annotations

import pytest

from tests.support.dialogue import tool_call
from tests.workflows.drain.test_heuristic_linked import (
    GH_RED,
    GREEN,
    RED,
    _actions,
    _edit,
    _run,
)

CAUSE = (
    "The import fails because the CSV reader drops the `tenant_id` column when the header row "
    "is quoted."
)
TITLE = (
    "The import fails because the CSV reader drops the `tenant_id` column when the header row "
    "is quoted"
)
FIX = _edit("e1", "app/csv_export.py", "csv.reader(f)", "csv.reader(f, quotechar='\"')")
# the assistant checks what it said in a turn of its own: it reads the reader's settings
CHECK = [
    ("assistant", "Let me check the reader's settings."),
    *tool_call("r1", "Read", {"file_path": "app/settings.py"}, "DELIMITER = ','"),
]


def _session(
    said: str = CAUSE,
    check: list | None = None,
    fix: list | None = None,
    red: bool = True,
    after: list | None = None,
) -> list:
    return [
        ("user", "the nightly import fails on the staging data"),
        *(_run("t0", RED) if red else []),
        ("assistant", said),
        *(CHECK if check is None else check),
        *(FIX if fix is None else fix),
        *(_run("t1", GREEN) if after is None else after),
        ("assistant", "Done."),
    ]


def test_a_cause_checked_in_later_turns_then_fixed_and_green_is_a_note(tmp_path):
    [action] = _actions(tmp_path, _session())
    assert action["title"] == TITLE
    assert action["root_cause"] == TITLE + "."
    assert action["confidence"] == "medium" and action["learning_type"] == "bug-fix"
    assert "a green test run after the fix, the run before it red" in action["body"]


def test_a_cause_checked_by_a_command_and_confirmed_by_the_persons_report_is_a_note(tmp_path):
    """The check is a command that reproduces the failure; no test run: the person's report
    after the edit confirms it."""
    check = [
        ("assistant", "Reproducing with the staging file."),
        *_run("c1", "KeyError: 'tenant_id'", "python -m app.import staging.csv", error=True),
        ("assistant", "Reproduced."),
    ]
    turns = [
        *_session(check=check, red=False, after=[]),
        ("user", "ok, the import works now"),
    ]
    [action] = _actions(tmp_path, turns)
    assert action["title"] == TITLE
    assert "a success the person reported after the edit" in action["body"]


@pytest.mark.parametrize(
    "turns",
    [
        # the cause taken back in a later turn, before the fix
        _session(
            check=[
                *CHECK,
                ("assistant", "Actually, that's not it: the header row is read fine."),
            ]
        ),
        # a green run of a test that never failed: nothing shows the edit fixed the failure
        _session(red=False),
        # a hypothesis never checked by a fix: nothing is edited after it
        _session(fix=[]),
        # a hedge, not a finding
        _session(said=CAUSE.replace("fails because", "might fail because")),
        # the run after the edit still fails
        _session(after=_run("t1", RED)),
        # a later turn says another cause: that one is the finding
        _session(
            check=[
                *CHECK,
                ("assistant", "The root cause is the settings module's `DELIMITER` constant."),
            ]
        ),
    ],
    ids=["withdrawn", "never-red", "never-fixed", "hedge", "still-red", "later-cause"],
)
def test_a_cause_withdrawn_unconfirmed_or_unchecked_is_no_note(tmp_path, turns):
    assert [a["title"] for a in _actions(tmp_path, turns) if "tenant_id" in a["title"]] == []


def test_a_yes_that_answers_another_question_confirms_nothing(tmp_path):
    """After the edit the assistant asks about something else; the person's "yes" answers
    that question, not whether the import works."""
    turns = [
        *_session(after=[]),
        ("assistant", "Should I rename the column in the docs too?"),
        ("user", "yes"),
    ]
    assert _actions(tmp_path, turns) == []


# A fix made by a command: the cause is stated, a listing checks it, the assistant announces its
# step ("I'll remove ..."), runs the command that changes state, and the failing command passes.
STALE = "The build fails because two `.whl` files sit in `dist/` and the upload takes both."
LISTED = "-rw-r--r-- 1 dev dev 120 dist/app-1.0-py3-none-any.whl\n-rw-r--r-- 1 dev dev 121 ..."


def _command_fix(said: str = STALE, between: list | None = None, rerun: str = "Uploaded.") -> list:
    return [
        ("user", "make upload is broken"),
        *_run("u0", "error: more than one wheel in dist/", "make upload", error=True),
        ("assistant", said),
        *_run("l1", LISTED, "ls -la dist/*.whl"),
        *(between or []),
        ("assistant", "I'll remove the old one and run the upload again."),
        *_run("r1", "", "rm dist/app-0.9-py3-none-any.whl"),
        *_run("u1", rerun, "make upload"),
        ("assistant", "Done."),
    ]


def test_a_cause_stated_before_a_check_and_fixed_by_a_command_is_a_note(tmp_path):
    """The last words before the command announce the step; the cause is said a turn earlier."""
    [action] = _actions(tmp_path, _command_fix())
    assert action["root_cause"] == (
        "The build fails because two `.whl` files sit in `dist/` and the upload takes both."
    )
    assert action["fix"] == "Run `rm dist/app-0.9-py3-none-any.whl`."
    assert "the failing command run again after `rm" in action["body"]


@pytest.mark.parametrize(
    "turns",
    [
        # the cause taken back after the check
        _command_fix(between=[("assistant", "Actually, that's not it: one of them is a link.")]),
        # a later turn states another cause, which names nothing of the fix
        _command_fix(between=[("assistant", "The real issue is the proxy's certificate.")]),
        # no cause word: an earlier statement is read only when said as the cause
        _command_fix(said="Two `.whl` files sit in `dist/` next to each other."),
        # the rerun still fails: nothing confirms it
        _command_fix(rerun="error: more than one wheel in dist/"),
    ],
    ids=["withdrawn", "replaced", "no-cause-word", "still-fails"],
)
def test_an_earlier_cause_withdrawn_replaced_unsaid_or_unconfirmed_is_no_note(tmp_path, turns):
    assert [a for a in _actions(tmp_path, turns) if "whl" in a["title"]] == []


# A command run again with an option added: the cause is said, the remote is listed to check it,
# the assistant announces the rerun, and the command with the option passes.
GH_BECAUSE = (
    "`gh` fails because the `origin` remote is a proxy with no GitHub host: it needs `--repo`."
)


def _rerun(between: list | None = None) -> list:
    return [
        ("user", "look at the open PR"),
        *_run("g0", GH_RED, "gh pr view 12", error=True),
        ("assistant", GH_BECAUSE),
        *_run("g1", "origin  https://proxy.internal/acme/widgets (fetch)", "git remote -v"),
        *(between or []),
        ("assistant", "Let me run it again with the repository named."),
        *_run(
            "g2", "title: Fix the flaky upload\nstate: OPEN", "gh pr view 12 --repo acme/widgets"
        ),
        ("assistant", "Done."),
    ]


def test_a_cause_stated_before_a_check_and_worked_around_by_an_option_is_a_note(tmp_path):
    [action] = _actions(tmp_path, _rerun())
    assert action["title"].startswith("`gh` fails because the `origin` remote is a proxy with no")
    assert action["fix"] == "Run `gh pr view 12 --repo acme/widgets`."


def test_a_cause_taken_back_before_the_rerun_is_no_note(tmp_path):
    withdrawn = [("assistant", "Actually, that's not it: the remote points at GitHub.")]
    assert [a for a in _actions(tmp_path, _rerun(withdrawn)) if "gh" in a["title"]] == []
