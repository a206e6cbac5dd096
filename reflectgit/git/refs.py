"""A branch moved with compare-and-swap, by git's lock-file protocol, and its reflog line."""

from __future__ import annotations

import contextlib
import os
import re
import time
from pathlib import Path

from reflectgit.errors import LockError
from reflectgit.git.objects import packed_refs


class RefLockHeld(LockError):
    """git (``gc``, ``pack-refs``, a push or a commit) holds ``<ref>.lock``."""


# git waits ``core.filesRefLockTimeout`` (100 ms by default) for a ref lock another git holds.
# We wait longer: the housekeeping a commit starts (``git maintenance run --auto``, ``git gc
# --auto``: their ``pack-refs``) may hold the branch's lock just as the next command commits.
REF_LOCK_WAIT = 2.0  # seconds


def _gone(lock: Path, wait: float) -> bool:
    """Wait up to ``wait`` seconds for ``lock`` to go (polling, backing off to 50 ms)."""
    deadline = time.monotonic() + wait
    pause = 0.001
    while os.path.lexists(lock):
        if time.monotonic() >= deadline:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.05)
    return True


def held_ref_lock(common_dir: Path, ref: bytes, wait: float = REF_LOCK_WAIT) -> RefLockHeld | None:
    """The refusal for a branch whose ``<ref>.lock`` is still there after ``wait`` seconds,
    else None (one ``stat`` when there is no lock)."""
    lock = common_dir / (os.fsdecode(ref) + ".lock")
    return None if _gone(lock, wait) else ref_lock_held(lock)


def ref_lock_held(lock: Path) -> RefLockHeld:
    return RefLockHeld(
        f"{lock} exists: another git process (a commit, a push, `git gc` or `git pack-refs`) "
        "is moving that branch; reflect-git wrote nothing",
        hint=f"wait for that git command to finish and run the command again; if no git process "
        f"is running, the lock is stale: remove it (`rm {lock}`) and run the command again",
    )


def set_ref(
    common_dir: Path, ref: bytes, old: bytes | None, new: bytes, message: bytes, committer: bytes
) -> bool | None:
    """Compare-and-swap a branch ref as dulwich's ``set_if_equals`` does (git's lock file
    protocol: ``<ref>.lock`` created exclusively, the value checked under it, written,
    flushed and renamed over the ref; the reflog line appended before the rename). None
    when the ref is one this writer leaves to dulwich."""
    name = os.fsdecode(ref)
    if not plain_branch_ref(name):
        return None  # dulwich checks (and refuses) any other name
    filename = common_dir / name
    packed = packed_refs(common_dir)
    parent = os.path.dirname(name)
    while parent:  # a packed ref where a folder of this one must be: dulwich refuses it
        if parent in packed:
            return None
        parent = os.path.dirname(parent)
    current = _loose_ref(filename)
    if current is not None and current.startswith(b"ref:"):
        return None
    filename.parent.mkdir(parents=True, exist_ok=True)
    lock = filename.with_name(filename.name + ".lock")
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
            break
        except FileExistsError:
            if not _gone(lock, REF_LOCK_WAIT):
                raise ref_lock_held(lock) from None
    written = False
    try:
        current = _loose_ref(filename)
        if current is None:
            found = packed_refs(common_dir).get(name)
            current = found.encode("ascii") if found is not None else None
        if old is not None and (current or b"0" * 40) != old:
            return False
        if current == new:
            return True
        os.write(fd, new + b"\n")
        _append_reflog(common_dir, name, old, new, message, committer)
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


def _loose_ref(filename: Path) -> bytes | None:
    try:
        data = filename.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    return data.rstrip(b"\r\n") if data.startswith(b"ref:") else data[:40]


def _append_reflog(
    common_dir: Path, name: str, old: bytes | None, new: bytes, message: bytes, committer: bytes
) -> None:
    """One reflog line, as dulwich writes it (its timestamp now, its zone +0000)."""
    path = common_dir / "logs" / name
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


_REF_PART = re.compile(r"[^\x00-\x20\x7f ~^:?*\[\\]+")


def plain_branch_ref(name: str) -> bool:
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
