"""Twins: a live note that already states the rule a new note would state, in other words.

The one twin finder of the tool: the drain asks it before every CREATE, capture before every
note it writes; a twin found is confirmed (or left alone) instead of written again. The
original tool compared embeddings (cosine >= 0.97); without a model we compare the rule's
words, normalised:

- lower case, markdown quoting (backticks, quotes, emphasis) and articles dropped;
- "instead of B, use A" and "use A, not B" read as "use A instead of B";
- the same content words (a light stem: "pushing" is "push"), so "use pnpm instead of npm" is
  never the twin of "use pnpm instead of yarn";
- the words in order (``difflib`` ratio) at ``THRESHOLD`` or more, so "use uv instead of pip"
  is never the twin of "use pip instead of uv";
- contractions read as their two words ("don't" is "do not");
- never across a negation ("never X" is not "always X") or different numbers ("30 s" is not
  "60 s"), however close the rest is.

The rule is compared with the rule, and with the title (many notes have only a title that is
their rule). Pure apart from reading the notes it is given.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from reflectgit.notes import verbs
from reflectgit.workflows.search.query import singular

THRESHOLD = 0.85
MIN_CONTENT = 2  # a rule of fewer content words ("r", "fix it") says too little to match
_QUOTES = re.compile(r"[`*_\"“”‘’]+|(?<!\w)'|'(?!\w)")
# a word, its apostrophe inside it ("team's" is one word, not "team" and "s")
_TOKEN = re.compile(r"[\w./+#:@-]+(?:'[\w./+#:@-]+)*")
_ARTICLES = frozenset({"a", "an", "the", "please", "just", "always"})
_NEGATIONS = frozenset(
    {"never", "not", "no", "don't", "dont", "avoid", "without", "cannot", "can't", "won't"}
)
_VERBS = r"use|run|call|try|prefer|pick|choose|pass|set|add|install"
_INSTEAD_FIRST = re.compile(
    rf"^\s*(?:rather than|instead of)\s+(?P<old>.+?)\s*,\s*(?P<verb>{_VERBS})\s+(?P<new>.+?)\s*$"
)
_NOT_AFTER = re.compile(rf"^\s*(?P<verb>{_VERBS})\s+(?P<new>.+?)\s*,?\s+not\s+(?P<old>.+?)\s*$")
_RATHER = re.compile(rf"^\s*(?P<verb>{_VERBS})\s+(?P<new>.+?)\s+rather than\s+(?P<old>.+?)\s*$")


def normalise(text: str) -> tuple[str, ...]:
    """The words of a rule, in a canonical order and spelling."""
    # a typographic apostrophe is an apostrophe ("don’t"); as a closing quote it is one too
    lowered = _QUOTES.sub(" ", text.lower().replace("’", "'"))
    # a contraction is its two words ("don't push" is "do not push"), so a negation is read
    # whoever spelled it, and the word splitter below does not cut "don't" into "don" and "t"
    for pattern, long in _CONTRACTIONS:
        lowered = pattern.sub(long, lowered)
    lowered = " ".join(lowered.split()).rstrip(".!;: ")
    for pattern in (_INSTEAD_FIRST, _NOT_AFTER, _RATHER):
        m = pattern.match(lowered)
        if m:
            lowered = f"{m['verb']} {m['new']} instead of {m['old']}"
            break
    words = (w.strip(",;:!?()[]{}").rstrip(".") for w in _TOKEN.findall(lowered))
    return tuple(w for w in words if w and w not in _ARTICLES)


def _negated(words: tuple[str, ...]) -> bool:
    return any(w in _NEGATIONS for w in words) or any(
        a == "do" and b == "not" for a, b in itertools.pairwise(words)
    )


def _numbers(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w for w in words if any(c.isdigit() for c in w))


_MINOR = frozenset(
    [
        "and",
        "or",
        "to",
        "of",
        "in",
        "on",
        "for",
        "with",
        "by",
        "is",
        "are",
        "be",
        "it",
        "its",
        "you",
        "your",
        "we",
        "our",
        "when",
        "before",
        "after",
        "every",
        "all",
        "any",
        "each",
        "then",
        "so",
        "as",
        "at",
        "from",
        "into",
        "instead",
        "do",
        "does",
        "use",
        "using",
        "run",
        "make",
        "sure",
        "here",
    ]
)


def stem(word: str) -> str:
    """A rough stem, enough to pair a rule's words told again (``pushes``, ``pushed``, ``push``).

    Not ``search.query.light_stem``, which pairs a query's words with a note's: this one cuts
    every ``-ing`` (``waiting`` is ``wait``), which two rules told in other words need and which
    search leaves alone (``setting`` is no ``set``); one stemmer for both lowered the drain's
    pooled figures (tune figures). An act's objects are paired by ``singular``, the plural step
    the two share."""
    word = word.lower()
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _content(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(stem(w) for w in words if w not in _MINOR and len(w) >= 2)


def similarity(a: tuple[str, ...], b: tuple[str, ...]) -> float:
    """How alike two normalised rules are, 0 to 1, word order included."""
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    if 2 * min(len(a), len(b)) / (len(a) + len(b)) < THRESHOLD - 0.2:
        return 0.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def same_rule(a: str, b: str, threshold: float = THRESHOLD) -> bool:
    """Do the two texts state the same rule?"""
    return _score(normalise(a), normalise(b)) >= threshold


def _score(a: tuple[str, ...], b: tuple[str, ...]) -> float:
    if not a or not b or _negated(a) != _negated(b) or _numbers(a) != _numbers(b):
        return 0.0
    content = _content(a)
    if len(content) < MIN_CONTENT or content != _content(b):
        return 0.0
    return similarity(a, b)


@dataclass(frozen=True)
class Twin:
    """The live note a new one would duplicate, and how alike they are."""

    id: str
    score: float


@dataclass
class _Known:
    id: str
    texts: tuple[str, ...]  # title and rule, lower case (for the cheap first look)
    words: list[tuple[str, ...]] = field(default_factory=list)


class TwinFinder:
    """Finds the twin of a (title, rule) among known notes; ``add`` makes a new one known."""

    def __init__(
        self, notes: Iterable[tuple[str, str, str]] = (), threshold: float = THRESHOLD
    ) -> None:
        self.threshold = threshold
        self._known: list[_Known] = []
        for nid, title, rule in notes:
            self.add(nid, title, rule)

    def add(self, nid: str, title: str, rule: str) -> None:
        texts = tuple(dict.fromkeys(t.lower() for t in (rule, title) if t and t.strip()))
        if texts:
            self._known.append(_Known(nid, texts))

    def find(self, title: str, rule: str = "") -> Twin | None:
        """The best twin at or over the threshold, or None."""
        queries = [w for w in dict.fromkeys(normalise(t) for t in (rule, title) if t) if w]
        if not queries:
            return None
        # A twin shares nearly all its words, so it holds one of the two longest words of
        # the query: a substring test keeps the full comparison to a few notes.
        keys = {w for q in queries for w in sorted(q, key=len, reverse=True)[:2] if len(w) > 2}
        best: Twin | None = None
        for known in self._known:
            if keys and not any(k in text for k in keys for text in known.texts):
                continue
            if not known.words:
                known.words = [w for w in (normalise(t) for t in known.texts) if w]
            score = max((_score(q, w) for q in queries for w in known.words), default=0.0)
            if score >= self.threshold and (best is None or score > best.score):
                best = Twin(known.id, round(score, 3))
                if score == 1.0:
                    break
        return best


# ------------------------------------------------------------------ one act, told again
#
# A person who states a rule again later in a session words it afresh ("do not create any
# pr or issue without my approval", then "I don't want to open issues or prs directly",
# then "do not open an issues or prs or commit"): few words in common, one rule. What stays
# is the act: the verb the rule tells to do (or not), and what it is done to. Two rules of
# one session are one rule when
#
# - both are negated or neither ("never push to main" is not "push to main"; a negation after
#   the verb counts: "there is no need to X");
# - the verb is the same, in its base form ("pushing" is "push"), or the same act spelled
#   otherwise: on a forge or a tracker, an issue, a pull request or a ticket is opened,
#   created, filed, raised or submitted, one act (only for those things: "open the config"
#   is not "create the config");
# - what they name as the act's object (up to the rule's condition: "without", "unless",
#   "because", ...) is the same, singular and plural alike ("prs" is "pr", "pull requests"
#   is "pr"), or two things or more one names are all among what the other names ("do not
#   open issues or prs or commit" says "don't create a pr or an issue" again). One thing
#   inside more is not enough: "don't change the test" is not "don't change the test's
#   name", nor "never push to main" "never push to release or main".
#
# "never push to main" and "never merge to main" share every word but the verb: two rules.
# A rule that names no verb at its head ("no force pushes", a noun phrase) or no object
# ("don't commit") has no act to compare: only the words decide for it.

# Contractions written out, so "don't" negates as "do not" does and "let's" leads as "let us".
_NOT_CONTRACTED = {
    "can": "can", "won": "will", "don": "do", "doesn": "does", "didn": "did", "isn": "is",
    "shouldn": "should", "mustn": "must",
}  # fmt: skip
_CONTRACTIONS: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (
        re.compile(rf"\b({'|'.join(_NOT_CONTRACTED)})'?t\b"),
        lambda m: f"{_NOT_CONTRACTED[m[1]]} not",
    ),
    (re.compile(r"\blet's\b"), "let us"),
    (re.compile(r"'(?:ll|d)\b"), " will"),
)
# The words before a rule's verb: who (not) does it, and how strongly it is asked.
_LEAD = frozenset(
    {
        "i", "we", "you", "please", "just", "always", "ever", "never", "not", "to", "do",
        "does", "don", "doesn", "didn", "can", "won", "will", "would", "should", "shouldn",
        "must", "mustn", "shall", "need", "want", "let's", "lets", "let", "us", "ok", "okay",
        "so", "and", "also", "again", "really",
    }
)  # fmt: skip
_NEGATING = frozenset({"not", "never"})
# Where a rule's object ends and its condition or reason begins.
_CONDITION = frozenset(
    {
        "without", "unless", "until", "because", "if", "when", "whenever", "before", "after",
        "since", "while", "except", "but", "so", "otherwise", "once",
    }
)  # fmt: skip
# Words of an object that name nothing: determiners, pronouns, prepositions, conjunctions;
# at a rule's head they are no verb ("there is ...", "what ...": a statement or a question).
_FUNCTION = frozenset(
    {
        "a", "an", "the", "any", "all", "some", "every", "each", "no", "this", "that", "these",
        "those", "my", "your", "our", "their", "its", "it", "them", "me", "you", "us", "or",
        "and", "nor", "to", "of", "in", "on", "into", "onto", "at", "for", "from", "with", "by",
        "as", "up", "out", "instead", "other", "another", "new", "more", "yourself", "myself",
        "ourselves", "is", "are", "be", "been", "there", "here", "what", "which", "who", "how",
        "why", "where",
    }
)  # fmt: skip
# Things one files on a forge or a tracker, and the verbs that file them.
_FILED = frozenset({"issue", "pr", "mr", "ticket", "bug"})
_FILING = frozenset({"open", "create", "file", "raise", "submit", "make"})
_LONG_NAMES = (
    (re.compile(r"\bpull[- ]requests?\b"), "pr"),
    (re.compile(r"\bmerge[- ]requests?\b"), "mr"),
)


@dataclass(frozen=True)
class Act:
    """What a rule tells to do (or not): its verb, base form, and the things it is done to
    (each a word's ``singular``, so "the commits" and "a commit" are one thing)."""

    verb: str
    objects: frozenset[str]
    negated: bool


def act(text: str) -> Act | None:
    """The act a rule's first sentence tells, or None when it opens on no verb or names no
    object."""
    first = re.split(r"(?<=[^\s.])[.;!?](?:\s|$)", text.strip(), maxsplit=1)[0].lower()
    for pattern, short in _LONG_NAMES:  # contractions: ``normalise``
        first = pattern.sub(short, first)
    words = list(normalise(first))
    at = 0
    while at < len(words) and words[at] in _LEAD:
        at += 1
    if at == len(words) or not words[at].isalpha() or words[at] in _FUNCTION:
        return None
    negated = any(w in _NEGATING for w in words[:at])
    verb = verbs.base(words[at])
    objects: set[str] = set()
    for word in words[at + 1 :]:
        if word in _CONDITION:
            break
        # a negation after the verb negates the act too ("there is no need to X")
        negated = negated or word in _NEGATING or word == "no"
        if word not in _FUNCTION and word not in _NEGATING and (len(word) > 1 or word.isdigit()):
            objects.add(singular(word))
    if not objects:
        return None
    if verb in _FILING and objects & _FILED:
        verb = "open"
    return Act(verb, frozenset(objects), negated)


def same_act(a: str, b: str) -> bool:
    """Do two rules of one session tell the same act (see above)?"""
    first, second = act(a), act(b)
    if first is None or second is None:
        return False
    if first.verb != second.verb or first.negated != second.negated:
        return False
    fewer, more = sorted((first.objects, second.objects), key=len)
    return fewer == more or (len(fewer) >= 2 and fewer <= more)
