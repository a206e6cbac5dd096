"""The person's rules and corrections: what a person's line teaches, and what only looks like it.
Pure.

A rule or correction comes only from a person's words. What looks like a lesson and is none: a
request to the assistant, an offer the person declines, their wish for the task at hand, a fix
the person turned down for another, a rule the person later challenged on its code name, a
rule whose thing is only a pronoun ("don't let chezmoi overwrite this"), a setting pointed at
with nothing said after it, a remark pointing at a line, a report of a failed try with the
command pasted, a piece of a remark wrapped over lines or a rule word only inside what the
person quotes, a constraint of a brief for one task ("You are reviewing ... Do NOT
modify any files"), or a line of a block the person pasted (a fenced block, an indented code
block, a block quote: CommonMark's blocks that are no paragraph of theirs). What is one
though no rule word says so: a point of the person's the assistant grants ("You're right —
..."), a cause restated right after the person said the guess was it, a rule the assistant's
concession quotes from an instruction file, a terse answer read with the question it answers,
and a "why aren't we X?" the assistant acts on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from reflectgit.notes import verbs
from reflectgit.notes.privacy import clean
from reflectgit.notes.scope import says_global
from reflectgit.notes.signals import (
    CONCESSION_RE,
    CORRECTION_KINDS,
    LASTING,
    LOW,
    MEDIUM,
    PLAIN_CORRECTION,
    SUGGESTION,
    Signal,
    classify,
    dialogue_lines,
    draws_a_limit,
    says_how_it_lands,
)
from reflectgit.notes.transcripts import PERSON, Transcript
from reflectgit.workflows.drain.heuristic.note import _action
from reflectgit.workflows.drain.heuristic.session import acted_on
from reflectgit.workflows.drain.heuristic.wording import (
    _CONFIRMED,
    _GUESS,
    _IDENTIFIER,
    _LISTED,
    _MARKUP,
    _NAMED,
    _RULE_WORDS,
    _VAGUE,
    FIX_KINDS,
    MIN_WORDS,
    _cap,
    _folded,
    _join,
    _order,
    _trim,
    _words,
    sentences,
)
from reflectgit.workflows.drain.heuristic.written import _INSTRUCTIONS, asked_for

# Words the person quotes ("README.md:203 says \"CLIs almost never need code flow.\""): the
# quoted source's words, not the person's.
_QUOTATION = re.compile(r'"[^"\n]*"|“[^”\n]*”')

_ENDS_SENTENCE = re.compile(r"[.!?:;]['\"”’)*_`]*$")


def rules_only_quoted(text: str) -> bool:
    """Are all of ``text``'s rule words inside what it quotes?"""
    return bool(_RULE_WORDS.search(text)) and not _RULE_WORDS.search(_QUOTATION.sub(" ", text))


def opens_mid_sentence(lines: Sequence[tuple[str, str]], offset: int) -> bool:
    """Does the person's line at ``offset`` go on from a sentence the line before it (theirs
    too) left open: a remark wrapped over lines, cut mid-argument ("headless/SSH ... is real),
    but your colleague never wrote that argument down")? Its first word is lower case, it
    opens no list item, and the line before, whose writer ends sentences (it ends one before
    its last), ends without a sentence's end. An unpunctuated note ("thanks" then "never push
    to main") and a list ("- use `uv`" then "- never pin") are new lines."""
    if not (0 < offset < len(lines)) or lines[offset - 1][0] != "user":
        return False
    line = lines[offset][1]
    first = re.search(r"[A-Za-z]", line)
    previous = lines[offset - 1][1].strip()
    return (
        first is not None
        and first.group().islower()
        and not _LISTED.match(line)
        and len(sentences(previous)) >= 2
        and not _ENDS_SENTENCE.search(previous)
    )


def _whole_rule(text: str) -> str:
    """The rule of a person's statement, kept with the sentence it belongs to.

    The best rule sentence wins (``_rank``); one too short to stand alone ("Don't
    overcomplicate.") is joined to the sentence next to it, which says what it is about
    ("Check the existing implementation first; don't overcomplicate").
    """
    said = [(s, _trim(s)) for s in sentences(text)]
    said = [(raw, cut) for raw, cut in said if cut]
    found = [
        i
        for i, (raw, _cut) in enumerate(said)
        if _RULE_WORDS.search(raw) or draws_a_limit(raw) or says_how_it_lands(raw)
    ]
    if not found:
        return _trim(text)
    best = min(found, key=lambda i: _order(said[i][1]))
    rule = said[best][1]
    if len(rule.split()) >= MIN_WORDS or _NAMED.search(rule):
        return rule
    near = [i for i in (best - 1, best + 1) if 0 <= i < len(said)]
    near = [i for i in near if not said[i][1].endswith("?") and len(said[i][1].split()) > 1]
    if not near:
        return rule
    first, second = sorted((best, near[0]))
    return _join(said[first][1], said[second][1])


# "keep in mind that X", "remember that X", "note that X": what follows is a fact the person
# points out, not something to do ("remember to X" is an instruction, and stays one).
_POINTED = re.compile(
    r"^(?:please\s+)?(?:(?:keep|bear) in mind|remember|note)(?:\s+that)?[,:]?\s+(?!to\b)(?P<fact>\S.*)$",
    re.I,
)

_NOT_THAT = re.compile(r"\w,?\s+not\s+(?:a\s+|an\s+|the\s+)?\w", re.I)


def pointed_out(rule: str) -> bool:
    """Is ``rule`` a fact the person points out for the task at hand, not a rule? Its lead
    ("keep in mind that") is all that made it one, and the fact neither states a rule itself
    (always, never, must, don't, use ...) nor names a thing out of the session (a code name,
    a path, a flag): "keep in mind that new file will be at the same folder as old one"
    speaks of this task's files. "Keep in mind that `make lock` rewrites the lock" names one;
    "keep in mind that the cache is per process, not per host" corrects a belief."""
    m = _POINTED.match(rule.strip())
    if m is None:
        return False
    fact = m.group("fact")
    ruled = _RULE_WORDS.search(fact) or _NOT_THAT.search(fact)  # "per process, not per host"
    return not (ruled or _NAMED.search(fact) or _IDENTIFIER.search(fact))


# A rule whose thing is only a word pointing at it ("don't let chezmoi overwrite this", "never
# do that again", "keep it that way"): one clause ending on the pronoun it acts on, after the
# time words a rule may close with. Its thing is named only by what was said around it, which
# the note's title does not carry: a teammate cannot act on it. A clause the rule is joined to,
# a condition or a reason ("if the panel is just a number, don't include it") may name it; a
# pronoun before a noun ("this flag") names it.
_POINTER = re.compile(
    r"\b(?:it|this|that|these|those|them)"
    r"(?:\s+(?:again|anymore|any more|ever|either|too|yet|now|for now|right now|for good|then"
    r"|that way|this way|as is|here|there|alone|please))*$",
    re.I,
)
_MORE_THAN_A_CLAUSE = re.compile(
    r"[,;:()\u2014\u2013]|\s-\s|\b(?:if|when|whenever|unless|because|since|until|before|after"
    r"|while|where|so that|instead|or|and|but)\b",
    re.I,
)


def names_no_thing(rule: str) -> bool:
    """Is ``rule`` one clause whose thing is only a pronoun ("Don't let chezmoi overwrite
    this"), naming no code, path or flag? "This flag breaks the build: never pass --fast" and
    "if the panel is just a number, don't include it" name theirs."""
    said = _MARKUP.sub("", rule).strip().rstrip(" .!")
    if _NAMED.search(said) or _IDENTIFIER.search(said) or _MORE_THAN_A_CLAUSE.search(said):
        return False
    return bool(_POINTER.search(said))


# A terse answer to the assistant's open questions ("big five, separate and don't couple" to
# "all nine, or the big five?", "in `src/` or a separate `e2e/` module?", ...): each part is
# read with the alternative of the question it picks, since only the question holds the rule.
_TERSE_WORDS = 3

_ALTERNATIVES = re.compile(r",?\s+\bor\b\s+", re.I)

_PARTS = re.compile(r"\s*(?:,|;|\band\b)\s*", re.I)


def _questions(before: str) -> list[tuple[str, list[str]]]:
    """The assistant's either-or questions in its turn, each with its alternatives."""
    out: list[tuple[str, list[str]]] = []
    for piece in re.findall(r"[^?]+\?", before):
        said = sentences(piece.strip().split("\n")[-1])
        question = _MARKUP.sub("", said[-1] if said else piece).strip().rstrip("?").strip()
        alternatives = [a.strip(" .,;") for a in _ALTERNATIVES.split(question) if a.strip(" .,;")]
        if len(alternatives) >= 2:
            out.append((question, alternatives))
    return out


def answered_questions(reply: str, before: str) -> tuple[str, str] | None:
    """A terse answer read with the questions it answers: ``(title, rule)``, ``("", "")`` when
    the reply is a terse answer to questions it cannot be matched to (nothing to write), and
    None when the reply is no terse answer to the assistant's questions."""
    head = re.split(r"[.!?/\n]", reply.strip(), maxsplit=1)[0]
    parts = [p.strip() for p in _PARTS.split(head) if p.strip()]
    questions = _questions(before)
    if not parts or not questions or any(len(p.split()) > _TERSE_WORDS for p in parts):
        return None
    picked: list[tuple[str, str, str]] = []
    for part in parts:
        words = _words(part)
        one = [
            (question, alt)
            for question, alts in questions
            if words and sum(1 for a in alts if words <= _words(a)) == 1
            for alt in alts
            if words <= _words(alt)
        ]
        if not one:
            return ("", "")  # a part no single alternative holds: its rule is unknown
        question, alt = one[0]
        picked.append((question, alt, part))
    title = "; ".join(dict.fromkeys(alt for _q, alt, _p in picked))
    rule = " ".join(f"Asked “{q}?”, the person answered “{p}”." for q, _a, p in picked)
    return _cap(title), rule


def _rules(text: str) -> str:
    """Every rule-bearing sentence of a person's statement, in order (minus the scolding)."""
    keep = [_trim(s) for s in sentences(text) if _RULE_WORDS.search(s)]
    text = " ".join(k if k.endswith((".", "!", "?", ";")) else k + "." for k in keep if k)
    return _cap(text)


# An offer the assistant makes ("Want me to also set `gc.auto 0`?", "Should I commit?") and a
# reply that turns it down with nothing but a pronoun for what it refuses ("no don't set it,
# let's see if it keeps happening"): the person's choice for now, not a rule.
_OFFER = re.compile(
    r"\b(?:want me to|shall i|should i|do you want|would you like|i can also|let me know if)\b"
    r"[^?]*\?\s*$",
    re.I,
)

_DECLINE = re.compile(
    r"^\W*(?:(?:no|nope|nah)\b\W*)?(?:(?:please|just)\s+)?(?:don'?t|dont|do not|never)\s+"
    r"(?:\w+\s+){0,2}?(?:it|that|this|them|those)\b(?!\s+\w+(?:[./:`]\w|\w*\d))"
    r"(?:\s+(?:yet|now|for now|right now|again))?\s*(?:[,.;!:-]|$)",
    re.I,
)

# A person's own wish for the task at hand ("no, I want to use claude login because I have a
# subscription"), after rejecting what was done: theirs, not the team's rule.
_WISH = re.compile(
    r"^(?:i|we)\s+(?:just\s+)?(?:want|wanted|'d like|would like|need|prefer)\b"
    r"(?!\s+(?:you|it|this|that)\s+to\s+(?:always|never)\b)",
    re.I,
)


def declines(reply: str, before: str) -> bool:
    """A reply that turns down what the assistant just offered, naming nothing to keep."""
    return bool(_OFFER.search(before.strip())) and bool(_DECLINE.match(_trim(reply) or reply))


# The person's reply that answers the assistant's last message and states no rule: a pick
# among the ways its either-or question offered ("no, keep both for now, I'll see how we go"
# to "Should I remove that notification, or keep both indicators?"), or a question of their
# own ("no change, what do I need to run to install these, sorry?"). The lead of an answer,
# the words that only say for how long a pick holds, and a question that proposes or asks for
# a way ("why aren't we ...?", "could we ...?", "can you ...?": other readers weigh those).
_ANSWER_LEAD = re.compile(r"^\W*(?:(?:no|nope|nah|yes|yeah|yep|ok(?:ay)?|sure)\b\W*)+", re.I)
_CLAUSE_END = re.compile(r"[,.;:!?\n]|\s[-\u2013\u2014]\s")
_FOR_NOW = frozenset({"now", "moment", "time", "being", "today"})
_PROPOSES = re.compile(
    r"\b(?:why|how about|what about|(?:could|can|should|shall|shouldn'?t|would|wouldn'?t)\s+"
    r"(?:we|you|i|it|this|that|they))\b",
    re.I,
)


def _picks_an_option(reply: str, before: str) -> bool:
    """Does ``reply`` open with a pick of exactly one way of an either-or question of
    ``before``, and say no rule besides?"""
    said = _ANSWER_LEAD.sub("", reply.strip())
    head = _CLAUSE_END.split(said, maxsplit=1)[0]
    rest = said[len(head) :]
    words = _words(head) - _FOR_NOW
    if not words or _RULE_WORDS.search(rest) or draws_a_limit(rest):
        return False
    return any(
        sum(1 for alt in alternatives if words <= _words(alt)) == 1
        for _question, alternatives in _questions(before)
    )


def _asks_only(reply: str) -> bool:
    """Is ``reply`` a question of the person's own, asking for no way and stating no rule?"""
    said = reply.strip()
    return (
        said.endswith("?")
        and not _RULE_WORDS.search(said)
        and not draws_a_limit(said)
        and not _PROPOSES.search(said)
    )


def answers_only(reply: str, before: str) -> bool:
    """Is the person's ``reply`` an answer to the assistant's last message (``before``) that
    states no rule: a pick among the ways its either-or question offered, or a question of
    their own? A way none of the options holds ("no, use a toast instead") and a rule said
    with the answer ("No change. Don't edit generated files") are rules still."""
    said = clean(reply)
    return _asks_only(said) or _picks_an_option(said, before)


# The person turning a fix down for another ("is the fix not to make the local run match CI?",
# "no, use X instead"): the assistant's last fix before it was abandoned.
_REDIRECT = re.compile(
    r"\b(?:is(?:n'?t)?|wouldn'?t|shouldn'?t) the (?:real |right |better |proper )?fix\b"
    r"|\b(?:a|the) (?:better|proper|real|right|different|cleaner) (?:fix|way|approach|solution)\b"
    r"|\b(?:fix|do) (?:it|this|that) (?:another|a different|properly)\b",
    re.I,
)


def abandoned_fixes(transcript: Transcript) -> Callable[[int], bool]:
    """``abandoned(line)``: is the assistant's fix at that dialogue line one the person later
    turned down? Its next verdict from the person is a correction or a request for another fix
    ("is the fix not to ...?"), before the assistant states another fix or the person accepts."""
    dropped: set[int] = set()
    last: int | None = None
    for index, line in enumerate(dialogue_lines(transcript.turns)):
        hit = classify(line.text, line.speaker, follows_assistant=line.follows_assistant)
        if line.speaker != PERSON:
            if hit is not None and hit[1] in FIX_KINDS:
                last = index
            continue
        if last is None:
            continue
        if _CONFIRMED.match(line.text.strip()):
            last = None
        elif _REDIRECT.search(line.text) or (hit is not None and hit[1] in CORRECTION_KINDS):
            dropped.add(last)
            last = None
    return dropped.__contains__


# The person challenging what was done on a rule's word ("but the fresh install runs every
# migration, why would you repeat the table in the full schema?"): that rule is corrected.
_CHALLENGE = re.compile(
    r"^\W*(?:but|no|nope|wait|actually)\b.*\?|^\W*i mean\b"
    r"|\bwhy (?:would|do|did|are|were|should) (?:you|we)\b"
    r"|\b(?:isn'?t|wouldn'?t|shouldn'?t|doesn'?t) (?:it|that|this|the \w+) (?:be|already|just)\b",
    re.I,
)

_NAME_OF = re.compile(r"`([^`\n]{3,80})`|\b([a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|\w+_\w+)\b")


def challenged_rules(transcript: Transcript) -> Callable[[int, str], bool]:
    """``superseded(line, rule)``: does the person, after that dialogue line, challenge or
    reject what was done on a rule naming the same code thing ("FullSchema" and "the full schema", folded)?
    Then the rule was written before its correction (a pasted plan's bullet, say)."""
    later: list[tuple[int, str]] = []
    for index, line in enumerate(dialogue_lines(transcript.turns)):
        if line.speaker != PERSON:
            continue
        hit = classify(line.text, line.speaker, follows_assistant=line.follows_assistant)
        # a challenge, or a plain rejection ("that's wrong, ..."); a rule stated again on the
        # same name ("never edit the lock by hand, `make lock` writes it") agrees with it
        if _CHALLENGE.search(line.text) or hit == (LOW, PLAIN_CORRECTION):
            later.append((index, _folded(line.text)))

    def superseded(at: int, rule: str) -> bool:
        names = {_folded(a or b) for a, b in _NAME_OF.findall(rule)}
        names = {n for n in names if len(n) >= 6}
        return any(i > at and n in said for i, said in later for n in names)

    return superseded


# The person holding the assistant to what it left undone ("you didnt lint before you pushed",
# "you forgot the changeset"): a challenge too, though it asks nothing. Only a concession reads
# it: a rule stated earlier is not withdrawn by being held to later (``challenged_rules``).
_REPROACH = re.compile(r"\byou (?:didn'?t|did not|forgot|never|skipped)\b", re.I)


def _asked_before(
    lines: Sequence[tuple[str, str]],
    offset: int,
    challenge: bool = True,
    in_turn: bool = False,
) -> str:
    """The person's turn right before ``offset``, which opens the assistant's turn, when it
    challenges what was done (a question, a "but ...", a reproach), else ``""``: a concession
    answers a challenge, not a request. With ``challenge=False``, whatever that turn said.

    With ``in_turn``, the line may come later in the assistant's turn ("Fair challenge. Let me
    look at it in context." then "You're right — it's noise. ..."): the assistant grants the
    person's point after it looked, and has nobody else to grant it to. Only the turn's first
    concession answers the person; a later one grants something the turn met on the way."""
    said: list[str] = []
    for role, text in reversed(lines[: max(offset, 0)]):
        if role == "user":
            said.insert(0, text.strip())
        elif said:
            break
        elif not in_turn or CONCESSION_RE.match(text):
            return ""  # the concession does not open the assistant's turn
    joined = " ".join(said)
    if not challenge:
        return joined
    challenged = "?" in joined or _CHALLENGE.search(joined) or _REPROACH.search(joined)
    return joined if joined and challenged else ""


# The person saying the assistant's guess was the cause: "yes, that was it", "exactly".
_THAT_WAS_IT = re.compile(
    r"^(?:(?:yes|yep|yeah)\W+)?(?:(?:that|this|it)(?:'s|\s+is|\s+was)\s+(?:it|the (?:issue|problem|cause|bug))|"
    r"exactly|correct|you(?:'re|\s+are)\s+right)\b",
    re.I,
)

_NOT_LESSON = re.compile(
    r"^(?:let me|let's|i'll|i will|i'm going to|here(?:'s| is| are)|now|looking|checking)\b", re.I
)

_QUOTED = re.compile(r"[\"“']([^\"”'\n]{3,40})[\"”']")


def _grants_what_was_raised(said: str, asked: str) -> bool:
    """What the assistant grants names a thing, or speaks of what the person raised (two of
    its words, or a word it quotes: '"checkpoints" is internal jargon')."""
    if _NAMED.search(said) or _IDENTIFIER.search(said):
        return True
    if len(_words(said) & _words(asked)) >= 2:
        return True
    return any(q.lower() in asked.lower() for q in _QUOTED.findall(said))


def _conceded(text: str, asked: str, sig: Signal) -> dict[str, Any] | None:
    """A low note from the person's challenge the assistant granted, titled by what the
    assistant then says is so, when that names a thing ("You're right — that's duplication.
    The incremental migration already uses `CREATE TABLE IF NOT EXISTS` and always runs after
    FullSchema."); a concession that only promises to look ("Good point. Let me check") is none."""
    rest = CONCESSION_RE.sub("", _MARKUP.sub("", text), count=1).lstrip(" -—–:,.").rstrip()
    kept = [x for x in sentences(rest) if not _NOT_LESSON.match(x) and not x.endswith((":", "?"))]
    for sentence in kept:
        said = sentence.rstrip(" .;!")
        if said.endswith((":", "?")) or _NOT_LESSON.match(said) or _GUESS.search(said):
            continue
        if len(said.split()) < MIN_WORDS or not _grants_what_was_raised(said, asked):
            continue
        return _action(
            title=said,
            rule=_cap(" ".join(kept))[:400],
            quote=text,
            before="",
            asked=asked,
            who="assistant, granting the person's point",
            confidence=LOW,
            learning_type="correction",
            category=sig.category,
            confirmed="the assistant granting the person's challenge",
        )
    return None


def granted_suggestion(text: str, grant: str, sig: Signal) -> dict[str, Any] | None:
    """A low note from the person's suggestion the assistant's reply opens by granting ("Maybe
    we should make the search area of villages much bigger?" then "Good point — the current
    guidance says 5-10 km"), when the grant states no point of its own: the point granted is
    the person's. Titled by the first sentence of the turn that proposes or asks.

    Only a proposal in a suggestion's words ("maybe we should ...", "how about ...",
    "consider ...") says a way: a question without them ("Is there any need to redact
    anything?") asks the assistant something, and a grant ("You're right.") answers it
    without saying which way was kept, as a rule asked as a question is none (``asked_for``)."""
    for sentence in sentences(_MARKUP.sub("", text)):
        said = sentence.strip()
        found = classify(said)
        suggests = found is not None and found[1] == SUGGESTION
        if not suggests and not asked_for(said):
            continue  # context before the proposal ("Seems the model puts X in Y.")
        if not suggests or len(said.split()) < 2 * MIN_WORDS or _VAGUE.match(said):
            return None  # a question, or "maybe tabs?": no way said, or one naming nothing
        return _action(
            title=said,
            rule=_cap(said.rstrip(" ?.")) + ".",
            quote=text,
            before="",
            asked=text,
            who="person, a suggestion the assistant granted",
            confidence=LOW,
            learning_type="correction",
            category=sig.category,
            confirmed=f"the assistant granting it: “{grant.strip()[:200]}”",
        )
    return None


# The assistant citing the project's file of standing instructions when the person held it to
# it ("You're right — CLAUDE.md says \"ALWAYS run `make format` before commit\"", "You're
# right, the CLAUDE.md says:" and the rule quoted on the next line): the file's words are the
# rule the assistant broke, a standing rule of the project by where they are written.
_CITES = re.compile(r"(?P<file>\S+)\s+(?:says|states|requires)\b\s*:?\s*(?P<said>.*)$", re.I)

_CITED = re.compile(r'^["“](?P<rule>[^"”\n]+)["”]|^>\s*(?P<block>\S.*)$')


def cited_rule(text: str, following: str, asked: str, sig: Signal) -> dict[str, Any] | None:
    """A note of the rule the assistant's concession quotes from an instruction file (on its
    line, else on the next line as a quotation), or None: a file it names without quoting,
    or any other source ("the docs say"), is no rule of the project's."""
    rest = CONCESSION_RE.sub("", _MARKUP.sub("", text), count=1).lstrip(" -—–:,.").rstrip()
    m = _CITES.search(rest)
    name = m.group("file").strip("`*_") if m else ""
    if m is None or not _INSTRUCTIONS.search(" " + name):
        return None
    quoted = _CITED.match(m.group("said").strip() or following.strip())
    rule = (quoted.group("rule") or quoted.group("block")).strip() if quoted else ""
    if len(rule.split()) < MIN_WORDS:
        return None
    return _action(
        title=rule.rstrip(" ."),
        rule=_cap(rule.rstrip(" .")) + ".",
        quote=rule,
        before="",
        asked=asked,
        who=f"project's {name}, which the person held the assistant to",
        confidence=MEDIUM,
        learning_type="correction",
        category=sig.category,
        confirmed="the assistant granting it had not followed it",
    )


# The person asking why something was not done ("Why aren't we using table-driven tests for
# these test cases?"): a rule in a question's form, when the assistant changes the code for it.
_WHY_NOT = re.compile(
    r"^\W*why (?:aren'?t|are not|don'?t|do not|didn'?t|did not|isn'?t|is not|wasn'?t) "
    r"(?:we|you|it|this|that|they)\s+(?P<what>\w+ [^?]+?)\s*\?\s*$",
    re.I,
)


def why_not_rule(said: str) -> str:
    """``Why aren't we using X for Y?`` -> ``Use X for Y``; ``""`` for any other line."""
    m = _WHY_NOT.match(said.strip())
    return _as_rule(m.group("what")) if m is not None else ""


def _as_rule(what: str) -> str:
    """What a question asks for, as the rule it states: its first verb in the base form
    (``using X for Y`` -> ``Use X for Y``), or ``""`` when that is under ``MIN_WORDS``."""
    first, _, rest = what.partition(" ")
    rule = f"{verbs.base(first)} {rest}".strip()
    return _cap(rule) if len(rule.split()) >= MIN_WORDS else ""


def challenges_acted_on(transcript: Transcript, since: int = 0) -> list[dict[str, Any]]:
    """Notes from the person's "why aren't we X?" that the assistant answered by changing the
    code, checked by a passing run (a question is only a rule once it was acted on), for the
    person's turns at or after record ``since``."""
    changed = acted_on(transcript)
    out: list[dict[str, Any]] = []
    for turn in transcript.turns:
        if turn.speaker != PERSON or turn.record < since:
            continue
        said = clean(turn.text).strip()
        rule = why_not_rule(said) if "\n" not in said else ""
        if rule and changed(turn.record) is not None:
            out.append(
                _asked_rule(
                    rule,
                    said,
                    "person, asking why it was not done",
                    MEDIUM,
                    "the assistant's edit for it and the passing test run that followed",
                )
            )
    return out


# The person proposing a way as a yes/no question that names the way it replaces ("could we
# instead just run cargo package on all of the crates instead of the tag checking?", "Are you
# looking in the workload container, not the charm container?"): the question says which way
# to go and which not, so the assistant granting it ("Yeah, that's a simpler direction", "Ah,
# excellent point!") keeps the way the question names. Not a question that asks for options
# ("What are the options ..., not the Go side?"), nor one that reports ("Still reporting CPS
# instead of CPM?"), nor one proposing no refused way ("maybe use github mcp instead?").
_PROPOSED = re.compile(
    r"^\W*(?:(?:so|but|and|also|then|ok(?:ay)?),?\s+)*"
    r"(?:(?:could|can|should|shouldn'?t|would|wouldn'?t)\s+(?:we|you)|are\s+(?:we|you))\s+"
    r"(?:(?:instead|just|also|rather|please)\s+)*(?:try\s+to\s+)?"
    r"(?P<what>[a-z]+\s[^?]+?)\s*\?\s*$",
    re.I,
)

_CONTRAST = re.compile(
    r"\binstead\s+of\b|\brather\s+than\b|,\s*not\s+(?:the\s+|a\s+|an\s+)?\w", re.I
)

# The assistant's reply opening with assent: a concession (``CONCESSION_RE``: "You're right",
# "Good point"), or a "yes" or an idea praised ("Yeah, that's a simpler direction.", "Ah,
# excellent point!"); not one qualified by a "but" in its first sentence.
_ASSENT = re.compile(
    r"^\W*(?:(?:ah|oh),?\s+)?(?:yes|yeah|yep|sure|(?:excellent|good|great)\s+(?:point|idea))\b",
    re.I,
)
_QUALIFIED = re.compile(r"^[^.!]*\bbut\b", re.I)


def _grants(reply: str) -> bool:
    """Does the assistant's ``reply`` open by granting what the person proposed?"""
    text = _MARKUP.sub("", reply)
    return bool(CONCESSION_RE.match(text) or _ASSENT.match(text)) and not _QUALIFIED.match(text)


def proposed_rule(said: str) -> str:
    """``could we instead just run X instead of Y?`` -> ``Run X instead of Y``; ``""`` for a
    question that proposes no way against another."""
    m = _PROPOSED.match(said.strip())
    if m is None or not _CONTRAST.search(m.group("what")):
        return ""
    return _as_rule(m.group("what"))


def proposals_granted(transcript: Transcript, since: int = 0) -> list[dict[str, Any]]:
    """Notes from the person's one-line questions proposing a way against another
    (``proposed_rule``) that the assistant's next line grants, for the person's turns at or
    after record ``since``. Low: a grant in words, not a check."""
    lines = list(dialogue_lines(transcript.turns))
    out: list[dict[str, Any]] = []
    for index, line in enumerate(lines[:-1]):
        reply = lines[index + 1]
        if line.speaker != PERSON or line.record < since or reply.speaker == PERSON:
            continue
        said = clean(line.text).strip()
        rule = proposed_rule(said)
        if not rule or not _grants(reply.text):
            continue
        out.append(
            _asked_rule(
                rule,
                said,
                "person, a way proposed as a question the assistant granted",
                LOW,
                f"the assistant granting it: “{reply.text.strip()[:200]}”",
            )
        )
    return out


# A pasted shell command ("~/Projects $ ln -s ..."): what the person tried, not a rule.
_PASTED_PROMPT = re.compile(r"(?:^|\s)\$\s+[a-z][\w.-]*(?=\s|$)", re.M)

# The person's own report in the first person ("I don't see it", "it doesn't work").
_REPORTED = re.compile(
    r"\b(?:i|it|that|this)\s+(?:don'?t|do not|can'?t|cannot|doesn'?t|does not|didn'?t|did not)\b",
    re.I,
)


def reports_a_try(text: str) -> bool:
    """Is ``text`` the person's report of a failed try with the command they ran ("Nope I don't
    see it in cursor. ~/Projects $ ln -s ...")? It holds a pasted shell command, and the
    person's words before it state no rule once their first-person report is set aside."""
    m = _PASTED_PROMPT.search(text)
    if m is None:
        return False
    words = _REPORTED.sub(" ", text[: m.start()])
    return not _RULE_WORDS.search(words)


def _asked_rule(rule: str, said: str, who: str, confidence: str, confirmed: str) -> dict[str, Any]:
    """The action for a rule the person stated as a question (``said``), and what made it one
    (``confirmed``): a correction of the way the work went."""
    return _action(
        title=rule,
        rule=rule + ".",
        quote=said,
        before="",
        asked=said,
        who=who,
        confidence=confidence,
        learning_type="correction",
        category="general",
        confirmed=confirmed,
    )


# A person's turn that briefs an agent for one task: it sets the agent's role or job ("You are
# reviewing work that another AI agent just completed ...", "Your job is to verify ...", "As a
# reviewer, ..."), or it is a task list, a lead line then numbered items from 1 ("Implement
# the remaining audit recommendations:" then "1. Re-route ...", a ``/goal`` command's
# argument). The constraints such a turn states ("Do NOT modify any files", "5. Delete the
# duplicate `fullband_aligned.py` ...") are the task's, not standing rules of the person's.
_AGENT = r"(?:agent|reviewer|auditor|assistant|expert|engineer|developer|architect|analyst|tester)"
_ROLE = re.compile(
    rf"^\W*(?:you\s+are|you'?re)\s+(?:now\s+)?(?:reviewing|working\s+on|acting\s+as|helping\b"
    rf"|(?:a|an|the)\s+(?:[\w-]+\s+){{0,3}}?{_AGENT}\b)"
    r"|^\W*your\s+(?:job|task|role|mission|goal)\s+(?:is|here\s+is)\b"
    rf"|^\W*as\s+(?:a|an|the)\s+(?:[\w-]+\s+)?{_AGENT}\b",
    re.I,
)
_NUMBERED = re.compile(r"^\s*(?P<n>\d+)[.)]\s+\S")
_TASK_ITEMS = 3
_AGAIN = 0.8  # share of a rule's words another turn of the person's holds: stated again

# What gives a constraint of a brief a time or place beyond the task: "always", "never",
# "from now on" (``signals.LASTING``), "in this repo", or any project (``scope.says_global``).
_BEYOND_TASK = re.compile(
    rf"\b(?:always|never|{LASTING})\b"
    r"|\b(?:in|for|across)\s+(?:this|the|our|my)\s+(?:repo|repository|project|codebase)\b",
    re.I,
)


def briefs_an_agent(turn: str) -> bool:
    """Is the person's ``turn`` a brief for an agent's one task: its opening sets the agent's
    role or job, or it opens with a lead line and a numbered task list from 1?"""
    lines = [x for x in turn.strip().splitlines() if x.strip()]
    if not lines:
        return False
    if any(_ROLE.search(s) for s in sentences(lines[0])[:2]):
        return True
    if len(lines) <= _TASK_ITEMS or not lines[0].rstrip(" *_").endswith(":"):
        return False
    first = _NUMBERED.match(lines[1])
    items = sum(1 for x in lines[1:] if _NUMBERED.match(x))
    return first is not None and first.group("n") == "1" and items >= _TASK_ITEMS


def beyond_the_task(rule: str) -> bool:
    """Does ``rule`` carry a time or place beyond the task ("always", "in this repo")?"""
    return bool(_BEYOND_TASK.search(rule)) or says_global(rule)


def briefed_rules(transcript: Transcript) -> Callable[[int, str], bool]:
    """``briefed(record, rule)``: is the person's ``rule`` at that record a constraint of a
    brief for one task (``briefs_an_agent``), carrying nothing beyond the task
    (``beyond_the_task``) and stated by the person in no turn of theirs that is no brief?"""
    turns = [(t.record, t.text) for t in transcript.turns if t.speaker == PERSON]
    briefs = {record for record, text in turns if briefs_an_agent(text)}
    plain = [_words(text) for record, text in turns if record not in briefs]

    def briefed(record: int, rule: str) -> bool:
        if record not in briefs or beyond_the_task(rule):
            return False
        said = _words(rule)
        return not any(said and len(said & other) >= _AGAIN * len(said) for other in plain)

    return briefed


# The blocks of a person's turn that CommonMark reads as no paragraph of theirs: what they
# paste (a log, another agent's answer, a review) comes as one of these, not as typed words.
FENCED, INDENTED, QUOTED = "fenced", "indented", "quoted"
_BLOCK_KINDS = {"fence": FENCED, "code_block": INDENTED, "blockquote_open": QUOTED}
_QUOTE_MARKS = re.compile(r"^[ \t>]*")


def _bare(line: str) -> str:
    """A line as the readers see it: its quote marks and outer blanks gone."""
    return _QUOTE_MARKS.sub("", line).strip()


def _blocks(text: str) -> tuple[dict[str, str], set[str]]:
    """The lines of a person's turn inside its pasted blocks, each with its kind (a fenced
    block, an indented code block, a block quote, at any depth), and its other lines; each
    bare. The blocks are CommonMark's, as markdown-it parses them (a fence to its closing
    fence or the turn's end, an indented code block only where no paragraph runs on and no
    list item takes the lines, a quote with its lazy continuation lines)."""
    from markdown_it import MarkdownIt

    lines = text.split("\n")
    kinds: list[str] = [""] * len(lines)
    for token in MarkdownIt("commonmark").parse(text):
        kind = _BLOCK_KINDS.get(token.type)
        if kind and token.map:
            first, last = token.map
            for at in range(first, min(last, len(lines))):
                kinds[at] = kinds[at] or kind  # the outermost block names the line
    inside: dict[str, str] = {}
    outside: set[str] = set()
    for line, kind in zip(lines, kinds, strict=True):
        bare = _bare(line)
        if not bare or (kind == FENCED and _FENCE_MARK.match(bare)):
            continue  # a blank line, or a fence's own line
        if kind:
            inside.setdefault(bare, kind)
        else:
            outside.add(bare)
    return inside, outside


_FENCE_MARK = re.compile(r"^(?:`{3,}|~{3,})")


def pasted_lines(transcript: Transcript) -> Callable[[int, str], str]:
    """``pasted(record, line)``: the kind of block (``FENCED``, ``INDENTED``, ``QUOTED``) of the
    person's turn at ``record`` that holds that line, when no paragraph of the turn says it
    too; "" for the person's own words."""
    turns = {t.record: t.text for t in transcript.turns if t.speaker == PERSON}
    cache: dict[int, tuple[dict[str, str], set[str]]] = {}

    def pasted(record: int, line: str) -> str:
        text = turns.get(record)
        if text is None:
            return ""
        if record not in cache:
            cache[record] = _blocks(text)
        inside, outside = cache[record]
        said = _bare(line)
        return inside.get(said, "") if said not in outside else ""

    return pasted
