"""The ``check --base REF`` invariants: what a branch may not do to the team KB.

- An id added on this branch must not exist on the base (``main``) or be added on another open
  ``knowledge/`` branch: two reviewers would otherwise approve two notes with one id.
- ``superseded_by`` and ``supersedes`` resolve both ways (each names a note that names back).
- No secret-looking strings in notes or sidecars (the privacy filter's patterns).

Ids are compared through tree diffs, so only the notes a branch touched are parsed: a check
against a 100,000-note ``main`` reads the handful of files the branch and ``main`` changed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from reflectgit.checks import ID_FOLDERS, NOTE_FOLDERS, KbTree, NoteEntry
from reflectgit.errors import NoteError, NotFoundError
from reflectgit.note import Note, parse_note
from reflectgit.schema import NOTE_SUFFIX, SIDECAR_SUFFIX, Problem

KNOWLEDGE_PREFIX = "knowledge/"

# Used when the capture privacy filter (reflectgit.privacy) is not installed: its key shapes.
_FALLBACK_SECRETS = tuple(
    re.compile(p, flags)
    for p, flags in (
        (r"-----BEGIN [A-Z ]*PRIVATE KEY-----", 0),
        (r"\bsk-ant-[A-Za-z0-9_-]{8,}", 0),
        (r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", 0),
        (r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})", 0),
        (r"\bglpat-[A-Za-z0-9_-]{20,}", 0),
        (r"\bxox[abposr]-[A-Za-z0-9-]{10,}", 0),
        (r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b", 0),
        (r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*", 0),
        (r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/*]{3,}@", re.IGNORECASE),
        (r"\bbearer\s+[A-Za-z0-9._~+/=-]{16,}", re.IGNORECASE),
    )
)


def secret_detector() -> Callable[[str], bool]:
    """``text -> bool``: the capture privacy filter when present, else its key shapes."""
    try:
        from reflectgit.privacy import scrub_secrets  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return lambda text: any(p.search(text) for p in _FALLBACK_SECRETS)
    return lambda text: scrub_secrets(text) != text


# ============================================================================ tree checks


def _id_line(note: Note | None) -> int:
    if note is None or note.origin is None:
        return 1
    for number, line in enumerate(note.origin.yaml_text.splitlines()):
        if line.startswith("id:"):
            return note.origin.yaml_line + number
    return 1


def _field_line(note: Note | None, key: str) -> int:
    if note is None or note.origin is None:
        return 1
    for number, line in enumerate(note.origin.yaml_text.splitlines()):
        if line.startswith(f"{key}:"):
            return note.origin.yaml_line + number
    return 1


def _names(value: Any) -> list[str]:
    if isinstance(value, str) and value.strip():
        return [value.strip()]
    if isinstance(value, list):
        return [str(v).strip() for v in value if isinstance(v, str) and v.strip()]
    return []


def supersession_links(tree: KbTree) -> Iterable[Problem]:
    """``superseded_by`` X needs X to exist and list this note in ``supersedes``, and back."""
    by_id: dict[str, NoteEntry] = {}
    for entry in tree.notes:
        if entry.note is not None:
            by_id.setdefault(entry.id, entry)
    for entry in tree.notes:
        note = entry.note
        if note is None:
            continue
        for other_id in _names(note.frontmatter.get("superseded_by")):
            other = by_id.get(other_id)
            line = _field_line(note, "superseded_by")
            if other is None or other.note is None:
                yield Problem(
                    entry.path,
                    line,
                    1,
                    "superseded_by",
                    f"names {other_id!r}, which is not a note in the KB",
                )
            elif entry.id not in _names(other.note.frontmatter.get("supersedes")):
                yield Problem(
                    entry.path,
                    line,
                    1,
                    "superseded_by",
                    f"{other_id} ({other.path}) does not list {entry.id!r} in supersedes",
                )
        for other_id in _names(note.frontmatter.get("supersedes")):
            other = by_id.get(other_id)
            line = _field_line(note, "supersedes")
            if other is None or other.note is None:
                yield Problem(
                    entry.path,
                    line,
                    1,
                    "supersedes",
                    f"names {other_id!r}, which is not a note in the KB",
                )
            elif entry.id not in _names(other.note.frontmatter.get("superseded_by")):
                yield Problem(
                    entry.path,
                    line,
                    1,
                    "supersedes",
                    f"{other_id} ({other.path}) has superseded_by "
                    f"{other.note.frontmatter.get('superseded_by')!r}, not {entry.id!r}",
                )


def no_secrets(tree: KbTree, detector: Callable[[str], bool] | None = None) -> Iterable[Problem]:
    """No note or sidecar holds a token, key, password or credential-bearing URL."""
    looks_secret = detector or secret_detector()
    for path in sorted(tree.files):
        folder = path.split("/", 1)[0]
        if folder not in NOTE_FOLDERS or not path.endswith((NOTE_SUFFIX, SIDECAR_SUFFIX)):
            continue
        try:
            text = tree.files[path]().decode("utf-8", "replace")
        except OSError:
            continue
        if not looks_secret(text):
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if looks_secret(line):
                yield Problem(
                    path,
                    number,
                    1,
                    "",
                    "looks like a secret (token, key, password or credentials in a URL); "
                    "remove it and rotate the credential",
                )
                break
        else:
            yield Problem(
                path, 1, 1, "", "looks like a secret; remove it and rotate the credential"
            )


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
        out[new_id] = AddedNote(new_id, path, _id_line(note))
    return out


def merge_base(store: Any, a: str, b: str) -> str | None:
    from dulwich.graph import find_merge_base

    bases = find_merge_base(store.repo, [a.encode("ascii"), b.encode("ascii")])
    return bases[0].decode("ascii") if bases else None


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


def tree_problems(tree: KbTree) -> list[Problem]:
    """The two checks that need no history but belong to the team gate."""
    return [*supersession_links(tree), *no_secrets(tree)]


def check_with_base(kb: Any, base_rev: str, env: Mapping[str, str] | None = None) -> list[Problem]:
    """Everything ``check --base`` adds on top of the work-tree checks, sorted."""
    from reflectgit.store import Store

    with Store.open(kb, env) as store:
        problems = history_problems(store, base_rev)
    problems += tree_problems(KbTree.from_worktree(kb))
    problems.sort(key=Problem.sort_key)
    return problems
