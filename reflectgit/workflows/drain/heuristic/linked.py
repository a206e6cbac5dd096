"""Causes read from the session's structure rather than from a phrasing the writer knows. Pure.

The assistant's statement between a failure and the confirmed edit acting on it, naming both
(not one that only restates what failed, nor one describing the change being made:
``linked_causes``); its report after the fact (``reported_causes``); a cause it states, checks
and only later fixes (``checked_causes``); one diagnosed in a stretch that edited nothing and
fixed after the person's go-ahead (``diagnosed_causes``). A run's result followed by the
assistant's next step ("The new test passed ...; I'm updating the fixture") is narration, not a
cause (``narrates_a_run``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from reflectgit.notes.commandruns import FAILURE_WORDS, Ran
from reflectgit.notes.generality import OWN_CHANGE
from reflectgit.notes.policy import EDIT_TOOLS
from reflectgit.notes.privacy import clean
from reflectgit.notes.routine import routine
from reflectgit.notes.signals import MEDIUM
from reflectgit.notes.transcripts import ASSISTANT, PERSON, ToolCall, Transcript, Turn
from reflectgit.workflows.drain.heuristic.causes import _CAUSE, _LABELLED_CAUSE, _what_was_done
from reflectgit.workflows.drain.heuristic.confirmation import (
    COMPLAINT_WORDS,
    Confirmation,
    _told,
    goes_ahead,
)
from reflectgit.workflows.drain.heuristic.note import _bug_fix, twins
from reflectgit.workflows.drain.heuristic.session import _brought_in, _call_text, fix_was_done
from reflectgit.workflows.drain.heuristic.wording import (
    _CAUSE_LEAD,
    _CLAUSE_LEAD,
    _FENCE,
    _GUESS,
    _INTENT,
    _LISTED,
    _SEEN,
    _VAGUE,
    MIN_WORDS,
    _cap,
    _plain,
    _terms,
    _trim,
    sentences,
)

_URL = re.compile(r"\w+://\S+")

# "The linter wants ...": a linter's warning, which names its fix itself (``routine``).
_LINTER_SAID = re.compile(r"\b(?:the|a|this) linter\b", re.I)


class _Stretches(NamedTuple):
    """What the structural cause readers (``linked_causes``, ``reported_causes``,
    ``diagnosed_causes``) read of one transcript, gathered once: its failures, its edits, and
    its dialogue split into stretches by the person's turns."""

    failing: list[tuple[int, str]]  # (record, output) of error results and red runs, in order
    edits: list[ToolCall]  # the edit calls, in order
    own: dict[int, set[str]]  # per edit's record: the terms the session's earlier edits brought in
    turns: list[Turn]  # the person's and the assistant's turns
    persons: list[int]  # the records of the person's turns
    readings: dict[int, list[str]]  # per assistant turn: its sentences reading a failure

    @classmethod
    def of(cls, transcript: Transcript, ran: Sequence[Ran]) -> _Stretches:
        failing = {x.record: x.content for x in transcript.tool_results if x.is_error}
        # a command the drain reads (a test run's summary) says it in its own words
        failing.update(
            (r.result, r.output)
            for r in ran
            if r.is_error or (r.run is not None and not r.run.green)
        )
        edits = sorted(
            (c for c in transcript.tool_calls if c.name in EDIT_TOOLS), key=lambda c: c.record
        )
        turns = [t for t in transcript.turns if t.speaker in (PERSON, ASSISTANT)]
        return cls(
            sorted(failing.items()),
            edits,
            dict(zip((e.record for e in edits), _brought_in(edits), strict=True)),
            turns,
            [t.record for t in turns if t.speaker == PERSON],
            {
                t.record: [x for x in sentences(clean(t.text)) if FAILURE_WORDS.search(x)]
                for t in turns
                if t.speaker == ASSISTANT
            },
        )

    def start(self, record: int) -> int:
        """The record of the person's turn that opened the stretch holding ``record``."""
        return max((r for r in self.persons if r <= record), default=-1)

    def end(self, record: int) -> int | None:
        """The record of the person's next turn after ``record`` (None: there is none)."""
        return min((r for r in self.persons if r > record), default=None)

    def failures(self, start: int, record: int) -> list[str]:
        """What failed between ``start`` and ``record``: error results and red runs, the
        person's complaint that opened the stretch, the assistant's readings of a failure it
        was shown (a URL's words are none of a complaint's terms)."""
        failed = [o for at, o in self.failing if start < at < record]
        opening = clean(next((t.text for t in self.turns if t.record == start), ""))
        opening = _URL.sub(" ", opening)
        if len(opening.split()) <= COMPLAINT_WORDS and FAILURE_WORDS.search(opening):
            failed.append(opening)
        failed += [x for at, said in self.readings.items() if start < at < record for x in said]
        return failed


def linked_causes(
    transcript: Transcript,
    ran: Sequence[Ran],
    since: int = 0,
    green: Callable[[int], bool] | None = None,
    acted: Callable[[int], int | None] | None = None,
    otherwise: Callable[[int], Confirmation | None] | None = None,
    done: Callable[[int], str] | None = None,
) -> list[dict[str, Any]]:
    """Causes read from the session's structure, not their phrasing ("the issue is"): between
    a failure (an error result, a red test run, or the person's complaint that something
    fails) and the edit that acts on it, the assistant's statement that links the two. It is
    the assistant's last words before that edit; one sentence of it names a term of the
    failure (of the error's output, the complaint, or the assistant's reading of a failure it
    was shown) and a term of the edit (its file, its old or new text) that the session's own
    earlier edits did not bring in; and a green run, the failing command succeeding again or
    the person's report of success confirms the edit. An intent ("Let me ..."), a question, a
    hedge ("might", "probably"), a plan's list item and a sentence whose subject is only the
    session's ("That's the ...") state nothing; narration that names one side only links
    nothing. For the assistant's turns at or after record ``since``."""
    at = _Stretches.of(transcript, ran)
    out: list[dict[str, Any]] = []
    for turn in at.turns:
        if turn.speaker != ASSISTANT or turn.record < since:
            continue
        record = turn.record
        end = at.end(record)
        following = next(
            (e for e in at.edits if e.record > record and (end is None or e.record < end)), None
        )
        if following is None or any(
            t.speaker == ASSISTANT and record < t.record < following.record for t in at.turns
        ):
            continue  # the edit acts on what the assistant said last before it
        how = (
            "a green test run"
            if green is not None and green(record)
            else "the assistant's edit right after it and the passing test run that followed"
            if acted is not None and acted(record) is not None
            else _told(otherwise(record))
            if otherwise is not None
            else ""
        )
        if not how:
            continue
        failed = at.failures(at.start(record), record)
        if not failed:
            continue
        action = _linked(turn.text, failed, following, how, at.own[following.record])
        if action is not None and _checked(action, done, record):
            out.append(action)
    return out


def _checked(action: dict[str, Any], done: Callable[[int], str] | None, record: int) -> bool:
    """Is ``action``'s fix the one the confirmation at ``record`` checked? (With no ``done``,
    there is no fix to check it against.) A confirmation that checked another fix than the one
    said confirms nothing of it (``checked``)."""
    return done is None or fix_was_done(action["fix"], done(record))


def reported_causes(
    transcript: Transcript, ran: Sequence[Ran], since: int = 0
) -> list[dict[str, Any]]:
    """Causes the assistant reports after the fact: its closing words before the person speaks
    again (the turn's last text), after, in that stretch, a failure (an error result or a red
    test run), the edits that act on it, and a check after the last edit that passed (a green
    test run, or the failing command run again and succeeding). One sentence of the report
    names a term of the failure and a term of those edits that the session's earlier edits did
    not bring in, read by the same sentence check as ``linked_causes``. A stretch whose last
    run after the edits still fails, or with no failure before its edits, reports no cause.
    For the assistant's turns at or after record ``since``."""
    at = _Stretches.of(transcript, ran)
    out: list[dict[str, Any]] = []
    for turn in at.turns:
        if turn.speaker != ASSISTANT or turn.record < since:
            continue
        record = turn.record
        start, end = at.start(record), at.end(record)
        if any(
            t.speaker == ASSISTANT and record < t.record and (end is None or t.record < end)
            for t in at.turns
        ):
            continue  # not the closing words of the stretch
        failed = [(when, o) for when, o in at.failing if start < when < record]
        if not failed:
            continue
        made = [e for e in at.edits if failed[0][0] < e.record < record]
        if not made:
            continue
        last = made[-1].record
        after = [r for r in ran if last < r.call.record and r.result < record]
        checks = [r.run for r in after if r.run is not None]
        if checks:
            if not checks[-1].green:
                continue  # the last test run after the edits still fails
            how = "a green test run after the edits"
        else:
            again = {r.command.strip() for r in ran if r.result in {w for w, _o in failed}}
            reruns = [r for r in after if r.command.strip() in again]
            if not reruns or reruns[-1].is_error:
                continue  # the failing command was not run again, or still fails
            how = "the failing command succeeding again after the edits"
        action = _linked(
            turn.text,
            [o for _when, o in failed],
            "\n".join(_call_text(e.input) for e in made),
            how,
            at.own[made[0].record],
            said_as_cause=True,
        )
        if action is not None:
            out.append(action)
    return out


# A cause the assistant takes back ("Actually, that's not it", "the config was a red herring",
# "scratch that"): what it said before is no longer its finding.
_WITHDRAWN = re.compile(
    r"\b(?:actually|(?:that|this|it)(?:'s| is|was)n?'?t (?:it|the (?:cause|issue|problem|culprit))|"
    r"(?:is|was) not (?:it|the (?:cause|issue|problem|culprit))|ruled? out|red herring|"
    r"scratch that|on second thought|false alarm|i was wrong)\b",
    re.I,
)


def replaced(later: Sequence[str]) -> bool:
    """Do the assistant's turns ``later`` than a cause take it back ("actually, that's not
    it") or state a cause of their own (the later cause is the finding)?"""
    return any(_WITHDRAWN.search(t) or _CAUSE.search(t) for t in later)


def last_first(said: Sequence[str]) -> list[tuple[str, bool]]:
    """The assistant's turns between a failure and its fix that may state its cause, in the
    order to read them, each with whether only a sentence said as a cause counts: the last
    turn first, read as the last words before the fix always were (any statement linking the
    failure to the fix); then, the last first, each earlier turn that says a cause ("because",
    "the issue is", "root cause"), as long as no turn after it takes it back or states a cause
    of its own (``replaced``). A cause is often stated, then checked in turns of the
    assistant's own (a listing, a file read) before the fix; those turns' words ("Let me
    verify", "I'll remove the old one") are no statement of it."""
    out = [(said[-1], False)] if said else []
    for at in range(len(said) - 2, -1, -1):
        if replaced(said[at + 1 :]):
            break
        if _CAUSE.search(said[at]):
            out.append((said[at], True))
    return out


def checked_causes(
    transcript: Transcript,
    ran: Sequence[Ran],
    since: int = 0,
    otherwise: Callable[[int], Confirmation | None] | None = None,
    done: Callable[[int], str] | None = None,
) -> list[dict[str, Any]]:
    """Causes the assistant states, checks and only later fixes. A cause found across several
    turns rarely sits right before its fix: after a failure the assistant states it ("X fails
    because Y"), then checks it in turns of its own (a file read, a command that reproduces it,
    a question to the person) and edits only after those; ``linked_causes`` reads the last
    words before the edit only, and those are a step of the check ("Reading the config:").
    Read from the structure: after a failure in the stretch (an error result, a red run, the
    person's complaint, the assistant's reading of a failure), an assistant turn says a cause
    (a cause word: "because", "root cause", "turns out", "the issue is"; the sentence check of
    ``linked_causes``, naming a term of the failure and one of the edit the session's earlier
    edits did not bring in); one or more turns of the assistant's follow before the first edit,
    none of which takes it back ("actually, that's not it", "a red herring") or says a cause of
    its own (the later cause is the finding, read by the readings above); and the edit is
    confirmed: the last test run before it failed and the first after it passed, or the failing
    command succeeds when run again after it, or the person reports it works (``otherwise``).
    A green run with no red run before the edit, a cause never acted on and one whose said fix
    the edit did not make (``done``) are none. For the assistant's turns at or after ``since``."""
    at = _Stretches.of(transcript, ran)
    runs = [(r.result, r.run.green) for r in ran if r.run is not None]
    out: list[dict[str, Any]] = []
    for turn in at.turns:
        if turn.speaker != ASSISTANT or turn.record < since or not _CAUSE.search(turn.text):
            continue
        record = turn.record
        start, end = at.start(record), at.end(record)
        edit = next(
            (e for e in at.edits if e.record > record and (end is None or e.record < end)), None
        )
        if edit is None:
            continue
        between = [
            t.text for t in at.turns if t.speaker == ASSISTANT and record < t.record < edit.record
        ]
        if not between:
            continue  # the last words before the edit: ``linked_causes``' reading
        if replaced(between):
            continue  # taken back, or a later cause is the finding
        before = [ok for when, ok in runs if start < when < edit.record]
        after = [ok for when, ok in runs if when > edit.record and (end is None or when < end)]
        how = (
            "a green test run after the fix, the run before it red"
            if before and not before[-1] and after and after[0]
            else _told(otherwise(record))
            if otherwise is not None
            else ""
        )
        if not how:
            continue
        failed = at.failures(start, record)
        if not failed:
            continue  # nothing failed: an answer or a design, not a cause
        action = _linked(turn.text, failed, edit, how, at.own[edit.record], said_as_cause=True)
        if action is not None and _checked(action, done, record):
            out.append(action)
    return out


def diagnosed_causes(
    transcript: Transcript, ran: Sequence[Ran], since: int = 0
) -> list[dict[str, Any]]:
    """Causes the assistant diagnosed and the person then had fixed. Many sessions find a
    cause by investigation and report it before touching any code (an answer to "investigate
    this", a reproduction, a reading of a failed job's log); the person reads the diagnosis and
    asks for the fix ("ok make a pr to fix"); only the next stretch edits and checks it. Neither
    stretch alone holds both the cause and its confirmation, so the linked readings above never
    see it. Read from the structure: the assistant's closing words of a stretch in which it
    edited nothing, after a failure in that stretch (an error result, a failing command, the
    person's complaint, or the assistant's reading of a failure it was shown); the person's
    next turn is a go-ahead (``goes_ahead``); before the person speaks again the assistant edits
    files and the last test run after its last edit passes. One sentence of the diagnosis names
    a term of the failure and one of those edits that the session's earlier edits did not bring
    in (the sentence check of ``linked_causes``): the edits act on what was diagnosed. A
    diagnosis the person questions, denies or turns down, a fix stretch whose last run fails or
    runs no test, and a stretch that already edited (a fix, read by the readings above) make no
    note. For the assistant's turns at or after record ``since``."""
    at = _Stretches.of(transcript, ran)
    runs = [(r.result, r.run.green) for r in ran if r.run is not None]
    out: list[dict[str, Any]] = []
    for turn in at.turns:
        if turn.speaker != ASSISTANT or turn.record < since:
            continue
        record = turn.record
        start = at.start(record)
        reply = next((t for t in at.turns if t.speaker == PERSON and t.record > record), None)
        if reply is None or any(
            t.speaker == ASSISTANT and record < t.record < reply.record for t in at.turns
        ):
            continue  # not the closing words of the stretch, or nobody answered them
        if any(start < e.record < reply.record for e in at.edits):
            continue  # this stretch edited: a fix, not a diagnosis (the readings above)
        if not goes_ahead(reply.text):
            continue
        end = at.end(reply.record)
        acting = [
            e for e in at.edits if e.record > reply.record and (end is None or e.record < end)
        ]
        if not acting:
            continue
        after = [
            ok for when, ok in runs if when > acting[-1].record and (end is None or when < end)
        ]
        if not after or not after[-1]:
            continue  # no test run after the fix, or the last one fails
        failed = at.failures(start, record)
        if not failed:
            continue  # nothing failed: an answer or a design, not a cause
        said = clean(reply.text).strip()[:120]
        how = f"the person's go-ahead (“{said}”) and the passing test run after the fix"
        action = _linked(
            turn.text,
            failed,
            "\n".join(_call_text(e.input) for e in acting),
            how,
            at.own[acting[0].record],
        )
        if action is not None:
            out.append(action)
    return out


def _linked(
    said: str,
    failed: Sequence[str],
    edit: ToolCall | str,
    how: str,
    own: set[str],
    said_as_cause: bool = False,
    command: str = "",
    where: str = "",
) -> dict[str, Any] | None:
    """The note from the first sentence of ``said`` that states a fact naming a term of the
    failure and one of the edit not in ``own`` (what the session's earlier edits brought in),
    with the fix said after it (else ``command``, the one that fixed it, run ``where`` it did),
    else None. When that
    first sentence names nothing the failure (or the assistant's reading of it) did not, it
    restates what failed (the failing units' names, a cause already read), says nothing new of
    why, and the statement is no cause."""
    of_failure = _terms("\n".join(failed))
    of_edit = _terms(edit if isinstance(edit, str) else _call_text(edit.input))
    said = clean(said)  # secrets and private spans masked, as in every note's evidence
    plain = [
        s
        # a fenced block's lines are code or output shown, not statements
        for line in _FENCE.sub("", said).split("\n")
        if not _LISTED.match(line)  # a plan's or a summary's item, not a statement
        for s in sentences(_plain(line))
    ]
    for at, sentence in enumerate(plain):
        if sentence.rstrip(" *_").endswith(("?", ":")) or _INTENT.match(sentence):
            continue
        if _GUESS.search(cause_part(sentence)):
            continue  # a hedge ("might", "probably"), or the assistant's own doing
        if said_as_cause and not (_CAUSE.search(sentence) or _LABELLED_CAUSE.match(sentence)):
            continue  # a report narrates what was done: only a sentence said as the cause is one
        words = _terms(sentence)
        if not (words & of_failure and words & of_edit):
            continue
        if not (words & of_edit) - own:
            continue  # it names only what the session itself wrote: its own slip
        if not words - of_failure:
            return None  # every term of it is the failure's: it restates what failed, not why
        if OWN_CHANGE.match(sentence):
            continue  # "The change is small but targeted: ...": the edit described, no cause
        if _RELAYS.match(sentence):
            continue  # "[Issue #12](...) is reporting a bug in X": where it was told, not why
        if narrates_a_run(sentence, plain[at + 1] if at + 1 < len(plain) else ""):
            continue  # "The new test passed, and the old one exposed ...; I'm updating ..."
        subject = _CAUSE_LEAD.sub("", _trim(_SEEN.sub("", cause_part(sentence))))
        subject = subject.rstrip(" .;:!")
        conceded = _CLAUSE_LEAD.sub("", subject)
        if conceded != subject and _CAUSE.search(conceded):
            # "Cargo can now reach crates.io, but verification is blocked by X": the clause
            # before "but" grants what works now; the cause is said after it
            subject = _cap(conceded)
        if len(subject.split()) < MIN_WORDS - 1 or _VAGUE.match(subject):
            continue  # "That's the ...", "This is ...": its subject is only the session's
        todo = _what_was_done("\n".join(plain[at + 1 :]))
        if _INTENT.match(todo):
            todo = ""  # "let me check X before picking the fix": a look, no fix
        if routine(f"{sentence} {' '.join(failed)}", todo) or _LINTER_SAID.search(sentence):
            return None  # a lint warning, a typo, a missing definition
        if todo and twins(subject, todo):
            todo = ""
        if not todo and command:
            # the command that fixed it, when no fix was said (and where it ran: ``where``)
            todo = f"Run `{command[:160]}`{where}"
        return _bug_fix(
            subject,
            todo,
            quote=said,
            before="",
            who="assistant",
            confidence=MEDIUM,
            category="general",
            confirmed=how,
        )
    return None


# A sentence whose subject is where a failure was told (a link, the issue, the report, the
# log) and whose verb tells it ("[Discussion #579](...) is reporting a bug in X", "The issue
# describes ..."): it relays what went wrong, it says nothing of why.
_RELAYS = re.compile(
    r"^\W*(?:\[[^\]\n]*\]\([^)\n]*\)|(?:the|this|that) (?:bug )?(?:report|reporter|issue|discussion|"
    r"ticket|thread|comment|log)\b)[^.;:]{0,40}?\b(?:is reporting|reports|reported|describes|"
    r"mentions|says)\b",
    re.I,
)

# A trailing aside that denies ("X fails due to Y — not introduced by my rebase"): the
# assistant disowning the failure, neither a hedge nor its own doing.
_DISCLAIMER = re.compile(r"(?:\s[—–-]+\s*|,\s*)not\b[^.;!?]*[.;!?]?$", re.I)

# A trailing clause of the assistant's own next step ("The sandbox blocks binding the dev
# server to loopback, so I'm rerunning that command with escalation"): what it does about the
# cause, said after it; the clause before it is the statement (the step is the fix's to say).
_THEN_I = re.compile(
    r"(?:,\s*|\s[—–-]+\s*|;\s*)(?:so|and|then)\s+(?:i['’]?m|i am|i['’]?ll|i will|let me|we['’]?ll|"
    r"we will)\b[^.;!?]*[.;!?]?$",
    re.I,
)


def cause_part(sentence: str) -> str:
    """``sentence`` without a trailing disclaimer or the assistant's next step after it."""
    return _THEN_I.sub("", _DISCLAIMER.sub("", sentence))


# A run's result, said as what the run did: every clause's subject is a test or a run and its
# verb the result ("The new regression passed, and the older “profile source” test exposed that
# it lacked the override setup", "CI is green"). With the assistant's own next step after it
# ("I'm updating that fixture", "Let me ...") it narrates the work, whatever the run's finding
# names; a reason said with it ("failed because X", "failed: `X` was removed in v2") is a cause.
_RUN = r"(?:tests?|regressions?|suites?|specs?|builds?|checks?|runs?|ci|jobs?|pipelines?)"

_RESULT = (
    r"(?:pass(?:ed|es)?|fail(?:ed|s)?|expos(?:ed|es)|reveal(?:ed|s)|show(?:ed|s)|caught|"
    r"surfac(?:ed|es)|succeed(?:ed|s)|(?:is|are|was|were|went|goes|turned)\s+(?:green|red))"
)

_RUN_CLAUSE = re.compile(
    rf"^(?:(?:and|but|while|then)\s+)?(?:[^\s,;:]+\s+){{0,6}}?{_RUN}\s+"
    rf"(?:(?:now|also|still|then|both|all)\s+)?{_RESULT}\b",
    re.I,
)

_CLAUSES = re.compile(r"\s*(?:[,;:–—]|\s-\s)\s*")

_NEXT_STEP = re.compile(
    r"^\W*(?:(?:so|now|next|then),?\s+)?(?:i['’]?m|i am|we['’]?re|we are|i['’]?ll|i will|"
    r"we['’]?ll|we will|let me|let['’]s)\s+\w",
    re.I,
)


def narrates_a_run(sentence: str, following: str) -> bool:
    """Is ``sentence`` a report of what a run did (each clause a test or a run and its result,
    no cause word) that ``following``, the assistant's own next step, goes on from?"""
    if _CAUSE.search(sentence) or not _NEXT_STEP.match(following):
        return False
    clauses = [c for c in _CLAUSES.split(sentence.rstrip(" .!")) if c.strip()]
    return bool(clauses) and all(_RUN_CLAUSE.match(c) for c in clauses)
