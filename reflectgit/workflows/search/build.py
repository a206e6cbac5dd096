"""Building the index from git and keeping it up to a tree: a rebuild from the tree's files
(parsed in worker processes when there are many), or an incremental refresh from the files the
git diff names, old words taken out with the blobs they came from."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from reflectgit.errors import ReflectGitError
from reflectgit.git import repo_info
from reflectgit.workflows.search.documents import (
    FIELDS,
    LOCATIONS,
    Document,
    document_from,
    is_indexed_path,
    note_path_of,
    sidecar_path_of,
)
from reflectgit.workflows.search.results import RefreshResult
from reflectgit.workflows.search.storage import (
    INSERT_DOC,
    INSERT_FTS,
    INSERT_SCOPING,
    Storage,
    document_rows,
    one_value,
    scoping_row,
)

if TYPE_CHECKING:  # the fresh-index query path must not import dulwich (nor pathlib)
    from pathlib import Path
    from typing import Any

    from reflectgit.git.store import Store
    from reflectgit.git.treediff import TreeCache
    from reflectgit.workflows.search.storage import Rows

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


def _parse_batch(jobs: Sequence[_Job]) -> Rows:
    """A build's batch of notes parsed into their rows (in a worker process: rows pickle
    smaller and faster than documents, and leave the writing process only SQLite to run)."""
    return document_rows(
        (rowid, document_from(path, note, side)) for rowid, path, note, side in jobs
    )


@_contextmanager
def _parser(count: int) -> Iterator[Callable[[Iterable[Sequence[_Job]]], Iterable[Rows]]]:
    """Turn batches of build jobs into their rows, in order. A big build parses in forked
    worker processes (YAML parsing is most of a build) while this one writes SQLite."""
    workers = min(os.cpu_count() or 1, 8)
    if count < PARALLEL_BUILD_MIN or workers < 2 or not hasattr(os, "fork"):
        yield lambda batches: (_parse_batch(batch) for batch in batches)
        return
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(workers) as pool:
        yield lambda batches: pool.imap(_parse_batch, batches)


class _Rebuild(Exception):
    """An incremental refresh cannot take a note's old words out: rebuild instead."""


class Builder(Storage):
    """Writing the index: a refresh to a tree, a rebuild, documents added."""

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
                        changed = self._apply(store, changes, target)
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
        first = int(one_value(self.conn, "SELECT coalesce(max(rowid), 0) FROM docs")) + 1
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
        for rowid, (path, data, side) in enumerate(Builder._build_jobs(store, files, notes), first):
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

    def _apply(
        self,
        store: Store,
        changes: Iterable[tuple[str, str | None, str | None]],
        tree: str | None = None,
    ) -> int:
        # A symbolic link is not a note (``Store.list_tree`` skips them too): not indexed.
        changes = [
            (path, old, None if new is not None and store.is_link(tree, path) else new)
            for path, old, new in changes
        ]
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
        value = one_value(self.conn, "SELECT blob FROM files WHERE path = ?", path)
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
            (doc, *(old.indexed[f] for f in FIELDS)),
        )
        return old

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
        first = int(one_value(self.conn, "SELECT coalesce(max(rowid), 0) FROM docs")) + 1
        self._add_rows(document_rows(enumerate(docs, start=first)))

    def _add_rows(self, rows: Rows) -> None:
        """Insert the rows ``rows`` made, table by table."""
        doc_rows, fts_rows, tag_rows, edge_rows, scoping_rows = rows
        self.conn.executemany(INSERT_DOC, doc_rows)
        self.conn.executemany(INSERT_FTS, fts_rows)
        self.conn.executemany("INSERT INTO doc_tags VALUES (?, ?)", tag_rows)
        for rowid, words, start, end in edge_rows:
            edge = self.conn.execute(
                "INSERT INTO edges (doc, vstart, vend) VALUES (?, ?, ?)", (rowid, start, end)
            ).lastrowid
            self.conn.execute("INSERT INTO edge_fts (rowid, text) VALUES (?, ?)", (edge, words))
        self.conn.executemany(INSERT_SCOPING, scoping_rows)

    def _add_scoping(self, rowid: int | None, scoping: Mapping[str, Any]) -> None:
        """Recall's scoping fields of one note, in their own table (only when it has any)."""
        if not scoping:
            return
        self.conn.execute(INSERT_SCOPING, scoping_row(rowid, scoping))
