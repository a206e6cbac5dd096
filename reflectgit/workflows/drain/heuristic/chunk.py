"""The lessons of one chunk of dialogue, as CREATE actions. Pure.

Each line of a chunk is read by who said it (``notes/signals.classify``): the person's rules and
corrections first (``rules``), then the causes and fixes the assistant found (``causes``),
each checked against what the session did around it (``session``, ``confirmation``). Twins
are removed later, over the whole answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reflectgit.notes.signals import (
    CONCESSION,
    CONCESSION_RE,
    DIAGNOSIS,
    HIGH,
    LOW,
    MEDIUM,
    SUGGESTION,
    Signal,
)
from reflectgit.notes.transcripts import PERSON
from reflectgit.workflows.drain.cascade import Chunk
from reflectgit.workflows.drain.heuristic.causes import (
    _CAUSE,
    _FIX,
    _LABELLED_CAUSE,
    _LABELLED_FIX,
    _SECTION_END,
    _cause_action,
    _confirmed_cause,
    _fix_action,
    _named_idea,
    _persons_cause,
    headed_cause,
    labels_its_cause,
    section_fix,
)
from reflectgit.workflows.drain.heuristic.confirmation import Confirmation, Confirmed
from reflectgit.workflows.drain.heuristic.note import _action, _strip_role
from reflectgit.workflows.drain.heuristic.rules import (
    _THAT_WAS_IT,
    _WISH,
    _asked_before,
    _conceded,
    _rules,
    _whole_rule,
    answered_questions,
    answers_only,
    cited_rule,
    declines,
    granted_suggestion,
    names_no_thing,
    opens_mid_sentence,
    pointed_out,
    reports_a_try,
    rules_only_quoted,
)
from reflectgit.workflows.drain.heuristic.session import fix_was_done, names_done
from reflectgit.workflows.drain.heuristic.wording import (
    _CONFIRMED,
    _IMPERATIVE,
    _LISTED,
    _NAMED,
    _VAGUE,
    CAUSE_KINDS,
    FIX_KINDS,
    MIN_WORDS,
    RULE_KINDS,
    _cap,
    _plain,
    _trim,
    sentences,
)
from reflectgit.workflows.drain.heuristic.written import asked_for

_REASON = re.compile(r"\b(since|because|as|so|instead|rather than|use|need to|should)\b", re.I)


def chunk_actions(
    chunk: Chunk,
    signals: Sequence[Signal],
    green: Callable[[int], bool] | None = None,
    past: Callable[[int], bool] | None = None,
    abandoned: Callable[[int], bool] | None = None,
    superseded: Callable[[int, str], bool] | None = None,
    verified: Callable[[int], str] | None = None,
    reply_after: Callable[[int], str] | None = None,
    rest_of_turn: Callable[[int, str], str] | None = None,
    acted_on: Callable[[int], int | None] | None = None,
    done_after: Callable[[int], str] | None = None,
    turn_before: Callable[[int], str] | None = None,
    adopted: Callable[[int], bool] | None = None,
    otherwise: Callable[[int], Confirmation | None] | None = None,
    briefed: Callable[[int, str], bool] | None = None,
    pasted: Callable[[int, str], str] | None = None,
) -> list[dict[str, Any]]:
    """The CREATEs for the lessons in one chunk (person's rules first), twins not yet removed.

    ``green`` tells whether the tests went green around a transcript record (the last test
    run between the person's turns around it passed): that, or the person's "yes, that fixed
    it", confirms a root cause the assistant stated. ``past`` tells whether the next test run
    got past the error the last one failed with, on the way to a green run: that confirms a
    cause too (one of several the session fixed in turn). ``verified`` tells whether the
    session's edits since the person last spoke were followed by a passing test run: that
    confirms a cause the assistant labels in its account of the work, next to the fix it
    labels ("Root cause: X" then "Fix: Y"). ``reply_after`` is the person's next turn after a
    record, for a reply the chunk's context does not reach, and ``rest_of_turn`` what the
    assistant said after a line, to the person's next turn (a fix named past the context).
    ``done_after`` is what the assistant's tool calls did after a record, to the person's next
    turn (the text it edited in, the commands it ran): a run confirms a cause's fix only when
    the fix's named things are in it, since the run checked what was done, not what was said.
    ``turn_before`` is the assistant's whole turn before a record (its questions, which a
    terse answer picks from, may be past the chunk's context). ``adopted`` tells whether the
    assistant took the person's turn at a record as a lasting way of working (a request asked
    as a question is a rule only then). ``otherwise`` tells how a cause acted on was confirmed
    by something other than a test run (the failing command run again, or the person's report
    of success), ``""`` when it was not. ``briefed`` tells whether a rule the person stated at a
    record is a constraint of a brief for one task (``rules.briefed_rules``): no note.

    Each signal is read by the one reader of its kind (``_Reading.action``), in order.
    """
    reading = _Reading(
        chunk,
        signals,
        _lines(chunk),
        green=green,
        past=past,
        abandoned=abandoned,
        superseded=superseded,
        verified=verified,
        reply_after=reply_after,
        rest_of_turn=rest_of_turn,
        acted_on=acted_on,
        done_after=done_after,
        turn_before=turn_before,
        adopted=adopted,
        otherwise=otherwise,
        briefed=briefed,
        pasted=pasted,
    )
    return [action for sig in signals if (action := reading.action(sig))]


_DENIED = re.compile(r"^(?:no|nope|not|wrong|that'?s not|still)\b", re.I)


def _lines(chunk: Chunk) -> list[tuple[str, str]]:
    return [_strip_role(line) for line in chunk.text.split("\n")]


@dataclass(frozen=True)
class _Reading:
    """One chunk's lines and what the session did around them (``chunk_actions`` tells each
    question), with a reader per kind of signal. Its parts: where a line stands in the chunk
    (``at`` to ``said_after``), who confirmed a cause (``confirmation`` to ``checked``), and the
    readers (``action`` to ``cause``)."""

    chunk: Chunk
    signals: Sequence[Signal]
    lines: list[tuple[str, str]]  # (role, text) of each line of the chunk
    green: Callable[[int], bool] | None
    past: Callable[[int], bool] | None
    abandoned: Callable[[int], bool] | None
    superseded: Callable[[int, str], bool] | None
    verified: Callable[[int], str] | None
    reply_after: Callable[[int], str] | None
    rest_of_turn: Callable[[int, str], str] | None
    acted_on: Callable[[int], int | None] | None
    done_after: Callable[[int], str] | None
    turn_before: Callable[[int], str] | None
    adopted: Callable[[int], bool] | None
    otherwise: Callable[[int], Confirmation | None] | None
    briefed: Callable[[int, str], bool] | None = None
    pasted: Callable[[int, str], str] | None = None

    # -- where a line stands in the chunk

    def at(self, sig: Signal) -> tuple[int, str, str]:
        """The signal's line: its offset in the chunk, who said it and its text (-1, "" and
        the signal's text when the line is not the chunk's)."""
        offset = sig.line_index - self.chunk.start
        if 0 <= offset < len(self.lines):
            return offset, self.lines[offset][0], self.lines[offset][1]
        return -1, "", sig.text

    def record(self, offset: int) -> int | None:
        """The transcript record of the line at ``offset``, None past the chunk's records."""
        return self.chunk.records[offset] if 0 <= offset < len(self.chunk.records) else None

    def before(self, offset: int) -> str:
        """The assistant's turn just before the line (its lines in the chunk, joined)."""
        said: list[str] = []
        for role, text in reversed(self.lines[: max(offset, 0)]):
            if role == "assistant":
                said.insert(0, text.strip())
            elif said:
                break
        return " ".join(s for s in said if s)

    def cause_near(self, offset: int) -> str:
        """The first cause the assistant states nearest the line (or the line itself)."""
        lines = self.lines
        order = sorted(range(len(lines)), key=lambda i: abs(i - offset))
        for i in order:
            if lines[i][0] != "assistant" and i != offset:
                continue
            found = [s for s in sentences(lines[i][1]) if _CAUSE.search(s)]
            if found:
                return _trim(found[0])
        return ""

    def section(self, offset: int) -> list[str]:
        """The assistant's lines after the one at ``offset`` to the person's next turn, past
        the chunk's context too (a report's section may be longer than the context)."""
        out = [self.lines[offset][1]]
        for role, said in self.lines[offset + 1 :]:
            if role == "user":
                return out[1:]
            out.append(said)
        record = self.record(offset)
        if self.rest_of_turn is not None and record is not None:
            out += self.rest_of_turn(record, out[-1]).split("\n")
        return out[1:]

    def under_headed_cause(self, offset: int) -> bool:
        """Is the line at ``offset`` in a section a cause heads ("### Bug 2: Missing
        `exec` import"), the assistant's lines back to that heading?"""
        for role, said in reversed(self.lines[:offset]):
            if role != "assistant":
                return False
            if _SECTION_END.match(said):
                return bool(headed_cause(said))
        return False

    def labelled_fix(self, offset: int) -> str:
        """The fix the assistant labels on the line after its labelled cause ("**Root
        cause:** X" then "**Fix:** Y", in one turn), else ``""``."""
        if not (0 <= offset < len(self.lines)):
            return ""
        if headed_cause(self.lines[offset][1]):
            return section_fix(self.section(offset))
        if not _LABELLED_CAUSE.match(_plain(self.lines[offset][1])):
            return ""
        for role, said in self.lines[offset + 1 : offset + 3]:
            if role != "assistant":
                return ""
            m = _LABELLED_FIX.match(_plain(said))
            if m:
                return m.group("fix")
        return ""

    def said_after(self, offset: int) -> str:
        """The assistant's words from ``offset`` to the person's next reply (past the chunk's
        context too, when the turn goes on beyond it)."""
        out: list[str] = []
        for role, said in self.lines[offset:]:
            if role == "user":
                return "\n".join(out)
            out.append(said.strip())
        record = self.record(offset)
        if self.rest_of_turn is not None and out and record is not None:
            # only a fix the assistant names as one ("The fix for issue #2: ..."), not whatever
            # else it went on to do
            rest = self.rest_of_turn(record, out[-1])
            out += [x for x in rest.split("\n") if _FIX.search(x)][:1]
        return "\n".join(out)

    # -- who confirmed a cause

    def confirmation(self, offset: int, closing: bool = True) -> Confirmation | None:
        """Who confirmed what the assistant said at ``offset``: the person's next reply, or
        a green test run; None when nobody did (or the person said no). ``closing``: may the
        person keeping the edits an account closes confirm it (``Confirmed.CLOSING``)?"""
        replies = [said.strip() for role, said in self.lines[offset + 1 :] if role == "user"]
        record = self.record(offset)
        if not replies and self.reply_after is not None and record is not None:
            replies = [self.reply_after(record).strip()]  # past the chunk's context
        reply = next((r for r in replies if r), "")
        if reply and _CONFIRMED.match(reply):
            return Confirmation(Confirmed.WORD, f"the person: “{reply[:200]}”")
        if reply and _DENIED.match(reply):
            return None
        # the cause restated in the turn right after the person said the guess was it
        asked = _asked_before(self.lines, offset, challenge=False)
        if asked and _THAT_WAS_IT.match(asked) and "?" not in asked:
            return Confirmation(Confirmed.WORD, f"the person, just before: “{asked[:200]}”")
        if self.green is not None and record is not None and self.green(record):
            return Confirmation(Confirmed.AFTER, "a green test run")
        if self.past is not None and record is not None and self.past(record):
            return Confirmation(
                Confirmed.AFTER,
                "the next test run getting past the error, on the way to a green run",
            )
        if self.verified is not None and record is not None and self.labelled_fix(offset):
            return (
                Confirmation(Confirmed.ACCOUNT, "a passing test run after the session's edits")
                if self.verified(record)
                else None
            )
        edit = self.acted_on(record) if self.acted_on is not None and record is not None else None
        if edit is not None and record is not None and not self.restated(record, edit):
            return Confirmation(
                Confirmed.AFTER,
                "the assistant's edit right after it and the passing test run that followed",
            )
        if self.otherwise is not None and record is not None:
            how = self.otherwise(record)
            return (
                None if how is not None and how.kind is Confirmed.CLOSING and not closing else how
            )
        return None

    def restated(self, record: int, edit: int) -> bool:
        """Did the assistant state another cause after the line's turn (``record``) and before
        its edit? Then the edit acted on that one ("The issue is X. Let me check" then "The
        issue is Y")."""
        return self._cause_between(record, edit)

    def found_since(self, record: int, since: int) -> bool:
        """Did the assistant state another cause or diagnosis after the record ``since`` (the
        run that checked the stretch's edits) and in a turn before the line's (``record``)?
        Then the line is what that went on to find after the check ("Confirmed a real
        pre-existing bug: ... Let me find it." then "Found it: `open()` appends ..."): a new
        finding, which the run before it did not check. The account that closes checked work
        states its cause in one turn."""
        return self._cause_between(since, record)

    def _cause_between(self, low: int, high: int) -> bool:
        """Is a cause or a diagnosis of the assistant's signalled in a turn strictly between
        the records ``low`` and ``high`` (so never in the line's own turn)?"""
        records = self.chunk.records
        for other in self.signals:
            at_ = other.line_index - self.chunk.start
            if not (0 <= at_ < len(records)) or other.speaker == PERSON:
                continue
            if other.kind in (*CAUSE_KINDS, DIAGNOSIS) and low < records[at_] < high:
                return True
        return False

    def checked(self, action: Mapping[str, Any], how: Confirmation, offset: int) -> bool:
        """A cause a run confirmed keeps its fix only when that fix was what the session did
        before the run: every thing the fix names in a code span is in what the assistant's
        tool calls did after it ("use `:auto` mode", then an edit that sets `{:shared,
        self()}`: the run checked another fix). A person's word confirms what was said."""
        if how.kind in (Confirmed.WORD, Confirmed.ACCOUNT) or self.done_after is None:
            return True  # a person's word, or an account of work a run had already checked
        record = self.record(offset)
        if record is None:
            return True
        fix = str(action.get("fix") or "")
        if how.kind is Confirmed.VERIFIED:
            # the run checked the edits before the account: the cause must name what they
            # changed, be no item of the account's list ("- Direct bats runner executed,
            # but password-store cases skipped because `pass` is not installed": a line of
            # the report of what was run, not the cause found), and be no new finding made
            # after the run (``found_since``)
            line = self.lines[offset][1]
            return (
                self.verified is not None
                and not _LISTED.match(line)
                and names_done(line, self.verified(record))
                and not self.found_since(record, how.since)
            )
        if how.kind is Confirmed.CLOSING:
            # the edits came before the account: what the stretch did from the person's turn
            # (or the chunk's first line) on is what the person kept
            spoke = [i for i in range(offset) if self.lines[i][0] == "user"]
            since = self.chunk.records[spoke[-1]] if spoke else self.chunk.records[0] - 1
            return fix_was_done(fix, self.done_after(since))
        return fix_was_done(fix, self.done_after(record))

    # -- the readers, one per kind of signal

    def action(self, sig: Signal) -> dict[str, Any] | None:
        """The note one signal gives, by the reader of its kind; None when it gives none."""
        offset, role, text = self.at(sig)
        person = sig.speaker == "person" and role in ("user", "")
        if person and self.pasted is not None:
            record = self.record(offset)
            if record is not None and self.pasted(record, text):
                return None  # a line of a block the person pasted: output, not their words
        if person and sig.tier == HIGH and sig.kind in RULE_KINDS:
            return self.persons_rule(sig, offset, text)
        if person and sig.tier == LOW and sig.kind == "correction":
            return self.persons_correction(sig, offset, text)
        if person and sig.tier == LOW and sig.kind == SUGGESTION and offset >= 0:
            return self.persons_suggestion(sig, offset, text)
        if person and sig.tier == HIGH and sig.kind == "root-cause":
            return _persons_cause(text, self.before(offset), sig)
        if sig.kind in FIX_KINDS and sig.tier in (HIGH, MEDIUM):
            return self.fix(sig, offset, text)
        if sig.kind == CONCESSION and sig.speaker != "person" and offset >= 0:
            return self.concession(sig, offset, text)
        if sig.kind == DIAGNOSIS and sig.speaker != "person" and offset >= 0:
            return self.diagnosis(sig, offset, text)
        if sig.kind in CAUSE_KINDS and sig.tier in (HIGH, MEDIUM):
            return self.cause(sig, offset, text)
        return None

    def asked(self, offset: int) -> str:
        """What the assistant said before the person's line at ``offset``: its whole previous
        turn where the transcript gives it, else the lines before."""
        record = self.record(offset)
        if self.turn_before is not None and record is not None:
            return self.turn_before(record) or self.before(offset)
        return self.before(offset)

    def persons_rule(self, sig: Signal, offset: int, text: str) -> dict[str, Any] | None:
        """A rule the person stated (or a terse answer to the assistant's questions)."""
        record = self.record(offset)
        asked = self.asked(offset)
        answer = answered_questions(text, asked)
        if answer is not None:
            if not answer[0]:
                return None  # a terse answer whose question holds no rule
            return _action(
                title=answer[0],
                rule=answer[1],
                quote=text,
                before=self.before(offset),
                who="person, answering the assistant's questions",
                confidence=MEDIUM,
                learning_type="correction",
                category=sig.category,
            )
        if reports_a_try(text):
            return None  # "nope I don't see it. $ ln -s ...", "I didn't tell you to undo it"
        if answers_only(text, asked):
            return None  # "no, keep both for now" to "Should I remove X, or keep both?"
        if opens_mid_sentence(self.lines, offset) or rules_only_quoted(text):
            return None  # a piece of a wrapped remark, or words the person quotes: no rule
        rule = _named_idea(_whole_rule(text), self.before(offset))
        if rule is None:
            return None  # "it's a bad idea" about something nobody named
        if asked_for(rule) and not (
            self.adopted is not None and record is not None and self.adopted(record)
        ):
            return None  # "Can we have always a table ...?": a feature of this task's output
        if declines(text, self.before(offset)):
            return None  # "no don't set it" to "Want me to set X?": an offer declined
        if self.superseded is not None and self.superseded(sig.line_index, rule):
            return None  # a rule the person later challenged: written before its correction
        if pointed_out(rule):
            return None  # "keep in mind that new file will be at the same folder": context
        if names_no_thing(rule):
            return None  # "don't let chezmoi overwrite this": its thing is only a pronoun
        if self.briefed is not None and record is not None and self.briefed(record, rule):
            return None  # "You are reviewing ... Do NOT modify any files": the task's constraint
        words = rule.split()
        named = len(words) >= 2 and bool(_NAMED.search(rule) and _IMPERATIVE.search(rule))
        if not named and (
            len(words) < MIN_WORDS or (len(words) < 6 and not _IMPERATIVE.search(rule))
        ):
            return None  # "only for this repo": a reply that scopes something, no rule
        stated = _rules(text)
        return _action(
            title=rule,
            rule=stated if stated and rule.rstrip(".") in stated else _cap(rule.rstrip(".")) + ".",
            quote=text,
            before=self.before(offset),
            who="person",
            confidence=LOW if _VAGUE.match(rule) else MEDIUM,
            learning_type="correction",
            category=sig.category,
            cause=self.cause_near(offset) if _CAUSE.search(text) else "",
        )

    def persons_correction(self, sig: Signal, offset: int, text: str) -> dict[str, Any] | None:
        """A correction the person made, with its reason in it."""
        if reports_a_try(text):
            return None  # a report of a failed try, or of one action of this turn
        asked = self.asked(offset)
        if answers_only(text, asked):
            return None  # "no change, what do I need to run to install these, sorry?"
        reply = _trim(text)
        count = len(reply.split())
        if count < 6 or (count < 8 and not _REASON.search(reply)):
            return None  # "no", "not like this": a rejection without a lesson in it
        if _WISH.match(reply):
            return None  # "no, I want to use my login": this person's wish for this task
        titled = _named_idea(reply, self.before(offset))
        if titled is None:
            return None  # "it's a bad idea, since ..." about something nobody named
        return _action(
            title=titled,
            rule=_cap(titled),
            quote=text,
            before=self.before(offset),
            who="person",
            confidence=LOW,
            learning_type="correction",
            category=sig.category,
        )

    def persons_suggestion(self, sig: Signal, offset: int, text: str) -> dict[str, Any] | None:
        """A suggestion the assistant granted.

        A suggestion is a hunch about this task until the assistant grants it: read only when
        the assistant's reply opens by granting it ("Good point — ...") and says no point of
        its own (which the concession's reader writes instead). The grant is its confirmation,
        as a green run is a stated cause's: the way the person proposed is the one the work
        then took, and the person's words say it."""
        granted = [x for role, x in self.lines[offset + 1 : offset + 2] if role != "user"]
        following = [x for role, x in self.lines[offset + 2 : offset + 3] if role != "user"]
        if not granted or not CONCESSION_RE.match(granted[0]):
            return None
        grant = granted[0]
        if cited_rule(grant, following[0] if following else "", text, sig) or _conceded(
            grant, text, sig
        ):
            return None
        return granted_suggestion(text, grant, sig)

    def fix(self, sig: Signal, offset: int, text: str) -> dict[str, Any] | None:
        """A fix the assistant stated, with the cause stated nearest it."""
        if self.abandoned is not None and self.abandoned(sig.line_index):
            return None  # a fix the person turned down for another one
        return _fix_action(text, self.cause_near(offset), self.before(offset), sig)

    def concession(self, sig: Signal, offset: int, text: str) -> dict[str, Any] | None:
        """The point the assistant conceded to the person's challenge in its turn."""
        asked = _asked_before(self.lines, offset, in_turn=True)
        if not asked:
            return None
        following = [said for role, said in self.lines[offset + 1 : offset + 2] if role != "user"]
        return cited_rule(text, following[0] if following else "", asked, sig) or _conceded(
            text, asked, sig
        )

    def diagnosis(self, sig: Signal, offset: int, text: str) -> dict[str, Any] | None:
        """A cause said plainly: a note only when a green run or the person confirms it.

        Not the person keeping the edits of an account it is a line of: an account says what
        was done, its caveats and next steps ("If the field doesn't exist, ..."), and only a
        line that names itself the cause states what the edits acted on."""
        if self.under_headed_cause(offset):
            return None  # a line of a cause's section: its heading states the cause
        how = self.confirmation(offset, closing=False)
        if not how:
            return None
        action = _confirmed_cause(
            text, text, how.text, self.before(offset), sig, self.labelled_fix(offset)
        )
        return action if action and self.checked(action, how, offset) else None

    def cause(self, sig: Signal, offset: int, text: str) -> dict[str, Any] | None:
        """A root cause the assistant stated: with its fix, or confirmed."""
        if offset >= 0 and headed_cause(text) and labels_its_cause(self.section(offset)):
            return None  # the section's "**Root cause**:" line states it, with its fix
        action = _cause_action(text, self.before(offset), sig)
        how = self.confirmation(offset) if action is None and offset >= 0 else None
        if how:
            action = _confirmed_cause(
                text,
                self.said_after(offset),
                how.text,
                self.before(offset),
                sig,
                self.labelled_fix(offset),
            )
            if action and not self.checked(action, how, offset):
                action = None
        return action
