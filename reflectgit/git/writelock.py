"""The KB-wide write lock, and what a writer that died inside it left behind.

A part of ``Store`` (``store.Store`` inherits it). Every write holds the lock (an OS file lock
the kernel releases when its process dies) and leaves a marker naming its process; a marker
found later means its writer died: its ref locks and temporary object files are removed and
its journal finished or rolled back (``worktree.py``). ``Store.open`` runs ``recover``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from reflectgit.errors import LockError, ReflectGitError
from reflectgit.git import lockwait
from reflectgit.git.worktree import WRITER_NAME, Recovery, WorkTree

if TYPE_CHECKING:
    from dulwich.repo import Repo

LOCK_NAME = "reflect-git.lock"


class WriteLock:
    """The write lock of one repository, and recovery under it."""

    git_dir: Path
    common_dir: Path
    worktree: WorkTree | None
    last_recovery: Recovery | None
    recovery_error: ReflectGitError | None
    _objects_dir: Path

    if TYPE_CHECKING:  # the reading half of ``Store``

        @property
        def repo(self) -> Repo: ...

        def tip(self, branch: str) -> str | None: ...

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


def _names(folder: Path) -> list[str]:
    """The names in ``folder``; none when it is not a folder or cannot be read."""
    try:
        return os.listdir(folder)
    except OSError:
        return []
