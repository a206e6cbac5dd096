"""The causes the assistant states in words, and the fixes they name. Pure.

A root cause or fix the assistant found gives at most a low note, and only when it names a fix
(a cause alone is an observation, not a rule); it gives a medium one when it is confirmed
(``confirmation``): by the person, a red-to-green run, or its own account of verified work
("Root cause: X" then "Fix: Y", a report's section headed by its cause). A fix under a
condition or a verdict on a fix's size ("the fix is trivial") is no fix made (``made_fix``).
A cause the person states ("the bug was X") gives a low note too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from reflectgit.notes import verbs
from reflectgit.notes.generality import announces_what_follows, sums_up, without_summary
from reflectgit.notes.routine import routine
from reflectgit.notes.signals import DIAGNOSIS, DIAGNOSIS_RE, LOW, MEDIUM, NAMED_BUG, Signal
from reflectgit.workflows.drain.heuristic.note import _action, _bug_fix, twins
from reflectgit.workflows.drain.heuristic.wording import (
    _CAUSE_LEAD,
    _CODE,
    _GUESS,
    _IDENTIFIER,
    _IMPERATIVE,
    _INTENT,
    _MARKUP,
    _NAMED,
    _SEEN,
    MIN_WORDS,
    _cap,
    _imperative,
    _plain,
    _trim,
    sentences,
)

# "X is blocked by Y" says what stops X, as "caused by" does ("verification is blocked by the
# local Rust toolchain: ...").
_CAUSE = re.compile(
    r"\b(root cause|caused by|(?:is|are|was|were) blocked by|turns? out|turned out|because|"
    r"the (?:real |actual )?"
    r"(?:problem|issue|bug|culprit) (?:was|is))\b",
    re.I,
)

_FIX = re.compile(r"\b(fixed by|fixed it by|the fix|switched|solved by|fixed with)\b", re.I)

# A fix said under a condition ("if it's empty, the fix is X", "otherwise the fix would be Y"):
# a step of a checklist for what the person may find, not a fix that was made.
_IF_CLAUSE = re.compile(
    r"\b(?:if|when|unless|in case|otherwise|should (?:it|that|this|they))\b[^.;:()!?]*?,?\s*(?:then\s+)?$",
    re.I,
)

# A verdict on a fix's size, not a fix: "the fix is trivial", "the fix is small and ..." (one
# word after "is", then the sentence or clause ends; "the fix is simple: X" goes on to say it).
_FIX_VERDICT = re.compile(
    r"\bthe fix (?:is|was|would be|looks|seems)\s+[\w-]+\s*(?:$|[.!;,)—–]|\s(?:and|but|so|because)\b)",
    re.I,
)


def made_fix(sentence: str) -> bool:
    """Does ``sentence`` name a fix that was made, not one under a condition, nor a verdict
    on one's size?"""
    m = _FIX.search(sentence)
    if m is None or _IF_CLAUSE.search(sentence[: m.start()]):
        return False
    return not _FIX_VERDICT.match(sentence, m.start())


_SUBJECT = re.compile(r"^(?P<subject>.{6,140}?)(?::\s+|\s+[-–—]\s+)(?P<rest>.+)$")

# What was said, to the end of its sentence (a `code span` whole: "use `:auto` mode").
_SAID = r"(?:`[^`\n]*`|[^.;!?\n`])+"

_SAID_TO_COLON = r"(?:`[^`\n]*`|[^.;:!?\n`])+"

# What the assistant did about it: "I changed the fixture to use tmp_path", "Fixed by ...".
_DID = re.compile(
    r"\b(?:i|we)(?:'ve|\s+have)?\s+(?P<verb>changed|switched|replaced|moved|added|removed|pinned|"
    r"set|updated|made|renamed|wrapped|bumped|reverted|raised|lowered|increased|closed|"
    rf"awaited|guarded)\s+(?P<rest>{_SAID})",
    re.I,
)

_LET_ME = re.compile(
    r"\blet me (?P<verb>fix|change|make|rewrite|move|switch|update|replace|remove|add|wrap|pin)"
    rf"\s+(?P<rest>{_SAID_TO_COLON})",
    re.I,
)

# "I need to use shared sandbox mode": the fix, said before it is made (a "let me fix the
# setup" after it names only what is fixed).
_NEED_TO = re.compile(
    r"\b(?:i|we) (?:need|have) to (?P<verb>use|add|set|call|pass|run|put|configure|enable|"
    r"disable|switch|pin|wrap|move|include|import|install|await|give|make|require|mark|"
    r"rewrite|replace|remove|change)"
    rf"\s+(?P<rest>{_SAID_TO_COLON})",
    re.I,
)

_PRONOUN = re.compile(r"(?:it|them|this|that|these|those|one)(?:\s+\w+)?", re.I)

_TO_USE = re.compile(r"^\S+(?:\s+\S+)?\s+to\s+(?P<how>(?:use|call|run|read|await)\b.+)$", re.I)


def _what_was_done(text: str) -> str:
    """The fix in the assistant's words, as an imperative ("Use tmp_path"), or ``""``."""
    # a sentence never runs across lines ("... in `/api`:" then "The fix for X: ...")
    lines = [s for line in text.split("\n") for s in sentences(line)]
    fixed = next((s for s in lines if made_fix(s)), "")
    if fixed:
        return _imperative(_trim(fixed)).rstrip(" .")
    said = [x for x in (_NEED_TO.search(text), _LET_ME.search(text)) if x is not None]
    m = _DID.search(text) or min(said, key=lambda x: x.start(), default=None)
    if m is None:
        return ""
    rest = m.group("rest").strip()
    to_use = _TO_USE.match(rest) if m.group("verb").lower() == "changed" else None
    if to_use:
        how = to_use.group("how")
        return how[:1].upper() + how[1:]
    if _PRONOUN.fullmatch(rest):
        return ""  # "let me add it": what is added is named elsewhere, the fix says nothing
    verb = verbs.base(m.group("verb"))
    return f"{verb[:1].upper()}{verb[1:]} {rest}"


def _confirmed_cause(
    text: str, after: str, how: str, before: str, sig: Signal, labelled: str = ""
) -> dict[str, Any] | None:
    """A medium note from a root cause the assistant stated and the person or a green run
    confirmed: "<cause>: <what fixed it>" ("The fixture reuses one tmp dir: use tmp_path")."""
    plain = _MARKUP.sub("", text).replace("**", "")
    said = sentences(plain)
    headed = headed_cause(text)
    cause = headed or next((p for p in said if _CAUSE.search(p)), "")
    announced = not cause and len(said) == 1 and _FOUND.match(said[0])
    # "Perfect! I found the issue - X": an exclamation before the announcement says nothing
    opening = said[1:] if len(said) > 1 and _EXCLAIMED.match(said[0]) else said
    lead = _FOUND_LEAD.match(opening[0]) if opening and not cause and not announced else None
    if lead is not None:
        # "Found it! The symlink is broken - it points to X", "Found it: `X` registers a
        # default at init time": the announcement, then on the same line the cause it
        # announces. Only a statement: not an intent ("Let me ..."), a pointer to what
        # follows ("Look at `X`:", "Line 62 is the smoking gun:") nor a question.
        stated = opening[0][lead.end() :].strip() or (opening[1] if len(opening) > 1 else "")
        if not (
            _INTENT.match(stated)
            or _LOOK_AT.match(stated)
            or stated.rstrip(" *_").endswith(("?", ":"))
        ):
            cause = stated
    if announced or (
        cause.endswith(":") and _CAUSE_LEAD.sub("", _CAUSE.split(cause)[-1]).strip(" :") == ""
    ):
        # "The actual issue was:" or "Found the actual bug!", and the cause on the next line
        following = _following_line(text, after)
        cause = (f"{cause} {following}" if cause else following) if following else ""
        text = f"{text} {following}"
    if not cause:
        # "There's a small bug in `getInitials`. When the string is empty, ...": a bug named
        # as the one found, and what it is after the name
        cause = named_bug_cause(said)
    if not cause and sig.kind == DIAGNOSIS:
        cause = next((p for p in said if DIAGNOSIS_RE.match(p)), "")
    if not cause:
        # "So X returns Y, not Z. That's the bug - ...": the cause is the sentence before
        at = next((i for i, p in enumerate(said) if _THATS_THE.match(p)), 0)
        cause = _SO.sub("", said[at - 1]) if at > 0 else ""
    if not cause or cause.rstrip(" *_").endswith("?"):
        return None  # no cause, or one asked as a question ("What if the issue is X?"): a guess
    subject = _CAUSE_LEAD.sub("", _trim(_SEEN.sub("", cause))).rstrip(" .;:")
    if len(subject.split()) < MIN_WORDS - 1 or _GUESS.search(subject):
        return None  # a hunch, or the assistant's own doing ("I'm using X wrong")
    if not (_NAMED.search(subject) or _IDENTIFIER.search(subject)):
        return None  # "the function doesn't exist": a cause that names nothing
    if headed and _OPTIONS.match(labelled):
        return None  # a choice between fixes still open: the lesson is the one chosen later
    if headed:
        fix = _done(labelled) if labelled else ""  # its section's fix, or none
    else:
        fix = _done(labelled) if labelled else _what_was_done(after or text)
    if routine(plain, fix):
        return None  # a lint warning, a typo, a missing definition: the error names its fix
    if fix and twins(subject, fix):
        fix = ""
    return _bug_fix(
        subject,
        fix,
        quote=text,
        before=before,
        who=sig.speaker,
        confidence=MEDIUM,
        category=sig.category,
        confirmed=how,
    )


# The assistant's account of its work, a cause and its fix each under a label: "**Root
# cause:** X" (or "The bug: X", "Bug 2: X") and, on the next line, "**Fix:** Y".
_LABELLED_CAUSE = re.compile(
    r"^(?:the\s+)?(?:(?:real|actual)\s+)?(?:root\s+cause|bug(?:\s+#?\d+)?|cause)\s*:\s*\S", re.I
)

_LABELLED_FIX = re.compile(r"^(?:the\s+)?fix(?:ed)?\s*:\s*(?P<fix>\S.*)$", re.I)

# A report that gives each cause a section of its own, the cause in its heading ("### Bug 2
# (HIGH): Missing `exec` import in load-test.js", "### Root Cause 1: `sobrietyStartDate` is
# hardcoded to today (Primary)"), the section's lines its evidence and its "**Fix**:". The
# heading's label and a rank in brackets are no part of the cause.
_HEADED_CAUSE = re.compile(
    r"^\s*#{1,6}\s*(?:the\s+)?(?:root\s+cause|bug|issue|problem)(?:\s+#?\d+)?"
    r"(?:\s*\([^)\n]{1,20}\))?\s*:\s*(?P<cause>\S.*?)(?:\s*\([^)\n]{1,20}\))?\s*$",
    re.I,
)

_SECTION_END = re.compile(r"^\s*(?:#{1,6}\s|-{3,}\s*$)")

# A fix offered as options ("Either (a) document it, or (b) make it conditional"): a decision
# the person has still to make, not a fix.
_OPTIONS = re.compile(r"^\W*(?:either\b|\(?a\)\s.*\(?b\)\s)", re.I)


def headed_cause(line: str) -> str:
    """The cause a report's section heading states, its label and rank left out, or ``""``."""
    m = _HEADED_CAUSE.match(line.replace("**", ""))
    return m.group("cause").strip() if m else ""


def labels_its_cause(following: Sequence[str]) -> bool:
    """Does a headed cause's section state the cause again under a label ("**Root cause**:
    X")? Then that line is the note, and the heading only names the section."""
    for line in following:
        if _SECTION_END.match(line):
            return False
        if _LABELLED_CAUSE.match(_plain(line)):
            return True
    return False


def section_fix(following: Sequence[str]) -> str:
    """The fix a headed cause's section gives, read from the lines after the heading to the
    next heading or rule: its labelled fix ("**Fix**: Add the import"), else a fix it says
    ("The fix is to call X"); ``""`` when it has none, or only a lead-in to a list ("The fix
    involves:"). A fix the turn names elsewhere may be another section's: never borrowed."""
    section: list[str] = []
    for line in following:
        if _SECTION_END.match(line):
            break
        m = _LABELLED_FIX.match(_plain(line))
        if m:
            return m.group("fix")
        section.append(line)
    fix = _what_was_done("\n".join(section))
    return "" if announces_what_follows(fix) else fix


_DONE = re.compile(r"^(?P<verb>[A-Z][a-z]+)\b(?P<rest>.*)$")


def _done(fix: str) -> str:
    """A fix as what to do: "Moved X to Y, which ..." -> "Move X to Y, which ..."."""
    first = sentences(fix)[0].rstrip(" .") if fix.strip() else ""
    m = _DONE.match(first)
    if m is None:
        return first
    verb = verbs.base(m.group("verb").lower())  # "Moved" -> "move", "Gave" -> "give"
    return f"{verb[:1].upper()}{verb[1:]}{m.group('rest')}"


# The announcement of a cause found: "found it", "I found the actual bug".
_FOUND_WORDS = r"(?:i\s+)?found (?:it|the (?:real |actual )?(?:bug|problem|issue|cause))"

# "Found the actual bug!" alone on its line: the cause is what the assistant says next.
_FOUND = re.compile(rf"^\W*{_FOUND_WORDS}\W*$", re.I)

# The same announcement opening a line that goes on with the cause ("Found it! X", "Perfect!
# I found the issue. X", "Found it: X", "Found the bug - X"): what follows it is the cause.
_EXCLAIMED = re.compile(r"^\W*(?:perfect|great|excellent|ah|aha|ok(?:ay)?)\W*$", re.I)

_FOUND_LEAD = re.compile(
    rf"^\W*(?:(?:perfect|great|ah|ok(?:ay)?)\W+)?{_FOUND_WORDS}(?:\s*[:—–]\s*|\s+-\s+|\W*$)",
    re.I,
)

# A sentence that points at what the reader should look at, not a statement of the cause.
_LOOK_AT = re.compile(r"^\W*(?:look|see|check|note|here)\b", re.I)


_NAMED_BUG = re.compile(NAMED_BUG, re.I | re.M)


def named_bug_cause(said: Sequence[str]) -> str:
    """The cause stated after a bug the assistant names as the one it found
    (``signals.NAMED_BUG``), or ``""``: what follows the name after a colon or a dash ("flagged
    the same real issue: the mock target is the source module"), else the next sentence
    ("There's a small bug in `getInitials`. When the string is empty, `split()` returns
    ..."). The qualified name says one particular bug was found; the statement says what it
    is. Not an intent ("Let me check ...") nor a question: those announce a search, not what
    it found."""
    for i, sentence in enumerate(said):
        named = _NAMED_BUG.search(sentence)
        if named is None:
            continue
        rest = sentence[named.end() :].strip()
        if rest[:1] in (":", "\u2014", "\u2013"):
            cause = rest[1:].strip()
        else:
            cause = said[i + 1].strip() if i + 1 < len(said) else ""
        if _INTENT.match(cause) or cause.rstrip(" *_").endswith("?"):
            return ""
        return cause
    return ""


def _following_line(line: str, after: str) -> str:
    """The first sentence the assistant said after ``line`` (``after`` holds both)."""
    rest = after.split(line.strip(), 1)[-1] if line.strip() in after else ""
    following = next((x for x in rest.split("\n") if x.strip()), "")
    following = _MARKUP.sub("", following.strip()).replace("**", "").strip()
    return sentences(following)[0].rstrip(" .") if following else ""


_THATS_THE = re.compile(
    r"^(?:and\s+)?that'?s (?:the|our) (?:real |actual )?(?:bug|problem|issue|cause|culprit)\b", re.I
)

_SO = re.compile(r"^(?:so|and|now)\s+", re.I)

# "It's (a) bad idea (to X)[, since Y | , do Z]": the note is titled by what to do instead,
# naming the idea (from the reply, or from the plan the assistant had just announced).
_BAD_IDEA = re.compile(
    r"^(?:it|that|this)(?:'s|\s+is|\s+was)\s+(?:a\s+|an\s+)?(?:bad|terrible|poor|wrong)\s+"
    r"(?:idea|approach|way|call)\b\s*(?:to\s+(?P<idea>[^,;.]+))?[,;.:]?\s*(?P<rest>.*)$",
    re.I,
)

_PLAN = re.compile(
    r"^(?:(?:ok(?:ay)?|sure|now),?\s+)?(?:i(?:'ll|\s+will|'m going to|\s+am going to|\s+plan to)|"
    r"let me|we(?:'ll|\s+will)|i|we)\s+(?P<plan>\w+\b.*)$",
    re.I,
)

_BECAUSE = re.compile(r"^(?:since|because|as|so)\s+", re.I)


def _named_idea(reply: str, before: str) -> str | None:
    """``reply`` itself, or for "it's a bad idea ..." what to do, naming the idea; None when
    the idea has no name (no "to X", no plan the assistant announced)."""
    m = _BAD_IDEA.match(reply.strip())
    if m is None:
        return reply
    idea = (m.group("idea") or "").strip()
    if not idea:
        plan = _PLAN.match(sentences(before)[0]) if before.strip() else None
        if plan is None:
            return None
        first, _, tail = plan.group("plan").partition(" ")
        idea = f"{verbs.base(first)} {tail}".strip()
    rest = m.group("rest").strip().rstrip(" .")
    title = f"Don't {idea.rstrip(' .')}"
    if not rest:
        return title
    if _BECAUSE.match(rest):
        return f"{title}: {_BECAUSE.sub('', rest)}"
    return f"{title}; {rest[:1].lower() + rest[1:]}"


_SHOULD = re.compile(r"^(?:so\s+)?(?:they|you|we|it|one)\s+(?:should|must|need to)\s+", re.I)


def _cause_action(text: str, before: str, sig: Signal) -> dict[str, Any] | None:
    """A low note from a stated cause that comes with a rule naming the thing to do.

    "Turns out npm install rewrote package-lock.json; they should use `npm ci`" gives
    "npm install rewrote package-lock.json ...: use `npm ci`". A cause alone is an
    observation ("Turns out the worker ran before the row was committed"): no note.
    """
    parts = [p.strip() for s in sentences(text) for p in re.split(r";\s+", s) if p.strip()]
    cause = next((p for p in parts if _CAUSE.search(p)), "")
    rule = next((p for p in parts if p != cause and _IMPERATIVE.search(p) and _CODE.search(p)), "")
    if not cause or not rule:
        return None
    subject = _CAUSE_LEAD.sub("", _MARKUP.sub("", cause)).rstrip(" .;:")
    todo = _SHOULD.sub("", _trim(rule)).rstrip(" .")
    if len(subject.split()) < MIN_WORDS - 1 or len(todo.split()) < 2:
        return None
    if routine(text, todo):
        return None  # a lint warning, a typo, a missing definition: the error names its fix
    return _bug_fix(
        subject,
        todo,
        quote=text,
        before=before,
        who=sig.speaker,
        confidence=LOW,
        category=sig.category,
    )


def _persons_cause(text: str, before: str, sig: Signal) -> dict[str, Any] | None:
    """A low note from a person's "the bug was X" / "the issue is that X", and what follows."""
    said = sentences(_MARKUP.sub("", text))
    at = next((i for i, x in enumerate(said) if _CAUSE.search(x)), None)
    if at is None:
        return None
    lead = said[at][: _CAUSE.search(said[at]).start()]  # type: ignore[union-attr]
    subject = _CAUSE_LEAD.sub("", said[at][len(lead) :]).rstrip(" .;:")
    if len(subject.split()) < MIN_WORDS:
        return None
    rest = " ".join(said[at + 1 :]).strip()
    if not rest:
        return None  # "the issue is we are using X": a setting pointed at, no lesson said
    title = f"{subject}: {rest[:1].lower() + rest[1:]}"
    return _action(
        title=title.rstrip(" ."),
        rule=_cap(rest or subject),
        quote=text,
        before=before,
        who="person",
        confidence=LOW,
        learning_type="correction",
        category=sig.category,
        cause=_cap(subject) + ".",
    )


# "X confirms it: <cause>": a lead pointing at the evidence, then the cause it confirms.
_CONFIRMS_IT = re.compile(
    r"^(?P<lead>[^:]{0,80}?)\s*\b(?:confirms?|confirmed|shows?|proves?|explains?)\s+"
    r"(?:it|this|that)\s*:\s+"
    r"(?P<cause>\S.+?)[.;]?$",
    re.I,
)

# "so I'm adding X and then I'll rerun Y": the fix, as what the assistant is doing.
_DOING = re.compile(
    r"\bso (?:i['’]?m|i am|we['’]?re|we are)\s+(?P<verb>\w+ing)\s+(?P<rest>.+?)"
    r"(?:,?\s+and then\b.*)?$",
    re.I,
)


def confirmed_statement(text: str, fix_sentence: str) -> str:
    """The cause a lead points to in the sentences before ``fix_sentence`` ("The installer
    source confirms it: it ignores any `SKILL.md` without `name`" -> "It ignores any `SKILL.md`
    without `name`"), when it names a thing; else ``""``."""
    for sentence in sentences(text):
        if sentence == fix_sentence:
            return ""
        m = _CONFIRMS_IT.match(sentence)
        cause = m.group("cause").strip() if m else ""
        if cause and (_NAMED.search(cause) or _IDENTIFIER.search(cause)):
            # "it" is what the evidence came from ("The installer source confirms it: it ...")
            what = _EVIDENCE_OF.sub("", m.group("lead").strip()) if m else ""
            if what and re.match(r"it\b", cause, re.I):
                cause = f"{what} {cause[2:].lstrip()}"
            return _cap(cause)
    return ""


# The evidence a lead names, past the thing it is of ("the installer source", "the build log").
_EVIDENCE_OF = re.compile(
    r"(?:'s)?\s+(?:source(?: code)?|code|logs?|output|docs?|documentation|trace|error)$", re.I
)


def _fix_action(text: str, cause: str, before: str, sig: Signal) -> dict[str, Any] | None:
    """A low note from a confirmed fix: "<subject>: <fix>", or None without a subject."""
    plain = _MARKUP.sub("", text).replace("**", "").strip()
    fix_sentence = next((s for s in sentences(plain) if made_fix(s)), "")
    if not fix_sentence:
        return None
    # "Bottom line: the fix is to X": the fix, not the label summing it up
    fix = _imperative(_trim(without_summary(fix_sentence))).rstrip(" .")
    doing = _DOING.search(fix)
    if doing:  # "the fix is structural, so I'm adding X": the fix is what is being done
        fix = _cap(f"{verbs.base(doing.group('verb'))} {doing.group('rest')}").rstrip(" .,")
    if len(fix.split()) < MIN_WORDS - 1:
        return None
    stated = confirmed_statement(plain, fix_sentence)
    if stated:
        # "The installer source confirms it: it ignores X": the cause is the sentence the lead
        # points to, not the narration around it
        return _bug_fix(
            stated,
            fix,
            quote=text,
            before=before,
            who=sig.speaker,
            confidence=LOW,
            category=sig.category,
        )
    m = _SUBJECT.match(plain)
    subject = m.group("subject").strip() if m and not _FIX.search(m.group("subject")) else ""
    if subject and (fix.lower().startswith(subject.lower()) or sums_up(f"{subject}:")):
        subject = ""  # "Bottom line: the fix is ...": a summary label is no subject
    if not subject and not _CODE.search(fix):
        return None  # a fix with neither a subject nor a named thing teaches nothing
    if routine(plain, fix):
        return None  # a lint warning, a typo, a missing definition: the error names its fix
    title = f"{subject}: {fix[:1].lower() + fix[1:]}" if subject else fix
    if cause and twins(cause, fix):
        cause = ""
    return _action(
        title=title,
        rule=_cap(fix) + ".",
        quote=text,
        before=before,
        who=sig.speaker,
        confidence=LOW,
        learning_type="bug-fix",
        category=sig.category,
        cause=cause,
        fix=_cap(fix) + ".",
    )
