"""Refusals only git can judge: the repository's format, and what a path crosses on its way in.

- ``check_location``: reflect-git writes SHA-1 objects and loose refs. A repository made with
  ``git init --object-format=sha256`` (or with reftable refs) is refused on open and on init,
  before it is even opened (opening a reftable one writes a stub); writing into one leaves
  objects git calls corrupt.
- ``checked_changes``: every path a commit writes is a name every checkout can hold (see
  ``notes/names.py``) and crosses no symlink, neither in the tree the commit builds on (a
  committed ``archived -> /elsewhere``, mode 120000) nor in the work tree (a ``documents``
  folder replaced by a link), and no submodule. Writing through one would put a note outside
  the repository, or leave ``git status`` dirty after every write.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from reflectgit.errors import RefusedError
from reflectgit.git.repo_info import config_may_set, repository_dir
from reflectgit.git.tree import GITLINK_MODE, SYMLINK_MODE

if TYPE_CHECKING:
    from dulwich.config import ConfigFile

    from reflectgit.git.change import Change
    from reflectgit.git.store import Store
    from reflectgit.notes import messages

SUPPORTED = {b"objectformat": (b"sha1",), b"refstorage": (b"files",)}


def check_location(path: str | os.PathLike[str]) -> None:
    """Refuse the repository at ``path`` (work tree or bare) if its format is one reflect-git
    cannot write. Read before the repository is opened: opening one can already write to it.
    A config that does not mention ``extensions`` (nor an include) sets none: not parsed."""
    files = _config_files(Path(path))
    if not config_may_set(files, b"extensions"):
        return
    from dulwich.config import ConfigFile

    for config_path in files:
        try:
            config = ConfigFile.from_path(os.fspath(config_path))
        except (OSError, ValueError):  # unreadable: git itself will say what is wrong
            continue
        _check_config(config, Path(path))


def _config_files(path: Path) -> list[Path]:
    """The config files of the repository at ``path``: its git dir's, and its common dir's
    (a linked worktree keeps the repository's settings there)."""
    try:
        git_dir = repository_dir(path)
    except OSError:
        return []
    found = [git_dir / "config"]
    with contextlib.suppress(OSError):
        common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
        found.append((git_dir / common).resolve() / "config")
    return [p for p in found if p.is_file()]


def _check_config(config: ConfigFile, where: Path) -> None:
    for key, allowed in SUPPORTED.items():
        try:
            value = config.get((b"extensions",), key)
        except KeyError:
            continue
        if value.strip().lower() in allowed:
            continue
        shown = value.decode("utf-8", "replace")
        if key == b"objectformat":
            raise RefusedError(
                f"{where} is a {shown} repository (extensions.objectformat = {shown}); "
                "reflect-git writes SHA-1 objects only",
                hint="keep the knowledge base in a SHA-1 repository: `git init "
                "--object-format=sha1 KB` (the default), then `reflect-git init KB`",
            )
        raise RefusedError(
            f"{where} keeps its refs as {shown} (extensions.refstorage); reflect-git reads "
            "and writes the files ref store only",
            hint="keep the knowledge base in a repository made by a plain `git init`",
        )


def checked_changes(
    store: Store,
    changes: Iterable[Change],
    message: messages.CommitMessage | str,
    branch: str | None = None,
    parent: object = None,
) -> list[Change]:
    """The changes as a list, once every path and the message are safe to commit; else
    ``RefusedError`` and nothing is written."""
    from reflectgit.notes import messages, names  # writers only: a reader opens no note rules

    change_list = list(changes)
    if isinstance(message, str):
        messages.refuse_controls(message)
    for change in change_list:
        if change.data is not None:
            problem = names.path_problem(change.path)
            if problem is not None:
                raise RefusedError(
                    f"refusing to write {problem}",
                    hint="rename it (the note's id names its file): every checkout, Windows "
                    "and macOS included, must be able to hold it",
                )
    target = branch or store.current_branch()
    trees: list[bytes] = []
    for rev in (parent if isinstance(parent, str) else None, target and store.tip(target)):
        tree_hex = store.tree_id(rev) if rev else None
        if tree_hex and tree_hex.encode("ascii") not in trees:
            trees.append(tree_hex.encode("ascii"))
    work_tree = store.path if (target is not None and target == store.current_branch()) else None
    seen: set[str] = set()
    for change in change_list:
        parts = change.path.split("/")
        # Every folder on the way, and the file itself when we write it (a delete unlinks the
        # link itself, which is safe).
        upto = len(parts) if change.data is not None else len(parts) - 1
        for i in range(1, upto + 1):
            prefix = "/".join(parts[:i])
            if prefix in seen:
                continue
            seen.add(prefix)
            for tree in trees:
                _refuse_tree_link(store, tree, prefix, change.path)
            if work_tree is not None:
                _refuse_work_tree_link(os.path.join(os.fspath(work_tree), prefix), prefix, change)
    return change_list


def _refuse_tree_link(store: Store, tree: bytes, prefix: str, path: str) -> None:
    found = store._entry_at(tree, prefix)
    if found is None:
        return
    mode = found[0]
    if mode == SYMLINK_MODE:
        raise RefusedError(
            f"refusing to write {path}: {prefix} is a symlink committed in the repository",
            hint=f"replace the link by a real folder (`git rm {prefix}`, `mkdir {prefix}`, "
            "move its notes in, commit); reflect-git never writes through a link, which could "
            "put notes outside the repository",
        )
    if mode == GITLINK_MODE:
        raise RefusedError(
            f"refusing to write {path}: {prefix} is a submodule",
            hint="notes live in the knowledge base's own folders, not inside a submodule",
        )


def _refuse_work_tree_link(full: str, prefix: str, change: Change) -> None:
    try:
        st = os.lstat(full)
    except (FileNotFoundError, NotADirectoryError):
        return
    if stat.S_ISLNK(st.st_mode):
        raise RefusedError(
            f"refusing to write {change.path}: {prefix} is a symlink in the work tree "
            f"(to {os.readlink(full)})",
            hint=f"make {prefix} a real folder again (for example `rm {prefix}` and "
            f"`git checkout -- {prefix}`); writing through the link would leave `git status` "
            "dirty, or put notes outside the repository",
        )
