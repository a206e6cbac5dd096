"""Traps told only by tool results (issue 34, recall): a command the agent's sandbox refused,
run again outside it, passes; nobody says why, and the failure's own error line is the lesson's
reason (``heuristic/traps.py``). The snippets are the real sessions' (held-apart-18's
trustintern in Codex, held-apart-9's cyspbot Wrangler bind failure), in transcripts written to
tmp_path and run through the real cascade and ``write()``; every shape has its negatives."""

from __future__ import annotations

import pytest

from reflectgit.workflows.drain import cascade, heuristic
from reflectgit.workflows.drain.heuristic import note
from tests.notes.test_recoveries import (
    ASKED,
    COMMIT,
    COMMITTED,
    LOCKED,
    _codex,
    _codex_run,
    _codex_text,
)
from tests.support.dialogue import tool_call
from tests.workflows.drain.test_heuristic_linked import _actions, _edit, _run

DEV = "wrangler dev --port 8789"
BIND = (
    "Exit code 1\n\x1b[31m✘ \x1b[41;31m[\x1b[41;97mERROR\x1b[41;31m]\x1b[0m "
    "Failed to bind to 127.0.0.1:9229: permission denied.\n"
)
READY = "Ready on http://localhost:8789"
ASK = ("user", "start the worker locally so I can try the token exchange")
LOOK = ("assistant", "Starting it again.")
DONE = ("assistant", "The worker is up on port 8789.")


def _outside(call: str, output: str, command: str, error: bool = False) -> list:
    return tool_call(
        call, "Bash", {"command": command, "dangerouslyDisableSandbox": True}, output, error
    )


def _dev(again: list | None = None, between=(), failed: list | None = None) -> list:
    return [
        ASK,
        *(failed or _run("w0", BIND, DEV, error=True)),
        LOOK,
        *between,
        *(again if again is not None else _outside("w1", READY, DEV)),
        DONE,
    ]


def _traps(actions: list[dict]) -> list[dict]:
    return [a for a in actions if "the same command run again outside the sandbox" in a["body"]]


def test_a_command_the_sandbox_refused_then_passing_outside_it_is_a_note(tmp_path):
    [action] = _traps(_actions(tmp_path, _dev()))
    assert action["title"] == (
        "Run `wrangler dev` outside the sandbox here; in the sandbox it fails with "
        "“✘ [ERROR] Failed to bind to 127.0.0.1:9229: permission denied.”"
    )
    assert action["rule"] == "Run `wrangler dev` outside the sandbox here."
    assert action["fix"] == f"Run `{DEV}` outside the sandbox."
    assert action["confidence"] == "low"
    assert action["body"].startswith("Said by the tool: “✘ [ERROR] Failed to bind")
    assert not note.no_lesson(action)


def test_every_command_of_the_failed_line_is_compared_not_only_the_first(tmp_path):
    """held-apart-18's trustintern: `git diff --check; ...; git add; git commit` failed at the
    index lock, and `git add; git commit; git status` ran escalated; no statement is needed."""
    failed = "git diff --check -- test.md; git diff -- test.md; " + COMMIT
    rerun = COMMIT + "; git status --short"
    path = _codex(
        tmp_path,
        [
            ASKED,
            *_codex_run("c0", failed, 1, LOCKED),
            *_codex_run("c1", rerun, 0, COMMITTED, escalated=True),
            _codex_text("assistant", "Updated `test.md` and committed it: `548a40c`."),
        ],
    )
    [action] = _traps(heuristic.write(cascade.prepare(str(path)))["actions"])
    assert action["title"] == (
        "Run `git add` and `git commit` outside the sandbox here; in the sandbox they fail with "
        "“fatal: Unable to create '/repo/.git/index.lock': Permission denied”"
    )
    assert action["fix"] == "Run `git add -- test.md` outside the sandbox."


def test_a_workaround_the_assistant_explained_is_one_note_in_its_words(tmp_path):
    """``rerun_fixes`` keeps the statement; the tool-told note would tell it again."""
    said = (
        "assistant",
        "Wrangler failed to bind 127.0.0.1:9229 because the sandbox blocks loopback ports: "
        "running it outside the sandbox.",
    )
    actions = _actions(tmp_path, _dev(between=[said]))
    assert _traps(actions) == []
    assert any(f"`{DEV}`" in a["body"] for a in actions)


@pytest.mark.parametrize(
    "turns",
    [
        # retried unchanged in the same sandbox, failing again: nothing got past it
        _dev(again=_run("w1", BIND, DEV, error=True)),
        # retried unchanged in the same sandbox, passing: a flaky failure
        _dev(again=_run("w1", READY, DEV)),
        # run outside the sandbox and failing too: nothing confirmed
        _dev(again=_outside("w1", BIND, DEV, error=True)),
        # a different command outside the sandbox, not a fix: it reads, it runs no worker
        _dev(again=_outside("w1", "wrangler 4.20.0", "wrangler --version")),
        # the same program changed another way: another reading's, not this one's
        _dev(again=_outside("w1", READY, "wrangler dev --port 8790")),
        # a file edited in between: the edit readings'
        _dev(between=_edit("e1", "wrangler.jsonc", '"port": 9229', '"port": 9230')),
        # something installed in between: command_fixes' reading
        _dev(between=_run("i1", "added 1 package", "npm install -D wrangler@4")),
        # the person spoke in between: their word, not the tool's
        _dev(between=[("user", "run it escalated")]),
        # the harness never ran the failed call (a parallel call failed first)
        _dev(
            failed=_run(
                "w0", "<tool_use_error>Sibling tool call errored</tool_use_error>", DEV, True
            )
        ),
        # the failed call already ran outside the sandbox: no sandbox to leave
        _dev(failed=_outside("w0", BIND, DEV, error=True)),
    ],
    ids=[
        "retried-failing",
        "flaky",
        "fails-too",
        "other-command",
        "changed-otherwise",
        "edited",
        "installed",
        "person-spoke",
        "not-run",
        "already-outside",
    ],
)
def test_no_note_without_the_same_command_passing_outside_the_sandbox(tmp_path, turns):
    assert _traps(_actions(tmp_path, turns)) == []


def test_a_red_test_run_then_a_green_one_in_the_same_sandbox_is_code_work(tmp_path):
    turns = [
        ("user", "run the tests"),
        *_run("t0", "E   AssertionError\n=== 1 failed in 0.1s ===", "pytest -q", error=True),
        ("assistant", "Running it again."),
        *_run("t1", "3 passed in 0.1s", "pytest -q"),
        DONE,
    ]
    assert _traps(_actions(tmp_path, turns)) == []
