"""The low-confidence review queue: ``review-queue/<slug>.yaml`` pointers in the personal KB.

``route`` of a low note (or of any note when no team is configured) writes a pointer; here a
person lists them, promotes a note (its confidence goes up and its pointer goes, in one
commit) or drops a pointer (the note stays as it is). A note that reaches the team (a high
route to main, a medium route to a knowledge branch) loses its pointer too, in one commit.
Every change goes through the KB's one mutation door.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from reflectgit.config import REVIEW_QUEUE, Config
from reflectgit.errors import NoteError, NotFoundError, UsageError
from reflectgit.notes import authorship, messages
from reflectgit.notes.note import load_yaml, normalize_tier, parse_note, render_note

PROMOTE_TIERS = ("medium", "high")


@dataclass(frozen=True)
class QueueItem:
    """One pointer, and the note it points at (when the KB still holds it)."""

    path: str
    slug: str
    title: str
    source: str
    confidence: str | None
    queued_at: str | None
    id: str | None
    present: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "slug": self.slug,
            "title": self.title,
            "source": self.source,
            "confidence": self.confidence,
            "queued_at": self.queued_at,
            "id": self.id,
            "present": self.present,
        }


@dataclass
class QueueResult:
    """What promote or drop did."""

    action: str  # "promote" | "drop"
    pointer: str
    id: str | None
    commit: str | None
    confidence: str | None = None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "pointer": self.pointer,
            "id": self.id,
            "confidence": self.confidence,
            "commit": self.commit,
            "notes": self.notes,
        }


def _pointer(raw: bytes, path: str) -> Mapping[str, Any]:
    try:
        data = load_yaml(raw.decode("utf-8"), path)
    except (NoteError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, Mapping) else {}


def _note_id(read: Any, source: str) -> tuple[str | None, bool]:
    """The id of the note a pointer names (its frontmatter id, else its stem), and is it there."""
    if source.startswith("/") or not source.endswith(".md"):
        return None, False
    raw = read(source)
    if raw is None:
        return PurePosixPath(source).stem, False
    try:
        return parse_note(raw, source).id or PurePosixPath(source).stem, True
    except NoteError:
        return PurePosixPath(source).stem, True


def _items(snap: Any) -> list[QueueItem]:
    out = []
    for path, blob in sorted(snap.list(REVIEW_QUEUE).items()):
        if not path.endswith(".yaml"):
            continue
        data = _pointer(snap.read_blob(blob), path)
        source = str(data.get("source") or "")
        note_id, present = _note_id(snap.read, source)
        out.append(
            QueueItem(
                path=path,
                slug=str(data.get("slug") or PurePosixPath(path).stem),
                title=str(data.get("title") or ""),
                source=source,
                confidence=normalize_tier(data.get("confidence")),
                queued_at=str(data["queued_at"]) if data.get("queued_at") else None,
                id=note_id,
                present=present,
            )
        )
    return out


def list_queue(cfg: Config) -> list[QueueItem]:
    """Every pointer in the personal KB's review queue."""
    from reflectgit.workflows.kb import KnowledgeBase
    from reflectgit.workflows.kb.base import Snapshot

    with KnowledgeBase.open(cfg.kb, env=cfg.env, source="cli") as kb:
        return _items(Snapshot(kb))


def _pick(items: list[QueueItem], ident: str) -> QueueItem:
    """A pointer by the note's id, the pointer's slug, or its path."""
    for item in items:
        if ident in {item.id, item.slug, item.path, PurePosixPath(item.path).stem}:
            return item
    raise NotFoundError(
        f"nothing in the review queue for {ident!r}",
        hint="see what is queued with `reflect-git review queue list`",
    )


def promote(cfg: Config, ident: str, tier: str = "medium", source: str = "cli") -> QueueResult:
    """Raise the note's confidence to ``tier`` and remove its pointer, in one commit
    (``source``: the commit's ``Reflect-Source``, the interface that asked)."""
    from reflectgit.git.change import delete, write
    from reflectgit.notes.dates import utc_now
    from reflectgit.workflows.kb import KnowledgeBase
    from reflectgit.workflows.kb.base import Edit, Snapshot

    if tier not in PROMOTE_TIERS:
        raise UsageError(
            f"--to {tier!r}: promote to medium or high", hint="for example --to medium"
        )
    now = utc_now()

    def build(snap: Snapshot) -> Edit[QueueResult]:
        item = _pick(_items(snap), ident)
        snap.guard(item.path)
        if not item.present:
            raise NotFoundError(
                f"{item.path} points at {item.source or '(nothing)'}, which the KB does not hold",
                hint=f"drop the pointer: `reflect-git review queue drop {item.slug}`",
            )
        raw = snap.read(item.source)
        assert raw is not None
        note = parse_note(raw, item.source)
        note.frontmatter["confidence"] = tier
        if "confidence_num" in note.frontmatter:
            note.frontmatter.pop("confidence_num")  # the tier now speaks; an old number would not
        note.frontmatter["updated"] = now
        extra = [("Reflect-Promoted", item.path)]
        if source in authorship.PERSON_SOURCES:  # a person's promote reviews a machine's note
            reviewer = snap.store.author()
            reviewed = authorship.mark_reviewed(note, reviewer, now)
            if reviewed is not None:
                note = reviewed
                extra.append((authorship.REVIEWED_BY_TRAILER, reviewer))
        message = messages.build(
            messages.chore_subject("review-queue", f"promote {item.id} to {tier}"),
            "review-queue",
            [item.id] if item.id else [],
            confidence=tier,
            source=source,
            extra=extra,
        )
        result = QueueResult("promote", item.path, item.id, None, tier)
        changes = [write(item.source, render_note(note)), delete(item.path)]
        return Edit(result, changes, message)

    with KnowledgeBase.open(cfg.kb, env=cfg.env, source=source) as kb:
        done = kb.mutate(build)
    result = done.value
    result.commit = done.commit
    result.notes.append(
        f"route it to the team with `reflect-git route {result.id}`"
        if result.id
        else "route it to the team with `reflect-git route`"
    )
    return result


def drop(cfg: Config, ident: str, source: str = "cli") -> QueueResult:
    """Remove a pointer from the queue; the note itself stays as it is."""
    from reflectgit.git.change import delete
    from reflectgit.workflows.kb import KnowledgeBase
    from reflectgit.workflows.kb.base import Edit, Snapshot

    def build(snap: Snapshot) -> Edit[QueueResult]:
        item = _pick(_items(snap), ident)
        snap.guard(item.path)
        message = messages.build(
            messages.chore_subject("review-queue", f"drop {item.slug}"),
            "review-queue",
            [item.id] if item.id else [],
            source=source,
        )
        return Edit(QueueResult("drop", item.path, item.id, None), [delete(item.path)], message)

    with KnowledgeBase.open(cfg.kb, env=cfg.env, source=source) as kb:
        done = kb.mutate(build)
    result = done.value
    result.commit = done.commit
    return result


def drop_pointers_for(
    cfg: Config, note_id: str, source: str, why: str
) -> tuple[list[str], str | None]:
    """Remove every pointer naming this note (by source path or id), in one commit."""
    from reflectgit.git.change import delete
    from reflectgit.workflows.kb import KnowledgeBase
    from reflectgit.workflows.kb.base import Edit, Snapshot

    def build(snap: Snapshot) -> Edit[list[str]]:
        gone = [i.path for i in _items(snap) if i.source == source or i.id == note_id]
        if not gone:
            return Edit([])
        for path in gone:
            snap.guard(path)
        message = messages.build(
            messages.chore_subject("review-queue", f"{why} {note_id}"),
            "review-queue",
            [note_id],
            source="route",
        )
        return Edit(gone, [delete(p) for p in gone], message)

    with KnowledgeBase.open(cfg.kb, env=cfg.env, source="route") as kb:
        done = kb.mutate(build)
    return done.value, done.commit
