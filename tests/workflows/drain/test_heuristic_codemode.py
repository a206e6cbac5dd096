"""Codex's code mode through the drain (issue 34): a session whose every tool call is made from
a JavaScript ``exec`` program writes the note the same session writes with the calls made
directly: the failing test run, the patch, the green run are read alike."""

from __future__ import annotations

import json
from pathlib import Path

from reflectgit.workflows.drain import cascade, heuristic

RED = "E   KeyError: 'tenant_id'\n=== 1 failed, 11 passed in 0.40s ==="
GREEN = "12 passed in 0.40s"
CAUSE = (
    "The CSV export drops the `tenant_id` column when the header row is quoted. "
    "I need to pass `quotechar` to the reader."
)
PATCH = (
    "*** Begin Patch\n*** Update File: app/csv_export.py\n@@\n-rows = csv.reader(f)\n"
    "+rows = csv.reader(f, quotechar='\"')\n*** End Patch\n"
)
WORKDIR = "/work/app"


def _message(role: str, text: str) -> dict:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def _script(*parts: str, status: str = "Script completed") -> list[dict]:
    head = f"{status}\nWall time 0.4 seconds\nOutput:\n"
    return [{"type": "input_text", "text": t} for t in (head, *parts)]


def _direct(call: str, kind: str, arg: str, output: str, code: int) -> list[dict]:
    """A call made directly: ``exec_command`` with the unified exec's text, or ``apply_patch``."""
    if kind == "apply_patch":
        return [
            {"type": "custom_tool_call", "name": "apply_patch", "call_id": call, "input": arg},
            {"type": "custom_tool_call_output", "call_id": call, "output": output},
        ]
    args = json.dumps({"cmd": arg, "workdir": WORKDIR})
    head = f"Chunk ID: 0a1b\nWall time: 0.4 seconds\nProcess exited with code {code}\nOutput:\n"
    return [
        {"type": "function_call", "name": "exec_command", "call_id": call, "arguments": args},
        {"type": "function_call_output", "call_id": call, "output": head + output},
    ]


def _coded(call: str, kind: str, arg: str, output: str, code: int) -> list[dict]:
    """The same call made from a code-mode program: the failing run prints its whole result
    (its exit code in it), the others print their output only."""
    if kind == "apply_patch":
        program = f"const patch = {json.dumps(arg)};\ntext(await tools.apply_patch(patch));"
        parts = _script(output)
    elif code:
        program = (
            f"const r = await tools.exec_command({{cmd:{json.dumps(arg)},"
            f'"workdir":"{WORKDIR}","yield_time_ms":10000}}); text(JSON.stringify(r));'
        )
        result = {"chunk_id": "0a1b", "wall_time_seconds": 0.4, "exit_code": code}
        parts = _script(json.dumps({**result, "output": output}))
    else:
        program = (
            f"const r = await tools.exec_command({{cmd:{json.dumps(arg)},"
            f'"workdir":"{WORKDIR}"}}); text(r.output);'
        )
        parts = _script(output)
    return [
        {"type": "custom_tool_call", "name": "exec", "call_id": call, "input": program},
        {"type": "custom_tool_call_output", "call_id": call, "output": parts},
    ]


def _session(tmp_path: Path, tool) -> list[dict]:  # type: ignore[no-untyped-def]
    items = [
        _message("user", "tidy the importer"),
        _message("assistant", "Done."),
        _message("user", "no, that is wrong"),
        _message("user", "the nightly import fails on the staging data"),
        *tool("c0", "exec_command", "pytest -q", RED, 1),
        _message("assistant", CAUSE),
        *tool(
            "c1",
            "apply_patch",
            PATCH,
            "Success. Updated the following files:\nM app/csv_export.py",
            0,
        ),
        *tool("c2", "exec_command", "pytest -q", GREEN, 0),
        _message("assistant", "Done."),
    ]
    meta = {
        "type": "session_meta",
        "payload": {"id": "s-1", "cwd": WORKDIR, "cli_version": "0.128.0"},
    }
    lines = [json.dumps(meta)] + [
        json.dumps({"type": "response_item", "payload": i}) for i in items
    ]
    path = tmp_path / f"{tool.__name__}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    prepared = cascade.prepare(str(path))
    assert prepared.skip is None
    return heuristic.write(prepared)["actions"]


def test_a_code_mode_session_writes_the_note_its_direct_twin_writes(tmp_path):
    direct = _session(tmp_path, _direct)
    coded = _session(tmp_path, _coded)
    assert [a["title"] for a in direct] and coded == direct
    [action] = [a for a in coded if a["learning_type"] == "bug-fix"]
    assert "Confirmed by a green test run" in action["body"]


def test_code_mode_programs_the_reader_cannot_read_write_no_note(tmp_path):
    """The same programs, each run once in a loop: a loop's calls are not read literally, so
    neither the failure, the edit nor the green run is there to confirm the cause."""

    def looped(call: str, kind: str, arg: str, output: str, code: int) -> list[dict]:
        items = _coded(call, kind, arg, output, code)
        items[0]["input"] = "for (const once of [1]) {\n" + items[0]["input"] + "\n}"
        return items

    assert _session(tmp_path, _direct)
    assert _session(tmp_path, looped) == []
