"""The index and the work tree, kept by git's own plumbing; the journal that makes a write
finishable; and the dirty check.

reflect-git writes only what git can verify (objects, a compare-and-swap ref move). git's
private caches (the index with its extensions: fsmonitor, split and sparse indexes, version 4,
the untracked cache; the work tree under ``core.autocrlf``, ``.gitattributes`` and filters;
skip-worktree bits) are brought in line by git itself, so they are right by construction.

One commit on the checked-out branch, in this order (git's lockfile protocol):

1. ``<gitdir>/reflect-git-index.<pid>`` is made a second name (a hard link) of the current
   index file, and the journal records that file's identity (device, inode, mtime). Then it
   is hard-linked to ``<gitdir>/index.lock``, which so holds the current index's bytes:
   ``link`` is atomic and exclusive, so if git (or anyone) holds the lock we refuse before
   writing anything. From here until step 5 git cannot touch the index,
   so the user's own ``git commit -a`` cannot commit from a stale index.
2. The dirty check runs ``git status`` against our copy (never against the real index, so
   git's opportunistic refresh writes only the copy).
3. The objects and the commit are written; the journal records the new commit.
4. ``git read-tree -m -u <old tree> <new tree>`` (the two-tree merge ``git checkout`` uses to
   move between commits) updates our copy of the index and the changed paths in the work
   tree, honouring sparse patterns, attributes and every index extension. Outside sparse
   checkouts it is given two small trees holding only the changed paths (see ``checkout``).
5. The ref moves by compare-and-swap; our copy is renamed over ``index``; ``index.lock`` is
   removed; the journal is cleared.

A failure before the ref moved restores the changed paths from the untouched ``index`` and
releases the lock: nothing changed. A process killed anywhere leaves the journal and (from
step 1 on) the lock; the next reflect-git command, whatever it is, proves the lock is ours
(same inode as the journal says) and finishes the commit when the ref moved, or rolls the
work tree back when it did not. Until then ``index.lock`` keeps git from writing a commit
the index does not hold.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from reflectgit import jsonio
from reflectgit.errors import (
    ConflictError,
    LockError,
    ReflectGitError,
    StorageError,
    disk_error,
    storage_error,
)
from reflectgit.git.objects import object_id
from reflectgit.git.pending import JOURNAL_NAME as JOURNAL_NAME  # the readers check these too
from reflectgit.git.pending import WRITER_NAME as WRITER_NAME
from reflectgit.git.pending import recover_if_pending as recover_if_pending

if TYPE_CHECKING:
    from typing import Any

    from reflectgit.git.run import Result


def run(args: Sequence[str], **kwargs: Any) -> Result:
    """``git.run.run``, imported when a git really runs (with ``subprocess``): a search that
    refreshes its index through the store starts none."""
    from reflectgit.git.run import run as run_git

    return run_git(args, **kwargs)


SCRATCH_OBJECTS = "reflect-git-objects."  # + pid: the small trees of a checkout, briefly
WORK_INDEX = "reflect-git-index."  # + pid: our copy of the index while we hold index.lock
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
ORPHAN_WAIT = 60.0  # seconds a dead writer's git child may take to finish
PATHSPEC_LIMIT = 64  # more paths than this: ask git about their folders, filter the answer
_NO_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV, errno.EMLINK, errno.ENOSYS}
_STORAGE_WORDS = {
    "No space left on device": errno.ENOSPC,
    "Disk quota exceeded": errno.EDQUOT,
    "Read-only file system": errno.EROFS,
    "Permission denied": errno.EACCES,
}


Entries = Mapping[str, "tuple[int, str] | None"]  # path -> (mode, blob hex), None: absent


class IndexLockHeld(LockError):
    """git (or a process that died) holds ``index.lock``."""


def _git_storage_error(result: Result, where: str) -> StorageError | None:
    for words, code in _STORAGE_WORDS.items():
        if words in result.err:
            return disk_error(code, where)
    if any(w in result.err for w in ("unable to write", "unable to create", "write error")):
        # git does not always say why ("error: unable to write file x"): ask the disk.
        probed = probe_disk(Path(where))
        if probed is not None:
            return disk_error(probed, where)
    return None


def probe_disk(where: Path) -> int | None:
    """ENOSPC when the file system holding ``where`` is (nearly) full, EROFS when it is
    mounted read-only, None otherwise."""
    try:
        vfs = os.statvfs(where)
    except OSError:
        return None
    if vfs.f_flag & os.ST_RDONLY:
        return errno.EROFS
    if vfs.f_bavail * vfs.f_frsize < 1 << 20 or (vfs.f_files and vfs.f_favail == 0):
        return errno.ENOSPC
    return None


@dataclass
class Journal:
    """What a writer is doing, so the next command can finish it or roll it back."""

    pid: int
    branch: str
    old: str | None  # the branch tip before
    old_tree: str  # the tree the index holds for ``paths`` (EMPTY_TREE on an unborn branch)
    paths: list[str]
    lock: list[int] = field(default_factory=list)  # dev, inode, mtime_ns of our index.lock
    new: str | None = None  # the commit, once written
    new_tree: str | None = None

    def to_json(self) -> dict[str, object]:
        """The fields, as the journal file holds them (``Journal(**doc)`` reads them back)."""
        return asdict(self)


@dataclass
class Recovery:
    """What the last recovery did (for ``status`` and logs)."""

    action: str  # "finished" | "rolled back" | "cleared"
    commit: str | None
    paths: list[str]
    left: list[str]  # paths holding content that is neither ours nor git's: left alone


class WorkTree:
    """A repository's index and work tree, touched only through git."""

    def __init__(self, git_dir: Path, root: Path, env: Mapping[str, str]) -> None:
        self.git_dir = git_dir
        self.root = root
        self.env = env
        self.index = git_dir / "index"
        self.lock_file = git_dir / "index.lock"
        self.journal_file = git_dir / JOURNAL_NAME

    # ------------------------------------------------------------------ git

    def git(
        self,
        args: Sequence[str],
        *,
        index: Path | None = None,
        input: bytes | None = None,
        extra: Mapping[str, str] | None = None,
    ) -> Result:
        variables = dict(extra or {})
        if index is not None:
            variables["GIT_INDEX_FILE"] = os.fspath(index)
        variables["GIT_LITERAL_PATHSPECS"] = "1"
        return run(
            args,
            cwd=self.root,
            env=self.env,
            git_dir=self.git_dir,
            work_tree=self.root,
            input=input,
            extra_env=variables,
            timeout=None,
        )

    def _check(self, result: Result, what: str) -> Result:
        if result.ok:
            return result
        err = _git_storage_error(result, str(self.root))
        if err is not None:
            raise err
        raise ReflectGitError(
            f"`git {what}` failed: {result.err or f'exit {result.code}'}",
            hint="run `git status` in the knowledge base to see what git says",
        )

    # ------------------------------------------------------------------ dirty check

    def dirty(self, paths: Iterable[str], index: Path | None = None) -> list[str]:
        """Which of ``paths`` hold the user's uncommitted edits, exactly as ``git status``
        sees them (staged, modified, deleted, untracked or ignored files in the way).

        With ``index`` (our locked copy) git may refresh stat data into it; without, the real
        index is read and never written (``--no-optional-locks``).
        """
        wanted = sorted(set(paths))
        if not wanted:
            return []
        if len(wanted) <= PATHSPEC_LIMIT:
            spec = wanted
        else:
            spec = sorted({p.rsplit("/", 1)[0] if "/" in p else "." for p in wanted})
            if "." in spec:
                spec = ["."]
        args = ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored=matching"]
        args += ["--no-renames", "--", *spec]
        if index is None:
            args = ["--no-optional-locks", *args]
        result = self._check(self.git(args, index=index), "status")
        hit: set[str] = set()  # what git lists, and every folder above it
        for record in result.stdout.split(b"\x00"):
            if len(record) > 3:
                name = record[3:].decode("utf-8", "surrogateescape").rstrip("/")
                while name and name not in hit:
                    hit.add(name)
                    name = name.rpartition("/")[0]
        seen: dict[str, bool] = {}
        return [p for p in wanted if p in hit or self._blocked(p, seen)]

    def _blocked(self, path: str, seen: dict[str, bool]) -> bool:
        """A file or symlink where a folder above ``path`` should be."""
        folder = path.rpartition("/")[0]
        if not folder:
            return False
        if folder not in seen:
            try:
                st = os.lstat(self.root / folder)
                seen[folder] = not stat.S_ISDIR(st.st_mode)
            except (FileNotFoundError, NotADirectoryError):
                seen[folder] = False
            if not seen[folder]:
                seen[folder] = self._blocked(folder, seen)
        return seen[folder]

    # ------------------------------------------------------------------ the journal

    def read_journal(self) -> Journal | None:
        try:
            record = jsonio.loads(self.journal_file.read_text(encoding="utf-8"))
            return Journal(**record)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError):
            return Journal(pid=0, branch="", old=None, old_tree=EMPTY_TREE, paths=[])

    def write_journal(self, journal: Journal) -> None:
        tmp = self.git_dir / (JOURNAL_NAME + ".tmp")
        try:
            # Always flushed, like a queue entry: recovery after a power loss reads it.
            with tmp.open("w", encoding="utf-8") as fh:
                fh.write(jsonio.dumps(journal.to_json()))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.journal_file)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise storage_error(exc, str(self.git_dir)) or exc from None

    def clear_journal(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.journal_file.unlink()

    # ------------------------------------------------------------------ holding the lock

    def work_index(self, pid: int | None = None) -> Path:
        return self.git_dir / f"{WORK_INDEX}{pid if pid is not None else os.getpid()}"

    def take(self, journal: Journal) -> Held:
        """Take ``index.lock`` for ``journal`` (see the module docstring, step 1)."""
        work = self.work_index()
        with contextlib.suppress(FileNotFoundError):
            work.unlink()
        # Our copy is a second name for the index file itself: git never writes an index in
        # place (it writes ``<name>.lock`` and renames), so the first write to our copy gives
        # it an inode of its own, and ``index`` keeps its bytes. No megabyte is copied.
        had_index = True
        try:
            try:
                os.link(self.index, work)
            except FileNotFoundError:
                had_index = False
                os.close(os.open(work, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            except OSError as exc:
                if exc.errno not in _NO_LINKS:
                    raise
                return self._take_by_copy(journal, work)
            st = os.lstat(work)
        except OSError as exc:
            with contextlib.suppress(OSError):
                work.unlink()
            raise storage_error(exc, str(self.git_dir)) or exc from None
        journal.lock = [st.st_dev, st.st_ino, st.st_mtime_ns]
        try:
            self.write_journal(journal)
        except BaseException:
            with contextlib.suppress(OSError):
                work.unlink()
            raise
        try:
            os.link(work, self.lock_file)
        except FileExistsError:
            self.clear_journal()
            with contextlib.suppress(OSError):
                work.unlink()
            raise self.lock_held() from None
        except OSError as exc:
            self.clear_journal()
            with contextlib.suppress(OSError):
                work.unlink()
            raise storage_error(exc, str(self.git_dir)) or exc from None
        if not had_index:
            work.unlink()  # git starts from no index, not from an empty file
        return Held(self, journal, work)

    def _take_by_copy(self, journal: Journal, work: Path) -> Held:
        """``take`` on a file system without hard links (FAT, some network shares): the lock
        is created exclusively and filled, then the journal names it. A kill in the instant
        between leaves a lock we cannot prove is ours: the next command refuses, with a hint."""
        try:
            data: bytes | None = self.index.read_bytes()
        except FileNotFoundError:
            data = None
        try:
            if data is not None:
                _write_new(work, data)
            try:
                st = _write_new(self.lock_file, data or b"")
            except FileExistsError:
                with contextlib.suppress(OSError):
                    work.unlink()
                raise self.lock_held() from None
        except OSError as exc:
            with contextlib.suppress(OSError):
                work.unlink()
            raise storage_error(exc, str(self.git_dir)) or exc from None
        journal.lock = [st.st_dev, st.st_ino, st.st_mtime_ns]
        try:
            self.write_journal(journal)
        except BaseException:
            for path in (work, self.lock_file):
                with contextlib.suppress(OSError):
                    path.unlink()
            raise
        return Held(self, journal, work)

    def lock_held(self) -> IndexLockHeld:
        return IndexLockHeld(
            f"{self.lock_file} exists: another git process is updating the index; "
            "reflect-git wrote nothing",
            hint=f"wait for that git command to finish; if no git process is running, the "
            f"lock is stale: remove it (`rm {self.lock_file}`) and run the command again",
        )

    def _lock_is_ours(self, journal: Journal) -> bool:
        if len(journal.lock) != 3:
            return False
        try:
            st = os.lstat(self.lock_file)
        except FileNotFoundError:
            return False
        return [st.st_dev, st.st_ino, st.st_mtime_ns] == journal.lock

    # ------------------------------------------------------------------ moving the work tree

    def checkout(
        self,
        index: Path,
        old_tree: str,
        new_tree: str,
        paths: Sequence[str],
        entries: tuple[Entries, Entries] | None = None,
    ) -> None:
        """Move ``index`` and the work tree from ``old_tree`` to ``new_tree`` (step 4).

        ``git read-tree -m -u`` trusts the index's stat data and refuses an entry whose file
        looks touched; then ``git status`` refreshes our copy (content compared, clean and
        eol filters applied) and either names the paths that really hold edits, or the
        checkout runs again.

        ``entries`` (what the old and the new commit hold at ``paths``) lets git merge two
        trees that hold only those paths: in a two-tree merge an index entry that neither
        tree names is kept as it is, so the result is the same as with the whole trees, and
        git does not walk the 10,000 entries of a ``documents`` folder twice. Not in a sparse
        checkout, where the index may hold a whole folder as one entry.
        """
        scratch = None
        simple = ":" not in os.fspath(self.git_dir)  # ':' separates alternates in the variable
        if (
            entries is not None
            and simple
            and not (self.git_dir / "info" / "sparse-checkout").exists()
        ):
            try:
                scratch, old_tree, new_tree = self._partial(entries)
            except ValueError:
                scratch = None  # a path clash: the whole trees it is
        try:
            self._checkout(index, old_tree, new_tree, paths, scratch)
        finally:
            if scratch is not None:
                _remove_tree(scratch)

    def _partial(self, entries: tuple[Entries, Entries]) -> tuple[Path, str, str]:
        """Write the two small trees into a scratch object folder git reads as an alternate."""
        scratch = self.git_dir / f"{SCRATCH_OBJECTS}{os.getpid()}"
        _remove_tree(scratch)
        old, old_objects = partial_tree(entries[0])
        new, new_objects = partial_tree(entries[1])
        try:
            for sha, raw in {**old_objects, **new_objects}.items():
                folder = scratch / sha[:2]
                folder.mkdir(parents=True, exist_ok=True)
                (folder / sha[2:]).write_bytes(zlib.compress(b"tree %d\x00" % len(raw) + raw, 1))
        except BaseException:
            _remove_tree(scratch)
            raise
        return scratch, old, new

    def _checkout(
        self, index: Path, old_tree: str, new_tree: str, paths: Sequence[str], scratch: Path | None
    ) -> None:
        first = self._read_tree(index, old_tree, new_tree, scratch)
        if first is None:
            return
        refuse_dirty(self.dirty(paths, index=index))
        again = self._read_tree(index, old_tree, new_tree, scratch)
        if again is not None:
            raise ConflictError(
                f"git cannot check out the new commit: {again}",
                hint="run `git status` in the knowledge base: resolve a merge in progress, "
                "or commit or stash your edits, then run the command again",
            )

    def _read_tree(
        self, index: Path, old_tree: str, new_tree: str, scratch: Path | None = None
    ) -> str | None:
        """None when done; git's refusal (a local change in the way) otherwise."""
        extra = {"GIT_ALTERNATE_OBJECT_DIRECTORIES": os.fspath(scratch)} if scratch else None
        result = self.git(["read-tree", "-m", "-u", old_tree, new_tree], index=index, extra=extra)
        if result.ok:
            return None
        err = _git_storage_error(result, str(self.root))
        if err is not None:
            raise err
        words = result.err
        refusals = ("would be overwritten", "not uptodate", "would lose", "resolve")
        if any(r in words for r in refusals):
            return words.splitlines()[0] if words else f"exit {result.code}"
        self._check(result, "read-tree")
        return None

    def restore(self, paths: Sequence[str], blobs: Mapping[str, Sequence[str | None]]) -> list[str]:
        """Put ``paths`` back as the real index holds them, sparing anything that is neither
        what the index holds nor one of ``blobs[path]`` (what we may have been writing), nor
        a prefix of one: that is the user's. Returns the paths left alone."""
        if not paths:
            return []
        staged, skipped = self._staged(paths)
        left: list[str] = []
        to_checkout: list[str] = []
        to_remove: list[str] = []
        present: list[str] = []
        for path in paths:
            if path in skipped:
                continue  # skip-worktree (outside a sparse checkout): git keeps it away
            try:
                st = os.lstat(self.root / path)
            except (FileNotFoundError, NotADirectoryError):
                if path in staged:
                    to_checkout.append(path)
                continue
            if not stat.S_ISREG(st.st_mode):
                left.append(path)
                continue
            present.append(path)
        hashes = self._hash(present)
        for path in present:
            want = staged.get(path)
            ours = {b for b in blobs.get(path, ()) if b} | ({want} if want else set())
            have = hashes.get(path)
            if want is not None and have == want:
                continue  # already as the index holds it
            if have in ours or self._is_prefix(path, ours):
                (to_checkout if want is not None else to_remove).append(path)
            else:
                left.append(path)
        for path in to_remove:
            full = self.root / path
            with contextlib.suppress(FileNotFoundError):
                full.unlink()
            _prune_empty_dirs(full.parent, self.root)
        if to_checkout:
            names = b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in to_checkout)
            self._check(
                self.git(["checkout-index", "-f", "-q", "-z", "--stdin"], input=names),
                "checkout-index",
            )
        return left

    def _staged(self, paths: Sequence[str]) -> tuple[dict[str, str], set[str]]:
        """path -> blob the real index holds at stage 0, and the skip-worktree paths apart."""
        result = self._check(
            self.git(["--no-optional-locks", "ls-files", "-s", "-t", "-z", *_spec(paths)]),
            "ls-files",
        )
        out: dict[str, str] = {}
        skipped: set[str] = set()
        for record in result.stdout.split(b"\x00"):
            if not record:
                continue
            meta, _, name = record.partition(b"\t")
            tag, _mode, sha, stage = meta.decode("ascii").split()
            path = name.decode("utf-8", "surrogateescape")
            if tag == "S":
                skipped.add(path)
            elif stage == "0":
                out[path] = sha
        return out, skipped

    def _hash(self, paths: Sequence[str]) -> dict[str, str]:
        """What git would store for each work-tree file (clean filters, eol conversion)."""
        if not paths:
            return {}
        payload = "".join(p + "\n" for p in paths).encode("utf-8", "surrogateescape")
        result = self._check(self.git(["hash-object", "--stdin-paths"], input=payload), "hash")
        return dict(zip(paths, result.out.split(), strict=True))

    def _is_prefix(self, path: str, blobs: Iterable[str]) -> bool:
        """Is the file a cut-short copy of one of ``blobs`` as git would check it out?"""
        try:
            data = (self.root / path).read_bytes()
        except OSError:
            return False
        for blob in blobs:
            smudged = self.git(["cat-file", "--filters", f"--path={path}", blob])
            if smudged.ok and smudged.stdout.startswith(data):
                return True
        return False

    # ------------------------------------------------------------------ recovery

    def pending(self) -> Journal | None:
        """The journal of a write that did not finish (None when there is none)."""
        return self.read_journal()

    def recover(
        self, tip: str | None, move_ref: Callable[[str, str | None, str | None], bool]
    ) -> Recovery | None:
        """Finish or roll back what a dead writer left. Call under the KB write lock (so the
        journal's writer is dead). ``tip`` is the journal branch's current tip."""
        journal = self.read_journal()
        if journal is not None:
            self._wait_for_orphans(self.work_index(journal.pid))
        for scratch in self.git_dir.glob(SCRATCH_OBJECTS + "*"):
            _remove_tree(scratch)
        for stray in self.git_dir.glob(WORK_INDEX + "*"):
            if journal is None or stray != self.work_index(journal.pid):
                with contextlib.suppress(OSError):
                    stray.unlink()
        if journal is None:
            return None
        with contextlib.suppress(FileNotFoundError):
            (self.git_dir / (JOURNAL_NAME + ".tmp")).unlink()
        if not self._lock_is_ours(journal):
            with contextlib.suppress(OSError):
                self.work_index(journal.pid).unlink()
            if journal.new is None or tip not in (journal.new, journal.old):
                # Our dead writer never touched the work tree (no commit yet), or the branch
                # has moved on since: nothing of ours to finish.
                self.clear_journal()
                return Recovery("cleared", None, [], [])
            if self.lock_file.exists():
                return None  # git holds index.lock now: the next command looks again
            # Our lock is gone but the work tree may hold part of our commit: we released it
            # just before dying, or someone removed it by hand. Take it again and settle.
            journal.pid = os.getpid()
            self.take(journal)
        work = self.work_index(journal.pid)
        with contextlib.suppress(OSError):
            work.unlink()
        blobs = self.blob_choices(journal)
        paths = journal.paths
        forward = journal.new is not None and tip == journal.new
        left = self.restore(paths, blobs)
        action = "rolled back"
        if forward:
            assert journal.new_tree is not None
            self._copy_index(work)
            # The files restore() rewrote have new stat data: refresh our copy first (HEAD
            # has moved, so `git status` would call every path staged).
            self.git(["update-index", "-q", "--refresh"], index=work)
            refused = self._read_tree(work, journal.old_tree, journal.new_tree)
            if refused is None:
                os.replace(work, self.index)
                action = "finished"
            else:
                # A path holds the user's edit: the commit cannot be checked out. Take the
                # branch back so no commit survives that the index does not hold.
                with contextlib.suppress(OSError):
                    work.unlink()
                move_ref(journal.branch, journal.new, journal.old)
        with contextlib.suppress(FileNotFoundError):
            self.lock_file.unlink()
        self.clear_journal()
        return Recovery(action, journal.new, list(paths), left)

    def _wait_for_orphans(self, work: Path) -> None:
        """A killed writer's git child (a checkout of thousands of files, say) lives on and
        holds ``<copy>.lock`` until it is done: let it finish before we look at the work
        tree. A lock older than ``ORPHAN_WAIT`` seconds belongs to a git that died too."""
        lock = work.with_name(work.name + ".lock")
        while True:
            try:
                age = time.time() - lock.stat().st_mtime
            except FileNotFoundError:
                return
            if age > ORPHAN_WAIT:
                return
            time.sleep(0.02)

    def blob_choices(self, journal: Journal) -> dict[str, list[str | None]]:
        """path -> the blobs the old and the new commit give it (what a writer may have left)."""
        out: dict[str, list[str | None]] = {p: [] for p in journal.paths}
        for tree in (journal.old_tree, journal.new_tree):
            if not tree or tree == EMPTY_TREE or not journal.paths:
                continue
            listed = self.git(["ls-tree", "-r", "-z", tree, *_spec(journal.paths)])
            for record in listed.stdout.split(b"\x00"):
                meta, _, name = record.partition(b"\t")
                if name:
                    path = name.decode("utf-8", "surrogateescape")
                    if path in out:
                        out[path].append(meta.split()[2].decode("ascii"))
        return out

    def _copy_index(self, target: Path) -> None:
        try:
            data = self.index.read_bytes()
        except FileNotFoundError:
            with contextlib.suppress(FileNotFoundError):
                target.unlink()
            return
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)


class Held:
    """``index.lock`` held by this process, with our copy of the index to work on."""

    def __init__(self, tree: WorkTree, journal: Journal, work: Path) -> None:
        self.tree = tree
        self.journal = journal
        self.work = work
        self.touched = False  # the work tree may hold part of the new commit
        self.done = False

    def dirty(self, paths: Iterable[str]) -> list[str]:
        """The dirty check against our copy of the index (after ``release``: the real one,
        read only)."""
        return self.tree.dirty(paths, index=None if self.done else self.work)

    def any_present(self, paths: Iterable[str]) -> bool:
        """Does anything (file, folder, link) stand at one of ``paths``?"""
        return any(os.path.lexists(self.tree.root / p) for p in paths)

    def all_present(self, paths: Iterable[str]) -> bool:
        """Is every one of ``paths`` a file in the work tree? (No: ask ``dirty``.)"""
        for path in paths:
            try:
                if not stat.S_ISREG(os.lstat(self.tree.root / path).st_mode):
                    return False
            except (FileNotFoundError, NotADirectoryError):
                return False
        return True

    def record(self, new: str, new_tree: str) -> None:
        self.journal.new = new
        self.journal.new_tree = new_tree
        self.tree.write_journal(self.journal)

    def checkout(self, new_tree: str, entries: tuple[Entries, Entries] | None = None) -> None:
        self.touched = True
        self.tree.checkout(self.work, self.journal.old_tree, new_tree, self.journal.paths, entries)

    def publish(self) -> None:
        """The ref moved: our copy becomes the index, the lock goes (step 5)."""
        try:
            same = os.path.samefile(self.work, self.tree.index)
        except FileNotFoundError:
            same = not self.work.exists()
        if same:  # git never rewrote our copy (nothing to check out): drop the second name
            with contextlib.suppress(FileNotFoundError):
                self.work.unlink()
        else:
            os.replace(self.work, self.tree.index)
        self.done = True
        with contextlib.suppress(FileNotFoundError):
            self.tree.lock_file.unlink()
        self.tree.clear_journal()

    def release(self) -> None:
        """Give up before the ref moved: the work tree back as the index holds it, no lock."""
        if self.done:
            return
        if self.touched:
            self.tree.restore(self.journal.paths, self.tree.blob_choices(self.journal))
        with contextlib.suppress(FileNotFoundError):
            self.work.unlink()
        with contextlib.suppress(FileNotFoundError):
            self.tree.lock_file.unlink()
        self.tree.clear_journal()
        self.done = True

    def __enter__(self) -> Held:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.done:
            return
        # If the roll-back itself fails (a full disk, say), the journal and the lock stay, so
        # git cannot commit from a stale index, and the next command finishes it.
        with contextlib.suppress(OSError, ReflectGitError):
            self.release()


def partial_tree(entries: Entries) -> tuple[str, dict[str, bytes]]:
    """A root tree holding only ``entries`` (path -> (mode, blob hex); None: absent), and its
    tree objects (hex -> raw). ValueError when a path is both a file and a folder."""
    root: dict[str, object] = {}
    for path, entry in entries.items():
        if entry is None:
            continue
        *folders, name = path.split("/")
        where = root
        for part in folders:
            nxt = where.setdefault(part, {})
            if not isinstance(nxt, dict):
                raise ValueError(path)
            where = nxt
        if name in where:
            raise ValueError(path)
        where[name] = entry
    if not root:
        return EMPTY_TREE, {}
    objects: dict[str, bytes] = {}

    def build(folder: dict[str, object]) -> str:
        items = []
        for name, value in folder.items():
            raw_name = name.encode("utf-8", "surrogateescape")
            if isinstance(value, dict):
                mode, sha = 0o40000, build(value)
                key = raw_name + b"/"
            else:
                mode, sha = value  # type: ignore[misc]
                key = raw_name
            items.append((key, b"%o %s\x00%s" % (mode, raw_name, bytes.fromhex(sha))))
        raw = b"".join(encoded for _key, encoded in sorted(items))
        hexsha = object_id(b"tree", raw)
        objects[hexsha] = raw
        return hexsha

    return build(root), objects


def _write_new(path: Path, data: bytes) -> os.stat_result:
    """Create ``path`` exclusively with ``data``; its stat (FileExistsError if it exists)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        return os.fstat(fd)
    except BaseException:
        os.close(fd)
        fd = -1
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    finally:
        if fd >= 0:
            os.close(fd)


def _spec(paths: Sequence[str]) -> list[str]:
    """A pathspec naming ``paths``; none (everything, filtered by the caller) for many, so an
    import of thousands of notes never meets the limit on a command line's length."""
    return ["--", *paths] if len(paths) <= PATHSPEC_LIMIT else []


def refuse_dirty(dirty: Sequence[str]) -> None:
    """Refuse to touch paths holding the user's uncommitted edits."""
    if dirty:
        listed = ", ".join(dirty[:5]) + (" ..." if len(dirty) > 5 else "")
        raise ConflictError(
            f"uncommitted changes in {listed}; reflect-git will not overwrite them",
            hint="commit or stash your edits (`git stash`), or discard them "
            "(`git restore --staged --worktree -- <path>`), then run the command again",
        )


def _prune_empty_dirs(folder: Path, root: Path) -> None:
    while folder != root and root in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _remove_tree(path: str | os.PathLike[str]) -> None:
    """``shutil.rmtree(path, ignore_errors=True)`` for the scratch object folders: a folder of
    folders of files, removed with ``os.scandir`` (``shutil`` costs an add 3 ms of imports,
    with ``bz2`` and ``lzma``). As there: a link or a file at ``path`` is left alone, a link
    inside is removed, never followed; errors are ignored."""
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            return
        entries = list(os.scandir(path))
    except OSError:
        return
    for entry in entries:
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False
        if is_dir:
            _remove_tree(entry.path)
        else:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
    with contextlib.suppress(OSError):
        os.rmdir(path)
