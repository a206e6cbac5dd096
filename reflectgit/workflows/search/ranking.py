"""Ranking notes for a query: the concepts query.py reads from it, each scored with bm25 over
the index's full-text tables, summed, with confidence and proofs as a tie-breaker; the words
the index holds (variants, frequencies); snippets and matched fields."""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from reflectgit.errors import UsageError
from reflectgit.git.objects import blob_id
from reflectgit.workflows.search.documents import (
    FIELDS,
    confidence_weight,
    parse_when,
    proof_weight,
    tie_weight,
)
from reflectgit.workflows.search.results import Hit, SearchResult
from reflectgit.workflows.search.storage import (
    TOKENIZER,
    Storage,
    fts_row_count,
    meta_value,
    one_value,
)
from reflectgit.workflows.search.tokens import closing_fence, has_alnum

if TYPE_CHECKING:
    from typing import Any

    from reflectgit.workflows.search.query import Concept, Query, Synonyms

# The bm25 weight of each column of the full-text table (documents.FIELDS, in order).
# Tuned on the ``tune`` half of bench/retrieval.py's queries: every field counts the same (a
# title word used to count ten times over; then a title or key insight twice, which lost on the
# tune half's 99 added queries: a query in other words rarely has the title's words, and a
# short title's one shared everyday word outranked the note that answered).
WEIGHTS = (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
EDGE_WEIGHT = 0.5  # an edge match counts half as much as the same words in the note
# Coverage: a note's relevance is multiplied by (the share of the query's concepts it matches,
# each counted by its own weight) ** COVERAGE_POWER. What lets `git grep`, ranking by how many
# of the query's words a note holds, beat plain bm25 on notes nobody tuned on: bm25's sum lets
# one rare word matched many times outweigh a note that holds most of what was asked.
COVERAGE_POWER = 1.0
CANDIDATES = 500  # notes read per concept and kind of alternative, best bm25 first
VOCABULARY_SCAN = 4000  # index words read to find a query word's variants
EXTENSIONS = 20  # at most this many longer words a query word begins (query.EXTENSION_MIN)


# --------------------------------------------------------------------------- queries


def words_of(text: str) -> list[str]:
    """The user's input as whitespace-separated words that hold at least one letter or digit."""
    return [w for w in text.split() if has_alnum(w)]


def fts_query(text: str, mode: str = "and", prefix_last: bool = True) -> str | None:
    """User input as an FTS5 query of quoted words (never FTS5 syntax); None if no words.

    Every word is an FTS5 string, so ``foo-bar``, quotes, ``:`` and ``*`` are just text. Stop
    words are left out (unless nothing else is left); the last word also matches as a prefix
    when it has four or more letters, so a query typed halfway still finds its note.
    """
    from reflectgit.workflows.search.query import PREFIX_MIN, STOP_WORDS, tokens_of

    words = words_of(text)
    if not words:
        return None
    content = [w for w in words if not all(t in STOP_WORDS for t in tokens_of(w))] or words
    parts = ['"' + w.replace('"', '""') + '"' for w in content]
    last = content[-1]
    if prefix_last and last.isalpha() and len(last) >= PREFIX_MIN:
        parts[-1] += "*"
    return (" OR " if mode == "or" else " ").join(parts)


def require_words(query: str) -> None:
    """A query with no word in it (``!!``, spaces) is a usage error, before any work."""
    if fts_query(query) is None:
        raise UsageError(f"nothing to search for in {query!r}", hint="give at least one word")


class Ranker(Storage):
    """Reading the index for a query: search, the ranked list, the words it holds."""

    def search(
        self,
        query: str,
        limit: int = 10,
        include_all: bool = False,
        tag: str | None = None,
        confidence: str | None = None,
        as_of: str | None = None,
        now: dt.datetime | None = None,
        explain: bool = False,
        synonyms: Synonyms | None = None,
        related: Sequence[str] = (),
        served_only: bool = False,
    ) -> SearchResult:
        """Ranked notes, best first: relevance (the sum over query.py's concepts of each one's
        best alternative's bm25), then confidence and proofs as a tie-breaker.

        ``related`` terms (``search --expand``) count as synonyms of the whole query;
        ``served_only`` leaves out the notes withheld from agents (``Hit.withheld`` flags them
        otherwise, their secrets masked).
        """
        understood = self._understand(query, synonyms, related)
        match = understood.any_match()
        if match is None:
            raise UsageError(f"nothing to search for in {query!r}", hint="give at least one word")
        start, end = parse_when(as_of if as_of is not None else (now or _now()))
        hits = self._ranked(
            understood, limit, include_all, tag, confidence, start, end, served_only=served_only
        )
        self._decorate(hits, match, explain)
        concepts = [{"text": c.text, **c.alternatives} for c in understood.concepts]
        return SearchResult(query=query, hits=hits, tree=self.tree or None, understood=concepts)

    def ranked(
        self,
        query: str,
        limit: int = CANDIDATES,
        include_all: bool = False,
        tag: str | None = None,
        confidence: str | None = None,
        as_of: str | dt.date | dt.datetime | None = None,
        now: dt.datetime | None = None,
        synonyms: Synonyms | None = None,
        related: Sequence[str] = (),
        prefix_last: bool = True,
        cut: int = CANDIDATES,
        state: str | None = None,
        project: str | None = None,
        served_only: bool = False,
    ) -> list[Hit]:
        """The notes ``search`` would give for ``query``, in its order, without snippets
        (``Hit.rowid`` says which row each is): the one text ranking that recall and the
        web UI's listing (``workflows/browse.py``) use too.
        ``prefix_last`` reads the last word as a prefix too, as search does; ``cut`` is how
        many notes each alternative reads, best bm25 first; ``state`` (one state, with
        ``include_all``) and ``project`` filter before that cut, as ``tag`` and ``confidence``
        do. Nothing to look for (no word at all) is no hit, not an error."""
        understood = self._understand(query, synonyms, related, prefix_last)
        if understood.any_match() is None:
            return []
        start, end = parse_when(as_of if as_of is not None else (now or _now()))
        return self._ranked(
            understood,
            limit,
            include_all,
            tag,
            confidence,
            start,
            end,
            cut,
            state,
            project,
            served_only=served_only,
        )

    def _understand(
        self,
        query: str,
        synonyms: Synonyms | None,
        related: Sequence[str],
        prefix_last: bool = True,
    ) -> Query:
        from reflectgit.workflows.search.query import understand

        scans: dict[str, list[str]] = {}  # a word's stretch of the index's words, read once

        return understand(
            query,
            synonyms,
            lambda token: self.variants(token, scans),
            prefix_last=prefix_last,
            extra=related,
            extensions=lambda token: self.extensions(token, scans),
        )

    def frequencies(self, tokens: Sequence[str]) -> tuple[int, dict[str, int]]:
        """The number of notes, and how many hold each of ``tokens`` (those no note holds are
        left out): which words are too common to look up (``_nil``), from FTS5's own counts
        (its averages record, the vocabulary table), nothing read per note."""
        self._words()
        found: dict[str, int] = {}
        for token in tokens:
            row = self.conn.execute("SELECT doc FROM temp.fts_words WHERE term = ?", (token,))
            n = row.fetchone()
            if n:
                found[token] = n[0]
        return fts_row_count(self.conn), found

    def _words(self) -> None:
        """The temp fts5vocab table of the index's words, made on the first query."""
        if not self._vocabulary:
            self.conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_words USING fts5vocab(main, fts, row)"
            )
            self._vocabulary = True

    def variants(self, token: str, scans: dict[str, list[str]] | None = None) -> list[str]:
        """The index's words with the light stem of ``token`` (revoke: revoked, revocation),
        ``token`` itself among them when a note holds it: [] says no note holds the word.
        ``scans`` keeps the index's words read for a token, for ``extensions``."""
        from reflectgit.workflows.search.query import light_stem

        stem = light_stem(token)
        return [t for t in self._stretch(stem, scans, token) if light_stem(t) == stem]

    def extensions(self, token: str, scans: dict[str, list[str]] | None = None) -> list[str]:
        """The index's longer words that begin with ``token`` and do not share its light stem
        (cancel: cancellation, state: stateless; not cancels, a variant), the first
        ``EXTENSIONS`` of them in the index's order: what `git grep` finds inside a longer word,
        for query.py's prefix alternative. [] for a token no longer word begins. They are
        among the words ``variants`` read for the token (``scans``), which are read again only
        when they may not hold them all."""
        from reflectgit.workflows.search.query import light_stem

        stem = light_stem(token)
        words = self._stretch(stem, scans, token)
        if not token.startswith(_low(stem)) or len(words) >= VOCABULARY_SCAN:
            words = self._stretch(token, None, token)
        found = [
            t
            for t in words
            if len(t) > len(token) and t.startswith(token) and t.isalpha() and light_stem(t) != stem
        ]
        return found[:EXTENSIONS]

    def _stretch(self, stem: str, scans: dict[str, list[str]] | None, token: str) -> list[str]:
        """The index's words that begin as ``stem`` does (all but its last letter, for a stem of
        four letters or more: revoke's stem revoc finds revocation), at most VOCABULARY_SCAN;
        kept in ``scans`` under ``token`` when given."""
        if scans is not None and token in scans:
            return scans[token]
        low = _low(stem)
        high = low[:-1] + chr(ord(low[-1]) + 1)
        self._words()
        rows = self.conn.execute(
            "SELECT term FROM temp.fts_words WHERE term >= ? AND term < ? LIMIT ?",
            (low, high, VOCABULARY_SCAN),
        )
        words = [t for (t,) in rows]
        if scans is not None:
            scans[token] = words
        return words

    def _ranked(
        self,
        understood: Query,
        limit: int,
        include_all: bool,
        tag: str | None,
        confidence: str | None,
        start: str,
        end: str,
        cut: int = CANDIDATES,
        state: str | None = None,
        project: str | None = None,
        *,
        served_only: bool = False,
    ) -> list[Hit]:
        """The notes the filters let through, scored for the query's concepts (the best
        ``limit``, best first): each concept scored (``_concept_scores``), then each note read
        and weighed (``_hits``)."""
        cond, filters = filter_conditions(include_all, served_only, tag, confidence, state, project)
        concepts = understood.concepts
        scored = self._concept_scores(concepts, cond, filters, max(cut, limit), start, end)
        if not scored.best:
            return []
        hits = self._hits(scored, concepts)
        hits.sort(key=lambda h: (-h.score, h.id))
        return hits[:limit]

    def _concept_scores(
        self,
        concepts: Sequence[Concept],
        cond: str,
        filters: Sequence[Any],
        cut: int,
        start: str,
        end: str,
    ) -> _Scored:
        """Each note's score per concept, and the best kind of alternative it matched.

        One bm25 query per concept and kind of alternative (a few each), best ``cut`` of each:
        a note's concept score is its best alternative's bm25 times the kind's weight (plus
        half for an edge valid between ``start`` and ``end``); relevance is the sum over
        concepts (``_hits``), so a concept counts once however many of its synonyms a note
        holds, times the note's coverage of the query (``coverage``)."""
        weights = ", ".join(str(w) for w in WEIGHTS)
        has_edges = one_value(self.conn, "SELECT 1 FROM edges LIMIT 1") is not None
        scored = _Scored({}, {}, set())
        nil = self._nil(concepts, cut)
        for i, concept in enumerate(concepts):
            for _kind, kind_weight, match in concept.matches():
                found: dict[int, float] = {}
                for rowid, b in (
                    ()
                    if match in nil
                    else self.conn.execute(
                        f"SELECT d.rowid, bm25(fts, {weights}) AS b FROM fts"
                        f" JOIN docs d ON d.rowid = fts.rowid WHERE fts MATCH ?{cond}"
                        f" ORDER BY b LIMIT ?",
                        (match, *filters, cut),
                    )
                ):
                    found[rowid] = -b
                if has_edges:
                    for rowid, b in self.conn.execute(
                        f"SELECT ed.doc, min(ed.b) FROM (SELECT e.doc AS doc, bm25(edge_fts) AS b"
                        f" FROM edge_fts JOIN edges e ON e.rowid = edge_fts.rowid"
                        f" WHERE edge_fts MATCH ? AND (e.vstart IS NULL OR e.vstart <= ?)"
                        f" AND (e.vend IS NULL OR e.vend >= ?) LIMIT -1) AS ed"
                        f" JOIN docs d ON d.rowid = ed.doc WHERE 1{cond} GROUP BY ed.doc"
                        f" ORDER BY min(ed.b) LIMIT ?",
                        (match, end, start, *filters, cut),
                    ):
                        found[rowid] = found.get(rowid, 0.0) - b * EDGE_WEIGHT
                        scored.edged.add(rowid)
                for rowid, rel in found.items():
                    scores = scored.best.setdefault(rowid, [0.0] * len(concepts))
                    scores[i] = max(scores[i], rel * kind_weight * concept.weight)
                    held = scored.matched.setdefault(rowid, [0.0] * len(concepts))
                    held[i] = max(held[i], kind_weight)
        return scored

    def _hits(self, scored: _Scored, concepts: Sequence[Concept]) -> list[Hit]:
        """The scored notes read from the index, each a Hit: its relevance (the sum of its
        concept scores times its coverage of the query) times its tie weight."""
        cols = "d.rowid, d.id, d.title, d.tier, d.state, d.path, d.confidence, d.proofs, d.weight"
        cols += ", d.withheld"
        rows: list[tuple[Any, ...]] = []
        ordered = list(scored.best)
        for at in range(0, len(ordered), 500):  # SQLite caps the number of parameters
            chunk = ordered[at : at + 500]
            marks = ",".join("?" * len(chunk))
            rows.extend(
                self.conn.execute(f"SELECT {cols} FROM docs d WHERE d.rowid IN ({marks})", chunk)
            )
        shares = [c.weight for c in concepts]
        hits = []
        for row in rows:
            rowid, note_id, title, tier, state, path, conf, proofs, weight, withheld = row
            relevance = (
                sum(scored.best[rowid]) * coverage(scored.matched[rowid], shares) ** COVERAGE_POWER
            )
            hit = Hit(
                id=note_id,
                title=title,
                tier=tier,
                state=state,
                path=path,
                snippet="",
                score=relevance * tie_weight(weight),
                bm25=relevance,
                confidence_weight=confidence_weight(conf),
                proof_weight=proof_weight(proofs),
                edge_match=rowid in scored.edged,
                rowid=rowid,
                withheld=withheld,
            )
            hits.append(hit)
        return hits

    def _nil(self, concepts: Sequence[Concept], cut: int) -> set[str]:
        """The alternatives not worth an FTS5 query: single words found in at least half the
        notes and in more than ``cut`` of them. Their IDF is zero, which FTS5's bm25 floors
        at 1e-6, so they add nothing to any note's score; yet they are the costliest queries
        (bm25 for every note that holds them, then a sort), and a KB's most common words come
        up in long queries (recall's project words: "python", "notes"). None is skipped when
        they are all the query has, and in a KB of ``2 * cut`` notes or fewer, where more than
        ``cut`` of them cannot hold a word, nothing changes."""
        singles = {
            match[1:-1]
            for concept in concepts
            for _kind, _weight, match in concept.matches()
            if match.count('"') == 2 and match[0] == match[-1] == '"' and " " not in match
        }
        if not singles:
            return set()
        total, found = self.frequencies(sorted(singles))
        nil = {f'"{t}"' for t, n in found.items() if n > cut and 2 * n >= total}
        if nil and all(m in nil for c in concepts for _k, _w, m in c.matches()):
            return set()
        return nil

    def _decorate(self, hits: list[Hit], match: str, explain: bool) -> None:
        if not hits:
            return
        by_row = {h.rowid: h for h in hits}
        marks = ",".join("?" * len(by_row))
        for rowid, snip in self._snippets(match, list(by_row)).items():
            by_row[rowid].snippet = " ".join(snip.split())
        for hit in hits:
            if not hit.snippet:  # matched through an edge only, or the OR fallback
                row = self.conn.execute(
                    "SELECT summary FROM docs WHERE rowid = ?",
                    (hit.rowid,),
                ).fetchone()
                hit.snippet = " ".join((row[0] if row else "").split())[:160]
        if not explain:
            return
        for name in FIELDS:
            for (rowid,) in self.conn.execute(
                f"SELECT rowid FROM fts WHERE fts MATCH ? AND rowid IN ({marks})",
                ("{" + name + "} : (" + match + ")", *by_row),
            ):
                by_row[rowid].matched_fields.append(name)
        for hit in hits:
            if hit.edge_match:
                hit.matched_fields.append("edges")

    def _snippets(self, match: str, rowids: Sequence[int]) -> dict[int, str]:
        """FTS5 snippets of the given notes for ``match``. The index keeps no copy of the
        text, so the notes' title, summary and body (from the work tree, when the file there
        is the indexed blob) go into a throwaway in-memory FTS5 table with the same tokenizer,
        and SQLite's own ``snippet()`` runs there."""
        if not rowids:
            return {}
        marks = ",".join("?" * len(rowids))
        rows = self.conn.execute(
            f"SELECT d.rowid, d.path, d.title, d.summary, f.blob, d.withheld FROM docs d"
            f" LEFT JOIN files f ON f.path = d.path WHERE d.rowid IN ({marks})",
            list(rowids),
        ).fetchall()
        root = meta_value(self.conn, "worktree")
        snip = sqlite3.connect(":memory:")
        try:
            snip.execute(
                f"CREATE VIRTUAL TABLE s USING fts5({', '.join(FIELDS)}, tokenize='{TOKENIZER}')"
            )
            values = []
            for rowid, path, title, summary, blob, withheld in rows:
                texts = dict.fromkeys(FIELDS, "")
                texts["title"], texts["key_insight"] = title, summary  # masked when withheld
                if withheld is None:  # a withheld note's file is never read again: its secret
                    texts["body"] = _worktree_body(root, path, blob.hex() if blob else None)
                values.append((rowid, *(texts[f] for f in FIELDS)))
            snip.executemany(  # one statement prepared, not one a note
                f"INSERT INTO s (rowid, {', '.join(FIELDS)}) VALUES (?{', ?' * len(FIELDS)})",
                values,
            )
            return {
                rowid: text or ""
                for rowid, text in snip.execute(
                    "SELECT rowid, snippet(s, -1, '[', ']', '…', 12) FROM s WHERE s MATCH ?",
                    (match,),
                )
            }
        except sqlite3.OperationalError:
            return {}
        finally:
            snip.close()


class _Scored(NamedTuple):
    """What ``Ranker._concept_scores`` found: rowid -> score per concept, rowid -> the best
    kind weight matched per concept, and the rowids an edge matched."""

    best: dict[int, list[float]]
    matched: dict[int, list[float]]
    edged: set[int]


def filter_conditions(
    include_all: bool,
    served_only: bool,
    tag: str | None,
    confidence: str | None,
    state: str | None,
    project: str | None,
) -> tuple[str, list[Any]]:
    """The search filters as SQL conditions on ``docs d`` (each led by " AND ") and their
    parameters: live and not hidden unless ``include_all``, not withheld when ``served_only``,
    then the tag, tier (``confidence``), state and project asked for. The web UI's listing
    (``workflows/browse.py``) filters its rows with the same conditions."""
    where = []
    filters: list[Any] = []
    if not include_all:
        where.append("d.state = 'live' AND d.hidden = 0")
    if served_only:
        where.append("d.withheld IS NULL")
    if tag:
        where.append("EXISTS (SELECT 1 FROM doc_tags t WHERE t.doc = d.rowid AND t.tag = ?)")
        filters.append(tag.strip().lower())
    if confidence:
        where.append("d.tier = ?")
        filters.append(confidence)
    if state:
        where.append("d.state = ?")
        filters.append(state)
    if project:
        where.append("d.project = ?")
        filters.append(project)
    return "".join(" AND " + w for w in where), filters


def _low(stem: str) -> str:
    """Where a stem's stretch of the index's words starts (``Ranker._stretch``)."""
    return stem[:-1] if len(stem) >= 4 else stem


def coverage(matched: Sequence[float], weights: Sequence[float]) -> float:
    """How much of the query a note holds: the concepts it matches, each counted by its weight
    (an everyday word less) times how good the match was (the kind's weight: the word typed 1,
    a synonym 0.9, a code-like word's part 0.3), over the sum of the weights."""
    total = sum(weights)
    if total <= 0:
        return 1.0
    return sum(m * w for m, w in zip(matched, weights, strict=True)) / total


def _worktree_body(root: str | None, path: str, blob: str | None) -> str:
    """The body of the note at ``path`` in the KB's work tree, if the file there is still the
    indexed blob (checked by its git id); else "" (a bare KB, an edited or missing file)."""
    if not root or not blob:
        return ""
    try:
        with open(os.path.join(root, path), "rb") as fh:
            data = fh.read()
    except OSError:
        return ""
    if blob_id(data) != blob:
        return ""
    text = data.decode("utf-8", "replace")
    if text.startswith("---"):
        end = closing_fence(text[3:])
        if end is not None:
            return text[3 + end :]
    return text


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)
