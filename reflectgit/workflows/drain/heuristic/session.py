"""The session around a line: what the assistant's tool calls did after it, the turns before
and after it, and whether the test runs around it went from red to green. Pure.

The readers of the writer ask these as questions of a dialogue record (``green``, ``verified``,
``acted``, ``done``, ``said``, ``reply``, ``rest``, ``past``); ``answer.write`` binds them to
one transcript.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from reflectgit.notes import testruns
from reflectgit.notes.commandruns import Ran, commands_run
from reflectgit.notes.policy import EDIT_TOOLS
from reflectgit.notes.privacy import clean
from reflectgit.notes.transcripts import ASSISTANT, INJECTED, PERSON, ToolCall, Transcript
from reflectgit.workflows.drain.heuristic.wording import _CODE, _TOKEN, _folded, _terms


def green_around(transcript: Transcript, ran: Sequence[Ran] | None = None) -> Callable[[int], bool]:
    """``green(record)``: did the tests go from red to green across that record? The last
    test run before it (since the person last spoke) failed and the first one after it (before
    the person speaks again) passed. A run is a test command the assistant ran and a summary
    ``testruns`` can read."""
    ran = commands_run(transcript) if ran is None else ran
    runs = [(r.result, r.run.green) for r in ran if r.run is not None]
    persons = [t.record for t in transcript.turns if t.speaker == PERSON]

    def green(record: int) -> bool:
        start = max((r for r in persons if r <= record), default=-1)
        end = min((r for r in persons if r > record), default=None)
        before = [ok for at, ok in runs if start < at <= record]
        after = [ok for at, ok in runs if at > record and (end is None or at < end)]
        return bool(before) and not before[-1] and bool(after) and after[0]

    return green


def verified_edits(
    transcript: Transcript, ran: Sequence[Ran] | None = None
) -> Callable[[int], str]:
    """``verified(record)``: were the session's edits since the person last spoke followed by a
    passing test run? Between the person's turn before the record and the record, a file was
    edited, and the last test run came after the last edit and passed. What those edits wrote
    and replaced (every string of their input, the file's path too), else ``""``."""
    edits = [c for c in transcript.tool_calls if c.name in EDIT_TOOLS]
    ran = commands_run(transcript) if ran is None else ran
    runs = [(r.result, r.run.green) for r in ran if r.run is not None]
    persons = [t.record for t in transcript.turns if t.speaker == PERSON]

    def verified(record: int) -> str:
        start = max((r for r in persons if r <= record), default=-1)
        edited = [c for c in edits if start < c.record <= record]
        ran = [(at, ok) for at, ok in runs if start < at <= record]
        if edited and ran and ran[-1][1] and ran[-1][0] > edited[-1].record:
            return "\n".join(_call_text(c.input) for c in edited) or "\n"
        return ""

    return verified


def acted_on(
    transcript: Transcript, ran: Sequence[Ran] | None = None
) -> Callable[[int], int | None]:
    """``acted(record)``: did the assistant act on what it said at that record and pass? Before
    the person speaks again, it edited files (reading first is fine), no test ran before its
    first edit, and the first test run after that edit passed (a cause caught by reading, or a
    change the person asked for, made and then checked). The first edit's record, else None."""
    ran = commands_run(transcript) if ran is None else ran
    runs = {r.call.record: r.run.green for r in ran if r.run is not None}  # call record -> green
    order = sorted(transcript.tool_calls, key=lambda c: c.record)
    persons = [t.record for t in transcript.turns if t.speaker == PERSON]

    def acted(record: int) -> int | None:
        end = min((r for r in persons if r > record), default=None)
        later = [c for c in order if c.record > record and (end is None or c.record < end)]
        edit = next((i for i, c in enumerate(later) if c.name in EDIT_TOOLS), None)
        if edit is None or any(c.record in runs for c in later[:edit]):
            return None
        tested = [runs[c.record] for c in later[edit:] if c.record in runs]
        return later[edit].record if tested and tested[0] else None

    return acted


_OLD_KEYS = ("old_string", "old_str")

_NEW_KEYS = ("new_string", "new_str", "content", "file_text")


def _brought_in(edits: Sequence[ToolCall]) -> list[set[str]]:
    """For each edit of ``edits`` (in order), the terms the edits before it brought in: in
    their new text and not their old (the lines a patch adds and does not remove)."""
    out: list[set[str]] = []
    new: set[str] = set()
    old: set[str] = set()
    for call in edits:
        out.append(new - old)
        added, removed = _edited_text(call)
        new |= _terms(added)
        old |= _terms(removed)
    return out


def _edited_text(call: ToolCall) -> tuple[str, str]:
    """An edit's new text and its old text."""
    new: list[str] = []
    old: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            for key, item in value.items():
                if key in _NEW_KEYS and isinstance(item, str):
                    new.append(item)
                elif key in _OLD_KEYS and isinstance(item, str):
                    old.append(item)
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and value.lstrip().startswith("*** Begin Patch"):
            for line in value.splitlines():
                if line.startswith("+"):
                    new.append(line[1:])
                elif line.startswith("-"):
                    old.append(line[1:])

    walk(call.input)
    return "\n".join(new), "\n".join(old)


def fix_was_done(fix: str, done: str) -> bool:
    """Did the session's tool calls touch every thing ``fix`` names in a code span (one of the
    span's names, a whole word, in what they did: "move `persist_with_outbox` from
    `upload_protocol`" is an edit around both)? A name is touched too when a file the calls
    touched is named for it (`buildContextTree` and ``build-context-tree.ts``). A fix naming
    nothing in code: ``True``."""
    touched = _touched(done)
    return all(touched(span) or not _TOKEN.search(span) for span in _CODE.findall(fix))


def names_done(said: str, done: str) -> bool:
    """Does ``said`` name in a code span something the session's tool calls touched (as
    ``fix_was_done`` reads a name)? A cause whose named things are none of what was edited is
    about other work; one naming nothing in code: ``False``."""
    touched = _touched(done)
    return any(touched(span) for span in _CODE.findall(said) if _TOKEN.search(span))


def _touched(done: str) -> Callable[[str], bool]:
    """``touched(span)``: is one of a code span's names, a whole word, in ``done``, or a file
    ``done`` touched named for it?"""
    words = set(_TOKEN.findall(done))
    files = {_folded(m.group("stem")) for m in _FILE.finditer(done)}
    return lambda span: any(t in words or _folded(t) in files for t in _TOKEN.findall(span))


_FILE = re.compile(r"(?:^|[\s/\\])(?P<stem>[A-Za-z_][\w-]{2,})\.[A-Za-z]{1,5}\b", re.M)


def done_after(transcript: Transcript, ran: Sequence[Ran] | None = None) -> Callable[[int], str]:
    """``done(record)``: what the assistant's tool calls did after that record up to the first
    passing test run (before the person speaks again), one per line: the text edited in and
    out, the commands run. That run checked this work, not whatever the assistant said."""
    ran = commands_run(transcript) if ran is None else ran
    passed = {r.call.record for r in ran if r.run is not None and r.run.green}  # test runs
    order = sorted(transcript.tool_calls, key=lambda c: c.record)
    persons = [t.record for t in transcript.turns if t.speaker == PERSON]

    def done(record: int) -> str:
        end = min((r for r in persons if r > record), default=None)
        out: list[str] = []
        for call in order:
            if call.record <= record:
                continue
            if (end is not None and call.record > end) or call.record in passed:
                break
            out.append(_call_text(call.input))
        return "\n".join(out)

    return done


def _call_text(tool_input: Any) -> str:
    """Every string a tool call's input holds (a command, an edit's old and new text, a
    patch)."""
    if isinstance(tool_input, str):
        return tool_input
    if isinstance(tool_input, Mapping):
        return "\n".join(_call_text(v) for v in tool_input.values())
    if isinstance(tool_input, list):
        return "\n".join(_call_text(v) for v in tool_input)
    return ""


def turn_before(transcript: Transcript) -> Callable[[int], str]:
    """``said(record)``: the assistant's whole turn before that record (from the person's turn
    before it), past any chunk's context; ``""`` when the person spoke last."""
    turns = [(t.record, t.speaker, t.text) for t in transcript.turns if t.speaker != INJECTED]

    def said(record: int) -> str:
        out: list[str] = []
        for at, speaker, text in turns:
            if at >= record:
                break
            out = [] if speaker == PERSON else [*out, text.strip()]
        return clean("\n".join(out))

    return said


def next_reply(transcript: Transcript) -> Callable[[int], str]:
    """``reply(record)``: the person's first turn after that record, or ``""``."""
    persons = [(t.record, t.text) for t in transcript.turns if t.speaker == PERSON]

    def reply(record: int) -> str:
        return next((text for at, text in persons if at > record), "")

    return reply


def rest_of_turn(transcript: Transcript) -> Callable[[int, str], str]:
    """``rest(record, line)``: what the assistant said after ``line`` (of the turn at
    ``record``), to the person's next turn; ``""`` when the line is not found there."""
    turns = [t for t in transcript.turns if t.speaker in (PERSON, ASSISTANT)]

    def rest(record: int, line: str) -> str:
        said: list[str] = []
        for turn in turns:
            if turn.record < record:
                continue
            if turn.speaker == PERSON:
                break
            said.append(turn.text)
        joined = "\n".join(said)
        at = joined.find(line.strip()) if line.strip() else -1
        return joined[at + len(line.strip()) :].strip() if at >= 0 else ""

    return rest


def past_the_error(
    transcript: Transcript, ran: Sequence[Ran] | None = None
) -> Callable[[int], bool]:
    """``past(record)``: did the next test run get past the error the last one failed with?
    Between the person's turns around the record: the last test run before it failed with an
    error line, the first one after it failed with another error line (or passed), and a later
    run passed. A failing test command counts even without a summary (it did not compile, it
    crashed): its first error line is what it failed with."""
    runs: list[tuple[int, bool, str]] = []  # record, green, first error
    for r in commands_run(transcript) if ran is None else ran:
        runner = testruns.runner_of(r.command)
        if runner is None:
            continue
        if r.run is not None and r.run.green:
            runs.append((r.result, True, ""))
        elif r.run is not None or r.is_error:
            runs.append((r.result, False, testruns.first_error(r.output, runner)))
    persons = [t.record for t in transcript.turns if t.speaker == PERSON]

    def past(record: int) -> bool:
        start = max((r for r in persons if r <= record), default=-1)
        end = min((r for r in persons if r > record), default=None)
        before = [x for x in runs if start < x[0] <= record]
        after = [x for x in runs if x[0] > record and (end is None or x[0] < end)]
        if not before or before[-1][1] or not before[-1][2] or not after:
            return False
        following, error = after[0], before[-1][2]
        moved = following[1] or (bool(following[2]) and following[2] != error)
        return moved and any(ok for _at, ok, _e in after)

    return past
