"""Reading the KB: list, show (now or at a revision or date), log. Nothing here writes."""

from __future__ import annotations

import datetime as dt
import difflib
from dataclasses import dataclass, field
from typing import Any

from reflectgit.errors import NoteError, NotFoundError, UsageError
from reflectgit.notes import messages
from reflectgit.notes.dates import format_timestamp, is_bare_date, parse_instant
from reflectgit.notes.note import normalize_tier, note_state, parse_note, parse_sidecar
from reflectgit.workflows.kb.base import STATE_FOLDERS, Base, is_note_path, note_id, stem


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

    def to_json(self) -> dict[str, Any]:
        """The one JSON form of a shown note (`show --json`, the MCP `show` tool, the web API)."""
        return {
            "id": self.id,
            "path": self.path,
            "state": self.state,
            "revision": self.revision,
            "frontmatter": self.frontmatter,
            "body": self.body,
            "sidecar": self.sidecar,
        }


@dataclass(frozen=True)
class Revision:
    """One commit that changed a note: its trailers, where the note was after it, the diff."""

    commit: str
    subject: str
    date: str
    author: str
    trailers: list[tuple[str, str]]
    path: str | None  # where the note is after this commit (None: it left the KB)
    diff: str  # unified diff of the note file against the commit's first parent


@dataclass(frozen=True)
class LogEntry:
    commit: str
    op: str | None  # None: a commit reflect-git did not make (``log(everyone=True)``)
    ids: list[str]
    subject: str
    date: str
    author: str = ""
    trailers: tuple[tuple[str, str], ...] = ()

    def trailer(self, key: str) -> str | None:
        return next((v for k, v in self.trailers if k == key), None)


def json_value(value: Any) -> Any:
    """Frontmatter as JSON-ready data: dates and timestamps as ISO strings."""
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_value(v) for v in value]
    if isinstance(value, dt.datetime):
        return format_timestamp(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def _summary(data: bytes, path: str, state: str) -> NoteSummary:
    try:
        note = parse_note(data, path)
    except NoteError:
        return NoteSummary(stem(path), "", None, path, state)
    tags = note.frontmatter.get("tags")
    return NoteSummary(
        note_id(note, path),
        note.title,
        note.tier,
        path,
        note_state(state, note.frontmatter),  # the state search and recall see too
        [str(t) for t in tags] if isinstance(tags, list) else [],
    )


class Reading(Base):
    """list, show, log."""

    def list_notes(
        self,
        include_all: bool = False,
        confidence: str | None = None,
        tag: str | None = None,
    ) -> list[NoteSummary]:
        """Notes on the branch (live ones unless ``include_all``), filtered by tier and tag.

        A note in ``documents/`` that is superseded (or retired by its ``status``) is not live:
        ``list``, ``search`` and ``recall`` read its state with one function (``note_state``).
        """
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
                if not is_note_path(path):
                    continue
                summary = _summary(self.store.read_blob(blob), path, state)
                if not include_all and summary.state != "live":
                    continue
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
        state = note_state(found.state, note.frontmatter)
        return ShownNote(
            found.id, found.path, state, json_value(note.frontmatter), note.body, side, rev
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
        if is_bare_date(at):  # a bare date means the end of that day
            moment += dt.timedelta(days=1) - dt.timedelta(seconds=1)
        first = None
        for info in self.store.log():
            if info.commit_time <= moment:
                return info.sha
            first = info
        raise NotFoundError(
            f"the KB has no commit at or before {at}",
            hint=(
                f"its first commit is from {first.commit_time.isoformat()}: give a date on or "
                "after it (`reflect-git log` lists the commits)"
                if first is not None
                else "the KB has no commits yet"
            ),
        )

    def log(
        self,
        ident: str | None = None,
        limit: int | None = None,
        *,
        op: str | None = None,
        everyone: bool = False,
    ) -> list[LogEntry]:
        """reflect-git's own commits on the branch, newest first, from their trailers; only
        those of one operation with ``op``; with ``everyone`` (and no ``ident`` or ``op``) the
        commits people made with plain git too (their ``op`` is None)."""
        out: list[LogEntry] = []
        if self.store.head() is None:
            return out
        for info in self.store.log():
            ours = messages.is_ours(info.message)
            if not ours and not (everyone and ident is None and op is None):
                continue
            parsed = messages.parse(info.message)
            if ident is not None and ident not in parsed.ids:
                continue
            if op is not None and parsed.op != op:
                continue
            out.append(
                LogEntry(
                    info.sha,
                    parsed.op if ours else None,
                    parsed.ids if ours else [],
                    parsed.subject,
                    info.author_time.isoformat(),
                    info.author,
                    tuple(parsed.trailers) if ours else (),
                )
            )
            if limit is not None and len(out) >= limit:
                break
        return out

    def history(self, ident: str, limit: int = 50) -> list[Revision]:
        """The commits that changed a note (in any state folder), newest first, with diffs.

        Ours and plain-git ones alike; an archive or a restore shows as a move. A commit
        reflect-git made names the notes it changed in its ``Reflect-Id`` trailers (one
        mutation, one commit), so its message answers; any other commit (and one of ours that
        names no id, a large import) is compared with its first parent, folder by folder, and
        only a folder that changed is read. Walking 10,000-note trees for every commit would
        cost seconds; this costs a commit object per commit (``Store.folder_changes``).
        """
        if self.store.head() is None:
            return []
        paths = [f"{folder}/{ident}.md" for folder in STATE_FOLDERS.values()]
        found = self.find(ident, ("live", "archived", "forgotten"))
        if found is not None and found.path not in paths:
            paths.append(found.path)  # a hand-named file
        out: list[Revision] = []
        head = self.store.head()
        info = self.store.commit_info(head) if head else None
        while info is not None and len(out) < limit:
            # main's own line (first parents): a review merge shows once, as the merge
            up = self.store.commit_info(info.parents[0]) if info.parents else None
            this, info = info, up
            parsed = messages.parse(this.message)
            if messages.is_ours(this.message) and parsed.ids and ident not in parsed.ids:
                continue
            change = self._note_change(this.tree, up.tree if up else None, paths)
            if change is None:
                continue
            (old_path, old_blob), (new_path, new_blob) = change
            diff = "".join(
                difflib.unified_diff(
                    self._text(old_blob),
                    self._text(new_blob),
                    fromfile=f"a/{old_path}" if old_path else "/dev/null",
                    tofile=f"b/{new_path}" if new_path else "/dev/null",
                )
            )
            if not diff and old_path != new_path:
                diff = f"rename {old_path} -> {new_path}\n"
            out.append(
                Revision(
                    this.sha,
                    parsed.subject,
                    this.author_time.isoformat(),
                    this.author,
                    list(parsed.trailers),
                    new_path,
                    diff,
                )
            )
        return out

    def _note_change(
        self, tree: str, parent: str | None, paths: list[str]
    ) -> tuple[tuple[str | None, str | None], tuple[str | None, str | None]] | None:
        """((old path, old blob), (new path, new blob)) when the commit changed the note."""
        names: dict[str, set[str]] = {}
        for path in paths:
            folder, _, name = path.rpartition("/")
            names.setdefault(folder, set()).add(name)
        old: tuple[str | None, str | None] = (None, None)
        new: tuple[str | None, str | None] = (None, None)
        for folder, wanted in names.items():
            here = self.store.entry_id(tree, folder)
            there = self.store.entry_id(parent, folder) if parent else None
            if here == there:
                continue  # the folder did not change: its (large) tree is not even read
            if here is None or there is None:  # the folder came or went: look the names up
                found = {
                    n: (
                        self.store.entry_id(parent, f"{folder}/{n}") if parent and there else None,
                        self.store.entry_id(tree, f"{folder}/{n}") if here else None,
                    )
                    for n in wanted
                }
            else:
                found = self.store.folder_changes(parent, tree, folder)
            for name, (before, after) in found.items():
                if name in wanted:
                    if before is not None:
                        old = (f"{folder}/{name}", before)
                    if after is not None:
                        new = (f"{folder}/{name}", after)
        if old == (None, None) and new == (None, None):
            return None
        return old, new

    def _text(self, blob: str | None) -> list[str]:
        if blob is None:
            return []
        return self.store.read_blob(blob).decode("utf-8", "replace").splitlines(keepends=True)
