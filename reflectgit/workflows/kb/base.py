"""The knowledge base handle: finding notes, and THE door every mutation goes through.

``Base.mutate(build)`` is the one way anything in reflect-git writes to a KB (the CLI
commands, import, the drain, capture, routing's review-queue pointers, init):

1. take a ``Snapshot`` of the branch tip; ``build`` reads what it changes through it (every
   read is recorded: path -> blob id, or None for "absent") and returns an ``Edit`` made of
   pure edits (``reflectgit.notes.edit``);
2. validate every note and sidecar the edit writes with bytes it did not read from the
   repository (the schema, in-process, before the commit exists): an invalid note is never
   committed by us;
3. commit through ``Store.commit`` with compare-and-swap on exactly the paths the snapshot
   read plus the paths the edit writes (``expect``);
4. if another writer changed one of those paths in the meantime (``PathChanged``: a
   ``reflect-git update`` made while the drain waited for its model, say), take a new
   snapshot and run ``build`` again on top of the other writer's change, at most ``RETRIES``
   times. Nothing is ever committed from a stale read, so no writer reverts another's edit.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from reflectgit.config import ARCHIVED, DOCUMENTS, FORGOTTEN, SETTINGS_FILE
from reflectgit.errors import NoteError, NotFoundError, RefusedError
from reflectgit.git.change import Change
from reflectgit.git.objects import blob_id
from reflectgit.git.store import PathChanged, Store
from reflectgit.git.worktree import EMPTY_TREE
from reflectgit.notes import messages
from reflectgit.notes.dates import utc_now
from reflectgit.notes.note import (
    Note,
    Sidecar,
    is_safe_id,
    parse_note,
    parse_sidecar,
    render_sidecar,
    sidecar_path_for,
)
from reflectgit.state import leftovers

if TYPE_CHECKING:
    import datetime as dt

    from reflectgit.notes.schema import Problem

NOTE_SUFFIX = ".md"
SIDECAR_SUFFIX = ".entities.yaml"
STATE_FOLDERS = {"live": DOCUMENTS, "archived": ARCHIVED, "forgotten": FORGOTTEN}
NOTE_FOLDERS = frozenset(STATE_FOLDERS.values())
# A mutation that lost a race reads again and re-applies, this many times at most. Each lost
# race means another writer's commit landed, so the loop always makes progress; the jittered
# pause keeps many writers on one note (parallel confirms) from losing to each other in step.
RETRIES = 20
BACKOFF = 0.004  # seconds, times the attempt number, at most
_ID_LINE = re.compile(rb"^id:[ \t]*['\"]?([^'\"\r\n#]+?)['\"]?[ \t]*\r?$", re.MULTILINE)

Clock = Callable[[], "dt.datetime"]
T = TypeVar("T")
B = TypeVar("B", bound="Base")
TIP: Any = object()  # Edit.parent default: "whatever the branch tip is at commit time"


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class Located:
    """A note found on the branch: its id, state, path and bytes (and its sidecar's)."""

    id: str
    state: str
    path: str
    data: bytes
    sidecar_path: str
    sidecar: bytes | None


@dataclass
class Edit(Generic[T]):
    """What a mutation wants: path changes, the commit message, and a value for the caller.

    No changes means nothing to commit (``value`` is returned as it is). ``parent`` pins the
    commit's parent (``undo`` reverts exactly the commit it read; a moved branch is a
    conflict, never a retry).
    """

    value: T
    changes: Sequence[Change] = ()
    message: messages.CommitMessage | None = None
    parent: Any = TIP
    allow_empty: bool = False


@dataclass(frozen=True)
class Committed(Generic[T]):
    """What the door did: the caller's value, the commit (None: nothing changed), attempts."""

    value: T
    commit: str | None
    attempts: int = 1


# --------------------------------------------------------------------------- validation


def _problem_text(problem: Problem) -> str:
    where = f"{problem.file}:{problem.line}:{problem.column}"
    return (
        f"{where}: {problem.field}: {problem.message}"
        if problem.field
        else f"{where}: {problem.message}"
    )


def note_problems(note: Note, path: str) -> list[str]:
    """Validation problems of a parsed note as ``path:line:col: field: message`` strings."""
    # only writes validate (reading commands start faster); writers refuse a secret
    from reflectgit.notes import schema, secrets

    found = schema.validate_note(note, path) + secrets.problems(secrets.note_findings(note), path)
    return [_problem_text(p) for p in found if p.severity == "error"]


def sidecar_problems(
    data: Mapping[str, Any], path: str, origin: Sidecar | None = None
) -> list[str]:
    """Validation problems of sidecar data. ``origin``: the sidecar as parsed from the user's
    file, so lines and columns name that file (else those of the data rendered as YAML)."""
    from reflectgit.notes import schema, secrets

    sidecar = (
        Sidecar(dict(data), origin.origin)
        if origin is not None and origin.origin is not None
        else parse_sidecar(render_sidecar(Sidecar(dict(data))), path)
    )
    found = schema.validate_sidecar(sidecar, path)
    found += secrets.problems(secrets.sidecar_findings(sidecar), path)
    return [_problem_text(p) for p in found if p.severity == "error"]


_NOTE_HINT = "fix the fields named above; `reflect-git validate FILE` shows the same"


def check_note(note: Note, path: str) -> None:
    """Raise ``NoteError`` naming every problem when the note does not validate."""
    problems = note_problems(note, path)
    if problems:
        raise NoteError(
            "invalid note:\n  " + "\n  ".join(problems),
            hint=_hint(problems, _NOTE_HINT),
        )


def check_sidecar(data: Mapping[str, Any], path: str, origin: Sidecar | None = None) -> None:
    problems = sidecar_problems(data, path, origin)
    if problems:
        raise NoteError(
            "invalid sidecar:\n  " + "\n  ".join(problems),
            hint=_hint(problems, "fix the entities and relationships named above"),
        )


def _hint(problems: Sequence[str], default: str) -> str:
    from reflectgit.notes import secrets

    return secrets.HINT if any(secrets.MASK in p for p in problems) else default


def _refuse_secret_message(message: messages.CommitMessage) -> None:
    """Nothing we commit holds a secret: a commit message with one is refused (``NoteError``)."""
    from reflectgit.notes import secrets

    found = secrets.scan(message.render())
    if found:
        where = ", ".join(f"line {f.line}: {f.label}" for f in found)
        raise NoteError(f"the commit message holds a secret ({where})", hint=secrets.HINT)


def kind_of(path: str) -> str | None:
    """``note`` or ``sidecar`` for a path in a note folder (where validation applies)."""
    folder, _, name = path.partition("/")
    if folder not in NOTE_FOLDERS or "/" in name:
        return None
    if name.endswith(SIDECAR_SUFFIX):
        return "sidecar"
    if name.endswith(NOTE_SUFFIX):
        return "note"
    return None


def validate_bytes(path: str, data: bytes) -> None:
    """Refuse (``NoteError``) note or sidecar bytes the schema rejects; other paths pass."""
    kind = kind_of(path)
    if kind == "note":
        from reflectgit.notes.quickcheck import note_is_writable

        if note_is_writable(data):
            return  # plain YAML, valid, no secret: no PyYAML, no jsonschema
        check_note(parse_note(data, path), path)
    elif kind == "sidecar":
        check_sidecar(parse_sidecar(data, path).data, path)


# --------------------------------------------------------------------------- helpers


def stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[: -len(NOTE_SUFFIX)] if name.endswith(NOTE_SUFFIX) else name


def is_note_path(path: str) -> bool:
    return path.endswith(NOTE_SUFFIX)


def note_id(note: Note, path: str) -> str:
    """A note's id: its frontmatter ``id``, else its file stem."""
    return note.id or stem(path)


def peek_id(data: bytes) -> str | None:
    """The frontmatter ``id`` by a quick scan (no YAML parse); None when there is none."""
    end = data.find(b"\n---", 3)
    head = data[: end if end > 0 else 4096]
    match = _ID_LINE.search(head)
    if not match:
        return None
    return match.group(1).decode("utf-8", "replace").strip()


# --------------------------------------------------------------------------- the snapshot


class Snapshot:
    """The branch as one mutation read it. Every read is recorded for compare-and-swap."""

    def __init__(self, kb: Base, attempt: int = 1) -> None:
        self.kb = kb
        self.store = kb.store
        self.attempt = attempt
        branch = self.store.current_branch()
        self.tip: str | None = self.store.tip(branch) if branch else self.store.head()
        self.tree: str | None = self.store.tree_id(self.tip) if self.tip else None
        self.reads: dict[str, str | None] = {}
        self.known_blobs: set[str] = set()  # bytes that came from the repository

    # reading (recorded)

    def blob(self, path: str) -> str | None:
        """The blob id of ``path`` at the snapshot (not recorded)."""
        return self.store.blob_at(self.tree, path) if self.tree else None

    def guard(self, path: str) -> str | None:
        """Record ``path`` as read (the commit fails over if it changes); its blob id."""
        if path not in self.reads:
            self.reads[path] = self.blob(path)
        found = self.reads[path]
        if found is not None:
            self.known_blobs.add(found)
        return found

    def read(self, path: str) -> bytes | None:
        found = self.guard(path)
        return self.store.read_blob(found) if found else None

    def exists(self, path: str) -> bool:
        return self.guard(path) is not None

    def find(
        self, ident: str, states: Sequence[str] = ("live", "archived"), *, scan: bool = True
    ) -> Located | None:
        """The note with this id (see ``Base.find``); its paths are recorded as read."""
        if is_safe_id(ident):
            for state in states:
                self.guard(f"{STATE_FOLDERS[state]}/{ident}{NOTE_SUFFIX}")
        found = self.kb.find(ident, states, self.tree, scan) if self.tree else None
        if found is not None:
            self.guard(found.path)
            self.guard(found.sidecar_path)
        return found

    def get(self, ident: str, states: Sequence[str] = ("live", "archived")) -> Located:
        found = self.find(ident, states)
        if found is None:
            raise not_found(ident, states)
        return found

    # reading (not recorded: listings, history)

    def list(self, folder: str) -> dict[str, str]:
        """path -> blob id under ``folder`` (not recorded: guard what you rely on)."""
        return self.store.list_tree(self.tree, folder) if self.tree else {}

    def entry(self, path: str) -> str | None:
        """The id of the file or folder at ``path``, without reading it (not recorded)."""
        return self.store.entry_id(self.tree, path) if self.tree else None

    def read_blob(self, blob: str) -> bytes:
        self.known_blobs.add(blob)
        return self.store.read_blob(blob)


def not_found(ident: str, states: Sequence[str]) -> NotFoundError:
    where = " or ".join(STATE_FOLDERS[s] + "/" for s in states)
    return NotFoundError(
        f"no note with id {ident!r} in {where}", hint="`reflect-git list --all` shows every id"
    )


# --------------------------------------------------------------------------- the base


class Base:
    """One KB repository. ``source`` goes into the Reflect-Source trailer of our commits."""

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
        self._vetted: set[str] = set()  # blob ids of note/sidecar bytes that passed the schema
        self.adopting = False  # True for ``init`` only: it writes the layout a KB is known by
        self._recognised = False
        self._clone_checked = False
        self.guard_installed: str | None = None  # the pre-push hook this KB put in, if any

    @classmethod
    def open(
        cls: type[B],
        path: str | os.PathLike[str],
        *,
        env: Mapping[str, str] | None = None,
        state_dir: Path | None = None,
        source: str = "cli",
        clock: Clock = utc_now,
    ) -> B:
        """Open the KB at ``path`` (a git repository)."""
        return cls(Store.open(path, env=env), state_dir=state_dir, source=source, clock=clock)

    def close(self) -> None:
        self.store.close()

    def __enter__(self: B) -> B:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ THE door

    def mutate(
        self, build: Callable[[Snapshot], Edit[T]], *, retries: int = RETRIES
    ) -> Committed[T]:
        """Read, edit, validate, commit with compare-and-swap; re-read and re-apply on a race.

        ``build`` must be a function of the snapshot alone (it runs again on a lost race).
        """
        leftovers.remove(leftovers.stale(self.store.temporaries()))  # a dead writer's (issue 18)
        for attempt in range(1, retries + 1):
            snap = Snapshot(self, attempt)
            self._refuse_foreign(snap)
            edit = build(snap)
            if not edit.changes and not edit.allow_empty:
                return Committed(edit.value, None, attempt)
            if edit.message is None:
                raise ValueError("an edit with changes needs a commit message")
            self._validate(edit.changes, snap)
            _refuse_secret_message(edit.message)
            self._guard_clone()
            expect = dict(snap.reads)
            for change in edit.changes:
                expect.setdefault(change.path, snap.blob(change.path))
            options: dict[str, Any] = {"expect": expect, "allow_empty": edit.allow_empty}
            if edit.parent is not TIP:
                options["parent"] = edit.parent
            try:
                sha = self.store.commit(edit.changes, edit.message, **options)
            except PathChanged:
                if attempt == retries:
                    raise
                import random  # only a lost race pauses (1 ms of imports an add never pays)

                time.sleep(random.uniform(0, BACKOFF * attempt))
                continue
            self._changed()
            return Committed(edit.value, sha, attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    def _guard_clone(self) -> None:
        """Before the first commit: when this KB is a clone of the team KB (its branch follows
        the team's), make sure the pre-push guard is installed, so a plain ``git push`` cannot
        publish a note below high confidence that nobody reviewed (``team guard``).

        A KB whose git config names no remote (``git init``) is answered from that one file.
        """
        if self._clone_checked:
            return
        self._clone_checked = True
        if self.store.path is None or not self.store.may_follow_a_remote():
            return
        from reflectgit.config import Config
        from reflectgit.workflows.team import GUARD_SETTING, ensure_guard

        try:
            result = ensure_guard(Config.resolve(self.store.path, self.store.env))
        except OSError as exc:
            raise RefusedError(
                f"cannot install the pre-push guard this clone of the team KB needs: {exc}",
                hint="run `reflect-git team guard` once the hooks folder is writable "
                f"(or `git config {GUARD_SETTING} false` to go without); nothing was written",
            ) from None
        if result is not None:
            self.guard_installed = result.hook

    def _changed(self) -> None:
        """After a commit, in the background: git's automatic housekeeping when it is due
        (as ``git commit`` runs it), the enforced rules compiled again."""
        from reflectgit.git import housekeeping
        from reflectgit.workflows.background import after_commit

        kb = self.store.path or self.store.git_dir
        state_dir = os.fspath(self.state_dir) if self.state_dir is not None else None
        after_commit(kb, self.store.env, state_dir, housekeeping_due=housekeeping.due(self.store))

    def _refuse_foreign(self, snap: Snapshot) -> None:
        """Refuse to write into a repository that is not a KB (a mistyped ``--kb``).

        A KB is known by its layout: ``.reflect-git.toml`` or a note folder on the branch tip
        or in the work tree. A repository without commits (or with an empty tree) is a new KB,
        nothing to pollute; one with files and no layout is somebody's project, so nothing is
        written there.
        """
        # Git keeps no empty folders, so a tree other than the empty one holds a file, and a
        # folder entry holds one too: the root tree alone answers (a 10,000-note documents/
        # is never listed, which cost an `add` 70 ms).
        if self._recognised or self.adopting or snap.tree in (None, EMPTY_TREE):
            return  # no commits, or nothing committed but empty commits: nothing to pollute
        marks = (SETTINGS_FILE, *NOTE_FOLDERS)
        work = self.store.path
        if any(snap.entry(m) is not None for m in marks) or (
            work is not None and any((work / m).exists() for m in marks)
        ):
            self._recognised = True
            return
        where = work if work is not None else self.store.git_dir
        raise RefusedError(
            f"{where} is a git repository but not a reflect-git knowledge base "
            f"(no {SETTINGS_FILE}, no {DOCUMENTS}/ folder); nothing was written",
            hint=f"run `reflect-git init {where}` to make it one, or pass --kb PATH "
            "(check REFLECT_GIT_KB)",
        )

    def write_files(self, changes: Sequence[Change], message: messages.CommitMessage) -> str | None:
        """Commit fixed changes through the door (settings files, scaffolds, pointers)."""
        return self.mutate(lambda _snap: Edit(None, changes, message)).commit

    def vetted(self, blobs: Iterable[str]) -> None:
        """Blob ids that passed ``validate_bytes`` elsewhere in this process (import's workers)."""
        self._vetted.update(blobs)

    def _validate(self, changes: Sequence[Change], snap: Snapshot) -> None:
        for change in changes:
            if change.data is None or kind_of(change.path) is None:
                continue
            blob = blob_id(change.data)
            if blob in snap.known_blobs or blob in self._vetted:
                continue  # a move of bytes the repository already holds, or vetted already
            validate_bytes(change.path, change.data)
            self._vetted.add(blob)

    # ------------------------------------------------------------------ finding notes

    def message(
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
                    fm_id = peek_id(data)
                    if fm_id is None or fm_id == ident:
                        return self._located(tree, ident, state, path, data)
        if not scan:
            return None
        # Slow path: an id that is not the file name (drain notes, hand-written ones).
        raw = ident.encode("utf-8")
        for state in states:
            files = self.store.list_tree(tree, STATE_FOLDERS[state])
            for path, blob in sorted(files.items()):
                if not is_note_path(path):
                    continue
                data = self.store.read_blob(blob)
                fm_id = peek_id(data)
                if fm_id == ident or (fm_id is None and stem(path) == ident):
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
        for link in (p for p in (path, side) if self.store.is_link(tree, p)):
            raise RefusedError(
                f"{link} is a symbolic link committed in the repository, not a note; "
                "reflect-git does not read, move or rewrite links",
                hint=f"replace the link by the note itself (`git rm {link}`, then add the note "
                "again with `reflect-git add`), or remove it",
            )
        return Located(ident, state, path, data, side, self.store.read_at_tree(tree, side))

    def get(
        self, ident: str, states: Sequence[str] = ("live", "archived"), tree: str | None = None
    ) -> Located:
        found = self.find(ident, states, tree)
        if found is None:
            raise not_found(ident, states)
        return found


__all__ = [
    "Base",
    "Committed",
    "Edit",
    "Located",
    "Snapshot",
    "check_note",
    "check_sidecar",
]
