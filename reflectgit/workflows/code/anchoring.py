"""Anchors for a new note: from ``add --anchor PATH[:SYMBOL]``, and from the files a session
edited (capture, the drain). Both record the code repository's name as the note's ``project``
and its HEAD as each anchor's commit.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from reflectgit.errors import UsageError
from reflectgit.git import codebase
from reflectgit.notes.anchors import MAX_ANCHORS, Anchor, clean_path, parse_spec, to_yaml

Env = Mapping[str, str] | None


def anchor_fields(specs: Sequence[str], cwd: Path, env: Env = None) -> dict[str, Any]:
    """The ``project`` and ``anchors`` fields for ``add --anchor SPEC ...`` run in ``cwd``.

    A path is read as git reads a pathspec: relative to ``cwd``, inside its repository. It must
    exist in HEAD or in the work tree; a symbol is taken as given (``stale`` checks it)."""
    try:
        root = codebase.top(cwd, env)
    except Exception:
        raise UsageError(
            "--anchor needs a code repository: run `reflect-git add` inside it",
            hint="cd into the repository the note is about, then add --anchor PATH[:SYMBOL]",
        ) from None
    head = codebase.resolve(root, "HEAD", env)
    anchors: list[Anchor] = []
    for spec in specs:
        raw, symbol = parse_spec(spec)
        path = _repo_path(raw, cwd, root)
        if path is None:
            raise UsageError(
                f"--anchor {spec}: the path is outside the repository {root.name}",
                hint="name a file of the repository, relative to where you run the command",
            )
        known = head is not None and bool(codebase.tracked(root, head, [path], env))
        if not known and not (root / path).is_file():
            raise UsageError(
                f"--anchor {spec}: {path} is not a file of {root.name}",
                hint="anchor a file that exists (in HEAD or in the work tree)",
            )
        anchors.append(Anchor(path, symbol, head))
    return {"project": root.name, "anchors": to_yaml(anchors)}


def _repo_path(raw: str, cwd: Path, root: Path) -> str | None:
    given = Path(os.path.expanduser(raw))
    full = given if given.is_absolute() else cwd / given
    try:
        rel = os.path.relpath(os.path.normpath(full.absolute()), os.path.realpath(root))
    except ValueError:
        return None
    if rel.startswith(".."):  # cwd may reach the repository through a symlink
        rel = os.path.relpath(os.path.realpath(full), os.path.realpath(root))
    return clean_path(rel.replace(os.sep, "/"))


def session_anchors(cwd: str | None, files: Iterable[str], env: Env = None) -> list[dict[str, str]]:
    """Anchors for the files a session edited (absolute or relative to ``cwd``) that are files
    of ``cwd``'s repository now, each at that repository's HEAD; [] outside a repository. Never
    raises: capture and the drain must not fail over an anchor."""
    names = [f for f in files if isinstance(f, str) and f.strip()]
    if not cwd or not names:
        return []
    try:
        base = Path(cwd)
        root = codebase.top(base, env)
        head = codebase.resolve(root, "HEAD", env)
        if head is None:
            return []
        wanted: list[str] = []
        for name in names:
            path = _repo_path(name, base, root)
            if path is not None and path not in wanted:
                wanted.append(path)
        present = codebase.tracked(root, head, wanted[: MAX_ANCHORS * 3], env)
        kept = [p for p in wanted if p in present][:MAX_ANCHORS]
        return to_yaml([Anchor(p, None, head) for p in kept])
    except Exception:
        return []


def committed_files(cfg: Any, session: str | None) -> list[str]:
    """The files (absolute) of the commits commit capture recorded for ``session``."""
    if not session:
        return []
    from reflectgit.workflows.capture.commits import Capture

    try:
        rows = Capture(cfg).commits()
    except Exception:
        return []
    out: list[str] = []
    for row in rows:
        names = row.get("files")
        if (
            row.get("session") == session
            and isinstance(row.get("repo"), str)
            and isinstance(names, list)
        ):
            out += [os.path.join(row["repo"], f) for f in names if isinstance(f, str)]
    return out
