"""Capture: what hooks record while people and agents work. The workflow behind every hook.

Three things happen here, all cheap and deterministic:

- commit capture: one line per commit in ``<state>/commits.jsonl``; a revert demotes the
  learnings of the reverted commit's session in one commit;
- notes: agent events that are unambiguous become validated notes, committed through the KB's
  mutation door (``Reflect-Source: capture:<event>``) by the capture pass over the session's
  event log (``sessionpass.py``), never inside the agent's tool call;
- queueing: transcripts that might hold a lesson go to the durable queue when the gate passes.

Everything written (notes, commit messages, queue entries, logs) passes ``privacy.clean``
first. Heavy modules (dulwich, YAML, the schema) are imported only when a note is written.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from reflectgit import jsonio
from reflectgit.config import DOCUMENTS, CaptureSettings, Config
from reflectgit.notes import authorship
from reflectgit.notes.dates import format_epoch, from_epoch
from reflectgit.notes.lazyre import Pattern
from reflectgit.notes.privacy import clean, clean_data
from reflectgit.notes.words import plural
from reflectgit.state.eventlog import safe_session
from reflectgit.workflows.capture.hooklog import LOG_DIR, HookLog

if TYPE_CHECKING:  # the gate, git and datetime are imported where they are used
    import datetime as dt
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from pathlib import Path
    from typing import Any

    from reflectgit.workflows.capture.gate import Verdict

    Clock = Callable[[], float]

CAPTURE_DIR = "capture"
COMMITS_FILE = "commits.jsonl"
DEDUP_TAIL = 64 * 1024  # bytes of commits.jsonl's end searched for a sha recorded twice
LAST_EVENT = "last-event.json"
STATE_TTL = 6 * 3600  # per-session test, loop and todo state
# One tier ladder and one tier table for every writer (notes/edit.py, notes/note.py).
TIER_UP = {"low": "medium", "medium": "high", "high": "high"}
TIER_DOWN = {"high": "medium", "medium": "low", "low": "low"}
REVERTS = Pattern(r"This reverts commit ([0-9a-f]{7,40})")


def iso(ts: float) -> str:
    """UTC ISO 8601 to the second, ``Z`` suffix."""
    return format_epoch(ts)


def _now(clock: Clock) -> dt.datetime:
    return from_epoch(clock())


def session_from_settings(settings: CaptureSettings) -> str | None:
    """The agent session the harness exported (``CLAUDE_CODE_SESSION_ID``, ``CODEX_THREAD_ID`` ...,
    as config read them), else None."""
    return safe_session(settings.session_id)


@dataclass
class NoteDraft:
    """A note a hook wants to write, before it gets an id and is validated."""

    kind: str  # test-fix, correction, permission
    event: str  # the hook event that produced it (for Reflect-Source)
    title: str
    confidence: str
    body: str
    session: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    slug: str = ""  # what the id is made from, when not the title


@dataclass(frozen=True, slots=True)
class Written:
    """Notes committed by one capture: ids and the commit."""

    ids: tuple[str, ...]
    commit: str | None


@dataclass(frozen=True, slots=True)
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
        cfg.capture  # noqa: B018  (a malformed value falls back, with a warning logged below)
        self.hooklog = HookLog(cfg, clock)  # logs those fallbacks

    # ------------------------------------------------------------------ where things live

    @property
    def settings(self) -> CaptureSettings:
        """Built when the capture starts, so that its fallbacks are logged at once."""
        return self.cfg.capture

    @property
    def state_dir(self) -> Path:
        return self.cfg.state_dir

    @property
    def root(self) -> Path:
        return self.cfg.state_dir / CAPTURE_DIR

    @property
    def usable(self) -> bool:
        """False when there is no KB to capture into (we never create one by accident)."""
        return self.hooklog.usable

    def _state_file(self, kind: str, session: str) -> Path:
        return self.root / kind / f"{session}.json"

    def load(self, kind: str, session: str) -> dict[str, Any] | None:
        try:
            with open(self._state_file(kind, session), encoding="utf-8") as fh:
                data = jsonio.loads(fh.read())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def save(self, kind: str, session: str, data: Mapping[str, Any], scrub: bool = True) -> None:
        """Write per-session state (scrubbed unless it holds no captured text at all)."""
        folder = os.path.join(self.root, kind)
        target = os.path.join(folder, f"{session}.json")
        os.makedirs(folder, exist_ok=True)
        tmp = os.path.join(folder, f".{session}.json.{os.getpid()}.tmp")
        doc = clean_data(dict(data)) if scrub else dict(data)
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(jsonio.dumps(doc, sort_keys=True))
        os.replace(tmp, target)

    def session_lock(self, session: str) -> _flock:
        """Hold the per-session state lock (released if the process dies)."""
        folder = os.path.join(self.root, "locks")
        os.makedirs(folder, exist_ok=True)
        return _flock(os.path.join(folder, f"{session}.lock"))

    def drop(self, kind: str, session: str) -> None:
        try:  # noqa: SIM105  (no contextlib on the hook path)
            os.unlink(self._state_file(kind, session))
        except OSError:
            pass

    def sweep(self, ttl: float = STATE_TTL) -> int:
        """Remove per-session state older than ``ttl`` seconds, and the capture pass's locks of
        sessions with no events left; returns how many files went."""
        from reflectgit.state import eventlog, sessionrecord

        cutoff = self.clock() - ttl
        removed = eventlog.sweep(self.cfg.state_dir, cutoff)
        removed += sessionrecord.sweep(self.cfg.state_dir, self.clock() - sessionrecord.RETENTION)
        try:
            folders = [e.path for e in os.scandir(self.root) if e.is_dir()]
        except OSError:  # no state yet
            return 0
        for folder in folders:
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            items = [n for n in names if n.endswith(".json")]  # what glob("*.json") lists,
            items += [n for n in names if n.endswith(".lock")]  # dot files included
            for name in items:
                item = os.path.join(folder, name)
                try:
                    if os.stat(item).st_mtime < cutoff:
                        os.unlink(item)
                        removed += 1
                except OSError:
                    pass
        return removed

    # ------------------------------------------------------------------ breadcrumbs

    def log(self, event: str, outcome: str, detail: str = "", session: str | None = None) -> None:
        """One line in ``<state>/logs/hooks.log`` (``hooklog``); never raises."""
        self.hooklog.write(event, outcome, detail, session)

    def breadcrumb(self, event: str, error: BaseException) -> None:
        """Record a swallowed error: the log line plus ``last-event.json``."""
        detail = f"{type(error).__name__}: {error}"
        self.log(event, "error", detail)
        from reflectgit.state import errors  # the errors ledger counts it (`reflect-git errors`)

        errors.record(self.state_dir, errors.HOOK_FAILURE, f"{event}: {detail}", event=event)
        try:
            folder = self.state_dir / LOG_DIR
            folder.mkdir(parents=True, exist_ok=True)
            doc = {"ts": iso(self.clock()), "event": event, "error": clean(detail)[:2000]}
            (folder / LAST_EVENT).write_text(jsonio.dumps(doc) + "\n", encoding="utf-8")
        except Exception:
            pass

    # ------------------------------------------------------------------ notes

    def write_notes(self, drafts: Sequence[NoteDraft]) -> Written:
        """Validate the drafts and commit them as one commit, through the KB's mutation door.

        A draft that states a rule a live note already states (the twin finder the drain uses
        too) confirms that note instead of adding a twin; captured again in the same session
        it changes nothing at all.
        """
        if not drafts:
            return Written((), None)
        from reflectgit.git.change import write
        from reflectgit.notes import edit, messages
        from reflectgit.notes.note import Note, new_id, parse_note, render_note
        from reflectgit.workflows.drain.kbview import KbView
        from reflectgit.workflows.kb import KnowledgeBase
        from reflectgit.workflows.kb.base import Edit, Snapshot, check_note

        now = _now(self.clock)
        first = drafts[0]
        source = f"capture:{first.event}"

        def build(snap: Snapshot) -> Edit[list[tuple[int, str, str]]]:
            taken: set[str] = set()
            changes = []
            done: list[tuple[int, str, str]] = []  # (draft index, note id, added|confirmed|known)
            for index, draft in enumerate(drafts):
                title = clean(draft.title).strip() or draft.kind
                body = clean(draft.body)
                rule = clean(str(draft.fields.get("rule") or ""))
                # Only a note that states a rule (a correction, a permission answer) can have
                # a twin; a record of an event (tests fixed, a todo done) is its own note.
                twin = twins.find(title, rule) if rule or draft.kind == "correction" else None
                found = snap.find(twin.id, ("live",), scan=False) if twin else None
                if found is not None:
                    known = parse_note(found.data, found.path)
                    episodes = known.frontmatter.get("source_episodes")
                    proof = draft.session or f"capture:{draft.event}"
                    same = isinstance(episodes, list) and draft.session in episodes
                    updated = None if same else edit.confirm(known, proof)
                    if updated is not None:
                        changes.append(write(found.path, render_note(updated)))
                    done.append((index, found.id, "confirmed" if updated else "known"))
                    continue

                def exists(candidate: str) -> bool:
                    return candidate in taken or snap.exists(f"{DOCUMENTS}/{candidate}.md")

                slug, prefix = clean(draft.slug) or title, f"lrn-{draft.kind}-"
                if draft.session and _replayed(snap, new_id(slug, body, prefix=prefix), draft):
                    # The same title and body from the same session: this capture, handled
                    # again (a capture pass killed before it moved its cursor).
                    done.append((index, new_id(slug, body, prefix=prefix), "known"))
                    continue
                note_id = new_id(slug, body, exists, prefix=prefix)
                taken.add(note_id)
                note = Note(self._frontmatter(draft, note_id, title, now), body)
                check_note(note, f"{DOCUMENTS}/{note_id}.md")
                changes.append(write(f"{DOCUMENTS}/{note_id}.md", render_note(note)))
                done.append((index, note_id, "added"))
                twins.add(note_id, title, rule)
            if not changes:
                return Edit(done)
            ids = [nid for _, nid, how in done if how != "known"]
            added = [drafts[i] for i, _, how in done if how == "added"]
            tier = first.confidence
            if len(added) == 1 and len(ids) == 1:
                subject, op = messages.knowledge_subject(clean(added[0].title), tier), "add"
            elif added:
                subject = messages.chore_subject("add", f"{len(ids)} captured learnings")
                op = "add"
            else:
                subject, op = messages.chore_subject("confirm", ", ".join(ids)), "confirm"
            msg = messages.build(
                subject,
                op,
                ids,
                confidence=tier if added else None,
                source=source,
                extra=[("Reflect-Session", first.session)] if first.session else (),
            )
            return Edit(done, changes, msg)

        with KnowledgeBase.open(
            self.cfg.kb, env=self.cfg.env, state_dir=self.cfg.state_dir, source=source
        ) as kb:
            twins = KbView(kb.store, self.state_dir).twins()
            result = kb.mutate(build)
        for index, note_id, how in result.value:
            draft = drafts[index]
            if how == "added" and draft.session and draft.kind != "test-fix":
                self._remember_note(draft.session, note_id)
        return Written(tuple(nid for _, nid, _ in result.value), result.commit)

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
            "confidence_num": _tier_num(draft.confidence),
            "learning_type": draft.kind,
            "title": title,
            "tags": list(dict.fromkeys(t.lower() for t in tags if t.strip())),
            "category": extra.pop("category", "process"),
            "source_episodes": [draft.session] if draft.session else [],
            "provenance": {
                "source_tool": authorship.CAPTURE_TOOL,
                "detected_at": now,
                "proof_count": 1,
                "written_by": authorship.CAPTURE,  # reviewed by a person before the team
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

        ``note_ids`` None means every live note that came from ``session``. Goes through the
        KB's mutation door: a note a user updates meanwhile is re-read and re-tiered on top of
        the user's edit; one deleted meanwhile is left deleted.
        """
        from reflectgit.git.change import write
        from reflectgit.notes import edit, messages
        from reflectgit.notes.inplace import rewrite_note
        from reflectgit.notes.note import parse_note
        from reflectgit.workflows.kb import KnowledgeBase
        from reflectgit.workflows.kb.base import Edit, Snapshot, stem

        now = _now(self.clock)
        wanted = list(note_ids) if note_ids is not None else None

        def build(snap: Snapshot) -> Edit[list[str]]:
            if wanted is None:
                candidates = _session_note_paths(snap, session or "")
            else:
                candidates = [f"{DOCUMENTS}/{i}.md" for i in wanted]
            changes = []
            ids = []
            for path in candidates:
                data = snap.read(path)
                if data is None:
                    continue
                try:
                    note = parse_note(data, path)
                except Exception:
                    continue
                moved = edit.retier(note, step, now, validated=validated)
                if moved is None:
                    continue
                changes.append(write(path, rewrite_note(data, moved)))  # keeps the file
                ids.append(moved.id or stem(path))
            if not changes:
                return Edit(ids)
            subject = messages.chore_subject(
                op, f"{plural(len(ids), 'learning')} from session {(session or '?')[:8]}"
            )
            extra = [("Reflect-Reason", clean(reason))]
            if session:
                extra.insert(0, ("Reflect-Session", session))
            return Edit(ids, changes, messages.build(subject, op, ids, source=source, extra=extra))

        with KnowledgeBase.open(
            self.cfg.kb, env=self.cfg.env, state_dir=self.cfg.state_dir, source=source
        ) as kb:
            done = kb.mutate(build)
        return Written(tuple(done.value), done.commit)

    # ------------------------------------------------------------------ queue

    def _model_writer(self) -> bool:
        """Does the drain write with a model? As the drain resolves its writer: the one set,
        else a model when a model command is configured or installed (``writer.auto_writer``);
        yes when the settings cannot be read (the gate fails open: the drain reports them)."""
        from reflectgit.errors import ReflectGitError

        try:
            chosen = self.cfg.drain.writer.strip().lower()
            if not chosen:
                from reflectgit.workflows.drain.writer import auto_writer

                chosen = auto_writer(self.cfg.writer, self.cfg.env)
        except ReflectGitError:
            return True
        return chosen != "heuristic"

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
        from reflectgit.errors import DeadLetterError
        from reflectgit.state.queue import QUEUE_DIR, Queue, entry_id
        from reflectgit.workflows.capture.gate import evaluate

        queue_dir = self.state_dir / QUEUE_DIR

        def queued(path: str) -> bool:
            return (queue_dir / f"{entry_id(path)}.json").exists()

        def processed(path: str) -> bool:
            # Drained, and not grown since: Stop fires every turn, and a session's later
            # turns (its end-of-session corrections) must reach the drain too.
            return drained_as_is(self.state_dir, path)

        verdict = evaluate(
            transcript, is_queued=queued, is_processed=processed, model=self._model_writer()
        )
        if not verdict.enqueue:
            return Queued(verdict)
        try:
            entry, created = Queue(self.state_dir, clock=self.clock).add(
                transcript,
                trigger,
                session or "",
                cwd=clean(cwd) if cwd else None,
                harness=harness,
                scope=scope,
                extra={**clean_data(dict(extra or {})), "gate": verdict.reason},
            )
        except DeadLetterError:  # an operator's call (`queue retry`), not a hook's
            self.log(trigger, "dead-letter", entry_id(transcript), session)
            return Queued(verdict)
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
        # Masked whole before the split: a key block cut across subject and body still counts.
        subject, _, body = clean(info["message"]).partition("\n")
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

    def record_merge(self, repo: Path) -> CommitRecord | None:
        """What git's post-merge hook runs: record the merge commit a clean ``git merge`` made.

        git runs post-commit only for a merge whose conflicts were resolved and committed by
        hand; a clean merge fires post-merge alone. Only a true merge made here is recorded
        (two parents, the first one the HEAD before the merge, ``ORIG_HEAD``): a fast-forward
        brings commits made elsewhere, which are no session's work here.
        """
        from reflectgit.git.repo_info import read_commit

        head = read_commit(repo, "HEAD", self.cfg.env)
        before = read_commit(repo, "ORIG_HEAD", self.cfg.env)
        if head is None or len(head["parents"]) < 2:
            self.log("post-merge", "skip", "not a merge commit (a fast-forward)")
            return None
        if before is None or head["parents"][0] != before["sha"]:
            self.log("post-merge", "skip", "HEAD is not the merge just made")
            return None
        return self.record_commit(repo, head["sha"])

    def commits(self) -> list[dict[str, Any]]:
        """Every recorded commit, the rotated file's first (unreadable lines skipped).

        Read only when a revert looks for the commit it reverts, never on a plain capture.
        """
        path = self.state_dir / COMMITS_FILE
        rows: list[dict[str, Any]] = []
        for part in (path.with_name(COMMITS_FILE + ".1"), path):
            try:  # noqa: SIM105  (no contextlib on the hook path)
                rows += _rows(part.read_bytes())
            except FileNotFoundError:
                pass
        return rows

    def _append_commit(self, record: CommitRecord) -> bool:
        """Append one line without reading the file: only its tail is looked at for the sha.

        The same sha comes back close behind its first record (post-commit and post-merge of
        one merge, a deferred capture replayed), so the last ``DEDUP_TAIL`` bytes are enough.
        Past ``commits_max_bytes`` the file rotates to ``commits.jsonl.1``, like the drain log.
        """
        self.state_dir.mkdir(parents=True, exist_ok=True)
        path = self.state_dir / COMMITS_FILE
        with _flock(self.state_dir / (COMMITS_FILE + ".lock")):
            try:
                if path.stat().st_size > self.settings.commits_max_bytes:
                    path.replace(path.with_name(COMMITS_FILE + ".1"))
            except FileNotFoundError:
                pass
            tail = _tail(path, DEDUP_TAIL)
            if any(row.get("sha") == record.sha for row in _rows(tail)):
                return False
            line = jsonio.dumps(record.to_dict(), sort_keys=True, ensure_ascii=False) + "\n"
            if tail and not tail.endswith(b"\n"):  # a torn last line: ours starts a new one
                line = "\n" + line
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
        self.log("post-commit", "demoted", plural(len(written.ids), "note"), session)
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
        """Queue transcripts quiet for ``threshold`` seconds but younger than ``max_age``;
        first, run the capture pass of the sessions whose events have been waiting as long (a
        session that never stopped)."""
        from reflectgit.notes.transcripts import side_session  # the sweep's only (5 ms)
        from reflectgit.workflows.capture.sessionpass import run_pending

        run_pending(self.cfg, quiet=threshold, now=self.clock())

        now = self.clock()
        found: list[tuple[float, Path]] = []
        if root.is_dir():
            for path in root.rglob("*.jsonl"):
                if side_session(str(path)) is not None:
                    continue  # a subagent's or compaction agent's file: its parent's session
                try:
                    age = now - path.stat().st_mtime
                    if threshold <= age < max_age:
                        found.append((age, path))
                except OSError:
                    pass
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


@dataclass(frozen=True, slots=True, kw_only=True)
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
        return asdict(self)


def _rows(data: bytes) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines text; unreadable lines skipped."""
    rows: list[dict[str, Any]] = []
    for raw in data.splitlines():
        try:
            row = jsonio.loads(raw)
            if isinstance(row, dict):
                rows.append(row)
        except ValueError:
            pass
    return rows


def _tail(path: Path, size: int) -> bytes:
    """The last ``size`` bytes of a file from the start of a line (b"" when it is missing)."""
    try:
        with path.open("rb") as fh:
            end = fh.seek(0, os.SEEK_END)
            if end <= size:
                fh.seek(0)
                return fh.read()
            fh.seek(end - size)
            data = fh.read()
            cut = data.find(b"\n")
            return data[cut + 1 :] if cut >= 0 else data[-1:]
    except FileNotFoundError:
        return b""


def _tier_num(tier: str) -> float:
    from reflectgit.notes.note import TIER_NUM

    return TIER_NUM[tier]


def _replayed(snap: Any, note_id: str, draft: NoteDraft) -> bool:
    """Is the note ``note_id`` already on the branch, written in the draft's session?"""
    from reflectgit.notes.note import parse_note

    found = snap.find(note_id, ("live",), scan=False)
    if found is None:
        return False
    try:
        return bool(
            parse_note(found.data, found.path).frontmatter.get("session_id") == draft.session
        )
    except Exception:
        return False


def _reverted(body: str) -> str | None:
    m = REVERTS.search(body)
    return m.group(1) if m else None


def _session_note_paths(snap: Any, session: str) -> list[str]:
    """Live notes whose frontmatter ties them to ``session`` (in a door snapshot)."""
    if not session:
        return []
    needle = session.encode("utf-8")
    out = []
    for path, blob in sorted(snap.list(DOCUMENTS).items()):
        if not path.endswith(".md"):
            continue
        data = snap.read_blob(blob)
        if needle in data and _names_session(data, session):
            out.append(path)
    return out


def _names_session(data: bytes, session: str) -> bool:
    """Was this note made in ``session``: by a hook (``session_id``, or the session in
    ``source_episodes``) or by the drain (``drain:<session>``; a Codex rollout's drain source
    is its file stem, which ends with the thread id)? Confirmations by a session are not
    counted: they live in ``provenance.source_memory_ids``, and the note is not that
    session's."""
    from reflectgit.notes.note import parse_note

    try:
        front = parse_note(data).frontmatter
    except Exception:
        return False
    if front.get("session_id") == session:
        return True
    episodes = front.get("source_episodes")
    if not isinstance(episodes, list):
        return False
    drained = f"drain:{session}"
    return any(
        isinstance(e, str)
        and (e in (session, drained) or (e.startswith("drain:") and e.endswith(f"-{session}")))
        for e in episodes
    )


def drained_as_is(state_dir: Path, path: str) -> bool:
    """Has the drain finished with this transcript, and has it not grown since?"""
    from reflectgit.state.ledger import drained

    done = drained(state_dir).get(os.path.normpath(path))
    if done is None:
        return False
    try:
        st = os.stat(path)
    except OSError:
        return True  # gone: nothing more to drain (the gate fails open on what it can read)
    return done.covers(st.st_size, st.st_mtime)


class _flock:  # used as a function: ``with _flock(path):`` (a class: no ``contextlib``)
    """Hold an exclusive lock on ``path`` (created if missing), bounded inside a hook."""

    def __init__(self, path: str | Path) -> None:
        self.path = path
        self.fd = -1

    def __enter__(self) -> None:
        from reflectgit.git import lockwait  # bounded inside a hook (git/lockwait.py)

        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            lockwait.acquire(fd, lockwait.limit(None), os.path.basename(self.path))
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)
