"""What a search and a refresh of the index give back: hits, a search's result, a refresh's
result, and the ``--json`` document of a search."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple


class RefreshResult(NamedTuple):
    """What a refresh did: the tree now indexed, notes re-read, and whether it rebuilt."""

    tree: str | None
    previous: str | None
    changed: int
    rebuilt: bool

    @property
    def to_json(self) -> dict[str, Any]:
        return {
            "tree": self.tree,
            "previous": self.previous,
            "changed": self.changed,
            "rebuilt": self.rebuilt,
        }


@dataclass
class Hit:
    """One ranked note, with the parts of its score so a reader can see why it ranked."""

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
    edge_match: bool = False
    matched_fields: list[str] = field(default_factory=list)
    # the index's row: for snippets, recall and browse (not shown)
    rowid: int = field(default=0, compare=False, repr=False)
    # why the note is withheld from agents (notes/withheld.py), None when it is not
    withheld: str | None = None
    # the code it names moved on (workflows/code/labels.py), None when not (or not known)
    stale: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "tier": self.tier,
            "state": self.state,
            "path": self.path,
            "snippet": self.snippet,
            "withheld": self.withheld,
            "stale": self.stale,
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


@dataclass
class SearchResult:
    """Hits for a query, and the tree (and refresh) they came from."""

    query: str
    hits: list[Hit]
    tree: str | None
    refresh: RefreshResult | None = None
    at: str | None = None
    # How the query was read: each concept with its alternatives by kind (query.py).
    understood: list[dict[str, Any]] = field(default_factory=list)


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


def hit_lines(result: SearchResult, include_all: bool = False) -> list[str]:
    """The text of ``search`` (the CLI's and the MCP tool's): one line per hit (id, tier,
    title), its snippet indented below; the scores and the query's reading stay in the JSON."""
    lines: list[str] = []
    for hit in result.hits:
        state = "" if hit.state == "live" else f" ({hit.state})"
        lines.append(f"{hit.id}  [{hit.tier}]  {hit.title}{state}")
        if hit.withheld:
            lines.append(f"    ! withheld from agents: {hit.withheld}")
        if hit.stale:
            lines.append(f"    ! {hit.stale}")
        if hit.snippet:
            lines.append(f"    {hit.snippet}")
    if not result.hits:
        lines.append(f"no notes match {result.query!r}" + ("" if include_all else " (try --all)"))
    return lines
