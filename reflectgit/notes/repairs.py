"""Repairs: a failed command, the assistant's words on it, an edit, then a green test run. Pure,
cheap (one pass over the commands the session ran, no regex over dialogue).

A session whose dialogue has no signal words can still hold a cause in its tool calls: a build
or a test failed, the assistant said what it read there, edited a file, and a test run after
the edit passed. The drain's structural cause readers (``linked_causes``, ``checked_causes``
and the like) decide whether the words before the edit state a cause; ``repaired`` is the
gate's cheap look at the shape they need, so that a session of this shape is read at all:

- the failure is the tool's own verdict (an error result, a non-zero exit) or a red test run,
  not a word in the output;
- the assistant spoke after the failure and before the edit (someone read it); a failure
  followed by an edit with no words between is the ordinary next step of the work;
- a test run the drain reads (``notes/testruns``) passes after the edit: a repair nothing
  confirmed is a guess.

Where ``recoveries`` reads a failure got past without an edit (the way to run a command), this
reads one an edit got past (the code's fault); the gate asks it only of a session with no other
signal.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from reflectgit.notes.commandruns import Ran
from reflectgit.notes.policy import EDIT_TOOLS
from reflectgit.notes.transcripts import ASSISTANT, Transcript, exited_badly


@dataclass(frozen=True)
class Repair:
    """A failed command (its result's record), the assistant's last turn before the edit that
    followed it, that edit, and the green test run after the edit (its result's record)."""

    failed: int
    said: int
    edited: int
    green: int


def repaired(transcript: Transcript, ran: Sequence[Ran]) -> list[Repair]:
    """The failures of ``transcript`` that an edit got past, confirmed by a green test run (the
    module's rules), one per edit, in order. ``ran`` is ``commandruns.commands_run``'s."""
    failures = sorted(
        r.result
        for r in ran
        if r.is_error or exited_badly(r.output) or (r.run is not None and not r.run.green)
    )
    greens = sorted(r.result for r in ran if r.run is not None and r.run.green)
    if not failures or not greens:
        return []  # the common case costs one pass over the results
    edits = sorted(c.record for c in transcript.tool_calls if c.name in EDIT_TOOLS)
    spoke = sorted(t.record for t in transcript.turns if t.speaker == ASSISTANT)
    out: dict[int, Repair] = {}
    for failed in failures:
        at = bisect.bisect_right(edits, failed)
        if at == len(edits):
            break  # no edit after this failure, nor after any later one
        edit = edits[at]
        before = bisect.bisect_left(spoke, edit) - 1
        said = spoke[before] if before >= 0 else -1
        if said <= failed or edit in out:
            continue  # nobody read the failure before the edit, or this edit is counted
        after = bisect.bisect_right(greens, edit)
        if after < len(greens):
            out[edit] = Repair(failed, said, edit, greens[after])
    return list(out.values())
