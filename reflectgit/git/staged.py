"""What the index holds: the files the next commit will have, and their staged bytes.

The ``reflect-git-check`` pre-commit hook judges these, not the work tree: an untracked file is
not part of the commit, and a path's staged content is what gets committed even when the work
tree differs. ``git commit -a`` and ``git commit PATH`` commit from a temporary index that git
names in ``GIT_INDEX_FILE`` for its hooks; that one is read when the caller passes it.
Two git processes at most (``ls-files`` and one ``cat-file --batch``); no dulwich.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from reflectgit.git.run import run

INDEX_ENV = "GIT_INDEX_FILE"
# Submodules are commits, not blobs: nothing of ours to read.
GITLINK = "160000"


def index_env(root: Path, env: Mapping[str, str]) -> dict[str, str]:
    """The ``GIT_INDEX_FILE`` a hook was given (absolute), to keep past run's policy."""
    index = env.get(INDEX_ENV)
    if not index:
        return {}
    path = Path(index)
    return {INDEX_ENV: os.fspath(path if path.is_absolute() else root / path)}


def staged_blobs(root: Path, env: Mapping[str, str]) -> dict[str, str] | None:
    """``path -> blob id`` of every file in the index (stage 0, or the first stage of a
    conflict); ``None`` when ``root`` is not a git work tree."""
    result = run(
        ["ls-files", "--stage", "-z"],
        cwd=root,
        env=env,
        extra_env=index_env(root, env),
        timeout=30,
    )
    if not result.ok:
        return None
    blobs: dict[str, str] = {}
    for record in result.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, sha, _stage = meta.decode("ascii").split(" ")
        if mode == GITLINK:
            continue
        blobs.setdefault(raw_path.decode("utf-8", "surrogateescape"), sha)
    return blobs


def read_blobs(
    root: Path, names: Sequence[str], env: Mapping[str, str], timeout: float = 60
) -> dict[str, bytes]:
    """The contents of the blobs ``names`` name (blob ids, or ``rev:path``), by name, read by
    one ``git cat-file --batch``; a missing name, or one naming a tree or a commit, is left out."""
    if not names:
        return {}
    wanted = list(dict.fromkeys(names))
    result = run(
        ["cat-file", "--batch"],
        cwd=root,
        env=env,
        input="".join(f"{name}\n" for name in wanted).encode("utf-8", "surrogateescape"),
        timeout=timeout,
        check=True,
    )
    out: dict[str, bytes] = {}
    data = result.stdout
    at = 0
    for name in wanted:
        end = data.index(b"\n", at)
        header = data[at:end].split(b" ")
        at = end + 1
        if len(header) < 3:  # "<name> missing" (or ambiguous): no body follows
            continue
        size = int(header[2])
        if header[1] == b"blob":
            out[name] = data[at : at + size]
        at += size + 1  # the object, then the newline cat-file adds
    return out
