"""Moving notes in and out of a KB: import (a folder or an export tarball) and export.

Import vets every note and sidecar first (in worker processes for a big import: YAML parsing
is the bulk), then commits the good ones through the door, ``IMPORT_BATCH`` notes a commit,
with compare-and-swap on every path it writes (each must still be absent).

Vetting adapts what the original reflect tool wrote, so a real ``~/.learnings`` comes in
whole (``adapt``): a confidence alias becomes its tier and a missing one means medium (the
reflect format's reading); a hook note's ``captured_at`` stands for ``created`` and its first
line for the title it lacks; a fleet note keyed by ``name:`` keeps that id; sidecar edges
without a type get ``relates_to`` (the original's backfill) and a sidecar's ``document_id``
follows its note's id. Every change is made in the file's own bytes (``notes.inplace``: only
those lines change) and reported; everything else is kept as it was. Files that cannot come
in are listed with the reason: an unreadable or invalid note, an orphan sidecar, a forgotten
id (unless ``restore``), the raw originals of the original tool's ingest.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from reflectgit.config import ARCHIVED, DOCUMENTS
from reflectgit.errors import NoteError, NotFoundError, ReflectGitError
from reflectgit.git.change import Change, delete, write
from reflectgit.git.objects import blob_id
from reflectgit.notes import edit, messages
from reflectgit.notes.inplace import rewrite_note, rewrite_sidecar
from reflectgit.notes.note import (
    Note,
    is_safe_id,
    normalized,
    normalized_sidecar,
    parse_note,
    parse_sidecar,
    sidecar_path_for,
    tier_of,
)
from reflectgit.notes.words import plural
from reflectgit.workflows.kb.base import (
    NOTE_SUFFIX,
    SIDECAR_SUFFIX,
    STATE_FOLDERS,
    Base,
    Edit,
    Snapshot,
    check_note,
    check_sidecar,
    is_note_path,
    note_id,
    stem,
)
from reflectgit.workflows.kb.ids import clash_reason, existing_ids

IMPORT_BATCH = 10_000  # notes per import commit: one commit for any ordinary import
EXPORT_MTIME = 0  # fixed so the same notes always give the same tarball bytes
PARALLEL_VET_MIN = 2_000  # notes: from here on, parse and validate in worker processes

INGEST_ORIGINALS = f"{DOCUMENTS}/memories/"  # the original tool's raw ingest copies
SHARDS = "shards"  # the original tool's per-project KBs: shards/<project>/documents/
TITLE_MAX = 120
CREATED_FROM = ("captured_at", "date")  # hook notes, fleet notes

Progress = Callable[[int, int], None]
Job = tuple[str, bytes, "bytes | None"]  # note path, note bytes, sidecar bytes


@dataclass(frozen=True)
class Verdict:
    """What vetting made of one note: its id and (adapted) bytes, or why it cannot come in.
    ``ident`` with a ``problem`` is a good note whose sidecar is bad."""

    ident: str | None
    problem: str | None = None
    data: bytes = b""
    side: bytes | None = None
    changes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


@dataclass(frozen=True)
class Adapted:
    """An imported note that was adapted on the way in, and how (one phrase a change)."""

    path: str
    id: str
    changes: list[str]


@dataclass(frozen=True)
class ImportResult:
    imported: list[str]
    skipped: list[Skipped]
    commits: list[str]
    adapted: list[Adapted] = field(default_factory=list)


@dataclass(frozen=True)
class ExportResult:
    file: str
    notes: int


Vetted = tuple[str, bytes, "bytes | None", str, "str | None"]  # rel, data, side, id, problem


class Transfer(Base):
    """import, export."""

    def import_notes(
        self,
        source: str | os.PathLike[str],
        progress: Progress | None = None,
        batch: int = IMPORT_BATCH,
        restore: bool = False,
    ) -> ImportResult:
        """Bulk-import a folder of notes or an export tarball, skipping what is already there.

        A note whose id was forgotten is skipped (a tombstone) unless ``restore``: then it
        comes back and its forgotten copy goes in the same commit.
        """
        src = Path(source)
        if not src.exists():
            raise NotFoundError(f"{src} does not exist", hint="name a folder of notes or an export")
        entries = _tar_entries(src) if src.is_file() else _folder_entries(src)
        skipped: list[Skipped] = []
        notes: dict[str, bytes] = {}
        for rel, data in sorted(entries.items()):
            if rel.startswith(INGEST_ORIGINALS):
                skipped.append(Skipped(rel, "a raw original kept by the original tool's ingest"))
            elif is_note_path(rel):
                notes[rel] = data
            elif sidecar_of(rel) not in entries:
                skipped.append(
                    Skipped(rel, f"sidecar without a note: {sidecar_of(rel)} is not in the import")
                )
        jobs = [
            (rel, data, entries.get(sidecar_path_for(rel))) for rel, data in sorted(notes.items())
        ]
        good: list[Vetted] = []
        adapted: list[Adapted] = []
        total = len(jobs)
        for done, (rel, _data, _side, verdict) in enumerate(_vet_all(jobs), 1):
            if progress is not None:
                progress(done, total)
            ident, problem = verdict.ident, verdict.problem
            if ident is None:
                skipped.append(Skipped(rel, problem or "invalid"))
                continue
            data, side = verdict.data, verdict.side
            good.append((rel, data, side, ident, problem))
            if verdict.changes and problem is None:
                adapted.append(Adapted(rel, ident, list(verdict.changes)))
            if problem is None:
                # The door validates what it commits; these bytes passed the same check.
                self.vetted([blob_id(data)] + ([blob_id(side)] if side is not None else []))
        imported: list[str] = []
        commits: list[str] = []
        seen: set[str] = set()
        for start in range(0, len(good), max(1, batch)):
            chunk = good[start : start + max(1, batch)]

            def build(
                snap: Snapshot, chunk: list[Vetted] = chunk
            ) -> Edit[tuple[list[str], list[Skipped]]]:
                return self._import_chunk(snap, chunk, seen, src, restore)

            done_chunk = self.mutate(build)
            ids, chunk_skips = done_chunk.value
            skipped.extend(chunk_skips)
            if done_chunk.commit:
                commits.append(done_chunk.commit)
            imported.extend(ids)
            seen.update(ids)
        skipped.sort(key=lambda s: s.path)
        done_ids = set(imported)
        adapted = [a for a in adapted if a.id in done_ids]
        return ImportResult(imported, skipped, commits, adapted)

    def _import_chunk(
        self,
        snap: Snapshot,
        chunk: list[Vetted],
        seen_before: set[str],
        src: Path,
        restore: bool = False,
    ) -> Edit[tuple[list[str], list[Skipped]]]:
        existing: dict[str, str] = {}
        for state in ("live", "archived"):
            existing.update(snap.list(STATE_FOLDERS[state]))
        stems = {stem(p): b for p, b in existing.items() if is_note_path(p)}
        forgotten = {stem(p): p for p in snap.list(STATE_FOLDERS["forgotten"]) if is_note_path(p)}
        known = existing_ids(snap.store, snap.tree)  # by case- and Unicode-folded key
        seen = set(seen_before)
        ids: list[str] = []
        skipped: list[Skipped] = []
        changes: list[Change] = []
        for rel, data, side, ident, problem in chunk:
            if ident in seen:
                skipped.append(Skipped(rel, f"id {ident} appears twice in the import"))
                continue
            if ident in stems:
                same = blob_id(data) == stems[ident]
                reason = "already in the KB" if same else "the id is taken by a different note"
                skipped.append(Skipped(rel, f"{ident}: {reason}"))
                continue
            if problem is not None:  # the note is fine, its sidecar is not
                skipped.append(Skipped(rel, problem))
                continue
            tomb = forgotten.get(ident)
            if tomb is not None:
                if not restore:
                    skipped.append(
                        Skipped(rel, f"{ident}: was forgotten (pass --restore to bring it back)")
                    )
                    continue
                old_bytes = snap.read(tomb)
                if old_bytes is not None:  # the id's supersession links stay whole
                    data = _carry_links(old_bytes, data, tomb, rel)
                changes.append(delete(tomb))
                if snap.exists(sidecar_path_for(tomb)):
                    changes.append(delete(sidecar_path_for(tomb)))
            clashing = clash_reason(ident, known)  # by case or Unicode normalisation
            if clashing is not None:
                skipped.append(Skipped(rel, clashing))
                continue
            seen.add(ident)
            state = "archived" if rel.split("/", 1)[0] == ARCHIVED else "live"
            path = f"{STATE_FOLDERS[state]}/{ident}{NOTE_SUFFIX}"
            changes.append(write(path, data))
            if side is not None:
                changes.append(write(sidecar_path_for(path), side))
            ids.append(ident)
        if not changes:
            return Edit((ids, skipped))
        count = len(ids)
        what = f"{count} note" + ("" if count == 1 else "s")
        message = self.message(
            messages.chore_subject("import", f"{what} from {src.name}"),
            "import",
            ids if count <= 20 else [],
            extra=[("Reflect-Count", str(count))],
        )
        return Edit((ids, skipped), changes, message)

    def export(self, target: str | os.PathLike[str]) -> ExportResult:
        """A deterministic tarball of the notes and sidecars (live and archived) on the branch."""
        tree = self._tree()
        files: dict[str, str] = {}
        if tree:
            for state in ("live", "archived"):
                files.update(
                    (p, b)
                    for p, b in self.store.list_tree(tree, STATE_FOLDERS[state]).items()
                    if is_note_path(p) or p.endswith(SIDECAR_SUFFIX)
                )
        import io
        import tarfile  # only export and import of a tarball need it; keep start-up lean

        out = Path(target)
        if out.is_dir():
            raise ReflectGitError(
                f"cannot export to {out}: it is a folder",
                hint=f"name the file to write, such as {out / 'kb-export.tar.gz'}",
            )
        if not out.parent.is_dir():
            raise NotFoundError(
                f"cannot export to {out}: the folder {out.parent} does not exist",
                hint=f"create it first (`mkdir -p {out.parent}`) or name a file in a folder that exists",
            )
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
        return ExportResult(str(out), sum(1 for p in files if is_note_path(p)))


# --------------------------------------------------------------------------- vetting


def _carry_links(tomb: bytes, data: bytes, tomb_path: str, rel: str) -> bytes:
    """The imported note's bytes, with the forgotten note's supersession links carried over."""
    try:
        previous = parse_note(tomb, tomb_path).frontmatter
        note = parse_note(data, rel)
    except NoteError:
        return data
    carried = edit.carry_links(previous, note)
    if carried.frontmatter == note.frontmatter:
        return data
    return rewrite_note(data, carried)


def sidecar_of(path: str) -> str:
    """``documents/x.entities.yaml`` -> ``documents/x.md``."""
    return path[: -len(SIDECAR_SUFFIX)] + NOTE_SUFFIX


def import_id(note: Note, rel: str) -> str:
    """The id an imported note is stored under: ``id``, else ``name`` (the original tool's
    fleet importer keys notes by it), else the file stem."""
    if note.id:
        return note.id
    name = note.frontmatter.get("name")
    if isinstance(name, str) and is_safe_id(name.strip()):
        return name.strip()
    return note_id(note, rel)


def adapt(note: Note, rel: str) -> tuple[Note, list[str]]:
    """The note as reflect-git keeps it, and what was changed (see the module docstring)."""
    front = normalized(note.frontmatter)
    changes: list[str] = []
    raw_tier = note.frontmatter.get("confidence")
    if front.get("confidence") != raw_tier:
        changes.append(f"confidence {raw_tier!r} -> {front['confidence']!r}")
    elif "confidence" not in front:
        # The reflect format reads a missing confidence as medium (or its confidence_num).
        front["confidence"] = tier_of(front) or "medium"
        changes.append(f"confidence missing -> {front['confidence']!r}")
    if "created" not in front:
        for key in CREATED_FROM:
            if front.get(key) not in (None, ""):
                front["created"] = front[key]
                changes.append(f"created from {key}")
                break
    title = front.get("title")
    if not (isinstance(title, str) and title.strip()):
        derived = _title_from_body(note.body)
        if derived:
            front["title"] = derived
            changes.append("title from the body's first line")
    parts = rel.split("/")
    if parts[0] == SHARDS and len(parts) > 2 and front.get("project") in (None, ""):
        front["project"] = parts[1]
        changes.append(f"project {parts[1]!r} from its shard")
    # The original's per-branch sub-shard: shards/<project>/branches/<branch>/ (``/`` as ``__``).
    branched = parts[0] == SHARDS and len(parts) > 4 and parts[2] == "branches"
    if branched and front.get("branch") in (None, ""):
        front["branch"] = parts[3].replace("__", "/")
        changes.append(f"branch {front['branch']!r} from its shard")
    return Note(front, note.body, note.origin), changes


def _title_from_body(body: str) -> str:
    for line in body.splitlines():
        text = line.strip().lstrip("#").strip().strip("*_`").strip()
        if text and not text.startswith("<!--"):
            return text if len(text) <= TITLE_MAX else text[: TITLE_MAX - 1].rstrip() + "…"
    return ""


def _vet(job: Job) -> Verdict:
    """Parse, adapt and validate one imported note and its sidecar (pure: runs anywhere)."""
    rel, data, side = job
    try:
        note = parse_note(data, rel)
        ident = import_id(note, rel)
        kept, changes = adapt(note, rel)
        if changes:
            kept_data = rewrite_note(data, kept)
            note = parse_note(kept_data, rel)
            data = kept_data
        check_note(note, rel)
    except NoteError as exc:
        message = exc.message
        if message.startswith(f"{rel}: "):
            message = message[len(rel) + 2 :]  # the skip list names the file already
        return Verdict(None, _first_line(message))
    if not is_safe_id(ident):
        return Verdict(None, f"id {ident!r} is not a safe file name")
    if side is not None:
        side_rel = sidecar_path_for(rel)
        try:
            parsed = parse_sidecar(side, side_rel).data
            fixed = normalized_sidecar(parsed)
            doc_id = fixed.get("document_id")
            if doc_id is not None and doc_id != ident:
                fixed["document_id"] = ident
                changes.append(f"sidecar document_id {doc_id!r} -> {ident!r}")
            untyped = sum(
                1
                for edge in parsed.get("relationships") or []
                if isinstance(edge, dict) and edge.get("type") in (None, "")
            )
            if untyped:
                changes.append(f"sidecar: {plural(untyped, 'edge')} without a type -> relates_to")
            if fixed != parsed:
                side = rewrite_sidecar(side, fixed)
            check_sidecar(parse_sidecar(side, side_rel).data, side_rel)
        except NoteError as exc:
            return Verdict(ident, "sidecar: " + _first_line(exc.message), data, side)
    return Verdict(ident, None, data, side, tuple(changes))


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
    import zlib

    out: dict[str, bytes] = {}
    try:
        tar = tarfile.open(path)  # noqa: SIM115 - closed by the with below
    except tarfile.TarError as exc:
        raise ReflectGitError(
            f"{path} is neither a folder nor a tarball: {exc}",
            hint="give a folder of notes or a file made by `reflect-git export`",
        ) from None
    try:
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
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        # A cut-off download or copy: gzip raises EOFError, which the CLI would take for a
        # closed terminal ("aborted"); say what is wrong with the file instead.
        cause = "it ends before its last entry" if isinstance(exc, EOFError) else str(exc)
        raise ReflectGitError(
            f"{path} is truncated or damaged ({cause}); nothing was imported",
            hint=f"copy or export it again (`reflect-git export FILE`); `tar -tzf {path}` "
            "shows how far it reads",
        ) from None
    return _rebase(out)


def _rebase(entries: dict[str, bytes]) -> dict[str, bytes]:
    """Keep a KB's ``documents/``/``archived/`` layout (and the original tool's per-project
    ``shards/<project>/documents/``); anything else is a flat folder of notes."""
    layout = any(p.split("/", 1)[0] in (DOCUMENTS, ARCHIVED) for p in entries)
    if not layout:
        return entries
    return {p: d for p, d in entries.items() if _in_layout(p)}


def _in_layout(path: str) -> bool:
    parts = path.split("/")
    if parts[0] in (DOCUMENTS, ARCHIVED):
        return True
    return parts[0] == SHARDS and DOCUMENTS in parts[2:-1]
