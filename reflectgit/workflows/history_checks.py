"""The ``check --base REF`` invariants: what a branch may not do to the team KB.

- An id added on this branch must not exist on the base (``main``) or be added on another open
  ``knowledge/`` branch: two reviewers would otherwise approve two notes with one id.

The checks that need no history (supersession links both ways, no secrets) are tree checks in
``checks.py`` and run on every ``check``.

Ids are compared through tree diffs, so only the notes a branch touched are parsed: a check
against a 100,000-note ``main`` reads the handful of files the branch and ``main`` changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from reflectgit.errors import NoteError, NotFoundError
from reflectgit.notes.note import Note, parse_note
from reflectgit.notes.schema import NOTE_SUFFIX, Problem
from reflectgit.workflows.checks import ID_FOLDERS, field_line

KNOWLEDGE_PREFIX = "knowledge/"

# ============================================================================ history


@dataclass(frozen=True)
class AddedNote:
    id: str
    path: str
    line: int


def _is_note_path(path: str) -> bool:
    parts = path.split("/")
    return len(parts) == 2 and parts[0] in ID_FOLDERS and parts[1].endswith(NOTE_SUFFIX)


def _note_id(store: Any, blob: str, path: str) -> tuple[str, Note | None]:
    try:
        note = parse_note(store.read_blob(blob), path)
    except NoteError:
        return PurePosixPath(path).name[: -len(NOTE_SUFFIX)], None
    name = note.frontmatter.get("name")
    fallback = name.strip() if isinstance(name, str) and name.strip() else None
    return note.id or fallback or PurePosixPath(path).name[: -len(NOTE_SUFFIX)], note


def added_ids(store: Any, old_tree: str | None, new_tree: str) -> dict[str, AddedNote]:
    """Ids that ``new_tree`` has and ``old_tree`` did not, parsing only the changed notes."""
    out: dict[str, AddedNote] = {}
    for path, old, new in store.diff_trees(old_tree, new_tree):
        if new is None or not _is_note_path(path):
            continue
        new_id, note = _note_id(store, new, path)
        if old is not None and _note_id(store, old, path)[0] == new_id:
            continue
        out[new_id] = AddedNote(new_id, path, field_line(note, "id"))
    return out


def merge_base(store: Any, a: str, b: str) -> str | None:
    from reflectgit.git.history import merge_base as git_merge_base

    return git_merge_base(store, a, b)


def _tree(store: Any, sha: str | None) -> str | None:
    return store.commit_info(sha).tree if sha else None


def knowledge_branches(store: Any) -> dict[str, list[str]]:
    """Open knowledge branches this clone knows of (local, remote-tracking, routed): name -> tips."""
    found: dict[str, list[str]] = {}
    for prefix in ("refs/heads/", "refs/remotes/", "refs/reflect-git/team/"):
        for name, sha in store.refs(prefix).items():
            short = name.split("/", 1)[1] if prefix == "refs/remotes/" and "/" in name else name
            if short.startswith(KNOWLEDGE_PREFIX):
                tips = found.setdefault(short, [])
                if sha not in tips:
                    tips.append(sha)
    return found


def history_problems(store: Any, base_rev: str, head_rev: str = "HEAD") -> list[Problem]:
    """Ids this branch adds that ``base_rev`` already has, or another knowledge branch adds."""
    base = store.resolve(base_rev)
    if base is None:
        raise NotFoundError(
            f"unknown base revision {base_rev!r}",
            hint="fetch it first (`git fetch origin main`) and pass e.g. --base origin/main",
        )
    head = store.resolve(head_rev)
    if head is None:
        return []
    mb = merge_base(store, head, base)
    ours = added_ids(store, _tree(store, mb), _tree(store, head) or "")
    if not ours:
        return []
    problems: list[Problem] = []
    on_base = added_ids(store, _tree(store, mb), _tree(store, base) or "") if mb != base else {}
    for note_id, mine in sorted(ours.items()):
        theirs = on_base.get(note_id)
        if theirs is not None:
            problems.append(
                Problem(
                    mine.path,
                    mine.line,
                    1,
                    "id",
                    f"{note_id!r} is also on {base_rev} ({theirs.path})",
                )
            )
    for short, tips in sorted(knowledge_branches(store).items()):
        reported: set[str] = set()
        for tip in tips:
            if tip == head or merge_base(store, tip, head) == tip:
                continue  # this branch itself (or already part of it)
            branch_mb = merge_base(store, tip, base)
            if branch_mb == tip:
                continue  # already merged into the base
            theirs_ids = added_ids(store, _tree(store, branch_mb), _tree(store, tip) or "")
            for note_id in sorted((set(ours) & set(theirs_ids)) - reported):
                reported.add(note_id)
                mine = ours[note_id]
                problems.append(
                    Problem(
                        mine.path,
                        mine.line,
                        1,
                        "id",
                        f"{note_id!r} is also added on the open branch {short} "
                        f"({theirs_ids[note_id].path})",
                    )
                )
    return problems


def check_with_base(kb: Any, base_rev: str, env: Mapping[str, str] | None = None) -> list[Problem]:
    """Everything ``check --base`` adds on top of the work-tree checks, sorted."""
    from reflectgit.git.store import Store

    with Store.open(kb, env) as store:
        problems = history_problems(store, base_rev)
    problems.sort(key=Problem.sort_key)
    return problems
