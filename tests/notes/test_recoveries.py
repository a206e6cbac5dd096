"""Recoveries (issue 34): a session whose lesson is in its tool calls (a failed command, then a
passing one that runs the same thing) opens the enqueue gate and the drain's cascade, through
the one reading both use (``signals.signals_in``). Claude Code transcripts written to tmp_path,
read by the real gate and the real cascade; every rule has its negatives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflectgit.notes.recoveries import recovered
from reflectgit.notes.signals import LOW, RECOVERY, REPAIR, scan
from reflectgit.notes.transcripts import parse_lines
from reflectgit.workflows.capture.gate import HAS_SIGNAL, NO_SIGNAL, evaluate
from reflectgit.workflows.drain import cascade
from tests.support.dialogue import session_file, tool_call
from tests.workflows.drain.test_heuristic_linked import _edit, _run

PORT = "thread 'serve' panicked: Address already in use (os error 98)\nerror: test failed"
PUSHED = "To github.com:o/r.git\n * [new branch]      docs/retro -> docs/retro"
PROTECTED = "remote: error: GH006: Protected branch update failed for refs/heads/main."
RED = "E   AssertionError: 2 != 3\n=== 1 failed in 0.10s ==="
GREEN = "3 passed in 0.10s"
# dialogue with no signal words: the gate closed on such sessions before
ASK = ("user", "run the server tests")
READ = ("assistant", "The sandbox blocks binding a port. Running it outside.")


def _escalated(call: str, output: str, command: str) -> list:
    return tool_call(call, "Bash", {"command": command, "dangerouslyDisableSandbox": True}, output)


def _opens(tmp_path: Path, turns: list) -> bool:
    """The gate's verdict, checked against the cascade's: one reading, one answer."""
    path = session_file(tmp_path, turns)
    verdict = evaluate(path)
    prepared = cascade.prepare(str(path))
    assert verdict.enqueue == (prepared.skip != "no-signal")
    assert verdict.reason in (HAS_SIGNAL, NO_SIGNAL)
    return verdict.enqueue


POSITIVE = {
    # the sandbox refused a port; the same command run outside it passes
    "escalated": [
        ASK,
        *_run("c0", PORT, "cargo test", error=True),
        READ,
        *_escalated("c1", "test result: ok. 12 passed", "cargo test"),
        ("assistant", "All 12 pass."),
    ],
    # a protected branch refused the push; the same program's push to a branch passes
    "another branch": [
        ("user", "push the retro"),
        *_run("p0", PROTECTED, "git push origin main", error=True),
        ("assistant", "Main takes pull requests only. Pushing a branch."),
        *_run("p1", PUSHED, "git checkout -b docs/retro && git push -u origin docs/retro"),
    ],
    # a failing build passes once an install ran, run again unchanged
    "after an install": [
        ("user", "build it"),
        *_run("b0", "error: linker `cc` not found", "cargo build", error=True),
        ("assistant", "Installing gcc first."),
        *_run("b1", "installed gcc", "apt-get install -y gcc"),
        *_run("b2", "Finished dev [unoptimized] target(s)", "cargo build"),
    ],
    # outside the sandbox right away: the escalation is asked with its reason, no turn needed
    "escalated at once": [
        ASK,
        *_run("c0", PORT, "cargo test", error=True),
        *_escalated("c1", "test result: ok. 12 passed", "cargo test"),
        ("assistant", "All 12 pass."),
    ],
    # an option added: the same words and more
    "option added": [
        ASK,
        *_run("c0", PORT, "cargo test", error=True),
        READ,
        *_run("c1", "test result: ok. 12 passed", "cargo test -- --test-threads=1"),
    ],
}


@pytest.mark.parametrize("turns", POSITIVE.values(), ids=POSITIVE.keys())
def test_a_failure_got_past_opens_the_gate_and_the_cascade(tmp_path, turns):
    assert _opens(tmp_path, turns)
    path = session_file(tmp_path, turns)
    [signal] = scan(parse_lines(path.read_text().splitlines()))
    assert (signal.tier, signal.kind) == (LOW, RECOVERY)
    # at the line of dialogue that read the failure: the slice carries those words
    prepared = cascade.prepare(str(path))
    assert prepared.skip is None and prepared.chunks
    assert "failed, then" in signal.text


def _background(code: int) -> list:
    """``cargo test -- --test-threads=1`` run in the background, ending with exit ``code``."""
    status = f"<status>completed</status>\n<exit_code>{code}</exit_code>"
    return [
        *_run("c1", "Command running in background with ID: b7", "cargo test -- --test-threads=1"),
        ("assistant", "Waiting for it."),
        *tool_call("c2", "TaskOutput", {"task_id": "b7"}, status),
        ("assistant", "Finished."),
    ]


AFTER_PORT = [ASK, *_run("c0", PORT, "cargo test", error=True), READ]


def test_a_command_still_running_is_read_where_it_ends(tmp_path):
    assert _opens(tmp_path, [*AFTER_PORT, *_background(0)])
    assert not _opens(tmp_path, [*AFTER_PORT, *_background(101)])


NEGATIVE = {
    # only passing commands: nothing failed
    "all pass": [ASK, *_run("c0", GREEN), ("assistant", "Fine."), *_run("c1", GREEN, "ruff .")],
    # a failure never followed by a pass
    "never passes": [
        ASK,
        *_run("c0", PORT, "cargo test", error=True),
        READ,
        *_escalated("c1", PORT, "cargo test")[:-1],
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": PORT, "is_error": True}
                ],
            },
        },
    ],
    # the same command again at once, unchanged: a retry of a flaky failure
    "bare retry": [
        ASK,
        *_run("c0", RED, "pytest -q", error=True),
        ("assistant", "Once more."),
        *_run("c1", GREEN, "pytest -q"),
    ],
    # the failure and the pass sent in the same batch: nobody read the failure
    "no words between": [
        ASK,
        *_run("c0", PORT, "cargo test", error=True),
        *_run("c1", "test result: ok. 12 passed", "cargo test -- --test-threads=1"),
        ("assistant", "Done."),
    ],
    # a code failure (no refusal), then another command on the same file
    "code failure, other command": [
        ASK,
        *_run("c0", RED, "pytest tests/test_sum.py", error=True),
        ("assistant", "Let me look at it."),
        *_run("c1", "def test_sum(): ...", "cat tests/test_sum.py"),
    ],
    # the pass comes after the person has spoken twice: another task
    "person moved on": [
        ASK,
        *_run("c0", PORT, "cargo test", error=True),
        READ,
        ("user", "leave it"),
        ("assistant", "Left."),
        ("user", "now the docs"),
        *_escalated("c1", "test result: ok. 12 passed", "cargo test"),
    ],
    # a passing command whose output says "error": the tool's verdict decides, not words
    "error word in a pass": [
        ASK,
        *_run("g0", "src/a.py: raise ValueError('error: bad')", "grep -rn error src"),
        ("assistant", "Two places."),
        *_run("g1", "src/a.py", "grep -rln error src"),
    ],
}


@pytest.mark.parametrize("turns", NEGATIVE.values(), ids=NEGATIVE.keys())
def test_nothing_got_past_keeps_the_gate_closed(tmp_path, turns):
    assert not _opens(tmp_path, turns)
    assert recovered(parse_lines(session_file(tmp_path, turns).read_text().splitlines())) == []


def test_an_edit_between_is_no_recovery_but_a_repair(tmp_path):
    """A test the assistant wrote to fail first, then the code that makes it pass: a failure an
    edit got past is no recovery (the way to run a command); with the assistant's words
    between, it is a repair (``notes/repairs``), the gate's weakest signal, for the cause
    readers to weigh."""
    turns = [
        ("user", "add the sum"),
        *_run("t0", RED, "pytest -q", error=True),
        ("assistant", "Red as expected. Now the code."),
        *_edit("e1", "app/sum.py", "return 0", "return a + b"),
        *_run("t1", GREEN, "pytest -q"),
    ]
    assert recovered(parse_lines(session_file(tmp_path, turns).read_text().splitlines())) == []
    assert _opens(tmp_path, turns)
    [signal] = scan(parse_lines(session_file(tmp_path, turns).read_text().splitlines()))
    assert signal.kind == REPAIR


def test_a_session_with_dialogue_signals_keeps_them_alone(tmp_path):
    """Recoveries are looked for only when the dialogue has no signal (it is read anyway)."""
    turns = [("user", "no, use pnpm instead of npm"), *POSITIVE["escalated"]]
    found = scan(parse_lines(session_file(tmp_path, turns).read_text().splitlines()))
    assert found and all(s.kind != RECOVERY for s in found)


# ---------------------------------------------------------------- Codex 0.157 code mode

# Codex 0.157 (the VS Code extension) runs commands from a code-mode program that prints only
# ``r.output``: the exit code is not in the program's result, only in the ``item_completed``
# event (``CommandExecution``) it writes before it (held-apart-18's trustintern-01a0e1ff).
COMMIT = 'git add -- test.md; git commit -m "Update test greeting"'
LOCKED = "fatal: Unable to create '/repo/.git/index.lock': Permission denied\n"
COMMITTED = "[main 548a40c] Update test greeting\n 1 file changed\n"
SAID = "Git's metadata directory is protected by the sandbox, so I'm requesting permission."


def _item(payload: dict) -> dict:
    return {"timestamp": "2026-09-27T08:35:00Z", "type": "response_item", "payload": payload}


def _codex_text(role: str, text: str) -> dict:
    kind = "output_text" if role == "assistant" else "input_text"
    return _item({"type": "message", "role": role, "content": [{"type": kind, "text": text}]})


def _program(call: str, command: str, *, escalated: bool = False) -> dict:
    args = {"cmd": command, "workdir": "/repo", "yield_time_ms": 30000}
    if escalated:
        args |= {"sandbox_permissions": "require_escalated", "justification": "Allow git?"}
    source = f"const r = await tools.exec_command({json.dumps(args)});\ntext(r.output);\n"
    return _item({"type": "custom_tool_call", "call_id": call, "name": "exec", "input": source})


def _completed(command: str, code: int) -> dict:
    item = {
        "type": "CommandExecution",
        "command": ["/bin/bash", "-lc", command],
        "status": "completed" if code == 0 else "failed",
        "exit_code": code,
    }
    return {"type": "event_msg", "payload": {"type": "item_completed", "item": item}}


def _printed(call: str, output: str, *, kind: str = "custom_tool_call_output") -> dict:
    parts = ["Script completed\nWall time 2.0 seconds\nOutput:\n", output]
    return _item(
        {
            "type": kind,
            "call_id": call,
            "output": [{"type": "input_text", "text": p} for p in parts],
        }
    )


def _codex_run(call: str, command: str, code: int, output: str, *, escalated=False) -> list:
    return [
        _program(call, command, escalated=escalated),
        _completed(command, code),
        _printed(call, output),
    ]


def _escalated_through_wait(call: str, command: str, code: int, output: str) -> list:
    """An escalated program still running when its call returned, ended by a ``wait``."""
    running = "Script running with cell ID 5\nWall time 31.0 seconds\nOutput:\n"
    wait = {
        "type": "function_call",
        "call_id": f"{call}w",
        "name": "wait",
        "arguments": json.dumps({"cell_id": "5", "yield_time_ms": 30000}),
    }
    return [
        _program(call, command, escalated=True),
        _item({"type": "custom_tool_call_output", "call_id": call, "output": running}),
        _item(wait),
        _completed(command, code),
        _printed(f"{call}w", output, kind="function_call_output"),
    ]


def _codex(tmp_path: Path, records: list) -> Path:
    meta = {
        "type": "session_meta",
        "payload": {"id": "s-1", "cwd": "/repo", "cli_version": "0.157.1"},
    }
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [meta, *records]))
    return path


ASKED = _codex_text("user", "modify test.md to say Hello World! and commit it")
CODEX_POSITIVE = {
    "escalated rerun": [
        ASKED,
        *_codex_run("c0", COMMIT, 1, LOCKED),
        _codex_text("assistant", SAID),
        *_codex_run("c1", COMMIT, 0, COMMITTED, escalated=True),
    ],
    "escalated rerun ended by a wait": [
        ASKED,
        *_codex_run("c0", COMMIT, 1, LOCKED),
        _codex_text("assistant", SAID),
        *_escalated_through_wait("c1", COMMIT, 0, COMMITTED),
    ],
}


@pytest.mark.parametrize("records", CODEX_POSITIVE.values(), ids=CODEX_POSITIVE.keys())
def test_a_codex_command_failed_by_its_exit_event_then_run_outside_opens_the_gate(
    tmp_path, records
):
    path = _codex(tmp_path, records)
    transcript = parse_lines(path.read_text().splitlines())
    assert transcript.tool_results[0].is_error
    [found] = recovered(transcript)
    assert (found.failed, found.passed) == (COMMIT, COMMIT)
    verdict = evaluate(path)
    assert (verdict.reason, verdict.detail) == (HAS_SIGNAL, RECOVERY)
    assert cascade.prepare(str(path)).skip is None


CODEX_NEGATIVE = {
    # the same command run again unchanged in the same sandbox passes: a flake, a retry
    "a flake": [
        ASKED,
        *_codex_run("c0", COMMIT, 1, LOCKED),
        _codex_text("assistant", "That looks like a stale lock; trying again."),
        *_codex_run("c1", COMMIT, 0, COMMITTED),
    ],
    # it failed and nothing got past it
    "nothing after": [
        ASKED,
        *_codex_run("c0", COMMIT, 1, LOCKED),
        _codex_text("assistant", SAID),
    ],
    # the event says it exited 0: the words in the output are no failure
    "exited 0": [
        ASKED,
        *_codex_run("c0", COMMIT, 0, "warning: " + LOCKED),
        _codex_text("assistant", SAID),
        *_codex_run("c1", COMMIT, 0, COMMITTED, escalated=True),
    ],
    # the exit event of another command says nothing of this one
    "another command's exit": [
        ASKED,
        _completed("git status --short", 1),
        _program("c0", COMMIT),
        _printed("c0", LOCKED),
        _codex_text("assistant", SAID),
        *_codex_run("c1", COMMIT, 0, COMMITTED, escalated=True),
    ],
}


@pytest.mark.parametrize("records", CODEX_NEGATIVE.values(), ids=CODEX_NEGATIVE.keys())
def test_a_codex_failure_nothing_got_past_keeps_the_gate_closed(tmp_path, records):
    path = _codex(tmp_path, records)
    assert recovered(parse_lines(path.read_text().splitlines())) == []
    assert evaluate(path).reason == NO_SIGNAL


def test_a_codex_program_ended_by_a_wait_reads_its_exit_event(tmp_path):
    """The exit code of a program's command that ran on past its call comes with the ``wait``
    that ends it: non-zero fails that result, zero does not."""
    for code, failed in ((1, True), (0, False)):
        records = [ASKED, *_escalated_through_wait("c1", COMMIT, code, LOCKED)]
        transcript = parse_lines(_codex(tmp_path, records).read_text().splitlines())
        assert [r.is_error for r in transcript.tool_results] == [False, failed]


# ---------------------------------------------------------------- Copilot CLI's shell tools


def _copilot(call: str, command: str, output: str) -> list:
    request = {"toolCallId": call, "name": "powershell", "arguments": {"command": command}}
    done = {"toolCallId": call, "success": True, "result": {"content": output}}
    return [
        {"type": "assistant.message", "data": {"content": "", "toolRequests": [request]}},
        {"type": "tool.execution_complete", "data": done},
    ]


def _copilot_transcript(records: list):
    start = {"type": "session.start", "data": {"sessionId": "s-1", "copilotVersion": "1.0.34"}}
    asked = {"type": "user.message", "data": {"content": "open the issue"}}
    said = {"type": "assistant.message", "data": {"content": "The label does not exist here."}}
    lines = [start, asked, *records[:2], said, *records[2:]]
    return parse_lines([json.dumps(r) for r in lines])


def test_a_copilot_shell_result_fails_by_its_exit_code_line():
    """Copilot CLI calls the shell tool a success whatever the command's exit code: the line
    it ends the result with is the verdict (held-apart-8's starcar-e07fc822, a `gh issue
    create` whose label did not exist, then run without it)."""
    create = 'gh issue create --title "Port" --label harness'
    failed = "could not add label: 'harness' not found\n<shellId: 28 completed with exit code 1>"
    passed = "https://github.com/o/r/issues/47\n<shellId: 29 completed with exit code 0>"
    transcript = _copilot_transcript(
        [*_copilot("t0", create, failed), *_copilot("t1", f"{create} --repo o/r", passed)]
    )
    assert [r.is_error for r in transcript.tool_results] == [True, False]
    assert [found.result for found in recovered(transcript)] == [3]


def test_a_copilot_exit_code_line_inside_the_output_says_nothing():
    quoted = "<shellId: 2 completed with exit code 1>\nlog above, quoted\n"
    transcript = _copilot_transcript([*_copilot("t0", "cat notes.md", quoted)])
    assert [r.is_error for r in transcript.tool_results] == [False]
