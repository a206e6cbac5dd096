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
    op: str | None
    ids: list[str]
    subject: str
    date: str


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

    def history(self, ident: str, limit: int = 50) -> list[Revision]:
        """The commits that changed a note (any state folder), newest first, with diffs.

        Ours and plain-git ones alike: the walk follows the note's paths in documents/,
        archived/ and .forgotten/, so an archive or a restore shows as a move.
        """
        if self.store.head() is None:
            return []
        paths = [f"{folder}/{ident}.md" for folder in STATE_FOLDERS.values()]
        found = self.find(ident, ("live", "archived", "forgotten"))
        if found is not None and found.path not in paths:
            paths.append(found.path)  # a hand-named file
        out: list[Revision] = []
        for info in self.store.log(limit=limit, paths=paths):
            after = self._note_text(info.tree, paths)
            before: tuple[str | None, str] = (None, "")
            if info.parents:
                before = self._note_text(self.store.commit_info(info.parents[0]).tree, paths)
            diff = "".join(
                difflib.unified_diff(
                    before[1].splitlines(keepends=True),
                    after[1].splitlines(keepends=True),
                    fromfile=f"a/{before[0]}" if before[0] else "/dev/null",
                    tofile=f"b/{after[0]}" if after[0] else "/dev/null",
                )
            )
            if not diff and before[0] != after[0]:
                diff = f"rename {before[0]} -> {after[0]}\n"
            parsed = messages.parse(info.message)
            out.append(
                Revision(
                    info.sha,
                    parsed.subject,
                    info.author_time.isoformat(),
                    info.author,
                    list(parsed.trailers),
                    after[0],
                    diff,
                )
            )
        return out

    def _note_text(self, tree: str, paths: list[str]) -> tuple[str | None, str]:
        for path in paths:
            data = self.store.read_at_tree(tree, path)
            if data is not None:
                return path, data.decode("utf-8", "replace")
        return None, ""
