"""Standing instructions: a person's way of working that outlives the task. Pure.

A sentence of the person's own about a way of working beyond this task (a lasting scope: "next
time", "from now on", "always"; or a correction of how the assistant did what was asked) that
the assistant's reply takes on for later steps; and a convention for a kind of thing ("use table
driven tests where possible") that the assistant's work applies beyond one edit.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from reflectgit.notes.policy import EDIT_TOOLS, call_from
from reflectgit.notes.privacy import clean
from reflectgit.notes.signals import LASTING, MEDIUM
from reflectgit.notes.transcripts import ASSISTANT, PERSON, Transcript
from reflectgit.workflows.drain.heuristic.note import _action
from reflectgit.workflows.drain.heuristic.rules import reports_a_try
from reflectgit.workflows.drain.heuristic.session import _call_text
from reflectgit.workflows.drain.heuristic.wording import (
    _CODE,
    _MARKUP,
    _TOLD,
    MIN_WORDS,
    _cap,
    sentences,
)
from reflectgit.workflows.drain.heuristic.written import _INSTRUCTIONS

# A person's sentence about a way of working beyond this task: a lasting scope ("next time",
# "from now on", "always", "by default", "default to", "instead of") or a correction of how the
# assistant did what was asked ("That's not what I asked ... What I said was run X").
_STANDING = re.compile(
    rf"\b(?:next time|{LASTING}|always|"
    r"never(?!\s+mind)|by default|default(?:ing)? to|instead of)\b"
    r"|\bnot what i (?:asked|said|meant)\b|\bwhat i (?:said|asked|meant) (?:was|is)\b",
    re.I,
)

# The assistant's reply taking it on for later steps, not just this one: "I won't commit the
# changes for you", "I'll use `git add ... && git commit ...` for future commit steps", "use
# `grep -n -F` by default instead of assuming `rg`".
_TAKEN_ON = re.compile(
    r"\b(?:from now on|going forward|for (?:all )?(?:future|later)|in (?:the )?future|next time|"
    r"by default)\b|\bi(?:'ll| will) (?:always|never)\b|\bi (?:won'?t|will not)\b",
    re.I,
)

MAX_STANDING_CHARS = 600  # longer is a pasted plan or a brief, whose "always" is the task's

# The person's own voice: a sentence addressed to the assistant or said of the team, not a
# pasted notice ("To hide this notice in the future ...") or a review finding.
_VOICE = re.compile(r"\b(?:you|your|we|we'll|we're|us|our|i|i'll|i'm|me|my|let me)\b", re.I)


def _untold(sentence: str) -> str:
    """A sentence minus its scolding ("..., I already told you last week"), unless the
    scolding is the sentence ("What I said was run X")."""
    kept = _TOLD.sub("", sentence).rstrip(" .!")
    return kept if len(kept.split()) >= MIN_WORDS else sentence.rstrip(" .!")


def standing_instructions(transcript: Transcript, since: int = 0) -> list[dict[str, Any]]:
    """Notes from a person's instruction that outlives the task, for the person's turns at or
    after record ``since``: a way of working said with a lasting scope (or as a correction of
    how the assistant did it) which the assistant's reply, before the person speaks again,
    takes on for later steps; or a convention for a kind of thing (``convention``) the
    assistant's work then applies beyond one edit (``applied``). A turn is read part by part
    (its lines, then their sentences): a question next to an instruction leaves the
    instruction standing. A request for this task's output ("add a table", "commit and
    continue") has no lasting scope; an instruction the assistant only carries out once is not
    taken on."""
    turns = [t for t in transcript.turns if t.speaker in (PERSON, ASSISTANT)]
    applies = applied(transcript)
    out: list[dict[str, Any]] = []
    for i, turn in enumerate(turns):
        if turn.speaker != PERSON or turn.record < since:
            continue
        said = clean(turn.text).strip()
        if not said or len(said) > MAX_STANDING_CHARS:
            continue  # a brief or a pasted plan, whose "always" is the task's
        if reports_a_try(said):
            continue
        parts = stated_parts(said)
        standing = [s for s in parts if _STANDING.search(s) and _VOICE.search(s)]
        reply = []
        for later in turns[i + 1 :]:
            if later.speaker == PERSON:
                break
            reply.append(later.text)
        if len(" ".join(standing).split()) >= MIN_WORDS and any(_TAKEN_ON.search(r) for r in reply):
            untold = [_untold(s) for s in standing]
            title = next((s for s in untold if _CODE.search(s)), untold[0])
            rule = ". ".join(untold) + "."
            how = "the assistant's reply taking it on for later steps"
        else:
            kept = [(c, key) for c, key in map(convention, parts) if c]
            done = next((c for c, key in kept if applies(turn.record, key)), "")
            if not done:
                continue
            title, rule = _cap(done), _cap(done) + "."
            how = "the assistant's work after it applying it beyond one edit"
        out.append(
            _action(
                title=title,
                rule=rule,
                quote=said,
                before="",
                asked=said,
                who="person, giving a way of working beyond this task",
                confidence=MEDIUM,
                learning_type="correction",
                category="general",
                confirmed=how,
            )
        )
    return out


def stated_parts(said: str) -> list[str]:
    """What a person's turn states, part by part: each line's sentences (a bullet's marker
    left out), questions left out. "* Add a README into the e2e dir. * does it test the
    output?" states the first part; the question beside it takes nothing away from it."""
    parts = [s for line in said.splitlines() for s in sentences(_MARKUP.sub("", line).strip())]
    return [s for s in parts if not s.rstrip().endswith("?")]


# An instruction whose object is a kind of thing, not one artefact of this task: a way of
# doing (use, prefer, avoid) a plural with no determiner ("use table driven tests where
# possible", "avoid global variables"), or a place for a kind of file ("design documents go in
# the /specs folder"). "Use the existing helper", "fix the tests", "add a table" name one
# thing of this task; "use pnpm" names a tool (the lasting-scope and correction paths' case).
_DETERMINER = r"(?:the|this|that|these|those|it|its|them|my|our|your|their|a|an|one|some|any)"

_KIND = r"(?:[a-z][\w-]*\s+){0,3}?[a-z][\w-]*[^\W_siu]s"  # a plural noun phrase

_CONVENTION = re.compile(
    rf"(?:^|[,;:]\s*|\b(?:and|also|then|please)\s+)(?:always\s+)?"
    rf"(?P<how>use|prefer|avoid|favou?r)\s+(?!{_DETERMINER}\b)(?P<kind>{_KIND})\b"
    rf"|^(?P<place>(?!{_DETERMINER}\b){_KIND})\s+(?:should\s+)?(?:go|belong|live)\s+"
    r"(?:in|into|under|inside)\s+\S",
    re.I,
)


def convention(part: str) -> tuple[str, str]:
    """``(instruction, key)`` when a stated part is a convention for a kind of thing: the
    clause from its verb on ("use table driven tests where possible (also for ...)") and the
    words that name the kind's way ("table driven"; the plural itself when it stands alone),
    else ``("", "")``."""
    m = _CONVENTION.search(part)
    if m is None:
        return "", ""
    kind = (m.group("kind") or m.group("place")).split()
    key = " ".join(kind[:-1]) if len(kind) > 1 else kind[0][:-1]
    start = m.start("how") if m.group("how") else m.start("place")
    return part[start:].strip().rstrip(" .;:!"), _folded_words(key)


def _folded_words(text: str) -> str:
    """Words as a search reads them: lower case, hyphens and underscores as spaces."""
    return " ".join(re.sub(r"[-_]+", " ", text.lower()).split())


# The tools that hand work to another agent: the instructions they carry are applied there.
DELEGATE_TOOLS = frozenset({"Task", "Agent"})


def applied(transcript: Transcript) -> Callable[[int, str], bool]:
    """``applies(record, key)``: did the assistant's work after the person's turn at that
    record, before the person speaks again, apply what ``key`` names beyond one edit? Two
    edits carry it, or it is handed on in another agent's instructions (a delegated task) or
    written into a file of standing instructions. One edit is a request carried out once."""
    persons = [t.record for t in transcript.turns if t.speaker == PERSON]
    calls = sorted(
        (c for c in transcript.tool_calls if c.name in EDIT_TOOLS or c.name in DELEGATE_TOOLS),
        key=lambda c: c.record,
    )

    def applies(record: int, key: str) -> bool:
        if not key:
            return False
        end = min((r for r in persons if r > record), default=None)
        edits = 0
        for call in calls:
            if call.record <= record or (end is not None and call.record > end):
                continue
            if not re.search(rf"\b{re.escape(key)}", _folded_words(_call_text(call.input))):
                continue
            paths = "\n".join(call_from(call.name, call.input).paths)
            if call.name in DELEGATE_TOOLS or _INSTRUCTIONS.search(paths):
                return True
            edits += 1
        return edits >= 2

    return applies
