"""The local repository: the only module that reads or writes it (through dulwich and git).

One write path serves every writer. ``Store.commit`` takes a branch and a set of path changes,
builds the new tree from the branch tip touching only the changed subtrees, writes the objects
and moves the ref with compare-and-swap under the KB-wide write lock. When the branch is
checked out here, git's ``index.lock`` is taken first and the index and work tree are brought
in line by git's own plumbing before the ref moves (``reflectgit.git.worktree``: the order,
the journal and the recovery). It never runs repository hooks (we write objects and refs
ourselves, we never call ``porcelain.commit``), and it refuses, before the ref moves and
leaving nothing behind, to touch a path that holds the user's uncommitted edits.

Crash safety: objects are written before the ref moves, and the ref moves atomically, so the
branch always names a complete commit; ``Store.open`` (every command) finishes or rolls back
whatever a killed writer left, so no commit survives that the index does not hold.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
import time
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from reflectgit.errors import (
    BranchMovedError,
    ConflictError,
    LockError,
    NotFoundError,
    ReflectGitError,
    storage_error,
)
from reflectgit.git import fsync, lockwait, safety
from reflectgit.git.objects import (
    blob_id,
    has_packed,
    object_id,
    packed_refs,
    read_object,
    read_ref,
)
from reflectgit.git.pack import write_pack
from reflectgit.git.repo_info import config_may_set, config_user
from reflectgit.git.tree import RawTree
from reflectgit.git.treediff import remember_trees
from reflectgit.git.worktree import (
    EMPTY_TREE,
    WRITER_NAME,
    Journal,
    Recovery,
    WorkTree,
    refuse_dirty,
)

if TYPE_CHECKING:
    from typing import Any

    from dulwich.config import ConfigFile
    from dulwich.objects import Commit
    from dulwich.repo import Repo

    from reflectgit.notes.messages import CommitMessage

FILE_MODE = 0o100644
TREE_MODE = 0o040000
GITLINK_MODE = 0o160000
LOCK_NAME = "reflect-git.lock"
PACK_MIN_OBJECTS = 32  # a commit writing more objects than this writes them as one pack
FALLBACK_NAME = "reflect-git"
FALLBACK_EMAIL = "reflect-git@localhost"
_TIP = object()  # sentinel: "the branch tip"
_HEX = frozenset(b"0123456789abcdef")
_NOT_A_REPO = (FileNotFoundError, NotADirectoryError)


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


def _clean_path(path: str) -> str:
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts) or parts[0] == ".git":
        raise ReflectGitError(f"refusing an unsafe repository path: {path!r}")
    return "/".join(parts)


class PathChanged(ConflictError):
    """A path the caller read changed before its commit: re-read and try again."""


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


@dataclass(frozen=True)
class Place:
    """Where a repository's parts are, found as dulwich's ``Repo`` finds them (a ``.git``
    folder, a ``.git`` file naming one, or a bare repository; ``commondir`` followed)."""

    root: str
    git_dir: str
    common_dir: str
    bare: bool


def locate(path: str | os.PathLike[str]) -> Place | None:
    """The ``Place`` of the repository at ``path``; None when it is one this reader leaves
    to dulwich (a ``core.worktree``, an ``extensions`` section: its config says so).
    ``FileNotFoundError`` when there is no repository."""
    root = os.fspath(path)
    hidden = os.path.join(root, ".git")
    if os.path.isfile(hidden):
        with open(hidden, "rb") as fh:
            line = fh.read()
        if not line.startswith(b"gitdir: "):
            return None
        git_dir, bare = os.path.join(root, os.fsdecode(line[8:].rstrip(b"\r\n"))), False
    elif os.path.isdir(os.path.join(hidden, "objects")):
        git_dir, bare = hidden, False
    elif os.path.isdir(os.path.join(root, "objects")) and os.path.isdir(os.path.join(root, "refs")):
        git_dir, bare = root, True
    else:
        raise FileNotFoundError(root)
    try:
        with open(os.path.join(git_dir, "commondir"), "rb") as fh:
            common = os.path.join(git_dir, os.fsdecode(fh.read().rstrip(b"\r\n")))
    except FileNotFoundError:
        common = git_dir
    try:
        with open(os.path.join(common, "config"), "rb") as fh:
            config = fh.read().lower()
    except FileNotFoundError:
        config = b""
    if any(word in config for word in (b"worktree", b"extensions", b"sharedrepository")):
        return None
    return Place(root, git_dir, common, bare)


class Store:
    """A git repository holding a KB (or a team clone of one).

    The paths every command takes (its branch, tip, trees and blobs; the commit of an add) read
    and write the repository's files directly (``git/objects.py``, ``_set_ref``); dulwich's
    ``Repo`` is built on first use by whatever else needs it (history walks, diffs, odd refs),
    so ``reflect-git add`` imports none of it."""

    def __init__(self, repo: Repo | Place, env: Mapping[str, str] | None = None) -> None:
        self.env: Mapping[str, str] = dict(env or {})
        self._repo: Repo | None = None
        if isinstance(repo, Place):
            self._place = repo
        else:
            self._repo = repo
            path = os.fsdecode(repo.path)
            self._place = Place(
                path, os.fsdecode(repo.controldir()), os.fsdecode(repo.commondir()), repo.bare
            )
        self.git_dir = Path(self._place.git_dir)
        self.common_dir = Path(self._place.common_dir)
        self.path: Path | None = None if self._place.bare else Path(self._place.root)
        self._cached_identity: tuple[str | None, str | None] | None = None
        self._fsync: fsync.Policy | None = None
        self._trees: dict[bytes, RawTree] = {}
        self._objects_dir = self.common_dir / "objects"
        # Objects of the commit being built: written together (one pack when there are many)
        # and read back from memory by the work-tree sync.
        self._batch: dict[bytes, tuple[bytes, bytes]] | None = None
        self._recent: dict[bytes, tuple[bytes, bytes]] = {}
        self.worktree: WorkTree | None = (
            None if self.path is None else WorkTree(self.git_dir, self.path, self.env)
        )
        self.last_recovery: Recovery | None = None
        self._created: list[Path] = []  # object files the commit being built created
        self.recovery_error: ReflectGitError | None = None

    @property
    def repo(self) -> Repo:
        """dulwich's view of the repository, built on first use."""
        if self._repo is None:
            from dulwich.repo import Repo

            self._repo = Repo(self._place.root)
        return self._repo

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> Store:
        """Open an existing repository (work tree or bare)."""
        safety.check_location(path)  # sha256 or reftable: refused before anything is written
        try:
            place = locate(path)
            if place is None:
                from dulwich.errors import NotGitRepository  # only dulwich raises it
                from dulwich.repo import Repo

                try:
                    store = cls(Repo(os.fspath(path)), env)
                except NotGitRepository:
                    raise FileNotFoundError(path) from None
            else:
                store = cls(place, env)
        except _NOT_A_REPO:
            raise NotFoundError(
                f"{path} is not a git repository",
                hint=f"run `reflect-git init {path}` to create a knowledge base there",
            ) from None
        store._recover_on_open()
        return store

    def _recover_on_open(self) -> None:
        """Every command opens its KB here: finish or roll back what a killed writer left. A
        failure here (a read-only disk, say) is kept for ``status`` and met again, raised, by
        the next write."""
        try:
            self.recover()
        except OSError as exc:
            self.recovery_error = storage_error(exc, str(self.path or self.git_dir)) or (
                ReflectGitError(f"recovery failed: {exc}")
            )
        except ReflectGitError as exc:
            self.recovery_error = exc

    @classmethod
    def init(
        cls, path: str | os.PathLike[str], env: Mapping[str, str] | None = None, bare: bool = False
    ) -> Store:
        """Open the repository at ``path``, creating it (branch ``main``, no commit) if needed."""
        safety.check_location(path)  # sha256 or reftable: refused before anything is written
        from dulwich.errors import NotGitRepository
        from dulwich.repo import Repo

        target = Path(path)
        with contextlib.suppress(NotGitRepository, *_NOT_A_REPO):
            existing = cls(Repo(os.fspath(target)), env)
            existing._recover_on_open()
            return existing
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
        if self._repo is not None:
            self._repo.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ reading

    def current_branch(self) -> str | None:
        """The checked-out branch (``main``), or None when HEAD is detached."""
        head = self._head_file()
        if head.startswith(b"ref: refs/heads/"):
            return head[len(b"ref: refs/heads/") :].decode("utf-8")
        if len(head) == 40 and set(head) <= _HEX:
            return None  # detached
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
        raw = rev.encode("utf-8")
        if len(raw) == 40 and set(raw) <= _HEX:  # a full sha: its commit, read from the files
            names = (rev, "refs/heads/" + rev, "refs/tags/" + rev, "refs/remotes/" + rev)
            unnamed = all(read_ref(self.common_dir, name) is None for name in names)
            if unnamed and self._read_object(raw, b"commit") is not None:
                return rev
        refs = self.repo.refs
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
            commits = [m for m in matches if self.repo[m.encode()].type_name == b"commit"]
            return commits[0] if len(commits) == 1 else None
        return None

    def _peel(self, sha: bytes) -> str | None:
        obj = self.repo[sha]
        while obj.type_name == b"tag":
            obj = self.repo[obj.object[1]]
        return obj.id.decode("ascii") if obj.type_name == b"commit" else None

    def _head_file(self) -> bytes:
        """What ``HEAD`` holds (b"" when it cannot be read: dulwich then explains)."""
        try:
            return (self.git_dir / "HEAD").read_bytes().strip()
        except OSError:
            return b""

    def _ref_file(self, ref: str) -> str | None:
        """A ref read from its file or ``packed-refs`` when that is plainly a sha; None when
        dulwich must answer (absent, odd)."""
        try:
            sha = read_ref(self.common_dir, ref)
        except (OSError, UnicodeDecodeError):
            return None
        if sha is None or len(sha) != 40 or not set(sha.encode("ascii", "replace")) <= _HEX:
            return None
        return sha

    def tip(self, branch: str) -> str | None:
        """The commit a local branch points at, or None if it does not exist."""
        found = self._ref_file("refs/heads/" + branch)
        if found is not None:
            return found
        try:
            return self.repo.refs[b"refs/heads/" + branch.encode("utf-8")].decode("ascii")
        except KeyError:
            return None

    def head(self) -> str | None:
        """The commit HEAD points at, or None on an unborn branch."""
        head = self._head_file()
        if head.startswith(b"ref: refs/heads/"):
            found = self._ref_file(head[5:].decode("utf-8", "surrogateescape"))
            if found is not None:
                return found
        elif len(head) == 40 and set(head) <= _HEX:
            return head.decode("ascii")
        try:
            return self.repo.refs[b"HEAD"].decode("ascii")
        except KeyError:
            return None

    def _commit(self, sha: str | bytes) -> Commit:
        from dulwich.objects import Commit

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
        sha = self.head() if rev is None else self.resolve(rev)
        if sha is not None:
            return self._commit_tree(sha).decode("ascii")
        commit = self._rev_commit(rev)
        return commit.tree.decode("ascii") if commit else None

    def _commit_tree(self, sha: str) -> bytes:
        """The root tree (hex) of a commit, from its object's first line."""
        body = self._read_object(sha.encode("ascii"), b"commit")
        if body is not None and body.startswith(b"tree ") and set(body[5:45]) <= _HEX:
            return body[5:45]
        return self._commit(sha).tree

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

    def entry_id(self, tree: str, path: str) -> str | None:
        """The object id at ``path`` under a root tree (a blob or a folder), without reading it."""
        try:
            return self._lookup(tree.encode("ascii"), path)[1].decode("ascii")
        except KeyError:
            return None

    def folder_changes(
        self, old_tree: str | None, new_tree: str, folder: str
    ) -> dict[str, tuple[str | None, str | None]]:
        """Entries directly in ``folder`` that differ between two root trees: name -> (old id,
        new id). The two raw folder objects are compared with ``treediff.diff_raw`` (common
        prefix and suffix skipped), so one changed note in a 10,000-note folder costs a memcmp,
        not two parses."""
        from reflectgit.git.treediff import diff_raw

        def raw(tree: str | None) -> bytes:
            sha = self.entry_id(tree, folder) if tree else None
            if sha is None:
                return b""
            data = self._read_object(sha.encode("ascii"), b"tree")
            if data is None:
                type_num, data = self.repo.object_store.get_raw(sha.encode("ascii"))
                if type_num != 2:  # a tree
                    return b""
            return bytes(data)

        old, new = raw(old_tree), raw(new_tree)
        return {
            name.decode("utf-8", "surrogateescape"): (
                a.split(b" ", 1)[1].hex() if a else None,
                b.split(b" ", 1)[1].hex() if b else None,
            )
            for name, (a, b) in diff_raw(old, new).items()
        }

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
            raw = self._read_object(sha, b"tree")
            if raw is None:
                type_num, raw = self.repo.object_store.get_raw(sha)
                if type_num != 2:  # a tree
                    raise KeyError(sha)
            cached = RawTree(raw)
            if len(self._trees) > 256:
                self._trees.clear()
            self._trees[sha] = cached
        return cached

    def _read_object(self, sha: bytes, type_name: bytes) -> bytes | None:
        """An object's content read directly: one we just wrote, a loose or a packed one
        (dulwich would parse a whole tree into Python objects first, which dominates a commit
        in a 10,000-note folder). None sends the caller to dulwich."""
        recent = self._recent.get(sha)
        if recent is not None:
            return recent[1] if recent[0] == type_name else None
        return read_object(self._objects_dir, sha.decode("ascii"), type_name)

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
        body = self._read_object(raw, b"blob")
        if body is not None:
            return body
        return self.repo.object_store[raw].as_raw_string()

    def list_files(self, prefix: str = "", rev: str | None = None) -> dict[str, str]:
        """Every file under ``prefix`` at a revision: path -> blob sha."""
        tree = self.tree_id(rev)
        return self.list_tree(tree, prefix) if tree else {}

    def folder_object(self, tree: str | None, folder: str) -> bytes:
        """The raw tree object of ``folder`` under a root tree (``b""`` when there is no such
        folder): for callers that scan a large folder's names without parsing every entry."""
        if not tree:
            return b""
        try:
            mode, sha = self._lookup(tree.encode("ascii"), folder)
        except KeyError:
            return b""
        return self._raw_tree(sha).raw if mode == TREE_MODE else b""

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
            tree_obj: Any = store[sha]
            assert tree_obj.type_name == b"tree"
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
        timeout = lockwait.limit(timeout) or 0.0  # a hook bounds every wait (git/lockwait.py)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            lockwait.acquire(
                fd, timeout, "the KB write lock", hint=f"wait for it to finish; the lock is {path}"
            )
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

        When the branch is checked out here, the index and work tree follow through git's
        own plumbing under git's ``index.lock`` (see ``reflectgit.git.worktree``).
        """
        changes = safety.checked_changes(self, changes, message, branch, parent)  # refusals
        change_list = _dedupe(changes)
        text = message if isinstance(message, str) else message.render()
        self._created = []
        try:
            with self._writer():
                try:
                    return self._commit_locked(
                        change_list, text, branch, parent, extra_parents, sync_worktree,
                        allow_empty, expect,
                    )  # fmt: skip
                except BaseException:
                    self._forget_created()  # the ref did not move: nobody names them
                    raise
        except OSError as exc:
            raise storage_error(exc, str(self.path or self.git_dir)) or exc from None
        finally:
            self._recent = {}
            self._batch = None
            self._created = []

    def _commit_locked(
        self,
        change_list: list[Change],
        text: str,
        branch: str | None,
        parent: object,
        extra_parents: Sequence[str],
        sync_worktree: bool | None,
        allow_empty: bool,
        expect: Mapping[str, str | None] | None,
    ) -> str | None:
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
        checked_out = target == self.current_branch() and self.worktree is not None
        sync = checked_out if sync_worktree is None else (sync_worktree and checked_out)
        if sync and base != old_tip:
            raise BranchMovedError(
                f"cannot commit on top of another commit while {target} is checked out"
            )
        base_tree = self._commit_tree(base) if base else None
        for path, blob in (expect or {}).items():
            found = self._blob_at(base_tree, _clean_path(path))
            if (found.decode("ascii") if found else None) != blob:
                raise PathChanged(
                    f"{path} changed while reflect-git was working on it",
                    hint="run the command again",
                )
        if not sync or self.worktree is None:
            new_tree = self._write_tree(base_tree, change_list)
            if new_tree == base_tree and not allow_empty and not extra_parents:
                return None
            commit = self._make_commit(new_tree, self._parents(base, extra_parents), text)
            self._move_ref(ref, target, old_tip, commit, text)
            return commit.decode("ascii")
        paths = [c.path for c in change_list]
        journal = Journal(
            pid=os.getpid(),
            branch=target,
            old=old_tip,
            old_tree=base_tree.decode("ascii") if base_tree else EMPTY_TREE,
            paths=paths,
        )
        with self.worktree.take(journal) as held:
            # git's two-tree checkout below refuses, as `git checkout` does, to overwrite a
            # modified, staged or untracked file. A tracked file the user deleted it would
            # quietly recreate, and an ignored file where we create one it would overwrite
            # (git counts those as expendable; we do not): either sends us to `git status`.
            tracked = {p for p in paths if self._blob_at(base_tree, p) is not None}
            fresh = [p for p in paths if p not in tracked]
            if not held.all_present(tracked) or held.any_present(fresh):
                refuse_dirty(held.dirty(paths))
            new_tree = self._write_tree(base_tree, change_list)
            if new_tree == base_tree and not allow_empty and not extra_parents:
                return None
            commit = self._make_commit(new_tree, self._parents(base, extra_parents), text)
            held.record(commit.decode("ascii"), new_tree.decode("ascii"))
            if new_tree != base_tree:
                held.checkout(new_tree.decode("ascii"), self._entries(base_tree, change_list))
            self._move_ref(ref, target, old_tip, commit, text)
            held.publish()
        return commit.decode("ascii")

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

    def _entries(
        self, base_tree: bytes | None, changes: Sequence[Change]
    ) -> tuple[dict[str, tuple[int, str] | None], dict[str, tuple[int, str] | None]] | None:
        """What the old and the new commit hold at the changed paths: (mode, blob) or None.
        None when a change turns a file into a folder or back (git then needs the whole
        trees to drop what the old one held there)."""
        old: dict[str, tuple[int, str] | None] = {}
        new: dict[str, tuple[int, str] | None] = {}
        for change in changes:
            parts = change.path.split("/")
            for n in range(1, len(parts)):
                above = self._entry_at(base_tree, "/".join(parts[:n]))
                if above is not None and not stat.S_ISDIR(above[0]):
                    return None
            found = self._entry_at(base_tree, change.path)
            if found is not None and stat.S_ISDIR(found[0]):
                return None
            old[change.path] = (found[0], found[1].decode("ascii")) if found else None
            new[change.path] = None if change.data is None else (FILE_MODE, blob_id(change.data))
        return old, new

    @staticmethod
    def _parents(base: object, extra_parents: Sequence[str]) -> list[bytes]:
        first = [base.encode("ascii")] if isinstance(base, str) else []
        return first + [p.encode("ascii") for p in extra_parents]

    def _move_ref(
        self, ref: bytes, target: str, old_tip: str | None, new: bytes, text: str
    ) -> None:
        old = old_tip.encode("ascii") if old_tip else None
        message = b"reflect-git: " + text.split("\n", 1)[0].encode("utf-8")
        # the reflog names the commit's committer, as git's does; dulwich would read every
        # config file again and import socket for a fallback host name (8 ms of an add)
        committer = self._identity("COMMITTER")
        ok = self._set_ref(ref, old, new, message, committer)
        if ok is None:  # a ref this writer leaves to dulwich (symbolic, under a packed name)
            ok = self.repo.refs.set_if_equals(ref, old, new, message=message, committer=committer)
        if not ok:
            raise ConflictError(
                f"branch {target} moved while reflect-git was writing",
                hint="run the command again",
            )
        self._created = []  # the branch names them now

    def _set_ref(
        self, ref: bytes, old: bytes | None, new: bytes, message: bytes, committer: bytes
    ) -> bool | None:
        """Compare-and-swap a branch ref as dulwich's ``set_if_equals`` does (git's lock file
        protocol: ``<ref>.lock`` created exclusively, the value checked under it, written,
        flushed and renamed over the ref; the reflog line appended before the rename). None
        when the ref is one this writer leaves to dulwich."""
        name = os.fsdecode(ref)
        if not _plain_branch_ref(name):
            return None  # dulwich checks (and refuses) any other name
        filename = self.common_dir / name
        packed = packed_refs(self.common_dir)
        parent = os.path.dirname(name)
        while parent:  # a packed ref where a folder of this one must be: dulwich refuses it
            if parent in packed:
                return None
            parent = os.path.dirname(parent)
        current = self._loose_ref(filename)
        if current is not None and current.startswith(b"ref:"):
            return None
        filename.parent.mkdir(parents=True, exist_ok=True)
        lock = filename.with_name(filename.name + ".lock")
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError as exc:
            from dulwich.file import FileLocked

            raise FileLocked(os.fspath(filename), os.fspath(lock)) from exc
        written = False
        try:
            current = self._loose_ref(filename)
            if current is None:
                found = packed_refs(self.common_dir).get(name)
                current = found.encode("ascii") if found is not None else None
            if old is not None and (current or b"0" * 40) != old:
                return False
            if current == new:
                return True
            os.write(fd, new + b"\n")
            self._append_reflog(name, old, new, message, committer)
            os.fsync(fd)
            written = True
        finally:
            os.close(fd)
            if not written:  # refused, unchanged or failed: the lock goes, the ref stays
                with contextlib.suppress(OSError):
                    lock.unlink()
        try:
            os.replace(lock, filename)
        except BaseException:
            with contextlib.suppress(OSError):
                lock.unlink()
            raise
        return True

    @staticmethod
    def _loose_ref(filename: Path) -> bytes | None:
        try:
            data = filename.read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None
        return data.rstrip(b"\r\n") if data.startswith(b"ref:") else data[:40]

    def _append_reflog(
        self, name: str, old: bytes | None, new: bytes, message: bytes, committer: bytes
    ) -> None:
        """One reflog line, as dulwich writes it (its timestamp now, its zone +0000)."""
        path = self.common_dir / "logs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        line = b"%s %s %s %d +0000\t%s\n" % (
            old or b"0" * 40,
            new,
            committer,
            int(time.time()),
            b" ".join(message.split()),
        )
        with open(path, "ab") as fh:
            fh.write(line)

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
        if self._repo is None:  # git's files read directly, without dulwich.config (~8 ms)
            quick = config_user(self._config_paths())
            if quick is not None:
                self._cached_identity = quick
                return quick
        for cfg in self._configs():
            with contextlib.suppress(KeyError):
                name = name or cfg.get((b"user",), b"name").decode("utf-8")
            with contextlib.suppress(KeyError):
                email = email or cfg.get((b"user",), b"email").decode("utf-8")
        self._cached_identity = (name, email)
        return name, email

    def _configs(self) -> list[ConfigFile]:
        """The repository's config, then the user's global ones (most specific first)."""
        from dulwich.config import ConfigFile

        configs = []
        with contextlib.suppress(Exception):
            if self._repo is not None:
                configs.append(self._repo.get_config())
            elif (self.common_dir / "config").is_file():  # as dulwich's get_config reads it
                configs.append(ConfigFile.from_path(os.fspath(self.common_dir / "config")))
        for candidate in self._global_configs():
            with contextlib.suppress(Exception):
                configs.append(ConfigFile.from_path(candidate))
        return configs

    def _global_configs(self) -> list[str]:
        """The user's global config files that exist, as ``_configs`` reads them."""
        global_path = self.env.get("GIT_CONFIG_GLOBAL")
        home = self.env.get("HOME")
        candidates = [global_path] if global_path else []
        if home and not global_path:
            candidates.append(os.path.join(home, ".gitconfig"))
        xdg = self.env.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else None)
        if xdg and not global_path:
            candidates.append(os.path.join(xdg, "git", "config"))
        return [c for c in candidates if c and os.path.isfile(c)]

    def _config_paths(self) -> list[str]:
        """The files ``_configs`` parses when no dulwich repository is open, most specific
        first (the quick readers ``config_may_set`` and ``config_user`` read these)."""
        return [os.fspath(self.common_dir / "config"), *self._global_configs()]

    def _configs_may_set(self, *words: bytes) -> bool:
        """Could the config files ``_configs`` reads set a key named with one of ``words``?
        False only when no file so much as mentions one (nor an include), so the common
        commit reads a few small files instead of importing ``dulwich.config`` (with
        ``logging``, about 8 ms); anything else parses them as before."""
        if self._repo is not None:
            return True
        return config_may_set(self._config_paths(), *words)

    @property
    def fsync_policy(self) -> fsync.Policy:
        """What git's ``core.fsync`` / ``core.fsyncMethod`` say to flush (git's default unset)."""
        if self._fsync is None:
            values: dict[bytes, str | None] = {}
            keys = (b"fsync", b"fsyncmethod", b"fsyncobjectfiles")
            for key in keys if self._configs_may_set(b"fsync") else ():
                for cfg in self._configs():
                    with contextlib.suppress(KeyError, UnicodeDecodeError):
                        values[key] = cfg.get((b"core",), key).decode("utf-8")
                        break
            self._fsync = fsync.policy(
                values.get(b"fsync"), values.get(b"fsyncmethod"), values.get(b"fsyncobjectfiles")
            )
        return self._fsync

    def _make_commit(self, tree: bytes, parents: list[bytes], text: str) -> bytes:
        """Write the commit object; return its hex sha."""
        now = int(time.time())
        offset = _local_offset(now)
        author_date = _env_date(self.env.get("GIT_AUTHOR_DATE")) or (now, offset)
        committer_date = _env_date(self.env.get("GIT_COMMITTER_DATE")) or (now, offset)
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
                if current is not None and current.mode == TREE_MODE
                else None
            )
            new_sub = self._apply(existing, sub)
            if new_sub is None:
                tree.remove(name)
            else:
                tree.set(name, TREE_MODE, bytes.fromhex(new_sub.decode("ascii")))
        for name, data in direct.items():
            if data is not None:
                sha = self._write_object(b"blob", data)
                tree.set(name, FILE_MODE, bytes.fromhex(sha.decode("ascii")))
            elif name not in by_child:
                tree.remove(name)
            else:
                current = tree.get(name)
                if current is not None and current.mode != TREE_MODE:
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
        target.parent.mkdir(exist_ok=True)
        tmp = target.parent / f"tmp_obj_{os.getpid()}_{sha[2:12]}"
        try:
            with open(tmp, "wb") as fh:
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

    # ------------------------------------------------------------------ work tree

    def blob_at(self, tree: str | None, path: str) -> str | None:
        """The blob sha of ``path`` under a root tree (None if absent or a folder)."""
        found = self._blob_at(tree.encode("ascii") if tree else None, path)
        return found.decode("ascii") if found else None

    def _blob_at(self, tree: bytes | None, path: str) -> bytes | None:
        found = self._entry_at(tree, path)
        return found[1] if found and not stat.S_ISDIR(found[0]) else None

    def dirty_paths(self, paths: Iterable[str]) -> list[str]:
        """Which of ``paths`` hold uncommitted edits, as ``git status`` sees them (the index is
        read, never written)."""
        if self.worktree is None:
            return []
        return self.worktree.dirty(paths)

    # ------------------------------------------------------------------ recovery

    def pending(self) -> str | None:
        """A sentence about an interrupted write not yet finished or rolled back, else None."""
        if self.worktree is None:
            return None
        journal = self.worktree.pending()
        if journal is None:
            return None
        what = f"{len(journal.paths)} path" + ("" if len(journal.paths) == 1 else "s")
        why = f": {self.recovery_error}" if self.recovery_error is not None else ""
        return (
            f"an interrupted reflect-git write (process {journal.pid}, {what} on "
            f"{journal.branch or 'a branch'}) is not finished yet{why}; the next write "
            "finishes or rolls it back"
        )

    def recover(self) -> Recovery | None:
        """Finish or roll back a write a killed or failed process left (the one recovery entry
        point; ``Store.open`` runs it). Skipped when a live writer holds the KB lock: that
        writer is not dead, and finishes its own work."""
        marker = self.git_dir / WRITER_NAME
        if self.worktree is not None:
            if not self.worktree.journal_file.exists() and not marker.exists():
                return None
        elif not marker.exists():
            return None
        try:
            with self.lock(timeout=0):
                return self._recover_locked()
        except LockError:
            return None

    def _recover_locked(self) -> Recovery | None:
        """Recovery under the KB lock: anything a writer left here, its writer is dead."""
        marker = self.git_dir / WRITER_NAME
        if marker.exists():
            self._clear_crash_debris(marker)
        found = None
        if self.worktree is not None:
            journal = self.worktree.read_journal()
            if journal is not None:
                tip = self.tip(journal.branch) if journal.branch else None
                found = self.worktree.recover(tip, self._take_back)
                self.last_recovery = found
        return found

    @contextlib.contextmanager
    def _writer(self) -> Iterator[None]:
        """The KB lock, recovery of what a dead writer left, and a marker naming this process
        for as long as it writes (a marker left behind means its writer died)."""
        with self.lock():
            self._recover_locked()
            marker = self.git_dir / WRITER_NAME
            marker.write_text(str(os.getpid()), encoding="ascii")
            try:
                yield
            finally:
                with contextlib.suppress(FileNotFoundError):
                    marker.unlink()

    def _take_back(self, branch: str, expected: str | None, new: str | None) -> bool:
        ref = b"refs/heads/" + branch.encode("utf-8")
        old = expected.encode("ascii") if expected else None
        if new is None:
            return bool(self.repo.refs.remove_if_equals(ref, old))
        return bool(self.repo.refs.set_if_equals(ref, old, new.encode("ascii")))

    def temporaries(self) -> list[Path]:
        """Every temporary file under the objects folder: git's own (``tmp_obj_XXXXXX``,
        ``tmp_pack_XXXXXX``) and ours (``tmp_obj_<pid>_*``, ``tmp_pack_<pid>_*``,
        ``tmp_idx_<pid>_*``); which of them are stale is ``state/leftovers.py``'s call."""
        # Listed by name (``os.listdir``), not ``Path.glob``: the 256 loose-object folders are
        # read on every write, and glob's matching and a Path per entry cost 1.5 ms more.
        objects = self._objects_dir
        found = [objects / n for n in _names(objects) if n.startswith("tmp_")]
        for folder in _names(objects):
            if len(folder) == 2:  # ``??``: a file of that name lists as nothing
                found += [
                    objects / folder / n
                    for n in _names(objects / folder)
                    if n.startswith("tmp_obj_")
                ]
        found += [objects / "pack" / n for n in _names(objects / "pack") if n.startswith("tmp_")]
        return found

    def _clear_crash_debris(self, marker: Path) -> None:
        """Remove what a writer killed inside the KB lock left: the ref locks it was taking
        (only those younger than its marker) and its temporary object files. ``index.lock`` is
        not among them: the journal proves whether that one is ours."""
        try:
            pid = marker.read_text(encoding="ascii").strip()
            since = marker.stat().st_mtime_ns
        except OSError:
            pid, since = "", 0
        stale = [self.common_dir / "packed-refs.lock"]
        stale += list((self.common_dir / "refs").rglob("*.lock"))
        stale += [self.git_dir / "HEAD.lock"]
        for path in stale:
            with contextlib.suppress(OSError):
                if path.stat().st_mtime_ns >= since:
                    path.unlink()
        if pid.isdigit():
            debris = list(self._objects_dir.glob(f"??/tmp_obj_{pid}_*"))
            debris += list(self._objects_dir.glob(f"pack/tmp_pack_{pid}_*"))
            debris += list(self._objects_dir.glob(f"pack/tmp_idx_{pid}_*"))
            for path in debris:
                with contextlib.suppress(OSError):
                    path.unlink()
        with contextlib.suppress(FileNotFoundError):
            marker.unlink()


# --------------------------------------------------------------------------- helpers


def _names(folder: Path) -> list[str]:
    """The names in ``folder``; none when it is not a folder or cannot be read."""
    try:
        return os.listdir(folder)
    except OSError:
        return []


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


_REF_PART = re.compile(r"[^\x00-\x20\x7f ~^:?*\[\\]+")


def _plain_branch_ref(name: str) -> bool:
    """``refs/heads/...`` with every part a name git's ``check-ref-format`` accepts (no
    ``..``, no leading dot, no ``.lock`` end, none of its special characters)."""
    parts = name.split("/")
    return (
        len(parts) > 2
        and parts[:2] == ["refs", "heads"]
        and ".." not in name
        and "@{" not in name
        and all(
            _REF_PART.fullmatch(p) and not p.startswith(".") and not p.endswith((".", ".lock"))
            for p in parts[2:]
        )
    )


def _zone(offset: int) -> bytes:
    """``+hhmm`` / ``-hhmm``, as git (and dulwich) write a commit's time zone."""
    if offset % 60:
        raise ValueError("Unable to handle non-minute offset.")
    sign = b"-" if offset < 0 else b"+"
    offset = abs(offset)
    return b"%s%02d%02d" % (sign, offset // 3600, (offset // 60) % 60)


def commit_bytes(
    tree: bytes,
    parents: Sequence[bytes],
    author: tuple[bytes, int, int],
    committer: tuple[bytes, int, int],
    message: bytes,
) -> bytes:
    """A commit object's content (hex ids; (identity, time, zone offset) for each person),
    byte for byte what dulwich's ``Commit`` serializes for the same fields."""
    lines = [b"tree " + tree]
    lines += [b"parent " + p for p in parents]
    for role, (who, when, offset) in ((b"author", author), (b"committer", committer)):
        lines.append(b"%s %s %d %s" % (role, who, when, _zone(offset)))
    lines.append(b"encoding UTF-8")
    return b"\n".join(lines) + b"\n\n" + message


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
