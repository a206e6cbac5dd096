"""Capture: what hooks record while people and agents work. The workflow behind every hook.

Three things happen here, all cheap and deterministic:

- commit capture: one line per commit in ``<state>/commits.jsonl``; a revert demotes the
  learnings of the reverted commit's session in one commit;
- notes: agent events that are unambiguous become validated notes, committed at once through
  ``store.commit`` (``Reflect-Source: capture:<event>``);
- queueing: transcripts that might hold a lesson go to the durable queue when the gate passes.

Everything written (notes, commit messages, queue entries, logs) passes ``privacy.clean``
first. Heavy modules (dulwich, YAML, the schema) are imported only when a note is written.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reflectgit.config import DOCUMENTS, CaptureSettings, Config
from reflectgit.notes.privacy import clean, clean_data

if TYPE_CHECKING:  # the gate, git and datetime are imported where they are used
    import datetime as dt

    from reflectgit.workflows.capture.gate import Verdict

Clock = Callable[[], float]

CAPTURE_DIR = "capture"
COMMITS_FILE = "commits.jsonl"
LOG_DIR = "logs"
LOG_FILE = "hooks.log"
LAST_EVENT = "last-event.json"
LOG_MAX_BYTES = 1_000_000
STATE_TTL = 6 * 3600  # per-session test, loop and todo state
TIER_UP = {"low": "medium", "medium": "high", "high": "high"}
TIER_DOWN = {"high": "medium", "medium": "low", "low": "low"}
TIER_NUM = {"high": 0.85, "medium": 0.6, "low": 0.3}
SAFE_SESSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
REVERTS = re.compile(r"This reverts commit ([0-9a-f]{7,40})")


def iso(ts: float) -> str:
    """UTC ISO 8601 to the second, ``Z`` suffix."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def _now(clock: Clock) -> dt.datetime:
    import datetime

    return datetime.datetime.fromtimestamp(clock(), datetime.timezone.utc).replace(microsecond=0)


def safe_session(value: object) -> str | None:
    """A session id usable in a file name, or None."""
    return value if isinstance(value, str) and SAFE_SESSION.match(value) else None


def session_from_settings(settings: CaptureSettings) -> str | None:
    """``CLAUDE_SESSION_ID``, else ``REFLECT_SESSION_ID`` (as config read them), else None."""
    return safe_session(settings.session_id)


@dataclass
class NoteDraft:
    """A note a hook wants to write, before it gets an id and is validated."""

    kind: str  # test-fix, correction, todo-done, permission
    event: str  # the hook event that produced it (for Reflect-Source)
    title: str
    confidence: str
    body: str
    session: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    slug: str = ""  # what the id is made from, when not the title


@dataclass(frozen=True)
class Written:
    """Notes committed by one capture: ids and the commit."""

    ids: tuple[str, ...]
    commit: str | None


@dataclass(frozen=True)
class Queued:
    """What the gate said and, when it passed, the queue entry."""

    verdict: Verdict
    entry_id: str | None = None
    created: bool = False


class Capture:
    """The capture workflow for one KB and its state directory."""

    def __init__(self, cfg: Config, clock: Clock = time.time) -> None:
        self.cfg = cfg
        self.clock = clock
        self.state_dir = cfg.state_dir
        self.root = cfg.state_dir / CAPTURE_DIR
        self.settings: CaptureSettings = cfg.capture  # malformed values fall back, logged below
        if cfg.warnings and self.usable:
            for warning in cfg.warnings:
                self.log("config", "fallback", warning)

    # ------------------------------------------------------------------ where things live

    @property
    def usable(self) -> bool:
        """False when there is no KB to capture into (we never create one by accident)."""
        if self.cfg.state_dir_explicit:
            return True
        return self.state_dir.parent.is_dir()

    def path(self, kind: str, session: str) -> Path:
        return self.root / kind / f"{session}.json"

    def load(self, kind: str, session: str) -> dict[str, Any] | None:
        try:
            data = json.loads(self.path(kind, session).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def save(self, kind: str, session: str, data: Mapping[str, Any], scrub: bool = True) -> None:
        """Write per-session state (scrubbed unless it holds no captured text at all)."""
        target = self.path(kind, session)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        doc = clean_data(dict(data)) if scrub else dict(data)
        tmp.write_text(json.dumps(doc, sort_keys=True), encoding="utf-8")
        os.replace(tmp, target)

    @contextlib.contextmanager
    def session_lock(self, session: str) -> Iterator[None]:
        """Hold the per-session state lock (released if the process dies)."""
        folder = self.root / "locks"
        folder.mkdir(parents=True, exist_ok=True)
        with _flock(folder / f"{session}.lock"):
            yield

    def drop(self, kind: str, session: str) -> None:
        with contextlib.suppress(OSError):
            self.path(kind, session).unlink()

    def sweep(self, ttl: float = STATE_TTL) -> int:
        """Remove per-session state older than ``ttl`` seconds; returns how many files went."""
        removed = 0
        cutoff = self.clock() - ttl
        if not self.root.is_dir():
            return 0
        for folder in self.root.iterdir():
            if not folder.is_dir():
                continue
            for item in [*folder.glob("*.json"), *folder.glob("*.lock")]:
                with contextlib.suppress(OSError):
                    if item.stat().st_mtime < cutoff:
                        item.unlink()
                        removed += 1
        return removed

    # ------------------------------------------------------------------ breadcrumbs

    def log(self, event: str, outcome: str, detail: str = "", session: str | None = None) -> None:
        """One line in ``<state>/logs/hooks.log``; never raises."""
        try:
            folder = self.state_dir / LOG_DIR
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / LOG_FILE
            with contextlib.suppress(OSError):
                if path.stat().st_size > LOG_MAX_BYTES:
                    os.replace(path, folder / (LOG_FILE + ".1"))
            line = " ".join(
                part for part in (iso(self.clock()), event, session or "-", outcome, detail) if part
            )
            with path.open("a", encoding="utf-8") as fh:
                fh.write(clean(line.replace("\n", " ")[:2000]) + "\n")
        except Exception:
            pass

    def breadcrumb(self, event: str, error: BaseException) -> None:
        """Record a swallowed error: the log line plus ``last-event.json``."""
        detail = f"{type(error).__name__}: {error}"
        self.log(event, "error", detail)
        with contextlib.suppress(Exception):
            folder = self.state_dir / LOG_DIR
            folder.mkdir(parents=True, exist_ok=True)
            doc = {"ts": iso(self.clock()), "event": event, "error": clean(detail)[:2000]}
            (folder / LAST_EVENT).write_text(json.dumps(doc) + "\n", encoding="utf-8")

    # ------------------------------------------------------------------ notes

    def write_notes(self, drafts: Sequence[NoteDraft]) -> Written:
        """Validate the drafts and commit them as one commit on the KB's current branch."""
        if not drafts:
            return Written((), None)
        from reflectgit.git.store import Store, write
        from reflectgit.notes import messages
        from reflectgit.notes.note import Note, new_id, render_note

        now = _now(self.clock)
        with Store.open(self.cfg.kb, self.cfg.env) as store:
            taken: set[str] = set()
            changes = []
            ids: list[str] = []
            for draft in drafts:
                title = clean(draft.title).strip() or draft.kind
                body = clean(draft.body)

                def exists(candidate: str) -> bool:
                    return candidate in taken or store.exists(f"{DOCUMENTS}/{candidate}.md")

                note_id = new_id(
                    clean(draft.slug) or title, body, exists, prefix=f"lrn-{draft.kind}-"
                )
                taken.add(note_id)
                front = self._frontmatter(draft, note_id, title, now)
                note = Note(front, body)
                _validate(note, f"{DOCUMENTS}/{note_id}.md")
                changes.append(write(f"{DOCUMENTS}/{note_id}.md", render_note(note)))
                ids.append(note_id)
            first = drafts[0]
            tier = first.confidence
            subject = (
                messages.knowledge_subject(clean(first.title), tier)
                if len(drafts) == 1
                else messages.chore_subject("add", f"{len(drafts)} captured learnings")
            )
            msg = messages.build(
                subject,
                "add",
                ids,
                confidence=tier,
                source=f"capture:{first.event}",
                extra=[("Reflect-Session", first.session)] if first.session else (),
            )
            sha = store.commit(changes, msg)
        for draft, note_id in zip(drafts, ids, strict=True):
            if draft.session and draft.kind != "test-fix":
                self._remember_note(draft.session, note_id)
        return Written(tuple(ids), sha)

    def _frontmatter(
        self, draft: NoteDraft, note_id: str, title: str, now: dt.datetime
    ) -> dict[str, Any]:
        extra = {k: clean_data(v) for k, v in draft.fields.items() if v not in (None, "", [])}
        tags = ["capture", draft.kind, *[t for t in extra.pop("tags", []) if isinstance(t, str)]]
        front: dict[str, Any] = {
            "type": "learning",
            "id": note_id,
            "created": now,
            "updated": now,
            "scope": extra.pop("scope", "project"),
            "confidence": draft.confidence,
            "confidence_num": TIER_NUM[draft.confidence],
            "learning_type": draft.kind,
            "title": title,
            "tags": list(dict.fromkeys(t.lower() for t in tags if t.strip())),
            "category": extra.pop("category", "process"),
            "source_episodes": [draft.session] if draft.session else [],
            "provenance": {
                "source_tool": "reflect-git capture",
                "detected_at": now,
                "proof_count": 1,
            },
            "session_id": draft.session,
            "capture_event": draft.event,
            "validated": False,
        }
        front.update(extra)
        return {k: v for k, v in front.items() if v not in (None, [])}

    def _remember_note(self, session: str, note_id: str) -> None:
        data = self.load("sessions", session) or {}
        notes = [n for n in data.get("notes", []) if isinstance(n, str)]
        if note_id not in notes:
            notes.append(note_id)
        data["notes"] = notes
        self.save("sessions", session, data)

    def session_notes(self, session: str) -> list[str]:
        data = self.load("sessions", session) or {}
        return [n for n in data.get("notes", []) if isinstance(n, str)]

    def retier(
        self,
        note_ids: Iterable[str] | None,
        *,
        session: str | None,
        step: Mapping[str, str],
        op: str,
        source: str,
        reason: str,
        validated: bool | None = None,
    ) -> Written:
        """Move notes one tier (``TIER_UP``/``TIER_DOWN``) in one commit, reason in a trailer.

        ``note_ids`` None means every live note that came from ``session``.
        """
        from reflectgit.git.store import Store, write
        from reflectgit.notes import messages
        from reflectgit.notes.note import parse_note, render_note, tier_of

        now = _now(self.clock)
        with Store.open(self.cfg.kb, self.cfg.env) as store:
            if note_ids is None:
                candidates = _session_note_paths(store, session or "")
            else:
                candidates = [f"{DOCUMENTS}/{i}.md" for i in note_ids]
            changes = []
            ids = []
            for path in candidates:
                data = store.read(path)
                if data is None:
                    continue
                try:
                    note = parse_note(data, path)
                except Exception:
                    continue
                old = tier_of(note.frontmatter) or "medium"
                new = step[old]
                front = dict(note.frontmatter)
                num = _num(front.get("confidence_num"), TIER_NUM[old])
                if new != old:
                    new_num = TIER_NUM[new]
                elif step is TIER_DOWN:  # already low: still lose confidence, within the tier
                    new_num = max(0.05, round(num / 2, 2))
                else:
                    new_num = num
                changed = (
                    new != old
                    or new_num != num
                    or (validated is not None and front.get("validated") != validated)
                )
                if not changed:
                    continue
                front["confidence"] = new
                front["confidence_num"] = new_num
                if validated is not None:
                    front["validated"] = validated
                front["updated"] = now
                note.frontmatter = front
                _validate(note, path)
                changes.append(write(path, render_note(note)))
                ids.append(note.id or Path(path).stem)
            if not changes:
                return Written((), None)
            subject = messages.chore_subject(
                op, f"{len(ids)} learning(s) from session {(session or '?')[:8]}"
            )
            extra = [("Reflect-Reason", clean(reason))]
            if session:
                extra.insert(0, ("Reflect-Session", session))
            msg = messages.build(subject, op, ids, source=source, extra=extra)
            sha = store.commit(changes, msg)
        return Written(tuple(ids), sha)

    # ------------------------------------------------------------------ queue

    def enqueue(
        self,
        transcript: str,
        trigger: str,
        *,
        session: str | None,
        cwd: str | None = None,
        harness: str = "claude",
        scope: str = "session",
        extra: Mapping[str, Any] | None = None,
    ) -> Queued:
        """Queue the transcript for the drain if the gate passes."""
        from reflectgit.state.queue import QUEUE_DIR, Queue, entry_id
        from reflectgit.workflows.capture.gate import evaluate

        queue_dir = self.state_dir / QUEUE_DIR

        def queued(path: str) -> bool:
            return (queue_dir / f"{entry_id(path)}.json").exists()

        def processed(path: str) -> bool:
            return os.path.normpath(path) in terminal_transcripts(self.state_dir)

        verdict = evaluate(transcript, is_queued=queued, is_processed=processed)
        if not verdict.enqueue:
            return Queued(verdict)
        entry, created = Queue(self.state_dir, clock=self.clock).add(
            transcript,
            trigger,
            session or "",
            cwd=clean(cwd) if cwd else None,
            harness=harness,
            scope=scope,
            extra={**clean_data(dict(extra or {})), "gate": verdict.reason},
        )
        return Queued(verdict, entry.id, created)

    # ------------------------------------------------------------------ commits

    def record_commit(
        self, repo: Path, sha: str | None = None, branch: str | None = None
    ) -> CommitRecord | None:
        """Append the commit to ``commits.jsonl`` (once per sha); demote on a revert."""
        from reflectgit.git.repo_info import read_commit

        info = read_commit(repo, sha or "HEAD", self.cfg.env)
        if info is None:
            self.log("post-commit", "skip", "cannot read the commit")
            return None
        if "\nReflect-Git:" in "\n" + info["message"]:
            return None  # our own commits are never captured
        subject, _, body = info["message"].partition("\n")
        record = CommitRecord(
            sha=info["sha"],
            branch=branch if branch not in (None, "", "HEAD") else info["branch"],
            subject=clean(subject.strip()),
            body=clean(body.strip()),
            files=info["files"],
            session=session_from_settings(self.settings),
            merge_conflict_resolved=info["conflicted"],
            parents=info["parents"],
            reverts=_reverted(body),
            repo=str(repo),
            ts=iso(self.clock()),
        )
        if not self._append_commit(record):
            return None
        if record.reverts:
            self.demote_for_revert(record)
        return record

    def commits(self) -> list[dict[str, Any]]:
        """Every recorded commit (unreadable lines skipped)."""
        path = self.state_dir / COMMITS_FILE
        rows: list[dict[str, Any]] = []
        with contextlib.suppress(FileNotFoundError):
            for raw in path.read_bytes().splitlines():
                with contextlib.suppress(ValueError):
                    row = json.loads(raw)
                    if isinstance(row, dict):
                        rows.append(row)
        return rows

    def _append_commit(self, record: CommitRecord) -> bool:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        path = self.state_dir / COMMITS_FILE
        with _flock(self.state_dir / (COMMITS_FILE + ".lock")):
            if any(row.get("sha") == record.sha for row in self.commits()):
                return False
            line = json.dumps(record.to_dict(), sort_keys=True, ensure_ascii=False) + "\n"
            with path.open("a", encoding="utf-8") as fh:
                fh.write(line)
        return True

    def demote_for_revert(self, record: CommitRecord) -> Written:
        """Lower the confidence of the learnings from the reverted commit's session."""
        target = record.reverts or ""
        original = next(
            (r for r in self.commits() if str(r.get("sha", "")).startswith(target)), None
        )
        session = safe_session(original.get("session")) if original else None
        if not session:
            self.log("post-commit", "revert-no-session", target[:12])
            return Written((), None)
        reason = f"commit {target[:12]} ({original.get('subject', '') if original else ''}) was reverted by {record.sha[:12]}"
        written = self.retier(
            None,
            session=session,
            step=TIER_DOWN,
            op="demote",
            source="capture:revert",
            reason=reason,
        )
        self.log("post-commit", "demoted", f"{len(written.ids)} note(s)", session)
        return written

    # ------------------------------------------------------------------ idle sweep

    def idle_sweep(
        self,
        root: Path,
        *,
        threshold: float,
        max_age: float,
        limit: int,
    ) -> list[tuple[str, Queued]]:
        """Queue transcripts quiet for ``threshold`` seconds but younger than ``max_age``."""
        now = self.clock()
        found: list[tuple[float, Path]] = []
        if root.is_dir():
            for path in root.rglob("*.jsonl"):
                with contextlib.suppress(OSError):
                    age = now - path.stat().st_mtime
                    if threshold <= age < max_age:
                        found.append((age, path))
        results: list[tuple[str, Queued]] = []
        for _age, path in sorted(found):
            if len([r for r in results if r[1].entry_id and r[1].created]) >= limit:
                break
            queued = self.enqueue(str(path), "idle", session=path.stem, scope="session")
            results.append((str(path), queued))
        return results

    def idle_settings(self) -> tuple[Path, float, float, int]:
        """(projects root, threshold, max age, per-sweep limit), as config read them."""
        s = self.settings
        return (
            s.idle_projects_root,
            float(s.idle_threshold_sec),
            float(s.idle_max_age_sec),
            s.idle_max_per_sweep,
        )

    @property
    def idle_disabled(self) -> bool:
        return self.cfg.disabled or self.settings.idle_disabled


@dataclass(frozen=True)
class CommitRecord:
    """One line of ``commits.jsonl``."""

    sha: str
    branch: str | None
    subject: str
    body: str
    files: list[str]
    session: str | None
    merge_conflict_resolved: bool
    parents: list[str]
    reverts: str | None
    repo: str
    ts: str

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _num(value: object, default: float) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    return default


def _reverted(body: str) -> str | None:
    m = REVERTS.search(body)
    return m.group(1) if m else None


def _session_note_paths(store: Any, session: str) -> list[str]:
    """Live notes whose frontmatter ties them to ``session``."""
    if not session:
        return []
    needle = session.encode("utf-8")
    out = []
    for path, blob in sorted(store.list_files(DOCUMENTS + "/").items()):
        if not path.endswith(".md"):
            continue
        data = store.read_blob(blob)
        if needle in data and _names_session(data, session):
            out.append(path)
    return out


def _names_session(data: bytes, session: str) -> bool:
    from reflectgit.notes.note import parse_note

    try:
        front = parse_note(data).frontmatter
    except Exception:
        return False
    episodes = front.get("source_episodes")
    return front.get("session_id") == session or (
        isinstance(episodes, list) and session in episodes
    )


def terminal_transcripts(state_dir: Path) -> set[str]:
    """Transcripts the drain's ledger marks as done (``dup-already-processed``)."""
    from reflectgit.state.ledger import terminal_transcripts as from_ledger

    return {os.path.normpath(p) for p in from_ledger(state_dir)}


def _validate(note: Any, path: str) -> None:
    """Refuse a note whose committed bytes would not validate (nothing is written then)."""
    from reflectgit.errors import NoteError
    from reflectgit.notes.note import render_note
    from reflectgit.notes.schema import validate_note_bytes

    problems = [p for p in validate_note_bytes(render_note(note), path) if p.severity == "error"]
    if problems:
        first = problems[0]
        raise NoteError(
            f"{path}:{first.line}:{first.column}: {first.field}: {first.message}",
            line=first.line,
            column=first.column,
            field=first.field,
        )


@contextlib.contextmanager
def _flock(path: Path) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
