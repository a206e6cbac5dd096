"""What the tools said, for a model writer's excerpt: the failed tool calls and what then worked.

The slice (``cascade.slice_lines``) holds the dialogue around the gate's signals, and the
dialogue alone hides the traps a session shows by doing: a command fails with an error, the
assistant says why, and another command (or the same one outside the sandbox) passes. A model
cannot keep a lesson it is not shown, so ``cascade.with_tools`` gives it, as ``tool:`` lines:

- each failed call: a command (``commandruns``' reading, the heuristic traps' own failure
  test) or an edit (``policy.EDIT_TOOLS``) whose result is an error, with the one line of its
  output that says why (``commandruns.error_line``: the place's refusal, a test run's first
  error, else the first line that says something failed, past the harness's frame);
- what then worked: the command that got past a failure (``recoveries``), the edit and the
  green run of a repair (``repairs``), the next successful call of an edit tool that failed.

The commands, recoveries and repairs are the gate's own readings (``notes/toolwork``), passed
on by the cascade, so a session the gate read for its recoveries is not read again here.

A passing command's output is never shown (only that it passed). Each output is masked
(``scrub_secrets``) and stripped of private and injected spans (``strip_private``:
``<system-reminder>``, hook text) before a line is picked from it. Pure reading; the
heuristic writer never sees these lines (its chunks are unchanged).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from reflectgit.notes.anchors import edited_paths
from reflectgit.notes.commandruns import NOT_RUN, Ran, error_line, failed_run
from reflectgit.notes.policy import EDIT_TOOLS
from reflectgit.notes.privacy import scrub_secrets, strip_private
from reflectgit.notes.recoveries import outside_sandbox
from reflectgit.notes.toolwork import ToolWork
from reflectgit.notes.transcripts import Transcript

ROLE = "tool"
COMMAND_CAP = 160
LINE_CAP = 320


@dataclass(frozen=True)
class ToolLine:
    """One line of tool evidence: the record it sits at and its rendered text."""

    record: int
    text: str


def _masked(text: str) -> str:
    return " ".join(strip_private(scrub_secrets(text)).split())


def _command(command: str) -> str:
    shown = _masked(command)
    return shown if len(shown) <= COMMAND_CAP else shown[: COMMAND_CAP - 1] + "…"


def _line(record: int, text: str) -> ToolLine:
    return ToolLine(record, f"{ROLE}: {text}"[:LINE_CAP])


def _why(ran: Ran) -> str:
    """The line of a failed call's output that says why, from its masked output."""
    output = strip_private(scrub_secrets(ran.output))
    return " ".join(error_line(ran._replace(output=output)).split())


def _failed_with(ran: Ran) -> str:
    said = _why(ran)
    return f"failed: {said}" if said else "failed"


@dataclass(frozen=True)
class Episode:
    """A failed call and what then got past it (the passing call; a repair's edit and green
    run), each a ``ToolLine``."""

    failed: ToolLine
    passed: tuple[ToolLine, ...]

    @property
    def lines(self) -> tuple[ToolLine, ...]:
        return (self.failed, *self.passed)


@dataclass(frozen=True)
class Evidence:
    """A transcript's tool evidence: every failed call, and the failures something got past."""

    failures: tuple[ToolLine, ...]
    episodes: tuple[Episode, ...]

    def lines(self) -> list[ToolLine]:
        """Every line, failures and what then worked, once each, in record order."""
        every = [*self.failures, *(x for e in self.episodes for x in e.passed)]
        unique = {(t.record, t.text): t for t in every}
        return sorted(unique.values(), key=lambda t: t.record)


def _what(name: str, tool_input: object) -> str:
    paths = edited_paths([(name, tool_input)])
    return _masked(f"{name} on {', '.join(paths)}" if paths else name)


def read(transcript: Transcript, work: ToolWork | None = None) -> Evidence:
    """The tool evidence of ``transcript`` (see the module's list). ``work`` is its tool
    readings (``notes/toolwork``) as the gate left them: what the gate read is not read
    again."""
    work = work if work is not None else ToolWork(transcript)
    ran = work.ran
    failures: dict[int, ToolLine] = {}
    for one in ran:
        if failed_run(one):
            failures[one.result] = _line(
                one.result, f"`{_command(one.command)}` {_failed_with(one)}"
            )
    episodes: list[Episode] = []
    commands = {r.call.call_id for r in ran}
    calls = {c.call_id: c for c in transcript.tool_calls}
    failed_tools: dict[str, int] = {}  # tool name -> the record of its last failed result
    for result in transcript.tool_results:
        call = calls.get(result.call_id)
        if call is None or call.name not in EDIT_TOOLS or call.call_id in commands:
            continue
        if result.is_error:
            if NOT_RUN in result.content[:200]:
                continue
            one = Ran(call, result.record, "", result.content, True, None)
            what = _what(call.name, call.input)
            failures[result.record] = _line(result.record, f"{what} {_failed_with(one)}")
            failed_tools[call.name] = result.record
        elif call.name in failed_tools:
            failed = failures[failed_tools.pop(call.name)]
            passed = _line(result.record, f"{_what(call.name, call.input)} passed")
            episodes.append(Episode(failed, (passed,)))
    by_call = {r.call.record: r for r in ran}
    for found in work.recovered:
        passed_run = by_call.get(found.passed_at)
        where = (
            " outside the sandbox" if passed_run and outside_sandbox(passed_run.call.input) else ""
        )
        record = passed_run.result if passed_run else found.passed_at
        if found.result in failures:
            line = _line(record, f"`{_command(found.passed)}` then passed{where}")
            episodes.append(Episode(failures[found.result], (line,)))
    by_result = {r.result: r for r in ran}
    edits = {c.record: c for c in transcript.tool_calls}
    for fix in work.repaired:
        edit, green = edits.get(fix.edited), by_result.get(fix.green)
        if fix.failed not in failures or edit is None or green is None:
            continue
        then = (
            _line(fix.edited, f"then {_what(edit.name, edit.input)}"),
            _line(fix.green, f"`{_command(green.command)}` then passed"),
        )
        episodes.append(Episode(failures[fix.failed], then))
    episodes.sort(key=lambda e: e.failed.record)
    return Evidence(tuple(sorted(failures.values(), key=lambda t: t.record)), tuple(episodes))


def between(lines: Sequence[ToolLine], first: int, last: int) -> list[ToolLine]:
    """The lines of ``lines`` (record order) at records from ``first`` to ``last``."""
    records = [t.record for t in lines]
    return list(lines[bisect.bisect_left(records, first) : bisect.bisect_right(records, last)])
