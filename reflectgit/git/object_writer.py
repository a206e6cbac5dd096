"""The objects one commit writes: blobs, the trees spliced from the branch tip's, the commit.

A part of ``Store`` (``store.Store`` inherits it). Inside a commit the objects are queued,
then written together: as one pack when there are many (one file, not thousands), else as
loose files; they are kept in memory for the work-tree sync to read back, and removed again
when the commit does not happen, so a refused command leaves not even a dangling object.
"""

from __future__ import annotations

import contextlib
import os
import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from reflectgit.git import fsync
from reflectgit.git.change import Change
from reflectgit.git.commit_object import commit_bytes, env_date, local_offset
from reflectgit.git.objects import has_packed, object_id
from reflectgit.git.pack import write_pack
from reflectgit.git.repo_config import RepoConfig
from reflectgit.git.tree import DIR_MODE, FILE_MODE, RawTree
from reflectgit.git.treediff import remember_trees

if TYPE_CHECKING:
    from dulwich.repo import Repo

PACK_MIN_OBJECTS = 32  # a commit writing more objects than this writes them as one pack


FANOUT_RETRIES = 5  # times a fan-out folder may vanish under one object write


def _create(tmp: Path) -> BinaryIO:
    """Open a new temporary object file in its fan-out folder, making the folder. A folder
    ``git prune-packed`` (or ``gc``) removes between our ``mkdir`` and ``open`` is made again,
    as git's own object writer does."""
    for _ in range(FANOUT_RETRIES):
        tmp.parent.mkdir(exist_ok=True)
        try:
            return open(tmp, "wb")
        except FileNotFoundError:
            continue  # the folder went while empty: make it again
    return open(tmp, "wb")  # still vanishing: the error says so


class ObjectWriter(RepoConfig):
    """Writes a commit's objects into the repository's object database."""

    _objects_dir: Path
    _batch: dict[bytes, tuple[bytes, bytes]] | None
    _recent: dict[bytes, tuple[bytes, bytes]]
    _created: list[Path]

    if TYPE_CHECKING:  # the reading half of ``Store``

        @property
        def repo(self) -> Repo: ...

        def _raw_tree(self, sha: bytes) -> RawTree: ...

    def _write_tree(self, base_tree: bytes | None, changes: Sequence[Change]) -> bytes:
        """Build and write the new tree's objects (None when it equals ``base_tree``)."""
        self._batch = {}
        try:
            new_tree = self._build_tree(base_tree, changes)
            if new_tree == base_tree:
                return new_tree
            self._flush_batch()
            # Big folder trees kept raw too, so the search index need not inflate them.
            remember_trees(
                self._objects_dir,
                (
                    (k.decode("ascii"), raw)
                    for k, (kind, raw) in self._recent.items()
                    if kind == b"tree"
                ),
            )
            return new_tree
        finally:
            self._batch = None

    def _make_commit(self, tree: bytes, parents: list[bytes], text: str) -> bytes:
        """Write the commit object; return its hex sha."""
        now = int(time.time())
        offset = local_offset(now)
        author_date = env_date(self.env.get("GIT_AUTHOR_DATE")) or (now, offset)
        committer_date = env_date(self.env.get("GIT_COMMITTER_DATE")) or (now, offset)
        raw = commit_bytes(
            tree,
            parents,
            (self._identity("AUTHOR"), *author_date),
            (self._identity("COMMITTER"), *committer_date),
            text.encode("utf-8"),
        )
        return self._write_object(b"commit", raw)

    def _build_tree(self, base_tree: bytes | None, changes: Sequence[Change]) -> bytes:
        new = self._apply(base_tree, [(c.path.split("/"), c.data) for c in changes])
        return new if new is not None else self._write_object(b"tree", b"")

    def _apply(
        self, tree_sha: bytes | None, changes: list[tuple[list[str], bytes | None]]
    ) -> bytes | None:
        """Rebuild one tree level as bytes; recurse only into subtrees that change."""
        tree = self._raw_tree(tree_sha).fork() if tree_sha is not None else RawTree()
        by_child: dict[bytes, list[tuple[list[str], bytes | None]]] = {}
        direct: dict[bytes, bytes | None] = {}
        for parts, data in changes:
            name = parts[0].encode("utf-8")
            if len(parts) == 1:
                direct[name] = data
            else:
                by_child.setdefault(name, []).append((parts[1:], data))
        # Folders first, from the entries as they were: a file written at a folder's name
        # replaces the folder, a folder written under a deleted file's name replaces the file.
        for name, sub in by_child.items():
            current = tree.get(name)
            existing = (
                current.sha.hex().encode("ascii")
                if current is not None and current.mode == DIR_MODE
                else None
            )
            new_sub = self._apply(existing, sub)
            if new_sub is None:
                tree.remove(name)
            else:
                tree.set(name, DIR_MODE, bytes.fromhex(new_sub.decode("ascii")))
        for name, data in direct.items():
            if data is not None:
                sha = self._write_object(b"blob", data)
                tree.set(name, FILE_MODE, bytes.fromhex(sha.decode("ascii")))
            elif name not in by_child:
                tree.remove(name)
            else:
                current = tree.get(name)
                if current is not None and current.mode != DIR_MODE:
                    tree.remove(name)
        if tree.is_empty():
            return None
        raw = tree.serialize()
        if tree_sha is not None and raw == tree.raw:
            return tree_sha
        return self._write_object(b"tree", raw)

    def _write_object(self, type_name: bytes, raw: bytes) -> bytes:
        """Write (or, inside a commit, queue) an object; return its hex sha."""
        if self._batch is not None:
            hexsha = object_id(type_name, raw).encode("ascii")
            self._batch[hexsha] = (type_name, raw)
            return hexsha
        return self._write_loose(type_name, raw)

    def _flush_batch(self) -> None:
        """Write the queued objects: one pack for many (one file, not thousands), else loose."""
        batch, self._batch = self._batch or {}, None
        self._recent = batch
        if len(batch) >= PACK_MIN_OBJECTS:
            name = write_pack(
                self._objects_dir / "pack",
                (
                    (kind, raw, bytes.fromhex(sha.decode("ascii")))
                    for sha, (kind, raw) in batch.items()
                ),
                sync=self.fsync_policy,
            )
            if name:
                pack = self._objects_dir / "pack" / name
                self._created += [pack.with_suffix(".idx"), pack.with_suffix(".pack")]
            refresh = getattr(self._repo and self._repo.object_store, "_update_pack_cache", None)
            if callable(refresh):
                refresh()
        else:
            for sha, (kind, raw) in batch.items():
                self._write_loose(kind, raw, sha.decode("ascii"))  # hashed once, when queued

    def _write_loose(self, type_name: bytes, raw: bytes, sha: str | None = None) -> bytes:
        """Write a loose object (fast zlib level; git reads any level); return its hex sha
        (``sha``: the one ``_write_object`` computed for these bytes)."""
        header = b"%s %d\x00" % (type_name, len(raw))
        if sha is None:
            sha = object_id(type_name, raw)
        target = self._objects_dir / sha[:2] / sha[2:]
        if target.exists() or self._contains_packed(sha):
            return sha.encode("ascii")
        tmp = target.parent / f"tmp_obj_{os.getpid()}_{sha[2:12]}"
        try:
            with _create(tmp) as fh:
                fh.write(zlib.compress(header + raw, 1))
                fh.flush()
                self.fsync_policy.flush(fh.fileno(), fsync.LOOSE_OBJECT)
            os.chmod(tmp, 0o444)
            os.replace(tmp, target)
            self.fsync_policy.flush_dir(target.parent, fsync.LOOSE_OBJECT)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
        self._created.append(target)
        return sha.encode("ascii")

    def _contains_packed(self, sha: str) -> bool:
        found = has_packed(self._objects_dir, bytes.fromhex(sha))
        if found is None:  # an index this reader does not know: dulwich's answer
            return bool(self.repo.object_store.contains_packed(sha.encode("ascii")))
        return found

    def _forget_created(self) -> None:
        """A commit that will not happen: remove the objects it created (nothing else names
        them; each is our new note's content or a tree only this commit builds), so a refused
        or failed command leaves nothing behind, not even a dangling object."""
        for path in reversed(self._created):
            with contextlib.suppress(OSError):
                path.unlink()
        self._created = []
        refresh = getattr(self._repo and self._repo.object_store, "_update_pack_cache", None)
        if callable(refresh):
            with contextlib.suppress(Exception):
                refresh()
