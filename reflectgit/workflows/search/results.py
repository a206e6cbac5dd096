"""What a search and a refresh of the index give back: hits, a search's result, a refresh's
result, and the ``--json`` document of a search."""

from __future__ import annotations

from reflectgit.records import FrozenRecord, Record

TYPE_CHECKING = False  # no typing at run time
if TYPE_CHECKING:
    from typing import Any


class RefreshResult(FrozenRecord):
    """What a refresh did: the tree now indexed, notes re-read, and whether it rebuilt."""

    _FIELDS = ("tree", "previous", "changed", "rebuilt")
    tree: str | None
    previous: str | None
    changed: int
    rebuilt: bool

    def __init__(self, tree: str | None, previous: str | None, changed: int, rebuilt: bool) -> None:
        object.__setattr__(self, "tree", tree)
        object.__setattr__(self, "previous", previous)
        object.__setattr__(self, "changed", changed)
        object.__setattr__(self, "rebuilt", rebuilt)

    @property
    def to_json(self) -> dict[str, Any]:
        return {
            "tree": self.tree,
            "previous": self.previous,
            "changed": self.changed,
            "rebuilt": self.rebuilt,
        }


class Hit(Record):
    """One ranked note, with the parts of its score so a reader can see why it ranked."""

    _FIELDS = (
        "id",
        "title",
        "tier",
        "state",
        "path",
        "snippet",
        "score",
        "bm25",
        "confidence_weight",
        "proof_weight",
        "edge_match",
        "matched_fields",
    )
    id: str
    title: str
    tier: str
    state: str
    path: str
    snippet: str
    score: float
    bm25: float
    confidence_weight: float
    proof_weight: float
    edge_match: bool
    matched_fields: list[str]

    def __init__(
        self,
        id: str,
        title: str,
        tier: str,
        state: str,
        path: str,
        snippet: str,
        score: float,
        bm25: float,
        confidence_weight: float,
        proof_weight: float,
        edge_match: bool = False,
        matched_fields: list[str] | None = None,
        rowid: int = 0,
    ) -> None:
        self.rowid = rowid  # the index's row: for snippets, recall and browse (not shown)
        self.id = id
        self.title = title
        self.tier = tier
        self.state = state
        self.path = path
        self.snippet = snippet
        self.score = score
        self.bm25 = bm25
        self.confidence_weight = confidence_weight
        self.proof_weight = proof_weight
        self.edge_match = edge_match
        self.matched_fields = [] if matched_fields is None else matched_fields

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "tier": self.tier,
            "state": self.state,
            "path": self.path,
            "snippet": self.snippet,
            "score": round(self.score, 4),
            "why": {
                "bm25": round(self.bm25, 4),
                "confidence_weight": round(self.confidence_weight, 4),
                "proof_weight": round(self.proof_weight, 4),
                "tie_weight": round(self.score / self.bm25, 4) if self.bm25 else 1.0,
                "matched_fields": self.matched_fields,
                "edge_match": self.edge_match,
            },
        }


class SearchResult(Record):
    """Hits for a query, and the tree (and refresh) they came from."""

    _FIELDS = ("query", "hits", "tree", "refresh", "at", "understood")
    query: str
    hits: list[Hit]
    tree: str | None
    refresh: RefreshResult | None
    at: str | None
    # How the query was read: each concept with its alternatives by kind (query.py).
    understood: list[dict[str, Any]]

    def __init__(
        self,
        query: str,
        hits: list[Hit],
        tree: str | None,
        refresh: RefreshResult | None = None,
        at: str | None = None,
        understood: list[dict[str, Any]] | None = None,
    ) -> None:
        self.query = query
        self.hits = hits
        self.tree = tree
        self.refresh = refresh
        self.at = at
        self.understood = [] if understood is None else understood


def result_json(result: SearchResult) -> dict[str, Any]:
    """The ``--json`` document of ``search``."""
    return {
        "query": result.query,
        "tree": result.tree,
        "at": result.at,
        "refreshed": result.refresh.to_json if result.refresh else None,
        "understood": result.understood,
        "hits": [h.to_json() for h in result.hits],
    }
