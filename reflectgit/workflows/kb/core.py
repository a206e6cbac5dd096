"""Knowledge-base workflows: add, update, confirm, archive, restore, forget, supersede, undo,
list, show, log, import, export, status.

Each workflow validates first, turns one mutation into exactly one commit through
``Store.commit`` (so it is atomic, locked and never clobbers the user's edits), and returns a
result object. Nothing here prints, exits or reads the environment.
"""

from __future__ import annotations

import datetime as dt
import functools
import importlib
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from reflectgit.config import ARCHIVED, DOCUMENTS, FORGOTTEN, REVIEW_QUEUE
from reflectgit.errors import ConflictError, NoteError, NotFoundError, ReflectGitError, UsageError
from reflectgit.git.store import Change, PathChanged, Store, delete, write
from reflectgit.notes import messages
from reflectgit.notes.note import (
    Note,
    Sidecar,
    is_safe_id,
    load_yaml,
    new_id,
    normalize_tier,
    parse_note,
    parse_sidecar,
    render_note,
    render_sidecar,
    sidecar_path_for,
    tier_of,
    utc_now,
)

if TYPE_CHECKING:
    from reflectgit.notes.schema import Problem

NOTE_SUFFIX = ".md"
SIDECAR_SUFFIX = ".entities.yaml"
STATE_FOLDERS = {"live": DOCUMENTS, "archived": ARCHIVED, "forgotten": FORGOTTEN}
IMPORT_BATCH = 10_000  # notes per import commit: one commit for any ordinary import
EXPORT_MTIME = 0  # fixed so the same notes always give the same tarball bytes
_ID_LINE = re.compile(rb"^id:[ \t]*['\"]?([^'\"\r\n#]+?)['\"]?[ \t]*\r?$", re.MULTILINE)

Clock = Callable[[], dt.datetime]
Progress = Callable[[int, int], None]


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class AddResult:
    id: str
    path: str
    commit: str | None
    status: str  # "added" | "unchanged" | "updated"


@dataclass(frozen=True)
class UpdateResult:
    id: str
    path: str
    commit: str | None


@dataclass(frozen=True)
class ConfirmResult:
    id: str
    proof_count: int
    commit: str | None


@dataclass(frozen=True)
class MoveResult:
    id: str
    path: str
    commit: str | None


@dataclass(frozen=True)
class ForgetResult:
    forgotten: list[str]
    commit: str | None
    dry_run: bool = False


@dataclass(frozen=True)
class SupersedeResult:
    old: str
    new: str
    commit: str | None


@dataclass(frozen=True)
class UndoResult:
    reverted: str
    commit: str
    subject: str
    ids: list[str]


@dataclass(frozen=True)
class NoteSummary:
    id: str
    title: str
    confidence: str | None
    path: str
    state: str
    tags: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ShownNote:
    id: str
    path: str
    state: str
    frontmatter: dict[str, Any]
    body: str
    sidecar: dict[str, Any] | None
    revision: str


@dataclass(frozen=True)
class LogEntry:
    commit: str
    op: str | None
    ids: list[str]
    subject: str
    date: str


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


@dataclass(frozen=True)
class ImportResult:
    imported: list[str]
    skipped: list[Skipped]
    commits: list[str]


@dataclass(frozen=True)
class ExportResult:
    file: str
    notes: int


@dataclass(frozen=True)
class StatusResult:
    kb: str
    branch: str | None
    head: str | None
    notes: dict[str, int]
    tiers: dict[str, int]
    queue_depth: int
    dead_letters: int
    index: str
    hooks: dict[str, bool]
    clean: bool
    pending: str | None = None  # an interrupted write not yet finished (git/worktree.py)


@dataclass(frozen=True)
class Located:
    """A note found on the branch: its id, state, path and bytes (and its sidecar's)."""

    id: str
    state: str
    path: str
    data: bytes
    sidecar_path: str
    sidecar: bytes | None


# --------------------------------------------------------------------------- validation


def note_problems(note: Note, path: str) -> list[str]:
    """Validation problems of a parsed note as ``path:line:col: field: message`` strings."""
    from reflectgit.notes import schema  # only writes validate; reading commands start faster

    return [_problem_text(p) for p in schema.validate_note(note, path)]


def sidecar_problems(data: Mapping[str, Any], path: str) -> list[str]:
    """Validation problems of sidecar data."""
    from reflectgit.notes import schema

    sidecar = parse_sidecar(render_sidecar(Sidecar(dict(data))), path)
    return [_problem_text(p) for p in schema.validate_sidecar(sidecar, path)]


def _problem_text(problem: Problem) -> str:
    where = f"{problem.file}:{problem.line}:{problem.column}"
    return (
        f"{where}: {problem.field}: {problem.message}"
        if problem.field
        else (f"{where}: {problem.message}")
    )


def check_note(note: Note, path: str) -> None:
    """Raise ``NoteError`` naming every problem when the note does not validate."""
    problems = note_problems(note, path)
    if problems:
        raise NoteError(
            "invalid note:\n  " + "\n  ".join(problems),
            hint="fix the fields named above; `reflect-git validate FILE` shows the same",
        )


def check_sidecar(data: Mapping[str, Any], path: str) -> None:
    problems = sidecar_problems(data, path)
    if problems:
        raise NoteError(
            "invalid sidecar:\n  " + "\n  ".join(problems),
            hint="fix the entities and relationships named above",
        )


# --------------------------------------------------------------------------- helpers


def note_id(note: Note, path: str) -> str:
    """A note's id: its frontmatter ``id``, else its file stem."""
    return note.id or _stem(path)


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[: -len(NOTE_SUFFIX)] if name.endswith(NOTE_SUFFIX) else name


def _is_note_path(path: str) -> bool:
    return path.endswith(NOTE_SUFFIX)


def json_value(value: Any) -> Any:
    """Frontmatter as JSON-ready data: dates and timestamps as ISO strings."""
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_value(v) for v in value]
    if isinstance(value, dt.datetime):
        from reflectgit.notes.note import format_timestamp

        return format_timestamp(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def parse_instant(value: Any) -> dt.datetime | None:
    """A date/timestamp (string or YAML value) as an aware UTC datetime; None if unparseable."""
    if isinstance(value, dt.datetime):
        moment = value
    elif isinstance(value, dt.date):
        moment = dt.datetime(value.year, value.month, value.day)
    elif isinstance(value, str) and value.strip():
        text = value.strip().replace("Z", "+00:00").replace("z", "+00:00")
        try:
            moment = dt.datetime.fromisoformat(text)
        except ValueError:
            try:
                moment = dt.datetime.fromisoformat(text[:10])
            except ValueError:
                return None
    else:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return moment


def parse_assignment(text: str) -> tuple[list[str], Any]:
    """``KEY=VALUE`` with a YAML-typed value; dotted keys reach into mappings."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise UsageError(
            f"--set {text!r} is not KEY=VALUE", hint="for example --set confidence=high"
        )
    try:
        value = load_yaml(raw, source=f"--set {key}") if raw.strip() else ""
    except NoteError as exc:
        raise UsageError(exc.message, hint="quote the value") from None
    parts = key.split(".")
    if any(not p for p in parts):
        raise UsageError(f"--set {text!r}: empty part in the key {key!r}")
    return parts, value


# --------------------------------------------------------------------------- the workflows

RETRIES = 5  # a read-modify-write that lost a race reads again, this many times at most
_F = TypeVar("_F", bound=Callable[..., Any])


def _retrying(method: _F) -> _F:
    """Re-run a workflow whose snapshot went stale under another writer (``PathChanged``)."""

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for attempt in range(RETRIES):
            try:
                return method(*args, **kwargs)
            except PathChanged:
                if attempt == RETRIES - 1:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    return cast(_F, wrapper)


class KnowledgeBase:
    """The workflows over one KB repository. ``source`` goes into the Reflect-Source trailer."""

    def __init__(
        self,
        store: Store,
        *,
        state_dir: Path | None = None,
        source: str = "cli",
        clock: Clock = utc_now,
    ) -> None:
        self.store = store
        self.state_dir = state_dir
        self.source = source
        self.clock = clock

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        env: Mapping[str, str] | None = None,
        state_dir: Path | None = None,
        source: str = "cli",
        clock: Clock = utc_now,
    ) -> KnowledgeBase:
        """Open the KB at ``path`` (a git repository)."""
        return cls(Store.open(path, env=env), state_dir=state_dir, source=source, clock=clock)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ finding notes

    def _tree(self, rev: str | None = None) -> str | None:
        return self.store.tree_id(rev)

    def find(
        self,
        ident: str,
        states: Sequence[str] = ("live", "archived"),
        tree: str | None = None,
        scan: bool = True,
    ) -> Located | None:
        """The note with this id (frontmatter id, else file stem) in the given states.

        Notes reflect-git writes are named ``<id>.md``, so one tree lookup finds them; with
        ``scan`` a miss falls back to reading every note (for hand-named files).
        """
        tree = tree if tree is not None else self._tree()
        if not tree or not ident:
            return None
        if is_safe_id(ident):
            for state in states:
                path = f"{STATE_FOLDERS[state]}/{ident}{NOTE_SUFFIX}"
                data = self.store.read_at_tree(tree, path)
                if data is not None:
                    fm_id = _peek_id(data)
                    if fm_id is None or fm_id == ident:
                        return self._located(tree, ident, state, path, data)
        if not scan:
            return None
        # Slow path: an id that is not the file name (drain notes, hand-written ones).
        raw = ident.encode("utf-8")
        for state in states:
            files = self.store.list_tree(tree, STATE_FOLDERS[state])
            for path, blob in sorted(files.items()):
                if not _is_note_path(path):
                    continue
                data = self.store.read_blob(blob)
                fm_id = _peek_id(data)
                if fm_id == ident or (fm_id is None and _stem(path) == ident):
                    return self._located(tree, ident, state, path, data)
                if fm_id is None and raw in data:
                    try:
                        if parse_note(data, path).id == ident:
                            return self._located(tree, ident, state, path, data)
                    except NoteError:
                        continue
        return None

    def _located(self, tree: str, ident: str, state: str, path: str, data: bytes) -> Located:
        side = sidecar_path_for(path)
        return Located(ident, state, path, data, side, self.store.read_at_tree(tree, side))

    def get(
        self, ident: str, states: Sequence[str] = ("live", "archived"), tree: str | None = None
    ) -> Located:
        found = self.find(ident, states, tree)
        if found is None:
            where = " or ".join(STATE_FOLDERS[s] + "/" for s in states)
            raise NotFoundError(
                f"no note with id {ident!r} in {where}",
                hint="`reflect-git list --all` shows every id",
            )
        return found

    def _id_taken(self, ident: str, tree: str | None) -> bool:
        if not tree:
            return False
        return any(
            self.store.read_at_tree(tree, f"{STATE_FOLDERS[s]}/{ident}{NOTE_SUFFIX}") is not None
            for s in ("live", "archived")
        )

    def _commit(
        self, changes: Sequence[Change], message: messages.CommitMessage, tree: str | None
    ) -> str | None:
        """Commit, provided no path we change moved since ``tree`` (the snapshot we read)."""
        expect = {c.path: self.store.blob_at(tree, c.path) for c in changes}
        return self.store.commit(changes, message, expect=expect)

    def _message(
        self,
        subject: str,
        op: str,
        ids: Iterable[str],
        confidence: str | None = None,
        body: str = "",
        extra: Iterable[tuple[str, str]] = (),
    ) -> messages.CommitMessage:
        return messages.build(
            subject, op, ids, confidence=confidence, source=self.source, body=body, extra=extra
        )

    # ------------------------------------------------------------------ add

    @_retrying
    def add(
        self,
        data: bytes | None = None,
        *,
        fields: Mapping[str, Any] | None = None,
        sidecar: bytes | None = None,
        force: bool = False,
        source_name: str = "<stdin>",
        sidecar_name: str = "<entities>",
    ) -> AddResult:
        """Validate and commit one note (from bytes, from fields, or bytes with field overrides)."""
        if data is None and not fields:
            raise UsageError(
                "nothing to add", hint="give a FILE, `-` for stdin, or --title and --insight"
            )
        note = _parse(data, source_name) if data is not None else Note({"type": "learning"})
        defaulted_created = False
        for key, value in (fields or {}).items():
            if value is None or value == [] or value == "":
                continue
            if key == "confidence":
                tier = normalize_tier(value)
                if tier is None:
                    raise NoteError(
                        f"--confidence {value!r} is not a tier",
                        hint="use high, medium or low (h, med, m, l are accepted)",
                    )
                value = tier
            if key == "tags":
                existing = note.frontmatter.get("tags")
                merged = list(existing) if isinstance(existing, list) else []
                merged.extend(t for t in value if t not in merged)
                value = merged
            note.frontmatter[key] = value
        if data is None and not note.body and isinstance(note.frontmatter.get("key_insight"), str):
            note.body = note.frontmatter["key_insight"].strip() + "\n"
        if "created" not in note.frontmatter:
            note.frontmatter["created"] = self.clock()
            defaulted_created = True
        check_note(note, source_name)
        side_data: dict[str, Any] | None = None
        if sidecar is not None:
            side_data = _parse_side(sidecar, sidecar_name)
            check_sidecar(side_data, sidecar_name)

        tree = self._tree()
        explicit = note.id
        if explicit is not None:
            ident = explicit
            existing = self.find(ident, ("live", "archived"), tree, scan=False) if tree else None
        else:
            existing = None
            body_key = note.body

            def taken(candidate: str) -> bool:
                nonlocal existing
                found = (
                    self.find(candidate, ("live", "archived"), tree, scan=False) if tree else None
                )
                if found is None:
                    return self._id_taken(candidate, tree)
                if _same_note(found.data, note, candidate, defaulted_created):
                    existing = found
                    return False
                return True

            ident = new_id(note.title, body_key, taken)
        note.frontmatter["id"] = ident

        if existing is not None:
            if existing.state != "live":
                raise ConflictError(
                    f"{ident} is archived",
                    hint=f"`reflect-git restore {ident}` first, then add again",
                )
            same_side = side_data is None or existing.sidecar == _render_side(side_data, ident)
            if _same_note(existing.data, note, ident, defaulted_created) and same_side:
                return AddResult(ident, existing.path, None, "unchanged")
            if not force:
                raise ConflictError(
                    f"a different note already has the id {ident}",
                    hint="pass --force to replace it (an update: the id and file stay), "
                    "or remove `id:` to get a new id",
                )
            return self._replace(existing, note, side_data, defaulted_created, tree)

        path = f"{DOCUMENTS}/{ident}{NOTE_SUFFIX}"
        changes = [write(path, render_note(note))]
        if side_data is not None:
            changes.append(write(sidecar_path_for(path), _render_side(side_data, ident)))
        tier = note.tier
        kind = "feat" if tier == "high" else "docs"
        message = self._message(
            messages.knowledge_subject(note.title, tier, kind), "add", [ident], confidence=tier
        )
        sha = self._commit(changes, message, tree)
        return AddResult(ident, path, sha, "added" if sha else "unchanged")

    def _replace(
        self,
        existing: Located,
        note: Note,
        side_data: dict[str, Any] | None,
        kept_created: bool,
        tree: str | None,
    ) -> AddResult:
        old = parse_note(existing.data, existing.path)
        if kept_created and "created" in old.frontmatter:
            note.frontmatter["created"] = old.frontmatter["created"]
        note.frontmatter["updated"] = self.clock()
        check_note(note, existing.path)
        changes = [write(existing.path, render_note(note))]
        if side_data is not None:
            changes.append(write(existing.sidecar_path, _render_side(side_data, existing.id)))
        message = self._message(
            messages.chore_subject("update", existing.id), "update", [existing.id], note.tier
        )
        sha = self._commit(changes, message, tree)
        return AddResult(existing.id, existing.path, sha, "updated" if sha else "unchanged")

    # ------------------------------------------------------------------ update, confirm

    @_retrying
    def update(
        self,
        ident: str,
        assignments: Sequence[str] = (),
        body: str | None = None,
    ) -> UpdateResult:
        """Change fields (``KEY=VALUE``, YAML-typed) or the body; the id and file name stay."""
        if not assignments and body is None:
            raise UsageError("nothing to change", hint="give --set KEY=VALUE or --body-file F")
        tree = self._tree()
        found = self.get(ident, ("live",), tree)
        note = parse_note(found.data, found.path)
        before = render_note(note)
        for text in assignments:
            parts, value = parse_assignment(text)
            if parts[0] == "id":
                raise UsageError("the id of a note never changes", hint="add a new note instead")
            if parts == ["confidence"]:
                tier = normalize_tier(value)
                if tier is None:
                    raise NoteError(
                        f"confidence {value!r} is not a tier", hint="high, medium or low"
                    )
                value = tier
            _assign(note.frontmatter, parts, value)
        if body is not None:
            note.body = body
        if render_note(note) == before:
            return UpdateResult(found.id, found.path, None)
        note.frontmatter["updated"] = self.clock()
        check_note(note, found.path)
        message = self._message(
            messages.chore_subject("update", found.id), "update", [found.id], note.tier
        )
        sha = self._commit([write(found.path, render_note(note))], message, tree)
        return UpdateResult(found.id, found.path, sha)

    @_retrying
    def confirm(self, ident: str, source: str) -> ConfirmResult:
        """Count one more proof from ``source``; a source already counted changes nothing."""
        if not source.strip():
            raise UsageError("--source must not be empty", hint="for example --source pr-123")
        tree = self._tree()
        found = self.get(ident, ("live",), tree)
        note = parse_note(found.data, found.path)
        prov = note.frontmatter.get("provenance")
        if prov is None:
            prov = {}
        if not isinstance(prov, dict):
            raise NoteError(f"{found.path}: provenance is not a mapping", hint="fix it by hand")
        count = prov.get("proof_count")
        count = count if isinstance(count, int) and not isinstance(count, bool) else 1
        sources = prov.get("sources")
        sources = list(sources) if isinstance(sources, list) else []
        if source in sources:
            return ConfirmResult(found.id, count, None)
        sources.append(source)
        prov["proof_count"] = count + 1
        prov["sources"] = sources
        note.frontmatter["provenance"] = prov
        check_note(note, found.path)
        message = self._message(
            messages.chore_subject("confirm", found.id),
            "confirm",
            [found.id],
            note.tier,
            extra=[("Reflect-Proof", source)],
        )
        sha = self._commit([write(found.path, render_note(note))], message, tree)
        return ConfirmResult(found.id, count + 1, sha)

    # ------------------------------------------------------------------ moves

    def _move(
        self,
        ident: str,
        from_states: Sequence[str],
        to_state: str,
        op: str,
        extra: Iterable[tuple[str, str]] = (),
    ) -> MoveResult:
        tree = self._tree()
        found = self.get(ident, from_states, tree)
        assert tree is not None
        name = found.path.rsplit("/", 1)[-1]
        dest = f"{STATE_FOLDERS[to_state]}/{name}"
        dest_side = sidecar_path_for(dest)
        for target in (dest, dest_side):
            if self.store.read_at_tree(tree, target) is not None:
                raise ConflictError(
                    f"{target} already exists; {op} would overwrite it",
                    hint=f"look at both notes (`reflect-git show {ident}`) and remove one",
                )
        changes = [delete(found.path), write(dest, found.data)]
        if found.sidecar is not None:
            changes += [delete(found.sidecar_path), write(dest_side, found.sidecar)]
        message = self._message(messages.chore_subject(op, found.id), op, [found.id], extra=extra)
        return MoveResult(found.id, dest, self._commit(changes, message, tree))

    @_retrying
    def archive(self, ident: str) -> MoveResult:
        """Move a live note and its sidecar to ``archived/``."""
        return self._move(ident, ("live",), "archived", "archive")

    @_retrying
    def restore(self, ident: str) -> MoveResult:
        """Move an archived note and its sidecar back to ``documents/``."""
        return self._move(ident, ("archived",), "live", "restore")

    @_retrying
    def forget(self, ident: str, reason: str | None = None) -> ForgetResult:
        """Move a note (live or archived) to ``.forgotten/`` now; the commit names id and reason."""
        why = messages.one_line(reason or "on request")
        moved = self._move(
            ident, ("live", "archived"), "forgotten", "forget", extra=[("Reflect-Reason", why)]
        )
        return ForgetResult([moved.id], moved.commit)

    @_retrying
    def sweep(self, now: dt.datetime | None = None, dry_run: bool = False) -> ForgetResult:
        """Forget every note whose ``forget_after`` has passed, in one commit."""
        moment = now or self.clock()
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.timezone.utc)
        tree = self._tree()
        if not tree:
            return ForgetResult([], None, dry_run)
        due: list[tuple[str, str, bytes]] = []
        for state in ("live", "archived"):
            for path, blob in sorted(self.store.list_tree(tree, STATE_FOLDERS[state]).items()):
                if not _is_note_path(path):
                    continue
                data = self.store.read_blob(blob)
                if b"forget_after:" not in data:
                    continue
                try:
                    note = parse_note(data, path)
                except NoteError:
                    continue
                when = parse_instant(note.frontmatter.get("forget_after"))
                if when is not None and when <= moment:
                    due.append((note_id(note, path), path, data))
        ids = [d[0] for d in due]
        if dry_run or not due:
            return ForgetResult(ids, None, dry_run)
        changes: list[Change] = []
        for _ident, path, data in due:
            dest = f"{FORGOTTEN}/{path.rsplit('/', 1)[-1]}"
            if self.store.read_at_tree(tree, dest) is not None:
                raise ConflictError(f"{dest} already exists", hint="remove the older copy first")
            changes += [delete(path), write(dest, data)]
            side = sidecar_path_for(path)
            side_data = self.store.read_at_tree(tree, side)
            if side_data is not None:
                changes += [delete(side), write(sidecar_path_for(dest), side_data)]
        what = ids[0] if len(ids) == 1 else f"{len(ids)} notes"
        message = self._message(
            messages.chore_subject("forget", what),
            "forget",
            ids,
            extra=[("Reflect-Reason", "forget_after passed")],
        )
        return ForgetResult(ids, self._commit(changes, message, tree))

    # ------------------------------------------------------------------ supersede

    @_retrying
    def supersede(self, old: str, new: str) -> SupersedeResult:
        """Record that ``new`` replaces ``old``: ``superseded_by`` and ``supersedes``, one commit."""
        if old == new:
            raise UsageError("a note cannot supersede itself")
        tree = self._tree()
        old_at = self.get(old, ("live", "archived"), tree)
        new_at = self.get(new, ("live",), tree)
        old_note = parse_note(old_at.data, old_at.path)
        new_note = parse_note(new_at.data, new_at.path)
        old_note.frontmatter["superseded_by"] = new_at.id
        current = new_note.frontmatter.get("supersedes")
        if current is None or current == old_at.id:
            new_note.frontmatter["supersedes"] = old_at.id
        elif isinstance(current, list):
            if old_at.id not in current:
                new_note.frontmatter["supersedes"] = [*current, old_at.id]
        else:
            new_note.frontmatter["supersedes"] = [current, old_at.id]
        check_note(old_note, old_at.path)
        check_note(new_note, new_at.path)
        message = self._message(
            messages.chore_subject("supersede", old_at.id),
            "supersede",
            [old_at.id, new_at.id],
        )
        changes = [
            write(old_at.path, render_note(old_note)),
            write(new_at.path, render_note(new_note)),
        ]
        return SupersedeResult(old_at.id, new_at.id, self._commit(changes, message, tree))

    # ------------------------------------------------------------------ undo

    def undo(self) -> UndoResult:
        """Revert the newest commit on the current branch, if reflect-git made it."""
        branch = self.store.current_branch()
        if branch is None:
            raise ConflictError("HEAD is detached", hint="check out a branch (`git switch main`)")
        tip = self.store.tip(branch)
        if tip is None:
            raise NotFoundError(f"branch {branch} has no commits yet; nothing to undo")
        info = self.store.commit_info(tip)
        parsed = messages.parse(info.message)
        if not parsed.is_ours:
            raise ConflictError(
                f"the newest commit on {branch} ({tip[:12]} {parsed.subject!r}) was not made by "
                "reflect-git; undo only reverts reflect-git's own commits",
                hint=f"use `git revert {tip[:12]}` to revert it yourself",
            )
        if not info.parents:
            raise ConflictError(
                f"{tip[:12]} is the first commit of {branch}; there is nothing before it",
                hint="remove the repository if you want to start over",
            )
        parent_tree = self.store.commit_info(info.parents[0]).tree
        changes: list[Change] = []
        for path, old_blob, _new in self.store.diff_trees(parent_tree, info.tree):
            if old_blob is None:
                changes.append(delete(path))
            else:
                changes.append(write(path, self.store.read_blob(old_blob)))
        subject = f'Revert "{parsed.subject}"'
        message = self._message(
            subject,
            "undo",
            parsed.ids,
            body=f"This reverts commit {tip}.",
            extra=[("Reflect-Reverts", tip)],
        )
        try:
            sha = self.store.commit(changes, message, parent=tip, allow_empty=True)
        except ConflictError as exc:
            if "on top of another commit" in exc.message:
                raise ConflictError(
                    f"{branch} moved while undo was running", hint="run `reflect-git undo` again"
                ) from None
            raise
        assert sha is not None
        return UndoResult(tip, sha, parsed.subject, parsed.ids)

    # ------------------------------------------------------------------ reading

    def list_notes(
        self,
        include_all: bool = False,
        confidence: str | None = None,
        tag: str | None = None,
    ) -> list[NoteSummary]:
        """Notes on the branch (live ones unless ``include_all``), filtered by tier and tag."""
        tier_filter = None
        if confidence is not None:
            tier_filter = normalize_tier(confidence)
            if tier_filter is None:
                raise UsageError(
                    f"--confidence {confidence!r} is not a tier", hint="high|medium|low"
                )
        tree = self._tree()
        if not tree:
            return []
        states = ("live", "archived", "forgotten") if include_all else ("live",)
        out: list[NoteSummary] = []
        for state in states:
            for path, blob in sorted(self.store.list_tree(tree, STATE_FOLDERS[state]).items()):
                if not _is_note_path(path):
                    continue
                summary = _summary(self.store.read_blob(blob), path, state)
                if tier_filter and summary.confidence != tier_filter:
                    continue
                if tag and tag not in summary.tags:
                    continue
                out.append(summary)
        return out

    def show(self, ident: str, at: str | None = None) -> ShownNote:
        """One note now, or as it was at a revision or a date."""
        rev = self._revision(at) if at else self.store.head()
        if rev is None:
            raise NotFoundError("the KB has no commits yet", hint="add a note first")
        tree = self.store.commit_info(rev).tree
        found = self.find(ident, ("live", "archived", "forgotten"), tree)
        if found is None:
            when = f" at {at}" if at else ""
            raise NotFoundError(f"no note with id {ident!r}{when}", hint="`reflect-git list --all`")
        note = parse_note(found.data, found.path)
        side = None
        if found.sidecar is not None:
            try:
                side = json_value(parse_sidecar(found.sidecar, found.sidecar_path).data)
            except NoteError:
                side = None
        return ShownNote(
            found.id, found.path, found.state, json_value(note.frontmatter), note.body, side, rev
        )

    def _revision(self, at: str) -> str:
        sha = self.store.resolve(at)
        if sha is not None:
            return sha
        moment = parse_instant(at)
        if moment is None:
            raise NotFoundError(
                f"{at!r} is neither a revision nor a date",
                hint="use a branch, tag, sha, or a date such as 2026-03-04 or 2026-03-04T10:00Z",
            )
        if len(at.strip()) == 10:  # a bare date means the end of that day
            moment += dt.timedelta(days=1) - dt.timedelta(seconds=1)
        for info in self.store.log():
            if info.commit_time <= moment:
                return info.sha
        raise NotFoundError(f"the KB has no commit at or before {at}")

    def log(self, ident: str | None = None, limit: int | None = None) -> list[LogEntry]:
        """reflect-git's own commits on the branch, newest first, from their trailers."""
        out: list[LogEntry] = []
        if self.store.head() is None:
            return out
        for info in self.store.log():
            if not messages.is_ours(info.message):
                continue
            parsed = messages.parse(info.message)
            if ident is not None and ident not in parsed.ids:
                continue
            out.append(
                LogEntry(
                    info.sha, parsed.op, parsed.ids, parsed.subject, info.author_time.isoformat()
                )
            )
            if limit is not None and len(out) >= limit:
                break
        return out

    # ------------------------------------------------------------------ import, export

    def import_notes(
        self,
        source: str | os.PathLike[str],
        progress: Progress | None = None,
        batch: int = IMPORT_BATCH,
    ) -> ImportResult:
        """Bulk-import a folder of notes or an export tarball, skipping what is already there."""
        src = Path(source)
        if not src.exists():
            raise NotFoundError(f"{src} does not exist", hint="name a folder of notes or an export")
        entries = _tar_entries(src) if src.is_file() else _folder_entries(src)
        notes = {p: d for p, d in entries.items() if _is_note_path(p)}
        tree = self._tree()
        existing = {}
        if tree:
            for state in ("live", "archived"):
                existing.update(self.store.list_tree(tree, STATE_FOLDERS[state]))
        existing_stems = {_stem(p): (p, b) for p, b in existing.items() if _is_note_path(p)}
        imported: list[str] = []
        skipped: list[Skipped] = []
        pending: list[Change] = []
        pending_ids: list[str] = []
        commits: list[str] = []
        seen: set[str] = set()
        total = len(notes)
        from dulwich.objects import Blob

        def flush() -> None:
            if not pending:
                return
            count = len(pending_ids)
            what = f"{count} note" + ("" if count == 1 else "s")
            ids = pending_ids if count <= 20 else []
            message = self._message(
                messages.chore_subject("import", f"{what} from {src.name}"),
                "import",
                ids,
                extra=[("Reflect-Count", str(count))],
            )
            sha = self._commit(pending, message, tree)
            if sha:
                commits.append(sha)
            imported.extend(pending_ids)
            pending.clear()
            pending_ids.clear()

        jobs = [
            (rel, data, entries.get(sidecar_path_for(rel))) for rel, data in sorted(notes.items())
        ]
        for done, (rel, data, side, (ident, problem)) in enumerate(_vet_all(jobs), 1):
            if progress is not None:
                progress(done, total)
            if ident is None:
                skipped.append(Skipped(rel, problem or "invalid"))
                continue
            state = "archived" if rel.split("/", 1)[0] == ARCHIVED else "live"
            if ident in seen:
                skipped.append(Skipped(rel, f"id {ident} appears twice in the import"))
                continue
            if ident in existing_stems:
                _, blob = existing_stems[ident]
                same = Blob.from_string(data).id.decode("ascii") == blob
                reason = "already in the KB" if same else "the id is taken by a different note"
                skipped.append(Skipped(rel, f"{ident}: {reason}"))
                continue
            if problem is not None:  # the note is fine, its sidecar is not
                skipped.append(Skipped(rel, problem))
                continue
            seen.add(ident)
            path = f"{STATE_FOLDERS[state]}/{ident}{NOTE_SUFFIX}"
            pending.append(write(path, data))
            if side is not None:
                pending.append(write(sidecar_path_for(path), side))
            pending_ids.append(ident)
            if len(pending_ids) >= batch:
                flush()
        flush()
        return ImportResult(imported, skipped, commits)

    def export(self, target: str | os.PathLike[str]) -> ExportResult:
        """A deterministic tarball of the notes and sidecars (live and archived) on the branch."""
        tree = self._tree()
        files: dict[str, str] = {}
        if tree:
            for state in ("live", "archived"):
                files.update(
                    (p, b)
                    for p, b in self.store.list_tree(tree, STATE_FOLDERS[state]).items()
                    if _is_note_path(p) or p.endswith(SIDECAR_SUFFIX)
                )
        import io
        import tarfile  # only export and import of a tarball need it; keep start-up lean

        out = Path(target)
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for path in sorted(files):
                data = self.store.read_blob(files[path])
                info = tarfile.TarInfo(path)
                info.size = len(data)
                info.mtime = EXPORT_MTIME
                info.mode = 0o644
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                tar.addfile(info, io.BytesIO(data))
        raw = buffer.getvalue()
        if out.name.endswith((".gz", ".tgz")):
            import gzip

            raw = gzip.compress(raw, mtime=0)
        tmp = out.with_name(f".{out.name}.tmp")
        tmp.write_bytes(raw)
        os.replace(tmp, out)
        return ExportResult(str(out), sum(1 for p in files if _is_note_path(p)))

    # ------------------------------------------------------------------ status

    def status(self) -> StatusResult:
        """Counts by state and tier, the queue, the index, the hooks, and whether the tree is clean."""
        tree = self._tree()
        counts = {"live": 0, "archived": 0, "forgotten": 0, "review_queue": 0}
        tiers = {"high": 0, "medium": 0, "low": 0, "unknown": 0}
        if tree:
            for state in ("live", "archived", "forgotten"):
                files = self.store.list_tree(tree, STATE_FOLDERS[state])
                for path, blob in files.items():
                    if not _is_note_path(path):
                        continue
                    counts[state] += 1
                    if state == "live":
                        tier = _peek_tier(self.store.read_blob(blob))
                        tiers[tier or "unknown"] += 1
            counts["review_queue"] = sum(
                1 for p in self.store.list_tree(tree, REVIEW_QUEUE) if p.endswith(".yaml")
            )
        depth, dead = _queue_counts(self.state_dir)
        hooks = _hooks_installed(self.store)
        tracked: list[str] = []
        if tree:
            for state in ("live", "archived"):
                tracked.extend(self.store.list_tree(tree, STATE_FOLDERS[state]))
        clean = not self.store.dirty_paths(tracked)
        return StatusResult(
            kb=str(self.store.path or self.store.git_dir),
            branch=self.store.current_branch(),
            head=self.store.head(),
            notes=counts,
            tiers=tiers,
            queue_depth=depth,
            dead_letters=dead,
            index=_index_freshness(self),
            hooks=hooks,
            clean=clean,
            pending=self.store.pending(),
        )


# --------------------------------------------------------------------------- module helpers


def _located_error(exc: NoteError, source: str) -> NoteError:
    """A parse error whose message starts ``source:line:col:`` so editors can jump there."""
    message = exc.message
    if exc.line is not None and message.startswith(f"{source}: "):
        where = f"{source}:{exc.line}:{exc.column or 1}: "
        message = where + message[len(source) + 2 :]
    return NoteError(message, exc.hint, line=exc.line, column=exc.column, field=exc.field)


def _parse(data: bytes, source: str) -> Note:
    try:
        return parse_note(data, source)
    except NoteError as exc:
        raise _located_error(exc, source) from None


def _parse_side(data: bytes, source: str) -> dict[str, Any]:
    try:
        return parse_sidecar(data, source).data
    except NoteError as exc:
        raise _located_error(exc, source) from None


def _assign(mapping: dict[str, Any], parts: list[str], value: Any) -> None:
    target = mapping
    for part in parts[:-1]:
        child = target.get(part)
        if child is None:
            child = {}
            target[part] = child
        if not isinstance(child, dict):
            raise UsageError(f"{'.'.join(parts)}: {part} is not a mapping")
        target = child
    target[parts[-1]] = value


def _render_side(data: Mapping[str, Any], ident: str) -> bytes:
    side = dict(data)
    side["document_id"] = ident
    return render_sidecar(Sidecar(side))


def _same_note(existing: bytes, incoming: Note, ident: str, created_defaulted: bool) -> bool:
    """Is ``incoming`` (given id ``ident``) the note already stored as ``existing``?"""
    try:
        old = parse_note(existing, "existing")
    except NoteError:
        return False
    front = dict(incoming.frontmatter)
    front["id"] = ident
    if created_defaulted and "created" in old.frontmatter:
        front["created"] = old.frontmatter["created"]
    for key in ("updated",):
        front.pop(key, None)
    old_front = dict(old.frontmatter)
    old_front.pop("updated", None)
    return render_note(Note(front, incoming.body)) == render_note(Note(old_front, old.body))


def _peek_id(data: bytes) -> str | None:
    """The frontmatter ``id`` by a quick scan (no YAML parse); None when there is none."""
    end = data.find(b"\n---", 3)
    head = data[: end if end > 0 else 4096]
    match = _ID_LINE.search(head)
    if not match:
        return None
    return match.group(1).decode("utf-8", "replace").strip()


_TIER_LINE = re.compile(rb"^confidence:[ \t]*['\"]?([A-Za-z]+)", re.MULTILINE)
_NUM_LINE = re.compile(rb"^confidence_num:[ \t]*([0-9.]+)", re.MULTILINE)


def _peek_tier(data: bytes) -> str | None:
    end = data.find(b"\n---", 3)
    head = data[: end if end > 0 else 4096]
    match = _TIER_LINE.search(head)
    if match:
        return normalize_tier(match.group(1).decode("ascii"))
    num = _NUM_LINE.search(head)
    if num:
        try:
            return tier_of({"confidence_num": float(num.group(1))})
        except ValueError:
            return None
    return None


def _summary(data: bytes, path: str, state: str) -> NoteSummary:
    try:
        note = parse_note(data, path)
    except NoteError:
        return NoteSummary(_stem(path), "", None, path, state)
    tags = note.frontmatter.get("tags")
    return NoteSummary(
        note_id(note, path),
        note.title,
        note.tier,
        path,
        state,
        [str(t) for t in tags] if isinstance(tags, list) else [],
    )


PARALLEL_VET_MIN = 2_000  # notes: from here on, parse and validate in worker processes

Job = tuple[str, bytes, "bytes | None"]  # note path, note bytes, sidecar bytes
Verdict = tuple["str | None", "str | None"]  # (id, None) ok; (None, why) bad; (id, why) bad sidecar


def _vet(job: Job) -> Verdict:
    """Parse and validate one imported note and its sidecar (pure, so it can run anywhere)."""
    rel, data, side = job
    try:
        note = parse_note(data, rel)
        check_note(note, rel)
    except NoteError as exc:
        return None, _first_line(exc.message)
    ident = note_id(note, rel)
    if not is_safe_id(ident):
        return None, f"id {ident!r} is not a safe file name"
    if side is not None:
        side_rel = sidecar_path_for(rel)
        try:
            check_sidecar(parse_sidecar(side, side_rel).data, side_rel)
        except NoteError as exc:
            return ident, "sidecar: " + _first_line(exc.message)
    return ident, None


def _vet_all(jobs: list[Job]) -> Iterator[tuple[str, bytes, bytes | None, Verdict]]:
    """Vet every job, in order; a big import uses every core (YAML parsing is the bulk)."""
    workers = os.cpu_count() or 1
    if len(jobs) < PARALLEL_VET_MIN or workers < 2 or not hasattr(os, "fork"):
        for job in jobs:
            yield (*job, _vet(job))
        return
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(min(workers, 8)) as pool:
        for job, verdict in zip(jobs, pool.imap(_vet, jobs, chunksize=250), strict=True):
            yield (*job, verdict)


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].endswith(":"):
        return f"{lines[0]} {lines[1]}"
    return lines[0] if lines else text


def _folder_entries(root: Path) -> dict[str, bytes]:
    """Notes and sidecars under a folder, keyed by their path relative to it."""
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in filenames:
            if not (name.endswith(NOTE_SUFFIX) or name.endswith(SIDECAR_SUFFIX)):
                continue
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            out[rel] = full.read_bytes()
    return _rebase(out)


def _tar_entries(path: Path) -> dict[str, bytes]:
    import tarfile

    out: dict[str, bytes] = {}
    try:
        tar = tarfile.open(path)  # noqa: SIM115 - closed by the with below
    except tarfile.TarError as exc:
        raise ReflectGitError(
            f"{path} is neither a folder nor a tarball: {exc}",
            hint="give a folder of notes or a file made by `reflect-git export`",
        ) from None
    with tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            name = member.name
            if not (name.endswith(NOTE_SUFFIX) or name.endswith(SIDECAR_SUFFIX)):
                continue
            handle = tar.extractfile(member)
            if handle is not None:
                out[name.lstrip("./")] = handle.read()
    return _rebase(out)


def _rebase(entries: dict[str, bytes]) -> dict[str, bytes]:
    """Keep a KB's ``documents/``/``archived/`` layout; anything else is a flat folder of notes."""
    layout = any(p.split("/", 1)[0] in (DOCUMENTS, ARCHIVED) for p in entries)
    if not layout:
        return entries
    return {p: d for p, d in entries.items() if p.split("/", 1)[0] in (DOCUMENTS, ARCHIVED)}


def _queue_counts(state_dir: Path | None) -> tuple[int, int]:
    """Queue depth and dead letters, when the queue module is installed (else zeros).

    Entries are counted as files, not read: ``status`` must never change the queue.
    """
    if state_dir is None:
        return 0, 0
    try:
        queue_mod = importlib.import_module("reflectgit.state.queue")
    except ImportError:
        return 0, 0
    try:
        queue = queue_mod.Queue(state_dir)
        depth = sum(1 for _ in Path(queue.dir).glob("*.json"))
        dead = sum(1 for _ in Path(queue.dead_dir).glob("*.json"))
    except Exception:  # a queue we cannot read says nothing about the KB itself
        return 0, 0
    return depth, dead


def _index_freshness(kb: KnowledgeBase) -> str:
    try:
        search_mod = importlib.import_module("reflectgit.workflows.search.index")
    except ImportError:
        return "n/a"
    fresh = getattr(search_mod, "freshness", None)
    if callable(fresh) and kb.state_dir is not None:
        try:
            return str(fresh(kb.store, kb.state_dir))
        except Exception:
            return "n/a"
    return "n/a"


def _hooks_installed(store: Store) -> dict[str, bool]:
    hooks_dir = store.common_dir / "hooks"
    try:
        cfg = store.repo.get_config()
        custom = cfg.get((b"core",), b"hooksPath").decode("utf-8")
        hooks_dir = (
            (store.path or store.git_dir) / custom if not os.path.isabs(custom) else Path(custom)
        )
    except KeyError:
        pass
    try:
        text = (hooks_dir / "post-commit").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    pre_commit = store.path is not None and (store.path / ".pre-commit-config.yaml").exists()
    return {
        "post_commit": "reflect-git" in text or "reflectgit" in text,
        "pre_commit_config": pre_commit,
    }
