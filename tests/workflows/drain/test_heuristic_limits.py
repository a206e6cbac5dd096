"""Limits of the environment confirmed another way than by the same command run again (issue
34, recall): a command fails because the place it ran refused it (a tool missing, an operation
denied, the network cut), and another command run in its place passes
(``replaced_commands``), or the person says how to get past it and the command run that way
passes (``told_workarounds``). Each case is a Claude Code transcript in tmp_path run through the
real cascade and ``write()``; every shape has its negatives."""

from __future__ import annotations

import pytest

from reflectgit.workflows.drain.heuristic import note, wording
from tests.support.dialogue import tool_call
from tests.workflows.drain.test_heuristic_linked import _actions, _edit, _run

MISSING = "make: playwright: command not found\nmake: *** [test-e2e] Error 127"
SPEC_PASSED = "Running 3 tests using 1 worker\n  3 passed (4.1s)"
LIMIT = (
    "The `test-e2e` target calls `playwright` from the PATH, and this machine has no global "
    "playwright install."
)
FAILED = "make test-e2e -- specs/login.spec.ts"
INSTEAD = "npx playwright test specs/login.spec.ts"


def _replaced(
    said: str | None = LIMIT,
    instead: str = INSTEAD,
    after: str = SPEC_PASSED,
    after_error: bool = False,
    failure: str = MISSING,
    between: list | None = None,
) -> list:
    return [
        ("user", "run the login spec"),
        *_run("m0", failure, FAILED, error=True),
        *([("assistant", said)] if said else []),
        *(between or []),
        *_run("m1", after, instead, error=after_error),
        ("assistant", "Done."),
    ]


def _limit_notes(actions: list[dict]) -> list[dict]:
    return [a for a in actions if "in its place" in a["body"] or "the person said so" in a["body"]]


def test_a_limit_worked_around_by_another_command_on_the_same_thing_is_a_note(tmp_path):
    [action] = _limit_notes(_actions(tmp_path, _replaced()))
    assert action["title"] == (
        "The `test-e2e` target calls `playwright` from the PATH, and this machine has no global "
        "playwright install: run `npx playwright test specs/login.spec.ts` instead of "
        "`make test-e2e -- specs/login.spec.ts`"
    )
    assert action["fix"] == f"Run `{INSTEAD}` instead of `{FAILED}`."
    assert f"another command run in its place, which passed: `{INSTEAD}`" in action["body"]
    assert not note.no_lesson(action)


@pytest.mark.parametrize(
    "turns",
    [
        # the other command fails too: the limit was not worked around
        _replaced(after="Error: browserType.launch: Executable doesn't exist", after_error=True),
        # the limit stated, never acted on: nothing run in its place
        [
            ("user", "run the login spec"),
            *_run("m0", MISSING, FAILED, error=True),
            ("assistant", LIMIT),
            ("assistant", "Install playwright globally and run the spec again."),
        ],
        # a flaky failure: the same command run again passes, so nothing refused it
        _replaced(between=_run("m9", SPEC_PASSED, FAILED)),
        # a failure of the code, not of the place it ran, then another command
        _replaced(
            failure="expect(received).toBe(expected)\n  1 failed\nmake: *** Error 1",
            said=(
                "The `toBe` check received the old heading from make's build, and playwright "
                "prints the whole diff of it."
            ),
        ),
        # nothing said of why
        _replaced(said=None),
        # a statement naming nothing of the failure
        _replaced(said="Let me try the spec through npx so the run goes quicker."),
        # another command on another thing: not run in the failed one's place
        _replaced(instead="npx playwright test specs/signup.spec.ts"),
        # something installed in between: the command fix's reading, not this one's
        _replaced(between=_run("m9", "added 1 package", "npm install -g playwright")),
        # a file edited in between: the edit readings'
        _replaced(between=_edit("e1", "Makefile", "playwright test", "npx playwright test")),
    ],
    ids=[
        "fails-too",
        "never-acted-on",
        "flaky",
        "code-failure",
        "never-stated",
        "names-nothing",
        "other-target",
        "installed",
        "edited",
    ],
)
def test_a_limit_not_worked_around_by_another_passing_command_is_no_note(tmp_path, turns):
    assert _limit_notes(_actions(tmp_path, turns)) == []


def test_a_command_sent_with_the_failed_one_is_not_run_in_its_place(tmp_path):
    """Two pushes sent together, both refused: the second is the failed one's twin, not a
    workaround the assistant chose after reading the failure."""
    refused = "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote"
    turns = [
        ("user", "push both branches"),
        *_run("p0", refused, "git push -u origin fix-upload", error=True),
        *_run("p1", "To github.com:acme/w.git\n * [new branch] fix-upload", "git push fix-upload"),
        ("assistant", "Both pushes went through over the `origin` remote with its upload branch."),
    ]
    assert _limit_notes(_actions(tmp_path, turns)) == []


OFFLINE = "error connecting to api.github.com\ncheck your internet connection"
LOG = "build  Run tests  2026-07-02T07:52:04Z ##[error]Process completed with exit code 1."


def _told(
    told: str = "gh works here, run it outside the sandbox",
    again: dict | None = None,
    after: str = LOG,
    after_error: bool = False,
    failure: str = OFFLINE,
) -> list:
    rerun = again or {"command": "gh run view 42 --log", "dangerouslyDisableSandbox": True}
    return [
        ("user", "why did the nightly job fail?"),
        *_run("g0", failure, "gh run view 42 --log", error=True),
        ("assistant", "I'll fall back to the public API with curl."),
        ("user", told),
        *tool_call("g1", "Bash", rerun, after, after_error),
        ("assistant", "The log shows the test step failing."),
    ]


def test_the_persons_way_past_a_limit_the_next_run_confirms_is_a_note(tmp_path):
    [action] = _limit_notes(_actions(tmp_path, _told()))
    assert action["title"] == (
        "Run `gh` outside the sandbox here: gh works here, run it outside the sandbox"
    )
    assert action["rule"] == "Run `gh` outside the sandbox here."
    assert action["root_cause"] == "`gh` failed inside the sandbox (“error connecting to”)."
    assert action["confidence"] == "medium"
    assert "the command run outside the sandbox after the person said so" in action["body"]
    assert not note.no_lesson(action)


@pytest.mark.parametrize(
    "turns",
    [
        # the person's word, left unacted on: no run after it
        [
            ("user", "why did the nightly job fail?"),
            *_run("g0", OFFLINE, "gh run view 42 --log", error=True),
            ("assistant", "I'll fall back to the public API with curl."),
            ("user", "gh works here, run it outside the sandbox"),
            ("assistant", "Understood."),
        ],
        # run that way, and still refused
        _told(after=OFFLINE, after_error=True),
        # run again no differently: a retry, not the person's way
        _told(again={"command": "gh run view 42 --log"}),
        # a turn that does not name the failed program
        _told(told="try again outside the sandbox please"),
        # a long brief for the next task, which happens to name the program
        _told(told="now " + "then look at the nightly job and the flaky upload test " * 4 + "gh"),
        # a failure of the code, not of the place it ran
        _told(failure="HTTP 404: workflow run 42 not found"),
    ],
    ids=["unacted", "still-refused", "unchanged", "unnamed", "brief", "code-failure"],
)
def test_the_persons_word_not_confirmed_by_a_run_past_the_limit_is_no_note(tmp_path, turns):
    assert _limit_notes(_actions(tmp_path, turns)) == []


# Another version of the tool selected (rustup's ``+1.96.0``) after the place refused the one it
# had: the statement naming the refused versions says why, though it names nothing the rerun
# adds; said in an earlier turn, it is read when said as a cause ("is blocked by").
TOO_OLD = (
    "error: rustc 1.93.0 is not supported by the following package:\n"
    "  kdl@6.7.1 requires rustc 1.95\n"
    "Either upgrade rustc or select compatible dependency versions"
)
BLOCKED = (
    "Verification is blocked by the local Rust toolchain: `kdl@6.7.1` requires `rustc 1.95`, "
    "while this shell has `rustc 1.93.0`."
)
BUILT = "Finished `test` profile [unoptimized + debuginfo] target(s) in 40.74s"


def _toolchain(
    said: str = BLOCKED,
    failure: str = TOO_OLD,
    then: str | None = "A newer toolchain is installed; I'll run the tests with it.",
) -> list:
    return [
        ("user", "check that the tests build"),
        *_run("c0", failure, "cargo test --no-run", error=True),
        ("assistant", said),
        *_run(
            "c1",
            "stable-aarch64-apple-darwin\n1.96.0-aarch64-apple-darwin",
            "rustup toolchain list",
        ),
        *([("assistant", then)] if then else []),
        *_run("c2", BUILT, "cargo +1.96.0 test --no-run"),
        ("assistant", "Done."),
    ]


@pytest.mark.parametrize(
    "then", ["A newer toolchain is installed; I'll run the tests with it.", None]
)
def test_another_version_selected_after_a_refusal_of_the_version_is_a_note(tmp_path, then):
    # what the clause before "but" grants is no part of the cause
    said = f"Cargo can now reach crates.io, but {BLOCKED[0].lower()}{BLOCKED[1:]}"
    actions = _actions(tmp_path, _toolchain(said=said, then=then))
    [action] = [a for a in actions if "+1.96.0" in a["body"]]
    assert action["root_cause"] == BLOCKED
    assert action["fix"] == "Run `cargo +1.96.0 test --no-run`."
    assert "run again with `+1.96.0`" in action["body"]


@pytest.mark.parametrize(
    "turns",
    [
        # the failure is the code's, not the place refusing a version: no version link
        _toolchain(
            failure="error[E0308]: mismatched types in kdl@6.7.1 (expected 1.93.0 layout)",
            said="The build is blocked by a type error in `kdl@6.7.1`: it expects the 1.93.0 layout.",
        ),
        # the statement names none of the refused versions
        _toolchain(said="Verification is blocked by the local Rust toolchain."),
        # named in an earlier turn but not said as a cause, and the last turn links nothing
        _toolchain(said="`kdl@6.7.1` requires `rustc 1.95`, while this shell has `rustc 1.93.0`."),
    ],
    ids=["code-failure", "no-version", "not-a-cause"],
)
def test_a_version_selected_without_a_statement_of_the_refused_version_is_no_note(tmp_path, turns):
    assert not [a for a in _actions(tmp_path, turns) if "+1.96.0" in a["body"]]


@pytest.mark.parametrize(
    ("text", "versions"),
    [
        ("kdl@6.7.1 requires rustc 1.95, this shell has rustc 1.93.0", {"6.7.1", "1.93.0"}),
        ("cargo +1.96.0 test", {"1.96.0"}),
        ("listening on 10.0.0.1 after 2.5 s", set()),  # an address, a decimal: no version
    ],
)
def test_a_version_is_a_term_that_links(text, versions):
    assert {t for t in wording._terms(text) if t[:1].isdigit()} == versions
