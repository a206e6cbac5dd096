"""Findings the person relays. Pure.

A finding the person relays (a reviewer's, a bot's, a failed job's) that the assistant's edits
act on and a passing run or the person's go-ahead confirms (``relayed_findings``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from reflectgit.notes.commandruns import Ran
from reflectgit.notes.policy import EDIT_TOOLS, call_from
from reflectgit.notes.privacy import clean
from reflectgit.notes.signals import MEDIUM
from reflectgit.notes.transcripts import PERSON, Transcript
from reflectgit.workflows.drain.heuristic.confirmation import _FAILED, _TURNED_DOWN, SUCCESS_WORDS
from reflectgit.workflows.drain.heuristic.note import _action
from reflectgit.workflows.drain.heuristic.session import _call_text
from reflectgit.workflows.drain.heuristic.wording import _cap, _plain, _terms, sentences

# What a relayed finding says to do: the person's expected behaviour ("X should Y") or the
# finding's own suggestion ("Consider ...", "To fix: ...").
_EXPECTED = re.compile(r"\b(?:should|must)\b", re.I)

_SUGGESTS = re.compile(r"^(?:consider|to fix\b|suggest(?:ed|ion)?:|instead\b)", re.I)

# An instruction or a question, not a statement of what went wrong: a line opening with a verb
# said to the assistant ("Fix the linting issues:", "Extract a shared ...", "can you ...").
_ASKS = re.compile(
    r"^\W*(?:can|could|would|will|please|fix|extract|add|make|use|run|remove|improve|consider|"
    r"update|change|rename|move|replace|refactor|implement|create|write|check|do)\b",
    re.I,
)

# The person going on with it: have it committed, pushed or merged, or a plain yes.
_GO_AHEAD = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|yes|yep|yeah|lgtm|great|perfect|nice|thanks?|ship it)\b[\s\W]*$"
    r"|(?:(?:ok(?:ay)?|yes|yep|great|perfect|thanks?|good)\W+)?(?:can you\s+)?"
    r"(?:[\w ]{0,30}\b)?(?:commit|push|merge)\b)",
    re.I,
)

# A wish or a guess, not what was seen to go wrong: "it would also be good to show ... in
# error cases", "this might fail when ...".
_SUPPOSED = re.compile(r"\b(?:would|could|might|may|good to|nice to)\b", re.I)

# A reviewer's label before the finding: "(Medium)", "[High]", "Nit:".
_SEVERITY = re.compile(
    r"^\W*(?:\d+[.)]\s*)?\W*(?:critical|high|medium|low|minor|major|nit|blocker)\b[)\]:]*\s*",
    re.I,
)

FINDING_PAIR = 2  # shared terms that tie a finding to its expected behaviour, or to the edits


def relayed_findings(
    transcript: Transcript, ran: Sequence[Ran], since: int = 0
) -> list[dict[str, Any]]:
    """Notes from findings the person relays (a reviewer's or a bot's finding, a failed job's
    report, pasted into their turn) that the assistant acts on, for the person's turns at or
    after record ``since``. A finding is a statement in the person's turn of what goes wrong
    (a failure word; not a question, nor an instruction: a brief's task list states none);
    what to do is the person's expected behaviour for it ("X should Y", paired by the terms
    they share) or the finding's own suggestion ("Consider ..."). It counts only when the
    assistant's edits, before the person speaks again, touch what the finding and its remedy
    name, and then the last test run after those edits passed or the person's next turn goes
    on with it (commit, push, yes). A finding the person then turns down ("not sure I like
    it", "revert this") makes no note."""
    persons = [t for t in transcript.turns if t.speaker == PERSON]
    edits = sorted(
        (c for c in transcript.tool_calls if c.name in EDIT_TOOLS), key=lambda c: c.record
    )
    runs = [(r.result, r.run.green) for r in ran if r.run is not None]
    out: list[dict[str, Any]] = []
    for i, turn in enumerate(persons):
        if turn.record < since:
            continue
        end = persons[i + 1].record if i + 1 < len(persons) else None
        reply = clean(persons[i + 1].text).strip() if i + 1 < len(persons) else ""
        if _TURNED_DOWN.search(reply):
            continue
        acting = [e for e in edits if e.record > turn.record and (end is None or e.record < end)]
        if not acting:
            continue
        after = [ok for at, ok in runs if at > acting[0].record and (end is None or at < end)]
        if after and after[-1]:
            how = "the assistant's edits for it and the passing test run after them"
        elif reply and len(reply.split()) <= SUCCESS_WORDS and _GO_AHEAD.match(reply):
            how = f"the person going on with the fix: “{reply[:120]}”"
        else:
            continue
        said = clean(turn.text)
        lines = [
            _plain(line)
            for line in said.splitlines()
            if line.strip() and not line.lstrip().startswith(("```", "#", "|"))  # not a table
        ]
        statements = [s for line in lines for s in sentences(line)]
        findings = [  # a finding is one line of the relayed text (a report wraps no lines)
            s
            for s in lines
            if any(_FAILED.search(x) and not _ASKS.match(x) for x in sentences(s))
            and not _SUPPOSED.search(s)
            and not s.rstrip(" *_").endswith(("?", ":"))
            and not _ASKS.match(s)
            and not _EXPECTED.search(s)
        ]
        remedies = [s for s in statements if _EXPECTED.search(s) and not _ASKS.match(s)]
        if not findings:
            continue
        edited = _terms(
            "\n".join(
                [_call_text(e.input) for e in acting]
                + [p for e in acting for p in call_from(e.name, e.input).paths]
            )
        )
        pairs: list[tuple[str, str, str]] = []  # finding, what to do, what the edits act on
        for finding in findings:
            shared = [(len(_terms(finding) & _terms(r)), r) for r in remedies]
            best = max(shared, default=(0, ""), key=lambda x: x[0])
            if best[0] >= FINDING_PAIR:
                remedies.remove(best[1])
                pairs.append((finding, best[1], f"{finding}\n{best[1]}"))
        if not pairs:
            # one finding told with its suggestion: the whole relayed text is about it
            suggestion = next((s for s in statements if _SUGGESTS.match(s)), "")
            if suggestion:
                pairs = [(findings[0], suggestion, "\n".join(lines))]
        for finding, remedy, about in pairs:
            if len(_terms(about) & edited) < FINDING_PAIR:
                continue  # the edits are about something else
            what = remedy.rstrip(" .")
            finding = _SEVERITY.sub("", finding).rstrip(" .*_")
            title = what if _EXPECTED.search(what) else f"{finding}: {what[:1].lower()}{what[1:]}"
            out.append(
                _action(
                    title=title,
                    rule=_cap(what) + ".",
                    quote=finding,
                    before="",
                    asked=said,
                    who="person, relaying a finding the assistant then fixed",
                    confidence=MEDIUM,
                    learning_type="bug-fix",
                    category="general",
                    cause=_cap(finding) + ".",
                    fix=_cap(what) + ".",
                    confirmed=how,
                )
            )
    return out
