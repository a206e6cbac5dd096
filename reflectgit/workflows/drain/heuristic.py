"""The heuristic writer: deterministic notes from a slice, with no model at all. Pure.

It turns the lessons of each chunk into CREATE actions in the same shape a model returns, so
the same safety rules apply. Which line may teach what follows who said it
(``notes/signals.classify``): a rule or correction comes only from a person's words; a root
cause or fix the assistant found gives at most a low note, and only when it names a fix (a
cause alone is an observation, not a rule); injected text never reaches a chunk at all.

Every note has a title that is a rule with its subject ("Don't produce code, design solution
first"; "`:opentelemetry.set_text_map_propagators/1` undefined: configure propagators via the
application environment"), the rule, and the evidence (the words it came from and what the
assistant had just done). Confidence is honest: a rule a person stated is ``medium``; a plain
rejection without a rule, a rule without a clear subject and whatever the assistant
concluded on its own are ``low``. Nothing it writes is ``high``. Reworded twins within one
answer ("Use X instead of Y" next to "Instead of Y, use X") are one note.

What looks like a lesson and is none: a request to the assistant, an offer the person declines,
their wish for the task at hand, a verdict on a fix, a fix the person turned down for another,
a rule the person later challenged on its code name, a setting pointed at with nothing said
after it, a request asked as a question the assistant builds rather than adopts as a way of
working, a turn recounting one act of this exchange ("I didn't tell you to undo ...", every
verb in the past: ``notes/generality``), a remark pointing at a line, a report of a failed
try with the command pasted, a verdict on a fix's size ("the fix is trivial"), a piece of a
remark wrapped over lines or a rule word only inside what the person quotes. What is one
though no rule word says so: a point of the person's the assistant grants ("You're right —
..."), a cause restated right after the person said the guess was it, a convention for a kind
of thing ("use table driven tests where possible") the assistant's work applies beyond one
edit, and guidance the assistant writes down at the person's word (a memory of type feedback,
or a rule written into an instruction file the person named: the written text is the rule),
and a finding the person relays (a reviewer's, a bot's, a failed job's) that the assistant's
edits act on and a passing run or the person's go-ahead confirms (``relayed_findings``).
What confirms a cause the assistant found, besides the person and a red-to-green run: its own
account of verified work ("Root cause: X" then "Fix: Y", after edits and a passing run), an
edit right after it that the next test run passes (a trap caught by reading), or, for a cause
stated in the account that closes the edits, the person's next turn keeping them ("pushed"). A cause said in
no phrasing the writer knows is read from the session's structure (``linked_causes``): the
assistant's statement between a failure and the confirmed edit acting on it, naming both (not
one that only restates what failed, nor one describing the change being made), and so is a
fix made by a command rather than an edit (``command_fixes``: the failing command passes when
run again after a command that changes state), and so is one worked around by running the
failing command differently (``rerun_fixes``: the same command run again outside the agent's
sandbox or with an option added passes, and the assistant's statement between names what
failed and what the change is about: a constraint of where it runs, and how to run it there).
A failure the place it ran refused (a tool missing, an operation denied: ``notes/limits``) is
confirmed another way too: by another command run in its place on the same thing, which passes
(``replaced_commands``), or by the person's word on how to get past it and the command run so
(``told_workarounds``).
A run's result followed by the assistant's next step ("The new test passed ...; I'm updating
the fixture") is narration, not a cause. A cause diagnosed in a stretch that edited nothing is
confirmed across the person's go-ahead ("ok make a pr to fix") by the next stretch's edits
and passing run (``diagnosed_causes``).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from reflectgit.notes import recoveries, shellcommand, testruns, verbs
from reflectgit.notes.commandruns import Ran, commands_run
from reflectgit.notes.generality import (
    OWN_CHANGE,
    about_this_turn,
    narrates_events,
    own_account,
    quotes_its_point,
    sums_up,
    without_summary,
)
from reflectgit.notes.limits import refusal
from reflectgit.notes.memoryfiles import is_heading
from reflectgit.notes.policy import EDIT_TOOLS, call_from
from reflectgit.notes.privacy import clean
from reflectgit.notes.routine import routine
from reflectgit.notes.shellcommand import simple_commands, without_redirections
from reflectgit.notes.signals import (
    CONCESSION,
    CONCESSION_RE,
    CORRECTION_KINDS,
    DIAGNOSIS,
    DIAGNOSIS_RE,
    HIGH,
    LASTING,
    LOW,
    MEDIUM,
    PLAIN_CORRECTION,
    SUGGESTION,
    Signal,
    classify,
    dialogue_lines,
    draws_a_limit,
)
from reflectgit.notes.transcripts import (
    ASSISTANT,
    INJECTED,
    PERSON,
    ToolCall,
    Transcript,
    Turn,
)
from reflectgit.workflows.drain.cascade import Chunk, Prepared
from reflectgit.workflows.kb.twins import same_act, stem

RULE_KINDS = ("correction", "prohibition", "requirement", "explicit-rule", "frustration")
CAUSE_KINDS = ("root-cause", "breakthrough")
FIX_KINDS = ("fix-confirmed",)
MIN_WORDS = 4
MAX_ACTIONS = 12  # the action contract's cap on CREATEs
TWIN_OVERLAP = 0.7  # shared significant words over the smaller set: the same lesson
_RULE_WORDS = re.compile(
    r"\b(always|never|must|instead|don'?t|dont|do not|should|use|only|from now on|"
    r"the rule is|not acceptable|keep in mind|important (?:not )?to|"
    r"(?:there(?:'s| is| are)|we(?:'ve got| have| already have)) (?:already )?(?:an? |some )?"
    r"existing|"
    r"(?:can'?t|cannot) (?:control|own))\b",
    re.I,
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


# The words that make a short line a directive. A modal states one as plainly as an imperative
# does: "We should not inline prompts" forbids as "don't inline prompts" does, and "you need
# to pin it" requires as "must" does (the detector reads both as a rule: notes/signals.py).
_IMPERATIVE = re.compile(
    r"\b(always|never|must|use|instead|don'?t|dont|do not|should(?:n'?t| not)|needs? to)\b", re.I
)
_REASON = re.compile(r"\b(since|because|as|so|instead|rather than|use|need to|should)\b", re.I)
_CODE = re.compile(r"`([^`\n]{2,80})`")
_TOLD = re.compile(r",?\s*\bi (?:already |just )?(?:told|said|asked)(?: you)?\b.*$", re.I)
_LEAD = re.compile(
    r"^(?:(?:no|nope|wrong approach|that'?s wrong|that'?s not (?:it|right|correct|what i \w+)|"
    r"stop doing that|understood|the rule is|"
    r"right|ok(?:ay)?|great|good|also|and|so|more context|note|btw|fyi|"
    r"[^,.;:]{0,40}\b(?:is|looks|seems) (?:fine|good|ok(?:ay)?|great))"
    r"(?:\s*(?:[,.!:;-]|however|but)\s*)+)+",
    re.I,
)
_CLAUSE_LEAD = re.compile(r"^.{0,80}?,\s*(?:however|but)\s+", re.I)
_VAGUE = re.compile(
    r"^(?:the issue|the problem|this|that|these|those|it|option \d+|the main idea)\b", re.I
)
_MARKUP = re.compile(r"^\s*(?:[-*>]+|\d+[.)])\s*|\*\*")
_SUBJECT = re.compile(r"^(?P<subject>.{6,140}?)(?::\s+|\s+[-–—]\s+)(?P<rest>.+)$")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "for",
        "and",
        "or",
        "with",
        "by",
        "via",
        "is",
        "are",
        "be",
        "was",
        "it",
        "this",
        "that",
        "use",
        "using",
        "used",
        "instead",
        "rather",
        "than",
        "do",
        "don't",
        "dont",
        "not",
        "never",
        "always",
        "must",
        "should",
        "here",
        "repo",
        "please",
        "from",
        "when",
        "then",
        "so",
        "as",
        "at",
        "into",
    ]
)


def sentences(text: str) -> list[str]:
    """Sentences of a line; a period inside a `code span` never ends one."""
    out: list[str] = []
    start = 0
    in_code = False
    for i, ch in enumerate(text):
        if ch == "`":
            in_code = not in_code
        elif ch in ".!?;" and not in_code and (i + 1 == len(text) or text[i + 1].isspace()):
            out.append(text[start : i + 1].strip())
            start = i + 1
    out.append(text[start:].strip())
    return [x for x in out if x]


# A refusal: an imperative "don't" at the start of a sentence or clause ("do not create any
# pr ...", "..., don't commit"), or "i/we don't want" an action ("i don't want to open issues
# ..."); not "I don't know" or "I don't think".
_REFUSAL = re.compile(
    r"(?:^|[,;:]\s*|\b(?:and|but|so|please|just)\s+)(?:don'?t|dont|do not)\s+\w"
    r"|\b(?:i|we) (?:really )?(?:don'?t|dont|do not) want\b",
    re.I,
)


def _rank(sentence: str) -> int:
    """Lower is a better rule: positive imperatives beat alternatives beat a refusal beats
    the rest (what should be made, what only holds, ...)."""
    if re.search(r"\b(always|must|from now on|the rule is|never)\b", sentence, re.I):
        return 0
    if re.search(r"\binstead\b", sentence, re.I):
        return 1
    if re.search(r"^(?:please\s+)?use\b", _LEAD.sub("", sentence), re.I):
        return 2
    # A refusal of an action ("do not create any pr or issue without my explicit approval", "i
    # don't want to open issues or prs directly") beats a sentence that only says what should
    # be made: inside a longer request "we should have an intro that ..." or "first, let's
    # see ..., because we should ..." is this task's work, and the refusal is what outlives it.
    if _REFUSAL.search(sentence):
        return 3
    # A directive that says what it stops at ("Do a proper explanation only of the things you
    # know, not anything you cannot verify") is a rule the way a refusal is, and beats a
    # sentence of the same turn that only mentions a limit ("I agree with only doing the
    # actual fix"), which is no directive.
    if draws_a_limit(sentence):
        return 3
    return 4


def _order(sentence: str) -> tuple[int, bool, bool]:
    """How good a rule sentence is: its rank, then one that names a thing before one that
    does not, and a vague one ("the issue must be ...") last."""
    return _rank(sentence), bool(_VAGUE.match(sentence)), not _NAMED.search(sentence)


def _trim(sentence: str) -> str:
    """A sentence without the chatter before its rule ("great, but ...", "no, ..."), said
    as what to do ("there is existing logic for X" -> "Reuse the existing logic for X",
    "important not to X" -> "Don't X")."""
    out = _TOLD.sub("", _MARKUP.sub("", sentence)).strip()
    out = _CLAUSE_LEAD.sub("", out) if _RULE_WORDS.search(_CLAUSE_LEAD.sub("", out)) else out
    out = _LEAD.sub("", out).strip().rstrip(",")
    label = _LABEL_LEAD.match(out)
    if label and not _IMPERATIVE.search(label.group(0)) and _IMPERATIVE.search(out[label.end() :]):
        out = out[label.end() :]
    out = _PLEASE.sub("", _HEDGE.sub("", out))
    out = _EXISTING.sub("Reuse the existing ", out)
    out = _IMPORTANT.sub(lambda m: "Don't " if m.group(1) else "", out)
    return _YOU_MUST.sub(lambda m: m.group(1).capitalize(), out)


# The words before a rule that label it or lead up to it ("oh man, almost forgot this: Code
# standard: every new file needs to ..."): cut when the rule is after them, not in them.
_LABEL_LEAD = re.compile(r"^(?:[^:`\n]{1,60}:\s+)+(?=\S)")
# "I think we should ...": the rule, not the hedge before it.
_HEDGE = re.compile(r"^(?:i (?:think|guess|believe|feel)|imo|imho)(?: that)?,?\s+(?=\w)", re.I)
_PLEASE = re.compile(r"^please,?\s+(?=\w)", re.I)
_EXISTING = re.compile(
    r"^(?:there(?:'s| is| are)|we(?:'ve got| have| already have))\s+(?:already\s+)?"
    r"(?:an?\s+|some\s+)?existing\s+",
    re.I,
)
_IMPORTANT = re.compile(
    r"^(?:(?:it'?s|it is)\s+)?(?:(?:very|really|extremely)\s+)?important\s+(not\s+)?to\s+", re.I
)


# "You must use X" -> "Use X": the rule, not who was told.
_YOU_MUST = re.compile(
    r"^(?:you|we) (?:must|should|need to|have to) (use|run|call|keep|put|pin|add|set|avoid)\b",
    re.I,
)


def _pick(text: str, pattern: re.Pattern[str]) -> str:
    """The sentence of ``text`` that best carries ``pattern``, trimmed of chatter."""
    found = [_trim(s) for s in sentences(text) if pattern.search(s)]
    found = [s for s in found if s]
    found.sort(key=_order)
    return found[0] if found else _trim(text)


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
        i for i, (raw, _cut) in enumerate(said) if _RULE_WORDS.search(raw) or draws_a_limit(raw)
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


def _join(first: str, second: str) -> str:
    """``Check X.`` + ``Don't Y.`` -> ``Check X; don't Y``."""
    head = first.rstrip(" .;:!")
    if second[:1].isupper() and (second[1:2].islower() or second[1:2] == "'"):
        second = second[:1].lower() + second[1:]
    return f"{head}; {second.rstrip(' .;:!')}"


# A name as people write it: a code span, a dotted or versioned name, a path, a flag.
_NAMED = re.compile(r"`[^`\n]+`|\S*[./@:]\w\S*|\b[a-z]+\d[\w.]*\b|(?<!\w)--?\w[\w-]*", re.I)


def _rules(text: str) -> str:
    """Every rule-bearing sentence of a person's statement, in order (minus the scolding)."""
    keep = [_trim(s) for s in sentences(text) if _RULE_WORDS.search(s)]
    text = " ".join(k if k.endswith((".", "!", "?", ";")) else k + "." for k in keep if k)
    return _cap(text)


def _cap(text: str) -> str:
    first = text.split(" ", 1)[0]
    if re.fullmatch(r"[a-z][a-z']*[,:]?", first):
        return text[:1].upper() + text[1:]
    return text


_FIX_LABEL = re.compile(r"^(?:the\s+)?fix(?:\s+for\s+[^:]{1,40}?)?\s*:\s+(?=\S)", re.I)


def _imperative(fix: str) -> str:
    """``Fixed by using X instead of Y`` -> ``Use X instead of Y``."""
    out = re.sub(r"^.*?\b(?:it was )?fixed (?:it )?by using\s+", "Use ", fix, flags=re.I)
    out = re.sub(
        r"^.*?\b(?:it was )?fixed (?:it )?by switching to\s+", "Switch to ", out, flags=re.I
    )
    out = re.sub(
        r"^.*?\b(?:it was )?fixed (?:it )?by (\w+?ing)\b",
        lambda m: _cap(verbs.base(m.group(1))),
        out,
        flags=re.I,
    )
    out = re.sub(r"^all \d+ tests pass now\.?\s*", "", out, flags=re.I)
    # "The fix for issue #2: X should ...": the fix, not its label
    out = _FIX_LABEL.sub("", out)
    return _cap(out)


def _strip_role(text: str) -> tuple[str, str]:
    role, _, rest = text.partition(": ")
    return (role, rest) if role in ("user", "assistant") else ("", text)


def _title(sentence: str) -> str:
    title = sentence.rstrip(" .;:!")
    title = re.sub(r",?\s*i (?:already )?told you.*$", "", title, flags=re.I)
    return _cap(title) if title else title


def _words(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9_./:@+-]+", text.lower())
    return {w.strip(".:-") for w in words if w.strip(".:-") and w not in _STOP}


def twins(a: str, b: str) -> bool:
    """Two texts state the same lesson: most significant words shared, or the same code."""
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return False
    shared = len(wa & wb) / min(len(wa), len(wb))
    if shared >= TWIN_OVERLAP:
        return True
    ca, cb = set(_CODE.findall(a)), set(_CODE.findall(b))
    return bool(ca & cb) and shared >= 0.5


def _evidence(quote: str, who: str) -> str:
    """The words the note came from (what the assistant had just done is its ``problem``)."""
    return f"Said by the {who}: “{quote.strip()[:400]}”"


# The words a note came from, as ``_evidence`` wrote them at the head of its body.
_EVIDENCE = re.compile(r"^Said by the (?P<who>[^:“]+): “(?P<quote>.*?)”", re.S)


def _same_turn(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Do two notes come from the same words of the person's (the turn their bodies quote)?"""
    qa = _EVIDENCE.match(str(a.get("body") or ""))
    qb = _EVIDENCE.match(str(b.get("body") or ""))
    if (
        qa is None
        or qb is None
        or not (qa["who"].startswith("person") and qb["who"].startswith("person"))
    ):
        return False
    return " ".join(qa["quote"].split()) == " ".join(qb["quote"].split())


def said_by(action: Mapping[str, Any]) -> str:
    """Who said the words a note came from ("person", "assistant", "person, relaying ..."),
    as ``_evidence`` wrote it into the body."""
    m = _EVIDENCE.match(str(action.get("body") or ""))
    return m.group("who") if m else ""


def announces_only(fix: str) -> bool:
    """Does ``fix`` end where it announces what follows ("The fix involves:", "Two changes
    fix it:")? A sentence that ends in a colon leads in to a list or a block that the writer
    read no further into, so the note's fix, and its how-to-apply, is the lead-in alone: a
    reader is told that there is a fix, not what it is. (A fix that goes on after its colon,
    "The fix: pin the version", says it.)"""
    return fix.rstrip(" .*_").endswith(":")


# An option alone, as a fix names it: `--resource`, `-w`.
_OPTION = re.compile(r"^`?--?\w[\w-]*(?:=\S*)?`?$")


def options_only(action: Mapping[str, Any]) -> bool:
    """Is every thing a fix note names an option, with no command, file or other name beside
    it ("Remove the `--resource` flag")? An option means something only to the command it is
    given to: out of its session such a note does not say what to change, and the same option
    may be right for another command (`--resource` is `juju deploy`'s, not `charmcraft
    pack`'s). A note naming the command as well ("Use `./gradlew build --configuration-cache`",
    "pass `--frozen` to `uv sync`") is not this, nor one whose option is a word of its prose
    beside the command ("... corrupted the go test -json stream"); a note naming nothing is
    left to the others."""
    if action["learning_type"] != "bug-fix":
        return False
    said = " ".join(str(action.get(k) or "") for k in ("title", "root_cause", "fix"))
    spans = _CODE.findall(said)  # what the note quotes as code: an option, if that is all
    named = _NAMED.findall(said)  # and nothing else named in its prose (a path, a name)
    return bool(spans) and all(_OPTION.match(n) for n in [*spans, *named])


def no_lesson(action: Mapping[str, Any]) -> str:
    """Why a candidate note speaks of this turn rather than stating a lesson for later
    (``notes/generality``), or ``""``. A person's rule must not be a remark on this turn's
    output or a recount of this exchange; a cause the assistant found must not be its account
    of its own work. Every path to a note passes here, so a kind of junk one reader lets by
    is caught the same way as from the others."""
    if announces_only(str(action.get("fix") or "")):
        return "its fix only announces what follows, which the note does not carry"
    if options_only(action):
        return "it names an option without the command it is given to"
    # A markdown heading ("## Phase 10 Audit: Findings", "## X: 47/100 — most of it is one
    # root cause") is a document's structure, the label of a section whose statements follow
    # in lines the note does not carry: never a statement, whoever wrote it.
    if is_heading(str(action["title"])):
        return "its title is a heading of a document, not a statement"
    who = said_by(action)
    if who.startswith("assistant") and quotes_its_point(str(action["title"])):
        return "its point is a quotation: the source's words, not the session's finding"
    if action["learning_type"] == "correction" and who.startswith("person"):
        return about_this_turn(str(action["title"]))
    # A cause that only narrates what the session's people did ("Someone hardened X
    # meanwhile", "Pulled latest main and built it") is how the work went, not what the code
    # does: no cause, whoever tells it (issue 34: the assistant's account of the work read as
    # a cause, in the first runs of ten sets; this reads its history form by tense and actor).
    if action["learning_type"] == "bug-fix" and narrates_events(
        str(action.get("root_cause") or "")
    ):
        return "its cause narrates what happened in the session, not what the code does"
    if action["learning_type"] == "bug-fix" and who.startswith("assistant"):
        cause = str(action.get("root_cause") or "")
        # with no cause apart from its fix, the note is titled by the fix ("The fix is to X")
        return own_account(cause or str(action["title"]), cause=bool(cause))
    return ""


def _tags(category: str, codes: Sequence[str]) -> list[str]:
    tags = [category.lower().replace(" ", "-")] if category != "Unknown" else []
    tags += [c.split()[0].strip("`'\"").lower() for c in codes[:3] if c.split()]
    return list(dict.fromkeys(tags))


def _action(
    *,
    title: str,
    rule: str,
    quote: str,
    before: str,
    who: str,
    confidence: str,
    learning_type: str,
    category: str,
    cause: str = "",
    fix: str = "",
    confirmed: str = "",
    asked: str = "",
) -> dict[str, Any]:
    codes = [c for c in _CODE.findall(f"{title} {rule} {quote}") if "REDACTED" not in c]
    # A markdown heading ("## Root Cause") labels the section after it: it is never a field's
    # value, whatever line of a report a reader took it from.
    cause, fix = ("" if is_heading(x) else x for x in (cause, fix))
    body = _evidence(quote, who) + (f"\n\nConfirmed by {confirmed}." if confirmed else "")
    return {
        "action": "CREATE",
        "title": _title(title),
        "key_insight": _title(title),
        "rule": rule,
        "root_cause": cause,
        "fix": fix,
        "problem": (
            f"Right after the person asked: “{asked.strip()[:300]}”"
            if asked
            else f"Right after the assistant said: “{before.strip()[:300]}”"
            if before
            else ""
        ),
        "body": body,
        "confidence": confidence,
        "confidence_num": {MEDIUM: 0.6, LOW: 0.4}[confidence],
        "learning_type": learning_type,
        "category": category if category != "Unknown" else "general",
        "tags": _tags(category, codes),
        "entities": [{"name": c, "type": "code"} for c in dict.fromkeys(codes[:4])],
    }


def _bug_fix(
    cause: str,
    fix: str,
    *,
    quote: str,
    before: str,
    who: str,
    confidence: str,
    category: str,
    confirmed: str = "",
) -> dict[str, Any]:
    """A bug-fix note of a cause and its fix (``""`` when none was said): titled "cause: fix",
    its rule the fix."""
    return _action(
        title=f"{cause}: {fix[:1].lower() + fix[1:]}" if fix else cause,
        rule=(_cap(fix) + ".") if fix else "",
        quote=quote,
        before=before,
        who=who,
        confidence=confidence,
        learning_type="bug-fix",
        category=category,
        cause=_cap(cause) + ".",
        fix=(_cap(fix) + ".") if fix else "",
        confirmed=confirmed,
    )


def chunk_actions(
    chunk: Chunk,
    signals: Sequence[Signal],
    green: Callable[[int], bool] | None = None,
    past: Callable[[int], bool] | None = None,
    abandoned: Callable[[int], bool] | None = None,
    superseded: Callable[[int, str], bool] | None = None,
    verified: Callable[[int], bool] | None = None,
    reply_after: Callable[[int], str] | None = None,
    rest_of_turn: Callable[[int, str], str] | None = None,
    acted_on: Callable[[int], int | None] | None = None,
    done_after: Callable[[int], str] | None = None,
    turn_before: Callable[[int], str] | None = None,
    adopted: Callable[[int], bool] | None = None,
    otherwise: Callable[[int], Confirmation | None] | None = None,
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
    of success), ``""`` when it was not.
    """
    lines = _lines(chunk)

    def at(sig: Signal) -> tuple[int, str, str]:
        offset = sig.line_index - chunk.start
        if 0 <= offset < len(lines):
            return offset, lines[offset][0], lines[offset][1]
        return -1, "", sig.text

    def before(offset: int) -> str:
        """The assistant's turn just before the line (its lines in the chunk, joined)."""
        said: list[str] = []
        for role, text in reversed(lines[: max(offset, 0)]):
            if role == "assistant":
                said.insert(0, text.strip())
            elif said:
                break
        return " ".join(s for s in said if s)

    def cause_near(offset: int) -> str:
        order = sorted(range(len(lines)), key=lambda i: abs(i - offset))
        for i in order:
            if lines[i][0] != "assistant" and i != offset:
                continue
            found = [s for s in sentences(lines[i][1]) if _CAUSE.search(s)]
            if found:
                return _trim(found[0])
        return ""

    def confirmation(offset: int, closing: bool = True) -> Confirmation | None:
        """Who confirmed what the assistant said at ``offset``: the person's next reply, or
        a green test run; None when nobody did (or the person said no). ``closing``: may the
        person keeping the edits an account closes confirm it (``Confirmed.CLOSING``)?"""
        replies = [said.strip() for role, said in lines[offset + 1 :] if role == "user"]
        record = chunk.records[offset] if 0 <= offset < len(chunk.records) else None
        if not replies and reply_after is not None and record is not None:
            replies = [reply_after(record).strip()]  # past the chunk's context
        reply = next((r for r in replies if r), "")
        if reply and _CONFIRMED.match(reply):
            return Confirmation(Confirmed.WORD, f"the person: “{reply[:200]}”")
        if reply and _DENIED.match(reply):
            return None
        # the cause restated in the turn right after the person said the guess was it
        asked = _asked_before(lines, offset, challenge=False)
        if asked and _THAT_WAS_IT.match(asked) and "?" not in asked:
            return Confirmation(Confirmed.WORD, f"the person, just before: “{asked[:200]}”")
        if green is not None and 0 <= offset < len(chunk.records) and green(chunk.records[offset]):
            return Confirmation(Confirmed.AFTER, "a green test run")
        if past is not None and 0 <= offset < len(chunk.records) and past(chunk.records[offset]):
            return Confirmation(
                Confirmed.AFTER,
                "the next test run getting past the error, on the way to a green run",
            )
        if verified is not None and record is not None and labelled_fix(offset):
            return (
                Confirmation(Confirmed.ACCOUNT, "a passing test run after the session's edits")
                if verified(record)
                else None
            )
        edit = acted_on(record) if acted_on is not None and record is not None else None
        if edit is not None and record is not None and not restated(offset, record, edit):
            return Confirmation(
                Confirmed.AFTER,
                "the assistant's edit right after it and the passing test run that followed",
            )
        if otherwise is not None and record is not None:
            how = otherwise(record)
            return (
                None if how is not None and how.kind is Confirmed.CLOSING and not closing else how
            )
        return None

    def restated(offset: int, record: int, edit: int) -> bool:
        """Did the assistant state another cause after the line and before its edit? Then the
        edit acted on that one ("The issue is X. Let me check" then "The issue is Y")."""
        for other in signals:
            at_ = other.line_index - chunk.start
            if at_ <= offset or not (0 <= at_ < len(chunk.records)) or other.speaker == "person":
                continue
            if other.kind in (*CAUSE_KINDS, DIAGNOSIS) and record < chunk.records[at_] < edit:
                return True
        return False

    def section(offset: int) -> list[str]:
        """The assistant's lines after the one at ``offset`` to the person's next turn, past
        the chunk's context too (a report's section may be longer than the context)."""
        out = [lines[offset][1]]
        for role, said in lines[offset + 1 :]:
            if role == "user":
                return out[1:]
            out.append(said)
        if rest_of_turn is not None and 0 <= offset < len(chunk.records):
            out += rest_of_turn(chunk.records[offset], out[-1]).split("\n")
        return out[1:]

    def under_headed_cause(offset: int) -> bool:
        """Is the line at ``offset`` in a section a cause heads ("### Bug 2: Missing
        `exec` import"), the assistant's lines back to that heading?"""
        for role, said in reversed(lines[:offset]):
            if role != "assistant":
                return False
            if _SECTION_END.match(said):
                return bool(headed_cause(said))
        return False

    def labelled_fix(offset: int) -> str:
        """The fix the assistant labels on the line after its labelled cause ("**Root
        cause:** X" then "**Fix:** Y", in one turn), else ``""``."""
        if not (0 <= offset < len(lines)):
            return ""
        if headed_cause(lines[offset][1]):
            return section_fix(section(offset))
        if not _LABELLED_CAUSE.match(_plain(lines[offset][1])):
            return ""
        for role, said in lines[offset + 1 : offset + 3]:
            if role != "assistant":
                return ""
            m = _LABELLED_FIX.match(_plain(said))
            if m:
                return m.group("fix")
        return ""

    def said_after(offset: int) -> str:
        """The assistant's words from ``offset`` to the person's next reply (past the chunk's
        context too, when the turn goes on beyond it)."""
        out: list[str] = []
        for role, said in lines[offset:]:
            if role == "user":
                return "\n".join(out)
            out.append(said.strip())
        if rest_of_turn is not None and out and 0 <= offset < len(chunk.records):
            # only a fix the assistant names as one ("The fix for issue #2: ..."), not whatever
            # else it went on to do
            rest = rest_of_turn(chunk.records[offset], out[-1])
            out += [x for x in rest.split("\n") if _FIX.search(x)][:1]
        return "\n".join(out)

    def checked(action: Mapping[str, Any], how: Confirmation, offset: int) -> bool:
        """A cause a run confirmed keeps its fix only when that fix was what the session did
        before the run: every thing the fix names in a code span is in what the assistant's
        tool calls did after it ("use `:auto` mode", then an edit that sets `{:shared,
        self()}`: the run checked another fix). A person's word confirms what was said."""
        if how.kind in (Confirmed.WORD, Confirmed.ACCOUNT) or done_after is None:
            return True  # a person's word, or an account of work a run had already checked
        if not (0 <= offset < len(chunk.records)):
            return True
        if how.kind is Confirmed.CLOSING:
            # the edits came before the account: what the stretch did from the person's turn
            # (or the chunk's first line) on is what the person kept
            spoke = [i for i in range(offset) if lines[i][0] == "user"]
            since = chunk.records[spoke[-1]] if spoke else chunk.records[0] - 1
            return fix_was_done(str(action.get("fix") or ""), done_after(since))
        return fix_was_done(str(action.get("fix") or ""), done_after(chunk.records[offset]))

    out: list[dict[str, Any]] = []
    for sig in signals:
        offset, role, text = at(sig)
        person = sig.speaker == "person" and role in ("user", "")
        if person and sig.tier == HIGH and sig.kind in RULE_KINDS:
            record = chunk.records[offset] if 0 <= offset < len(chunk.records) else None
            asked = before(offset)
            if turn_before is not None and record is not None:
                asked = turn_before(record) or asked
            answer = answered_questions(text, asked)
            if answer is not None:
                if answer[0]:
                    out.append(
                        _action(
                            title=answer[0],
                            rule=answer[1],
                            quote=text,
                            before=before(offset),
                            who="person, answering the assistant's questions",
                            confidence=MEDIUM,
                            learning_type="correction",
                            category=sig.category,
                        )
                    )
                continue  # a terse answer: its rule is the question's, or there is none
            if reports_a_try(text):
                continue  # "nope I don't see it. $ ln -s ...", "I didn't tell you to undo it"
            if opens_mid_sentence(lines, offset) or rules_only_quoted(text):
                continue  # a piece of a wrapped remark, or words the person quotes: no rule
            rule = _named_idea(_whole_rule(text), before(offset))
            if rule is None:
                continue  # "it's a bad idea" about something nobody named
            record = chunk.records[offset] if 0 <= offset < len(chunk.records) else None
            if asked_for(rule) and not (adopted and record is not None and adopted(record)):
                continue  # "Can we have always a table ...?": a feature of this task's output
            if declines(text, before(offset)):
                continue  # "no don't set it" to "Want me to set X?": an offer declined
            if superseded is not None and superseded(sig.line_index, rule):
                continue  # a rule the person later challenged: written before its correction
            if pointed_out(rule):
                continue  # "keep in mind that new file will be at the same folder": context
            words = rule.split()
            named = len(words) >= 2 and bool(_NAMED.search(rule) and _IMPERATIVE.search(rule))
            if not named and (
                len(words) < MIN_WORDS or (len(words) < 6 and not _IMPERATIVE.search(rule))
            ):
                continue  # "only for this repo": a reply that scopes something, no rule
            vague = bool(_VAGUE.match(rule))
            stated = _rules(text)
            out.append(
                _action(
                    title=rule,
                    rule=stated
                    if stated and rule.rstrip(".") in stated
                    else _cap(rule.rstrip(".")) + ".",
                    quote=text,
                    before=before(offset),
                    who="person",
                    confidence=LOW if vague else MEDIUM,
                    learning_type="correction",
                    category=sig.category,
                    cause=cause_near(offset) if _CAUSE.search(text) else "",
                )
            )
        elif person and sig.tier == LOW and sig.kind == "correction":
            if reports_a_try(text):
                continue  # a report of a failed try, or of one action of this turn
            reply = _trim(text)
            count = len(reply.split())
            if count < 6 or (count < 8 and not _REASON.search(reply)):
                continue  # "no", "not like this": a rejection without a lesson in it
            if _WISH.match(reply):
                continue  # "no, I want to use my login": this person's wish for this task
            titled = _named_idea(reply, before(offset))
            if titled is None:
                continue  # "it's a bad idea, since ..." about something nobody named
            out.append(
                _action(
                    title=titled,
                    rule=_cap(titled),
                    quote=text,
                    before=before(offset),
                    who="person",
                    confidence=LOW,
                    learning_type="correction",
                    category=sig.category,
                )
            )
        elif person and sig.tier == LOW and sig.kind == SUGGESTION and offset >= 0:
            # a suggestion is a hunch about this task until the assistant grants it: read only
            # when the assistant's reply opens by granting it ("Good point — ...") and says no
            # point of its own (which the concession's reader writes instead). The grant is its
            # confirmation, as a green run is a stated cause's: the way the person proposed is
            # the one the work then took, and the person's words say it
            granted = [x for role, x in lines[offset + 1 : offset + 2] if role != "user"]
            following = [x for role, x in lines[offset + 2 : offset + 3] if role != "user"]
            if granted and CONCESSION_RE.match(granted[0]):
                grant = granted[0]
                if not (
                    cited_rule(grant, following[0] if following else "", text, sig)
                    or _conceded(grant, text, sig)
                ):
                    action = granted_suggestion(text, grant, sig)
                    if action:
                        out.append(action)
        elif person and sig.tier == HIGH and sig.kind == "root-cause":
            action = _persons_cause(text, before(offset), sig)
            if action:
                out.append(action)
        elif sig.kind in FIX_KINDS and sig.tier in (HIGH, MEDIUM):
            if abandoned is not None and abandoned(sig.line_index):
                continue  # a fix the person turned down for another one
            action = _fix_action(text, cause_near(offset), before(offset), sig)
            if action:
                out.append(action)
        elif sig.kind == CONCESSION and sig.speaker != "person" and offset >= 0:
            asked = _asked_before(lines, offset, in_turn=True)
            following = [said for role, said in lines[offset + 1 : offset + 2] if role != "user"]
            action = (
                cited_rule(text, following[0] if following else "", asked, sig)
                or _conceded(text, asked, sig)
                if asked
                else None
            )
            if action:
                out.append(action)
        elif sig.kind == DIAGNOSIS and sig.speaker != "person" and offset >= 0:
            if under_headed_cause(offset):
                continue  # a line of a cause's section: its heading states the cause
            # a cause said plainly: a note only when a green run or the person confirms it.
            # Not the person keeping the edits of an account it is a line of: an account says
            # what was done, its caveats and next steps ("If the field doesn't exist, ..."), and
            # only a line that names itself the cause states what the edits acted on
            how = confirmation(offset, closing=False)
            if how:
                action = _confirmed_cause(
                    text, text, how.text, before(offset), sig, labelled_fix(offset)
                )
                if action and checked(action, how, offset):
                    out.append(action)
        elif sig.kind in CAUSE_KINDS and sig.tier in (HIGH, MEDIUM):
            if offset >= 0 and headed_cause(text) and labels_its_cause(section(offset)):
                continue  # the section's "**Root cause**:" line states it, with its fix
            action = _cause_action(text, before(offset), sig)
            how = confirmation(offset) if action is None and offset >= 0 else None
            if how:
                action = _confirmed_cause(
                    text, said_after(offset), how.text, before(offset), sig, labelled_fix(offset)
                )
                if action and not checked(action, how, offset):
                    action = None
            if action:
                out.append(action)
    return out


_SEEN = re.compile(r"^(?:i see|ah|ok(?:ay)?|right|got it|good|great)\b[\s,.:;!–—-]*", re.I)
_GUESS = re.compile(
    r"\b(?:i|i'm|i've|i'll|my|mine|me|we|we're|our|ours|might|may|maybe|probably|perhaps|possibly|seems?|"
    r"could|likely|too many)\b",
    re.I,
)
_IDENTIFIER = re.compile(r"\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*|\b\w+_\w+|\b\w+\(\)")

# The person's reply that confirms what the assistant found, and one that denies it.
_CONFIRMED = re.compile(
    r"^(?:(?:yes|yep|yeah|right|correct|exactly|perfect|great|nice|good catch|confirmed)\b"
    r"|(?:that|it|this)(?:'s|\s+was)\s+it\b"
    r"|(?:that|it|this)\s+(?:worked|works|fixed it|fixes it|did it|did the trick|solved it)\b"
    r"|(?:it\s+)?works now\b|all green\b|tests? pass"
    # the person asking for the fix of what was found ("fix all the bugs", "go ahead and fix
    # them"): the findings accepted as they were stated, not a new task ("Fix the linting
    # issues:" and a pasted log names its own problem)
    r"|(?:(?:ok(?:ay)?|so|then|please|go ahead and)\W+)*fix (?:all |both )?(?:of )?"
    r"(?:them|it|those|these|the (?:bugs?|issues?|findings?|problems?))\b(?!\s*:))",
    re.I,
)
_DENIED = re.compile(r"^(?:no|nope|not|wrong|that'?s not|still)\b", re.I)
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
            or _POINTER.match(stated)
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
    return "" if announces_only(fix) else fix


_DONE = re.compile(r"^(?P<verb>[A-Z][a-z]+)\b(?P<rest>.*)$")


def _plain(line: str) -> str:
    return _MARKUP.sub("", line).replace("**", "").strip()


def _done(fix: str) -> str:
    """A fix as what to do: "Moved X to Y, which ..." -> "Move X to Y, which ..."."""
    first = sentences(fix)[0].rstrip(" .") if fix.strip() else ""
    m = _DONE.match(first)
    if m is None:
        return first
    verb = verbs.base(m.group("verb").lower())  # "Moved" -> "move", "Gave" -> "give"
    return f"{verb[:1].upper()}{verb[1:]}{m.group('rest')}"


# "Found the actual bug!" alone on its line: the cause is what the assistant says next.
_FOUND = re.compile(
    r"^\W*(?:i\s+)?found (?:it|the (?:real |actual )?(?:bug|problem|issue|cause))\W*$", re.I
)
# The same announcement opening a line that goes on with the cause ("Found it! X", "Perfect!
# I found the issue. X", "Found it: X", "Found the bug - X"): what follows it is the cause.
_EXCLAIMED = re.compile(r"^\W*(?:perfect|great|excellent|ah|aha|ok(?:ay)?)\W*$", re.I)
_FOUND_LEAD = re.compile(
    r"^\W*(?:(?:perfect|great|ah|ok(?:ay)?)\W+)?(?:i\s+)?found (?:it|the (?:real |"
    r"actual )?(?:bug|problem|issue|cause))(?:\s*[:—–]\s*|\s+-\s+|\W*$)",
    re.I,
)
# A sentence that points at what the reader should look at, not a statement of the cause.
_POINTER = re.compile(r"^\W*(?:look|see|check|note|here)\b", re.I)


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
_CAUSE_LEAD = re.compile(
    r"^(?:it\s+)?(?:turns? out|turned out|the root cause (?:was|is)|the (?:real |actual )?"
    r"(?:problem|issue|bug|culprit) (?:was|is)|(?:the )?root cause\s*(?=:)|the bug\s*(?=:))"
    # "the issue is clear — X": X is the cause
    r"(?:\s+(?:now\s+)?(?:clear|simple|obvious)\s*[:—–-]+)?(?:\s+that)?[,:]?\s+",
    re.I,
)


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
_POINTER = re.compile(
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
        m = _POINTER.match(sentence)
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


def _folded(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


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


def chunk_action(chunk: Chunk, signals: Sequence[Signal]) -> dict[str, Any] | None:
    """The chunk's strongest lesson, or None when it holds none."""
    found = chunk_actions(chunk, signals)
    return found[0] if found else None


def _lines(chunk: Chunk) -> list[tuple[str, str]]:
    return [_strip_role(line) for line in chunk.text.split("\n")]


def write(prepared: Prepared) -> dict[str, Any]:
    """The heuristic writer's answer for a prepared entry: ``{"actions": [...]}``.

    One CREATE per lesson, reworded twins removed (a person's rule wins over the assistant's
    fix that restates it). Twins of notes already in the KB are the drain's check.
    """
    candidates: list[dict[str, Any]] = []
    transcript = prepared.transcript
    ran = commands_run(transcript) if transcript else []
    green = green_around(transcript, ran) if transcript else None
    past = past_the_error(transcript, ran) if transcript else None
    abandoned = abandoned_fixes(prepared.transcript) if prepared.transcript else None
    superseded = challenged_rules(prepared.transcript) if prepared.transcript else None
    verified = verified_edits(transcript, ran) if transcript else None
    reply_after = next_reply(prepared.transcript) if prepared.transcript else None
    rest = rest_of_turn(prepared.transcript) if prepared.transcript else None
    acted = acted_on(transcript, ran) if transcript else None
    done = done_after(transcript, ran) if transcript else None
    asked = turn_before(prepared.transcript) if prepared.transcript else None
    kept_as_rule = adopted_as_rule(prepared.transcript) if prepared.transcript else None
    otherwise = confirmed_otherwise(transcript, ran) if transcript else None
    # a cause stated in words is confirmed by the person keeping the edit, too
    stated = confirmed_otherwise(transcript, ran, shipped=True) if transcript else None
    for chunk in prepared.chunks:
        candidates += chunk_actions(
            chunk,
            chunk.signals,
            green,
            past,
            abandoned,
            superseded,
            verified,
            reply_after,
            rest,
            acted,
            done,
            asked,
            kept_as_rule,
            stated,
        )
    if prepared.transcript and prepared.chunks:
        since = min((r for c in prepared.chunks for r in c.records), default=0)
        candidates += challenges_acted_on(prepared.transcript, since)
        candidates += standing_instructions(prepared.transcript, since)
    # a remark on this turn, or the assistant's account of its own work, is no lesson: dropped
    # before twins are weighed, so it never stands in for a note that states the lesson
    candidates = [a for a in candidates if not no_lesson(a)]
    # stable: person's rules first, then a cause with its fix before one without
    candidates.sort(key=lambda a: (a["confidence"] != MEDIUM, not a["fix"]))
    kept: list[dict[str, Any]] = []
    for action in candidates:
        text = f"{action['title']} {action['rule']}"
        if not any(
            twins(text, f"{k['title']} {k['rule']}")
            or same_cause(action, k)
            or told_again(action, k)
            for k in kept
        ):
            kept.append(action)
    if transcript and prepared.chunks:
        since = min((r for c in prepared.chunks for r in c.records), default=0)
        # what the assistant wrote down at the person's word restates a lesson the session's
        # other notes may hold already: one naming the same code as a kept note is told twice
        for action in written_guidance(transcript, since):
            text = f"{action['title']} {action['rule']}"
            if no_lesson(action):
                continue
            # one turn of the person's, one note: the rule the assistant wrote down from it
            # (its memory, an instruction file) says it better than the turn's raw sentence,
            # and takes the place of the note read from the same words
            same = [i for i, k in enumerate(kept) if _same_turn(action, k)]
            if same:
                kept[same[0]] = action
            elif not any(
                twins(text, f"{k['title']} {k['rule']}")
                or _same_code(action, k)
                or told_again(action, k)
                for k in kept
            ):
                kept.append(action)

        def new_lesson(action: Mapping[str, Any]) -> bool:
            """Does the note hold a lesson, and one no note kept so far holds?"""
            text = f"{action['title']} {action['rule']}"
            return not no_lesson(action) and not any(
                twins(text, f"{k['title']} {k['rule']}")
                or same_cause(action, k)
                or told_again(action, k)
                for k in kept
            )

        # a finding the person relayed, acted on and confirmed: after what the writer read
        # otherwise, so a note already holding its lesson keeps its place
        for action in relayed_findings(transcript, ran, since):
            if new_lesson(action):
                kept.append(action)
        # a cause read from the session's structure comes after every other note: it never
        # takes the place of one the writer read otherwise
        for action in [
            *linked_causes(transcript, ran, since, green, acted, otherwise, done),
            *reported_causes(transcript, ran, since),
            # a cause stated, checked over turns of its own, then fixed and confirmed
            *checked_causes(transcript, ran, since, otherwise, done),
            # a diagnosis, too, often comes before the first signal (an investigation the
            # person asked for): read from where this drain's reading starts
            *diagnosed_causes(transcript, ran, prepared.floor_record),
            # a fix made by a command may come before the first signal: read from where this
            # drain's reading starts (an earlier drain's part excepted)
            *command_fixes(transcript, ran, prepared.floor_record),
            # and so may a command run again differently (outside the sandbox, with a flag)
            *rerun_fixes(transcript, ran, prepared.floor_record),
            # and so may a limit of the environment worked around by another command
            *replaced_commands(transcript, ran, prepared.floor_record),
            # or one the person says how to get past
            *told_workarounds(transcript, ran, prepared.floor_record),
        ]:
            if new_lesson(action):
                kept.append(action)
    return {"actions": kept[:MAX_ACTIONS]}


def same_cause(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Two causes the assistant found in one session that name the same code thing (a code
    span of its words: "the test JSONL doesn't include `uuid` fields" and "the `uuid` field
    is auto-generated") are one lesson told twice. A person's rules are never merged so."""
    if a["learning_type"] != "bug-fix" or b["learning_type"] != "bug-fix":
        return False
    return bool(_cause_codes(a) & _cause_codes(b))


def told_again(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Two rules the person gave in one session that tell the same act (``kb.twins.same_act``:
    the same verb, negated on both or neither, done to the same things) are one rule said
    again in other words ("do not create any pr or issue without my approval", later "do
    not open issues or prs or commit"), though they share too few words for ``twins``. Only
    the person's rules: a cause or a fix the assistant found, or a finding the person relays,
    is one lesson by what it names (``same_cause``), not by its verb."""
    return all(
        said_by(n).startswith("person") and n["learning_type"] != "bug-fix" for n in (a, b)
    ) and same_act(str(a["title"]), str(b["title"]))


def _same_code(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Do two notes name one code thing (a code span of their titles and rules)?"""
    return bool(_codes(f"{a['title']} {a['rule']}") & _codes(f"{b['title']} {b['rule']}"))


def _codes(text: str) -> set[str]:
    return {c.strip().lower() for c in _CODE.findall(text) if re.search(r"[a-z]{3}", c, re.I)}


def _cause_codes(action: Mapping[str, Any]) -> set[str]:
    return _codes(str(action.get("root_cause") or action["title"]))


def green_around(transcript: Transcript, ran: Sequence[Ran] | None = None) -> Callable[[int], bool]:
    """``green(record)``: did the tests go from red to green across that record? The last
    test run before it (since the person last spoke) failed and the first one after it (before
    the person speaks again) passed. A run is a test command the assistant ran and a summary
    ``testruns`` can read."""
    ran = commands_run(transcript) if ran is None else ran
    runs = [(r.result, r.run.green) for r in ran if r.run is not None]
    persons = [t.record for t in transcript.turns if t.speaker == PERSON]

    def green(record: int) -> bool:
        start = max((r for r in persons if r <= record), default=-1)
        end = min((r for r in persons if r > record), default=None)
        before = [ok for at, ok in runs if start < at <= record]
        after = [ok for at, ok in runs if at > record and (end is None or at < end)]
        return bool(before) and not before[-1] and bool(after) and after[0]

    return green


def verified_edits(
    transcript: Transcript, ran: Sequence[Ran] | None = None
) -> Callable[[int], bool]:
    """``verified(record)``: were the session's edits since the person last spoke followed by a
    passing test run? Between the person's turn before the record and the record, a file was
    edited, and the last test run came after the last edit and passed."""
    edits = [c.record for c in transcript.tool_calls if c.name in EDIT_TOOLS]
    ran = commands_run(transcript) if ran is None else ran
    runs = [(r.result, r.run.green) for r in ran if r.run is not None]
    persons = [t.record for t in transcript.turns if t.speaker == PERSON]

    def verified(record: int) -> bool:
        start = max((r for r in persons if r <= record), default=-1)
        edited = [at for at in edits if start < at <= record]
        ran = [(at, ok) for at, ok in runs if start < at <= record]
        return bool(edited) and bool(ran) and ran[-1][1] and ran[-1][0] > edited[-1]

    return verified


def acted_on(
    transcript: Transcript, ran: Sequence[Ran] | None = None
) -> Callable[[int], int | None]:
    """``acted(record)``: did the assistant act on what it said at that record and pass? Before
    the person speaks again, it edited files (reading first is fine), no test ran before its
    first edit, and the first test run after that edit passed (a cause caught by reading, or a
    change the person asked for, made and then checked). The first edit's record, else None."""
    ran = commands_run(transcript) if ran is None else ran
    runs = {r.call.record: r.run.green for r in ran if r.run is not None}  # call record -> green
    order = sorted(transcript.tool_calls, key=lambda c: c.record)
    persons = [t.record for t in transcript.turns if t.speaker == PERSON]

    def acted(record: int) -> int | None:
        end = min((r for r in persons if r > record), default=None)
        later = [c for c in order if c.record > record and (end is None or c.record < end)]
        edit = next((i for i, c in enumerate(later) if c.name in EDIT_TOOLS), None)
        if edit is None or any(c.record in runs for c in later[:edit]):
            return None
        tested = [runs[c.record] for c in later[edit:] if c.record in runs]
        return later[edit].record if tested and tested[0] else None

    return acted


_TOKEN = re.compile(r"[A-Za-z_]\w{2,}")


# The person's report that the thing works ("Deploy works now!!", "ok, all good now"), and
# what makes a report a new complaint instead ("works now, but the tables are gone?").
_SUCCESS = re.compile(
    r"\b(?:works?|worked|working|good|fine|fixed|pass(?:es|ed|ing)?|green|succeed(?:s|ed)?|"
    r"successful(?:ly)?|resolved|solved)\b",
    re.I,
)
_COMPLAINT = re.compile(
    r"\?|n't\b|\b(?:but|still|not|no|never|however|though|again|except|errors?|fail\w*|"
    r"broken|breaks?|wrong|issues?|problems?|missing|weird|strange)\b",
    re.I,
)
_FILLER = re.compile(
    r"\b(?:ok(?:ay)?|yes|yeah|yep|great|nice|thanks?|thank you|cool|perfect|awesome|it|that|"
    r"this|everything|all|now|the|is|are|was|were|seems?|looks?|to|be|and|so|just|really|"
    r"indeed|finally|very|also|nicely)\b",
    re.I,
)
SUCCESS_WORDS = 12


def reports_success(reply: str, failed: str) -> bool:
    """Is the person's turn a short report that the thing which failed works now ("OK. Deploy
    works now!!" after a failing deploy)? Short, a success word, no new complaint (a question,
    a "but", a "still", an error), and any thing it names beyond that is in ``failed`` (what
    the person and the assistant said about the failure): "the login page works now" after a
    failing deploy is about something else."""
    said = clean(reply).strip()
    if not said or len(said.split()) > SUCCESS_WORDS or _COMPLAINT.search(said):
        return False
    m = _SUCCESS.search(said)
    if m is None:
        return False
    subject = _TOKEN.findall(_FILLER.sub(" ", said[: m.start()]))
    known = {w.lower()[:5] for w in _TOKEN.findall(failed)}
    return all(w.lower()[:5] in known for w in subject)


# The person's turn that keeps the work as it is, its first words a request to record or ship
# it: "commit", "commit and push", "commit the changes", "make a pr", "open a PR", "push it",
# "ship it", "merge it". A request that presumes the fix held, said after seeing it, as "that
# worked" is; a complaint in it (``_COMPLAINT``: "commit, but the tables are gone?") or a long
# brief (a new task that opens with "commit") keeps nothing. The person's report of having
# kept it themselves ("pushed", "I committed and pushed!!", "merged it") keeps it as well.
_SHIP = re.compile(
    r"^(?:(?:ok(?:ay)?|good|great|nice|cool|perfect|thanks?|alright|now|please|go ahead and)"
    r"\W+)*(?:commit|push|ship|merge|make an? (?:pr|pull request)|open an? (?:pr|pull request)|"
    r"create an? (?:pr|pull request)|raise an? (?:pr|pull request)|"
    r"(?:i(?:\s+have|'ve)?\s+|(?:it'?s|it\s+is|(?:has\s+)?been)\s+)?"
    r"(?:commit+ed|pushed|merged|shipped))\b",
    re.I,
)
SHIP_WORDS = 12


def ships(reply: str) -> bool:
    """Is the person's turn a short request to commit, push or open a PR of the work as it
    is ("commit and push", "ok make a pr"), or a report of having done so ("pushed"), with no
    complaint in it?"""
    said = clean(reply).strip()
    return (
        bool(_SHIP.match(said)) and len(said.split()) <= SHIP_WORDS and not _COMPLAINT.search(said)
    )


def confirmed_otherwise(
    transcript: Transcript, ran: Sequence[Ran] | None = None, shipped: bool = False
) -> Callable[[int], Confirmation | None]:
    """``how(record)``: was the cause the assistant stated at that record acted on and then
    confirmed by something other than a test run? Before the person speaks again the assistant
    edits a file, and after that edit either (a) a command that failed since the person last
    spoke (an error result, or a red test run) is run again, the same command, and now
    succeeds with other output; or (b) the person's next turn, or a later one before the
    assistant edits anything else, reports that it works
    (``reports_success``; a report of what the edit did, so the fix is checked against it as
    a run's is). A rerun that still fails, a success before the edit, or the person's thanks
    with a new complaint confirm nothing. ``shipped``: (c) the person's next turn asking to keep
    the edit as it is (``ships``: "commit the changes", "make a pr") confirms it too, for a
    cause the assistant stated in words; the readers of a cause from the session's structure
    leave it out, since what they read after such a turn is mostly an account of the work
    ("Both feedback items are fixed and pushed", "Server is live": four of four over the tune
    sets). (d) With ``shipped``, a cause stated after the edits it accounts for (the stretch
    since the person spoke edited before it and nothing after it) is confirmed by the person's
    next turn keeping them (``ships``), the fix checked against those edits
    (``Confirmed.CLOSING``). None when nothing confirmed it."""
    ran = commands_run(transcript) if ran is None else ran
    commands = [  # call record, command, failed, output
        (r.call.record, r.command.strip(), r.is_error or (r.run is not None and not r.run.green),
         r.output.strip())
        for r in ran
    ]  # fmt: skip
    edits = sorted(c.record for c in transcript.tool_calls if c.name in EDIT_TOOLS)
    turns = [t for t in transcript.turns if t.speaker in (PERSON, ASSISTANT)]
    persons = [t.record for t in turns if t.speaker == PERSON]

    def how(record: int) -> Confirmation | None:
        start = max((r for r in persons if r <= record), default=-1)
        end = min((r for r in persons if r > record), default=None)
        edit = next((e for e in edits if e > record and (end is None or e < end)), None)
        if edit is None:
            # (d) the cause stated in the closing account of a stretch that edited: the
            # assistant edits first and says what it found after ("Found the issue: X. ## Fix
            # applied ..."), nothing edited after it before the person speaks. Its edits came
            # before it; only the person's next turn keeping them confirms it, as (c) does
            return closes_edits(record, start, end) if shipped else None
        failing = {cmd: out for at, cmd, bad, out in commands if start < at <= record and bad}
        for at, cmd, bad, out in commands:
            if at <= edit or (end is not None and at > end) or cmd not in failing:
                continue
            if not bad and out != failing[cmd]:
                said = f"the failing command run again after the edit: `{cmd[:120]}`"
                return Confirmation(Confirmed.AFTER, said)
            break  # the first rerun after the edit decides
        if end is None:
            return None
        failed = "\n".join(t.text for t in turns if start <= t.record <= record)
        # the person's next turn, or a later one while nothing else was edited in between (a
        # question about something else first: "Seems you did commit?", then "Deploy works now")
        later = min((e for e in edits if e > end), default=None)
        for turn in turns:
            if turn.speaker != PERSON or turn.record < end:
                continue
            if later is not None and turn.record > later:
                break  # the assistant changed something else since: the success is of that
            if reports_success(turn.text, failed):
                # the person reports what the edit did, not what was said: the fix is checked
                said = clean(turn.text).strip()[:200]
                return Confirmation(
                    Confirmed.AFTER, f"a success the person reported after the edit: “{said}”"
                )
            if shipped and turn.record == end and ships(turn.text):
                # the person's next word keeps the edit ("commit and push"): a request that
                # presumes the fix held, of what was done, so the fix is checked as a run's is
                said = clean(turn.text).strip()[:200]
                return Confirmation(
                    Confirmed.AFTER, f"a request of the person's to keep the edit, next: “{said}”"
                )
            if _FAILED.search(turn.text) or re.search(r"\bstill\b", turn.text, re.I):
                break  # it still fails: a later success is of something else
        return None

    def closes_edits(record: int, start: int, end: int | None) -> Confirmation | None:
        if end is None or not any(start < e < record for e in edits):
            return None  # nothing edited before it since the person spoke: a diagnosis alone
        said = next((t.text for t in turns if t.record == end), "")
        if ships(said):
            return Confirmation(Confirmed.CLOSING, f"{CLOSING}: “{clean(said).strip()[:200]}”")
        return None

    return how


# The words of a confirmation of a cause stated after the edits it accounts for
# (``confirmed_otherwise``'s (d), ``Confirmed.CLOSING``).
CLOSING = "the edits this account closes, kept by the person's next turn"


class Confirmed(enum.Enum):
    """How a cause was confirmed, as it tells what its fix is checked against (``checked`` in
    ``chunk_actions``): the code weighs this, never the words a note gives it."""

    WORD = "the person's word on what was said: the fix said is the fix confirmed"
    ACCOUNT = "a passing run after the edits an account of the work reports: checked already"
    AFTER = "something after the statement (a run, a rerun, the person's report of the edit)"
    CLOSING = "the person keeping the edits an account closes: checked against those edits"


class Confirmation(NamedTuple):
    """A cause's confirmation: its kind, and its words for the note ("Confirmed by ...")."""

    kind: Confirmed
    text: str


def _told(how: Confirmation | None) -> str:
    """A confirmation's words, ``""`` for none (the readers that take a confirmation's words)."""
    return how.text if how is not None else ""


# What says something fails: in an error's output, the person's complaint, the assistant's
# reading of a failure it was shown ("The health check is failing with HTTP 503").
_FAILED = re.compile(
    r"\b(?:fail\w*|errors?|exceptions?|crash\w*|broken|panic\w*|refused|denied|timed out|"
    r"traceback|does(?:n'?t| not) (?:work|exist)|not (?:to )?work\w*|(?:is|are) wrong|"
    # something that does not happen: "it's not updated in DB", "I don't see the button"
    r"(?:is|are|was|were|'s)(?:n'?t| not) \w+ed|(?:do|does|did)(?:n'?t| not) (?:see|show|appear))\b",
    re.I,
)
_URL = re.compile(r"\w+://\S+")
COMPLAINT_WORDS = 60  # longer is a brief or a pasted plan, whose failure words are the task's
# A sentence that states no fact: an intent or a plan ("Let me ...", "Now ..."), a list's item.
_LISTED = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s")
# "The linter wants ...": a linter's warning, which names its fix itself (``routine``).
_LINTER_SAID = re.compile(r"\b(?:the|a|this) linter\b", re.I)
_INTENT = re.compile(
    r"^\W*(?:let me|let's|i'?ll|i will|i'?m going to|we'?ll|(?:i |we )?need to|now|next|first|then|"
    r"looking|checking|here(?:'s| is| are))\b",
    re.I,
)
# Words that link anything to anything: what a statement shares with the failure or the edit
# only through them links nothing.
_GENERIC = frozenset(
    re.findall(
        r"\w+",
        "this that these those with from have been were there their which what when where while "
        "about after before into only also just then than them they some more most same other "
        "file files code line lines test tests error errors fail fails failed failing failure "
        "issue problem value values function method change changes thing things because still "
        "should would could does doesn need make made work works working true false none null "
        "return returns string data type name names path paths default found",
    )
)


# A version of three parts, not inside a longer word or number (``1.96.0``, the ``6.7.1`` of
# ``kdl@6.7.1``; not the ``2.5`` of a decimal, not an address ``10.0.0.1``).
_VERSION = re.compile(r"(?<![\w.])\d+\.\d+\.\d+(?![\w.]*\w)")


def _terms(text: str) -> set[str]:
    """The words of ``text`` that can link it to something (stemmed, generic ones out), and
    the versions it names (``1.93.0`` of "rustc 1.93.0", ``6.7.1`` of ``kdl@6.7.1``): a
    version names one thing as a name does."""
    out = set(_VERSION.findall(text))
    for word in re.findall(r"[A-Za-z_][\w.-]*\w|[A-Za-z_]\w+", text):
        for part in {word, *re.split(r"[._-]", word)}:
            if len(part) >= 4 and part.lower() not in _GENERIC:
                out.add(stem(part))
    return out


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
                t.record: [x for x in sentences(clean(t.text)) if _FAILED.search(x)]
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
        if len(opening.split()) <= COMPLAINT_WORDS and _FAILED.search(opening):
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
        if (
            action is not None
            and done is not None
            and not fix_was_done(action["fix"], done(record))
        ):
            continue  # the confirmation checked another fix than the one said (``checked``)
        if action is not None:
            out.append(action)
    return out


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
        if (
            action is not None
            and done is not None
            and not fix_was_done(action["fix"], done(record))
        ):
            continue  # the confirmation checked another fix than the one said
        if action is not None:
            out.append(action)
    return out


# The person's go-ahead for a fix the assistant diagnosed: their turn asks for the change to be
# made ("ok make a pr to fix", "yep, add the minimal fix", "let's add a fix to prevent this",
# "could we prevent this from failing again?"). A question asking only why, a denial, a new
# failure ("still ..."), a turn-down ("don't want", "revert") or a standing rule ("never make
# draft prs": a way of working, read as a rule elsewhere) is no go-ahead.
_FIX_REQUEST = re.compile(
    r"\b(?:fix|patch|prs?|pull request|go ahead|do it|do that|prevent|implement|apply|"
    r"address|handle)\b",
    re.I,
)
_NOT_GO_AHEAD = re.compile(
    r"^\W*(?:no|nope|not|wrong|why|what|how|is|are|does|do you)\b|\b(?:still|never|always)\b|"
    r"\b(?:don'?t|do not|doesn'?t|didn'?t) (?:want|work|think|agree|like)\b",
    re.I,
)


def goes_ahead(reply: str) -> bool:
    """Does the person's ``reply`` ask for the fix of what the assistant diagnosed to be made?
    A request for the change (fix it, make a PR, prevent it), not a denial, a question of why,
    a new failure or a turn-down."""
    reply = clean(reply).strip()
    return bool(
        reply
        and len(reply.split()) <= COMPLAINT_WORDS * 2
        and _FIX_REQUEST.search(reply)
        and not _NOT_GO_AHEAD.search(reply)
        and not _TURNED_DOWN.search(reply)
    )


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


# What a command changes: a word of one of its simple commands (``go install X``, ``npm ci``,
# ``gofmt -w``, ``mise upgrade``, ``cargo update -p X``). A command with none of them reads.
_CHANGES = frozenset(
    [
        "install",
        "reinstall",
        "upgrade",
        "update",
        "uninstall",
        "add",
        "remove",
        "rebuild",
        "tidy",
        "sync",
        "ci",
        "-w",
        "--write",
        "--fix",
        "fmt",
        "format",
        "clean",
        "rm",
        "mv",
        "cp",
        "mkdir",
        "ln",
        "chmod",
        "chown",
        "touch",
        "pin",
    ]
)


def changing_command(command: str) -> str:
    """The simple command of ``command`` that changes state (``go install ...`` of ``go install
    ... 2>&1 | tail -5``), ``""`` for a command line that only reads."""
    for words in map(without_redirections, simple_commands(command)):
        if (len(words) > 1 and any(w in _CHANGES for w in words[1:])) or words[:1] == ("rm",):
            return " ".join(words)
    return ""


# The verbs that install what a project already declares when no package is named: `npm ci`,
# `pnpm install --frozen-lockfile`, `uv sync`, `bundle install`.
_RESTORES = frozenset(["install", "ci", "sync"])


def installs_declared(command: str) -> bool:
    """Does ``command`` (a simple command, as ``changing_command`` gives it) install only what
    the project declares: an install, ``ci`` or ``sync`` followed by options alone, no package
    named? That brings a checkout to the state its lockfile says, a step every fresh or stale
    checkout needs and the tool's own message names ("node_modules is out of date, run pnpm
    install"): nothing a teammate learns. Naming what to install is not this (``go install
    golang.org/x/vuln/cmd/govulncheck@latest``, ``mix deps.get lazy_html``, ``pip install -r
    requirements-dev.txt``: which one, or which file, is the lesson)."""
    words = command.split()
    at = next((i for i, w in enumerate(words) if i > 0 and w in _RESTORES), None)
    return at is not None and all(w.startswith("-") for w in words[at + 1 :])


def _fails(ran: Ran) -> bool:
    return (
        ran.is_error
        or (ran.run is not None and not ran.run.green)
        or bool(ran.run is None and _FAILED.search(ran.output))
    )


def _records(transcript: Transcript) -> tuple[list[int], list[Turn], list[int]]:
    """What the readers of a failed command and its rerun look up in ``transcript``: the
    records of its file edits, its dialogue turns (the person's and the assistant's), and the
    records of the person's turns (where the assistant's stretch of work ends)."""
    edits = [c.record for c in transcript.tool_calls if c.name in EDIT_TOOLS]
    turns = [t for t in transcript.turns if t.speaker in (PERSON, ASSISTANT)]
    return edits, turns, [t.record for t in turns if t.speaker == PERSON]


def command_fixes(
    transcript: Transcript, ran: Sequence[Ran], since: int = 0
) -> list[dict[str, Any]]:
    """Causes whose fix is a command or a setting, not a file edit: a command fails (an error
    result, a red test run, or output saying it failed); the assistant states why, naming a
    term of the failure and one of the command it then runs; that command changes state (an
    install, an upgrade, a rebuild, ``-w``; not one that only reads); and the failing command,
    run again before the person speaks and with no file edited since the failure, now
    succeeds. The first rerun decides: one that still fails confirms nothing. For the
    assistant's turns at or after record ``since``."""
    edits, turns, persons = _records(transcript)
    out: list[dict[str, Any]] = []
    for i, failed in enumerate(ran):
        core = shellcommand.core(failed.command)
        if not core or not _fails(failed):
            continue
        end = min((r for r in persons if r > failed.result), default=None)
        later = [r for r in ran[i + 1 :] if end is None or r.call.record < end]
        rerun = next((r for r in later if shellcommand.core(r.command) == core), None)
        if rerun is None or _fails(rerun) or not rerun.ended:
            continue  # not run again, still failing, or still running where the reading stops
        if any(failed.result < e < rerun.call.record for e in edits):
            continue  # a file was edited: the writer's other readings
        between = [r for r in later if r.call.record < rerun.call.record]
        changes = [(r, changing_command(r.command)) for r in between]
        changes = [(r, c) for r, c in changes if c]
        if not changes:
            continue  # only reads in between: nothing was changed that the rerun checked
        first = changes[0][0].call.record
        said = [
            t
            for t in turns
            if t.speaker == ASSISTANT and failed.result < t.record < first and t.record >= since
        ]
        if not said:
            continue  # no cause stated
        fix = changes[-1][1]
        if all(installs_declared(c) for _r, c in changes):
            continue  # the checkout's declared dependencies installed: a routine step
        how = f"the failing command run again after `{fix[:120]}`: `{' '.join(core)[:120]}`"
        changed = "\n".join(c for _r, c in changes)
        for text, as_cause in last_first([t.text for t in said]):
            action = _linked(text, [failed.output], changed, how, set(), as_cause, command=fix)
            if action is not None:
                out.append(action)
                break
    return out


# Running a command outside the agent's sandbox is a field of the call, not a word of the
# command: Codex's ``sandbox_permissions: "require_escalated"`` (asked of the person, with the
# assistant's ``justification``) and Claude Code's ``dangerouslyDisableSandbox: true``.
OUTSIDE_SANDBOX = "outside the sandbox"
outside_sandbox = recoveries.outside_sandbox  # the gate reads it too: one reading, in notes


def run_differently(failed: Sequence[str], again: Sequence[str]) -> tuple[str, ...]:
    """The words ``again`` adds to ``failed`` (both a simple command's words) to run it another
    way: every word of ``failed`` kept, and among the words added an option (``-x``,
    ``--repo o/r``, rustup's ``+1.96.0``) that says how it runs (``cargo +1.96.0 test`` of
    ``cargo test``; ``gh issue view 5 --repo o/r`` of ``gh issue view 5``). ``()`` when it is
    another command, the same one unchanged, one that drops a word (it runs on something else:
    another file, another remote, a narrower test selection) or one that only adds operands
    (it reads more, it does not run differently)."""
    if len(failed) < 2 or len(again) <= len(failed) or failed[0] != again[0]:
        return ()
    if any(w not in again for w in failed):
        return ()
    added = tuple(w for w in again if w not in failed)
    return added if any(w[:1] in "-+" and len(w) > 1 for w in added) else ()


def narrower(first: testruns.TestRun | None, then: testruns.TestRun | None) -> bool:
    """Did test run ``then`` run less than ``first``: a name filter ``first`` had not, or
    fewer tests than ``first`` counted? A green narrower run says nothing of what failed."""
    if first is None or then is None:
        return False
    return bool(set(then.filters) - set(first.filters)) or (
        then.passed + then.failures < first.passed + first.failures
    )


def rerun_fixes(transcript: Transcript, ran: Sequence[Ran], since: int = 0) -> list[dict[str, Any]]:
    """Causes whose fix is running the failing command differently: a constraint of where it
    runs (the agent's sandbox, the shell's toolchain, a remote the tool cannot read) that the
    assistant finds and works around. A command fails; the assistant states why, naming a term
    of the failure and one of what it then changes (the option it adds: ``run_differently``,
    or the justification it gives for leaving the sandbox); and the same command, run again
    before the person speaks with that option or outside the sandbox, nothing edited and
    nothing changed by a command in between, now succeeds (a version selected, ``+1.96.0``,
    after the place refused the one it had, changes the versions the refusal names: a statement
    naming them says why). The change is the lesson: where the
    same command runs into the same constraint again, it says how to run it. The first rerun
    decides: one unchanged is a retry (``command_fixes``' reading), one that still fails or
    runs less (``narrower``) confirms nothing. For the assistant's turns at or after record
    ``since``."""
    edits, turns, persons = _records(transcript)
    out: list[dict[str, Any]] = []
    for i, failed in enumerate(ran):
        core = shellcommand.core(failed.command)
        if len(core) < 2 or not _fails(failed):
            continue
        end = min((r for r in persons if r > failed.result), default=None)
        later = [
            r
            for r in ran[i + 1 :]
            if r.call.record > failed.result and (end is None or r.call.record < end)
        ]
        for rerun in later:
            words = [without_redirections(w) for w in simple_commands(rerun.command)]
            escaped = outside_sandbox(rerun.call.input) and not outside_sandbox(failed.call.input)
            again = next((w for w in words if w == core), None)
            added: tuple[str, ...] = ()
            if again is None:
                again, added = next(
                    ((w, d) for w in words if (d := run_differently(core, w))), (None, ())
                )
            if again is None:
                continue  # another command: look further
            if (not added and not escaped) or _fails(rerun) or narrower(failed.run, rerun.run):
                break  # run again unchanged, still failing, or on less: no workaround confirmed
            if not rerun.ended:
                break  # still running where the transcript stops reading it: no result yet
            between = [r for r in later if r.call.record < rerun.call.record]
            if any(failed.result < e < rerun.call.record for e in edits) or any(
                changing_command(r.command) for r in between
            ):
                break  # a file edited or a state changed: the writer's other readings
            said = [
                t
                for t in turns
                if t.speaker == ASSISTANT
                and failed.result < t.record < rerun.call.record
                and t.record >= since
            ]
            for text, as_cause in last_first([t.text for t in said]):
                found = _worked_around(text, failed, rerun, again, added, escaped, as_cause)
                if found:
                    out += found
                    break
            break
    return out


def _worked_around(
    said: str,
    failed: Ran,
    rerun: Ran,
    again: Sequence[str],
    added: Sequence[str],
    escaped: bool,
    said_as_cause: bool = False,
) -> list[dict[str, Any]]:
    """The note of ``rerun_fixes`` from the assistant's statement ``said``: linked to the
    failure and to the change (the added words, the justification for leaving the sandbox);
    with ``said_as_cause``, only a sentence said as the cause is read (``last_first``)."""
    justification = rerun.call.input.get("justification", "") if escaped else ""
    change = " ".join([*added, OUTSIDE_SANDBOX if escaped else "", str(justification)])
    if refusal(failed.output) and any(_VERSION.search(w) for w in added):
        # another version of the tool selected (rustup's ``+1.96.0``) after the place refused
        # the one it had ("rustc 1.93.0 is not supported ...: kdl@6.7.1 requires rustc 1.95"):
        # the change replaces the versions the refusal names, so a statement naming them
        # ("kdl@6.7.1 requires rustc 1.95, while this shell has rustc 1.93.0") says why
        change += " " + " ".join(_VERSION.findall(failed.output))
    command = " ".join(again)
    where = f" {OUTSIDE_SANDBOX}" if escaped else ""
    changed = f"with `{' '.join(added)[:120]}`" if added else ""
    how = f"the failing command run again {' and '.join(filter(None, [changed, where.strip()]))}"
    how = f"{how}: `{command[:120]}`"
    action = _linked(
        said, [failed.output], change, how, set(), said_as_cause, command=command, where=where
    )
    return [action] if action is not None else []


def replaced_commands(
    transcript: Transcript, ran: Sequence[Ran], since: int = 0
) -> list[dict[str, Any]]:
    """Limits of the environment worked around by another command: a command fails and its
    output says the place it ran refused it (``limits.refusal``: a tool missing, an operation
    denied, a port taken, a remote's refusal), not that the code is wrong; the assistant states
    why, naming a term of the failure and one of the command it then runs in its place; and
    that other command, run on the same thing (a target of the failed one: ``_targets``) before
    the person speaks, with nothing edited and nothing changed by a command in between, passes.
    The other command is the lesson: where the first one runs into the same limit again, it
    says what to run instead (``rerun_fixes`` reads the same command run again differently,
    ``command_fixes`` a state changed so that the same command passes).

    The first run on the same thing decides: one that fails too confirms nothing (the limit
    was not worked around), and so does the failed command passing on a plain rerun (a flaky
    failure, not a limit) or run again with an option added (``rerun_fixes``' reading). For the
    assistant's turns at or after record ``since``."""
    edits, turns, persons = _records(transcript)
    out: list[dict[str, Any]] = []
    for i, failed in enumerate(ran):
        core = shellcommand.core(failed.command)
        targets = shellcommand.targets(core)
        if not targets or not _fails(failed) or not refusal(failed.output):
            continue
        end = min((r for r in persons if r > failed.result), default=None)
        # run in its place: after the assistant has read the failure and said something of
        # it, not a command sent with the failed one (a twin push to another branch)
        read = min(
            (t.record for t in turns if t.speaker == ASSISTANT and t.record > failed.result),
            default=None,
        )
        later = [
            r
            for r in ran[i + 1 :]
            if read is not None and r.call.record > read and (end is None or r.call.record < end)
        ]
        for other in later:
            if any(failed.result < e < other.call.record for e in edits) or changing_command(
                other.command
            ):
                break  # a file edited or a state changed: the writer's other readings
            words = [without_redirections(w) for w in simple_commands(other.command)]
            if any(w == core or run_differently(core, w) for w in words):
                break  # the same command again: a retry (flaky when it passes) or rerun_fixes'
            instead = next((w for w in words if shellcommand.targets(w) & targets), None)
            if instead is None:
                continue  # a look around (``which``, ``ls``): not run on the same thing
            if not _exited_well(other) or narrower(failed.run, other.run):
                break  # the other command fails too, has no result yet, or runs less
            said = [
                t
                for t in turns
                if t.speaker == ASSISTANT
                and failed.result < t.record < other.call.record
                and t.record >= since
            ]
            if said:
                command = " ".join(instead)
                how = f"another command run in its place, which passed: `{command[:120]}`"
                added = " ".join(w for w in instead if w not in core)
                where = f" instead of `{' '.join(core)[:120]}`"
                action = _linked(
                    said[-1].text, [failed.output], added, how, set(), command=command, where=where
                )
                if action is not None:
                    out.append(action)
            break
    return out


def _exited_well(ran: Ran) -> bool:
    """Did a command that worked around a limit pass? Its exit decides (and its test run's
    result), not its words: a passing run prints the names of its tests ("fails with a missing
    secret") and a fetched CI log its failed steps. One still running has not passed."""
    return ran.ended and not ran.is_error and (ran.run is None or ran.run.green)


TOLD_WORDS = 30  # longer is a brief for the next task, not a word on how to run one tool


def told_workarounds(
    transcript: Transcript, ran: Sequence[Ran], since: int = 0
) -> list[dict[str, Any]]:
    """Limits of the environment the person tells the assistant how to get past: a command
    fails and its output says the place it ran refused it (``limits.refusal``); the person's
    next turn is short and names the command's program ("gh should work here, run it
    escalated"); and in the assistant's work that follows (before the person speaks again) the
    same command, on the same thing, run outside the sandbox or with an option added, passes.
    The person's words are the rule, the passing run its confirmation: the assistant had not
    found the way itself (it fell back to another tool, or stopped), so no statement of its own
    is read. A turn that names the program but is followed by no such run (the person's remark
    left unacted on, or the run failing again) confirms nothing. For the person's turns at or
    after record ``since``."""
    _edits, turns, persons = _records(transcript)
    out: list[dict[str, Any]] = []
    told_at: set[int] = set()
    for failed in ran:
        core = shellcommand.core(failed.command)
        if len(core) < 2 or not _fails(failed) or not refusal(failed.output):
            continue
        turn = next((t for t in turns if t.speaker == PERSON and t.record > failed.result), None)
        if turn is None or turn.record < since or turn.record in told_at:
            continue
        said = clean(turn.text).strip()
        if len(said.split()) > TOLD_WORDS or core[0] not in re.findall(r"[\w.-]+", said):
            continue  # a long brief, or a turn that does not name the failed program
        end = min((r for r in persons if r > turn.record), default=None)
        after = [
            r for r in ran if r.call.record > turn.record and (end is None or r.call.record < end)
        ]
        if any(
            changing_command(r.command) for r in ran if failed.result < r.call.record < turn.record
        ):
            continue  # a state changed before the person spoke (an install): not the limit's way
        for again in after:
            words = [without_redirections(w) for w in simple_commands(again.command)]
            same = next(
                (
                    w
                    for w in words
                    if w[:1] == core[:1]
                    and (w == core or shellcommand.targets(w) & shellcommand.targets(core))
                ),
                None,
            )
            if changing_command(again.command):
                break  # a state changed (an install): command_fixes' reading, not the limit's way
            if same is None:
                continue  # another command (``gh auth status``): look further
            escaped = outside_sandbox(again.call.input) and not outside_sandbox(failed.call.input)
            added = run_differently(core, same)
            if not _exited_well(again) or not (escaped or added):
                break  # still failing, no result, or run no differently: nothing confirmed
            told_at.add(turn.record)
            how = OUTSIDE_SANDBOX if escaped else f"with `{' '.join(added)}`"
            tool = f"`{core[0]}`"
            out.append(
                _action(
                    title=f"Run {tool} {how} here: {_trim(said)}",
                    rule=f"Run {tool} {how} here.",
                    quote=said,
                    before="",
                    who="person",
                    confidence=MEDIUM,
                    learning_type="correction",
                    category="general",
                    cause=f"{tool} failed {'inside the sandbox' if escaped else 'without it'} "
                    f"(“{refusal(failed.output)}”).",
                    fix=f"Run `{' '.join(same)[:160]}` {how}.",
                    confirmed=f"the command run {how} after the person said so, which passed: "
                    f"`{' '.join(same)[:120]}`",
                )
            )
            break
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


_OLD_KEYS = ("old_string", "old_str")
_NEW_KEYS = ("new_string", "new_str", "content", "file_text")


def _brought_in(edits: Sequence[ToolCall]) -> list[set[str]]:
    """For each edit of ``edits`` (in order), the terms the edits before it brought in: in
    their new text and not their old (the lines a patch adds and does not remove)."""
    out: list[set[str]] = []
    new: set[str] = set()
    old: set[str] = set()
    for call in edits:
        out.append(new - old)
        added, removed = _edited_text(call)
        new |= _terms(added)
        old |= _terms(removed)
    return out


def _edited_text(call: ToolCall) -> tuple[str, str]:
    """An edit's new text and its old text."""
    new: list[str] = []
    old: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            for key, item in value.items():
                if key in _NEW_KEYS and isinstance(item, str):
                    new.append(item)
                elif key in _OLD_KEYS and isinstance(item, str):
                    old.append(item)
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and value.lstrip().startswith("*** Begin Patch"):
            for line in value.splitlines():
                if line.startswith("+"):
                    new.append(line[1:])
                elif line.startswith("-"):
                    old.append(line[1:])

    walk(call.input)
    return "\n".join(new), "\n".join(old)


def fix_was_done(fix: str, done: str) -> bool:
    """Did the session's tool calls touch every thing ``fix`` names in a code span (one of the
    span's names, a whole word, in what they did: "move `persist_with_outbox` from
    `upload_protocol`" is an edit around both)? A name is touched too when a file the calls
    touched is named for it (`buildContextTree` and ``build-context-tree.ts``). A fix naming
    nothing in code: ``True``."""
    words = set(_TOKEN.findall(done))
    files = {_folded(m.group("stem")) for m in _FILE.finditer(done)}
    return all(
        any(t in words or _folded(t) in files for t in _TOKEN.findall(span))
        or not _TOKEN.search(span)
        for span in _CODE.findall(fix)
    )


_FILE = re.compile(r"(?:^|[\s/\\])(?P<stem>[A-Za-z_][\w-]{2,})\.[A-Za-z]{1,5}\b", re.M)


def done_after(transcript: Transcript, ran: Sequence[Ran] | None = None) -> Callable[[int], str]:
    """``done(record)``: what the assistant's tool calls did after that record up to the first
    passing test run (before the person speaks again), one per line: the text edited in and
    out, the commands run. That run checked this work, not whatever the assistant said."""
    ran = commands_run(transcript) if ran is None else ran
    passed = {r.call.record for r in ran if r.run is not None and r.run.green}  # test runs
    order = sorted(transcript.tool_calls, key=lambda c: c.record)
    persons = [t.record for t in transcript.turns if t.speaker == PERSON]

    def done(record: int) -> str:
        end = min((r for r in persons if r > record), default=None)
        out: list[str] = []
        for call in order:
            if call.record <= record:
                continue
            if (end is not None and call.record > end) or call.record in passed:
                break
            out.append(_call_text(call.input))
        return "\n".join(out)

    return done


def _call_text(tool_input: Any) -> str:
    """Every string a tool call's input holds (a command, an edit's old and new text, a
    patch)."""
    if isinstance(tool_input, str):
        return tool_input
    if isinstance(tool_input, Mapping):
        return "\n".join(_call_text(v) for v in tool_input.values())
    if isinstance(tool_input, list):
        return "\n".join(_call_text(v) for v in tool_input)
    return ""


def turn_before(transcript: Transcript) -> Callable[[int], str]:
    """``said(record)``: the assistant's whole turn before that record (from the person's turn
    before it), past any chunk's context; ``""`` when the person spoke last."""
    turns = [(t.record, t.speaker, t.text) for t in transcript.turns if t.speaker != INJECTED]

    def said(record: int) -> str:
        out: list[str] = []
        for at, speaker, text in turns:
            if at >= record:
                break
            out = [] if speaker == PERSON else [*out, text.strip()]
        return clean("\n".join(out))

    return said


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
    if m is None:
        return ""
    first, _, rest = m.group("what").partition(" ")
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
                _action(
                    title=rule,
                    rule=rule + ".",
                    quote=said,
                    before="",
                    asked=said,
                    who="person, asking why it was not done",
                    confidence=MEDIUM,
                    learning_type="correction",
                    category="general",
                    confirmed="the assistant's edit for it and the passing test run that followed",
                )
            )
    return out


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


# The frontmatter of a memory file (Claude Code's auto memory): its name, what it says, and
# its type, where ``feedback`` is guidance the person gave on how to work (a newer memory file
# nests the type under ``metadata:``).
_FRONT = re.compile(r"\A---\s*\n(?P<front>.*?)\n---\s*(?:\n|\Z)", re.S)
_FIELD = re.compile(r"^[ \t]*(?P<key>name|description|type):\s*(?P<value>\S.*?)\s*$", re.M)
# What written guidance tells an agent to do or not to do: a sentence of it with a rule word.
_WRITTEN_RULE = re.compile(
    r"\b(?:always|never|must(?:n'?t)?|don'?t|do not|only|instead of|should(?:n'?t)?)\b", re.I
)
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.M | re.S)
WRITTEN_MAX = 1500  # the written text a note's body quotes


def written_guidance(transcript: Transcript, since: int = 0) -> list[dict[str, Any]]:
    """Notes from what the assistant writes down, at the person's word, for its later
    sessions: the written text is the rule. Two shapes, for the person's turns at or after
    record ``since``, written before the person speaks again:

    - a memory file whose frontmatter says ``type: feedback`` (the assistant saved the
      person's guidance as a rule: "the name will cause issues with the other agent" ->
      "SKILL.md frontmatter must stay cross-agent compatible"); the rule is the memory's name
      and description. A memory of the project or of the person (another type) is the
      assistant's own note, not a rule the person gave;
    - a file of standing instructions (CLAUDE.md, AGENTS.md, ...) the person's turn names ("can
      we add this to the CLAUDE.md so we don't miss this in future?"), whose added text states
      a rule (always, never, must, only, don't ...): the title is its first such sentence, the
      rule its prose (code blocks left out). An instruction file edited unasked, or text that
      only describes (a command list, a layout), is no rule the person gave.
    """
    persons = [t for t in transcript.turns if t.speaker == PERSON]
    before = turn_before(transcript)
    out: list[dict[str, Any]] = []
    for i, turn in enumerate(persons):
        if turn.record < since:
            continue
        end = persons[i + 1].record if i + 1 < len(persons) else None
        said = clean(turn.text).strip()
        # a turn with no term of its own ("yes", "ok, do that") grants what the assistant put
        # to the person just before: that is what the person's word was about
        about = said if _terms(said) else before(turn.record)
        for call in transcript.tool_calls:
            if call.record <= turn.record or (end is not None and call.record > end):
                continue
            if call.name not in EDIT_TOOLS or not isinstance(call.input, (Mapping, str)):
                continue  # Codex's apply_patch: the patch itself is the input
            paths = call_from(call.name, call.input).paths
            if _MEMORY.search("\n".join(paths)):
                action = (
                    _memory_feedback(call, said, about) if isinstance(call.input, Mapping) else None
                )
            else:
                named = [p for p in paths if _INSTRUCTIONS.search(p) and _names_file(said, p)]
                action = _written_rule(call, said, named[0]) if named else None
            if action is not None:
                out.append(action)
    return out


def said_of(saved: str, said: str) -> bool:
    """Is what the assistant saved as the person's guidance (a memory's name and description)
    about what the person's turn before it says: one term shared, at least? The assistant also
    saves, after any turn, what it gathered elsewhere (an earlier session, its own reading):
    such a memory is not the person's word at that turn, and the turn it would quote as its
    evidence does not bear it out ("do we need a framework like playwright?" under "the owner
    runs unannounced drills"). A saved rule restates the turn in its own words, but names
    what it is about as the turn did ("the name will cause issues with the other agent" ->
    "SKILL.md frontmatter must stay cross-agent compatible")."""
    return bool(_terms(saved) & _terms(said))


def _memory_feedback(call: ToolCall, said: str, about: str) -> dict[str, Any] | None:
    m = _FRONT.match(str(call.input.get("content") or ""))
    front = {f["key"]: f["value"] for f in _FIELD.finditer(m.group("front"))} if m else {}
    if front.get("type") != "feedback" or not front.get("name"):
        return None
    described = front.get("description", "").rstrip(" .")
    if not said_of(f"{front['name']} {described}", about):
        return None
    # a name that is a file's slug ("vale-scope-agent-docs-only") says less than the description
    title = front["name"] if " " in front["name"] or not described else described
    return _action(
        title=title,
        rule=_cap(described or front["name"]) + ".",
        quote=said,
        before="",
        asked=said,
        who="person, whose guidance the assistant saved to its memory",
        confidence=MEDIUM,
        learning_type="correction",
        category="general",
        confirmed="the assistant saving it to its memory as feedback",
    )


# A request for the file itself ("create a CLAUDE.md for this repo", what /init asks): the file
# is the task's output, written by the assistant, not guidance the person gave.
_CREATES = (
    r"\b(?:create|write|generate|draft|init(?:iali[sz]e)?|set\s+up|scaffold|make)\s+"
    r"(?:(?:a|an|the|new|our|my|your|project)\s+){0,3}"
)


def _names_file(said: str, path: str) -> bool:
    """Does the person's turn name the file (its name, any case: "the CLAUDE.md", "claude.md")
    as where to put something, not as a file to create?"""
    name = re.escape(re.split(r"[/\\]", path)[-1])
    end = r"(?![\w-]|\.\w)"  # "CLAUDE.md." ends a sentence, "CLAUDE.md.bak" is another file
    if not re.search(rf"(?<![\w.-]){name}{end}", said, re.I):
        return False
    return not re.search(rf"{_CREATES}{name}{end}", said, re.I)


def written_prose(text: str) -> list[str]:
    """The sentences of written markdown: frontmatter, fenced code, headings and list or
    emphasis markers left out, a paragraph's wrapped lines joined."""
    text = _FENCE.sub("", _FRONT.sub("", text))
    out: list[str] = []
    for para in re.split(r"\n[ \t]*\n", text):
        lines = [ln for ln in para.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        out += sentences(" ".join(_MARKUP.sub("", ln).replace("**", "").strip() for ln in lines))
    return out


def _written_rule(call: ToolCall, said: str, path: str) -> dict[str, Any] | None:
    new, old = _edited_text(call)
    gone = set(old.splitlines())
    prose = written_prose("\n".join(ln for ln in new.splitlines() if ln not in gone))
    # a sentence ending in a colon introduces what follows it (a code block, a list)
    rules = [
        s
        for s in prose
        if _WRITTEN_RULE.search(s) and len(s.split()) >= MIN_WORDS and not s.endswith(":")
    ]
    name = re.split(r"[/\\]", path)[-1]
    # What the assistant writes into the file is the person's rule only when the person asked
    # for that rule: when the turn names what it is about (a term of its own, the file's name
    # aside), the sentence the note is titled by must name it too (one term shared, as a saved
    # memory must, ``said_of``). A request to bring the file in line with another source
    # ("make sure your CLAUDE.md is consistent with ../punt-kit/") has the assistant copy that
    # source's lines, which are not the person's words. A turn with no term of its own ("can
    # you add this to CLAUDE.md?") points back at what was said before, and is not this.
    asked = re.sub(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", " ", said, flags=re.I)
    if not rules or (_terms(asked) and not said_of(rules[0], asked)):
        return None
    written = " ".join(prose)
    if len(written) > WRITTEN_MAX:
        written = written[: WRITTEN_MAX - 1].rstrip() + "…"
    action = _action(
        title=rules[0],
        rule=_cap(" ".join(rules)),
        quote=said,
        before="",
        asked=said,
        who="person, who had the assistant write it into " + name,
        confidence=MEDIUM,
        learning_type="correction",
        category="general",
        confirmed=f"the assistant writing it into {name}",
    )
    action["body"] += f"\n\nWritten into {name}: “{written}”"
    return action


# A sentence asked as a question ("Can we have always a table with links ...?", "could you
# always run X?", "Should the report list every sensor?"): it asks for something in this task;
# a rule only when the assistant takes it as a lasting way of working.
# The assistant adopting a way of working: its own commitment for later turns ("From now on
# I'll ...", "I'll always ...", "Going forward, I will ..."), not what the built thing does now.
_ADOPTS = re.compile(
    rf"\b(?:{LASTING})\b[^.!?\n]*?"
    r"\b(?:i'?ll|i will|i'm going to|i am going to)\b"
    r"|\b(?:i'?ll|i will)\s+(?:always|never|remember|keep|make sure)\b",
    re.I,
)
# Claude Code's memory of a project: files the assistant writes for its later sessions.
_MEMORY = re.compile(r"[/\\]\.claude[/\\]projects[/\\][^/\\\n]+[/\\]memory[/\\][^/\\\n]+\.md\b")
# A file of standing instructions for the agent (its memory too): editing it adopts a rule.
_INSTRUCTIONS = re.compile(
    r"(?:^|[/\\\s])(?:CLAUDE|AGENTS|GEMINI)\.md\b|\.cursorrules\b|\.windsurfrules\b|"
    r"copilot-instructions\.md\b|" + _MEMORY.pattern,
    re.I,
)


def asked_for(rule: str) -> bool:
    """Is ``rule`` asked as a question ("Can we have always a table ...?")? Whatever its
    opening words, a question asks the assistant something in this task."""
    return rule.rstrip(" *_\"'”’)").endswith("?")


def adopted_as_rule(transcript: Transcript) -> Callable[[int], bool]:
    """``adopted(record)``: did the assistant, before the person speaks again, take the
    person's turn at that record as a lasting way of working? It commits itself for later
    turns in its own words ("From now on I'll ...") or edits a file of standing instructions
    (CLAUDE.md, AGENTS.md, ...). Building what was asked is no adoption of a rule."""
    turns = [(t.record, t.speaker, t.text) for t in transcript.turns if t.speaker != INJECTED]
    edits = [
        (c.record, "\n".join(call_from(c.name, c.input).paths))
        for c in transcript.tool_calls
        if c.name in EDIT_TOOLS
    ]
    persons = [r for r, who, _t in turns if who == PERSON]

    def adopted(record: int) -> bool:
        end = min((r for r in persons if r > record), default=None)
        said = [
            t for r, who, t in turns if who == ASSISTANT and r > record and (end is None or r < end)
        ]
        edited = [x for r, x in edits if r > record and (end is None or r < end)]
        return any(_ADOPTS.search(t) for t in said) or any(
            _INSTRUCTIONS.search(paths) for paths in edited
        )

    return adopted


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


def next_reply(transcript: Transcript) -> Callable[[int], str]:
    """``reply(record)``: the person's first turn after that record, or ``""``."""
    persons = [(t.record, t.text) for t in transcript.turns if t.speaker == PERSON]

    def reply(record: int) -> str:
        return next((text for at, text in persons if at > record), "")

    return reply


def rest_of_turn(transcript: Transcript) -> Callable[[int, str], str]:
    """``rest(record, line)``: what the assistant said after ``line`` (of the turn at
    ``record``), to the person's next turn; ``""`` when the line is not found there."""
    turns = [t for t in transcript.turns if t.speaker in (PERSON, ASSISTANT)]

    def rest(record: int, line: str) -> str:
        said: list[str] = []
        for turn in turns:
            if turn.record < record:
                continue
            if turn.speaker == PERSON:
                break
            said.append(turn.text)
        joined = "\n".join(said)
        at = joined.find(line.strip()) if line.strip() else -1
        return joined[at + len(line.strip()) :].strip() if at >= 0 else ""

    return rest


def past_the_error(
    transcript: Transcript, ran: Sequence[Ran] | None = None
) -> Callable[[int], bool]:
    """``past(record)``: did the next test run get past the error the last one failed with?
    Between the person's turns around the record: the last test run before it failed with an
    error line, the first one after it failed with another error line (or passed), and a later
    run passed. A failing test command counts even without a summary (it did not compile, it
    crashed): its first error line is what it failed with."""
    runs: list[tuple[int, bool, str]] = []  # record, green, first error
    for r in commands_run(transcript) if ran is None else ran:
        runner = testruns.runner_of(r.command)
        if runner is None:
            continue
        if r.run is not None and r.run.green:
            runs.append((r.result, True, ""))
        elif r.run is not None or r.is_error:
            runs.append((r.result, False, testruns.first_error(r.output, runner)))
    persons = [t.record for t in transcript.turns if t.speaker == PERSON]

    def past(record: int) -> bool:
        start = max((r for r in persons if r <= record), default=-1)
        end = min((r for r in persons if r > record), default=None)
        before = [x for x in runs if start < x[0] <= record]
        after = [x for x in runs if x[0] > record and (end is None or x[0] < end)]
        if not before or before[-1][1] or not before[-1][2] or not after:
            return False
        following, error = after[0], before[-1][2]
        moved = following[1] or (bool(following[2]) and following[2] != error)
        return moved and any(ok for _at, ok, _e in after)

    return past


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
# The person turning the fix down: "not sure I like ...", "can you revert this change?"
_TURNED_DOWN = re.compile(
    r"\b(?:revert|undo|roll\s*back|back out|not legit|leave it|(?:don'?t|do not|not sure i) like)\b",
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
