"""Where a repository's parts are (work tree, git directory, common directory), read from
its files as dulwich's ``Repo`` finds them, so that opening a KB needs no dulwich."""

from __future__ import annotations

import os
from dataclasses import dataclass


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
