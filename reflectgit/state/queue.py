"""The durable queue: one checksummed file per entry, atomic writes, a dead-letter folder.

Layout under the state directory::

    queue/<id>.json          pending entries (one file each, written tmp -> fsync -> rename)
    queue/dead/<id>.json     dead letters: retries exhausted or poisoned, kept for an operator
    queue/corrupt/<name>     files that failed their checksum: moved aside, never deleted
    queue/legacy-imported.state  which ``pending_reflections.jsonl`` files were imported
    queue/order              the queue's order: ``<seq> <id> <not_before|->`` lines, appended
    queue/order.head         where in ``order`` the first line that may be live starts

Ids are content-addressed (the normalised transcript path), so queuing a transcript that is
already pending is a no-op. A failed entry goes to the back with its retry count bumped and a
``not_before`` time from exponential backoff with jitter (seedable RNG, injectable clock).

The order file makes a drain's cost independent of the queue's length: every write that gives
an entry a place (add, requeue, retry) appends a line under the queue lock, so the lines are
in ``seq`` order and the last one holds the highest ``seq``. A line is live while its entry
file holds that ``seq``; removed, dead-lettered and moved entries leave stale lines behind,
which the reader skips (and ``order.head`` jumps over, the file compacted once they are most
of it). ``ready(limit)`` reads the front of the queue and stops at ``limit`` ready entries: a
run that takes 3 entries of 200,000 reads a few lines and 3 entry files. The entry files stay
the truth: a missing order file is rebuilt from them, and an entry no line names (written by
an older version, or by a writer killed between the two writes) is indexed when a reader
walks to the end of the order.
"""

from __future__ import annotations

import builtins
import contextlib
import datetime as dt
import fcntl
import hashlib
import json
import os
import random
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from reflectgit.backoff import Backoff as Backoff  # the queue's retry pauses
from reflectgit.config import Config
from reflectgit.errors import DeadLetterError, NotFoundError, ReflectGitError, UsageError
from reflectgit.notes.dates import format_epoch
from reflectgit.state import leftovers
from reflectgit.state.backlog import (
    LEGACY_MARKER,
    QUEUE_DIR,
    imported_legacy,
    legacy_key,
    legacy_paths,
)
from reflectgit.state.files import atomic_write, fsync_dir

DEAD_DIR = "dead"
CORRUPT_DIR = "corrupt"
FORMAT = 1
ID_LEN = 16
ORDER_FILE = "order"
HEAD_FILE = "order.head"
COMPACT_MIN = 1024 * 1024  # bytes of stale lines before the order file is rewritten

Clock = Callable[[], float]
Entries = list["Entry"]


@dataclass
class Entry:
    """One queued transcript and its retry state."""

    id: str
    transcript_path: str
    trigger: str = "manual"
    session_id: str = ""
    queued_at: str = ""
    cwd: str | None = None
    harness: str | None = None
    scope: str | None = None
    seq: int = 0
    retries: int = 0
    not_before: float | None = None
    last_outcome: str | None = None
    last_error: str | None = None
    dead_reason: str | None = None
    dead_at: str | None = None
    counters: dict[str, int] = field(default_factory=dict)  # e.g. timeouts, invalid outputs
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Entry:
        known = {f for f in cls.__dataclass_fields__}
        values = {k: v for k, v in data.items() if k in known}
        if not isinstance(values.get("id"), str) or not isinstance(
            values.get("transcript_path"), str
        ):
            raise ValueError("entry lacks id or transcript_path")
        return cls(**values)

    def ready(self, now: float) -> bool:
        """Past its backoff (or never failed)."""
        return self.not_before is None or self.not_before <= now


@dataclass(frozen=True)
class Corrupt:
    """A queue file that failed to parse or to match its checksum, moved aside."""

    name: str
    path: Path
    reason: str
    transcript: str | None = None  # the transcript it queued, when the bytes still say


class QueueError(ReflectGitError):
    """The queue cannot be read or written."""


def entry_id(transcript_path: str) -> str:
    """Content-addressed id: the same transcript always gets the same id."""
    normalized = os.path.normpath(transcript_path.strip())
    return hashlib.sha256(normalized.encode("utf-8")).hexdigest()[:ID_LEN]


def _canonical(data: Mapping[str, Any]) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def encode_entry(entry: Entry) -> bytes:
    """The on-disk bytes: the entry plus a sha256 over its canonical JSON."""
    body = entry.to_dict()
    checksum = hashlib.sha256(_canonical(body)).hexdigest()
    doc = {"format": FORMAT, "sha256": checksum, "entry": body}
    return json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False).encode("utf-8") + b"\n"


def decode_entry(data: bytes) -> Entry:
    """Parse and verify; ``ValueError`` names what is wrong (torn, edited, malformed)."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a complete JSON document ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("entry"), dict):
        raise ValueError("not a queue entry document")
    body = doc["entry"]
    if hashlib.sha256(_canonical(body)).hexdigest() != doc.get("sha256"):
        raise ValueError("checksum mismatch")
    return Entry.from_dict(body)


_TRANSCRIPT = re.compile(rb'"transcript_path":\s*("(?:[^"\\]|\\.)*")')


def transcript_of(path: Path) -> str | None:
    """The transcript a torn or edited entry file named, when its bytes still hold it."""
    try:
        match = _TRANSCRIPT.search(path.read_bytes())
        found = json.loads(match.group(1).decode("utf-8")) if match else None
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return found if isinstance(found, str) and found else None


class Queue:
    """The durable queue in ``state_dir/queue``."""

    def __init__(
        self,
        state_dir: Path,
        *,
        clock: Clock = time.time,
        rng: random.Random | None = None,
        backoff: Backoff | None = None,
        read_only: bool = False,
    ) -> None:
        """``read_only`` (a dry run): reading moves no corrupt file aside and makes no folder."""
        self.read_only = read_only
        # What importing the original tool's queue file could not take, said once: the
        # import runs once per file, and the command that ran it shows these lines.
        self.notices: list[str] = []
        self.state_dir = Path(state_dir)
        self.dir = self.state_dir / QUEUE_DIR
        self.dead_dir = self.dir / DEAD_DIR
        self.corrupt_dir = self.dir / CORRUPT_DIR
        self.clock = clock
        self.rng = rng if rng is not None else random.Random()
        self.backoff = backoff or Backoff()

    # ------------------------------------------------------------------ plumbing

    def _ensure(self) -> None:
        if self.read_only:
            raise QueueError("the queue was opened read-only (a dry run)")
        for path in (self.dir, self.dead_dir, self.corrupt_dir):
            path.mkdir(parents=True, exist_ok=True)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Serialise mutations between hooks, the CLI and the drain (released if we die)."""
        self._ensure()
        fd = os.open(self.dir / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _path(self, entry_id_: str, dead: bool = False) -> Path:
        return (self.dead_dir if dead else self.dir) / f"{entry_id_}.json"

    def _read_folder(self, folder: Path) -> Entries:
        """Every valid entry in a folder; corrupt files are moved aside as they are found."""
        if not folder.is_dir():
            return []
        entries: Entries = []
        for path in sorted(folder.glob("*.json")):
            entry = self._read_file(path)
            if entry is not None:
                entries.append(entry)
        return entries

    def _read_file(self, path: Path) -> Entry | None:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None  # removed by a concurrent drain: not an error
        try:
            entry = decode_entry(data)
            if entry.id != path.stem:
                raise ValueError(f"file name does not match its id {entry.id!r}")
            return entry
        except ValueError as exc:
            self._quarantine(path, str(exc))
            return None

    def _quarantine(self, path: Path, reason: str) -> None:
        if self.read_only:
            return  # skipped this time; a real run moves it aside
        self.corrupt_dir.mkdir(parents=True, exist_ok=True)
        stamp = dt.datetime.fromtimestamp(self.clock(), dt.timezone.utc).strftime("%Y%m%dT%H%M%S")
        target = self.corrupt_dir / f"{path.name}.{stamp}"
        n = 1
        while target.exists():
            n += 1
            target = self.corrupt_dir / f"{path.name}.{stamp}.{n}"
        with contextlib.suppress(FileNotFoundError):
            os.replace(path, target)
            atomic_write(target.parent / (target.name + ".reason"), (reason + "\n").encode())
            fsync_dir(self.dir)
            fsync_dir(self.corrupt_dir)

    def _write(self, entry: Entry, dead: bool = False) -> None:
        self._ensure()
        atomic_write(self._path(entry.id, dead), encode_entry(entry))

    def _next_seq(self) -> int:
        """One past the highest ``seq`` given (the order file's last line; callers hold the
        lock)."""
        return self._order().last_seq() + 1

    def _place(self, entry: Entry) -> None:
        """Give ``entry`` the next place at the back: its line first, then its file (a crash
        in between leaves a stale line, and the entry where it was)."""
        entry.seq = self._next_seq()
        self._order().append(entry)
        self._write(entry)

    def _order(self) -> Order:
        """The order file, rebuilt from the entry files when it is missing (callers hold the
        lock)."""
        order = Order(self.dir)
        if not order.path.exists() and not self.read_only:
            order.rebuild(self._read_folder(self.dir))
        return order

    # ------------------------------------------------------------------ reading

    def list(self) -> Entries:
        """Pending entries, front of the queue first."""
        return sorted(self._read_folder(self.dir), key=lambda e: (e.seq, e.id))

    def ready(self, limit: int | None = None) -> Entries:
        """Pending entries whose backoff has passed, in queue order; at most ``limit`` of
        them, read from the front of the order file (no more entry files than that read,
        besides stale lines' and not-ready ones' none)."""
        now = self.clock()
        if limit is not None and limit <= 0:
            return []
        if not self.dir.is_dir():
            return []
        order = Order(self.dir)
        if not order.path.exists():
            if self.read_only:  # a dry run of a queue no version here has ordered yet
                found = [e for e in self.list() if e.ready(now)]
                return found if limit is None else found[:limit]
            with self._locked():
                self._order()
        picked: Entries = []
        seen: set[str] = set()
        head: tuple[int, int, str] | None = None  # the first line not known stale, if moved
        first: int | None = None
        front = True  # every line so far was stale
        for line in order.lines():
            first = line.offset if first is None else first
            waiting = line.not_before is not None and line.not_before > now
            if waiting:
                seen.add(line.id)  # its file is not read: not one the order lacks
            entry = None if waiting else self._read_file(self._path(line.id))
            stale = not waiting and (entry is None or entry.seq != line.seq)
            if front and not (stale and line.next is not None):  # the last line stays
                front = False
                if line.offset != first:
                    head = (line.offset, line.seq, line.id)
            if waiting or stale or entry is None:
                continue
            seen.add(entry.id)
            if entry.ready(now):
                picked.append(entry)
                if limit is not None and len(picked) >= limit:
                    break
        else:  # the whole order was read: index what no line names
            picked += [e for e in self._unordered(seen) if e.ready(now)]
            picked.sort(key=lambda e: (e.seq, e.id))
            if limit is not None:
                picked = picked[:limit]
        if head is not None and not self.read_only:
            with self._locked():
                order.advance(*head)
        return picked

    def _unordered(self, seen: set[str]) -> Entries:
        """Entry files the walk of the order did not meet (written by an older version, or
        by a writer killed between its line and its file): read (a corrupt one is moved
        aside as it is read) and given a place at the back."""
        try:
            names = [n for n in os.listdir(self.dir) if n.endswith(".json")]
        except FileNotFoundError:
            return []
        missing = sorted(n for n in names if n[: -len(".json")] not in seen)
        found = [e for e in (self._read_file(self.dir / n) for n in missing) if e is not None]
        if not found or self.read_only:
            return found
        placed: Entries = []
        with self._locked():
            for entry in sorted(found, key=lambda e: (e.seq, e.id)):
                current = self._read_file(self._path(entry.id))
                if current is not None and current.seq == entry.seq:
                    self._place(current)
                    placed.append(current)
        return placed

    def empty(self) -> bool:
        """Is nothing pending? (The folder's names, no file read.)"""
        try:
            with os.scandir(self.dir) as found:
                return not any(e.name.endswith(".json") for e in found)
        except FileNotFoundError:
            return True

    def failed(self) -> Entries:
        """Dead letters, oldest first."""
        return sorted(self._read_folder(self.dead_dir), key=lambda e: (e.dead_at or "", e.id))

    def corrupt(self) -> builtins.list[Corrupt]:
        """Files moved aside because they were torn or edited."""
        if not self.corrupt_dir.is_dir():
            return []
        out = []
        for path in sorted(self.corrupt_dir.iterdir()):
            if path.name.endswith(".reason"):
                continue
            reason_file = path.parent / (path.name + ".reason")
            reason = reason_file.read_text(encoding="utf-8").strip() if reason_file.exists() else ""
            out.append(Corrupt(path.name, path, reason, transcript_of(path)))
        return out

    def stale_temporaries(self) -> builtins.list[Path]:
        """``.tmp.*`` files a writer killed mid-write left (an hour old, its pid not alive)."""
        found: builtins.list[Path] = []
        for folder in (self.dir, self.dead_dir):
            if folder.is_dir():
                found += folder.glob(".tmp.*")
        return leftovers.stale(found, now=time.time())

    def sweep(self) -> int:
        """Remove what dead writers left (``stale_temporaries``); how many files."""
        if self.read_only:
            return 0
        with self._locked():
            return leftovers.remove(self.stale_temporaries())

    def get(self, id_or_prefix: str) -> tuple[Entry, bool]:
        """An entry by id or unique id prefix: (entry, is_dead_letter)."""
        if not id_or_prefix.strip():
            raise UsageError("an entry id is needed", hint="`reflect-git queue list` shows them")
        if len(id_or_prefix) == ID_LEN and re.fullmatch(r"[0-9a-f]+", id_or_prefix):
            for dead in (False, True):  # a whole id: its files, not the whole queue
                found = self._read_file(self._path(id_or_prefix, dead))
                if found is not None:
                    return found, dead
        matches = [(e, False) for e in self.list() if e.id.startswith(id_or_prefix)]
        matches += [(e, True) for e in self.failed() if e.id.startswith(id_or_prefix)]
        if not matches:
            raise NotFoundError(
                f"no queue entry or dead letter with id {id_or_prefix!r}",
                hint="`reflect-git queue list` and `reflect-git queue failed` show the ids",
            )
        ids = {e.id for e, _ in matches}
        if len(ids) > 1:
            raise UsageError(
                f"id prefix {id_or_prefix!r} is ambiguous ({', '.join(sorted(ids))})",
                hint="give more characters of the id",
            )
        # A pending entry wins over a dead letter of the same transcript.
        matches.sort(key=lambda m: m[1])
        return matches[0]

    # ------------------------------------------------------------------ writing

    def add(
        self,
        transcript_path: str,
        trigger: str = "manual",
        session: str = "",
        *,
        cwd: str | None = None,
        harness: str | None = None,
        scope: str | None = None,
        queued_at: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> tuple[Entry, bool]:
        """Queue a transcript; (entry, created). Already pending -> (that entry, False)."""
        if not transcript_path or not transcript_path.strip() or "\x00" in transcript_path:
            raise UsageError("a queue entry needs a transcript path")
        new_id = entry_id(transcript_path)
        with self._locked():
            existing = self._read_file(self._path(new_id))
            if existing is not None:
                return existing, False
            dead = self._read_file(self._path(new_id, dead=True))
            if dead is not None:
                raise DeadLetterError(
                    f"{dead.transcript_path} is a dead letter ({dead.id}: "
                    f"{dead.dead_reason or 'retries exhausted'})",
                    hint=f"`reflect-git queue retry {dead.id}` puts it back in the queue",
                )
            entry = Entry(
                id=new_id,
                transcript_path=os.path.normpath(transcript_path.strip()),
                trigger=trigger or "manual",
                session_id=session or "",
                queued_at=queued_at or format_epoch(self.clock()),
                cwd=cwd,
                harness=harness,
                scope=scope,
                extra=dict(extra or {}),
            )
            self._place(entry)
            return entry, True

    def remove(self, entry_id_: str) -> bool:
        """Drop a pending entry (processed). True if it was there."""
        with self._locked():
            path = self._path(entry_id_)
            try:
                path.unlink()
            except FileNotFoundError:
                return False
            fsync_dir(self.dir)
            return True

    def requeue(self, entry_id_: str, reason: str) -> Entry | None:
        """To the back of the queue without a retry charge (the transcript grew meanwhile)."""
        with self._locked():
            entry = self._read_file(self._path(entry_id_))
            if entry is None:
                return None
            entry.last_outcome = reason
            self._place(entry)
            return entry

    def bump_retry(
        self,
        entry_id_: str,
        outcome: str,
        error: str | None = None,
        counters: Mapping[str, int] | None = None,
    ) -> Entry | None:
        """A retryable failure: retries + 1, backoff with jitter, moved to the back."""
        with self._locked():
            entry = self._read_file(self._path(entry_id_))
            if entry is None:
                return None
            entry.retries += 1
            entry.counters.update(counters or {})
            entry.last_outcome = outcome
            entry.last_error = (error or "")[:500] or None
            entry.not_before = self.clock() + self.backoff.delay(entry.retries, self.rng)
            self._place(entry)
            return entry

    def dead_letter(self, entry_id_: str, reason: str, error: str | None = None) -> Entry | None:
        """Move a pending entry to the dead-letter folder with the reason (write, then unlink)."""
        with self._locked():
            entry = self._read_file(self._path(entry_id_))
            if entry is None:
                return None
            entry.dead_reason = reason
            entry.dead_at = format_epoch(self.clock())
            if error:
                entry.last_error = error[:500]
            # Write the dead letter first: a crash in between leaves the entry in both places
            # (replayed, then deduplicated), never in neither.
            self._write(entry, dead=True)
            self._path(entry.id).unlink()
            fsync_dir(self.dir)
            return entry

    def retry(self, id_or_prefix: str) -> Entry:
        """Back into the queue with a clean slate: dead letters and backed-off entries alike."""
        with self._locked():
            entry, dead = self.get(id_or_prefix)
            entry.retries = 0
            entry.counters = {}  # invalid answers, timeouts: one more bad answer must not poison
            entry.not_before = None
            entry.last_outcome = None
            entry.last_error = None
            entry.dead_reason = None
            entry.dead_at = None
            self._place(entry)
            if dead:
                self._path(entry.id, dead=True).unlink()
                fsync_dir(self.dead_dir)
            return entry

    def purge(self, id_or_prefix: str) -> tuple[Entry, bool]:
        """Remove an entry for good (dead letter, else pending); returns (entry, was_dead)."""
        with self._locked():
            entry, dead = self.get(id_or_prefix)
            if dead:
                self._path(entry.id, dead=True).unlink()
                fsync_dir(self.dead_dir)
            else:
                self._path(entry.id).unlink()
                fsync_dir(self.dir)
            return entry, dead

    # ------------------------------------------------------------------ legacy import

    def import_legacy(self, path: Path) -> int:
        """Import the original tool's ``pending_reflections.jsonl`` once; returns entries added.

        The file itself is left untouched (the original tool may still own it); a marker in the
        queue folder records that it was imported, so entries drained since never come back.
        """
        try:
            data = path.read_bytes()
        except (FileNotFoundError, IsADirectoryError, PermissionError):
            return 0
        key = legacy_key(path)
        with self._locked():
            if key in imported_legacy(self.state_dir):
                return 0
        added = 0
        skipped = 0
        for raw in data.splitlines():
            try:
                record = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                skipped += 1
                continue
            if not isinstance(record, dict) or not isinstance(record.get("transcript_path"), str):
                skipped += 1
                continue
            known = {"ts", "session_id", "transcript_path", "trigger", "cwd", "harness", "scope"}
            extra = {k: v for k, v in record.items() if k not in known}
            extra["imported_from"] = key

            def text(name: str, rec: dict[str, Any] = record) -> str | None:
                value = rec.get(name)
                return value if isinstance(value, str) and value else None

            try:
                _, created = self.add(
                    record["transcript_path"],
                    text("trigger") or "legacy",
                    text("session_id") or "",
                    cwd=text("cwd"),
                    harness=text("harness"),
                    scope=text("scope"),
                    queued_at=text("ts"),
                    extra=extra,
                )
            except UsageError:
                skipped += 1
                continue
            added += int(created)
        with self._locked():
            marker_path = self.dir / LEGACY_MARKER
            current: dict[str, Any] = {}
            if marker_path.exists():
                with contextlib.suppress(OSError, ValueError):
                    loaded = json.loads(marker_path.read_text(encoding="utf-8"))
                    current = loaded if isinstance(loaded, dict) else {}
            current[key] = {
                "imported_at": format_epoch(self.clock()),
                "sha256": hashlib.sha256(data).hexdigest(),
                "added": added,
                "skipped": skipped,
            }
            atomic_write(marker_path, json.dumps(current, indent=1, sort_keys=True).encode())
        if skipped:
            lines = "1 line" if skipped == 1 else f"{skipped} lines"
            self.notices.append(
                f"{path}: {lines} of the original tool's queue could not be read (not JSON, or "
                f"no transcript_path) and were skipped; {added} imported; the file is unchanged"
            )
        return added

    def legacy_candidates(self, home: str | None) -> builtins.list[Path]:
        """Where the original tool kept its queue: the state dir, then ``~/.reflect``."""
        return [Path(p) for p in legacy_paths(self.state_dir, home)]

    def import_all_legacy(self, home: str | None) -> int:
        """Import every legacy queue file found (each only once)."""
        return sum(self.import_legacy(p) for p in self.legacy_candidates(home))


@dataclass(frozen=True)
class Line:
    """One line of the order file: a place in the queue, and where the next line starts."""

    seq: int
    id: str
    not_before: float | None
    offset: int
    next: int | None  # None: the last complete line


class Order:
    """``queue/order``: the queue's places, in ``seq`` order (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / ORDER_FILE
        self.head_path = folder / HEAD_FILE

    @staticmethod
    def render(entry: Entry) -> bytes:
        nb = "-" if entry.not_before is None else repr(float(entry.not_before))
        return f"{entry.seq} {entry.id} {nb}\n".encode("ascii")

    @staticmethod
    def parse(raw: bytes) -> tuple[int, str, float | None] | None:
        parts = raw.split()
        if len(parts) != 3 or not parts[0].isdigit() or len(parts[1]) != ID_LEN:
            return None
        try:
            nb = None if parts[2] == b"-" else float(parts[2])
            return int(parts[0]), parts[1].decode("ascii"), nb
        except (ValueError, UnicodeDecodeError):
            return None

    def append(self, entry: Entry) -> None:
        """A new place at the back (callers hold the queue lock)."""
        line = self.render(entry)
        with open(self.path, "ab") as fh:
            if fh.tell() and not self._ends_with_newline():
                line = b"\n" + line  # a torn last line stays alone on its line
            fh.write(line)

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as fh:
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) == b"\n"

    def last_seq(self) -> int:
        """The highest ``seq`` given: the last complete line's (0 for none)."""
        try:
            with open(self.path, "rb") as fh:
                size = fh.seek(0, os.SEEK_END)
                back = 256
                while True:
                    fh.seek(max(0, size - back))
                    tail = fh.read()
                    found = [
                        self.parse(raw) for raw in tail.split(b"\n")[1 if back < size else 0 :]
                    ]
                    seqs = [f[0] for f in found if f is not None]
                    if seqs or back >= size:
                        return max(seqs, default=0)
                    back *= 4
        except FileNotFoundError:
            return 0

    def rebuild(self, entries: Entries) -> None:
        """The order from the entry files (their own ``seq``), written whole."""
        data = b"".join(self.render(e) for e in sorted(entries, key=lambda e: (e.seq, e.id)))
        atomic_write(self.path, data)
        with contextlib.suppress(FileNotFoundError):
            self.head_path.unlink()

    def lines(self) -> Iterator[Line]:
        """The lines from the head on (complete ones; a malformed one is skipped)."""
        try:
            fh = self.path.open("rb")
        except FileNotFoundError:
            return
        with fh:
            offset = self._head(fh)
            fh.seek(offset)
            pending: tuple[int, str, float | None, int] | None = None
            for raw in fh:
                start, offset = offset, offset + len(raw)
                if not raw.endswith(b"\n"):
                    break  # a line still being written
                parsed = self.parse(raw)
                if parsed is None:
                    continue
                if pending is not None:
                    yield Line(*pending, next=start)
                pending = (*parsed, start)
            if pending is not None:
                yield Line(*pending, next=None)

    def _head(self, fh: Any) -> int:
        """Where reading starts: the head, when the line there is still the one it names."""
        try:
            offset_text, seq_text, ident = self.head_path.read_text("ascii").split()
            offset = int(offset_text)
        except (OSError, ValueError):
            return 0
        if offset > 0:
            fh.seek(offset - 1)
            if fh.read(1) != b"\n":
                return 0
        fh.seek(offset)
        found = self.parse(fh.readline())
        return offset if found is not None and found[:2] == (int(seq_text), ident) else 0

    def advance(self, offset: int, seq: int, ident: str) -> None:
        """Every line before ``offset`` is stale (``seq``/``ident``: the line that starts
        there): reading starts there from now on, and once the stale part is most of the
        file it is rewritten without it (callers hold the queue lock)."""
        atomic_write(self.head_path, f"{offset} {seq} {ident}\n".encode("ascii"))
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return
        if offset >= COMPACT_MIN and offset * 2 > size:
            with open(self.path, "rb") as fh:
                fh.seek(offset)
                rest = fh.read()
            atomic_write(self.path, rest)
            # A crash before the next line leaves a head that names another line: ignored.
            atomic_write(self.head_path, f"0 {seq} {ident}\n".encode("ascii"))


def open_queue(cfg: Config, *, clock: Clock = time.time, import_legacy: bool = True) -> Queue:
    """The KB's queue, with the original tool's pending file imported once (unless told not to)."""
    cfg.require_kb()
    queue = Queue(cfg.state_dir, clock=clock)
    if queue.dir.is_dir():
        queue.sweep()
    if import_legacy:
        queue.import_all_legacy(cfg.env.get("HOME"))
    return queue
