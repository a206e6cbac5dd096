"""The commands an assistant ran in a session, each with its result: one reading for the
drain's readers (a fix made by a command, a command rerun differently, a limit of the place)
and the gate's recoveries.

A command still running when its call returned is read where it ended (Codex's unified exec
session, a code-mode cell, Claude Code's background task), with its output joined.
"""

from __future__ import annotations

from typing import NamedTuple

from reflectgit.notes import testruns
from reflectgit.notes.transcripts import (
    ToolCall,
    Transcript,
    command_text,
    exited_badly,
    goes_on,
    still_running,
)


class Ran(NamedTuple):
    """A command the assistant ran: its call, the record of its result, its text, its output,
    whether the tool reported an error, the test run read from it (None: not a test run,
    or nothing definite), and whether it ended where the transcript last reads it."""

    call: ToolCall
    result: int
    command: str
    output: str
    is_error: bool
    run: testruns.TestRun | None
    ended: bool = True  # False: still running where the transcript stops reading it


def commands_run(transcript: Transcript) -> list[Ran]:
    """Every command the assistant ran, with its result, in the order of the results (what the
    drain's checks and the gate's recoveries read; ``write`` reads them once for all)."""
    calls = {c.call_id: c for c in transcript.tool_calls}
    out: list[Ran] = []
    # Codex's unified exec: a command still running when its call returned ("Process running
    # with session ID N") goes on in the results of later ``write_stdin`` calls naming that
    # session; a code-mode program still running ("Script running with cell ID N") in the
    # results of ``wait`` calls naming its cell; Claude Code's background command ("Command
    # running in background with ID: X") in those of ``TaskOutput``/``BashOutput`` naming it.
    # Its output, exit code and test run are read from them together, at the record where it
    # ended, so a test run that took longer than the call's wait is read whole.
    running: dict[str, Ran] = {}
    for result in transcript.tool_results:
        call = calls.get(result.call_id)
        if call is None:
            continue
        session = goes_on(call.input)
        if session in running and not command_text(call.input):
            first = running.pop(session)
            out.remove(first)  # read again with the rest of its output, where it ended
            output = f"{first.output}\n{result.content}"
            run = testruns.read_run(first.command, output)
            failed = result.is_error or exited_badly(result.content)
            ran = Ran(first.call, result.record, first.command, output, failed, run)
        else:
            command = command_text(call.input)
            if not command.strip():
                continue
            run = testruns.read_run(command, result.content)
            ran = Ran(call, result.record, command, result.content, result.is_error, run)
        still = still_running(result.content)
        if still:
            ran = ran._replace(ended=False)  # what it said so far, until it goes on
            running[still] = ran
        out.append(ran)
    return out
