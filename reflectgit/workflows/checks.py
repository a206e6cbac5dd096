"""Whole-KB invariants: what no single file can tell about itself.

``reflect-git check`` and the ``reflect-git-check`` hook run these over a ``KbTree`` (the files
of a KB at one point: the work tree today; a revision read through the store once checks
against ``main`` and open ``knowledge/`` branches arrive). Each check is a function from a tree
to problems, so adding one is adding a function to ``TREE_CHECKS``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any

from reflectgit.config import ARCHIVED, DOCUMENTS, FORGOTTEN, REVIEW_QUEUE
from reflectgit.errors import NoteError
from reflectgit.notes.note import RANKING_FIELDS, Note, Sidecar, parse_note, parse_sidecar
from reflectgit.notes.schema import NOTE_SUFFIX, SIDECAR_SUFFIX, Problem, locate, problem_from_error

NOTE_FOLDERS = (DOCUMENTS, ARCHIVED, FORGOTTEN)
# Forgotten notes are gone for good; only live and archived (restorable) notes claim an id.
ID_FOLDERS = (DOCUMENTS, ARCHIVED)
KEEP_FILE = ".gitkeep"

Loader = Callable[[], bytes]


@dataclass
class NoteEntry:
    """One note file of the tree, parsed (or the problem that stopped it)."""

    path: str
    note: Note | None
    problem: Problem | None

    @property
    def stem(self) -> str:
        return PurePosixPath(self.path).name[: -len(NOTE_SUFFIX)]

    @property
    def id(self) -> str:
        """The note's id: ``id``, else ``name`` (fleet imports), else the file stem."""
        if self.note is not None:
            if self.note.id:
                return self.note.id
            name = self.note.frontmatter.get("name")
            if isinstance(name, str) and name.strip():
                return name.strip()
        return self.stem

    @property
    def names(self) -> set[str]:
        """Every name a sidecar may use for this note: id, name and file stem."""
        out = {self.id, self.stem}
        if self.note is not None:
            name = self.note.frontmatter.get("name")
            if isinstance(name, str) and name.strip():
                out.add(name.strip())
        return out


@dataclass
class SidecarEntry:
    """One sidecar file of the tree, parsed (or the problem that stopped it)."""

    path: str
    sidecar: Sidecar | None
    problem: Problem | None

    @property
    def note_path(self) -> str:
        return self.path[: -len(SIDECAR_SUFFIX)] + NOTE_SUFFIX


@dataclass
class KbTree:
    """The files of a KB at one point: repository-relative posix path -> a reader of its bytes."""

    files: Mapping[str, Loader]
    label: str = ""

    @classmethod
    def from_worktree(cls, root: Path) -> KbTree:
        """Every file under ``root`` except git's own folder and hidden tool folders."""
        files: dict[str, Loader] = {}
        for folder, dirs, names in os.walk(root):
            rel = Path(folder).relative_to(root)
            # .forgotten is part of the layout; other hidden folders (.git, .github) are not ours.
            dirs[:] = sorted(
                d for d in dirs if not d.startswith(".") or (d == FORGOTTEN and rel == Path("."))
            )
            for name in names:
                path = (rel / name).as_posix()
                files[path] = _file_reader(Path(folder, name))
        return cls(files)

    @classmethod
    def from_blobs(
        cls, blobs: Mapping[str, str], read_blob: Callable[[str], bytes], label: str
    ) -> KbTree:
        """A tree at a revision: ``blobs`` maps path -> blob id (``Store.list_files``)."""
        return cls({path: _blob_reader(read_blob, sha) for path, sha in blobs.items()}, label=label)

    def in_folder(self, folder: str) -> list[str]:
        prefix = folder + "/"
        return sorted(p for p in self.files if p.startswith(prefix))

    @cached_property
    def notes(self) -> list[NoteEntry]:
        entries = []
        for folder in NOTE_FOLDERS:
            for path in self.in_folder(folder):
                if _is_note_name(path) and path.count("/") == 1:
                    entries.append(self._parse_note(path))
        return entries

    @cached_property
    def sidecars(self) -> list[SidecarEntry]:
        entries = []
        for folder in NOTE_FOLDERS:
            for path in self.in_folder(folder):
                if path.endswith(SIDECAR_SUFFIX) and path.count("/") == 1:
                    entries.append(self._parse_sidecar(path))
        return entries

    def _parse_note(self, path: str) -> NoteEntry:
        try:
            return NoteEntry(path, parse_note(self.files[path](), path), None)
        except NoteError as exc:
            return NoteEntry(path, None, problem_from_error(exc, path))
        except OSError as exc:
            return NoteEntry(path, None, Problem(path, 1, 1, "", f"cannot read: {exc}"))

    def _parse_sidecar(self, path: str) -> SidecarEntry:
        try:
            return SidecarEntry(path, parse_sidecar(self.files[path](), path), None)
        except NoteError as exc:
            return SidecarEntry(path, None, problem_from_error(exc, path))
        except OSError as exc:
            return SidecarEntry(path, None, Problem(path, 1, 1, "", f"cannot read: {exc}"))


def _file_reader(path: Path) -> Loader:
    return path.read_bytes


def _blob_reader(read_blob: Callable[[str], bytes], sha: str) -> Loader:
    return lambda: read_blob(sha)


def _is_note_name(path: str) -> bool:
    return path.endswith(NOTE_SUFFIX)


# --------------------------------------------------------------------------- the checks


def unreadable(tree: KbTree) -> Iterable[Problem]:
    """Notes and sidecars that cannot be parsed at all (the other checks skip them); one that
    holds conflict markers is ``no_conflict_markers``' to name."""
    entries: list[NoteEntry | SidecarEntry] = [*tree.notes, *tree.sidecars]
    for entry in entries:
        if entry.problem is not None and not _has_markers(tree, entry.path):
            yield entry.problem


def _has_markers(tree: KbTree, path: str) -> bool:
    from reflectgit.notes.conflicts import conflicts

    try:
        return bool(conflicts(tree.files[path]().decode("utf-8", "replace")))
    except OSError:
        return False


def no_conflict_markers(tree: KbTree) -> Iterable[Problem]:
    """No note or sidecar holds git's conflict markers (a merge the merge driver did not do:
    a forge's merge button, a clone without its git config), with the lines of each block."""
    from reflectgit.notes.conflicts import conflicts

    for folder in NOTE_FOLDERS:
        for path in tree.in_folder(folder):
            if path.count("/") != 1 or not path.endswith((NOTE_SUFFIX, SIDECAR_SUFFIX)):
                continue
            try:
                text = tree.files[path]().decode("utf-8", "replace")
            except OSError:
                continue  # unreadable says so
            for block in conflicts(text):
                yield Problem(
                    path,
                    block.start,
                    1,
                    "",
                    f"unresolved merge conflict (git's markers, lines {block.start} to "
                    f"{block.end}): keep the right lines, delete the markers, commit again",
                )


def unique_ids(tree: KbTree) -> Iterable[Problem]:
    """No two live or archived notes share an id."""
    first: dict[str, str] = {}
    for entry in tree.notes:
        if entry.path.split("/", 1)[0] not in ID_FOLDERS or entry.note is None:
            continue
        other = first.setdefault(entry.id, entry.path)
        if other != entry.path:
            line, col = _where(entry.note, ["id"], on_key=False)
            yield Problem(
                entry.path,
                line,
                col,
                "id",
                f"{entry.id!r} is already used by {other}; every note needs its own id "
                "(give one of them a new id, or merge them)",
            )


def sidecars_match_notes(tree: KbTree) -> Iterable[Problem]:
    """Every sidecar sits next to its note and names it in ``document_id``."""
    notes = {entry.path: entry for entry in tree.notes}
    for entry in tree.sidecars:
        if entry.sidecar is None:
            continue
        note = notes.get(entry.note_path)
        if note is None:
            yield Problem(
                entry.path,
                1,
                1,
                "",
                f"sidecar without a note: {entry.note_path} does not exist (a sidecar moves "
                "with its note; delete it or restore the note)",
            )
            continue
        doc_id = entry.sidecar.data.get("document_id")
        if doc_id is None or note.note is None:
            continue
        if doc_id not in note.names:
            line, col = locate(entry.sidecar.origin, ["document_id"])
            yield Problem(
                entry.path,
                line,
                col,
                "document_id",
                f"{doc_id!r} does not match its note {note.path} (id {note.id!r}); "
                f"write `document_id: {note.id}`",
            )


def no_ranking_fields(tree: KbTree) -> Iterable[Problem]:
    """Rule S9: ranking state never appears in a note."""
    for entry in tree.notes:
        if entry.note is None:
            continue
        for key in RANKING_FIELDS:
            if key in entry.note.frontmatter:
                line, col = _where(entry.note, [key], on_key=True)
                yield Problem(
                    entry.path,
                    line,
                    col,
                    key,
                    "is a ranking field (rule S9): it lives in the state directory, never in "
                    "a note; remove this line",
                )


def within_layout(tree: KbTree) -> Iterable[Problem]:
    """Notes live in documents/, archived/ or .forgotten/; those folders hold nothing else."""
    for path in sorted(tree.files):
        message = _layout_problem(path, tree)
        if message:
            yield Problem(path, 1, 1, "", message)


def _layout_problem(path: str, tree: KbTree) -> str | None:
    parts = path.split("/")
    top = parts[0]
    name = parts[-1]
    if top in NOTE_FOLDERS:
        if len(parts) > 2:
            return (
                f"{top}/ holds notes and sidecars directly; move this file out of "
                f"{'/'.join(parts[1:-1])}/ (reflect-git does not read sub-folders)"
            )
        if name == KEEP_FILE or name.endswith((NOTE_SUFFIX, SIDECAR_SUFFIX)):
            return None
        return (
            f"{top}/ holds only notes (*.md) and sidecars (*.entities.yaml); move this file "
            "elsewhere in the repository"
        )
    if top == REVIEW_QUEUE:
        if len(parts) == 2 and (name == KEEP_FILE or name.endswith(".yaml")):
            return None
        return "review-queue/ holds only pointer files (<slug>.yaml)"
    if name.endswith(SIDECAR_SUFFIX):
        return f"a sidecar outside {DOCUMENTS}/: move it next to its note in {DOCUMENTS}/"
    if name.endswith(NOTE_SUFFIX) and _looks_like_note(tree.files[path]):
        return f"a note outside {DOCUMENTS}/ is never read: move it to {DOCUMENTS}/"
    return None


# A note has these; a docs page with front matter (title, layout, date) does not.
NOTE_MARKERS = ("title", "created", "confidence")


def _looks_like_note(read: Loader) -> bool:
    """Markdown whose front matter holds every field a note needs, not just any front matter
    (a static-site page, an ADR) outside the layout."""
    try:
        data = read()
    except OSError:
        return False
    if not data.lstrip(b"\xef\xbb\xbf").startswith(b"---"):
        return False
    try:
        front = parse_note(data).frontmatter
    except NoteError:
        return False
    return all(key in front for key in NOTE_MARKERS)


def _where(note: Note, path: Sequence[str | int], on_key: bool) -> tuple[int, int]:
    return locate(note.origin, path, on_key=on_key)


def field_line(note: Note | None, key: str) -> int:
    """The file line where a frontmatter field starts (1 when unknown)."""
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
        for field, back in (("superseded_by", "supersedes"), ("supersedes", "superseded_by")):
            for other_id in _names(note.frontmatter.get(field)):
                other = by_id.get(other_id)
                if other is None or other.note is None:
                    message = f"names {other_id!r}, which is not a note in the KB"
                elif entry.id not in _names(other.note.frontmatter.get(back)):
                    message = f"{other_id} ({other.path}) does not list {entry.id!r} in {back}"
                else:
                    continue
                yield Problem(entry.path, field_line(note, field), 1, field, message)


def supersession_cycles(tree: KbTree) -> Iterable[Problem]:
    """Following ``superseded_by`` never comes back to where it started (a cycle has no current
    note). Each cycle is reported once, on its first note by path."""
    by_id: dict[str, NoteEntry] = {}
    for entry in tree.notes:
        if entry.note is not None:
            by_id.setdefault(entry.id, entry)
    reported: set[str] = set()
    for entry in sorted(by_id.values(), key=lambda e: e.path):
        chain = [entry.id]
        current: NoteEntry | None = entry
        while current is not None and current.note is not None:
            nxt = _names(current.note.frontmatter.get("superseded_by"))
            if not nxt:
                break
            if nxt[0] == entry.id:
                if not reported.intersection(chain):
                    reported.update(chain)
                    yield Problem(
                        entry.path,
                        field_line(entry.note, "superseded_by"),
                        1,
                        "superseded_by",
                        "supersession cycle: "
                        + " -> ".join([*chain, entry.id])
                        + "; a cycle leaves no current note (clear superseded_by on one of them)",
                    )
                break
            if nxt[0] in chain:
                break  # a cycle further on; reported from its own first note
            chain.append(nxt[0])
            current = by_id.get(nxt[0])


def forgotten_stay_forgotten(tree: KbTree) -> Iterable[Problem]:
    """A forgotten id is a tombstone: no live or archived note takes it again."""
    gone = {entry.id for entry in tree.notes if entry.path.startswith(FORGOTTEN + "/")}
    for entry in tree.notes:
        if entry.path.split("/", 1)[0] in ID_FOLDERS and entry.id in gone:
            line, col = _where(entry.note, ["id"], on_key=False) if entry.note else (1, 1)
            yield Problem(
                entry.path,
                line,
                col,
                "id",
                f"{entry.id!r} was forgotten (it is in {FORGOTTEN}/) and is back; a forgotten "
                "id stays forgotten (remove this note, or remove the forgotten copy to bring it "
                "back on purpose: `reflect-git add --restore`)",
            )


def no_secrets(tree: KbTree) -> Iterable[Problem]:
    """No note or sidecar holds a secret (``reflectgit.notes.secrets``, the one scanner).

    Every finding is reported where it is (line, column, kind); the value never is.
    """
    from reflectgit.notes import secrets

    for path in sorted(tree.files):
        folder = path.split("/", 1)[0]
        if folder not in NOTE_FOLDERS or not path.endswith((NOTE_SUFFIX, SIDECAR_SUFFIX)):
            continue
        try:
            text = tree.files[path]().decode("utf-8", "replace")
        except OSError:
            continue
        for finding in secrets.scan(text):
            yield Problem(
                path,
                finding.line,
                finding.column,
                "",
                f"holds {finding.label} (the value is not shown); replace it with "
                f"{secrets.MASK} and rotate the credential",
            )


def live_notes_validate(tree: KbTree) -> Iterable[Problem]:
    """Every live note validates: one that does not (a teammate's push, a hand edit) is never
    served to an agent (``notes/withheld.py``), and is named here. Notes that do not parse at
    all are ``unreadable``'s, ranking fields ``no_ranking_fields``', secrets ``no_secrets``'."""
    from reflectgit.notes.schema import validate_note

    for entry in tree.notes:
        if entry.note is None or entry.path.split("/", 1)[0] != DOCUMENTS:
            continue
        for problem in validate_note(entry.note, entry.path):
            if problem.severity == "error" and problem.field not in RANKING_FIELDS:
                yield problem._replace(
                    message=f"{problem.message} (withheld from agents until fixed)"
                )


TREE_CHECKS: tuple[Callable[[KbTree], Iterable[Problem]], ...] = (
    unreadable,
    no_conflict_markers,
    unique_ids,
    sidecars_match_notes,
    no_ranking_fields,
    within_layout,
    supersession_links,
    supersession_cycles,
    forgotten_stay_forgotten,
    live_notes_validate,
    no_secrets,
)


@dataclass
class CheckRun:
    """What was checked and what was wrong."""

    notes: int
    problems: list[Problem]

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)


def check_tree(
    tree: KbTree, checks: Sequence[Callable[[KbTree], Iterable[Problem]]] = TREE_CHECKS
) -> CheckRun:
    """Run every check over the tree; problems sorted by file and line."""
    problems = [problem for check in checks for problem in check(tree)]
    problems.sort(key=Problem.sort_key)
    return CheckRun(len(tree.notes), problems)


def check_worktree(root: Path) -> CheckRun:
    """The invariants that need no history, over the KB's work tree."""
    return check_tree(KbTree.from_worktree(root))


def check_index(root: Path, env: Mapping[str, str]) -> CheckRun | None:
    """The same invariants over what the index holds (the next commit: staged content, no
    untracked files); ``None`` when ``root`` is not a git work tree."""
    from reflectgit.git.staged import read_blobs, staged_blobs

    blobs = staged_blobs(root, env)
    if blobs is None:
        return None
    # Only notes, sidecars and markdown are ever read: fetch them in one batch, on first use.
    wanted = [sha for path, sha in blobs.items() if path.endswith((NOTE_SUFFIX, SIDECAR_SUFFIX))]
    cache: dict[str, bytes] = {}

    def read_blob(sha: str) -> bytes:
        if not cache:
            cache.update(read_blobs(root, wanted, env))
        if sha not in cache:
            raise OSError(f"blob {sha} is not in the repository")
        return cache[sha]

    return check_tree(KbTree.from_blobs(blobs, read_blob, label="index"))
