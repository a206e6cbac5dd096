"""Query understanding: what a user's words mean before the index is asked.

A query is read as a list of *concepts*, one per meaningful word (or per run of words the
synonym table knows, such as "write-ahead log"). Stop words are dropped (unless nothing else
is left). Each concept is looked up as a few *alternatives*, each with a weight below 1 when it
is a guess rather than what the user typed:

- ``exact``: the word itself (a code-like word such as ``redis.exceptions.ConnectionError:`` or
  ``HTTP/1.1`` as the phrase of its parts);
- ``variant``: the index's own words with the same light stem (revoke / revocation, panic /
  panicked, reader / readers, but never setting / set);
- ``synonym``: the other terms of the word's groups in the synonym table (WAL / write-ahead log),
  and the word joined with the next one ("lock file" / lockfile);
- ``synonym_form`` and ``synonym_variant``: the index's words with the light stem of a synonym
  (of its last word, for a term of several words): its plural counts as the synonym (the
  table's "spike" finds a note saying "spikes", "tmux session" one saying "tmux sessions"), any
  other form as a variant of it ("flush": flushing);
- ``part``: each part of a code-like word, and the halves of a camelCase name;
- ``prefix``: the last word as a prefix, only when it has four or more letters (a query typed
  halfway), ranked below the exact word; and any other word of five or more letters by the
  index's longer words it begins that are not its variants (cancel: cancellation, state:
  stateless), as `git grep` finds a word inside a longer one;
- ``loose``: for a word no note holds and no synonym group names on its own, the groups of the
  table's longer terms it is a word of ("multiplexer": the group of "terminal multiplexer",
  tmux), ranked below a synonym: a word the KB never uses can only be found through them.

The index scores each alternative with bm25; a concept scores its best alternative times the
alternative's weight, and a note scores the sum over concepts (see ``Index._ranked``).

The synonym table is the packaged ``synonyms.txt`` plus the KB's own file (see its header).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import NamedTuple

from reflectgit.workflows.search.tokens import alnum_runs, camel_runs, has_alnum

EXACT, VARIANT, SYNONYM, PART, PREFIX = "exact", "variant", "synonym", "part", "prefix"
LOOSE, SYNONYM_FORM, SYNONYM_VARIANT = "loose", "synonym_form", "synonym_variant"
PART_SYNONYM = "part_synonym"
# How much a match of each kind of alternative counts against the word the user typed.
# Tuned on the tune half of bench/retrieval.py (its first 50 queries and the 99 added after):
# a variant (revocation for revoke) is a weaker guess than a synonym the table states, and a
# part of a code-like word (``error`` of ``ConnectionError``) weaker still.
# A synonym's plural in the index (spike: spikes) counts as the synonym, its other forms as a
# variant of it (0.9 x 0.7); each is looked for apart from the synonym, as a variant is apart
# from the word typed, so a note holding both forms is no better than one holding either.
KIND_WEIGHTS = {
    EXACT: 1.0,
    SYNONYM: 0.9,
    SYNONYM_FORM: 0.9,
    VARIANT: 0.7,
    SYNONYM_VARIANT: 0.63,
    LOOSE: 0.6,
    PART: 0.3,
    PART_SYNONYM: 0.3,
    PREFIX: 0.4,
}
PREFIX_MIN = 4  # a shorter last word as a prefix matches half the vocabulary ("Mac" -> machine)
# A whole word (not the last) is looked for in the longer words it begins from this length on:
# from four letters, tasks lost on the tune half ("data": database, "test": testing).
EXTENSION_MIN = 5
MAX_PHRASE = 4  # the longest synonym term, in words, looked for in a query
LOOSE_TERMS = 2  # a word of more of the table's terms than this says too little

_STOP_TEXT = """
    a an the and or but if then else of to in on at by for with from into onto about as
    is are was were be been being am do does did doing done have has had having not no nor
    so too very can could should would will shall may might must i me my mine we our ours us
    you your yours he him his she her it its they them their theirs this that these those
    there here what which who whom whose where when why how all any some each every just only
    also than up out over again more most such own same other get gets got getting keep keeps
    kept while after before because until once ever even still yet like want wants need needs
    something anything thing things way happen happens happened s t don doesn didn isn wasn
    aren weren won wouldn shouldn couldn can't cant let lets via per
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())

# Everyday English words that are not stop words but say little about which note is meant
# ("one", "several", "found", "take", "under", "long", "new"). In a small KB such a word is
# rare, so bm25 alone would weigh it like a tool's name; a concept made only of them counts
# COMMON_WEIGHT. A general list, not written from any benchmark query.
_COMMON_TEXT = """
    one two three four five six ten first second third last next previous several many much
    few little lot lots less least enough half whole both either neither another others
    every everything everyone nothing nobody somebody someone anyone always never often
    sometimes usually already almost nearly quite rather really actually simply just maybe
    perhaps probably instead across along around through throughout under below above behind
    beside between beyond inside outside within without toward towards upon among against ahead
    during since ago later soon early late now today yesterday tomorrow day days week weeks
    month months year years time times moment while long short big small large tiny huge
    high low good bad better best worse worst great right wrong sure true false real new old
    young same different similar certain whole full empty open close closed able unable
    possible likely hard easy simple clear fine ok okay nice main own usual normal
    make makes made making take takes took taken taking give gives gave given giving go goes
    went gone going come comes came coming see sees saw seen seeing look looks looked
    looking find finds found finding know knows knew known think thinks thought tell tells
    told say says said saying ask asks asked try tries tried trying seem seems seemed
    become becomes became turn turns turned put puts bring brings brought hold holds held
    leave leaves left show shows shown mean means meant call calls called calling use uses
    used using work works worked working help helps helped feel felt set sets setting
    stay stays stayed end ends ended begin began move moves moved live lives place places
    part parts kind kinds sort type lot piece bit side point case cases fact way ways
    thing stuff people person someone anybody everybody team us again back away still
    yes ok please thanks sure whether though although however therefore thus otherwise
"""
COMMON_WORDS = frozenset(_COMMON_TEXT.split()) - STOP_WORDS
COMMON_WEIGHT = 0.5

_VOWELS = set("aeiouy")


# --------------------------------------------------------------------------- words


def tokens_of(word: str) -> list[str]:
    """The index's tokens of one whitespace-separated word: letters and digits, lower case."""
    return [t.lower() for t in alnum_runs(word)]


def camel_parts(token: str) -> list[str]:
    """``ConnectionError`` -> connection, error; a word without inner capitals -> []."""
    parts = [p.lower() for p in camel_runs(token)]
    return parts if len(parts) > 1 else []


@lru_cache(maxsize=8192)
def light_stem(word: str) -> str:
    """A light stemmer: plurals, -ed, -er, -ion, -ation, -ment, -ness, -able and long -ing.

    Unlike Porter it leaves ``setting``, ``running`` and ``writing`` alone (their short stems
    collide with unrelated words), and it pairs what Porter misses: revoke / revocation (k and
    c), panic / panicked, read / readers. Both sides of a comparison go through it, so a stem
    need not be a word. Not ``kb.twins.stem``, the twin finder's, which cuts every ``-ing`` as
    rules told again in other words need; the two share ``singular``.
    """
    w = word.lower()
    if len(w) >= 2 and w[-1] == "s" and w[:-1].isdigit():
        return w[:-1]  # a number's plural: 504s, 1990s
    if len(w) <= 3 or not w.isalpha():
        return w
    w = singular(w)  # sizes -> size, whose e goes below
    for suffix, keep in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= keep:
            w = w[: -len(suffix)]
            break
    else:
        ending = 2 if w.endswith("er") else 3 if w.endswith("ing") else 0
        if ending and _doubled(w[:-ending]):
            # debugging, dropping, formatter: the doubled letter goes as it does for -ed, but
            # only when four letters are left (running and setting keep their short stems).
            # An ll or ss stays (installer, missing): the benchmark's queries were checked
            # against their notes' words with these rules (see bench/retrieval.py).
            stem = w[:-ending]
            if len(stem) > 4 and not stem.endswith(("ll", "ss", "zz")):
                w = stem[:-1]
        elif w.endswith("er") and len(w) - 2 >= 4:
            w = w[:-2]
        elif w.endswith("ed") and len(w) - 2 >= 3:
            w = w[:-2]
            if _doubled(w) and not w.endswith(("ll", "ss", "zz")):
                w = w[:-1]
        elif w.endswith("ing") and len(w) - 3 >= 5:
            w = w[:-3]
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if w.endswith("at") and len(w) >= 6:
        w = w[:-2]
    if w.endswith("ck") and len(w) > 4:  # panick(ed) -> panic, but dock(er) is no doc(s)
        w = w[:-1]
    if w.endswith("k") and len(w) > 3 and w[-2] in _VOWELS:
        w = w[:-1] + "c"
    return w


def singular(word: str) -> str:
    """A lower-case plural's singular, roughly (``entries`` -> ``entry``, ``fixes`` -> ``fix``,
    ``prs`` -> ``pr``; ``class``, ``status`` and ``redis`` stay): ``light_stem``'s first step,
    and what the twin finder pairs an act's objects by (``kb.twins.act``)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) >= 3:
        return word[:-1]
    return word


# (suffix, the shortest stem it may leave), tried in order; the first that fits is taken.
_SUFFIXES: tuple[tuple[str, int], ...] = (
    ("ations", 4),
    ("ation", 4),
    ("ions", 4),
    ("ion", 4),
    ("ers", 4),
    ("ments", 6),
    ("ment", 6),
    ("ness", 4),
    ("able", 5),
)


def _doubled(w: str) -> bool:
    return len(w) >= 2 and w[-1] == w[-2] and w[-1] not in _VOWELS


# --------------------------------------------------------------------------- synonyms


@dataclass(frozen=True)
class Synonyms:
    """Groups of terms that mean the same; a term is a tuple of stemmed tokens."""

    groups: tuple[tuple[str, ...], ...] = ()

    @staticmethod
    def parse(text: str, base: Synonyms | None = None) -> Synonyms:
        """``base`` extended by ``text`` (one group a line; ``-term`` removes a term)."""
        groups = [list(g) for g in (base.groups if base else ())]
        removed = False
        for raw in text.splitlines():
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("-"):
                gone = _key(line[1:])
                groups = [[t for t in g if _key(t) != gone] for g in groups]
                removed = True
                continue
            terms = [t.strip() for t in line.split(",") if has_alnum(t)]
            if len(terms) > 1:
                groups.append(terms)
        table = Synonyms(tuple(tuple(g) for g in groups if len(g) > 1))
        known = base.__dict__.get("_lookup") if base is not None and not removed else None
        if known is not None and base is not None:
            # Only groups were added: the base's lookup (the shipped table's, once built)
            # extended by the new groups is what indexing every group would give.
            buckets = {k: list(v) for k, v in known[0].items()}
            idioms = {k: list(v) for k, v in known[1].items()}
            _index_groups(table.groups, len(base.groups), buckets, idioms)
            table.__dict__["_lookup"] = (buckets, idioms)
        return table

    @staticmethod
    def compiled(
        groups: tuple[tuple[str, ...], ...],
        buckets: dict[str, list[int]],
        idioms: dict[str, list[int]],
    ) -> Synonyms:
        """The table of ``groups`` with its lookup given (as ``synonyms.py`` keeps it parsed)."""
        table = Synonyms(groups)
        table.__dict__["_lookup"] = (buckets, idioms)
        return table

    def terms(self, key: tuple[str, ...]) -> list[str]:
        """Every term of the groups holding a term with ``key`` (a tuple of stems); [] if none.

        A term is compared by its stems without its stop words ("set of sockets" is found from
        "set sockets"), except that a term of several words is never one word's ("time out" is
        not "time", "same time" not either).

        Stemming every term of the table costs milliseconds per search; a query only needs
        the few groups its words can reach, found by their words' first two characters (a
        light stem keeps them), so only theirs are stemmed."""
        known = self._found.get(key)
        if known is None:
            known = []
            for i in self._buckets.get(key[0][:2], ()) if key else ():
                group = self.groups[i]
                if any(_key(t) == key and (len(key) > 1 or _one_token(t)) for t in group):
                    known.extend(t for t in group if t not in known)
            self._found[key] = known
        return known

    def idiom(self, tokens: Sequence[str]) -> list[str]:
        """Every term of the groups holding a term of these very tokens, a stop word among them
        ("time out", "same time", "all pages"); [] if none."""
        known: list[str] = []
        for i in self._lookup[1].get(" ".join(tokens), ()):
            known.extend(t for t in self.groups[i] if t not in known)
        return known

    @property
    def _buckets(self) -> dict[str, list[int]]:
        """Which groups hold a word starting with these two characters."""
        return self._lookup[0]

    @cached_property
    def _lookup(self) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
        """Which groups hold a word starting with these two characters; which hold a term of
        several words with a stop word, by its tokens (``idiom``), found in the same pass."""
        buckets: dict[str, list[int]] = {}
        idioms: dict[str, list[int]] = {}
        _index_groups(self.groups, 0, buckets, idioms)
        return buckets, idioms

    @cached_property
    def _found(self) -> dict[tuple[str, ...], list[str]]:
        return {}

    def containing(self, word: str) -> list[str]:
        """Every term of the groups holding a term of several words, one of which is this word
        or its plural ("multiplexer": the groups of "terminal multiplexer"), when at most
        LOOSE_TERMS such terms exist; [] otherwise (a word of many terms says little, and each
        group's terms cost the query a longer OR). Words, not stems: a stem is too loose a
        guess here ("site" and "sit")."""
        forms = {word, word + "s", word[:-1] if word.endswith("s") else word}
        terms: set[str] = set()
        groups: list[int] = []
        for i in self._buckets.get(word[:2], ()):
            found = [
                t for t in self.groups[i] if len(toks := tokens_of(t)) > 1 and forms & set(toks)
            ]
            if found:
                terms.update(" ".join(tokens_of(t)) for t in found)
                groups.append(i)
        if len(terms) > LOOSE_TERMS:
            return []
        out: list[str] = []
        for i in groups:
            out.extend(t for t in self.groups[i] if t not in out)
        return out

    def others(self, key: tuple[str, ...]) -> list[str]:
        """The terms sharing a group with ``key`` (a tuple of stems), itself left out."""
        return [t for t in self.terms(key) if _key(t) != key]


@lru_cache(maxsize=16384)
def _key(term: str) -> tuple[str, ...]:
    """A term's stems, its stop words left out as a query's are ("set of sockets" is found
    from the words "set sockets"), unless it has nothing else ("to do")."""
    toks = tokens_of(term)
    content = [t for t in toks if t not in STOP_WORDS] or toks
    return tuple(light_stem(t) for t in content)


def _one_token(term: str) -> bool:
    return term.isalnum() or len(tokens_of(term)) == 1


def _index_groups(
    groups: tuple[tuple[str, ...], ...],
    start: int,
    buckets: dict[str, list[int]],
    idioms: dict[str, list[int]],
) -> None:
    """Add ``groups[start:]`` to the lookup (``Synonyms._lookup``)."""
    for i in range(start, len(groups)):
        starts: set[str] = set()
        for term in groups[i]:
            words = term.lower().split()
            toks = [t for w in words for t in ((w,) if w.isalnum() else tokens_of(w))]
            starts.update(t[:2] for t in toks)
            if len(toks) > 1 and any(t in STOP_WORDS for t in toks):
                idioms.setdefault(" ".join(toks), []).append(i)
        for first in sorted(starts):
            buckets.setdefault(first, []).append(i)


# The packaged synonym table, next to this module in the installed package (importlib.resources
# costs more to import).
SHIPPED_TABLE = os.path.join(os.path.dirname(__file__), "synonyms.txt")


@lru_cache(maxsize=1)
def shipped() -> Synonyms:
    """The packaged synonym table, parsed (a KB's table is kept parsed: ``synonyms.py``)."""
    with open(SHIPPED_TABLE, encoding="utf-8") as fh:
        return Synonyms.parse(fh.read())


# --------------------------------------------------------------------------- concepts


@dataclass
class Concept:
    """One thing the user asked about and the FTS5 strings that may stand for it."""

    text: str
    alternatives: dict[str, list[str]] = field(default_factory=dict)
    weight: float = 1.0  # COMMON_WEIGHT for an everyday word ("several", "found")

    def add(self, kind: str, fts: str) -> None:
        known = {s for alts in self.alternatives.values() for s in alts}
        if fts not in known:
            self.alternatives.setdefault(kind, []).append(fts)

    def matches(self) -> list[tuple[str, float, str]]:
        """(kind, weight, FTS5 query) of each kind of alternative, best first."""
        return [
            (kind, KIND_WEIGHTS[kind], " OR ".join(alts))
            for kind, alts in sorted(self.alternatives.items(), key=lambda kv: -KIND_WEIGHTS[kv[0]])
            if alts
        ]


class Query(NamedTuple):
    """A user's query read as concepts."""

    text: str
    concepts: list[Concept]

    def any_match(self, kinds: Iterable[str] = KIND_WEIGHTS) -> str | None:
        """One FTS5 query matching any alternative of the given kinds of any concept."""
        wanted = set(kinds)
        alts = [
            a
            for c in self.concepts
            for kind, values in c.alternatives.items()
            if kind in wanted
            for a in values
        ]
        return " OR ".join(dict.fromkeys(alts)) if alts else None


def phrase(tokens: Sequence[str]) -> str:
    """Tokens as one FTS5 string (a phrase when several); never FTS5 syntax."""
    return '"' + " ".join(tokens).replace('"', '""') + '"'


Vocabulary = Callable[[str], list[str]]  # the index's words that share a light stem with one


def understand(
    text: str,
    synonyms: Synonyms | None = None,
    variants: Vocabulary | None = None,
    prefix_last: bool = True,
    extra: Iterable[str] = (),
    extensions: Vocabulary | None = None,
) -> Query:
    """Read ``text`` as concepts (see the module's docstring).

    ``variants(token)`` gives the index's words with the token's light stem, ``extensions(token)``
    its longer words that begin with the token and are not its variants; ``extra`` terms (a
    model's related terms, ``search --expand``) join as synonyms of the whole query.
    """
    table = synonyms if synonyms is not None else shipped()
    words = [_unpossessive(w) for w in text.split() if tokens_of(w)]
    # A term of the table written with its stop words ("time out", "same time") is one unit;
    # the other stop words go (unless nothing else is left).
    units: list[tuple[str, list[str]]] = []  # (text, the idiom's group terms, or [])
    j = 0
    while j < len(words):
        for n in range(min(MAX_PHRASE, len(words) - j), 1, -1):
            run = words[j : j + n]
            toks = [t for w in run for t in tokens_of(w)]
            known = table.idiom(toks) if any(_is_stop(w) for w in run) else []
            if known:
                units.append((" ".join(run), known))
                j += n
                break
        else:
            if not _is_stop(words[j]):
                units.append((words[j], []))
            j += 1
    content = units or [(w, []) for w in words]
    concepts: list[Concept] = []
    i = 0
    while i < len(content):
        # The longest run of words (up to MAX_PHRASE) that the synonym table knows.
        span, group = 0, content[i][1]  # an idiom's group, or the known run's found below
        if group:
            span = 1
        else:
            for n in range(min(MAX_PHRASE, len(content) - i), 1, -1):
                if any(known for _w, known in content[i : i + n]):
                    continue
                group = _run_terms(table, [w for w, _k in content[i : i + n]])
                if group:
                    span = n
                    break
        if span:
            run = [w for w, _k in content[i : i + span]]
            toks = [t for w in run for t in tokens_of(w)]
            concept = Concept(" ".join(run))
            concept.add(EXACT, phrase(toks))
            run_key = _key(" ".join(run))
            idiom = content[i][1]
            for term in group:  # the term as written (with its stop words) is no synonym
                same = tokens_of(term) == toks if idiom else _key(term) == run_key
                concept.add(EXACT if same else SYNONYM, phrase(tokens_of(term)))
            for tok in toks:
                if tok not in STOP_WORDS:
                    concept.add(PART, phrase([tok]))
            concepts.append(concept)
            i += span
            continue
        word = content[i][0]
        last = i == len(content) - 1
        concept = _concept(word, table, variants, prefix_last and last, extensions)
        if all(t in COMMON_WORDS for t in tokens_of(word)):
            concept.weight = COMMON_WEIGHT
        if not last and word.isalpha() and content[i + 1][0].isalpha():
            # "lock file" may be written "lockfile", "work tree" "worktree".
            concept.add(SYNONYM, phrase([(word + content[i + 1][0]).lower()]))
        concepts.append(concept)
        i += 1
    if variants is not None:
        for concept in concepts:
            _add_synonym_forms(concept, variants)
    if extra:
        related = Concept("(related)")
        for fts in related_phrases(extra):
            related.add(SYNONYM, fts)
        if related.alternatives:
            concepts.append(related)
    return Query(text, concepts)


def _unpossessive(word: str) -> str:
    """``db's`` -> ``db``, ``users'`` -> ``users``: an English possessive is its word ("the
    repo's hooks" are the repo's); a word that is only that ("'s") stays."""
    for end in ("'s", "\u2019s", "'", "\u2019"):
        if word.endswith(end) and len(word) > len(end) and word[-len(end) - 1].isalnum():
            return word[: -len(end)]
    return word


def _run_terms(table: Synonyms, run: Sequence[str]) -> list[str]:
    """The table's group for a run of words, as typed or with one word read as a one-word term
    of its own group ("embedded db" finds "embedded database", "k8s pod" "kubernetes pod"): an
    abbreviation inside a phrase is still the phrase. [] if neither is known."""
    known = table.terms(_key(" ".join(run)))
    if known or len(run) >= MAX_PHRASE:  # a swap in the longest runs costs more than it finds
        return known
    for at, word in enumerate(run):
        for other in table.others(_key(word)):
            if _one_token(other):
                swapped = [*run[:at], other, *run[at + 1 :]]
                found = table.terms(_key(" ".join(swapped)))
                if found:
                    return found
    return []


def _add_synonym_forms(concept: Concept, variants: Vocabulary) -> None:
    """The index's other forms of each synonym of ``concept``: the table compares its terms by
    light stem ("spikes" finds the term "spike"), so a note's words are found the same way. A
    plural or singular counts as the synonym (``SYNONYM_FORM``: "spike" finds "spikes"), any
    other form of the same light stem as a variant of it (``SYNONYM_VARIANT``: "flush" finds
    "flushing"; the stemmer's guesses, such as "spice" for "spike", count no more than that). A
    term of several words varies its last word ("tmux session": tmux sessions); a code-like
    term (``http/1.1``) is left as it is."""
    for fts in list(concept.alternatives.get(SYNONYM, [])):
        toks = tokens_of(fts.strip('"'))
        if toks and toks[-1].isalpha():
            plural = _plurals(toks[-1])
            for form in variants(toks[-1]):
                kind = SYNONYM_FORM if form in plural else SYNONYM_VARIANT
                concept.add(kind, phrase([*toks[:-1], form]))


def _plurals(word: str) -> set[str]:
    """A word's singular and plural spellings (spike: spikes; query: queries; box: boxes)."""
    forms = {word + "s", word + "es"}
    if word.endswith("y"):
        forms.add(word[:-1] + "ies")
    if word.endswith("ies"):
        forms.add(word[:-3] + "y")
    if word.endswith("es"):
        forms.add(word[:-2])
    if word.endswith("s"):
        forms.add(word[:-1])
    return forms - {word}


def related_phrases(terms: Iterable[str]) -> list[str]:
    """A model's related terms (``--expand``) as FTS5 phrases, once each; a term of nothing but
    stop words is left out."""
    out: list[str] = []
    for term in terms:
        toks = tokens_of(term)
        if toks and not all(t in STOP_WORDS for t in toks):
            out.append(phrase(toks))
    return list(dict.fromkeys(out))


def _is_stop(word: str) -> bool:
    toks = tokens_of(word)
    return all(t in STOP_WORDS for t in toks)


def _concept(
    word: str,
    table: Synonyms,
    variants: Vocabulary | None,
    as_prefix: bool,
    extensions: Vocabulary | None = None,
) -> Concept:
    toks = tokens_of(word)
    concept = Concept(word)
    concept.add(EXACT, phrase(toks))
    code_like = len(toks) > 1 or bool(camel_parts(alnum_runs(word)[0]))
    key = _key(word)
    for other in table.others(key):
        concept.add(SYNONYM, phrase(tokens_of(other)))
    if len(toks) > 1:  # "all-pages" is the term "all pages", its stop word included
        for other in table.idiom(toks):
            if tokens_of(other) != toks:
                concept.add(SYNONYM, phrase(tokens_of(other)))
    if not code_like:
        tok = toks[0]
        if variants is not None and tok.isalpha():
            known = variants(tok)  # the index's words with the token's stem, itself included
            for v in known:
                if v != tok:
                    concept.add(VARIANT, phrase([v]))
            if not known and not table.terms(key) and tok not in COMMON_WORDS:
                for term in table.containing(tok):
                    if _key(term) != key:
                        concept.add(LOOSE, phrase(tokens_of(term)))
        if as_prefix and tok.isalpha() and len(tok) >= PREFIX_MIN:
            concept.add(PREFIX, phrase([tok]) + "*")
        elif extensions is not None and tok.isalpha() and len(tok) >= EXTENSION_MIN:
            for longer in extensions(tok):  # the prefix's words, named: no FTS5 prefix scan
                concept.add(PREFIX, phrase([longer]))
        return concept
    parts: list[str] = []
    for raw in alnum_runs(word):
        low = raw.lower()
        parts.extend([low, *camel_parts(raw)])
    for part in dict.fromkeys(parts):
        if part in STOP_WORDS or (len(part) < 2 and not part.isdigit()):
            continue
        concept.add(PART, phrase([part]))
        for other in table.others((light_stem(part),)):
            concept.add(PART_SYNONYM, phrase(tokens_of(other)))
    return concept
