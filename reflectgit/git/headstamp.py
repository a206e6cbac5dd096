"""A stamp of the files HEAD's commit is read from: equal stamps, the same commit.

The rules hook (``workflows/policy.py``) runs on every tool call and must know whether HEAD
moved since the rules were compiled. Reading the commit (``objects.head_commit``) imports
``pathlib``; this reads nothing but ``HEAD`` and ``stat``\\ s: ``HEAD``, a linked worktree's
``commondir``, the loose ref ``HEAD`` names and ``packed-refs`` (inode, size and mtime, as git's
index stats work trees). git writes a ref through a new lock file renamed over it, so each
update changes the inode and the mtime. The hook compares the stamp it saved with the commit to
the one it takes now; when they differ, or when this cannot say (None: a detached or unusual
HEAD, a symbolic ref to a symbolic ref, a per-worktree ref, a file changed within the last
``RACY`` seconds, where a coarse clock could hide a second change), it reads the commit as
before. ``vouch=False`` takes the stamp of a file changed a moment ago all the same: it names
the state HEAD's files are in (which compile was asked for), never vouches that two are one.
"""

from __future__ import annotations

import os
import time

RACY = 2.0  # seconds: a file changed more recently than this may change again unseen
_PER_WORKTREE = ("refs/worktree/", "refs/bisect/", "refs/rewritten/")


def _stat(path: str, recent: int | None) -> list[int] | None:
    """[inode, size, mtime_ns]; [] when absent. ``ValueError`` when changed after ``recent``
    (None: whenever it changed)."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return []
    if recent is not None and st.st_mtime_ns > recent:
        raise ValueError(f"{path} changed too recently")
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read().strip()


def head_stamp(git_dir: str | os.PathLike[str], vouch: bool = True) -> list[object] | None:
    """The stamp of HEAD's commit in ``git_dir``, or None when the files alone cannot vouch
    (``vouch=False``: files changed a moment ago are no reason)."""
    recent = time.time_ns() - int(RACY * 1e9) if vouch else None
    try:
        head = os.path.join(git_dir, "HEAD")
        stamp: list[object] = [_stat(head, recent)]
        text = _read(head)
        if not text.startswith("ref:"):
            return None  # detached: the commit is in HEAD itself, read it
        ref = text[4:].strip()
        if not ref.startswith("refs/") or ref.startswith(_PER_WORKTREE) or ".." in ref:
            return None
        common = os.fspath(git_dir)
        commondir = os.path.join(git_dir, "commondir")
        stamp.append(_stat(commondir, recent))
        if stamp[-1]:
            common = os.path.realpath(os.path.join(git_dir, _read(commondir)))
        loose = os.path.join(common, ref)
        stamp.append(_stat(loose, recent))
        if stamp[-1] and _read(loose).startswith("ref:"):
            return None  # a symbolic ref to another ref
        stamp.append(_stat(os.path.join(common, "packed-refs"), recent))
    except (OSError, ValueError):
        return None
    return [ref, *stamp]
