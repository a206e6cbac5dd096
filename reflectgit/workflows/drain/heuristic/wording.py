"""The words a lesson is read from, shared by every reader of the heuristic writer. Pure.

A line's sentences (a period inside a code span never ends one), the words that make a sentence
a rule, and a sentence trimmed of the chatter before its rule and ranked against the others;
the small helpers every reader uses (a capitalised rule, a fix as an imperative, the words of a
text as a search and a link read them) and the patterns more than one reader needs.
"""

from __future__ import annotations

import re

from reflectgit.notes import verbs
from reflectgit.notes.signals import draws_a_limit, says_how_it_lands
from reflectgit.workflows.kb.twins import stem

RULE_KINDS = ("correction", "prohibition", "requirement", "explicit-rule", "frustration")

CAUSE_KINDS = ("root-cause", "breakthrough")

FIX_KINDS = ("fix-confirmed",)

MIN_WORDS = 4

_RULE_WORDS = re.compile(
    r"\b(always|never|must|instead|don'?t|dont|do not|should|use|only|from now on|"
    r"the rule is|not acceptable|keep in mind|important (?:not )?to|"
    r"(?:there(?:'s| is| are)|we(?:'ve got| have| already have)) (?:already )?(?:an? |some )?"
    r"existing|"
    r"(?:can'?t|cannot) (?:control|own))\b",
    re.I,
)

# The words that make a short line a directive. A modal states one as plainly as an imperative
# does: "We should not inline prompts" forbids as "don't inline prompts" does, and "you need
# to pin it" requires as "must" does (the detector reads both as a rule: notes/signals.py).
_IMPERATIVE = re.compile(
    r"\b(always|never|must|use|instead|don'?t|dont|do not|should(?:n'?t| not)|needs? to)\b", re.I
)

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
    # So is a request's way of landing the work ("Commit these changes with conventional
    # commit message"): how every change is committed or merged, not this one's content.
    if says_how_it_lands(sentence):
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


def _join(first: str, second: str) -> str:
    """``Check X.`` + ``Don't Y.`` -> ``Check X; don't Y``."""
    head = first.rstrip(" .;:!")
    if second[:1].isupper() and (second[1:2].islower() or second[1:2] == "'"):
        second = second[:1].lower() + second[1:]
    return f"{head}; {second.rstrip(' .;:!')}"


# A name as people write it: a code span, a dotted or versioned name, a path, a flag.
_NAMED = re.compile(r"`[^`\n]+`|\S*[./@:]\w\S*|\b[a-z]+\d[\w.]*\b|(?<!\w)--?\w[\w-]*", re.I)


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


def _words(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9_./:@+-]+", text.lower())
    return {w.strip(".:-") for w in words if w.strip(".:-") and w not in _STOP}


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


def _plain(line: str) -> str:
    return _MARKUP.sub("", line).replace("**", "").strip()


_CAUSE_LEAD = re.compile(
    r"^(?:it\s+)?(?:turns? out|turned out|the root cause (?:was|is)|the (?:real |actual )?"
    r"(?:problem|issue|bug|culprit) (?:was|is)|(?:the )?root cause\s*(?=:)|the bug\s*(?=:))"
    # "the issue is clear — X": X is the cause
    r"(?:\s+(?:now\s+)?(?:clear|simple|obvious)\s*[:—–-]+)?(?:\s+that)?[,:]?\s+",
    re.I,
)


def _folded(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


_TOKEN = re.compile(r"[A-Za-z_]\w{2,}")

# A sentence that states no fact: an intent or a plan ("Let me ...", "Now ..."), a list's item.
_LISTED = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s")

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


_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.M | re.S)
