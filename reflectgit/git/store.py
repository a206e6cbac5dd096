"""The local repository: the only module that reads or writes it (through dulwich).

One write path serves every writer. ``Store.commit`` takes a branch and a set of path changes,
builds the new tree from the branch tip touching only the changed subtrees, writes the objects,
moves the ref with compare-and-swap under the KB-wide write lock, and then brings the work tree
and the index in line for the changed paths only. It never runs repository hooks (we write
objects and refs ourselves, we never call ``porcelain.commit``), and it refuses, before writing
anything, to touch a path that holds the user's uncommitted edits.

Crash safety: objects are written before the ref moves, and the ref moves atomically, so the
branch always names a complete commit. A small journal records a work-tree sync in progress;
the next write (under the lock) finishes it, so a kill between the ref move and the sync never
leaves the work tree out of step.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import stat
import time
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Protocol

from dulwich.errors import NotGitRepository
from dulwich.objects import Blob, Commit, Tree
from dulwich.repo import Repo

from reflectgit.errors import ConflictError, LockError, NotFoundError, ReflectGitError
from reflectgit.git import safety
from reflectgit.git.index import Entry, IndexFile, IndexLocked, UnsupportedIndex
from reflectgit.git.objects import read_loose
from reflectgit.git.pack import write_all, write_pack
from reflectgit.git.tree import RawTree
from reflectgit.notes.messages import CommitMessage

FILE_MODE = 0o100644
TREE_MODE = 0o040000
GITLINK_MODE = 0o160000
LOCK_NAME = "reflect-git.lock"
JOURNAL_NAME = "reflect-git-sync.json"
PACK_MIN_OBJECTS = 32  # a commit writing more objects than this writes them as one pack
WRITER_NAME = "reflect-git-writer.pid"  # present only while a writer is inside the lock
FALLBACK_NAME = "reflect-git"
FALLBACK_EMAIL = "reflect-git@localhost"
_TIP = object()  # sentinel: "the branch tip"


# --------------------------------------------------------------------------- changes


@dataclass(frozen=True)
class Change:
    """One path change: new bytes for ``path``, or ``data=None`` to delete it."""

    path: str
    data: bytes | None


def write(path: str, data: bytes) -> Change:
    """Write ``data`` at ``path`` (create or replace)."""
    return Change(_clean_path(path), data)


def delete(path: str) -> Change:
    """Remove ``path``."""
    return Change(_clean_path(path), None)


def move(src: str, dst: str, data: bytes) -> list[Change]:
    """Move ``src`` to ``dst`` (``data`` is the content to write at ``dst``)."""
    return [delete(src), write(dst, data)]


def _clean_path(path: str) -> str:
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts) or parts[0] == ".git":
        raise ReflectGitError(f"refusing an unsafe repository path: {path!r}")
    return "/".join(parts)


class PathChanged(ConflictError):
    """A path the caller read changed before its commit: re-read and try again."""


def blob_id(data: bytes) -> str:
    """The sha git gives ``data`` as a blob."""
    return hashlib.sha1(b"blob %d\x00%s" % (len(data), data)).hexdigest()


@dataclass(frozen=True)
class CommitInfo:
    """A commit as the workflows see it."""

    sha: str
    parents: tuple[str, ...]
    message: str
    author: str
    committer: str
    author_time: datetime
    commit_time: datetime
    tree: str


# --------------------------------------------------------------------------- the store


class Store:
    """A git repository holding a KB (or a team clone of one)."""

    def __init__(self, repo: Repo, env: Mapping[str, str] | None = None) -> None:
        self.repo = repo
        self.env: Mapping[str, str] = dict(env or {})
        self.git_dir = Path(os.fsdecode(repo.controldir()))
        self.common_dir = Path(os.fsdecode(repo.commondir()))
        self.path: Path | None = None if repo.bare else Path(os.fsdecode(repo.path))
        self._cached_identity: tuple[str | None, str | None] | None = None
        self._trees: dict[bytes, RawTree] = {}
        self._objects_dir = self.common_dir / "objects"
        # Objects of the commit being built: written together (one pack when there are many)
        # and read back from memory by the work-tree sync.
        self._batch: dict[bytes, tuple[bytes, bytes]] | None = None
        self._recent: dict[bytes, tuple[bytes, bytes]] = {}

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> Store:
        """Open an existing repository (work tree or bare)."""
        safety.check_location(path)  # sha256 or reftable: refused before anything is written
        try:
            repo = Repo(os.fspath(path))
        except (NotGitRepository, FileNotFoundError, NotADirectoryError):
            raise NotFoundError(
                f"{path} is not a git repository",
                hint=f"run `reflect-git init {path}` to create a knowledge base there",
            ) from None
        return cls(repo, env)

    @classmethod
    def init(
        cls, path: str | os.PathLike[str], env: Mapping[str, str] | None = None, bare: bool = False
    ) -> Store:
        """Open the repository at ``path``, creating it (branch ``main``, no commit) if needed."""
        safety.check_location(path)  # sha256 or reftable: refused before anything is written
        target = Path(path)
        with contextlib.suppress(NotGitRepository, FileNotFoundError, NotADirectoryError):
            return cls(Repo(os.fspath(target)), env)
        if not bare and (target / ".git").exists():
            raise ConflictError(
                f"{target / '.git'} exists but is not a git repository",
                hint="move it aside (or delete it if it holds nothing you need) and run again",
            )
        target.mkdir(parents=True, exist_ok=True)
        if bare:
            repo = Repo.init_bare(os.fspath(target), default_branch=b"main")
        else:
            repo = Repo.init(os.fspath(target), default_branch=b"main")
        return cls(repo, env)

    def close(self) -> None:
        self.repo.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ reading

    def current_branch(self) -> str | None:
        """The checked-out branch (``main``), or None when HEAD is detached."""
        try:
            target = self.repo.refs.get_symrefs().get(b"HEAD")
        except KeyError:
            target = None
        if target is None:
            chain, _ = self.repo.refs.follow(b"HEAD")
            target = chain[-1] if len(chain) > 1 else None
        if target and target.startswith(b"refs/heads/"):
            return target[len(b"refs/heads/") :].decode("utf-8")
        return None

    def resolve(self, rev: str) -> str | None:
        """A branch, tag, ``HEAD``, full ref, (short) sha, with ``~N``/``^`` suffixes -> commit."""
        base, steps = _split_ancestry(rev)
        sha = self._resolve_base(base)
        for _ in range(steps):
            if sha is None:
                return None
            parents = self._commit(sha).parents
            sha = parents[0].decode("ascii") if parents else None
        return sha

    def _resolve_base(self, rev: str) -> str | None:
        refs = self.repo.refs
        raw = rev.encode("utf-8")
        for name in (raw, b"refs/heads/" + raw, b"refs/tags/" + raw, b"refs/remotes/" + raw):
            try:
                sha = refs[name]
            except KeyError:
                continue
            return self._peel(sha)
        if 4 <= len(rev) <= 40 and all(c in "0123456789abcdef" for c in rev.lower()):
            if len(rev) == 40:
                return rev.lower() if raw.lower() in self.repo.object_store else None
            matches = {
                s.decode("ascii")
                for s in self.repo.object_store
                if s.decode("ascii").startswith(rev.lower())
            }
            commits = [m for m in matches if isinstance(self.repo[m.encode()], Commit)]
            return commits[0] if len(commits) == 1 else None
        return None

    def _peel(self, sha: bytes) -> str | None:
        obj = self.repo[sha]
        while obj.type_name == b"tag":
            obj = self.repo[obj.object[1]]
        return obj.id.decode("ascii") if isinstance(obj, Commit) else None

    def tip(self, branch: str) -> str | None:
        """The commit a local branch points at, or None if it does not exist."""
        try:
            return self.repo.refs[b"refs/heads/" + branch.encode("utf-8")].decode("ascii")
        except KeyError:
            return None

    def head(self) -> str | None:
        """The commit HEAD points at, or None on an unborn branch."""
        try:
            return self.repo.refs[b"HEAD"].decode("ascii")
        except KeyError:
            return None

    def _commit(self, sha: str | bytes) -> Commit:
        obj = self.repo[sha.encode("ascii") if isinstance(sha, str) else sha]
        if not isinstance(obj, Commit):
            raise NotFoundError(f"{sha!r} is not a commit")
        return obj

    def _rev_commit(self, rev: str | None) -> Commit | None:
        if rev is None:
            sha = self.head()
            return self._commit(sha) if sha else None
        sha = self.resolve(rev)
        if sha is None:
            raise NotFoundError(
                f"unknown revision {rev!r}", hint="name a branch, a tag or a commit sha"
            )
        return self._commit(sha)

    def tree_id(self, rev: str | None = None) -> str | None:
        """The root tree of a revision (default: HEAD), or None on an unborn branch."""
        commit = self._rev_commit(rev)
        return commit.tree.decode("ascii") if commit else None

    def read(self, path: str, rev: str | None = None) -> bytes | None:
        """A file's bytes at a revision (default: HEAD), or None if absent."""
        tree = self.tree_id(rev)
        return self.read_at_tree(tree, path) if tree else None

    def read_at_tree(self, tree: str, path: str) -> bytes | None:
        """A file's bytes under a root tree id, or None if absent."""
        try:
            mode, sha = self._lookup(tree.encode("ascii"), path)
        except KeyError:
            return None
        if stat.S_ISDIR(mode):
            return None
        return self.read_blob(sha.decode("ascii"))

    def _lookup(self, tree_sha: bytes, path: str) -> tuple[int, bytes]:
        """(mode, hex sha) of ``path`` under a tree; KeyError if absent."""
        mode, sha = TREE_MODE, tree_sha
        for part in path.encode("utf-8").split(b"/"):
            if mode != TREE_MODE:
                raise KeyError(path)
            entry = self._raw_tree(sha).get(part)
            if entry is None:
                raise KeyError(path)
            mode, sha = entry.mode, entry.sha.hex().encode("ascii")
        return mode, sha

    def _raw_tree(self, sha: bytes) -> RawTree:
        """A tree object's bytes, cached by sha (trees never change)."""
        cached = self._trees.get(sha)
        if cached is None:
            raw = self._read_loose(sha, b"tree")
            if raw is None:
                type_num, raw = self.repo.object_store.get_raw(sha)
                if type_num != Tree.type_num:
                    raise KeyError(sha)
            cached = RawTree(raw)
            if len(self._trees) > 256:
                self._trees.clear()
            self._trees[sha] = cached
        return cached

    def _read_loose(self, sha: bytes, type_name: bytes) -> bytes | None:
        """An object's content read directly: one we just wrote, or a loose one (dulwich would
        parse a whole tree into Python objects first, which dominates a commit in a
        10,000-note folder). None sends the caller to dulwich (packed objects)."""
        recent = self._recent.get(sha)
        if recent is not None:
            return recent[1] if recent[0] == type_name else None
        return read_loose(self._objects_dir, sha.decode("ascii"), type_name)

    def exists(self, path: str, rev: str | None = None) -> bool:
        tree = self.tree_id(rev)
        if not tree:
            return False
        try:
            self._lookup(tree.encode("ascii"), path)
        except KeyError:
            return False
        return True

    def read_blob(self, sha: str) -> bytes:
        raw = sha.encode("ascii")
        body = self._read_loose(raw, b"blob")
        if body is not None:
            return body
        return self.repo.object_store[raw].as_raw_string()

    def list_files(self, prefix: str = "", rev: str | None = None) -> dict[str, str]:
        """Every file under ``prefix`` at a revision: path -> blob sha."""
        tree = self.tree_id(rev)
        return self.list_tree(tree, prefix) if tree else {}

    def list_tree(self, tree: str, prefix: str = "") -> dict[str, str]:
        """Every file under ``prefix`` of a root tree: path -> blob sha."""
        start = tree.encode("ascii")
        base = prefix.strip("/")
        if base:
            try:
                mode, start = self._lookup(start, base)
            except KeyError:
                return {}
            if not stat.S_ISDIR(mode):
                return {}
        out: dict[str, str] = {}
        stack = [(base, start)]
        store = self.repo.object_store
        while stack:
            where, sha = stack.pop()
            tree_obj = store[sha]
            assert isinstance(tree_obj, Tree)
            for entry in tree_obj.iteritems():
                name = entry.path.decode("utf-8", "surrogateescape")
                full = f"{where}/{name}" if where else name
                if stat.S_ISDIR(entry.mode):
                    stack.append((full, entry.sha))
                elif entry.mode != GITLINK_MODE:
                    out[full] = entry.sha.decode("ascii")
        return out

    def diff_trees(
        self, old_tree: str | None, new_tree: str | None, prefix: str = ""
    ) -> list[tuple[str, str | None, str | None]]:
        """Files that differ between two root trees: (path, old blob, new blob)."""
        old = old_tree.encode("ascii") if old_tree else None
        new = new_tree.encode("ascii") if new_tree else None
        base = prefix.strip("/")
        if base:
            old = self._subtree(old, base)
            new = self._subtree(new, base)
        out: list[tuple[str, str | None, str | None]] = []
        from dulwich.diff_tree import tree_changes  # only diffs need it; keep start-up lean

        for change in tree_changes(self.repo.object_store, old, new):
            old_entry, new_entry = change.old, change.new
            raw = (new_entry and new_entry.path) or (old_entry and old_entry.path) or b""
            path = raw.decode("utf-8", "surrogateescape")
            old_sha = old_entry.sha.decode("ascii") if old_entry and old_entry.sha else None
            new_sha = new_entry.sha.decode("ascii") if new_entry and new_entry.sha else None
            out.append((f"{base}/{path}" if base else path, old_sha, new_sha))
        return out

    def _subtree(self, tree: bytes | None, path: str) -> bytes | None:
        found = self._entry_at(tree, path)
        return found[1] if found and stat.S_ISDIR(found[0]) else None

    def _entry_at(self, tree: bytes | None, path: str) -> tuple[int, bytes] | None:
        """(mode, sha) of ``path`` under a tree, or None."""
        if tree is None:
            return None
        try:
            return self._lookup(tree, path)
        except KeyError:
            return None

    def log(
        self, rev: str | None = None, limit: int | None = None, paths: Sequence[str] | None = None
    ) -> Iterator[CommitInfo]:
        """Commits reachable from a revision (default HEAD), newest first."""
        commit = self._rev_commit(rev)
        if commit is None:
            return
        walker = self.repo.get_walker(
            include=[commit.id],
            max_entries=limit,
            paths=[p.encode("utf-8") for p in paths] if paths else None,
        )
        for entry in walker:
            yield _info(entry.commit)

    def commit_info(self, sha: str) -> CommitInfo:
        return _info(self._commit(sha))

    def branches(self, prefix: str = "") -> dict[str, str]:
        """Local branches whose names start with ``prefix``: name -> sha."""
        out: dict[str, str] = {}
        for name, sha in self.repo.refs.as_dict(b"refs/heads/").items():
            short = name.decode("utf-8")
            if short.startswith(prefix):
                out[short] = sha.decode("ascii")
        return out

    def refs(self, prefix: str) -> dict[str, str]:
        """Any refs under a prefix such as ``refs/remotes/origin/``: short name -> sha."""
        raw = prefix.encode("utf-8")
        return {
            k.decode("utf-8"): v.decode("ascii") for k, v in self.repo.refs.as_dict(raw).items()
        }

    # ------------------------------------------------------------------ locking

    @contextlib.contextmanager
    def lock(self, timeout: float = 60.0) -> Iterator[None]:
        """The KB-wide write lock: an OS file lock, released by the kernel if we die."""
        path = self.common_dir / LOCK_NAME
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            deadline = time.monotonic() + timeout
            delay = 0.002
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES):
                        raise
                    if time.monotonic() >= deadline:
                        raise LockError(
                            f"another reflect-git process has held the KB write lock for over "
                            f"{timeout:.0f}s",
                            hint=f"wait for it to finish; the lock is {path}",
                        ) from None
                    time.sleep(delay)
                    delay = min(delay * 2, 0.05)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    # ------------------------------------------------------------------ writing

    def commit(
        self,
        changes: Iterable[Change],
        message: CommitMessage | str,
        *,
        branch: str | None = None,
        parent: object = _TIP,
        extra_parents: Sequence[str] = (),
        sync_worktree: bool | None = None,
        allow_empty: bool = False,
        expect: Mapping[str, str | None] | None = None,
    ) -> str | None:
        """Apply ``changes`` as one commit on ``branch``; return its sha (None if nothing changed).

        ``parent`` defaults to the branch tip; pass a sha to build on another commit (routing
        builds knowledge branches on the remote ``main`` tip) or None for a root commit.
        ``expect`` maps paths to the blob sha (or None: absent) the caller read them as; if
        another writer changed one since, ``PathChanged`` is raised and nothing is written,
        so a read-modify-write never loses a concurrent update.
        """
        changes = safety.checked_changes(self, changes, message, branch, parent)  # refusals
        change_list = _dedupe(changes)
        text = message.render() if isinstance(message, CommitMessage) else message
        with self.lock(), self._writing():
            target = branch or self.current_branch()
            if target is None:
                raise ConflictError(
                    "HEAD is detached; reflect-git commits to a branch",
                    hint="check out a branch (`git switch main`) and try again",
                )
            ref = b"refs/heads/" + target.encode("utf-8")
            old_tip = self.tip(target)
            base = old_tip if parent is _TIP else parent
            if base is not None and not isinstance(base, str):
                raise TypeError("parent must be a commit sha, None or the branch tip")
            checked_out = target == self.current_branch() and self.path is not None
            sync = checked_out if sync_worktree is None else (sync_worktree and checked_out)
            if sync and base != old_tip:
                raise ConflictError(
                    f"cannot commit on top of another commit while {target} is checked out"
                )
            base_tree = self._commit(base).tree if base else None
            for path, blob in (expect or {}).items():
                found = self._blob_at(base_tree, _clean_path(path))
                if (found.decode("ascii") if found else None) != blob:
                    raise PathChanged(
                        f"{path} changed while reflect-git was working on it",
                        hint="run the command again",
                    )
            index = self._open_index() if sync else None
            if index is not None:
                self._refuse_dirty(index, change_list, base_tree)
            self._batch = {}
            try:
                new_tree = self._build_tree(base_tree, change_list)
                if new_tree == base_tree and not allow_empty and not extra_parents:
                    return None
                self._flush_batch()
            finally:
                self._batch = None
            parents = ([base.encode("ascii")] if base else []) + [
                p.encode("ascii") for p in extra_parents
            ]
            commit = self._make_commit(new_tree, parents, text)
            if sync:
                self._write_journal(target, old_tip, commit.id.decode("ascii"), change_list)
            ok = self.repo.refs.set_if_equals(
                ref,
                old_tip.encode("ascii") if old_tip else None,
                commit.id,
                message=b"reflect-git: " + text.split("\n", 1)[0].encode("utf-8"),
            )
            if not ok:
                self._clear_journal()
                raise ConflictError(
                    f"branch {target} moved while reflect-git was writing",
                    hint="run the command again",
                )
            try:
                if index is not None:
                    known = {
                        c.path: None if c.data is None else blob_id(c.data).encode("ascii")
                        for c in change_list
                    }
                    self._sync_paths([c.path for c in change_list], commit.tree, index, known)
                    self._clear_journal()
            finally:
                self._recent = {}
            return commit.id.decode("ascii")

    def set_ref(self, branch: str, new: str | None, expected_old: str | None) -> None:
        """Move (or with ``new=None`` delete) a branch if it still points at ``expected_old``."""
        ref = b"refs/heads/" + branch.encode("utf-8")
        old = expected_old.encode("ascii") if expected_old else None
        with self.lock(), self._writing():
            if new is None:
                ok = self.repo.refs.remove_if_equals(ref, old)
            else:
                ok = self.repo.refs.set_if_equals(ref, old, new.encode("ascii"))
        if not ok:
            raise ConflictError(f"branch {branch} moved", hint="fetch and try again")

    def delete_ref(self, branch: str) -> None:
        """Delete a local branch (no-op if absent)."""
        with self.lock():
            self.repo.refs.remove_if_equals(b"refs/heads/" + branch.encode("utf-8"), None)

    def set_any_ref(self, ref: str, new: str | None) -> None:
        """Set or delete any ref (remote-tracking refs after a fetch)."""
        raw = ref.encode("utf-8")
        if new is None:
            self.repo.refs.remove_if_equals(raw, None)
        else:
            self.repo.refs[raw] = new.encode("ascii")

    # ------------------------------------------------------------------ internals

    def _identity(self, kind: str) -> bytes:
        name = self.env.get(f"GIT_{kind}_NAME")
        email = self.env.get(f"GIT_{kind}_EMAIL")
        if not (name and email):
            cfg_name, cfg_email = self._config_identity()
            name = name or cfg_name or self.env.get("GIT_AUTHOR_NAME") or FALLBACK_NAME
            email = email or cfg_email or self.env.get("GIT_AUTHOR_EMAIL") or FALLBACK_EMAIL
        return f"{name} <{email}>".encode()

    def _config_identity(self) -> tuple[str | None, str | None]:
        if self._cached_identity is not None:
            return self._cached_identity
        name = email = None
        configs = []
        with contextlib.suppress(Exception):
            configs.append(self.repo.get_config())
        global_path = self.env.get("GIT_CONFIG_GLOBAL")
        home = self.env.get("HOME")
        candidates = [global_path] if global_path else []
        if home and not global_path:
            candidates.append(os.path.join(home, ".gitconfig"))
        xdg = self.env.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else None)
        if xdg and not global_path:
            candidates.append(os.path.join(xdg, "git", "config"))
        from dulwich.config import ConfigFile

        for candidate in candidates:
            if candidate and os.path.isfile(candidate):
                with contextlib.suppress(Exception):
                    configs.append(ConfigFile.from_path(candidate))
        for cfg in configs:
            with contextlib.suppress(KeyError):
                name = name or cfg.get((b"user",), b"name").decode("utf-8")
            with contextlib.suppress(KeyError):
                email = email or cfg.get((b"user",), b"email").decode("utf-8")
        self._cached_identity = (name, email)
        return name, email

    def _make_commit(self, tree: bytes, parents: list[bytes], text: str) -> Commit:
        now = int(time.time())
        offset = _local_offset(now)
        commit = Commit()
        commit.tree = tree
        commit.parents = parents
        commit.author = self._identity("AUTHOR")
        commit.committer = self._identity("COMMITTER")
        author_date = _env_date(self.env.get("GIT_AUTHOR_DATE"))
        committer_date = _env_date(self.env.get("GIT_COMMITTER_DATE"))
        commit.author_time, commit.author_timezone = author_date or (now, offset)
        commit.commit_time, commit.commit_timezone = committer_date or (now, offset)
        commit.encoding = b"UTF-8"
        commit.message = text.encode("utf-8")
        self._write_object(b"commit", commit.as_raw_string())
        return commit

    def _build_tree(self, base_tree: bytes | None, changes: Sequence[Change]) -> bytes:
        new = self._apply(base_tree, [(c.path.split("/"), c.data) for c in changes])
        return new if new is not None else self._write_object(b"tree", b"")

    def _apply(
        self, tree_sha: bytes | None, changes: list[tuple[list[str], bytes | None]]
    ) -> bytes | None:
        """Rebuild one tree level as bytes; recurse only into subtrees that change."""
        tree = self._raw_tree(tree_sha).fork() if tree_sha is not None else RawTree()
        by_child: dict[bytes, list[tuple[list[str], bytes | None]]] = {}
        for parts, data in changes:
            name = parts[0].encode("utf-8")
            if len(parts) == 1:
                if data is None:
                    tree.remove(name)
                else:
                    sha = self._write_object(b"blob", data)
                    tree.set(name, FILE_MODE, bytes.fromhex(sha.decode("ascii")))
            else:
                by_child.setdefault(name, []).append((parts[1:], data))
        for name, sub in by_child.items():
            current = tree.get(name)
            existing = (
                current.sha.hex().encode("ascii")
                if current is not None and current.mode == TREE_MODE
                else None
            )
            new_sub = self._apply(existing, sub)
            if new_sub is None:
                tree.remove(name)
            else:
                tree.set(name, TREE_MODE, bytes.fromhex(new_sub.decode("ascii")))
        if tree.is_empty():
            return None
        raw = tree.serialize()
        if tree_sha is not None and raw == tree.raw:
            return tree_sha
        return self._write_object(b"tree", raw)

    def _write_object(self, type_name: bytes, raw: bytes) -> bytes:
        """Write (or, inside a commit, queue) an object; return its hex sha."""
        if self._batch is not None:
            header = b"%s %d\x00" % (type_name, len(raw))
            hexsha = hashlib.sha1(header + raw).hexdigest().encode("ascii")
            self._batch[hexsha] = (type_name, raw)
            return hexsha
        return self._write_loose(type_name, raw)

    def _flush_batch(self) -> None:
        """Write the queued objects: one pack for many (one file, not thousands), else loose."""
        batch, self._batch = self._batch or {}, None
        self._recent = batch
        if len(batch) >= PACK_MIN_OBJECTS:
            write_pack(
                self._objects_dir / "pack",
                (
                    (kind, raw, bytes.fromhex(sha.decode("ascii")))
                    for sha, (kind, raw) in batch.items()
                ),
            )
            refresh = getattr(self.repo.object_store, "_update_pack_cache", None)
            if callable(refresh):
                refresh()
        else:
            for kind, raw in batch.values():
                self._write_loose(kind, raw)

    def _write_loose(self, type_name: bytes, raw: bytes) -> bytes:
        """Write a loose object (fast zlib level; git reads any level); return its hex sha."""
        header = b"%s %d\x00" % (type_name, len(raw))
        sha = hashlib.sha1(header + raw).hexdigest()
        target = self._objects_dir / sha[:2] / sha[2:]
        if target.exists() or self.repo.object_store.contains_packed(sha.encode("ascii")):
            return sha.encode("ascii")
        target.parent.mkdir(exist_ok=True)
        tmp = target.parent / f"tmp_obj_{os.getpid()}_{sha[2:12]}"
        with open(tmp, "wb") as fh:
            fh.write(zlib.compress(header + raw, 1))
        os.chmod(tmp, 0o444)
        os.replace(tmp, target)
        return sha.encode("ascii")

    # ------------------------------------------------------------------ work tree

    def _refuse_dirty(
        self, index: _Index, changes: Sequence[Change], base_tree: bytes | None
    ) -> None:
        """Refuse if any touched path holds edits that are not committed."""
        dirty: list[str] = []
        for change in changes:
            committed = self._blob_at(base_tree, change.path)
            if self._path_state(index, change.path, committed) != "clean":
                dirty.append(change.path)
        if dirty:
            listed = ", ".join(dirty[:5]) + (" ..." if len(dirty) > 5 else "")
            raise ConflictError(
                f"uncommitted changes in {listed}; reflect-git will not overwrite them",
                hint="commit or stash your edits (`git stash`), or discard them "
                "(`git restore --staged --worktree -- <path>`), then run the command again",
            )

    def blob_at(self, tree: str | None, path: str) -> str | None:
        """The blob sha of ``path`` under a root tree (None if absent or a folder)."""
        found = self._blob_at(tree.encode("ascii") if tree else None, path)
        return found.decode("ascii") if found else None

    def _blob_at(self, tree: bytes | None, path: str) -> bytes | None:
        found = self._entry_at(tree, path)
        return found[1] if found and not stat.S_ISDIR(found[0]) else None

    def _open_index(self) -> _Index:
        path = self.git_dir / "index"
        try:
            return _FastIndex(IndexFile.read(path))
        except UnsupportedIndex:
            return _DulwichIndex(self.repo)

    def _path_state(self, index: _Index, path: str, committed: bytes | None) -> str:
        """``clean`` when index and work tree both match the committed blob (or both absent)."""
        assert self.path is not None
        entry = index.get(path)
        staged = entry.sha.encode("ascii") if entry is not None else None
        if entry is not None and entry.stage != 0:
            return "conflicted"
        if staged != committed:
            return "staged"
        full = self.path / path
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            return "clean" if committed is None else "deleted"
        except NotADirectoryError:
            return "clean" if committed is None else "deleted"
        if stat.S_ISDIR(st.st_mode):
            return "in-the-way"
        if committed is None:
            return "untracked"
        if entry is not None and _stat_matches(entry, st, index.mtime_ns):
            return "clean"
        data = full.read_bytes()
        return "clean" if Blob.from_string(data).id == committed else "modified"

    def _sync_paths(
        self,
        paths: Sequence[str],
        tree: bytes,
        index: _Index | None = None,
        known: Mapping[str, bytes | None] | None = None,
    ) -> None:
        """Make the work tree and index match ``tree`` for ``paths`` only.

        ``known`` gives the blob of paths the caller just wrote, sparing a lookup in the new
        tree (whose ``documents`` folder would otherwise be read again, all of it).
        """
        assert self.path is not None
        index = index or self._open_index()
        root = os.fspath(self.path)
        made: set[str] = set()
        writes: list[tuple[str, str, bytes]] = []  # (path, full path, blob hex)
        for path in paths:
            sha = known[path] if known is not None and path in known else self._blob_at(tree, path)
            full = os.path.join(root, path)
            folder = os.path.dirname(full)
            if sha is None:
                with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                    os.unlink(full)
                _prune_empty_dirs(Path(folder), self.path)
                index.remove(path)
                continue
            if folder not in made:
                os.makedirs(folder, exist_ok=True)
                made.add(folder)
            writes.append((path, full, sha))
        stats = [self._write_file(full, sha) for _path, full, sha in writes]
        for (path, _full, sha), st in zip(writes, stats, strict=True):
            index.set(path, st, sha.decode("ascii"))
        try:
            index.write()
        except IndexLocked as exc:
            raise ConflictError(
                f"git is updating the index ({exc}); the commit is made but the work tree "
                "is not yet in step",
                hint="run any reflect-git command again once git has finished; it finishes "
                "the sync",
            ) from None

    def _write_file(self, full: str, sha: bytes) -> os.stat_result:
        """Write a blob into the work tree without ever showing half a note in place of a whole
        one: a new path is created exclusively and written (recovery finishes a prefix of it),
        an existing one is replaced by rename."""
        data = self.read_blob(sha.decode("ascii"))
        try:
            fd = os.open(full, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            tmp = None
        except FileExistsError:
            folder, name = os.path.split(full)
            tmp = os.path.join(folder, f".{name}.reflect-git-tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        write_all(fd, data)
        if tmp is not None:
            os.replace(tmp, full)
        return os.lstat(full)

    # ------------------------------------------------------------------ journal

    def _journal(self) -> Path:
        return self.git_dir / JOURNAL_NAME

    def _write_journal(
        self, branch: str, old: str | None, new: str, changes: Sequence[Change]
    ) -> None:
        tmp = self.git_dir / (JOURNAL_NAME + ".tmp")
        tmp.write_text(
            json.dumps(
                {"branch": branch, "old": old, "new": new, "paths": [c.path for c in changes]}
            ),
            encoding="utf-8",
        )
        os.replace(tmp, self._journal())

    def _clear_journal(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._journal().unlink()

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """Mark a write in progress (under the lock): a marker left behind means the writer died."""
        marker = self.git_dir / WRITER_NAME
        if marker.exists():
            self._clear_crash_debris(marker)
        self.recover()
        marker.write_text(str(os.getpid()), encoding="ascii")
        try:
            yield
        finally:
            with contextlib.suppress(FileNotFoundError):
                marker.unlink()

    def _clear_crash_debris(self, marker: Path) -> None:
        """Remove what a writer killed mid-commit left: git lock files and temporary files.

        We hold the KB lock and the marker says the previous holder died inside its write, so
        a ``.lock`` file it could have created (a ref, the index) is stale; left alone it would
        block git and us forever. Its half-written objects are temporary files, never objects.
        """
        try:
            pid = marker.read_text(encoding="ascii").strip()
        except OSError:
            pid = ""
        stale = [self.git_dir / "index.lock", self.common_dir / "packed-refs.lock"]
        stale += list((self.common_dir / "refs").rglob("*.lock"))
        if pid.isdigit():
            stale += list(self._objects_dir.glob(f"??/tmp_obj_{pid}_*"))
            stale += list(self._objects_dir.glob(f"pack/tmp_pack_{pid}_*"))
            stale += list(self._objects_dir.glob(f"pack/tmp_idx_{pid}_*"))
        for path in stale:
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                path.unlink()
        with contextlib.suppress(FileNotFoundError):
            (self.git_dir / (JOURNAL_NAME + ".tmp")).unlink()
        if self.path is not None:
            with contextlib.suppress(OSError, ValueError):
                record = json.loads(self._journal().read_text(encoding="utf-8"))
                for rel in record.get("paths", []):
                    full = self.path / rel
                    with contextlib.suppress(OSError):
                        (full.parent / f".{full.name}.reflect-git-tmp").unlink()
        with contextlib.suppress(FileNotFoundError):
            marker.unlink()

    def recover(self) -> bool:
        """Finish a work-tree sync that a killed process left half done. Call under the lock."""
        path = self._journal()
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return False
        except (OSError, ValueError):
            self._clear_journal()
            return False
        branch = record.get("branch")
        new = record.get("new")
        if (
            self.path is not None
            and isinstance(branch, str)
            and branch == self.current_branch()
            and self.tip(branch) == new
        ):
            tree = self._commit(new).tree
            old = record.get("old")
            old_tree = self._commit(old).tree if old else None
            index = self._open_index()
            safe = [
                p
                for p in record.get("paths", [])
                if self._recoverable(index, p, self._blob_at(old_tree, p), self._blob_at(tree, p))
            ]
            self._sync_paths(safe, tree, index)
        self._clear_journal()
        return True

    def _recoverable(
        self, index: _Index, path: str, old_blob: bytes | None, new_blob: bytes | None
    ) -> bool:
        """Did only our interrupted sync touch ``path``? Index and file each hold old or new.

        A killed sync can leave any mix (file new and index old, file gone and index old, ...);
        anything else (content matching neither) is the user's, and is left alone.
        """
        assert self.path is not None
        entry = index.get(path)
        if entry is not None and entry.stage != 0:
            return False
        staged = entry.sha.encode("ascii") if entry is not None else None
        if staged not in (old_blob, new_blob):
            return False
        full = self.path / path
        try:
            st = os.lstat(full)
        except (FileNotFoundError, NotADirectoryError):
            return old_blob is None or new_blob is None
        if not stat.S_ISREG(st.st_mode):
            return False
        data = full.read_bytes()
        if Blob.from_string(data).id in (old_blob, new_blob):
            return True
        # A new file we were still writing when killed holds a prefix of its content.
        if old_blob is None and new_blob is not None and staged is None:
            return self.read_blob(new_blob.decode("ascii")).startswith(data)
        return False

    def dirty_paths(self, paths: Iterable[str]) -> list[str]:
        """Which of ``paths`` hold uncommitted edits (staged or in the work tree)."""
        if self.path is None:
            return []
        head = self.head()
        tree = self._commit(head).tree if head else None
        index = self._open_index()
        return [p for p in paths if self._path_state(index, p, self._blob_at(tree, p)) != "clean"]


# --------------------------------------------------------------------------- helpers


def _dedupe(changes: Iterable[Change]) -> list[Change]:
    """Later changes to the same path win; order otherwise kept."""
    merged: dict[str, Change] = {}
    for change in changes:
        merged.pop(change.path, None)
        merged[change.path] = change
    return list(merged.values())


def _split_ancestry(rev: str) -> tuple[str, int]:
    steps = 0
    base = rev
    while True:
        if base.endswith("^"):
            base, steps = base[:-1], steps + 1
            continue
        head, sep, count = base.rpartition("~")
        if sep and head and (count.isdigit() or count == ""):
            base, steps = head, steps + (int(count) if count else 1)
            continue
        return base, steps


def _stat_matches(entry: Entry, st: os.stat_result, index_mtime_ns: int) -> bool:
    """git's stat shortcut, minus racily clean entries (written in the index's own instant)."""
    if entry.size != (st.st_size & 0xFFFFFFFF):
        return False
    if entry.mtime_s != (int(st.st_mtime) & 0xFFFFFFFF):
        return False
    if entry.mtime_ns != st.st_mtime_ns % 1_000_000_000:
        return False
    return st.st_mtime_ns < index_mtime_ns


class _Index(Protocol):
    mtime_ns: int

    def get(self, path: str) -> Entry | None: ...
    def set(self, path: str, st: os.stat_result, sha_hex: str) -> None: ...
    def remove(self, path: str) -> None: ...
    def write(self) -> None: ...


class _FastIndex:
    """The in-place index patcher (see gitindex.py)."""

    def __init__(self, index: IndexFile) -> None:
        self.index = index
        self.mtime_ns = index.mtime_ns

    def get(self, path: str) -> Entry | None:
        return self.index.get(path)

    def set(self, path: str, st: os.stat_result, sha_hex: str) -> None:
        self.index.set(path, st, sha_hex, FILE_MODE)

    def remove(self, path: str) -> None:
        self.index.remove(path)

    def write(self) -> None:
        self.index.write(reparse=False)


class _DulwichIndex:
    """Fallback for index formats the patcher does not rewrite (v4, split, sparse)."""

    def __init__(self, repo: Repo) -> None:
        self.index = repo.open_index()
        try:
            self.mtime_ns = os.stat(self.index.path).st_mtime_ns
        except (FileNotFoundError, TypeError):
            self.mtime_ns = 0

    def get(self, path: str) -> Entry | None:
        raw = path.encode("utf-8")
        if raw not in self.index:
            return None
        e = self.index[raw]
        sha = getattr(e, "sha", None)
        if sha is None:  # a conflicted entry
            return Entry(sha="", mode=0, size=0, mtime_s=0, mtime_ns=0, stage=1)
        mtime = e.mtime if isinstance(e.mtime, tuple) else (int(e.mtime), 0)
        return Entry(
            sha=sha.decode("ascii"),
            mode=e.mode,
            size=e.size,
            mtime_s=mtime[0],
            mtime_ns=mtime[1],
            stage=0,
        )

    def set(self, path: str, st: os.stat_result, sha_hex: str) -> None:
        from dulwich.index import index_entry_from_stat

        self.index[path.encode("utf-8")] = index_entry_from_stat(st, sha_hex.encode(), FILE_MODE)

    def remove(self, path: str) -> None:
        raw = path.encode("utf-8")
        if raw in self.index:
            del self.index[raw]

    def write(self) -> None:
        self.index.write()


def _prune_empty_dirs(folder: Path, root: Path) -> None:
    while folder != root and root in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _local_offset(now: int) -> int:
    return time.localtime(now).tm_gmtoff


def _env_date(value: str | None) -> tuple[int, int] | None:
    """``GIT_*_DATE`` in git's internal form (``<epoch> <+hhmm>``) or ISO 8601."""
    if not value:
        return None
    value = value.strip().lstrip("@")
    parts = value.split()
    if parts and parts[0].isdigit():
        offset = 0
        if len(parts) > 1 and len(parts[1]) == 5 and parts[1][0] in "+-":
            sign = -1 if parts[1][0] == "-" else 1
            offset = sign * (int(parts[1][1:3]) * 3600 + int(parts[1][3:5]) * 60)
        return int(parts[0]), offset
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    delta = parsed.utcoffset() or timedelta(0)
    return int(parsed.timestamp()), int(delta.total_seconds())


def _info(commit: Commit) -> CommitInfo:
    def when(ts: int, offset: int) -> datetime:
        return datetime.fromtimestamp(ts, timezone(timedelta(seconds=offset)))

    return CommitInfo(
        sha=commit.id.decode("ascii"),
        parents=tuple(p.decode("ascii") for p in commit.parents),
        message=commit.message.decode("utf-8", "replace"),
        author=commit.author.decode("utf-8", "replace"),
        committer=commit.committer.decode("utf-8", "replace"),
        author_time=when(commit.author_time, commit.author_timezone),
        commit_time=when(commit.commit_time, commit.commit_timezone),
        tree=commit.tree.decode("ascii"),
    )
