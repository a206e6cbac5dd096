"""Browsing the KB a page at a time: the notes table of ``reflect-git serve``, off the index.

The search index (``workflows/search/index.py``) already holds one row per note with its tier,
state, project, tags and proof count, kept in step with git before every query. Browsing reads
those rows with SQL (filters, sort, one page), so the notes page answers in milliseconds at ten
thousand notes instead of parsing every note's YAML.

A text query is ranked by search's own ranking (``Index.ranked``: concepts, the synonym table,
light-stem variants, coverage, confidence and proofs as a tie weight), so the same
words find the same notes in the same order in ``reflect-git search``, in the web UI and in
recall. The listing holds search's best ``MAX_MATCHES`` notes; the filters and a column sort
then work on that ranked set.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflectgit.config import Config
from reflectgit.errors import UsageError
from reflectgit.notes.note import normalize_tier
from reflectgit.workflows.search.index import open_fresh
from reflectgit.workflows.search.ranking import CANDIDATES, filter_conditions, require_words
from reflectgit.workflows.search.synonyms import kb_synonyms

SORTS = {
    "title": "d.title COLLATE NOCASE, d.id",
    "-title": "d.title COLLATE NOCASE DESC, d.id",
    "updated": "d.updated IS NULL, d.updated, d.id",
    "-updated": "d.updated IS NULL, d.updated DESC, d.id",
    "proofs": "d.proofs, d.id",
    "-proofs": "d.proofs DESC, d.id",
    "tier": "d.confidence DESC, d.id",
    "-tier": "d.confidence, d.id",
    "id": "d.id",
}
STATES = ("live", "superseded", "retired", "archived", "forgotten", "all")
MAX_PER_PAGE = 200
# A text query lists search's best this many notes, before the state and project filters: the
# number of notes each of search's alternatives reads (its ``CANDIDATES``), so the listing is
# exactly ``reflect-git search --limit N`` for every N up to it (a higher limit makes search
# read more of each alternative, which can reorder a large KB's list). Ten pages of 50.
MAX_MATCHES = CANDIDATES


@dataclass(frozen=True)
class Row:
    id: str
    title: str
    tier: str
    state: str
    path: str
    project: str | None
    tags: list[str]
    proofs: int
    updated: str | None
    summary: str
    # why agents are never served this note (notes/withheld.py); its secrets are masked here
    withheld: str | None = None


@dataclass
class Page:
    """One page of notes and what the filters can choose from."""

    rows: list[Row]
    total: int
    page: int
    per_page: int
    query: str
    sort: str
    filters: dict[str, str | None]
    tags: list[str] = field(default_factory=list)
    projects: list[str] = field(default_factory=list)
    refreshed: int | None = None  # notes re-read to bring the index up to HEAD
    capped: bool = False  # a text query reached MAX_MATCHES: more notes may match

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "page": self.page,
            "pages": self.pages,
            "per_page": self.per_page,
            "query": self.query,
            "sort": self.sort,
            "filters": self.filters,
            "capped": self.capped,
            "notes": [r.__dict__ for r in self.rows],
        }


def browse(
    cfg: Config,
    query: str = "",
    *,
    tier: str | None = None,
    tag: str | None = None,
    state: str | None = "live",
    project: str | None = None,
    sort: str | None = None,
    page: int = 1,
    per_page: int = 50,
) -> Page:
    """The notes matching the filters (and the words of ``query``), one page of them.

    With a ``query``, the notes are search's hits for it (``Index.ranked``, the KB's synonym
    table included), at most ``MAX_MATCHES``: sorted by ``rank`` (the default) in search's
    order, by another column in that column's order; ``total`` counts those the filters keep.
    A query with no word in it is a UsageError."""
    state = state or "live"
    if state not in STATES:
        raise UsageError(f"state {state!r} is not one of {', '.join(STATES)}")
    wanted_tier = None
    if tier:
        wanted_tier = normalize_tier(tier)
        if wanted_tier is None:
            raise UsageError(f"tier {tier!r} is not a tier", hint="high, medium or low")
    query = query.strip()
    sort = sort or ("rank" if query else "title")
    if sort not in SORTS and not (sort == "rank" and query):
        raise UsageError(
            f"sort {sort!r} is not one of {', '.join(SORTS)}",
            hint="a leading - sorts the other way: sort=-updated is the newest first",
        )
    page = max(1, page)
    per_page = min(max(1, per_page), MAX_PER_PAGE)
    include_all = state != "live"  # "all", or one state: hidden notes too
    only = None if state in ("live", "all") else state
    conditions, params = filter_conditions(include_all, False, tag, wanted_tier, only, project)
    order = SORTS.get(sort, "")
    if query:
        require_words(query)
    cond = f" WHERE 1{conditions}"
    cols = "d.id, d.title, d.tier, d.state, d.path, d.project, d.tags, d.proofs, d.updated"
    synonyms = kb_synonyms(cfg.kb, cfg.search.synonyms, cfg.state_dir) if query else None
    index, refreshed = open_fresh(Path(cfg.kb), cfg.state_dir, cfg.env)
    capped = False
    try:
        conn = index.conn
        source = "docs d"
        if query:
            # Search's hits in search's order (every filter inside its ranking, so its bound
            # counts only notes they let through), as a JSON array of index rows:
            # ``json_each`` gives each its place (``key``), one parameter however many.
            hits = index.ranked(
                query,
                limit=MAX_MATCHES,
                include_all=include_all,
                tag=tag,
                confidence=wanted_tier,
                synonyms=synonyms,
                state=only,
                project=project,
            )
            capped = len(hits) >= MAX_MATCHES
            source = "json_each(?) m JOIN docs d ON d.rowid = m.value"
            params.insert(0, json.dumps([h.rowid for h in hits]))
            if sort == "rank":
                order = "m.key"
        total = conn.execute(f"SELECT count(*) FROM {source}{cond}", params).fetchone()[0]
        found = conn.execute(
            f"SELECT {cols}, d.summary, d.withheld FROM {source}{cond}"
            f" ORDER BY {order} LIMIT ? OFFSET ?",
            (*params, per_page, (page - 1) * per_page),
        ).fetchall()
        rows = [_row(r) for r in found]
        tags = [t for (t,) in conn.execute("SELECT DISTINCT tag FROM doc_tags ORDER BY tag")]
        projects = [
            p
            for (p,) in conn.execute(
                "SELECT DISTINCT project FROM docs WHERE project IS NOT NULL ORDER BY project"
            )
        ]
    finally:
        index.close()
    return Page(
        rows,
        total,
        page,
        per_page,
        query,
        sort,
        {"tier": wanted_tier, "tag": tag or None, "state": state, "project": project or None},
        tags,
        projects,
        refreshed.changed if refreshed is not None else None,
        capped,
    )


def _row(r: Any) -> Row:
    """One row of the listing's query (the index's columns, then summary and withheld)."""
    return Row(
        id=r[0],
        title=r[1],
        tier=r[2],
        state=r[3],
        path=r[4],
        project=r[5],
        tags=[t for t in r[6].split("\n") if t],
        proofs=r[7],
        updated=r[8],
        summary=" ".join(r[9].split())[:200],
        withheld=r[10],
    )
