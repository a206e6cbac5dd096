"""The search index: a derived SQLite FTS5 database that can never silently drift from git.

The index lives in the state directory (``search.sqlite3``) and records the root tree it was
built from. Before every query the current tree is compared with that one (cheaply: the ref
and the commit object are read straight from the git directory); when they differ, only the
files the git diff names are re-read. Deleting or corrupting the file loses nothing but the
time to rebuild it. Notes in ``documents/``, ``archived/`` and ``.forgotten/`` are indexed with a
state (live, archived, forgotten, superseded, retired), so ``--all`` needs no second index.

Sidecar relationships are indexed one row per edge with their validity interval (``tvalid`` ..
``tvalid_end``), so an edge's words only match at dates when the edge held.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from reflectgit.config import ARCHIVED, DOCUMENTS, FORGOTTEN
from reflectgit.digest import sha1, sha256
from reflectgit.errors import ConfigError, NoteError, NotFoundError, ReflectGitError, UsageError
from reflectgit.git import repo_info
from reflectgit.git.pending import recover_if_pending
from reflectgit.records import FrozenRecord, Record
from reflectgit.workflows.search.tokens import closing_fence, dashed, has_alnum

TYPE_CHECKING = False  # no typing at run time
if TYPE_CHECKING:  # the fresh-index query path must not import dulwich (nor pathlib)
    from pathlib import Path
    from typing import Any

    from reflectgit.git.store import Store
    from reflectgit.git.treediff import TreeCache
    from reflectgit.workflows.search.query import Concept, Query, Synonyms

# ``contextlib`` is imported when a transaction, a savepoint or a build's parser is first
# entered: a search against a fresh index enters none (docs/performance.md, "search, sixth pass").
if TYPE_CHECKING:
    from contextlib import contextmanager as _contextmanager
else:

    def _contextmanager(func):
        """``contextlib.contextmanager``, imported at the first call."""

        def call(*args, **kwargs):
            import contextlib

            return contextlib.contextmanager(func)(*args, **kwargs)

        return call


INDEX_NAME = "search.sqlite3"
SCHEMA_VERSION = "8"
LOCATIONS = {DOCUMENTS: "live", ARCHIVED: "archived", FORGOTTEN: "forgotten"}
# Raw originals kept by the original tool's ingest are not notes.
SKIPPED_PREFIXES = (f"{DOCUMENTS}/memories/",)
SIDECAR_SUFFIX = ".entities.yaml"

# Column order of the full-text table and the bm25 weight of each column.
FIELDS = (
    "title",
    "key_insight",
    "problem",
    "root_cause",
    "fix",
    "rule",
    "symptoms",
    "tags",
    "entities",
    "body",
)
# Tuned on the ``tune`` half of bench/retrieval.py's queries: every field counts the same (a
# title word used to count ten times over; then a title or key insight twice, which lost on the
# tune half's 99 added queries: a query in other words rarely has the title's words, and a
# short title's one shared everyday word outranked the note that answered).
WEIGHTS = (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
MAX_LIMIT = 1000
EDGE_WEIGHT = 0.5  # an edge match counts half as much as the same words in the note
CANDIDATES = 500  # notes read per concept and kind of alternative, best bm25 first
SYNONYMS_FILE = "synonyms.txt"  # the KB's own synonym table, at its root (query.py)
VOCABULARY_SCAN = 4000  # index words read to find a query word's variants
# No Porter stemmer: it over-reaches (setting -> set) and misses pairs (revoke / revocation);
# query.py's light stemmer expands a query word into the index's own words instead.
TOKENIZER = "unicode61 remove_diacritics 2"

# How the full-text table stores what it indexes (see "storage" below): contentless, because the
# notes' text is in git already; a copy would be half the index.
FTS_STORAGE = ", content=''"

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, blob BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS docs (
    rowid INTEGER PRIMARY KEY,
    path TEXT UNIQUE NOT NULL,
    id TEXT NOT NULL,
    title TEXT NOT NULL,
    tier TEXT NOT NULL,
    confidence REAL NOT NULL,
    proofs INTEGER NOT NULL,
    weight REAL NOT NULL,
    state TEXT NOT NULL,
    scope TEXT,
    project TEXT,
    tags TEXT NOT NULL,
    entities TEXT NOT NULL,
    summary TEXT NOT NULL,
    updated TEXT,
    hidden INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS docs_id ON docs(id);
-- recall's candidates (workflows/recall.py rank): the live notes by weight, their project and
-- scope, read from this narrow index instead of three scans of the whole table
CREATE INDEX IF NOT EXISTS docs_live ON docs(weight DESC, project, scope, state, hidden)
    WHERE state = 'live' AND hidden = 0;
CREATE TABLE IF NOT EXISTS doc_tags (
    doc INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (tag, doc)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS edges (
    rowid INTEGER PRIMARY KEY,
    doc INTEGER NOT NULL,
    vstart TEXT,
    vend TEXT
);
CREATE INDEX IF NOT EXISTS edges_doc ON edges(doc);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5({", ".join(FIELDS)}, tokenize='{TOKENIZER}'{FTS_STORAGE});
CREATE VIRTUAL TABLE IF NOT EXISTS edge_fts USING fts5(text, tokenize='{TOKENIZER}');
CREATE TABLE IF NOT EXISTS scoping (
    doc INTEGER PRIMARY KEY,
    branch TEXT,
    authority TEXT,
    quarantine INTEGER NOT NULL DEFAULT 0,
    domain TEXT,
    discovery_tokens INTEGER,
    source_path TEXT,
    learning_type TEXT
);
"""
# ``scoping`` holds, for recall, the few fields that say where and how far a note applies: the
# branch it was learned on, an imported fleet note's authority, quarantine and domain, and what
# its discovery cost (``discovery_tokens``, the transcript's path, the learning type). A row
# exists only for a note that has one of them, so most notes cost nothing here.
SCOPING_FIELDS = (
    "branch",
    "authority",
    "quarantine",
    "domain",
    "discovery_tokens",
    "source_path",
    "learning_type",
)


# --------------------------------------------------------------------------- results


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


# --------------------------------------------------------------------------- weights


def confidence_weight(confidence: float) -> float:
    """0.3 (low) -> 0.8, 0.6 -> 1.1, 0.9 (high) -> 1.4: confident notes rank higher."""
    return 0.5 + confidence


def proof_weight(proofs: int) -> float:
    """A note confirmed many times ranks a little higher; logarithmic so text still leads."""
    return 1.0 + 0.1 * math.log1p(max(proofs, 0))


# The note's weight (confidence x proofs, 0.8 .. about 1.9) counts as weight ** TIE_EXPONENT in
# search: at most about 8 % between a low note confirmed once and a high one confirmed often.
# Enough to order near ties, never enough to lift a weaker match over a clearly better one.
TIE_EXPONENT = 0.1


def tie_weight(weight: float) -> float:
    """How much a note's confidence and proofs move it in search: a tie-breaker."""
    return float(max(weight, 1e-6) ** TIE_EXPONENT)


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


# --------------------------------------------------------------------------- dates


def require_words(query: str) -> None:
    """A query with no word in it (``!!``, spaces) is a usage error, before any work."""
    if fts_query(query) is None:
        raise UsageError(f"nothing to search for in {query!r}", hint="give at least one word")


def parse_when(text: str | dt.date | dt.datetime) -> tuple[str, str]:
    """A date or timestamp as a UTC interval ``(start, end)`` of ISO strings (a day spans it)."""
    if isinstance(text, dt.datetime):
        moment = _utc(text)
        return moment, moment
    if isinstance(text, dt.date):
        day = text.isoformat()
        return f"{day}T00:00:00", f"{day}T23:59:59"
    value = text.strip()
    import re  # a date given as text (``--as-of``): a plain search never gets here

    from reflectgit.notes.dates import parse_instant

    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        if parse_instant(value) is None:
            raise UsageError(f"{text!r} is not a date", hint="use YYYY-MM-DD")
        return f"{value}T00:00:00", f"{value}T23:59:59"
    moment_s = _iso(value)
    if moment_s is None:
        raise UsageError(
            f"{text!r} is not a date or timestamp",
            hint="use YYYY-MM-DD or an ISO 8601 timestamp such as 2026-03-04T09:12:00Z",
        )
    return moment_s, moment_s


def _utc(value: dt.datetime) -> str:
    if value.tzinfo is not None:
        value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return value.replace(microsecond=0).isoformat()


def _iso(value: object) -> str | None:
    """Any date-ish value (a date, a datetime, an ISO string) as a naive-UTC ISO string."""
    from reflectgit.notes.dates import parse_instant  # the one parser (not needed by a search)

    moment = parse_instant(value)
    return _utc(moment) if moment is not None else None


def edge_interval(
    edge: Mapping[str, Any], extracted_at: object = None
) -> tuple[str | None, str | None]:
    """``[tvalid, tvalid_end]`` of a relationship; tvalid defaults to tcommit, then extracted_at."""
    start = _iso(edge.get("tvalid")) or _iso(edge.get("tcommit")) or _iso(extracted_at)
    return start, _iso(edge.get("tvalid_end"))


def edges_as_of(sidecar: Any, when: str | dt.date | dt.datetime) -> list[dict[str, Any]]:
    """The sidecar's relationships valid at ``when`` (overlap test on [tvalid, tvalid_end]).

    ``sidecar`` is a ``note.Sidecar`` or its mapping; ``when`` a date (the whole day) or a time.
    """
    data = getattr(sidecar, "data", sidecar)
    if not isinstance(data, Mapping):
        return []
    start, end = parse_when(when)
    out: list[dict[str, Any]] = []
    for edge in data.get("relationships") or []:
        if not isinstance(edge, Mapping):
            continue
        vstart, vend = edge_interval(edge, data.get("extracted_at"))
        if (vstart is None or vstart <= end) and (vend is None or vend >= start):
            out.append(dict(edge))
    return out


# --------------------------------------------------------------------------- documents


class Document(Record):
    """The searchable view of one note (and its sidecar)."""

    _FIELDS = (
        "path",
        "id",
        "title",
        "tier",
        "confidence",
        "proofs",
        "state",
        "scope",
        "project",
        "tags",
        "entities",
        "summary",
        "updated",
        "texts",
        "edges",
        "scoping",
    )
    path: str
    id: str
    title: str
    tier: str
    confidence: float
    proofs: int
    state: str
    scope: str | None
    project: str | None
    tags: list[str]
    entities: list[str]
    summary: str
    updated: str | None
    texts: dict[str, str]
    edges: list[tuple[str, str | None, str | None]]
    # Recall's scoping fields (SCOPING_FIELDS); only the ones a note sets.
    scoping: dict[str, Any]

    def __init__(
        self,
        path: str,
        id: str,
        title: str,
        tier: str,
        confidence: float,
        proofs: int,
        state: str,
        scope: str | None,
        project: str | None,
        tags: list[str],
        entities: list[str],
        summary: str,
        updated: str | None,
        texts: dict[str, str],
        edges: list[tuple[str, str | None, str | None]],
        scoping: dict[str, Any] | None = None,
    ) -> None:
        self.path = path
        self.id = id
        self.title = title
        self.tier = tier
        self.confidence = confidence
        self.proofs = proofs
        self.state = state
        self.scope = scope
        self.project = project
        self.tags = tags
        self.entities = entities
        self.summary = summary
        self.updated = updated
        self.texts = texts
        self.edges = edges
        self.scoping = {} if scoping is None else scoping

    @property
    def weight(self) -> float:
        return confidence_weight(self.confidence) * proof_weight(self.proofs)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return " ".join(_text(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return "\n".join(_text(v) for v in value)
    return str(value)


def _names(value: Any) -> list[str]:
    out: list[str] = []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, Mapping):
        name = value.get("name")
        return [name] if isinstance(name, str) and name.strip() else []
    if isinstance(value, (list, tuple)):
        for item in value:
            out.extend(_names(item))
    return out


def note_state(path: str, front: Mapping[str, Any]) -> str:
    """live, archived, forgotten (by location), else superseded or retired (by frontmatter):
    ``notes.note.note_state``, the one answer ``list`` gives too."""
    from reflectgit.notes.note import note_state as state_of

    return state_of(LOCATIONS.get(path.split("/", 1)[0], "live"), front)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def document_from(path: str, note_bytes: bytes, sidecar_bytes: bytes | None) -> Document:
    """Build the searchable view of a note; an unreadable note is still searchable as text."""
    from reflectgit.notes.note import TIER_NUM, parse_note, parse_sidecar, tier_of

    stem = path.rsplit("/", 1)[-1][: -len(".md")]
    try:
        note = parse_note(note_bytes, path)
        front, body = note.frontmatter, note.body
    except NoteError:
        front, body = {}, note_bytes.decode("utf-8", "replace")
    sidecar: dict[str, Any] = {}
    if sidecar_bytes is not None:
        try:
            sidecar = parse_sidecar(sidecar_bytes, path).data
        except NoteError:
            sidecar = {}  # an unreadable sidecar adds nothing
    note_id = next(
        (v for v in (front.get("id"), front.get("name")) if isinstance(v, str) and v.strip()),
        stem,
    ).strip()
    title = next(
        (v for v in (front.get("title"), front.get("name")) if isinstance(v, str) and v.strip()),
        note_id,
    ).strip()
    tier = tier_of(front) or "medium"  # the reflect format reads a missing confidence as medium
    num = _number(front.get("confidence_num"))
    confidence = num if num is not None and 0 <= num <= 1 else TIER_NUM[tier]
    provenance = front.get("provenance")
    proofs_raw = front.get("proof_count")
    if proofs_raw is None and isinstance(provenance, Mapping):
        proofs_raw = provenance.get("proof_count")
    proofs = int(proofs_raw) if _number(proofs_raw) is not None else 1  # type: ignore[arg-type]
    tags = [t.strip() for t in _names(front.get("tags"))]
    entities = _names(front.get("entities")) + _names(sidecar.get("entities"))
    texts = {name: _text(front.get(name)) for name in FIELDS}
    texts["title"] = title
    texts["tags"] = " ".join(tags)
    texts["entities"] = "\n".join(entities)
    texts["body"] = body
    edges: list[tuple[str, str | None, str | None]] = []
    for edge in sidecar.get("relationships") or []:
        if not isinstance(edge, Mapping):
            continue
        words = " ".join(
            _text(edge.get(k)) for k in ("source", "type", "target", "description")
        ).replace("_", " ")
        start, end = edge_interval(edge, sidecar.get("extracted_at"))
        edges.append((words, start, end))
    summary = next(
        (texts[k].strip() for k in ("key_insight", "rule", "fix", "problem") if texts[k].strip()),
        " ".join(body.split())[:300],
    )
    scope = front.get("scope")
    project = front.get("project") or front.get("project_id")
    return Document(
        path=path,
        id=note_id,
        title=title,
        tier=tier,
        confidence=confidence,
        proofs=proofs,
        state=note_state(path, front),
        scope=str(scope) if scope not in (None, "") else None,
        project=str(project) if project not in (None, "") else None,
        tags=tags,
        entities=entities,
        summary=summary,
        updated=_iso(front.get("updated")) or _iso(front.get("created")),
        texts=texts,
        edges=edges,
        scoping=scoping_of(front),
    )


def _flag(value: Any) -> bool:
    """A YAML flag as people write it: true, yes, 1, "true" (anything else is false)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    return isinstance(value, str) and value.strip().lower() in ("true", "yes", "y", "1", "on")


def scoping_of(front: Mapping[str, Any]) -> dict[str, Any]:
    """Recall's scoping fields of a note's frontmatter: branch, authority, quarantine, domain,
    discovery_tokens, provenance.source_path (or source_path), learning_type; unset ones left out."""
    provenance = front.get("provenance")
    prov: Mapping[str, Any] = provenance if isinstance(provenance, Mapping) else {}
    out: dict[str, Any] = {}
    for key, value in (
        ("branch", front.get("branch") or prov.get("branch")),
        ("authority", front.get("authority")),
        ("domain", front.get("domain")),
        ("source_path", prov.get("source_path") or front.get("source_path")),
        ("learning_type", front.get("learning_type")),
    ):
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            text = str(value).strip()
            if text:
                out[key] = text.lower() if key in ("authority", "learning_type") else text
    if _flag(front.get("quarantine")):
        out["quarantine"] = 1
    tokens = _number(front.get("discovery_tokens"))
    if tokens is not None and tokens > 0:
        out["discovery_tokens"] = int(tokens)
    return out


def is_indexed_path(path: str) -> bool:
    """A note or sidecar under documents/, archived/ or .forgotten/."""
    if path.split("/", 1)[0] not in LOCATIONS or path.startswith(SKIPPED_PREFIXES):
        return False
    return path.endswith(".md") or path.endswith(SIDECAR_SUFFIX)


def note_path_of(path: str) -> str:
    """``documents/x.entities.yaml`` -> ``documents/x.md``; a note path is itself."""
    if path.endswith(SIDECAR_SUFFIX):
        return path[: -len(SIDECAR_SUFFIX)] + ".md"
    return path


def sidecar_path_of(note_path: str) -> str:
    return note_path[: -len(".md")] + SIDECAR_SUFFIX


# --------------------------------------------------------------------------- the git side


def head_tree(kb: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> str | None:
    """The root tree of the KB's HEAD (cheap: no dulwich); None on an unborn branch."""
    return repo_info.head_tree(kb, env)


_PATHS = tuple(LOCATIONS)


def changed_files(store: Store, old: str, new: str) -> list[tuple[str, str | None, str | None]]:
    """(path, old blob, new blob) for indexed paths that differ between two root trees.

    ``git diff-tree`` (through repo_info) compares tree objects in C; dulwich's Python walk
    takes about 0.6 s for a folder of 100,000 notes, git about 40 ms. store.diff_trees is the
    fallback.
    """
    found = repo_info.diff_tree(store.git_dir, old, new, _PATHS, store.env)
    if found is None:
        return [c for c in store.diff_trees(old, new) if is_indexed_path(c[0])]
    return [c for c in found if is_indexed_path(c[0])]


# --------------------------------------------------------------------------- the index


class Index:
    """The SQLite FTS5 index of one KB (or an in-memory one for a past tree)."""

    def __init__(self, conn: sqlite3.Connection, path: str | os.PathLike[str] | None) -> None:
        self.conn = conn
        self.path = path
        self.repaired: str | None = None  # why ``open`` rebuilt the file (the errors ledger)
        self._vocabulary = False  # the temp fts5vocab table, made on the first query

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Index:
        """Open (creating, or rebuilding if unreadable) the index file at ``path``."""
        folder = os.path.dirname(os.fspath(path))
        if folder:
            os.makedirs(folder, exist_ok=True)
        try:
            return cls._connect(path)
        except sqlite3.DatabaseError as exc:
            _remove(path)  # derived data: a damaged file is rebuilt from git
            index = cls._connect(path)
            index.repaired = f"unreadable index rebuilt: {exc}"
            return index

    @classmethod
    def memory(cls) -> Index:
        """A throwaway index (for searching the KB as it was at a past revision)."""
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.executescript(_SCHEMA)
        return cls(conn, None)

    @classmethod
    def _connect(cls, path: str | os.PathLike[str]) -> Index:
        conn = sqlite3.connect(path, timeout=30, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            # A crash can at worst damage derived data, which is rebuilt from git.
            conn.execute("PRAGMA synchronous=OFF")
            version = _meta(conn, "schema")
            if version not in (None, SCHEMA_VERSION):
                conn.close()
                _remove(path)
                conn = sqlite3.connect(path, timeout=30, isolation_level=None)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=OFF")
            if version != SCHEMA_VERSION:
                conn.executescript(_SCHEMA)
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return cls(conn, path)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ state

    @property
    def tree(self) -> str | None:
        """The root tree this index was built from (``""`` for an empty repo, None if never)."""
        return _meta(self.conn, "tree")

    def stamped(self, stamp: str) -> bool:
        """Was this index last found current with HEAD's files stamped ``stamp``, and has its
        tree not changed since? (``open_fresh``: then HEAD's commit need not be read.)"""
        rows = dict(self.conn.execute("SELECT key, value FROM meta WHERE key IN ('tree', 'head')"))
        tree = rows.get("tree")
        return tree is not None and rows.get("head") == f"{tree} {stamp}"

    def stamp(self, stamp: str | None, tree: str) -> None:
        """Keep ``stamp`` (taken before ``tree`` was read as HEAD's) with the tree, when this
        index holds that tree; a tree written since (any version) no longer matches it."""
        if stamp is None or self.tree != tree:
            return
        value = f"{tree} {stamp}"
        if _meta(self.conn, "head") != value:
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('head', ?)", (value,))

    def count(self, state: str | None = None) -> int:
        if state is None:
            return int(self.conn.execute("SELECT count(*) FROM docs").fetchone()[0])
        row = self.conn.execute("SELECT count(*) FROM docs WHERE state = ?", (state,)).fetchone()
        return int(row[0])

    # ------------------------------------------------------------------ building

    def refresh(
        self,
        store: Store,
        tree: str | None = None,
        force: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> RefreshResult:
        """Bring the index up to ``tree`` (default: HEAD's) from the git diff; rebuild if forced.

        ``progress(done, total)`` is told how far a rebuild has got (notes read).
        """
        target = tree if tree is not None else (store.tree_id() or "")
        keep: dict[str, tuple[str | None, bytes | None]] = {}
        with self._write():
            previous = self.tree
            if previous == target and not force:
                return RefreshResult(target or None, previous or None, 0, False)
            rebuilt = force or not previous
            if rebuilt:
                changed = self._rebuild(store, target, progress)
            else:
                try:
                    if target:
                        try:
                            changes, keep = self._changes(store, previous or "", target)
                        except KeyError:
                            raise _Rebuild("the indexed tree is gone from git") from None
                    else:
                        changes = [(p, b, None) for p, b in self._files().items()]
                    with self._savepoint():
                        changed = self._apply(store, changes)
                except _Rebuild:
                    # The indexed tree or an old blob is gone (history rewritten, then gc'd):
                    # what to take out cannot be known, so start over.
                    rebuilt, keep = True, {}
                    changed = self._rebuild(store, target, progress)
            self._set_tree(target)
            self.conn.execute(
                "INSERT OR REPLACE INTO meta VALUES ('worktree', ?)", (str(store.path or ""),)
            )
        # The kept folder trees are keyed by their ids, so writing them after the commit is safe.
        if rebuilt:
            self._seed_tree_cache(store, target)
        else:
            cache = self._tree_cache(store)
            if cache is not None:
                for location, (sha, raw) in keep.items():
                    cache.keep(location, sha, raw)
        return RefreshResult(target or None, previous or None, changed, rebuilt)

    def _seed_tree_cache(self, store: Store, tree: str) -> None:
        cache = self._tree_cache(store)
        if cache is None or not tree:
            return
        import contextlib

        from reflectgit.git.treediff import folders, loose_object

        with contextlib.suppress(ValueError, KeyError, OSError):
            root = loose_object(cache.objects_dir, tree) or store.read_blob(tree)
            for name, sha in folders(root, tuple(LOCATIONS)).items():
                cache.keep(name, sha, loose_object(cache.objects_dir, sha) or store.read_blob(sha))

    def _tree_cache(self, store: Store) -> TreeCache | None:
        if self.path is None:
            return None  # a throwaway index keeps nothing
        from pathlib import Path

        from reflectgit.git.treediff import TreeCache

        return TreeCache(Path(self.path).parent, repo_info.objects_dir(store.common_dir))

    def _changes(
        self, store: Store, old: str, new: str
    ) -> tuple[
        list[tuple[str, str | None, str | None]], dict[str, tuple[str | None, bytes | None]]
    ]:
        """Changed indexed files: from the kept folder trees when possible, else from git."""
        cache = self._tree_cache(store)
        if cache is not None:
            from reflectgit.git.treediff import changes as tree_changes
            from reflectgit.git.treediff import loose_object

            def read(sha: str) -> bytes:
                return loose_object(cache.objects_dir, sha) or store.read_blob(sha)

            try:
                found = tree_changes(cache, read, old, new, tuple(LOCATIONS))
            except (ValueError, KeyError, UnicodeDecodeError):
                found = None
            if found is not None:
                listed, keep = found
                return [c for c in listed if is_indexed_path(c[0])], keep
        return changed_files(store, old, new), {}

    @_contextmanager
    def _write(self) -> Iterator[None]:
        # IMMEDIATE: concurrent refreshers queue up instead of both rewriting the same rows.
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    @_contextmanager
    def _savepoint(self) -> Iterator[None]:
        self.conn.execute("SAVEPOINT apply")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK TO apply")
            self.conn.execute("RELEASE apply")
            raise
        self.conn.execute("RELEASE apply")

    def _set_tree(self, tree: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('tree', ?)", (tree,))

    def _files(self) -> dict[str, str]:
        return {
            path: blob.hex() for path, blob in self.conn.execute("SELECT path, blob FROM files")
        }

    def _rebuild(
        self, store: Store, tree: str, progress: Callable[[int, int], None] | None = None
    ) -> int:
        for table in ("files", "docs", "doc_tags", "edges", "fts", "edge_fts", "scoping"):
            self.conn.execute(f"DELETE FROM {table}")
        files: dict[str, str] = {}
        if tree:
            for prefix in LOCATIONS:
                for path, blob in store.list_tree(tree, prefix).items():
                    if is_indexed_path(path):
                        files[path] = blob
        # Blob ids as their 20 bytes, not 40 hex digits: a tenth of the index smaller per note.
        self.conn.executemany(
            "INSERT INTO files VALUES (?, ?)", ((p, bytes.fromhex(b)) for p, b in files.items())
        )
        notes = sorted(p for p in files if p.endswith(".md"))
        # A big build merges many full-text segments: a larger page cache for its length.
        self.conn.execute(f"PRAGMA cache_size = -{BUILD_CACHE_KB}")
        # FTS5 writes a segment each time its pending terms pass 'hashsize' (1 MB), then merges
        # them; a big buffer during a build makes far fewer (a fifth less CPU, a smaller file).
        self.conn.execute("INSERT INTO fts (fts, rank) VALUES ('hashsize', ?)", (BUILD_HASH,))
        # Rowids in path order from the first free one (1, the tables were just emptied), so the
        # workers can make every row and this process only runs SQLite.
        first = int(_one(self.conn, "SELECT coalesce(max(rowid), 0) FROM docs")) + 1
        with _parser(len(notes)) as parse:
            done = 0
            for rows in parse(self._build_batches(store, files, notes, first)):
                self._add_rows(rows)
                done += len(rows[0])
                if progress is not None:
                    progress(done, len(notes))
        self.conn.execute("PRAGMA cache_size = -2000")  # SQLite's defaults again
        self.conn.execute("INSERT INTO fts (fts, rank) VALUES ('hashsize', ?)", (1024 * 1024,))
        self._mark_hidden(None)
        return len(notes)

    @staticmethod
    def _build_batches(
        store: Store, files: Mapping[str, str], notes: Sequence[str], first: int
    ) -> Iterator[list[_Job]]:
        """(rowid, path, note bytes, sidecar bytes) of every note, BUILD_BATCH at a time."""
        batch: list[_Job] = []
        for rowid, (path, data, side) in enumerate(Index._build_jobs(store, files, notes), first):
            batch.append((rowid, path, data, side))
            if len(batch) == BUILD_BATCH:
                yield batch
                batch = []
        if batch:
            yield batch

    @staticmethod
    def _build_jobs(
        store: Store, files: Mapping[str, str], notes: Sequence[str]
    ) -> Iterator[tuple[str, bytes, bytes | None]]:
        """(path, note bytes, sidecar bytes) of every note, their blobs read in batches: from the
        work tree where its file is still the indexed blob (checked by its git id; half git's
        CPU to inflate it from a pack of deltas), the rest from git."""
        for start in range(0, len(notes), BUILD_CHUNK):
            chunk = notes[start : start + BUILD_CHUNK]
            wanted = list(chunk)
            wanted += [s for p in chunk if (s := sidecar_path_of(p)) in files]
            blobs = _worktree_blobs(store.path, {p: files[p] for p in wanted})
            blobs.update(_read_many(store, [files[p] for p in wanted if files[p] not in blobs]))
            for path in chunk:
                sidecar = files.get(sidecar_path_of(path))
                data = blobs.get(files[path]) or store.read_blob(files[path])
                side = (blobs.get(sidecar) or store.read_blob(sidecar)) if sidecar else None
                yield path, data, side

    def _apply(self, store: Store, changes: Iterable[tuple[str, str | None, str | None]]) -> int:
        changes = list(changes)
        affected: set[str] = {note_path_of(path) for path, _old, _new in changes}
        # The full-text table keeps no copy of the text, so a note's old words are read back
        # from git (the blobs the index was built from) to take them out.
        before = {
            note_path: (self._blob(note_path), self._blob(sidecar_path_of(note_path)))
            for note_path in affected
        }
        for path, _old, new in changes:
            if new is None:
                self.conn.execute("DELETE FROM files WHERE path = ?", (path,))
            else:
                self.conn.execute(
                    "INSERT OR REPLACE INTO files VALUES (?, ?)", (path, bytes.fromhex(new))
                )
        touched: set[str] = set()
        for note_path in sorted(affected):
            touched.update(self._delete(store, note_path, *before[note_path]))
            blob = self._blob(note_path)
            if blob is not None:
                sidecar = self._blob(sidecar_path_of(note_path))
                touched.add(self._insert(store, note_path, blob, sidecar))
        self._mark_hidden(touched)
        return len(affected)

    def _mark_hidden(self, ids: set[str] | None) -> None:
        """A live note whose id also sits in archived/ or .forgotten/ is hidden, as recall did."""
        sql = (
            "UPDATE docs SET hidden = EXISTS (SELECT 1 FROM docs x WHERE x.id = docs.id"
            " AND x.state IN ('archived', 'forgotten'))"
        )
        if ids is None:
            self.conn.execute(sql)
        else:
            self.conn.executemany(sql + " WHERE id = ?", [(i,) for i in ids])

    def _blob(self, path: str) -> str | None:
        value = _one(self.conn, "SELECT blob FROM files WHERE path = ?", path)
        return bytes(value).hex() if value is not None else None

    def _delete(
        self, store: Store, note_path: str, blob: str | None, sidecar_blob: str | None
    ) -> list[str]:
        row = self.conn.execute(
            "SELECT rowid, id FROM docs WHERE path = ?", (note_path,)
        ).fetchone()
        if row is None:
            return []
        doc = row[0]
        old = self._delete_text(store, doc, note_path, blob, sidecar_blob)
        self.conn.execute(
            "DELETE FROM edge_fts WHERE rowid IN (SELECT rowid FROM edges WHERE doc = ?)", (doc,)
        )
        self.conn.execute("DELETE FROM edges WHERE doc = ?", (doc,))
        self.conn.executemany(
            "DELETE FROM doc_tags WHERE tag = ? AND doc = ?",
            [(t, doc) for t in {t.lower() for t in old.tags}],
        )
        self.conn.execute("DELETE FROM scoping WHERE doc = ?", (doc,))
        self.conn.execute("DELETE FROM docs WHERE rowid = ?", (doc,))
        return [row[1]]

    # ------------------------------------------------------------------ storage

    def _delete_text(
        self, store: Store, doc: int, path: str, blob: str | None, sidecar_blob: str | None
    ) -> Document:
        """Take a note's words out of the contentless full-text table: FTS5 needs the exact
        values it indexed, which are rebuilt from the note's blobs in git. Returns the
        document as it was indexed."""
        try:
            if blob is None:
                raise KeyError(path)
            data = store.read_blob(blob)
            sidecar = store.read_blob(sidecar_blob) if sidecar_blob else None
        except (KeyError, ValueError, OSError):
            raise _Rebuild(f"the indexed blob of {path} is gone from git") from None
        old = document_from(path, data, sidecar)
        self.conn.execute(
            f"INSERT INTO fts (fts, rowid, {', '.join(FIELDS)})"
            f" VALUES ('delete', ?{', ?' * len(FIELDS)})",
            (doc, *(old.texts[f] for f in FIELDS)),
        )
        return old

    def _snippets(self, match: str, rowids: Sequence[int]) -> dict[int, str]:
        """FTS5 snippets of the given notes for ``match``. The index keeps no copy of the
        text, so the notes' title, summary and body (from the work tree, when the file there
        is the indexed blob) go into a throwaway in-memory FTS5 table with the same tokenizer,
        and SQLite's own ``snippet()`` runs there."""
        if not rowids:
            return {}
        marks = ",".join("?" * len(rowids))
        rows = self.conn.execute(
            f"SELECT d.rowid, d.path, d.title, d.summary, f.blob FROM docs d"
            f" LEFT JOIN files f ON f.path = d.path WHERE d.rowid IN ({marks})",
            list(rowids),
        ).fetchall()
        root = _meta(self.conn, "worktree")
        snip = sqlite3.connect(":memory:")
        try:
            snip.execute(
                f"CREATE VIRTUAL TABLE s USING fts5({', '.join(FIELDS)}, tokenize='{TOKENIZER}')"
            )
            values = []
            for rowid, path, title, summary, blob in rows:
                texts = dict.fromkeys(FIELDS, "")
                texts["title"], texts["key_insight"] = title, summary
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

    def _insert(self, store: Store, path: str, blob: str, sidecar_blob: str | None) -> str:
        data = store.read_blob(blob)
        sidecar = store.read_blob(sidecar_blob) if sidecar_blob else None
        doc = document_from(path, data, sidecar)
        self.add_document(doc)
        return doc.id

    def add_document(self, doc: Document) -> None:
        """Insert one document (callers hold a write transaction or use an in-memory index)."""
        self.add_documents([doc])

    def add_documents(self, docs: Sequence[Document]) -> None:
        """Insert documents, many rows per statement (a build's SQLite time is mostly the
        per-statement overhead otherwise); callers hold a write transaction."""
        if not docs:
            return
        first = int(_one(self.conn, "SELECT coalesce(max(rowid), 0) FROM docs")) + 1
        self._add_rows(_rows(enumerate(docs, start=first)))

    def _add_rows(self, rows: _Rows) -> None:
        """Insert the rows ``_rows`` made, table by table."""
        doc_rows, fts_rows, tag_rows, edge_rows, scoping_rows = rows
        self.conn.executemany(_INSERT_DOC, doc_rows)
        self.conn.executemany(_INSERT_FTS, fts_rows)
        self.conn.executemany("INSERT INTO doc_tags VALUES (?, ?)", tag_rows)
        for rowid, words, start, end in edge_rows:
            edge = self.conn.execute(
                "INSERT INTO edges (doc, vstart, vend) VALUES (?, ?, ?)", (rowid, start, end)
            ).lastrowid
            self.conn.execute("INSERT INTO edge_fts (rowid, text) VALUES (?, ?)", (edge, words))
        self.conn.executemany(_INSERT_SCOPING, scoping_rows)

    def _add_scoping(self, rowid: int | None, scoping: Mapping[str, Any]) -> None:
        """Recall's scoping fields of one note, in their own table (only when it has any)."""
        if not scoping:
            return
        self.conn.execute(_INSERT_SCOPING, _scoping_row(rowid, scoping))

    # ------------------------------------------------------------------ querying

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
    ) -> SearchResult:
        """Ranked notes, best first: relevance (the sum over query.py's concepts of each one's
        best alternative's bm25), then confidence and proofs as a tie-breaker.

        ``related`` terms (``search --expand``) count as synonyms of the whole query.
        """
        understood = self._understand(query, synonyms, related)
        match = understood.any_match()
        if match is None:
            raise UsageError(f"nothing to search for in {query!r}", hint="give at least one word")
        start, end = parse_when(as_of if as_of is not None else (now or _now()))
        hits = self._ranked(understood, limit, include_all, tag, confidence, start, end)
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
            understood, limit, include_all, tag, confidence, start, end, cut, state, project
        )

    def _understand(
        self,
        query: str,
        synonyms: Synonyms | None,
        related: Sequence[str],
        prefix_last: bool = True,
    ) -> Query:
        from reflectgit.workflows.search.query import understand

        return understand(
            query,
            synonyms,
            self.variants,
            prefix_last=prefix_last,
            extra=related,
            frequencies=self.frequencies,
        )

    def frequencies(self, tokens: Sequence[str]) -> tuple[int, dict[str, int]]:
        """The number of notes, and how many hold each of ``tokens`` (those no note holds are
        left out): query.py's salience, from FTS5's own counts (its averages record, the
        vocabulary table), nothing read per note."""
        self._words()
        found: dict[str, int] = {}
        for token in tokens:
            row = self.conn.execute("SELECT doc FROM temp.fts_words WHERE term = ?", (token,))
            n = row.fetchone()
            if n:
                found[token] = n[0]
        return _fts_rows(self.conn), found

    def _words(self) -> None:
        """The temp fts5vocab table of the index's words, made on the first query."""
        if not self._vocabulary:
            self.conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_words USING fts5vocab(main, fts, row)"
            )
            self._vocabulary = True

    def variants(self, token: str) -> list[str]:
        """The index's words with the light stem of ``token`` (revoke: revoked, revocation),
        ``token`` itself among them when a note holds it: [] says no note holds the word."""
        from reflectgit.workflows.search.query import light_stem

        stem = light_stem(token)
        low = stem[:-1] if len(stem) >= 4 else stem
        high = low[:-1] + chr(ord(low[-1]) + 1)
        self._words()
        rows = self.conn.execute(
            "SELECT term FROM temp.fts_words WHERE term >= ? AND term < ? LIMIT ?",
            (low, high, VOCABULARY_SCAN),
        )
        return [t for (t,) in rows if light_stem(t) == stem]

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
    ) -> list[Hit]:
        # One bm25 query per concept and kind of alternative (a few each), best CANDIDATES of
        # each: a note's concept score is its best alternative's bm25 times the kind's weight
        # (plus half for an edge valid at the date); relevance is the sum over concepts, so a
        # concept counts once however many of its synonyms a note holds. (Multiplying by the
        # share of concepts covered was tried and lost on the benchmark.)
        where = []
        filters: list[Any] = []
        if not include_all:
            where.append("d.state = 'live' AND d.hidden = 0")
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
        cond = "".join(" AND " + w for w in where)
        weights = ", ".join(str(w) for w in WEIGHTS)
        has_edges = _one(self.conn, "SELECT 1 FROM edges LIMIT 1") is not None
        concepts = understood.concepts
        cut = max(cut, limit)
        best: dict[int, list[float]] = {}  # rowid -> score per concept
        edged: set[int] = set()
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
                        edged.add(rowid)
                for rowid, rel in found.items():
                    scores = best.setdefault(rowid, [0.0] * len(concepts))
                    scores[i] = max(scores[i], rel * kind_weight * concept.weight)
        if not best:
            return []
        marks = ",".join("?" * len(best))
        cols = "d.rowid, d.id, d.title, d.tier, d.state, d.path, d.confidence, d.proofs, d.weight"
        rows: list[tuple[Any, ...]] = []
        ordered = list(best)
        for at in range(0, len(ordered), 500):  # SQLite caps the number of parameters
            chunk = ordered[at : at + 500]
            marks = ",".join("?" * len(chunk))
            rows.extend(
                self.conn.execute(f"SELECT {cols} FROM docs d WHERE d.rowid IN ({marks})", chunk)
            )
        hits = []
        for row in rows:
            rowid, note_id, title, tier, state, path, conf, proofs, weight = row
            relevance = sum(best[rowid])
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
                edge_match=rowid in edged,
                rowid=rowid,
            )
            hits.append(hit)
        hits.sort(key=lambda h: (-h.score, h.id))
        from reflectgit.workflows.search.query import FUSION_MIN_CONCEPTS, fused_order

        if len(concepts) > FUSION_MIN_CONCEPTS:  # query.py: the salient half's ranking fused in
            of_row = {h.rowid: h for h in hits}
            fused = fused_order(list(of_row), best, [c.weight for c in concepts])
            hits = [of_row[rowid] for rowid in fused]
        return hits[:limit]

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

    def documents(self, rowids: Sequence[int] | None = None) -> list[dict[str, Any]]:
        """Stored document rows (for recall), all or the given ones."""
        cols = "rowid, id, path, title, tier, confidence, proofs, weight, state, scope, project,"
        cols += " tags, entities, summary, updated, hidden"
        if rowids is None:
            cur = self.conn.execute(f"SELECT {cols} FROM docs")
            names = [c[0] for c in cur.description]
            return [dict(zip(names, row, strict=True)) for row in cur]
        out: list[dict[str, Any]] = []
        for start in range(0, len(rowids), 500):  # SQLite caps the number of parameters
            chunk = list(rowids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            cur = self.conn.execute(f"SELECT {cols} FROM docs WHERE rowid IN ({marks})", chunk)
            names = [c[0] for c in cur.description]
            out.extend(dict(zip(names, row, strict=True)) for row in cur)
        return out

    def scoping(self, rowids: Sequence[int]) -> dict[int, dict[str, Any]]:
        """Recall's scoping fields (SCOPING_FIELDS) of the given notes that have any."""
        out: dict[int, dict[str, Any]] = {}
        cols = ", ".join(SCOPING_FIELDS)
        for start in range(0, len(rowids), 500):  # SQLite caps the number of parameters
            chunk = list(rowids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            for row in self.conn.execute(
                f"SELECT doc, {cols} FROM scoping WHERE doc IN ({marks})", chunk
            ):
                out[row[0]] = {
                    k: v for k, v in zip(SCOPING_FIELDS, row[1:], strict=True) if v is not None
                }
        return out


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.OperationalError as exc:
        if str(exc).startswith("no such table"):
            return None  # an index not built yet (or by an older version)
        raise
    return row[0] if row else None


def _fts_rows(conn: sqlite3.Connection) -> int:
    """The number of rows of the full-text table, as FTS5 keeps it for bm25: the first
    varint of its averages record (row 1 of ``fts_data``); a count when that is missing."""
    block = _one(conn, "SELECT block FROM fts_data WHERE id = 1")
    if isinstance(block, bytes) and block:
        value = 0
        for i, byte in enumerate(block[:9]):
            if i == 8:
                return (value << 8) | byte
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                return value
    return int(_one(conn, "SELECT count(*) FROM docs") or 0)


def _one(conn: sqlite3.Connection, sql: str, *params: Any) -> Any:
    row = conn.execute(sql, params).fetchone()
    return row[0] if row else None


def _repaired(state_dir: str | os.PathLike[str], path: str | os.PathLike[str], why: str) -> None:
    """An index repair goes into the errors ledger (``reflect-git errors``)."""
    from pathlib import Path

    from reflectgit.state import errors

    errors.record(Path(state_dir), errors.INDEX_REPAIR, why, path=os.fspath(path))


BUILD_HASH = 64 * 1024 * 1024  # FTS5's buffer of pending terms during a build (bytes)
BUILD_CACHE_KB = 65536  # SQLite's page cache during a build (the default is 2 MB)
BUILD_CHUNK = 4000  # notes whose blobs one `git cat-file --batch` reads during a build
BUILD_BATCH = 500  # notes a build's worker parses at a time, and inserts per statement


def _read_many(store: Store, shas: list[str]) -> dict[str, bytes]:
    """Many blobs at once, through one ``git cat-file --batch`` (dulwich reads one object at a
    time, about 0.25 ms each); what it cannot give is read one by one by the caller."""
    if len(shas) < 64:
        return {}
    from reflectgit.git.staged import read_blobs

    try:
        return read_blobs(store.path or store.git_dir, shas, store.env or {})
    except (ReflectGitError, OSError, ValueError):
        return {}


def _worktree_blobs(root: Path | None, blobs: Mapping[str, str]) -> dict[str, bytes]:
    """The contents of the ``path: blob`` files whose work-tree copy is that very blob (by its
    git id), by blob; a bare KB, a missing, edited or oversized file gives nothing."""
    if root is None:
        return {}
    from reflectgit.git.objects import blob_id
    from reflectgit.notes.note import MAX_NOTE_BYTES

    out: dict[str, bytes] = {}
    for path, blob in blobs.items():
        try:
            with open(os.path.join(root, path), "rb") as file:
                data = file.read(MAX_NOTE_BYTES + 1)
        except OSError:
            continue
        if len(data) <= MAX_NOTE_BYTES and blob_id(data) == blob:
            out[blob] = data
    return out


PARALLEL_BUILD_MIN = 2000  # below this, parsing in worker processes costs more than it saves


# One note of a build: (rowid, path, note bytes, sidecar bytes).
_Job = tuple[int, str, bytes, "bytes | None"]
# The rows of some documents, by table: docs, fts, doc_tags, edges (rowid, words, start, end;
# their own rowids are given on insert), scoping.
if TYPE_CHECKING:  # an annotation only (no typing at run time)
    _Rows = tuple[
        list[tuple[Any, ...]],
        list[tuple[Any, ...]],
        list[tuple[int, str]],
        list[tuple[int, str, "str | None", "str | None"]],
        list[tuple[Any, ...]],
    ]


def _rows(docs: Iterable[tuple[int, Document]]) -> _Rows:
    """The rows (rowid, document) pairs add to the index, table by table."""
    doc_rows: list[tuple[Any, ...]] = []
    fts_rows: list[tuple[Any, ...]] = []
    tag_rows: list[tuple[int, str]] = []
    edge_rows: list[tuple[int, str, str | None, str | None]] = []
    scoping_rows: list[tuple[Any, ...]] = []
    for rowid, doc in docs:
        doc_rows.append((rowid, *_doc_row(doc)))
        texts = doc.texts
        fts_rows.append((rowid, *[texts[f] for f in FIELDS]))
        tag_rows.extend((rowid, t) for t in dict.fromkeys(t.lower() for t in doc.tags))
        edge_rows.extend((rowid, words, start, end) for words, start, end in doc.edges)
        if doc.scoping:
            scoping_rows.append(_scoping_row(rowid, doc.scoping))
    return doc_rows, fts_rows, tag_rows, edge_rows, scoping_rows


def _scoping_row(rowid: int | None, scoping: Mapping[str, Any]) -> tuple[Any, ...]:
    return (rowid, *(scoping.get(k, 0 if k == "quarantine" else None) for k in SCOPING_FIELDS))


def _parse_batch(jobs: Sequence[_Job]) -> _Rows:
    """A build's batch of notes parsed into their rows (in a worker process: rows pickle
    smaller and faster than documents, and leave the writing process only SQLite to run)."""
    return _rows((rowid, document_from(path, note, side)) for rowid, path, note, side in jobs)


@_contextmanager
def _parser(count: int) -> Iterator[Callable[[Iterable[Sequence[_Job]]], Iterable[_Rows]]]:
    """Turn batches of build jobs into their rows, in order. A big build parses in forked
    worker processes (YAML parsing is most of a build) while this one writes SQLite."""
    workers = min(os.cpu_count() or 1, 8)
    if count < PARALLEL_BUILD_MIN or workers < 2 or not hasattr(os, "fork"):
        yield lambda batches: (_parse_batch(batch) for batch in batches)
        return
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(workers) as pool:
        yield lambda batches: pool.imap(_parse_batch, batches)


# The ``docs`` columns a document fills, in order (the rowid is given separately).
DOC_COLUMNS = (
    "path",
    "id",
    "title",
    "tier",
    "confidence",
    "proofs",
    "weight",
    "state",
    "scope",
    "project",
    "tags",
    "entities",
    "summary",
    "updated",
)


_INSERT_DOC = (
    f"INSERT INTO docs (rowid, {', '.join(DOC_COLUMNS)}) VALUES (?{', ?' * len(DOC_COLUMNS)})"
)
_INSERT_FTS = f"INSERT INTO fts (rowid, {', '.join(FIELDS)}) VALUES (?{', ?' * len(FIELDS)})"
_INSERT_SCOPING = (
    f"INSERT INTO scoping (doc, {', '.join(SCOPING_FIELDS)})"
    f" VALUES (?{', ?' * len(SCOPING_FIELDS)})"
)


def _doc_row(doc: Document) -> tuple[Any, ...]:
    """A document's ``docs`` row, in DOC_COLUMNS order."""
    return (
        doc.path,
        doc.id,
        doc.title,
        doc.tier,
        doc.confidence,
        doc.proofs,
        doc.weight,
        doc.state,
        doc.scope,
        doc.project,
        "\n".join(doc.tags),
        "\n".join(doc.entities),
        doc.summary,
        doc.updated,
    )


class _Rebuild(Exception):
    """An incremental refresh cannot take a note's old words out: rebuild instead."""


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
    if sha1(b"blob %d\0" % len(data) + data) != blob:
        return ""
    text = data.decode("utf-8", "replace")
    if text.startswith("---"):
        end = closing_fence(text[3:])
        if end is not None:
            return text[3 + end :]
    return text


def _remove(path: str | os.PathLike[str]) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(os.fspath(path) + suffix)
        except FileNotFoundError:
            continue


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


# --------------------------------------------------------------------------- workflows


def index_path(state_dir: Path, kb: Path | None = None) -> Path:
    """The index file of ``kb`` in ``state_dir`` (``index_file``, as a ``Path``)."""
    from pathlib import Path

    return Path(index_file(state_dir, kb))


def index_file(state_dir: str | os.PathLike[str], kb: str | os.PathLike[str] | None = None) -> str:
    """The index file of ``kb`` in ``state_dir``, as ``str(Path)`` writes it (``os.path``: a
    search imports no ``pathlib``).

    A state directory inside the KB (the default, ``<kb>/.git/reflect-git``) belongs to that KB
    alone and holds the index itself. One that lives elsewhere (``REFLECT_STATE_DIR``) may be
    shared by several KBs, so each KB gets its own index under ``indexes/<name>-<key>/``: an
    index only ever holds the trees of the repository it was built from.
    """
    state = os.fspath(state_dir)
    if kb is None:
        return os.path.join(state, INDEX_NAME)
    root = os.path.realpath(kb)
    real_state = os.path.realpath(state)
    if real_state == root or real_state.startswith(root.rstrip("/") + "/"):
        return os.path.join(state, INDEX_NAME)
    key = sha256(root.encode("utf-8", "surrogateescape"))[:16]
    name = dashed(os.path.basename(root), _NAME_CHARS)[:40] or "kb"
    return os.path.join(state, "indexes", f"{name}-{key}", INDEX_NAME)


_NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"


def freshness(kb: Path | Store, state_dir: Path) -> str:
    """``fresh``, ``behind`` (HEAD moved since the last refresh) or ``missing``, for ``status``.

    ``kb`` is the KB's path or an open ``Store``.
    """
    if not isinstance(kb, (str, os.PathLike)):
        kb = kb.path or kb.git_dir
    path = index_file(state_dir, kb)
    if not os.path.exists(path):
        return "missing"
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            tree = _meta(conn, "tree")
            version = _meta(conn, "schema")
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return "missing"
    if tree is None or version != SCHEMA_VERSION:
        return "missing"
    return "fresh" if tree == (head_tree(kb) or "") else "behind"


def _open_store(kb: str | os.PathLike[str], env: Mapping[str, str] | None) -> Store:
    from reflectgit.git.store import Store

    return Store.open(kb, env)


def open_fresh(
    kb: str | os.PathLike[str],
    state_dir: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[Index, RefreshResult | None]:
    """The KB's index, brought up to HEAD first if it is behind (a damaged file is rebuilt).

    Whether it is behind is known from a stamp of HEAD's files (``git.headstamp``, as the rules
    hook knows whether HEAD moved) kept with the tree read after it was taken: while HEAD's
    files stay as they were, the commit is not read at all."""
    if not repo_info.has_git_dir(kb):
        # Checked before the index is created: derived state never goes where no KB is.
        raise NotFoundError(
            f"{kb} is not a git repository",
            hint=f"run `reflect-git init {kb}` to create a knowledge base there",
        )
    recover_if_pending(kb, env)  # an interrupted write is finished first (git/pending.py)
    path = index_file(state_dir, kb)
    for attempt in (1, 2):
        index = Index.open(path)
        if index.repaired:
            _repaired(state_dir, path, index.repaired)
        try:
            stamp = _head_stamp(kb)  # taken before HEAD is read: a later move leaves it stale
            if stamp is not None and index.stamped(stamp):
                return index, None  # fresh, and HEAD's commit not even read
            current = head_tree(kb) or ""
            if index.tree == current:
                index.stamp(stamp, current)
                return index, None  # fresh: no dulwich, no note parsing
            store = _open_store(kb, env)
            try:
                result = index.refresh(store, current, progress=progress)
            finally:
                store.close()
            index.stamp(stamp, current)
            return index, result
        except sqlite3.DatabaseError as exc:
            index.close()
            if attempt == 2:
                raise
            _repaired(state_dir, path, f"damaged index rebuilt: {exc}")
            _remove(path)
        except BaseException:
            index.close()
            raise
    raise AssertionError("unreachable")  # pragma: no cover


def _head_stamp(kb: str | os.PathLike[str]) -> str | None:
    """``git.headstamp``'s stamp of the KB's HEAD files, as text; None when they cannot vouch."""
    from pathlib import Path

    from reflectgit.config import git_dir_of
    from reflectgit.git.headstamp import head_stamp

    stamp = head_stamp(git_dir_of(Path(kb)))
    return None if stamp is None else repr(stamp)


def reindex(
    kb: str | os.PathLike[str],
    state_dir: str | os.PathLike[str],
    force: bool = False,
    env: Mapping[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RefreshResult:
    """Bring the index up to date (incrementally), or rebuild it from scratch with ``force``."""
    if force:
        _remove(index_file(state_dir, kb))
    index, result = open_fresh(kb, state_dir, env, progress)
    with index:
        if result is None:
            tree = index.tree or None
            return RefreshResult(tree, tree, 0, False)
        return result


def resolve_at(store: Store, rev: str) -> str:
    """A revision, or a date meaning the last commit at or before it, as a commit sha."""
    import contextlib
    import re

    when: tuple[str, str] | None = None
    if re.match(r"^\d{4}-\d{2}-\d{2}", rev):
        with contextlib.suppress(UsageError):
            when = parse_when(rev)
    if when is None:
        sha = store.resolve(rev)
        if sha is None:
            raise NotFoundError(
                f"unknown revision {rev!r}",
                hint="name a branch, a tag, a commit sha, or a date (YYYY-MM-DD)",
            )
        return sha
    for info in store.log():
        if _utc(info.commit_time) <= when[1]:
            return info.sha
    raise NotFoundError(
        f"no commit at or before {rev}", hint="`git log --reverse` shows the first commit's date"
    )


class SynonymTableError(ConfigError):
    """The KB's own synonym table cannot be read (not UTF-8, not a readable file)."""


def kb_synonyms(kb: str | os.PathLike[str], name: str | None) -> Synonyms:
    """The shipped synonym table extended by the KB's own file (``synonyms.txt``), if any."""
    from reflectgit.workflows.search.query import Synonyms, shipped

    if not name:
        return shipped()
    try:
        with open(os.path.join(kb, name), encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return shipped()
    except (OSError, UnicodeDecodeError) as exc:
        from pathlib import Path

        raise SynonymTableError(
            f"cannot read the synonym table {Path(kb) / name}: {exc}",
            hint="fix the file (UTF-8, one group of comma-separated terms a line) or remove it",
        ) from exc
    return Synonyms.parse(text, shipped())


def search(
    kb: str | os.PathLike[str],
    state_dir: str | os.PathLike[str],
    query: str,
    *,
    limit: int = 10,
    include_all: bool = False,
    tag: str | None = None,
    confidence: str | None = None,
    at: str | None = None,
    as_of: str | None = None,
    explain: bool = False,
    env: Mapping[str, str] | None = None,
    now: dt.datetime | None = None,
    synonyms_file: str | None = SYNONYMS_FILE,
    related: Sequence[str] = (),
    progress: Callable[[int, int], None] | None = None,
) -> SearchResult:
    """Search the KB now (through the persistent index) or at a past revision or date.

    ``synonyms_file`` (a path in the KB's work tree) extends the shipped synonym table;
    ``related`` terms (``search --expand``) join the query as synonyms of it;
    ``progress(done, total)`` hears how far a (re)build of the index has got.
    """
    if not 1 <= limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}")
    tier = None
    if confidence:
        from reflectgit.notes.note import normalize_tier

        tier = normalize_tier(confidence)
        if tier is None:
            raise UsageError(f"unknown confidence {confidence!r}", hint="use high, medium or low")
    if as_of is not None:
        parse_when(as_of)  # a bad date is a usage error before any work
    require_words(query)
    kwargs: dict[str, Any] = {
        "limit": limit,
        "include_all": include_all,
        "tag": tag,
        "confidence": tier,
        "as_of": as_of,
        "now": now,
        "explain": explain,
        "synonyms": kb_synonyms(kb, synonyms_file),
        "related": related,
    }
    if at is not None:
        store = _open_store(kb, env)
        try:
            commit = resolve_at(store, at)
            tree = store.commit_info(commit).tree
            with Index.memory() as past:
                past.refresh(store, tree, progress=progress)
                result = past.search(query, **kwargs)
        finally:
            store.close()
        result.at = commit
        return result
    index, refreshed = open_fresh(kb, state_dir, env, progress)
    with index:
        result = index.search(query, **kwargs)
    result.refresh = refreshed
    return result


# --------------------------------------------------------------------------- rendering


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
