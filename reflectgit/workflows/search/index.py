"""The search index: a derived SQLite FTS5 database that can never silently drift from git.

The index lives in the state directory (``search.sqlite3``) and records the root tree it was
built from. Before every query the current tree is compared with that one (cheaply: the ref
and the commit object are read straight from the git directory); when they differ, only the
files the git diff names are re-read. Deleting or corrupting the file loses nothing but the
time to rebuild it. Notes in ``documents/``, ``archived/`` and ``.forgotten/`` are indexed with a
state (live, archived, forgotten, superseded, retired), so ``--all`` needs no second index.

Sidecar relationships are indexed one row per edge with their validity interval (``tvalid`` ..
``tvalid_end``), so an edge's words only match at dates when the edge held.

The index is put together from one module per idea: ``storage`` (the file, its schema and
what is read back), ``build`` (building and refreshing it from git), ``ranking`` (a query's
ranked notes), ``documents`` (the searchable view of a note) and ``results``; this module is
the ``Index`` they make and the workflows that keep it fresh with HEAD.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from reflectgit.errors import NotFoundError, UsageError
from reflectgit.git import repo_info
from reflectgit.git.pending import recover_if_pending
from reflectgit.workflows.search.build import Builder, head_tree
from reflectgit.workflows.search.documents import parse_when, utc_text
from reflectgit.workflows.search.ranking import Ranker, require_words
from reflectgit.workflows.search.results import RefreshResult, SearchResult
from reflectgit.workflows.search.storage import (
    SCHEMA,
    SCHEMA_VERSION,
    index_file,
    meta_value,
    remove_files,
)
from reflectgit.workflows.search.synonyms import SYNONYMS_FILE, kb_synonyms

if TYPE_CHECKING:  # the fresh-index query path must not import dulwich (nor pathlib)
    from pathlib import Path
    from typing import Any

    from reflectgit.git.store import Store

MAX_LIMIT = 1000


class Index(Builder, Ranker):
    """The SQLite FTS5 index of one KB (or an in-memory one for a past tree)."""

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
            remove_files(path)  # derived data: a damaged file is rebuilt from git
            index = cls._connect(path)
            index.repaired = f"unreadable index rebuilt: {exc}"
            return index

    @classmethod
    def memory(cls) -> Index:
        """A throwaway index (for searching the KB as it was at a past revision)."""
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.executescript(SCHEMA)
        return cls(conn, None)

    @classmethod
    def _connect(cls, path: str | os.PathLike[str]) -> Index:
        conn = sqlite3.connect(path, timeout=30, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            # A crash can at worst damage derived data, which is rebuilt from git.
            conn.execute("PRAGMA synchronous=OFF")
            version = meta_value(conn, "schema")
            if version not in (None, SCHEMA_VERSION):
                conn.close()
                remove_files(path)
                conn = sqlite3.connect(path, timeout=30, isolation_level=None)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=OFF")
            if version != SCHEMA_VERSION:
                conn.executescript(SCHEMA)
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


def _repaired(state_dir: str | os.PathLike[str], path: str | os.PathLike[str], why: str) -> None:
    """An index repair goes into the errors ledger (``reflect-git errors``)."""
    from pathlib import Path

    from reflectgit.state import errors

    errors.record(Path(state_dir), errors.INDEX_REPAIR, why, path=os.fspath(path))


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
            tree = meta_value(conn, "tree")
            version = meta_value(conn, "schema")
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
            remove_files(path)
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
        remove_files(index_file(state_dir, kb))
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
        if utc_text(info.commit_time) <= when[1]:
            return info.sha
    raise NotFoundError(
        f"no commit at or before {rev}", hint="`git log --reverse` shows the first commit's date"
    )


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
    served_only: bool = False,
    code: Path | None = None,
) -> SearchResult:
    """Search the KB now (through the persistent index) or at a past revision or date.

    ``served_only`` (what an agent asks, through the MCP tools) leaves out the notes withheld
    from agents (``notes/withheld.py``); a person's search lists them, flagged and masked.

    ``synonyms_file`` (a path in the KB's work tree) extends the shipped synonym table;
    ``related`` terms (``search --expand``) join the query as synonyms of it;
    ``progress(done, total)`` hears how far a (re)build of the index has got;
    ``code`` (a folder in a code repository) labels the hits whose anchored code moved on.
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
        "synonyms": kb_synonyms(kb, synonyms_file, state_dir),
        "related": related,
        "served_only": served_only,
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
        naming = index.naming_code([h.path for h in result.hits]) if code is not None else set()
    result.refresh = refreshed
    if naming:
        from pathlib import Path

        from reflectgit.workflows.code.labels import stale_labels

        labels = stale_labels(
            Path(kb),
            Path(state_dir),
            code,
            [(h.id, h.path) for h in result.hits if h.path in naming],
            env,
        )
        for hit in result.hits:
            hit.stale = labels.get(hit.id)
    return result
