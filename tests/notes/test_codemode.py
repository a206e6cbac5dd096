"""Codex's code mode (issue 34): the tool calls an ``exec`` program makes read as the same
calls made directly, when the program makes them literally; anything else is not guessed."""

from __future__ import annotations

import json

import pytest

from reflectgit.notes.codemode import read_program
from reflectgit.notes.commandruns import Ran, commands_run
from reflectgit.notes.transcripts import Transcript, parse_lines


def _item(payload: dict) -> str:
    return json.dumps({"type": "response_item", "payload": payload})


def _exec(call: str, program: str, *parts: str, status: str = "Script completed") -> list[str]:
    head = f"{status}\nWall time 0.1 seconds\nOutput:\n"
    output: list[dict] | str = [{"type": "input_text", "text": t} for t in (head, *parts)]
    if not parts and status.startswith("Script running"):
        output = head  # Codex writes a running cell's empty yield as one string
    return [
        _item({"type": "custom_tool_call", "name": "exec", "call_id": call, "input": program}),
        _item({"type": "custom_tool_call_output", "call_id": call, "output": output}),
    ]


def _wait(call: str, cell: str, *parts: str, status: str = "Script completed") -> list[str]:
    args = json.dumps({"cell_id": cell, "yield_time_ms": 30000})
    head = f"{status}\nWall time 2.0 seconds\nOutput:\n"
    output = [{"type": "input_text", "text": t} for t in (head, *parts)]
    return [
        _item({"type": "function_call", "name": "wait", "call_id": call, "arguments": args}),
        _item({"type": "function_call_output", "call_id": call, "output": output}),
    ]


RUN = 'const r = await tools.exec_command({cmd:"cargo test -p core","workdir":"/x","yield_time_ms":10000}); text(r.output);'


def test_a_programs_command_reads_as_the_command_run_directly():
    t = parse_lines(_exec("c1", RUN, "test result: ok. 3 passed; 0 failed\n"))
    [call] = t.tool_calls
    assert (call.call_id, call.name) == ("c1#0", "exec_command")
    assert call.input == {"cmd": "cargo test -p core", "workdir": "/x", "yield_time_ms": 10000}
    [result] = t.tool_results
    assert result.call_id == "c1#0" and not result.is_error
    assert result.content == "test result: ok. 3 passed; 0 failed\n"


def test_a_patch_bound_to_a_const_is_the_patch_applied():
    patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-let x = \"a\";\n+let x = 'b';\n*** End Patch"
    program = f"const patch = {json.dumps(patch)}; text(await tools.apply_patch(patch));"
    t = parse_lines(_exec("c1", program, "{}"))
    [call] = t.tool_calls
    assert call.name == "apply_patch" and call.input == patch


@pytest.mark.parametrize(
    ("program", "expected"),
    [
        (
            "// @exec: {\"yield_time_ms\": 1000}\nawait tools.write_stdin({session_id: 4711, chars: ''});",
            {"session_id": 4711, "chars": ""},
        ),
        (
            "const r = await tools.exec_command({cmd: `make\\tall`, tty: true, n: -1, a: [1, null]})\ntext(r.output)",
            {"cmd": "make\tall", "tty": True, "n": -1, "a": [1, None]},
        ),
        (
            "const CMD = 'go test ./...'; const r = await tools.exec_command({'cmd': CMD}); text(r.output);",
            {"cmd": "go test ./..."},
        ),
        (
            'const r = await tools.exec_command({cmd:"make"}); text(r.output); if (!r.output) exit();',
            {"cmd": "make"},
        ),
    ],
    ids=[
        "pragma-and-no-binding",
        "template-and-no-semicolon",
        "const-bound-argument",
        "exit-after-the-call",
    ],
)
def test_literal_arguments_of_every_form_are_read(program, expected):
    [call] = parse_lines(_exec("c1", program, "ok")).tool_calls
    assert call.input == expected


@pytest.mark.parametrize(("code", "failed"), [(1, True), (101, True), (0, False)])
def test_a_result_printed_whole_carries_its_exit_code(code, failed):
    program = RUN.replace("text(r.output)", "text(JSON.stringify(r))")
    whole = {"chunk_id": "a1", "wall_time_seconds": 0.2, "exit_code": code, "output": "boom\n"}
    [result] = parse_lines(_exec("c1", program, json.dumps(whole))).tool_results
    assert result.is_error is failed
    assert result.content == f"Process exited with code {code}\nOutput:\nboom\n"


def test_a_program_that_threw_failed_its_call():
    program = "const p = 'bad patch'; text(await tools.apply_patch(p));"
    err = "Script error:\nError: apply_patch verification failed: invalid hunk"
    [result] = parse_lines(_exec("c1", program, err, status="Script failed")).tool_results
    assert result.is_error and "invalid hunk" in result.content


def test_json_a_command_printed_is_its_output_not_a_result():
    """`gh api` printing JSON: no exit code of the command's own, nothing read from it."""
    printed = json.dumps({"output": "x", "state": "open"})
    [result] = parse_lines(_exec("c1", RUN, printed)).tool_results
    assert result.content == printed and not result.is_error


def test_several_calls_each_printed_get_their_own_output():
    program = (
        'const a = await tools.exec_command({cmd:"cargo build"});\ntext(a.output);\n'
        'const b = await tools.exec_command({cmd:"cargo test"});\ntext(JSON.stringify(b));\n'
    )
    whole = json.dumps({"exit_code": 101, "output": "test result: FAILED. 1 passed; 1 failed"})
    t = parse_lines(_exec("c1", program, "Finished dev", whole))
    assert [c.input["cmd"] for c in t.tool_calls] == ["cargo build", "cargo test"]
    assert [(r.call_id, r.is_error) for r in t.tool_results] == [("c1#0", False), ("c1#1", True)]
    assert t.tool_results[0].content == "Finished dev"


@pytest.mark.parametrize(
    ("program", "parts", "status"),
    [
        # a print that may or may not happen: which part is whose is not known
        (
            'const a = await tools.exec_command({cmd:"ls"}); if (a.session_id) text("running");\n'
            'const b = await tools.exec_command({cmd:"pwd"}); text(b.output);',
            ("/x",),
            "Script completed",
        ),
        # the program threw: which call failed, and which never ran, is not known
        (
            'const a = await tools.exec_command({cmd:"ls"}); text(a.output);\n'
            'const b = await tools.exec_command({cmd:"pwd"}); text(b.output);',
            ("a\n",),
            "Script failed",
        ),
    ],
    ids=["conditional-print", "threw"],
)
def test_several_calls_whose_output_is_not_told_apart_stand_without_results(program, parts, status):
    t = parse_lines(_exec("c1", program, *parts, status=status))
    assert [c.input["cmd"] for c in t.tool_calls] == ["ls", "pwd"] and t.tool_results == []


@pytest.mark.parametrize(
    "program",
    [
        'text("next: tools.exec_command({cmd:\\"cargo test\\"})");',  # in a string
        '// const r = await tools.exec_command({cmd:"cargo test"});\ntext("hi");',  # a comment
        'const c = "cargo " + "test"; const r = await tools.exec_command({cmd: c}); text(r.output);',
        'const r = await tools.exec_command({cmd: `cargo test ${"-p core"}`}); text(r.output);',
        'let c = "cargo test"; const r = await tools.exec_command({cmd: c}); text(r.output);',
        'for (const c of ["a", "b"]) { await tools.exec_command({cmd: c}); }',
        'const rs = await Promise.all([tools.exec_command({cmd:"a"}), tools.exec_command({cmd:"b"})]);',
        'const t = tools; const r = await t.exec_command({cmd:"cargo test"}); text(r.output);',
        'const r = await tools["exec_command"]({cmd:"cargo test"}); text(r.output);',
        'if (x) { await tools.exec_command({cmd:"cargo test"}); }',
        'const r = await tools.exec_command({cmd:"cargo test", ...extra}); text(r.output);',
        'const r = await tools.exec_command({cmd:"unterminated); text(r.output);',
        'if (Date.now() > 0) exit(); const r = await tools.exec_command({cmd:"make"}); text(r);',
    ],
    ids=[
        "string",
        "comment",
        "computed",
        "substitution",
        "let",
        "loop",
        "promise-all",
        "alias",
        "indexed",
        "branch",
        "spread",
        "broken",
        "after-exit",
    ],
)
def test_a_program_not_read_literally_stays_one_exec_call(program):
    assert read_program(program) is None
    t = parse_lines(_exec("c1", program, "out"))
    [call] = t.tool_calls
    assert (call.name, call.input) == ("exec", program)
    assert [r.call_id for r in t.tool_results] == ["c1"]


def test_an_exec_of_another_harness_is_not_read_as_a_program():
    """A function tool named `exec` with JSON arguments is not code mode's freeform exec."""
    args = {"cmd": 'await tools.exec_command({cmd:"cargo test"})'}
    line = _item(
        {"type": "function_call", "name": "exec", "call_id": "c1", "arguments": json.dumps(args)}
    )
    [call] = parse_lines([line]).tool_calls
    assert (call.name, call.input) == ("exec", args)


def _commands(lines: list[str]) -> list[Ran]:
    t: Transcript = parse_lines(lines)
    return commands_run(t)


def test_a_cell_still_running_is_read_whole_where_its_wait_ended():
    lines = [
        *_exec("c1", RUN, status="Script running with cell ID 7"),
        *_wait("w1", "6", "unrelated\n"),  # another cell's wait
        *_wait("w2", "7", "running 3 tests\n", status="Script running with cell ID 7"),
        *_wait("w3", "7", "test result: FAILED. 2 passed; 1 failed\n"),
    ]
    [ran] = _commands(lines)
    assert ran.command == "cargo test -p core" and ran.result == 7
    assert ran.run is not None and not ran.run.green
    assert "running 3 tests" in ran.output and "unrelated" not in ran.output


def test_a_command_whose_whole_result_says_it_runs_on_goes_on_in_its_write_stdin():
    program = RUN.replace("text(r.output)", "text(JSON.stringify(r))")
    poll = 'const r = await tools.write_stdin({session_id:4711,chars:""}); text(JSON.stringify(r));'
    lines = [
        *_exec("c1", program, json.dumps({"session_id": 4711, "output": "Compiling core\n"})),
        *_exec(
            "c2",
            poll,
            json.dumps({"exit_code": 0, "output": "test result: ok. 3 passed; 0 failed\n"}),
        ),
    ]
    [ran] = _commands(lines)
    assert ran.command == "cargo test -p core" and ran.run is not None and ran.run.green
    assert "Compiling core" in ran.output and not ran.is_error


def test_a_wait_without_a_read_program_continues_nothing():
    lines = [
        *_exec(
            "c1",
            'for (const c of ["cargo test"]) { await tools.exec_command({cmd: c}); }',
            status="Script running with cell ID 7",
        ),
        *_wait("w1", "7", "test result: ok. 3 passed; 0 failed\n"),
    ]
    assert _commands(lines) == []
