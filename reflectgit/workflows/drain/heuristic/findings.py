"""Findings: relayed by the person, or a code review's. Pure.

A finding the person relays (a reviewer's, a bot's, a failed job's) that the assistant's edits
act on and a passing run or the person's go-ahead confirms (``relayed_findings``); and a code
review's finding at a file (the assistant's review, or one the person pastes: a Codex "[P1]"
item, a diff comment; read by ``notes/reviews``) that the assistant's edits to that file fix
and a passing run after them validates (``review_findings``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from reflectgit.notes import reviews
from reflectgit.notes.commandruns import FAILURE_WORDS, Ran
from reflectgit.notes.policy import EDIT_TOOLS, call_from
from reflectgit.notes.privacy import clean
from reflectgit.notes.signals import MEDIUM
from reflectgit.notes.transcripts import ASSISTANT, PERSON, Transcript
from reflectgit.workflows.drain.heuristic.confirmation import _TURNED_DOWN, SUCCESS_WORDS
from reflectgit.workflows.drain.heuristic.note import _action
from reflectgit.workflows.drain.heuristic.session import _call_text
from reflectgit.workflows.drain.heuristic.wording import (
    MIN_WORDS,
    _cap,
    _plain,
    _terms,
    sentences,
)

# What a finding says ought to be: the person's expected behaviour ("X should Y"), a review's
# remedy ("Support detection here needs to account for ..."). A relayed finding's own suggestion
# opens with ``_SUGGESTS`` ("Consider ...", "To fix: ...").
_REMEDY = re.compile(r"\b(?:should|must|needs? to)\b", re.I)

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
            if any(FAILURE_WORDS.search(x) and not _ASKS.match(x) for x in sentences(s))
            and not _SUPPOSED.search(s)
            and not s.rstrip(" *_").endswith(("?", ":"))
            and not _ASKS.match(s)
            and not _REMEDY.search(s)
        ]
        remedies = [s for s in statements if _REMEDY.search(s) and not _ASKS.match(s)]
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
            title = what if _REMEDY.search(what) else f"{finding}: {what[:1].lower()}{what[1:]}"
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


# --------------------------------------------------------------------------- a code review's
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")

# A place the item opens with: "- [a.go](...): what", "`a.ts:5` — what".
_AT_FILE = re.compile(r"^`?[\w./-]*\w\.[A-Za-z]\w{0,5}(?::[\d-]+)?`?\s*(?::|[-–—])\s+")

_WORD = re.compile(r"[A-Za-z]{2,}")

# The assistant refuting a finding: "a false positive", "not a real bug", "the finding is wrong".
_REFUTED = re.compile(
    r"\b(?:false positive|not (?:a|an) (?:real |actual |valid )?(?:bug|issue|problem|defect)|"
    r"(?:finding|claim|comment|review(?:er)?) (?:is|was) (?:wrong|incorrect|mistaken|invalid)|"
    r"(?:does(?:n'?t| not)|won'?t|will not) apply|no (?:change|fix) (?:is )?needed|"
    r"(?:i )?disagree)\b",
    re.I,
)

# A sentence of a finding saying what to do opens with a verb (``_DO``: "Use `git diff -z` ...",
# "Match both ...") or says what ought to be (``_REMEDY``); not the reviewer's own doing ("My
# probe produced ...", "I reproduced this ...").
_DO = re.compile(
    r"^(?:use|add|match|preserve|carry|classify|detect|keep|pass|emit|parse|call|check|"
    r"guard|wrap|move|drop|skip|return|raise|reject|validate|escape|quote|sort|reset|clear|"
    r"await|close|mark|treat|map|require|include|exclude|handle|bump|pin|set|make|avoid|"
    r"consider|prefer|replace|remove|rename|route|resolve|fail|warn|report|document)\b",
    re.I,
)
_MINE = re.compile(r"^(?:i|we|my|our)\b", re.I)

# What a sentence about checking says: a test, a run, what passed.
_CHECKED = re.compile(r"\b(?:tests?|verif\w*|pass(?:es|ed)?|green|ran|runs?)\b", re.I)

# A title naming the thing: a code span, an identifier or a file.
_NAMED_THING = re.compile(r"`[^`]+`|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*|\b\w+_\w+|\w\.\w{1,5}\b")


# Who states a review comment the assistant fetched from GitHub's API (``reviews.comments_in``).
FETCHED = "fetched"


class ReviewFinding(NamedTuple):
    """One finding of a code review as a note reads it: its title, what it says after the
    title, the files it names, the record of the turn that states it and who said it."""

    title: str
    text: str
    files: frozenset[str]
    record: int
    who: str


def _read(found: reviews.Finding, record: int, who: str) -> ReviewFinding | None:
    """The finding's title (its first sentence, past its tag and the place it opens with) and
    what it says (the title's whole line too, when it goes on past the title); None for a
    label of a place ("Fixed-size chunking: batching.rs:150")."""
    head = _plain(re.sub(r"^#{1,4}\s+", "", found.head))
    head = _LINK.sub(r"\1", reviews.TAG.sub("", head))
    head = _AT_FILE.sub("", head)
    first = sentences(head)
    title, after = (first[0], head[len(first[0]) :]) if first else (head, "")
    if len(_WORD.findall(reviews.FILE_AT.sub("", title))) < MIN_WORDS:
        return None
    # a title that opens a line of prose is a statement of the finding too: the cause reads it
    said = [head.strip()] if after.strip() else []
    said += [_plain(x) for x in found.prose]
    text = "\n".join(_LINK.sub(r"\1", x) for x in said)
    return ReviewFinding(title.strip(" .*_:"), text, found.files, record, who)


def review_findings_of(transcript: Transcript, since: int = 0) -> list[ReviewFinding]:
    """Every code review finding a turn at or after record ``since`` states
    (``notes/reviews``): the assistant's own review, or one the person pastes or relays; a
    finding told again (the assistant's review, then the same finding as the person's diff
    comment: a file and the words of a title shared) once."""
    out: list[ReviewFinding] = []
    for turn, found in reviews.stated(transcript, since):
        read = _read(found, turn.record, FETCHED if found.fetched else turn.speaker)
        if read is None:
            continue
        terms = _terms(f"{read.title} {read.text}")
        if any(
            f.files & read.files
            and len(_terms(f"{f.title} {f.text}") & terms)
            >= min(len(_terms(f.title)), len(_terms(read.title)))
            for f in out
        ):
            continue
        out.append(read)
    return out


def review_findings(
    transcript: Transcript, ran: Sequence[Ran], since: int = 0
) -> list[dict[str, Any]]:
    """One root-cause note per code review finding (``review_findings_of``) that was fixed and
    validated: the assistant's edits after it touch a file it names and what it says, no turn
    of the assistant's refutes it before, the last test run after those edits (before the
    person speaks again) passed, and the person does not then turn the fix down. The title is
    the finding's own (what was wrong, or what to do, naming the thing), the cause its text,
    the fix what it asks to do or, failing that, what the assistant said it changed."""
    persons = sorted(t.record for t in transcript.turns if t.speaker == PERSON)
    mine = [t for t in transcript.turns if t.speaker == ASSISTANT]
    edits = sorted(
        (c for c in transcript.tool_calls if c.name in EDIT_TOOLS), key=lambda c: c.record
    )
    runs = [(r.result, r.run.green) for r in ran if r.run is not None]
    out: list[dict[str, Any]] = []
    for finding in review_findings_of(transcript, since):
        about = _terms(f"{finding.title}\n{finding.text}")
        fixing = [
            e
            for e in edits
            if e.record > finding.record
            and {reviews.basename(p) for p in call_from(e.name, e.input).paths} & finding.files
            and len(_terms(_call_text(e.input)) & about) >= FINDING_PAIR
        ]
        if not fixing:
            continue  # left unfixed
        first = fixing[0].record
        if any(
            finding.record < t.record < first
            and _REFUTED.search(t.text)
            and (
                any(f in t.text.lower() for f in finding.files)
                or len(_terms(t.text) & _terms(finding.title)) >= FINDING_PAIR
            )
            for t in mine
        ):
            continue  # refuted
        end = next((p for p in persons if p > fixing[-1].record), None)
        after = [ok for at, ok in runs if at > first and (end is None or at < end)]
        if not after or not after[-1]:
            continue  # no passing run after the fix
        reply = clean(next((t.text for t in transcript.turns if t.record == end), ""))
        if _TURNED_DOWN.search(reply):
            continue
        said = [s for line in finding.text.splitlines() for s in sentences(line)]
        remedies = [s for s in said if (_DO.match(s) or _REMEDY.search(s)) and not _MINE.match(s)]
        cause = " ".join(s for s in said if s not in remedies and not _MINE.match(s))[:600]
        fix = " ".join(remedies)[:400] or (finding.title if _DO.match(finding.title) else "")
        if not fix:
            # what the assistant said it changed: its sentence that shares most with it
            told = [
                (len(_terms(s) & about), s)
                for t in mine
                if first < t.record
                for line in t.text.splitlines()
                for s in sentences(_plain(line))
                if not _CHECKED.search(s) and not s.endswith(":") and not _MINE.match(s)
            ]
            best = max(told, default=(0, ""), key=lambda x: x[0])
            fix = best[1] if best[0] >= FINDING_PAIR else ""
        if not fix:
            continue  # nothing says what was done
        where = sorted(finding.files)[0]
        title = finding.title
        if not (_NAMED_THING.search(title) or where in title.lower()):
            title = f"{title} (`{where}`)"
        who = {
            ASSISTANT: "assistant, in its code review",
            FETCHED: "reviewer of a pull request, in a code review comment the person had fetched",
        }.get(finding.who, "person, relaying a code review's finding")
        out.append(
            _action(
                title=title,
                rule=_cap(fix.rstrip(" .")) + ".",
                quote=f"{finding.title}. {finding.text}",
                before="",
                who=who,
                confidence=MEDIUM,
                learning_type="bug-fix",
                category="general",
                cause=_cap((cause or finding.title).rstrip(" .")) + ".",
                fix=_cap(fix.rstrip(" .")) + ".",
                confirmed="the assistant's edits to "
                + ", ".join(f"`{f}`" for f in sorted(finding.files))
                + " and the passing test run after them",
            )
        )
    return out
