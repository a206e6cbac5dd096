"""The index's file: where it lives, its SQLite schema, the rows a document fills, and the
state and rows read back from it.

The full-text table is contentless (``FTS_STORAGE``): the notes' text is in git already, so the
index keeps only what it needs to rank and to take a note's words out again (the blob ids of the
files it was built from).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from reflectgit.workflows.search.documents import FIELDS
from reflectgit.workflows.search.tokens import dashed

if TYPE_CHECKING:  # the fresh-index query path must not import pathlib
    from pathlib import Path
    from typing import Any

    from reflectgit.workflows.search.documents import Document

INDEX_NAME = "search.sqlite3"
SCHEMA_VERSION = "12"  # 11: scoping.unreviewed (issue 34); 12: scoping.code (issue 35)
# No Porter stemmer: it over-reaches (setting -> set) and misses pairs (revoke / revocation);
# query.py's light stemmer expands a query word into the index's own words instead.
TOKENIZER = "unicode61 remove_diacritics 2"

# How the full-text table stores what it indexes (see ``Builder._delete_text``): contentless,
# because the notes' text is in git already; a copy would be half the index.
FTS_STORAGE = ", content=''"

SCHEMA = f"""
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
    withheld TEXT,
    hidden INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS docs_id ON docs(id);
-- recall's candidates (workflows/recall.py rank): the live notes an agent may be served by
-- weight, their project and scope, read from this narrow index instead of three scans of the
-- whole table
CREATE INDEX IF NOT EXISTS docs_live ON docs(weight DESC, project, scope, state, hidden)
    WHERE state = 'live' AND hidden = 0 AND withheld IS NULL;
-- the notes withheld from agents (notes/withheld.py), named by recall on stderr and by status
CREATE INDEX IF NOT EXISTS docs_withheld ON docs(path) WHERE withheld IS NOT NULL;
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
    learning_type TEXT,
    unreviewed TEXT,
    code TEXT
);
"""
# ``scoping`` holds, for recall, the few fields that say where and how far a note applies: the
# branch it was learned on, an imported fleet note's authority, quarantine and domain, and what
# its discovery cost (``discovery_tokens``, the transcript's path, the learning type), and the
# machine that wrote it while no person has reviewed it (``unreviewed``), and whether it names
# code (``code``: ``anchored`` or ``flagged``, so only those notes are read for a stale label). A row
# exists only for a note that has one of them, so most notes cost nothing here.
SCOPING_FIELDS = (
    "branch",
    "authority",
    "quarantine",
    "domain",
    "discovery_tokens",
    "source_path",
    "learning_type",
    "unreviewed",
    "code",
)


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
    "withheld",
)


INSERT_DOC = (
    f"INSERT INTO docs (rowid, {', '.join(DOC_COLUMNS)}) VALUES (?{', ?' * len(DOC_COLUMNS)})"
)
INSERT_FTS = f"INSERT INTO fts (rowid, {', '.join(FIELDS)}) VALUES (?{', ?' * len(FIELDS)})"
INSERT_SCOPING = (
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
        doc.withheld,
    )


# The rows of some documents, by table: docs, fts, doc_tags, edges (rowid, words, start, end;
# their own rowids are given on insert), scoping.
if TYPE_CHECKING:  # an annotation only (no typing at run time)
    Rows = tuple[
        list[tuple[Any, ...]],
        list[tuple[Any, ...]],
        list[tuple[int, str]],
        list[tuple[int, str, "str | None", "str | None"]],
        list[tuple[Any, ...]],
    ]


def document_rows(docs: Iterable[tuple[int, Document]]) -> Rows:
    """The rows (rowid, document) pairs add to the index, table by table."""
    doc_rows: list[tuple[Any, ...]] = []
    fts_rows: list[tuple[Any, ...]] = []
    tag_rows: list[tuple[int, str]] = []
    edge_rows: list[tuple[int, str, str | None, str | None]] = []
    scoping_rows: list[tuple[Any, ...]] = []
    for rowid, doc in docs:
        doc_rows.append((rowid, *_doc_row(doc)))
        texts = doc.indexed
        fts_rows.append((rowid, *[texts[f] for f in FIELDS]))
        tag_rows.extend((rowid, t) for t in dict.fromkeys(t.lower() for t in doc.tags))
        edge_rows.extend((rowid, words, start, end) for words, start, end in doc.edges)
        if doc.scoping:
            scoping_rows.append(scoping_row(rowid, doc.scoping))
    return doc_rows, fts_rows, tag_rows, edge_rows, scoping_rows


def scoping_row(rowid: int | None, scoping: Mapping[str, Any]) -> tuple[Any, ...]:
    return (rowid, *(scoping.get(k, 0 if k == "quarantine" else None) for k in SCOPING_FIELDS))


def meta_value(conn: sqlite3.Connection, key: str) -> str | None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.OperationalError as exc:
        if str(exc).startswith("no such table"):
            return None  # an index not built yet (or by an older version)
        raise
    return row[0] if row else None


def fts_row_count(conn: sqlite3.Connection) -> int:
    """The number of rows of the full-text table, as FTS5 keeps it for bm25: the first
    varint of its averages record (row 1 of ``fts_data``); a count when that is missing."""
    block = one_value(conn, "SELECT block FROM fts_data WHERE id = 1")
    if isinstance(block, bytes) and block:
        value = 0
        for i, byte in enumerate(block[:9]):
            if i == 8:
                return (value << 8) | byte
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                return value
    return int(one_value(conn, "SELECT count(*) FROM docs") or 0)


def one_value(conn: sqlite3.Connection, sql: str, *params: Any) -> Any:
    row = conn.execute(sql, params).fetchone()
    return row[0] if row else None


def remove_files(path: str | os.PathLike[str]) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(os.fspath(path) + suffix)
        except FileNotFoundError:
            continue


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
    key = hashlib.sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = dashed(os.path.basename(root), _NAME_CHARS)[:40] or "kb"
    return os.path.join(state, "indexes", f"{name}-{key}", INDEX_NAME)


_NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"


class Storage:
    """The index's connection and what is read back from it: the tree it holds, its stamp, its
    counts, document rows and scoping fields (``Builder`` writes, ``Ranker`` ranks)."""

    def __init__(self, conn: sqlite3.Connection, path: str | os.PathLike[str] | None) -> None:
        self.conn = conn
        self.path = path
        self.repaired: str | None = None  # why ``open`` rebuilt the file (the errors ledger)
        self._vocabulary = False  # the temp fts5vocab table, made on the first query

    # ------------------------------------------------------------------ state

    @property
    def tree(self) -> str | None:
        """The root tree this index was built from (``""`` for an empty repo, None if never)."""
        return meta_value(self.conn, "tree")

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
        if meta_value(self.conn, "head") != value:
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('head', ?)", (value,))

    def count(self, state: str | None = None) -> int:
        if state is None:
            return int(self.conn.execute("SELECT count(*) FROM docs").fetchone()[0])
        row = self.conn.execute("SELECT count(*) FROM docs WHERE state = ?", (state,)).fetchone()
        return int(row[0])

    def documents(self, rowids: Sequence[int] | None = None) -> list[dict[str, Any]]:
        """Stored document rows (for recall), all or the given ones."""
        cols = "rowid, id, path, title, tier, confidence, proofs, weight, state, scope, project,"
        cols += " tags, entities, summary, updated, hidden, withheld"
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

    def withheld(self, live_only: bool = True) -> list[tuple[str, str]]:
        """The notes withheld from agents (``notes/withheld.py``) and why, by path; only live
        ones unless ``live_only`` is false."""
        where = " AND state = 'live' AND hidden = 0" if live_only else ""
        return [
            (path, why)
            for path, why in self.conn.execute(
                f"SELECT path, withheld FROM docs WHERE withheld IS NOT NULL{where} ORDER BY path"
            )
        ]

    def any_anchored(self) -> bool:
        """Whether any note of the KB has anchors (else no branch can concern one)."""
        row = self.conn.execute("SELECT 1 FROM scoping WHERE code IS NOT NULL LIMIT 1").fetchone()
        return row is not None

    def edges_change_after(self, moment: str) -> str | None:
        """The first instant after ``moment`` (naive-UTC ISO, as the edges hold theirs) at
        which a relationship starts or stops holding; None when none ever will. Until then a
        query dated now matches the same edges as at ``moment``."""
        row = self.conn.execute(
            "SELECT min(v) FROM (SELECT vstart AS v FROM edges WHERE vstart > ?"
            " UNION ALL SELECT vend FROM edges WHERE vend >= ?)",
            (moment, moment),
        ).fetchone()
        return row[0] if row else None

    def naming_code(self, paths: Sequence[str]) -> set[str]:
        """Those of ``paths`` whose note names code (anchors, or a ``stale:`` flag): the only
        notes a stale label can concern."""
        out: set[str] = set()
        for start in range(0, len(paths), 500):  # SQLite caps the number of parameters
            chunk = list(paths[start : start + 500])
            marks = ",".join("?" * len(chunk))
            out.update(
                path
                for (path,) in self.conn.execute(
                    "SELECT docs.path FROM scoping JOIN docs ON docs.rowid = scoping.doc"
                    f" WHERE scoping.code IS NOT NULL AND docs.path IN ({marks})",
                    chunk,
                )
            )
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
