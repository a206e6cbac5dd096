"""Whether a sentence states a lesson for situations to come, or speaks of this turn. Pure.

A note is read later, by someone who was not in the session, for a situation like the one it
came from. So what it states must hold for a kind of situation, not for one artefact of the
turn it was said in:

- a person's rule is stated for later ("never open draft pull requests", "next time you edit
  the schema, let me run the migration"); a remark on this turn is not. It points at a line of
  this turn's output ("docs/setup.md:40 reads ...", "the loop at line 88 ..."), which moves
  with the next edit; or it recounts what the assistant did in this exchange, every verb of it
  in the past ("I never asked you to delete the fixtures", "your helper dropped the header"):
  a report of one act, which names no rule though a rule may lie behind it. A rule directs, and
  names whom: a sentence that only reports where a thing is now ("the fixture lives at X and
  the loader will never see it"), or whose every directive binds "it" or "they" with nothing
  named before ("the only thing it shouldn't do is X"), directs no one; nor does the
  person's own wish for the task at hand ("i want low friction for people who install it"),
  nor a directive on how to reason that names nothing ("do not make assumptions"). Nor is a
  report of what the person did and saw (a symptom: "when i press r ... the pane always goes
  back to the first item"), a step of the task at hand ("first, let's see if ..."), the
  specification of this task's piece of work ("we should have an intro that ..."), or a
  statement whose subject is a bare pointer ("that is already marked as ...").
- a cause the assistant found names a mechanism: what the code, tool or setting does and what
  goes wrong ("the loader reads the host's config at init time"). The assistant's account of
  its own work is not one: its own doing or intent, in the first person ("so I'm moving the
  check ...", "I'd keep it anyway"); a summary of its reasoning under a summary label
  ("Overall: ...", "In short, ..."); what its change is ("The patch is small: ..."); or a list
  of what failed with no clause saying why ("Broken modules: `a`, `b` and `c`"). Nor is how the
  work stands: where a thing lives now that the edit moved it ("X now lives in Y"), a run that
  has not finished ("the check suite is still running"), what a numbered change does ("PR #12
  fixes X"), a count of what remains or is fixed ("3 remaining failures are in the
  integration tests"). Nor is a cause that only says there is one ("most of it is one root
  cause"). Nor is a history of the session, every clause an act of its people in the past
  with no reason or fault ("Someone hardened X meanwhile", "Pulled main and rebuilt"),
  whoever tells it; a tool or the code acting in the past ("npm install rewrote the
  lockfile") is a mechanism. Nor
  is a person's line that titles a piece of this task's work (a commit title
  "refactor(cli): ...", a plan's "Step 3: ...") a rule.
- a statement that is mostly a quotation is its source's words, not the session's finding.

Each reader returns why the sentence is no lesson, or ``""``.
"""

from __future__ import annotations

import re

from reflectgit.notes.memoryfiles import is_imperative
from reflectgit.notes.signals import LASTING
from reflectgit.notes.verbs import is_past

# Text that is not the speaker's own words: a code span, a quotation.
_QUOTED = re.compile(r"`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”")

# A place in a file given by its line: "README.md:203", "src/app.py:12:4", "line 88", "lines
# 3-5". A host's port ("http://example.com:8080", "git@host.io:22") is no line.
_LINE = re.compile(
    r"(?<![\w/:.@-])(?<!://)(?:[\w.-]+/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,5}:\d+\b(?!\.\d)"
    r"|\blines?\s+\d+\b",
    re.I,
)
# The assistant addressed: the party of this exchange who did the work.
_YOU = re.compile(r"\b(?:you|your|yours|yourself)\b", re.I)
# A verb form that holds now or later: an auxiliary or modal of the present or future, an
# imperative's "let", a contracted "is"/"are"/"will". Any of them makes the sentence one that
# can state how things are or are to be done.
_NOW = re.compile(
    r"\b(?:is|are|am|isn'?t|aren'?t|do|does|don'?t|doesn'?t|must|mustn'?t|should|shouldn'?t|"
    r"shall|will|won'?t|would|wouldn'?t|can|can'?t|cannot|could|couldn'?t|may|might|need|needs|"
    r"let|let'?s|please|(?:have|has) to)\b"
    r"|\b(?:it|that|this|there|what|here|who|which|you|we|they|i)['’](?:s|re|m|ll|d)\b",
    re.I,
)
# An imperative: "never", "always" or "don't" and the verb ("Never delete fixtures you did not
# create").
_IMPERATIVE = re.compile(r"^\W*(?:never|always|don['’]?t|do not)\s+[a-z]", re.I)
# A pronoun as the subject, then its verb ("you keep", "we run", "i never see"): a verb in the
# present unless it is a past form; words that are no verb after a pronoun are left out.
_SUBJECT_VERB = re.compile(
    r"\b(?:you|i|we|they)\s+(?:(?:never|always|often|still|just|also|usually)\s+)?"
    r"(?P<verb>[a-z]+(?:['’][a-z]+)?)\b",
    re.I,
)
_NO_VERB = frozenset(
    {
        "to",
        "that",
        "the",
        "a",
        "an",
        "and",
        "or",
        "but",
        "for",
        "with",
        "in",
        "on",
        "at",
        "of",
        "from",
        "about",
        "if",
        "when",
        "so",
        "not",
        "too",
        "as",
        "all",
        "both",
        "yourself",
    }
)
# The past of an auxiliary (did, was, had), besides a verb's own past form.
_PAST_AUXILIARY = frozenset(
    {"did", "didn't", "didnt", "was", "wasn't", "were", "weren't", "had", "hadn't"}
)
_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?")
# An instruction reported as given ("I told you to use pnpm", "what I asked was X"): its content
# is a rule said before, which stands; one reported as not given ("I didn't ask you to X",
# "I never said X") disowns an act.
_INSTRUCTED = re.compile(r"\b(?:told|asked|said|instructed|requested|wanted)\b", re.I)
_DISOWNED = re.compile(
    r"\b(?:didn['’]?t|did not|never|not)\s+(?:\w+\s+)?(?:tell|told|ask|asked|say|said|instruct|"
    r"request|want|wanted)\b",
    re.I,
)


def _unquoted(text: str) -> str:
    return _QUOTED.sub(" ", text)


def points_at_a_line(sentence: str) -> bool:
    """Does ``sentence`` point at a place in a file by its line number? A rule for later
    names the thing, not where it sits in this turn's copy of the file."""
    return bool(_LINE.search(sentence))


def recounts_the_exchange(sentence: str) -> bool:
    """Does ``sentence`` recount what was done or said in this exchange: it speaks of the
    assistant (you, your) and every verb of it is in the past, none in the present or future
    and no imperative ("I didn't ask you to rename it", "your script dropped the header")?
    A rule addressed to the assistant says what to do ("next time you change X, let me
    ...", "you should ..."), which takes the present or the future. An instruction reported
    as given ("I told you to use pnpm") restates its rule, and is no recount."""
    said = _unquoted(sentence)
    if not _YOU.search(said) or _NOW.search(said) or _IMPERATIVE.match(said):
        return False
    if any(_present(m.group("verb")) for m in _SUBJECT_VERB.finditer(said)):
        return False  # "you keep writing X": a habit, said in the present
    if _INSTRUCTED.search(said) and not _DISOWNED.search(said):
        return False  # "I told you to use pnpm, not npm": the instruction it reports stands
    words = [w.replace("’", "'").lower() for w in _WORD.findall(said)]
    return any(w in _PAST_AUXILIARY or is_past(w) for w in words)


def _present(word: str) -> bool:
    low = word.lower().replace("’", "'")
    return low not in _NO_VERB and low not in _PAST_AUXILIARY and not is_past(low)


# What makes a person's sentence a rule for later is that it directs: an obligation (should,
# must, need to, have to, ought to, make sure, ensure), a request (please, let me, let's), what
# "we" or "you" want, prefer or avoid, or do always or never (a team's habit said in the present
# is its convention: "we always run the linter before commit" tells a newcomer what to do), or
# a clause that opens with an imperative (``memoryfiles.is_imperative``: "Use X", "Never push",
# "always edit that one"). "Never" or "always" that governs what something else does ("the
# processor will never find it") directs no one.
_DIRECTS = re.compile(
    r"\b(?:should|shouldn['’]?t|must|mustn['’]?t|ought|need(?:s)?\s+to|needn['’]?t|"
    r"(?:have|has)\s+to|make\s+sure|ensure|please|let\s+me|let['’]?s|"
    r"(?:we|you)\s+(?:(?:always|never|usually|generally|don['’]?t|do\s+not)\s+)?"
    r"(?:want|prefer|avoid)|(?:we|you)\s+(?:always|never)\s+[a-z]+)\b",
    re.I,
)
# Where one clause ends and the next begins: a dash, a colon, a semicolon, a comma, "and",
# "so", "but", "then".
_CLAUSES = re.compile(
    r"(?:\s+[-—–]+\s+|[—–;:,]\s*|\s+)(?:(?:and|so|but|then)\s+)+|\s+[-—–]+\s+|[—–;:,]\s*", re.I
)
# A directive that binds only "it" or "they", at the sentence's opening or after a cleft's
# placeholder ("It shouldn't resolve anything", "The only thing it shouldn't do is X", "What
# they must do is Y"): the party it binds was named in the turn before, which the note does not
# carry, so out of its session it directs nothing a reader can find. ("It turns out X", "They
# fail when Y" direct nothing and are not this; "This should not change, only the `--dev` flag
# should ..." names the party of its other clause.)
_UNNAMED_OBLIGED = re.compile(
    r"^\W*(?:(?:the\s+)?(?:(?:only|one|main|first|last)\s+)?(?:thing|things|what|all)\s+)?"
    r"(?:it|they)\s+(?:(?:really|also|still|just|never|always|definitely|probably)\s+)?"
    r"(?:should|shouldn['’]?t|must|mustn['’]?t|ought|needs?\s+to|(?:have|has)\s+to)\b",
    re.I,
)
# Where a thing is now ("X lives at Y", "the fixture sits in tests/", "it is stored under
# ~/.cache"): this turn's state of the tree, like a line number, which the next move changes.
# Where things are to go ("design documents go in /specs", "X belongs in Y") is a convention,
# not this; nor is the same place with a directive ("the config lives in ~/.x — always edit
# that one").
_PLACED = re.compile(
    r"\b(?:lives?|sits?|resides?|is\s+located|are\s+located|is\s+stored|are\s+stored|"
    r"is\s+kept|are\s+kept|ended\s+up|ends\s+up)\s+"
    # "now lives solely in Y": how much of it is there says where it is all the same
    r"(?:(?:now|solely|only|entirely|exclusively|just)\s+)*(?:at|in|under|inside)\s+\S",
    re.I,
)


# A directive whose only object points at a thing of this turn ("Delete the dir, don't
# archive", "Revert that one", "Move it"): a demonstrative or "the" before a word that names
# no kind of thing in particular, or a pronoun alone. The thing was shown in the turn, which
# the note does not carry. ("Never force-push", "Always rebase" have no object; "Delete the
# finished OpenSpec folder" names which.)
# An imperative's verb, after the words that may stand before it ("never", "just", "don't").
_VERB_LED = r"^(?:(?:never|always|just|please|do|don['’]?t|do\s+not)\s+)*[a-z]+(?:-[a-z]+)?"
_DEICTIC_OBJECT = re.compile(
    _VERB_LED + r"\s+"
    r"(?:(?:the|this|that|these|those)\s+(?:dir|directory|folder|file|files|thing|things|one|"
    r"ones|stuff|bit|part|line|lines)|it|them|this|that|these|those)$",
    re.I,
)
# What may stand alone as a clause of such a directive: an imperative with no object ("don't
# archive"), a word of assent.
_BARE_IMPERATIVE = re.compile(_VERB_LED + "$", re.I)


def _points_only(said: str) -> bool:
    """Is every clause of ``said`` an imperative, at least one of them with an object that only
    points at a thing of this turn, none naming anything else?"""
    parts = _clauses(said)
    if not parts or not all(is_imperative(c) for c in parts):
        return False
    pointing = [c for c in parts if _DEICTIC_OBJECT.match(c)]
    return bool(pointing) and all(
        _DEICTIC_OBJECT.match(c) or _BARE_IMPERATIVE.match(c) for c in parts
    )


def _clauses(sentence: str) -> list[str]:
    return [c.strip(" .*_") for c in _CLAUSES.split(sentence) if c.strip(" .*_")]


def directs(sentence: str) -> bool:
    """Does ``sentence`` direct: an obligation, a request, what we or you want or always do,
    or a clause that opens with an imperative? Quoted text is not the speaker's own words."""
    said = _unquoted(sentence)
    return bool(_DIRECTS.search(said)) or any(is_imperative(c) for c in _clauses(said))


# The person's own wish, in the first person singular ("i want low friction for people who
# install it", "I'd like the report to list every sensor"): what one person wants from the
# task at hand. A rule for a team is said as what anyone is to do (an obligation, an
# imperative) or as what "we" or "you" want (``_DIRECTS``); the note's reader is neither the
# person nor in this task. A wish said for every time ("I want the tests always run with
# -race", "from now on I'd like ...") is a standing preference, and is not this.
_WISH = re.compile(
    r"\bi\s+(?:(?:really|just|also|only)\s+)?"
    r"(?:want(?:ed)?|would\s+like|wish)\b|\bi['’]d\s+like\b",
    re.I,
)
_STANDING = re.compile(rf"\b(?:always|never|{LASTING})\b", re.I)


def wished_only(rule: str) -> bool:
    """Is the person's own wish ("I want ...") all that ``rule`` directs, with nothing said
    for every time?"""
    said = _unquoted(rule)
    return bool(_WISH.search(said)) and not directs(said) and not _STANDING.search(said)


# A directive on how the assistant is to reason, naming nothing ("Do not make assumptions",
# "Do not assume any details", "Don't guess", "Be careful"): advice to one assistant for the
# task at hand, and true of every task, so out of its session it names no act on the project's
# code, tools or process that a teammate could do differently (the lesson behind it, when
# there is one, is what to decide from instead, which such a clause leaves out). Only a clause
# whose object is at most two plain words counts: "Don't assume the cache is per host"
# corrects a belief and says which; "Never assume UTC" names a thing; "Do not guess, read the
# schema first" says what to do instead (a clause of its own); "Never force-push" is an act.
_REASONING = re.compile(
    r"^(?:(?:please|just|and|also|so)\s+)*(?:"
    # a belief taken without checking: its object, if any, is what is believed
    r"(?:do\s+not|don['’]?t|never|stop|no)\s+"
    r"(?:(?:make|making)\s+(?:any\s+)?assumptions?|assum\w*|guess\w*|speculat\w*|presum\w*)"
    r"(?P<rest>(?:\s+\S+)*)"
    # a manner of working, alone: with an object it is an act ("don't rush releases")
    r"|(?:do\s+not|don['’]?t|never|stop)\s+"
    r"(?:hallucinat\w*|overthink\w*|overcomplicat\w*|over-?engineer\w*|rush\w*)"
    r"(?:\s+(?:it|things|this|that))?"
    r"|(?:be|stay)\s+(?:(?:more|very|extra)\s+)?"
    r"(?:careful|thorough|precise|rigorous|diligent|mindful))$",
    re.I,
)
_PLAIN_WORD = re.compile(r"[a-z]+")  # lower case, no digit, no mark: names nothing


def reasoning_only(rule: str) -> bool:
    """Is every clause of ``rule`` a directive on how to reason (assume, guess, be careful),
    its object, if any, two plain words at most (no code, path, name or number)?"""
    parts = _clauses(rule)
    if not parts:
        return False
    for part in parts:
        m = _REASONING.match(part)
        rest = (m.group("rest") or "").split() if m else []
        if m is None or len(rest) > 2 or not all(_PLAIN_WORD.fullmatch(w) for w in rest):
            return False
    return True


# What the person did in this app and what they saw, in the first person singular ("when i
# press r it marks the item but the pane always goes back to the first one", "I don't see it
# in cursor", "it keeps showing me the old value"): a bug report, the symptom this session is
# to fix. It states what happens on one screen, not what anyone is to do; the lesson, if there
# is one, is the cause the session finds later. (A fact said of a tool in the third person,
# "hitting /clear always creates the file in the same directory", is no report of the
# person's own screen, and is not this; nor is "when I ask for X, do Y", which directs.)
_PERSON_ACTED = re.compile(
    r"\b(?:when|whenever|if|after|once|every\s+time)\s+i\s+"
    r"(?:(?:just|then|first|try\s+to|tried\s+to)\s+)?[a-z]+",
    re.I,
)
# What happened against what was expected: a condition on the person is a report only with
# it ("when i press r it marks the item but the pane goes back"); without it, "when I ask for
# a review, list the findings" may be a rule whose verb the imperative reader does not know.
_CONTRARY = re.compile(r"\b(?:but|still|again|instead|anyway)\b", re.I)
# A request put as a question ("can we add this to the README so we don't miss it?", "could
# you show me how ..."): it asks for something to be done, which the reader of a symptom
# report has no part in; whether it holds a rule is the other readers' to say.
_REQUEST = re.compile(r"\b(?:can|could|would|will)\s+(?:we|you)\b", re.I)
_PERSON_SAW = re.compile(
    r"\bi\s+(?:(?:still|only|now|just|don['’]?t|do\s+not|can['’]?t|cannot|keep)\s+)*"
    r"(?:see|saw|seeing|get|got|getting|notice|noticed)\b"
    r"|\b(?:shows?|showing|showed|gives?|giving|gave)\s+me\b",
    re.I,
)


def reports_a_symptom(rule: str) -> bool:
    """Does ``rule`` report what the person did and saw ("when i press r ...", "I don't see
    it"), directing nothing?"""
    said = _unquoted(rule)
    if _REQUEST.search(said):
        return False  # "I see we missed X - can we add it to the README?": a request
    acted = bool(_PERSON_ACTED.search(said) and _CONTRARY.search(said))
    return (acted or bool(_PERSON_SAW.search(said))) and not directs(said)


# A step of the task at hand, led by its place in the plan and proposed for now ("first,
# let's see if ...", "then we'll order them by severity", "now let's design the write-up"):
# the order of this session's work, which ends with it. A rule holds for later whatever is
# done first; a reason given with the step ("... because we should handle these differently")
# is why this step comes first, and says how no more than the step does. ("Next time you
# change X, let me ..." is said for later, and is not this.)
_STEP_OF_TASK = re.compile(
    r"^\W*(?:first(?:ly)?|first\s+of\s+all|to\s+(?:start|begin)(?:\s+with)?|then|next|now|"
    r"after\s+that|afterwards|finally)\s*,?\s*"
    r"(?:let['’]?s|let\s+us|we['’]ll|we\s+will|we\s+are\s+going\s+to|i['’]ll|i\s+will)\b",
    re.I,
)


def a_step_of_this_task(rule: str) -> bool:
    """Does ``rule`` open with a step of the task at hand ("first, let's ..."), with nothing
    said for every time?"""
    said = _unquoted(rule)
    return bool(_STEP_OF_TASK.match(said)) and not _STANDING.search(said)


# The title of a piece of this task's work, as a conventional commit names it ("`refactor(cli):
# use one default_output_dir`", "feat: add the export button") or as a numbered step of a plan
# ("Step 3: move the resolver", "### 3. Move the resolver"): one change of the task at hand,
# which is done when it is committed. A rule says what to do each time; what this commit does
# is what the person asked for now. ("Use `fix:` for bug fixes" directs how to title every
# commit and opens with no type of its own.)
_COMMIT_TYPES = r"feat|fix|refactor|chore|docs|test|tests|perf|build|ci|style|revert"
_WORK_TITLE = re.compile(
    # a commit's type is written in lower case: "Fix: check dmesg for the syscall" and
    # "FIX: ..." are a label before a fix, which may be a lesson, not a commit's title
    rf"^\W*(?:(?-i:{_COMMIT_TYPES})(?:\([^()\n]*\))?!?:\s"
    r"|step\s+\d+\s*[:.)]\s|\d{1,2}[.)]\s+\S)",
    re.I,
)


def titles_this_tasks_work(rule: str) -> bool:
    """Is ``rule`` a conventional-commit title ("refactor(cli): ...") or a numbered step of a
    plan ("Step 3: ...", "3. ..."), markdown marks aside?"""
    return bool(_WORK_TITLE.match(rule.replace("`", "").replace("*", "").lstrip("# ")))


# What this session's deliverable is to have, as an obligation on us or you to have a thing
# not yet made ("we should have an intro that explains ...", "you should include a table of
# the sensors", "there should be a summary at the top"): the specification of one piece of
# work, an indefinite thing that exists in this task only. A rule for later says what every
# such thing has ("Every entity must have a migration") or what is to be done each time, and
# a quantifier or a word of lasting keeps it.
_DELIVERABLE = re.compile(
    r"\b(?:(?:we|you)\s+(?:should|must|need\s+to|ought\s+to|will|['’]ll)|"
    r"(?:we|you)['’]ll)\s+(?:(?:also|still|just|first|then)\s+)?"
    r"(?:have|include|contain|get)\s+(?:an?|one|some)\b"
    r"|\bthere\s+(?:should|must|needs\s+to)\s+be\s+(?:an?|one|some)\b",
    re.I,
)
_EVERY = re.compile(r"\b(?:every|each|any|all)\b", re.I)


def specifies_the_deliverable(rule: str) -> bool:
    """Does ``rule`` say what this task's piece of work is to have ("we should have an intro
    ..."), for no kind of thing and for no time beyond this one?"""
    said = _unquoted(rule)
    return bool(_DELIVERABLE.search(said)) and not (_EVERY.search(said) or _STANDING.search(said))


# A modal with "have" and a participle ("must have been missed", "should have asked"): a
# guess or a regret about what already happened, not an obligation for later.
_MODAL_PERFECT = re.compile(
    r"\b(?:must|should|could|would|might|may)(?:n['’]?t)?\s+(?:not\s+)?have\s+(?:been\s+)?\w+",
    re.I,
)
# A sentence whose subject is a bare pointer ("That is already marked as a false positive",
# "It was reported before"): the thing was named in the words before, which the note does not
# carry, so out of its session it says something of nothing a reader can find, as a cause
# led by "Its" does (``own_account``). A belief corrected ("it's not a jsonl file, it is
# the plain text log") says what the thing is instead, and is kept. One that directs ("This should not be changed, only
# the `--dev` flag should ...") is a rule all the same, and is not this.
_CODE_SPAN = re.compile(r"`[^`\n]+`")
_POINTER_SUBJECT = re.compile(
    r"^\W*(?:that|this|it)(?:['’]s|\s+(?:is|was|has\s+been|had\s+been))\b"
    # "it's not a jsonl file, it is the plain text log": a belief corrected, whose right
    # half says what the thing is, and is not this
    r"(?!\s+(?:not|never)\b|n['’]t\b)",
    re.I,
)


def names_by_pointer(rule: str) -> bool:
    """Does ``rule`` have a bare pointer ("that", "this", "it") for subject and direct
    nothing, a guess about what happened ("must have been missed") aside?"""
    if _CODE_SPAN.search(rule):
        return False  # "That's the `$'...'` quoting": the span names what the pointer means
    said = _unquoted(rule)
    return bool(_POINTER_SUBJECT.match(said)) and not directs(_MODAL_PERFECT.sub(" ", said))


def directs_no_one(rule: str) -> str:
    """Why a person's ``rule`` neither directs nor names whom it directs, or ``""``: it only
    reports where a thing is now, with no clause saying what to do about it; or every clause
    that directs binds "it" or "they" with nothing named before (a fragment of its turn); or
    all it says is what the person wants from this task ("I want ...")."""
    said = _unquoted(rule)
    if _PLACED.search(rule) and not directs(rule):
        return "it reports where a thing is now and directs nothing"
    parts = _clauses(said)
    if _UNNAMED_OBLIGED.match(said) and not any(directs(c) for c in parts[1:]):
        return "what it directs binds only a pronoun the note does not name"
    if _points_only(said):
        return "what it directs points at a thing of this turn without naming it"
    if wished_only(said):
        return "it says what the person wants from this task, not what anyone is to do"
    if reasoning_only(rule):
        return "it directs how to reason and names nothing a teammate could act on"
    if reports_a_symptom(rule):
        return "it reports what the person did and saw, a symptom, not what to do"
    if a_step_of_this_task(rule):
        return "it is a step of the task at hand, not a rule for later"
    if titles_this_tasks_work(rule):
        return "it titles a piece of this task's work (a commit, a plan's step), not a rule"
    if specifies_the_deliverable(rule):
        return "it specifies this task's piece of work, not what to do each time"
    if names_by_pointer(rule):
        return "its subject is a pointer to words the note does not carry"
    return ""


def about_this_turn(rule: str) -> str:
    """Why a person's ``rule`` is a remark on this turn rather than a rule for later, or
    ``""`` when it is stated for later."""
    if points_at_a_line(rule):
        return "it points at a line of this turn's output"
    if recounts_the_exchange(rule):
        return "it recounts what was done in this exchange"
    return directs_no_one(rule)


# The assistant itself as the one acting or judging: I, me, my, let me ("I/O" and "i.e."
# are not it). "We" is left out: engineers say "we call X before Y" of the code itself.
# A word inside a hyphenated name ("oh-my-posh") is none of them.
_FIRST_PERSON = re.compile(
    r"(?<![\w-])(?:i(?![/.\w-])|i['’](?:m|d|ll|ve)|me|my|myself)(?![\w-])", re.I
)
# A label that sums up the assistant's reasoning, not one that names the cause ("Root cause:",
# "The issue:"): what follows it is a verdict or a recap.
_SUMMARY = re.compile(
    r"^\W*(?:bottom line|in short|in summary|summary|to summari[sz]e|tl;?\s*dr|verdict|overall|"
    r"conclusion|in conclusion|net effect|short version|long story short|takeaway|recap)\b"
    r"\W*?\s*[:,—–-]",
    re.I,
)


def sums_up(text: str) -> bool:
    """Does ``text`` open with a label that sums up the assistant's reasoning ("Overall:",
    "In short, ...")? Such a label is no subject for a note."""
    return bool(_SUMMARY.match(_unquoted(text).replace("*", "")))


def without_summary(text: str) -> str:
    """``text`` without a summary label before it ("Overall: use X" -> "use X")."""
    plain = text.replace("**", "")
    m = _SUMMARY.match(plain)
    return plain[m.end() :].strip() if m else text


# The change the assistant is making as the sentence's subject, said as what it is or will be
# ("The patch is small but ...", "This change will ..."): what the edit does, not what was
# wrong ("The change to X in v2 drops Y" is a cause, and stays one).
OWN_CHANGE = re.compile(
    r"^\W*(?:the|this|my|our)\s+(?:change|fix|patch|edit|diff)(?:e?s)?\s+(?:is|are|will|would)\b",
    re.I,
)
# The assistant's work to come as the sentence's subject, with a verb in the future ("One test
# will check the wrapper, and one existing test will be updated ...", "A second commit will
# add ..."): a plan of what it is going to write, not what was wrong ("The build will fail
# whenever X" has no piece of work for its subject, and "Tests will flake while X" no verb of
# work: both stay causes).
PLANNED_WORK = re.compile(
    r"^\W*(?:(?:one|a|an|the|this|each|another|every)\s+)?"
    r"(?:(?:new|second|first|existing|regression|unit|integration|focused|follow-up)\s+)*"
    r"(?:tests?|checks?|commits?|prs?|pull requests?|changes?|fix(?:es)?|patch(?:es)?|edits?)\s+"
    r"(?:will|would|is going to|are going to|shall)\s+(?:also\s+)?"
    # what a piece of work does or has done to it: "will check", "will be updated"
    r"(?:be\s+(?:updated|added|changed|removed|rewritten|extended|adjusted|written|moved|renamed)"
    r"|check|cover|add|assert|verify|exercise|pin|lock in|guard|update|change|remove|keep|"
    r"document|include|run)\b",
    re.I,
)
# A sentence that names its subject only by a possessive pronoun ("Its portable Ruby path must
# be queried with X", "Their cache is keyed by Y"): the thing was named in the sentence before,
# which the note does not carry, so the note names nothing a reader can look up. ("It turns out
# X", "They fail when Y" are not this: only the possessive stands for a thing named elsewhere.)
_POSSESSIVE_LEAD = re.compile(r"^\W*(?:its|their)\b[*_]*\s+\w", re.I)
# A report of the assistant's own steps with the "I" left out, as status reports are written
# ("Pulled latest `origin/main` and built `mise 2026.7.5`", "Updated the lockfile"): a verb in
# the past opens it with its object (a determiner or a code span after it), and nothing in it
# holds now. ("Caused by X", "Pinned versions break when Y", "Introduced in v2, the flag is
# ignored": a participle before a preposition or a noun, or a sentence that goes on in the
# present, can state a mechanism.)
_STEP = re.compile(
    r"^[\s*_]*(?P<verb>[A-Za-z]+)[*_]*\s+(?:`|(?:the|a|an|latest|all|both|every|each|this|these|"
    r"those|our|its|their)\b)",
    re.I,
)


def _steps_reported(text: str) -> bool:
    m = _STEP.match(text)
    return m is not None and is_past(m["verb"]) and not _NOW.search(_unquoted(text))


# A label, then what it labels.
_LABELLED = re.compile(r"^(?P<label>[^:]{2,60}?):\s+(?P<rest>\S.*)$", re.S)
_PARENTHESES = re.compile(r"\([^()]*\)?")
_ITEMS = re.compile(r"\s*(?:,|;|\band\b|\bor\b)\s*", re.I)
LIST_ITEMS = 3  # a list names at least this many things
ITEM_WORDS = 3  # an item longer than this may hold a clause (a subject and what it does)


def bare_list(cause: str) -> bool:
    """Is ``cause`` a label and a list of names ("Failing suites: `a`, `b`, and `c`"), with no
    clause among them saying what goes wrong? It says what failed, not why."""
    m = _LABELLED.match(cause.strip().rstrip(" .…"))
    if m is None:
        return False
    rest = _PARENTHESES.sub(" ", m.group("rest"))
    items = [i for i in _ITEMS.split(rest.strip(" .…")) if i.strip()]
    return len(items) >= LIST_ITEMS and all(len(i.split()) <= ITEM_WORDS for i in items)


# A clause that says why or what follows from it: a reason, a consequence, a condition.
_WHY = re.compile(
    r"\b(?:because|since|so|which|causing|causes?|caused|means|therefore|hence|when|whenever|"
    r"unless|until|if)\b",
    re.I,
)
# What goes wrong: a failure word, a negation.
_GOES_WRONG = re.compile(
    r"\b(?:fail\w*|break\w*|broke|broken|error\w*|crash\w*|reject\w*|refus\w*|never|not|no|"
    r"cannot)\b|n['’]t\b",
    re.I,
)


def placed_now(cause: str) -> bool:
    """Does ``cause`` only report where a thing is now ("App selection now lives solely in the
    token request", "the fixture sits in tests/data"), with no reason and nothing going wrong
    said with it? That is this turn's state of the tree, what the assistant's edit left, and
    the next edit moves it; a cause says what goes wrong and why ("The config is stored in
    ~/.x, so the container never sees it" stays one). The same reading as a person's rule that
    only reports where a thing is (``directs_no_one``)."""
    said = _unquoted(cause)  # (the place itself may be a code span)
    return bool(_PLACED.search(cause)) and not _WHY.search(said) and not _GOES_WRONG.search(said)


# A run that has not finished, as the sentence's subject and verb ("The check suite is still
# running", "CI jobs are pending", "the build is in progress"): how the work stands at this
# moment. A run still going has found nothing yet, so there is no cause in it to keep. ("The
# health check is running too quickly" says how the check behaves, and is not this.)
_UNFINISHED_RUN = re.compile(
    r"^\W*(?:(?:the|a|an|this|that|our|its|every|all|some|several)\s+)?(?:[\w/.-]+\s+){0,3}?"
    r"(?:runs?|jobs?|checks?|suites?|ci|pipelines?|builds?|workflows?|tests?|actions?)\s+"
    r"(?:is|are)\s+(?:still\s+(?:running|pending|queued|in\s+progress|going)|pending|queued|"
    r"in\s+progress)\b",
    re.I,
)


def unfinished_run(cause: str) -> bool:
    """Does ``cause`` report a run that has not finished yet, with no reason said with it?"""
    said = _unquoted(cause)
    return bool(_UNFINISHED_RUN.match(said)) and not _WHY.search(said)


# A count of what is left or what is done, as the sentence's subject ("3 remaining failures
# are in the integration tests", "The 10 CI failures are now fixed", "All 12 tests pass now",
# "2 errors left"): how the work stands at this moment, a progress report said on the way to
# the next step. A count names how many, not what goes wrong or why; a count with a reason
# said with it ("2 tests fail because the fixture is stale") states a cause, and is not this.
_COUNTED = (
    r"^\W*(?:(?:the|all|only|just|still|now)\s+)*"
    # a share of a run counts its checks itself ("10 of 12 pass now", "17/17 passing")
    r"(?:(?P<share>\d+\s*(?:/|of|out\s+of)\s*\d+)\s+|"
    r"(?:\d+|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|both|all)\s+(?P<left>(?:remaining|more|other|last|outstanding)\s+)?"
    r"(?:[\w*`/.-]+\s+){0,2}?"
    r"(?:fail(?:ures?|ing\s+tests?)|errors?|tests?|issues?|warnings?|violations?|problems?|"
    r"bugs?|checks?|jobs?)\b[*_]*)(?P<rest>.*)$"
)
_STATUS_COUNT = re.compile(_COUNTED, re.I | re.S)
# what a count of failures is said to be now: fixed, passing, left
_STANDS = re.compile(
    r"^\W*(?:(?:are|is|were|have\s+been|has\s+been)\s+)?(?:(?:now|all|also)\s+)*"
    r"(?:fixed|resolved|passing|pass(?:es)?|green|gone|left|remain(?:s|ing)?|to\s+go)\b",
    re.I,
)

_COUNT_LEADS_ON = re.compile(
    r"\b(?:but|except|however|although|though|related|due\s+to|from)\b", re.I
)


def counts_a_status(cause: str) -> bool:
    """Does ``cause`` only count what remains or what is fixed ("3 remaining failures are in
    the integration tests", "the 10 CI failures are now fixed"), with no reason said?"""
    said = _unquoted(cause).replace("*", "")
    m = _STATUS_COUNT.match(said)
    # what goes wrong said after the count ("... are in the e2e tests: the sandbox is shared"),
    # what the failures come from ("both remaining failures are GPG-signing related"), or a
    # contrast that goes on to what still needs doing ("All renderer tests pass, but the
    # LiveView tests need the Endpoint configured"): the count leads to a finding
    if m is None or _WHY.search(said) or _GOES_WRONG.search(m["rest"]):
        return False
    if _COUNT_LEADS_ON.search(m["rest"]):
        return False
    return bool(m["left"] or _STANDS.match(m["rest"]))


def reports_a_check(cause: str) -> bool:
    """Does ``cause`` end in the verdict of a check it ran ("A depth-1 clone where `5c66bc7`
    doesn't exist — all 17 tests pass", "`ty` isn't available, but all 463 tests pass"), no
    clause of it saying why? Its last clause counts what passes (``counts_a_status``), and the
    clauses before it say what the check ran on: a report that the fix was verified, whose
    cause, if the turn gave one, was said elsewhere. A count that opens the sentence is
    ``counts_a_status``'s; "the tests fail because the fixture reads the DB before it starts"
    says why, and is a cause."""
    said = _unquoted(cause).replace("*", "")
    parts = _clauses(said)
    return len(parts) > 1 and not _WHY.search(said) and counts_a_status(parts[-1])


# A change named by its number, its link or its hash as the sentence's subject, and a verb of
# what it does ("PR [#10949](...) fixes DMG extraction ...", "Commit 1a2b3c4 adds the retry"):
# a summary of a piece of work, which says what was changed and not what went wrong or why.
# ("PR #12 broke the build because X" has a verb of what went wrong, and is not this.)
_CHANGE_SUMMARY = re.compile(
    r"^\W*(?:(?:(?:pr|pull\s+request|mr|merge\s+request|commit|patch|change)\s+)?"
    r"(?:\[[^\]\n]*\]\([^)\n]*\)|#\d+)"
    # a hash is a change's name only after its kind ("commit 1a2b3c4"): alone, it may be a word
    r"|(?:commit|patch|change)\s+`?[0-9a-f]{7,40}`?(?=\s))\s+"
    r"(?:(?:also|only|just)\s+)?(?:fix(?:es|ed)?|address(?:es|ed)?|resolv(?:es|ed)|clos(?:es|ed)|"
    r"implement(?:s|ed)|add(?:s|ed)|updat(?:es|ed)|bump(?:s|ed)?)\b",
    re.I,
)


def sums_up_a_change(cause: str) -> bool:
    """Does ``cause`` open with a change named by its number, link or hash and say what that
    change does?"""
    return bool(_CHANGE_SUMMARY.match(cause.replace("**", "")))


# A cause that says there is one without saying what it is: its last clause has a pronoun or
# a share of "it" for subject and a cause for complement ("## prowl.world: 47/100 — most of it
# is one root cause", "That's the real issue", "Found the culprit"). What the cause is follows
# in lines the note does not carry, as a fix that ends in its colon announces its list. ("The
# stale cache is the root cause" names its cause as the subject; "That's the bug" after a
# sentence is read by the writer as naming that sentence, and never reaches here alone.)
_CAUSE_ANNOUNCED = re.compile(
    r"^\W*(?:(?:(?:most|all|much|some|part|half)\s+of\s+)?(?:it|this|that|them|these|those)"
    r"|here|there)(?:['’]s|\s+(?:is|was|are|were|has|had|comes?\s+down\s+to))\s+"
    r"(?:(?:just|really|all|only)\s+)?(?:(?:the|a|one|two|three|an|its|our)\s+)?"
    r"(?:(?:real|actual|underlying|main|single|same|root|whole|primary)\s+)*"
    r"(?:cause|culprit|issue|problem|bug)s?\W*$"
    r"|^\W*(?:i\s+)?found\s+(?:the|a|one|it|two|three)\s+"
    r"(?:(?:real|actual|underlying|main|root)\s+)*(?:cause|culprit|issue|problem|bug)s?\W*$",
    re.I,
)


# A demonstrative after a clause points back at it: "GC prunes loose objects the index needs
# — this is the bug" names the clause before as the cause, and states it.
_POINTS_BACK = re.compile(r"^\W*(?:this|that|it|these|those|them)\b", re.I)


def announces_a_cause(cause: str) -> bool:
    """Does the last clause of ``cause`` only say that there is a cause ("most of it is one
    root cause", "found the culprit"), not what it is? A demonstrative subject after another
    clause ("X — this is the bug") points back at that clause, which states the cause."""
    parts = _clauses(_unquoted(cause).replace("*", ""))
    if not parts or not _CAUSE_ANNOUNCED.match(parts[-1]):
        return False
    return len(parts) == 1 or not _POINTS_BACK.match(parts[-1])


# A statement most of whose words are a quotation ('Re-reading the spec, it has an explicit
# path: *"If OAuth metadata is not available, keep `/auth.md` self-contained: identify ..."*'):
# the words are its source's (a document the person pasted, a page, a specification), not a
# finding of the session, and whether they hold is what the source says: the session may
# find the opposite. A quoted name or term ('"checkpoints" is internal jargon', 'apple will
# ask for "permission"') is a few words of the speaker's own sentence; a code span is a name,
# not a quotation.
_QUOTATION = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”")
_QUOTED_AT_LEAST = 6  # words: below it, a quotation is a term or a name in the sentence


def quotes_its_point(text: str) -> bool:
    """Are most of the words of ``text`` inside quotation marks (six words or more)?"""
    quoted = sum(len(_WORD.findall(q)) for q in _QUOTATION.findall(text))
    return quoted >= _QUOTED_AT_LEAST and 2 * quoted > len(_WORD.findall(text))


# What names a fault as a noun or an adjective ("the bug was in the plan", "the wrong path",
# "a missing flag", "X instead of Y", "added without a default"): what goes wrong, said
# without a failure verb.
FAULT = re.compile(
    r"\b(?:bugs?|buggy|mistakes?|mistaken|wrong\w*|faults?|faulty|flaw(?:s|ed)?|defects?|"
    r"incorrect(?:ly)?|invalid|missing|without|instead|typos?)\b",
    re.I,
)
# A participle before its noun is an adjective, not an event: "Unused import X", "undefined
# function Y" name a warning's subject; a word led by "un" is read so.
_ADJECTIVE_PAST = re.compile(r"^un[a-z]+ed$")
# "was" and "were" state what a thing was (a state, which may be a mechanism: "the index was
# stale"), not what happened.
_STATE_PAST = frozenset({"was", "wasn't", "were", "weren't"})
# "has" and "have" say what a thing has now, or what has been done and holds ("X has a
# limited pool", "the flag has been removed"): not a past event alone.
_HOLDS = frozenset({"has", "have", "hasn't", "haven't"})
# After an article, a determiner or a preposition a participle is an adjective of the noun
# that follows ("a limited number", "the expected value", "per matched block"), not a verb.
_BEFORE_ADJECTIVE = frozenset(
    {
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "each",
        "every",
        "any",
        "no",
        "some",
        "its",
        "their",
        "our",
        "your",
        "his",
        "her",
        "per",
        "of",
        "with",
        "for",
        "in",
        "on",
        "by",
        "from",
        "to",
        "into",
        "as",
        "and",
        "or",
    }
)
# Who acts in a session: its people and its agents, as a subject's head word ("someone",
# "the other dev", "the reviewer", "the subagent"). What else acts (a tool, a command, the
# code) acts by what it is, which is a mechanism, even told in the past.
_AGENTS = frozenset(
    {
        "i",
        "we",
        "you",
        "they",
        "he",
        "she",
        "someone",
        "somebody",
        "nobody",
        "everyone",
        "everybody",
        "user",
        "users",
        "person",
        "people",
        "dev",
        "devs",
        "developer",
        "developers",
        "colleague",
        "colleagues",
        "team",
        "teammate",
        "teammates",
        "reviewer",
        "reviewers",
        "maintainer",
        "maintainers",
        "owner",
        "author",
        "agent",
        "agents",
        "subagent",
        "assistant",
        "claude",
        "codex",
        "copilot",
    }
)
EVENT_SUBJECT_WORDS = 4  # at most this many words before a clause's verb: its subject


def _clause_event(clause: str) -> bool | None:
    """Is ``clause`` an act of the session's people in the past (True), a clause with no verb
    the reader can see (None: a label, a fragment), or anything else (False)? Its first verb
    is a past form with no subject (the narrator's "I" left out: "Pulled latest main and
    built") or with a person or an agent for subject ("Someone hardened X", "The other dev
    checked out the repo"). A tool, a command or the code as the subject ("npm install
    rewrote the lockfile", "punt-tts 0.8 introduced X") tells what it does, a mechanism; a
    past form deeper in than a subject reaches is a participle after a verb the reader cannot
    tell ("The loader reads the config cached at startup"); a clause led by "was", "were",
    "has" or "have" states what a thing is, and one led by an imperative what to do."""
    said = _unquoted(clause)
    if is_imperative(said):
        return False  # "derive the expected value": what to do, its participle an adjective
    words = [w.replace("’", "'").lower() for w in _WORD.findall(said)]
    for i, word in enumerate(words):
        if word in _STATE_PAST or word in _HOLDS:
            return False  # "the bug was in the plan", "X has a limited pool": a state
        if i and words[i - 1] in _BEFORE_ADJECTIVE:
            continue  # "a limited number", "per matched block": a participle before its noun
        if word in _PAST_AUXILIARY or (is_past(word) and not _ADJECTIVE_PAST.match(word)):
            return i == 0 or (i <= EVENT_SUBJECT_WORDS and words[i - 1] in _AGENTS)
    return None


def narrates_events(cause: str) -> bool:
    """Does ``cause`` only narrate what happened in the session: every clause with a verb an
    act of its people in the past ("Someone hardened `_wanted` meanwhile", "The other dev
    checked out this repo, did run a prompt", "Pulled latest main and built it"), nothing
    said to hold now, no reason and no fault? A cause names a mechanism, what the code, tool
    or setting does and what goes wrong; a history of what this session's people did is how
    the work went, whoever tells it.
    It is the tense of the sentence that says so, not its words: a past with a reason or a
    fault ("The processor used the default pool, which FastAPI shares", "the plan wrote the
    wrong path", "the upload published the event, but the file wasn't there") states what
    went wrong, and a sentence in the present ("X is hardcoded", "X uses || instead of &&")
    is no history."""
    said = _PARENTHESES.sub(" ", cause)
    plain = _unquoted(said)  # (a code span may hold any word)
    if _NOW.search(plain) or _WHY.search(plain) or _GOES_WRONG.search(plain):
        return False
    if FAULT.search(plain):
        return False
    events = [_clause_event(c) for c in _clauses(said)]
    return any(events) and all(e is not False for e in events)


# The last words of a sentence that point at what comes after it: a colon that ends it, "the
# following front matter block", "as follows", "below", a bare "these" or "those" ("Every
# document must begin with the following front matter block:", "The design must satisfy
# these", "The fix involves:"). The sentence leads in to a list, a block or a table that the
# writer read no further into, so a note made of it carries the lead-in and not what it leads
# to: a reader is told that there is a rule, a fix or a cause, not what it is (issue 34: a
# sentence that announces a block and leaves it out, in the first runs of held-apart-8, -11
# and -17). A sentence that goes on after its colon ("The fix: pin the version") says it, and
# "these" before a noun ("these test cases") names a thing, not what follows.
_LEADS_IN = re.compile(
    r"(?:\bthe\s+following(?:\s+[\w-]+){0,3}|\bas\s+follows|\bbelow|\b(?:these|those)"
    r"|:)[\s.*_]*$",
    re.I,
)


def announces_what_follows(sentence: str) -> bool:
    """Does ``sentence`` end where it leads in to what follows it (a colon, "the following
    block", "as follows", "below", a bare "these"), so that what it announces is not in it?"""
    return bool(_LEADS_IN.search(_unquoted(sentence).rstrip(" …")))


def own_account(text: str, *, cause: bool = True) -> str:
    """Why the assistant's ``text`` is its account of its own work rather than a mechanism,
    or ``""``. With ``cause`` false, ``text`` is the title of a note with no cause apart from
    its fix ("The fix is to use X", "Remove my stale handler"): a fix is the assistant's own
    doing and may say so, so only a summary label or a bare list makes it no lesson."""
    said = _unquoted(text)
    if sums_up(said):
        return "it sums up the assistant's reasoning"
    if cause and _FIRST_PERSON.search(said):
        return "it tells the assistant's own doing or intent"
    if cause and OWN_CHANGE.match(said):
        return "it says what the assistant's change is"
    if cause and PLANNED_WORK.match(said):
        return "it plans the assistant's work to come"
    if cause and _POSSESSIVE_LEAD.match(said):
        return "it names its subject only by a pronoun"
    if cause and _steps_reported(text):  # (a code span before the verb is its subject)
        return "it reports the assistant's own steps"
    if cause and placed_now(text):
        return "it reports where a thing is now, not what goes wrong"
    if cause and unfinished_run(text):
        return "it reports a run that has not finished"
    if cause and counts_a_status(text):
        return "it counts what remains or what is fixed, a status, not a cause"
    if cause and reports_a_check(text):
        return "it reports the verdict of a check, not why the thing went wrong"
    if cause and sums_up_a_change(text):
        return "it says what a change does, not what went wrong"
    if cause and announces_a_cause(text):
        return "it says there is a cause without saying what it is"
    if bare_list(text):
        return "it lists what failed without saying why"
    return ""
