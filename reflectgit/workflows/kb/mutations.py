"""The KB's mutations: add, update, confirm, archive, restore, forget, sweep, supersede, undo.

Each one is a ``build`` function of a snapshot handed to the door (``Base.mutate``): it reads
what it changes through the snapshot, applies pure edits from ``reflectgit.notes.edit`` and
returns the changes and the commit message. The door validates and commits with
compare-and-swap; on a lost race it runs ``build`` again on the fresh branch.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reflectgit.config import FORGOTTEN
from reflectgit.errors import (
    BranchMovedError,
    ConflictError,
    NoteError,
    NotFoundError,
    RefusedError,
    UsageError,
)
from reflectgit.git.change import Change, delete, write
from reflectgit.notes import authorship, edit, messages
from reflectgit.notes.dates import parse_instant
from reflectgit.notes.inplace import rewrite_note
from reflectgit.notes.note import (
    Note,
    Sidecar,
    load_yaml,
    new_id,
    normalize_tier,
    normalized,
    normalized_sidecar,
    parse_note,
    parse_sidecar,
    render_note,
    render_sidecar,
    sidecar_path_for,
)
from reflectgit.workflows.kb.base import (
    NOTE_SUFFIX,
    STATE_FOLDERS,
    Base,
    Edit,
    Located,
    Snapshot,
    check_note,
    check_sidecar,
    is_note_path,
    note_id,
)
from reflectgit.workflows.kb.ids import clash, existing_ids, refuse_clash

if TYPE_CHECKING:
    from typing import Any

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
    notes: tuple[str, ...] = ()  # what the update left alone, and why


@dataclass(frozen=True)
class ConfirmResult:
    id: str
    proof_count: int
    commit: str | None
    reviewed_by: str | None = None  # a person's confirm of a machine's note: its review


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


# --------------------------------------------------------------------------- input helpers


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


def _parse_side(data: bytes, source: str) -> Sidecar:
    try:
        return parse_sidecar(data, source)
    except NoteError as exc:
        raise _located_error(exc, source) from None


def render_side(data: Mapping[str, Any], ident: str) -> bytes:
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
    front.pop("updated", None)
    old_front = dict(old.frontmatter)
    old_front.pop("updated", None)
    return render_note(Note(front, incoming.body)) == render_note(Note(old_front, old.body))


def _tier(value: Any, what: str) -> str:
    tier = normalize_tier(value)
    if tier is None:
        raise NoteError(
            f"{what} {value!r} is not a tier",
            hint="use high, medium or low (h, med, m, l are accepted)",
        )
    return tier


LINK_FIELDS = ("superseded_by", "supersedes")


def forgotten_refusal(ident: str, op: str, given: bool = True) -> RefusedError:
    """A forgotten id is a tombstone: ``op`` (add, import) does not bring it back unasked.
    ``given``: the note names the id itself (else it was generated from the same content)."""
    other = (
        "or remove `id:` to add it as a new note"
        if given
        else "or change the note (it then gets a new id)"
    )
    return RefusedError(
        f"{ident} was forgotten (it is in .forgotten/); {op} does not bring a forgotten note "
        "back on its own",
        hint=f"pass --restore to bring it back (the forgotten copy is removed in the same "
        f"commit), {other}",
    )


def lift_tombstone(tomb: Located) -> list[Change]:
    """The changes that remove a forgotten note (and its sidecar) when it is brought back."""
    changes = [delete(tomb.path)]
    if tomb.sidecar is not None:
        changes.append(delete(tomb.sidecar_path))
    return changes


def _refuse_links(snap: Snapshot, note: Note, ident: str) -> None:
    """A new note's ``superseded_by``/``supersedes`` must already be matched on the other side
    (an export imported again); otherwise ``supersede`` makes the link, both sides at once."""
    for field, back in (("superseded_by", "supersedes"), ("supersedes", "superseded_by")):
        for other_id in edit.link_names(note.frontmatter.get(field)):
            other = snap.find(other_id, ("live", "archived", "forgotten"))
            ok = other is not None and ident in edit.link_names(_front(other).get(back))
            if not ok:
                raise RefusedError(
                    f"the note says `{field}: {other_id}`, but {other_id} "
                    + ("is not in the KB" if other is None else f"does not list it in {back}"),
                    hint="remove the line and link the notes with "
                    "`reflect-git supersede OLD --by NEW` (it writes both sides)",
                )


def _front(found: Located) -> dict[str, Any]:
    try:
        return parse_note(found.data, found.path).frontmatter
    except NoteError:
        return {}


def _refuse_cycle(snap: Snapshot, old: str, new: str, new_note: Note) -> None:
    """``supersede OLD --by NEW`` when NEW is (through any chain) superseded by OLD is a cycle."""
    seen = {new}
    chain = [new]
    frontier = edit.link_names(new_note.frontmatter.get("superseded_by"))
    while frontier:
        nxt = frontier.pop()
        if nxt in seen:
            continue
        seen.add(nxt)
        chain.append(nxt)
        if nxt == old:
            path = " -> ".join([*chain])
            raise RefusedError(
                f"{old} cannot be superseded by {new}: {new} is already superseded by {old} "
                f"({path}), and a cycle leaves no current note",
                hint=f"{new} stays superseded by {old}; to replace both, add a new note and "
                f"supersede {old} by it",
            )
        found = snap.find(nxt, ("live", "archived", "forgotten"))
        if found is not None:
            frontier.extend(edit.link_names(_front(found).get("superseded_by")))


# --------------------------------------------------------------------------- the mutations


def _given_note(
    data: bytes | None, fields: Mapping[str, Any] | None, body: str | None, source_name: str
) -> Note:
    """The note ``add`` is given: the bytes (else an empty learning), each field given
    overriding its own (``confidence`` read as a tier; ``tags`` and ``anchors`` added to the
    file's), and, for a note from fields, ``body`` as its body, else its key insight."""
    base_note = _parse(data, source_name) if data is not None else Note({"type": "learning"})
    for key, value in (fields or {}).items():
        if value is None or value == [] or value == "":
            continue
        if key == "confidence":
            value = _tier(value, "--confidence")
        if key == "tags":
            existing = base_note.frontmatter.get("tags")
            merged = list(existing) if isinstance(existing, list) else []
            merged.extend(t for t in value if t not in merged)
            value = merged
        if key == "anchors":  # the file's anchors, then the ones --anchor adds
            from reflectgit.notes import anchors

            had = anchors.anchors_of(base_note.frontmatter)
            value = anchors.to_yaml(anchors.merged(had, anchors.anchors_of({"anchors": value})))
        base_note.frontmatter[key] = value
    if data is None and body is not None and body.strip():
        base_note.body = body if body.endswith("\n") else body + "\n"
    if (
        data is None
        and not base_note.body
        and isinstance(base_note.frontmatter.get("key_insight"), str)
    ):
        base_note.body = base_note.frontmatter["key_insight"].strip() + "\n"
    return base_note


def _identity(
    snap: Snapshot, note: Note, defaulted_created: bool
) -> tuple[str, Located | None, Located | None]:
    """The id ``add`` gives the note, the live or archived note under it (the same note, added
    again) and the tombstone under it (the same note, forgotten): the note's own id (refused
    when it clashes with another's), else a new id from its title and body, passing over ids
    other notes hold."""
    existing: Located | None = None
    known = existing_ids(snap.store, snap.tree)  # by case- and Unicode-folded key
    tomb: Located | None = None
    if note.id is not None:
        ident = note.id
        existing = snap.find(ident, ("live", "archived"), scan=False)
        if existing is None:
            tomb = snap.find(ident, ("forgotten",), scan=False)
            if tomb is None:
                refuse_clash(ident, known)
        return ident, existing, tomb

    def taken(candidate: str) -> bool:
        nonlocal existing, tomb
        if clash(candidate, known):
            return True
        found = snap.find(candidate, ("live", "archived"), scan=False)
        if found is None:
            gone = snap.find(candidate, ("forgotten",), scan=False)
            if gone is not None:
                # The same note forgotten: a tombstone. Another note: a new id.
                if _same_note(gone.data, note, candidate, defaulted_created):
                    tomb = gone
                    return False
                return True
            return any(
                snap.exists(f"{STATE_FOLDERS[s]}/{candidate}{NOTE_SUFFIX}")
                for s in ("live", "archived", "forgotten")
            )
        if _same_note(found.data, note, candidate, defaulted_created):
            existing = found
            return False
        return True

    ident = new_id(note.title, note.body, taken)
    return ident, existing, tomb


class Mutations(Base):
    """add ... undo, each one commit through the door."""

    # ------------------------------------------------------------------ add

    def add(
        self,
        data: bytes | None = None,
        *,
        fields: Mapping[str, Any] | None = None,
        sidecar: bytes | None = None,
        force: bool = False,
        source_name: str = "<stdin>",
        sidecar_name: str = "<entities>",
        restore: bool = False,
        body: str | None = None,
    ) -> AddResult:
        """Validate and commit one note (from bytes, from fields, or bytes with field overrides).
        A note from fields takes ``body`` as its body, else its key insight.

        A forgotten id is a tombstone: adding a note under it is refused unless ``restore``
        (then the forgotten copy goes in the same commit). Supersession links are made by
        ``supersede``, which keeps both sides; a new note that claims them is refused.
        """
        if data is None and not fields:
            raise UsageError(
                "nothing to add", hint="give a FILE, `-` for stdin, or --title and --insight"
            )
        base_note = _given_note(data, fields, body, source_name)
        defaulted_created = "created" not in base_note.frontmatter
        if defaulted_created:
            base_note.frontmatter["created"] = self.clock()
        base_note.frontmatter = normalized(base_note.frontmatter)  # H, HIGH, Med ... -> tiers
        if data is None:
            _require_flags(base_note)  # a note from flags: name the flag, not a file
        check_note(base_note, source_name)  # errors name the user's file, not ours
        side_data: dict[str, Any] | None = None
        if sidecar is not None:
            given = _parse_side(sidecar, sidecar_name)
            side_data = normalized_sidecar(given.data)
            check_sidecar(side_data, sidecar_name, given)  # lines of the user's file
        now = self.clock()

        def build(snap: Snapshot) -> Edit[AddResult]:
            note = Note(dict(base_note.frontmatter), base_note.body)
            ident, existing, tomb = _identity(snap, note, defaulted_created)
            note.frontmatter["id"] = ident
            if existing is not None:
                return self._add_over(existing, note, side_data, defaulted_created, force, now)
            if tomb is not None and restore:
                note = edit.carry_links(_front(tomb), note)  # the id's links stay whole
            _refuse_links(snap, note, ident)
            path = f"{STATE_FOLDERS['live']}/{ident}{NOTE_SUFFIX}"
            changes = [write(path, render_note(note))]
            if tomb is not None:
                if not restore:
                    raise forgotten_refusal(ident, "add", given=base_note.id is not None)
                changes += lift_tombstone(tomb)
            if side_data is not None:
                changes.append(write(sidecar_path_for(path), render_side(side_data, ident)))
            tier = note.tier
            kind = "feat" if tier == "high" else "docs"
            message = self.message(
                messages.knowledge_subject(note.title, tier, kind), "add", [ident], confidence=tier
            )
            return Edit(AddResult(ident, path, None, "added"), changes, message)

        done = self.mutate(build)
        result = done.value
        if done.commit is None and result.status != "unchanged":
            return AddResult(result.id, result.path, None, "unchanged")
        return AddResult(result.id, result.path, done.commit, result.status)

    def _add_over(
        self,
        existing: Located,
        note: Note,
        side_data: dict[str, Any] | None,
        kept_created: bool,
        force: bool,
        now: dt.datetime,
    ) -> Edit[AddResult]:
        ident = existing.id
        if existing.state != "live":
            raise ConflictError(
                f"{ident} is archived",
                hint=f"`reflect-git restore {ident}` first, then add again",
            )
        same_side = side_data is None or existing.sidecar == render_side(side_data, ident)
        if _same_note(existing.data, note, ident, kept_created) and same_side:
            return Edit(AddResult(ident, existing.path, None, "unchanged"))
        if not force:
            raise ConflictError(
                f"a different note already has the id {ident}",
                hint="pass --force to replace it (an update: the id and file stay), "
                "or remove `id:` to get a new id",
            )
        old = parse_note(existing.data, existing.path)
        if kept_created and "created" in old.frontmatter:
            note.frontmatter["created"] = old.frontmatter["created"]
        note = edit.carry_links(old.frontmatter, note)  # the other notes still name this id
        note.frontmatter["updated"] = now
        changes = [write(existing.path, render_note(note))]
        if side_data is not None:
            changes.append(write(existing.sidecar_path, render_side(side_data, ident)))
        message = self.message(
            messages.chore_subject("update", ident), "update", [ident], note.tier
        )
        return Edit(AddResult(ident, existing.path, None, "updated"), changes, message)

    # ------------------------------------------------------------------ update, confirm

    def update(
        self,
        ident: str,
        assignments: Sequence[str] = (),
        body: str | None = None,
        *,
        fields: Mapping[str, Any] | None = None,
    ) -> UpdateResult:
        """Change fields (``KEY=VALUE``, YAML-typed; or ``fields``, top-level keys with their
        values as given) or the body; the id and file name stay."""
        if not assignments and body is None and not fields:
            raise UsageError("nothing to change", hint="give --set KEY=VALUE or --body-file F")
        given = [parse_assignment(text) for text in assignments]
        given += [([key], value) for key, value in (fields or {}).items()]
        parsed: list[tuple[list[str], Any]] = []
        for parts, value in given:
            if parts[0] == "id":
                raise UsageError("the id of a note never changes", hint="add a new note instead")
            if parts[0] in LINK_FIELDS:
                raise UsageError(
                    f"{parts[0]} is kept by `reflect-git supersede`, which writes both notes",
                    hint="reflect-git supersede OLD --by NEW",
                )
            if parts == ["confidence"]:
                value = _tier(value, "confidence")
            parsed.append((parts, value))
        now = self.clock()

        def build(snap: Snapshot) -> Edit[UpdateResult]:
            found = snap.get(ident, ("live",))
            note = parse_note(found.data, found.path)
            before = render_note(note)
            stated = {k: note.frontmatter.get(k) for k in edit.BODY_FIELDS}
            for parts, value in parsed:
                edit.assign(note.frontmatter, parts, value)
            notes: list[str] = []
            if body is not None:
                note.body = body
            else:
                notes = _restate_body(note, stated)
            result = UpdateResult(found.id, found.path, None, tuple(notes))
            if render_note(note) == before:
                return Edit(result)
            note.frontmatter["updated"] = now
            check_note(note, found.path)
            message = self.message(
                messages.chore_subject("update", found.id), "update", [found.id], note.tier
            )
            return Edit(result, [write(found.path, rewrite_note(found.data, note))], message)

        done = self.mutate(build)
        return UpdateResult(done.value.id, done.value.path, done.commit, done.value.notes)

    def confirm(self, ident: str, source: str) -> ConfirmResult:
        """Count one more proof from ``source`` (``notes.edit.confirm``: the drain's confirm too);
        a source already counted changes nothing.

        Through an interface a person drives (``authorship.PERSON_SOURCES``: the CLI, the web
        UI), confirming a machine's note is also its review: ``provenance.reviewed_by`` (the
        KB's git identity) and ``reviewed_at`` are stamped, so routing may send it to main.
        """
        if not source.strip():
            raise UsageError("--source must not be empty", hint="for example --source pr-123")
        person = self.source in authorship.PERSON_SOURCES
        now = self.clock()

        def build(snap: Snapshot) -> Edit[ConfirmResult]:
            found = snap.get(ident, ("live",))
            note = parse_note(found.data, found.path)
            try:
                confirmed = edit.confirm(note, source)
            except UsageError as exc:
                raise NoteError(f"{found.path}: {exc.message}", hint=exc.hint) from None
            reviewer = self.store.author() if person else None
            reviewed = (
                authorship.mark_reviewed(confirmed or note, reviewer, now) if reviewer else None
            )
            after = reviewed or confirmed
            if after is None:
                return Edit(ConfirmResult(found.id, edit.proof_count(note), None))
            extra = [("Reflect-Proof", source.strip())]
            if reviewed is not None and reviewer:
                extra.append((authorship.REVIEWED_BY_TRAILER, reviewer))
            message = self.message(
                messages.chore_subject("confirm", found.id),
                "confirm",
                [found.id],
                after.tier,
                extra=extra,
            )
            value = ConfirmResult(
                found.id, edit.proof_count(after), None, reviewer if reviewed else None
            )
            return Edit(value, [write(found.path, rewrite_note(found.data, after))], message)

        done = self.mutate(build)
        return ConfirmResult(
            done.value.id, done.value.proof_count, done.commit, done.value.reviewed_by
        )

    # ------------------------------------------------------------------ moves

    def move_changes(self, snap: Snapshot, found: Located, to_state: str, op: str) -> list[Change]:
        """Delete a note (and its sidecar) where it is and write it in ``to_state``'s folder."""
        dest = edit.moved_path(found.path, STATE_FOLDERS[to_state])
        dest_side = sidecar_path_for(dest)
        for target in (dest, dest_side):
            if snap.exists(target):
                raise ConflictError(
                    f"{target} already exists; {op} would overwrite it",
                    hint=f"look at both notes (`reflect-git show {found.id}`) and remove one",
                )
        changes = [delete(found.path), write(dest, found.data)]
        if found.sidecar is not None:
            changes += [delete(found.sidecar_path), write(dest_side, found.sidecar)]
        return changes

    def _move(
        self,
        ident: str,
        from_states: Sequence[str],
        to_state: str,
        op: str,
        extra: Iterable[tuple[str, str]] = (),
    ) -> MoveResult:
        def build(snap: Snapshot) -> Edit[MoveResult]:
            found = snap.get(ident, from_states)
            changes = self.move_changes(snap, found, to_state, op)
            message = self.message(
                messages.chore_subject(op, found.id),
                op,
                [found.id],
                _tier_of(found.data, found.path),
                extra=extra,
            )
            return Edit(MoveResult(found.id, changes[1].path, None), changes, message)

        done = self.mutate(build)
        return MoveResult(done.value.id, done.value.path, done.commit)

    def archive(self, ident: str) -> MoveResult:
        """Move a live note and its sidecar to ``archived/``."""
        return self._move(ident, ("live",), "archived", "archive")

    def restore(self, ident: str) -> MoveResult:
        """Move an archived note and its sidecar back to ``documents/``."""
        return self._move(ident, ("archived",), "live", "restore")

    def forget(self, ident: str, reason: str | None = None) -> ForgetResult:
        """Move a note (live or archived) to ``.forgotten/`` now; the commit names id and reason."""
        why = messages.one_line(reason or "on request")
        moved = self._move(
            ident, ("live", "archived"), "forgotten", "forget", extra=[("Reflect-Reason", why)]
        )
        return ForgetResult([moved.id], moved.commit)

    def sweep(self, now: dt.datetime | None = None, dry_run: bool = False) -> ForgetResult:
        """Forget every note whose ``forget_after`` has passed, in one commit."""
        moment = now or self.clock()
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.timezone.utc)

        def build(snap: Snapshot) -> Edit[list[str]]:
            due: list[tuple[str, str]] = []
            for state in ("live", "archived"):
                for path, blob in sorted(snap.list(STATE_FOLDERS[state]).items()):
                    if not is_note_path(path):
                        continue
                    data = snap.read_blob(blob)
                    if b"forget_after:" not in data:
                        continue
                    try:
                        note = parse_note(data, path)
                    except NoteError:
                        continue
                    when = parse_instant(note.frontmatter.get("forget_after"))
                    if when is not None and when <= moment:
                        due.append((note_id(note, path), path))
            ids = [d[0] for d in due]
            if dry_run or not due:
                return Edit(ids)
            changes: list[Change] = []
            for _ident, path in due:
                dest = f"{FORGOTTEN}/{path.rsplit('/', 1)[-1]}"
                if snap.exists(dest):
                    raise ConflictError(
                        f"{dest} already exists", hint="remove the older copy first"
                    )
                moving = snap.read(path)
                assert moving is not None
                changes += [delete(path), write(dest, moving)]
                side = sidecar_path_for(path)
                side_data = snap.read(side)
                if side_data is not None:
                    changes += [delete(side), write(sidecar_path_for(dest), side_data)]
            what = ids[0] if len(ids) == 1 else f"{len(ids)} notes"
            tiers = {_tier_of(snap.read(path) or b"", path) for _ident, path in due}
            message = self.message(
                messages.chore_subject("forget", what),
                "forget",
                ids,
                tiers.pop() if len(tiers) == 1 else None,  # one tier for the whole commit
                extra=[("Reflect-Reason", "forget_after passed")],
            )
            return Edit(ids, changes, message)

        done = self.mutate(build)
        return ForgetResult(done.value, done.commit, dry_run)

    # ------------------------------------------------------------------ supersede

    def supersede(self, old: str, new: str) -> SupersedeResult:
        """Record that ``new`` replaces ``old``: ``superseded_by`` and ``supersedes``, one commit."""
        if old == new:
            raise _self_superseding()

        def build(snap: Snapshot) -> Edit[SupersedeResult]:
            old_at = snap.get(old, ("live", "archived"))
            new_at = snap.get(new, ("live",))
            if old_at.id == new_at.id:
                raise _self_superseding()
            old_parsed = parse_note(old_at.data, old_at.path)
            new_parsed = parse_note(new_at.data, new_at.path)
            _refuse_cycle(snap, old_at.id, new_at.id, new_parsed)
            previous = edit.link_names(old_parsed.frontmatter.get("superseded_by"))
            old_note, new_note = edit.supersede(old_parsed, new_parsed, old_at.id, new_at.id)
            written: list[tuple[Located, Note]] = [(old_at, old_note), (new_at, new_note)]
            # Re-pointed: the note that superseded OLD until now lets go of it.
            for before in previous:
                if before == new_at.id:
                    continue
                was = snap.find(before, ("live", "archived", "forgotten"))
                if was is None:
                    continue
                released = edit.release(parse_note(was.data, was.path), old_at.id)
                if released is not None:
                    written.append((was, released))
            changes = []
            for at, note in written:
                if note.frontmatter == parse_note(at.data, at.path).frontmatter:
                    continue
                check_note(note, at.path)
                changes.append(write(at.path, rewrite_note(at.data, note)))
            message = self.message(
                messages.chore_subject("supersede", old_at.id),
                "supersede",
                [old_at.id, new_at.id],
                _tier_of(old_at.data, old_at.path),  # the note the commit retires
            )
            return Edit(SupersedeResult(old_at.id, new_at.id, None), changes, message)

        done = self.mutate(build)
        return SupersedeResult(done.value.old, done.value.new, done.commit)

    # ------------------------------------------------------------------ undo

    def undo(self) -> UndoResult:
        """Revert the newest commit on the current branch, if reflect-git made it."""
        branch = self.store.current_branch()
        if branch is None:
            raise ConflictError("HEAD is detached", hint="check out a branch (`git switch main`)")

        def build(snap: Snapshot) -> Edit[tuple[str, messages.CommitMessage]]:
            tip = snap.tip
            if tip is None:
                raise NotFoundError(f"branch {branch} has no commits yet; nothing to undo")
            info = self.store.commit_info(tip)
            parsed = messages.parse(info.message)
            if not parsed.is_ours:
                raise ConflictError(
                    f"the newest commit on {branch} ({tip[:12]} {parsed.subject!r}) was not "
                    "made by reflect-git; undo only reverts reflect-git's own commits",
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
                snap.guard(path)
                if old_blob is None:
                    changes.append(delete(path))
                else:
                    changes.append(write(path, snap.read_blob(old_blob)))
            message = self.message(
                f'Revert "{parsed.subject}"',
                "undo",
                parsed.ids,
                next((v for k, v in parsed.trailers if k == "Reflect-Confidence"), None),
                body=f"This reverts commit {tip}.",
                extra=[("Reflect-Reverts", tip)],
            )
            return Edit((tip, parsed), changes, message, parent=tip, allow_empty=True)

        try:
            done = self.mutate(build)
        except BranchMovedError:
            raise ConflictError(
                f"{branch} moved while undo was running", hint="run `reflect-git undo` again"
            ) from None
        tip, parsed = done.value
        assert done.commit is not None
        return UndoResult(tip, done.commit, parsed.subject, parsed.ids)


def _restate_body(note: Note, stated: Mapping[str, Any]) -> list[str]:
    """Keep the body in step with a changed field ``add`` also writes into the body (the key
    insight): the paragraph stating the old value now states the new one, and only that
    paragraph changes. A body that no longer states the old value (a person rewrote it) is
    left as written; the returned note says so."""
    notes = []
    for key, old in stated.items():
        new = note.frontmatter.get(key)
        if not isinstance(old, str) or not isinstance(new, str) or old.strip() == new.strip():
            continue
        restated = edit.restate(note.body, old, new)
        if restated is not None:
            note.body = restated
        elif note.body.strip():
            notes.append(
                f"the body does not state the old {key} as a paragraph of its own, so it is "
                "left as written: edit it to match (--body-file) if it should change too"
            )
    return notes


def _tier_of(data: bytes, path: str) -> str | None:
    """The tier of a note's bytes for its commit's ``Reflect-Confidence``; None when unknown."""
    try:
        return parse_note(data, path).tier
    except NoteError:
        return None


# The note fields ``add`` takes from flags, by the flag that sets each.
FIELD_FLAGS = {
    "title": "--title",
    "key_insight": "--insight",
    "category": "--category",
    "confidence": "--confidence",
}


def _require_flags(note: Note) -> None:
    """A note built from flags lacks only required fields: say which flags (``UsageError``)."""
    from reflectgit.notes import schema

    errors = [p for p in schema.validate_note(note, "<flags>") if p.severity == "error"]
    missing = {
        p.field for p in errors if p.field in FIELD_FLAGS and p.field not in note.frontmatter
    }
    if missing and len(missing) == len(errors):  # other problems: the full list says it all
        flags = [FIELD_FLAGS[f] for f in FIELD_FLAGS if f in missing]
        raise UsageError(
            f"{', '.join(flags)} {'is' if len(flags) == 1 else 'are'} required "
            "when the note is written from flags",
            hint="reflect-git add --title T --insight I --category C --confidence high "
            "(confidence: high, medium or low)",
        )


def _self_superseding() -> UsageError:
    return UsageError(
        "a note cannot supersede itself",
        hint="name the newer note after --by: `reflect-git supersede OLD --by NEW` "
        "(`reflect-git list` shows the ids)",
    )
