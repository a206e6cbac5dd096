"""Moving notes in and out of a KB: import (a folder or an export tarball) and export.

Import vets every note and sidecar first (in worker processes for a big import: YAML parsing
is the bulk), then commits the good ones through the door, ``IMPORT_BATCH`` notes a commit,
with compare-and-swap on every path it writes (each must still be absent).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from reflectgit.config import ARCHIVED, DOCUMENTS
from reflectgit.errors import NoteError, NotFoundError, ReflectGitError
from reflectgit.git.store import Change, blob_id, write
from reflectgit.notes import messages
from reflectgit.notes.note import is_safe_id, parse_note, parse_sidecar, sidecar_path_for
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

Progress = Callable[[int, int], None]
Job = tuple[str, bytes, "bytes | None"]  # note path, note bytes, sidecar bytes
Verdict = tuple["str | None", "str | None"]  # (id, None) ok; (None, why) bad; (id, why) bad sidecar


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


Vetted = tuple[str, bytes, "bytes | None", str, "str | None"]  # rel, data, side, id, problem


class Transfer(Base):
    """import, export."""

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
        notes = {p: d for p, d in entries.items() if is_note_path(p)}
        jobs = [
            (rel, data, entries.get(sidecar_path_for(rel))) for rel, data in sorted(notes.items())
        ]
        skipped: list[Skipped] = []
        good: list[Vetted] = []
        total = len(jobs)
        for done, (rel, data, side, (ident, problem)) in enumerate(_vet_all(jobs), 1):
            if progress is not None:
                progress(done, total)
            if ident is None:
                skipped.append(Skipped(rel, problem or "invalid"))
                continue
            good.append((rel, data, side, ident, problem))
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
                return self._import_chunk(snap, chunk, seen, src)

            done_chunk = self.mutate(build)
            ids, chunk_skips = done_chunk.value
            skipped.extend(chunk_skips)
            if done_chunk.commit:
                commits.append(done_chunk.commit)
            imported.extend(ids)
            seen.update(ids)
        order = {rel: n for n, (rel, _d, _s) in enumerate(jobs)}
        skipped.sort(key=lambda s: order.get(s.path, -1))
        return ImportResult(imported, skipped, commits)

    def _import_chunk(
        self, snap: Snapshot, chunk: list[Vetted], seen_before: set[str], src: Path
    ) -> Edit[tuple[list[str], list[Skipped]]]:
        existing: dict[str, str] = {}
        for state in ("live", "archived"):
            existing.update(snap.list(STATE_FOLDERS[state]))
        stems = {stem(p): b for p, b in existing.items() if is_note_path(p)}
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
