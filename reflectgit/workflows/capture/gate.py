"""The enqueue gate: is a transcript worth a model call? A $0 regex check. Pure apart from reading.

Skips reflect-on-reflect sessions, sessions with no signal in their dialogue, transcripts
already queued and transcripts already processed. It fails open: when the transcript (or the
queue, or the ledger) cannot be read it says enqueue, because a lost lesson costs more than one
wasted model call and the drain's caps bound that cost. A session with no signal whose person
writes a language the signal readers cannot read (``notes/english.py``) is not read either, so
it is queued too (``unread-language``): the drain gives it to a model writer, and the heuristic
writer skips it under that reason.

Whether a session no reader found a signal in is read anyway is decided by the writer, in one
place (``unsignalled``), for this gate and the drain's cascade alike: a model writer reads it
when a command failed or a file was edited (``toolwork.ToolWork.worked``: where a cause or a
trap can show without the words the readers know), the heuristic writer, which reads nothing
but signals, never does. ``evaluate(model=True)`` queues such a session (``no-signal-worked``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reflectgit.notes.english import UNREAD_LANGUAGE, unread_language
from reflectgit.notes.signals import DialogueLine, dialogue_lines, signals_in, strongest
from reflectgit.notes.transcripts import DIALOGUE_CAP, Transcript
from reflectgit.workflows.transcript_file import read_transcript

if TYPE_CHECKING:
    from reflectgit.notes.toolwork import ToolWork

HAS_SIGNAL = "has-signal"
NO_SIGNAL = "no-signal"
# No signal, but a command failed or a file was edited: a model writer reads the session.
NO_SIGNAL_WORKED = "no-signal-worked"
REFLECT_ON_REFLECT = "reflect-on-reflect"
DUP_QUEUED = "dup-already-queued"
DUP_PROCESSED = "dup-already-processed"
FAIL_OPEN = "fail-open"

# Machine markers in the opening records of a session that is itself a reflect run: the
# harness's command tags, the drain's own marker, or a record that *opens* with the command or
# the drain's old instruction. Prose that mentions them ("I ran /reflect", a pasted README
# line, "the reflect-git drain builds a prompt") is a session like any other.
_REFLECT_MARKERS = re.compile(
    r"<command-name>\s*/?reflect(?::[\w-]+)?\s*</command-name>"
    r"|<command-message>\s*/?reflect\b"
    r"|\A\s*/reflect(?::[\w-]+)?(?=\s|$)"
    r"|\A\s*Process the transcript at:"
    r"|<reflect-git:drain>",
    re.IGNORECASE,
)

DRAIN_MARKER = "<reflect-git:drain>"  # the drain puts this in its prompts, so its runs are skipped


@dataclass(frozen=True)
class Verdict:
    """The gate's answer with a reason code (``has-signal``, ``no-signal``, ...)."""

    enqueue: bool
    reason: str
    detail: str = ""
    signals: int = 0
    tier: str | None = None


def is_reflect_run(transcript: Transcript) -> bool:
    """True when the opening records carry the markers of a /reflect or drain run."""
    return any(_REFLECT_MARKERS.search(text) for text in transcript.opening_texts)


def unsignalled(lines: Sequence[DialogueLine], work: ToolWork, *, model: bool) -> tuple[str, bool]:
    """(reason, read) for a session no reader found a signal in, for a writer: ``read`` when
    the writer is given it whole anyway.

    - ``unread-language`` (the person writes a language the readers cannot read): a model
      reads it, the heuristic writer cannot;
    - ``no-signal-worked`` (a command failed or a file was edited): a model reads it;
    - else ``no-signal``: nothing failed and nothing changed, no writer reads it (a greeting,
      a question answered by reading).
    The heuristic writer reads nothing but signals: it reads none of them."""
    if unread_language(lines):
        return UNREAD_LANGUAGE, model
    if model and work.worked:
        return NO_SIGNAL_WORKED, True
    return NO_SIGNAL, False


def _safe(check: Callable[[str], bool] | None, key: str) -> tuple[bool, str]:
    if check is None:
        return False, ""
    try:
        return bool(check(key)), ""
    except Exception as exc:  # fail open: an unreadable queue or ledger must not drop a lesson
        return False, f"{type(exc).__name__}: {exc}"


def evaluate(
    path: str | Path,
    *,
    is_queued: Callable[[str], bool] | None = None,
    is_processed: Callable[[str], bool] | None = None,
    cap: int = DIALOGUE_CAP,
    model: bool = False,
) -> Verdict:
    """Decide whether to queue the transcript at ``path``; never raises. ``model``: the drain
    writes with a model (``unsignalled`` says what that opens)."""
    key = str(path)
    queued, problem = _safe(is_queued, key)
    if queued:
        return Verdict(False, DUP_QUEUED)
    processed, problem2 = _safe(is_processed, key)
    if processed:
        return Verdict(False, DUP_PROCESSED)
    try:
        transcript = read_transcript(path, max_dialogue_chars=cap)
    except Exception as exc:  # read_transcript does not raise on content; belt and braces
        return Verdict(True, FAIL_OPEN, f"read failed: {type(exc).__name__}")
    if transcript.error == "empty":
        return Verdict(False, NO_SIGNAL, "empty transcript")
    if transcript.error:
        return Verdict(True, FAIL_OPEN, transcript.error)
    if is_reflect_run(transcript):
        return Verdict(False, REFLECT_ON_REFLECT)
    try:
        # imported here: the common path (a signal in the dialogue) never reads the commands
        from reflectgit.notes.toolwork import ToolWork

        lines = list(dialogue_lines(transcript.turns, cap))
        work = ToolWork(transcript)
        found = signals_in(transcript, lines, work)
        reason, read = unsignalled(lines, work, model=model) if not found else (HAS_SIGNAL, True)
    except Exception as exc:
        return Verdict(True, FAIL_OPEN, f"scan failed: {type(exc).__name__}")
    if not found:
        # no signal in words the readers cannot read is no evidence of nothing: queued
        # whatever the writer (the heuristic drain skips it under that reason)
        if read or reason == UNREAD_LANGUAGE:
            return Verdict(True, reason)
        return Verdict(False, NO_SIGNAL, "; ".join(p for p in (problem, problem2) if p))
    return Verdict(True, HAS_SIGNAL, found[0].kind, len(found), strongest(found))
