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

This module holds ``Store`` itself: opening, the reads and ``commit``. Its other parts each
have a module of their own: what a commit changes (``change.py``), the objects it writes
(``object_writer.py``, with the git config a writer reads in ``repo_config.py``), the
compare-and-swap ref move (``refs.py``), the write lock and recovery (``writelock.py``), a
commit object's bytes and ``CommitInfo`` (``commit_object.py``), and where a repository's
parts are (``place.py``).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from reflectgit.errors import (
    BranchMovedError,
    ConflictError,
    NotFoundError,
    ReflectGitError,
    storage_error,
)
from reflectgit.git import fsync, safety
from reflectgit.git.change import Change, clean_path, dedupe
from reflectgit.git.commit_object import CommitInfo, commit_info
from reflectgit.git.object_writer import ObjectWriter
from reflectgit.git.objects import blob_id, read_object, read_ref
from reflectgit.git.place import Place, locate
from reflectgit.git.refs import held_ref_lock, ref_lock_held, set_ref
from reflectgit.git.tree import DIR_MODE, FILE_MODE, GITLINK_MODE, SYMLINK_MODE, RawTree
from reflectgit.git.worktree import EMPTY_TREE, Journal, Recovery, WorkTree, refuse_dirty
from reflectgit.git.writelock import WriteLock

if TYPE_CHECKING:
    from typing import Any

    from dulwich.objects import Commit
    from dulwich.repo import Repo

    from reflectgit.notes.messages import CommitMessage

_TIP = object()  # sentinel: "the branch tip"
_HEX = frozenset(b"0123456789abcdef")
_NOT_A_REPO = (FileNotFoundError, NotADirectoryError)


class PathChanged(ConflictError):
    """A path the caller read changed before its commit: re-read and try again."""


class Store(ObjectWriter, WriteLock):
    """A git repository holding a KB (or a team clone of one).

    The paths every command takes (its branch, tip, trees and blobs; the commit of an add) read
    and write the repository's files directly (``git/objects.py``, ``git/refs.py``); dulwich's
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

    def is_link(self, tree: str | None, path: str) -> bool:
        """Is ``path`` a symbolic link (mode 120000) in a root tree?"""
        found = self._entry_at(tree.encode("ascii") if tree else None, path)
        return found is not None and found[0] == SYMLINK_MODE

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
        mode, sha = DIR_MODE, tree_sha
        for part in path.encode("utf-8").split(b"/"):
            if mode != DIR_MODE:
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
        return self._raw_tree(sha).raw if mode == DIR_MODE else b""

    def list_tree(self, tree: str, prefix: str = "") -> dict[str, str]:
        """Every file under ``prefix`` of a root tree: path -> blob sha. Symbolic links and
        submodules are not files: a link "note" is never read, listed or moved as one."""
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
                elif entry.mode not in (GITLINK_MODE, SYMLINK_MODE):
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
            yield commit_info(entry.commit)

    def commit_info(self, sha: str) -> CommitInfo:
        return commit_info(self._commit(sha))

    def refs(self, prefix: str) -> dict[str, str]:
        """Any refs under a prefix such as ``refs/remotes/origin/``: short name -> sha."""
        raw = prefix.encode("utf-8")
        return {
            k.decode("utf-8"): v.decode("ascii") for k, v in self.repo.refs.as_dict(raw).items()
        }

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
        change_list = dedupe(changes)
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
        ref_locked = held_ref_lock(self.common_dir, ref)
        if ref_locked is not None:  # git is moving the branch: refuse before writing anything
            raise ref_locked
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
            found = self._blob_at(base_tree, clean_path(path))
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
        ok = set_ref(self.common_dir, ref, old, new, message, committer)
        if ok is None:  # a ref this writer leaves to dulwich (symbolic, under a packed name)
            from dulwich.file import FileLocked

            try:
                ok = self.repo.refs.set_if_equals(
                    ref, old, new, message=message, committer=committer
                )
            except FileLocked as exc:
                raise ref_lock_held(Path(os.fsdecode(exc.lockfilename))) from None
        if not ok:
            raise ConflictError(
                f"branch {target} moved while reflect-git was writing",
                hint="run the command again",
            )
        self._created = []  # the branch names them now

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


# --------------------------------------------------------------------------- helpers


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
