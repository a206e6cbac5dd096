"""The commands an assistant ran in a session, each with its result: one reading for the
drain's readers (a fix made by a command, a command rerun differently, a limit of the place)
and the gate's recoveries.

A command still running when its call returned is read where it ended (Codex's unified exec
session, a code-mode cell, Claude Code's background task), with its output joined. Whether a
run failed (``failed_run``) and the line of its output that says why (``error_line``) are read
here too: the heuristic writer's traps and the model writer's tool evidence read them alike.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from reflectgit.notes import testruns
from reflectgit.notes.limits import refusal
from reflectgit.notes.names import scrub_controls
from reflectgit.notes.testruns import ERROR_CAP, first_error
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


# What says something fails: in an error's output, the person's complaint, the assistant's
# reading of a failure it was shown ("The health check is failing with HTTP 503").
FAILURE_WORDS = re.compile(
    r"\b(?:fail\w*|errors?|exceptions?|crash\w*|broken|panic\w*|refused|denied|timed out|"
    r"traceback|does(?:n'?t| not) (?:work|exist)|not (?:to )?work\w*|(?:is|are) wrong|"
    # something that does not happen: "it's not updated in DB", "I don't see the button"
    r"(?:is|are|was|were|'s)(?:n'?t| not) \w+ed|(?:do|does|did)(?:n'?t| not) (?:see|show|appear))\b",
    re.I,
)

# What a harness prints around a command's own output (Claude Code's "Exit code 1", Codex's
# chunk header): never the error line.
_FRAME = re.compile(
    r"^(?:Exit code \d+|Chunk ID:|Wall time:|Process exited with code|Original token count:"
    r"|Output:|warning:|hint:|Script error:)",
    re.I,
)

# Claude Code's answer for a call it did not run (a parallel call failed first, the input was
# refused): the harness's words, not the command's.
NOT_RUN = "<tool_use_error>"


def error_line(ran: Ran) -> str:
    """The line of a failed command's output that says why: the one naming the place's
    refusal, else a test run's first error, else the first that says something failed
    (``FAILURE_WORDS``), else the first past the harness's frame."""
    output = scrub_controls(ran.output)
    lines = [s for s in (line.strip() for line in output.splitlines()) if s]
    lines = [line for line in lines if not _FRAME.match(line)]
    said = refusal(output)
    if not said and ran.run is not None and (error := first_error(output, ran.run.runner)):
        return error[:ERROR_CAP]
    at = next((i for i, line in enumerate(lines) if said and said in line), None)
    if at is None:
        at = next((i for i, line in enumerate(lines) if FAILURE_WORDS.search(line)), 0)
    return lines[at][:ERROR_CAP] if lines else ""


def failed_run(ran: Ran) -> bool:
    """Did the tool itself say the command failed (an error result, a non-zero exit, a red
    test run), having run it?"""
    if NOT_RUN in ran.output[:200]:
        return False
    return ran.is_error or exited_badly(ran.output) or (ran.run is not None and not ran.run.green)
