"""The drain: queued transcripts in, pre-validated commits out, every budget gate on the way.

Run gates: kill switch, an OS lock a dead owner cannot hold, debounce, the daily cap (summed
from today's ledger rows, UTC) and the per-run cap. Per entry: quota gate, staleness, retry
limit, the $0 cascade, one writer call (``extract``: one model command; ``heuristic``: no
model), the safety rules of ``actions``, one commit per transcript, one ledger row, and the
queue effect of the outcome. A dry run calls no model and writes nothing durable.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import importlib
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from reflectgit import flock
from reflectgit.config import (
    ARCHIVED,
    DOCUMENTS,
    DRAIN_MODEL_ENV,
    INTERNAL_ENV,
    Config,
)
from reflectgit.errors import ConfigError, ReflectGitError, StorageError, UsageError
from reflectgit.notes.dates import format_epoch, parse_instant
from reflectgit.notes.inplace import rewrite_note
from reflectgit.notes.messages import build, chore_subject, knowledge_subject
from reflectgit.notes.note import TIERS, render_note, render_sidecar, sidecar_path_for
from reflectgit.notes.privacy import clean
from reflectgit.notes.words import plural
from reflectgit.state import ledger
from reflectgit.state.queue import Entry, Queue
from reflectgit.workflows.drain import actions as act
from reflectgit.workflows.drain import cascade, heuristic, quota
from reflectgit.workflows.drain import writer as wr
from reflectgit.workflows.drain.kbview import KbView
from reflectgit.workflows.project import project_name

WRITERS = ("extract", "heuristic")
LOCK_FILE = "drain.lock"
STAMP_FILE = "drain.last-run"
LOG_FILE = "drain.log"
CHUNKS_FILE = "drain-chunks.txt"

Clock = Callable[[], float]


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class Settings:
    """One drain run's settings, resolved by ``from_config``: the defaults live in one place,
    ``reflectgit.config.DrainSettings`` (and ``WriterSettings``, ``QuotaSettings``)."""

    disabled: bool
    max_per_run: int
    daily_max: int
    debounce_sec: int
    timeout: int
    model_timeout: float | None
    timeout_retries: int
    max_retries: int
    invalid_threshold: int
    token_max: int
    max_input_chars: int
    cascade: bool
    writer: str
    command: tuple[str, ...]
    model: str
    dry_run: bool
    cwd: str | None
    stale_days: int
    log_max_bytes: int
    route: bool
    quota: quota.QuotaSettings

    @classmethod
    def from_config(
        cls,
        cfg: Config,
        *,
        dry_run: bool | None = None,
        max_entries: int | None = None,
        writer: str | None = None,
    ) -> Settings:
        if max_entries is not None and max_entries < 0:
            raise UsageError("--max must be 0 or more")
        d = cfg.drain_settings(dry_run=dry_run, max_per_run=max_entries, writer=writer)
        chosen = d.writer.strip().lower()
        if chosen == "agentic":
            # The original tool's multi-turn writer; its single-shot successor does the job.
            chosen = "extract"
        if chosen and chosen not in WRITERS:
            raise UsageError(
                f"unknown drain writer {chosen!r}",
                hint="use extract (one model call) or heuristic (no model)",
            )
        command: tuple[str, ...] = ()
        model = wr.DEFAULT_MODEL
        if chosen != "heuristic":
            # Only a drain that may call the model reads the model command: a malformed
            # REFLECT_DRAIN_CMD is this writer's error, never the heuristic writer's.
            try:
                w = cfg.writer
            except ConfigError as exc:
                raise ConfigError(
                    exc.message,
                    hint="write REFLECT_DRAIN_CMD as shell words (quotes closed), e.g. "
                    "REFLECT_DRAIN_CMD='my-model --json'; or drain with --writer heuristic",
                ) from None
            command, model = tuple(wr.command_for(w)), w.model
            if not chosen:
                chosen = wr.auto_writer(w, cfg.env)
        # Every field DrainSettings shares with this run's settings is taken by name; the
        # rest is what this run resolved (the writer, its command and model, the quota).
        shared = {f.name: getattr(d, f.name) for f in fields(cls) if hasattr(d, f.name)}
        shared.update(
            disabled=cfg.disabled,
            model_timeout=d.model_timeout or None,
            writer=chosen,
            command=command,
            model=model,
            quota=cfg.quota,
        )
        return cls(**shared)


# --------------------------------------------------------------------------- results


@dataclass
class Report:
    """What a drain run did: why it stopped, and one row per entry it looked at."""

    status: (
        str  # ran | disabled | empty | locked | debounced | daily_cap | aborted | quota_deferred
    )
    dry_run: bool
    writer: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    message: str = ""
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "dry_run": self.dry_run,
            "writer": self.writer,
            "message": self.message,
            "warnings": self.warnings,
            "rows": self.rows,
        }


# --------------------------------------------------------------------------- state helpers


@contextlib.contextmanager
def drain_lock(state_dir: Path) -> Iterator[bool]:
    """An OS file lock (released by the kernel when its owner dies); yields False if held."""
    state_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(state_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if not flock.hold(fd, 0):
            yield False
            return
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _read_stamp(state_dir: Path) -> float | None:
    try:
        return float((state_dir / STAMP_FILE).read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None


def _write_stamp(state_dir: Path, now: float) -> None:
    path = state_dir / STAMP_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(f"{now:.3f}\n", encoding="utf-8")
    tmp.replace(path)


class ChunkMemory:
    """Hashes of slice chunks already reflected on (delta retain)."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / CHUNKS_FILE
        self._seen: set[str] | None = None

    def seen(self, digest: str) -> bool:
        if self._seen is None:
            try:
                self._seen = set(self.path.read_text(encoding="utf-8").split())
            except OSError:
                self._seen = set()
        return digest in self._seen

    def record(self, digests: Sequence[str]) -> None:
        if not digests:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write("".join(f"{d}\n" for d in digests))
            fh.flush()
            os.fsync(fh.fileno())
        if self._seen is not None:
            self._seen.update(digests)


class DrainLog:
    """``state_dir/drain.log``: ids, outcomes and counts only (never transcript text)."""

    def __init__(self, state_dir: Path, max_bytes: int, clock: Clock) -> None:
        self.path = state_dir / LOG_FILE
        self.max_bytes = max_bytes
        self.clock = clock

    def __call__(self, message: str) -> None:
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists() and self.path.stat().st_size > self.max_bytes:
                self.path.replace(self.path.with_name(LOG_FILE + ".1"))
            stamp = format_epoch(self.clock())
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(f"{stamp} [{os.getpid()}] {clean(message)}\n")


# --------------------------------------------------------------------------- the run


class Drain:
    """One drain run over a KB's queue (construct, then ``run``)."""

    # Told ``(entries done, entries picked)`` as the run goes (the CLI's progress bar).
    progress: Callable[[int, int], None] | None = None

    def __init__(
        self,
        cfg: Config,
        settings: Settings,
        *,
        clock: Clock = time.time,
        queue: Queue | None = None,
    ) -> None:
        self.cfg = cfg
        self.s = settings
        self.clock = clock
        self.state_dir = cfg.state_dir
        # A dry run reads the queue as it is: a corrupt file stays where it is.
        self.queue = queue or Queue(cfg.state_dir, clock=clock, read_only=settings.dry_run)
        self.log = DrainLog(cfg.state_dir, settings.log_max_bytes, clock)
        self.chunks = ChunkMemory(cfg.state_dir)
        self._store: Any = None
        self._index: KbView | None = None
        self._mtimes: dict[str, tuple[int, int] | None] = {}
        self._drained: dict[str, ledger.Drained] | None = None

    # ---------------------------------------------------------------- helpers

    @property
    def store(self) -> Any:
        if self._store is None:
            from reflectgit.git.store import Store

            self._store = Store.open(self.cfg.kb, env=self.cfg.env)
        return self._store

    @property
    def index(self) -> KbView:
        if self._index is None:
            self._index = KbView(self.store, self.state_dir, save=not self.s.dry_run)
        return self._index

    def _now(self) -> dt.datetime:
        return dt.datetime.fromtimestamp(self.clock(), dt.timezone.utc).replace(microsecond=0)

    # ---------------------------------------------------------------- run gates

    def run(self) -> Report:
        """Apply the run gates, then process up to the per-run cap of ready entries."""
        s = self.s
        report = Report("ran", s.dry_run, s.writer)
        if s.disabled:
            report.status, report.message = "disabled", "REFLECT_DISABLED=1: nothing to do"
            return report
        if not s.dry_run:
            self.queue.import_all_legacy(self.cfg.env.get("HOME"))
            report.warnings.extend(self.queue.notices)
            self._capture_pass()
        if self.queue.empty():  # names only: a run never reads the whole queue
            report.status, report.message = "empty", "the queue is empty"
            return report
        try:
            self.store  # noqa: B018 - fail early and clearly when the KB is not a repository
            return self._run_locked(report)
        finally:
            if self._store is not None:
                self._store.close()
                self._store = None
                self._index = None

    def _capture_pass(self) -> None:
        """Sessions whose events no capture pass handled (they never stopped): handle them
        now, so their notes land and their transcripts are queued before the queue is read."""
        from reflectgit.workflows.capture.sessionpass import run_pending

        try:
            done = run_pending(self.cfg)
        except Exception as exc:  # the capture's own trouble never stops a drain
            self.log(f"capture pass: {type(exc).__name__}: {exc}")
            return
        if done:
            self.log("capture pass: " + " ".join(f"{k}={v}" for k, v in sorted(done.items())))

    def _run_locked(self, report: Report) -> Report:
        s = self.s
        # A dry run takes no lock (it writes nothing a real run could trip over) and so
        # leaves no drain.lock behind: its log is the only file it writes.
        lock = contextlib.nullcontext(True) if s.dry_run else drain_lock(self.state_dir)
        with lock as held:
            if not held:
                report.status, report.message = "locked", "another drain is running"
                return report
            now = self.clock()
            last = _read_stamp(self.state_dir)
            # A stamp from the future (clock moved back) never blocks drains for good.
            if last is not None and 0 <= now - last < s.debounce_sec:
                wait = int(s.debounce_sec - (now - last))
                if not s.dry_run:
                    report.status = "debounced"
                    report.message = f"a drain ran {int(now - last)}s ago; next in {wait}s"
                    return report
                report.warnings.append(f"a real run would be debounced for {wait}s")
            if not s.dry_run:
                _write_stamp(self.state_dir, now)
            rows = list(ledger.read_rows(self.state_dir))
            today = dt.datetime.fromtimestamp(now, dt.timezone.utc).date()
            charged, ok, failed = ledger.entries_on(rows, today)
            # The cap guards model spend; the heuristic writer spends nothing.
            if charged >= s.daily_max and s.writer == "extract":
                report.status = "daily_cap"
                report.message = (
                    f"daily cap reached: {charged}/{s.daily_max} entries today "
                    f"(successes={ok} failures={failed})"
                )
                if ok == 0 and failed > 0:
                    report.warnings.append(
                        "drain_budget_all_failures: the cap was spent on failures"
                    )
                self.log(("WARNING " if ok == 0 else "") + report.message)
                return report
            self.log(
                f"start writer={s.writer} dry_run={s.dry_run} charged_today={charged}/{s.daily_max}"
            )
            self._loop(report, charged)
            self.log(
                f"end status={report.status} "
                + " ".join(f"{r['entry_id']}={r['outcome']}" for r in report.rows)
            )
        return report

    def _loop(self, report: Report, charged: int) -> None:
        s = self.s
        picks = self.queue.ready(limit=s.max_per_run)  # the front of the queue, read alone
        tick = self.progress or (lambda done, total: None)
        tick(0, len(picks))
        for done, entry in enumerate(picks, 1):
            if self.s.writer == "extract" and charged >= s.daily_max:
                report.status = "daily_cap"
                report.message = f"daily cap of {s.daily_max} entries reached mid-run"
                break
            if self.s.writer == "extract" and not s.dry_run:
                closed = quota.gate_closed(self.state_dir, self.clock(), s.quota)
                if closed:
                    row = self._row(entry, "quota_deferred", detail=closed)
                    self._finish(report, entry, row)
                    report.status = "quota_deferred"
                    report.message = f"quota gate closed ({closed}); the rest stays queued"
                    break
            try:
                row = self.process(entry)
            except StorageError:
                raise  # the disk refused: every later entry would fail the same way
            except Exception as exc:  # one entry must never block the queue
                # A bug or an answer no rule foresaw: this entry gets its row and the retry
                # and poison path like any failure, and the queue moves on.
                self.log(f"entry {entry.id}: internal error {type(exc).__name__}: {exc}")
                row = self._row(
                    entry,
                    "fail_internal_error",
                    entries=0,
                    detail=f"{type(exc).__name__}: {exc}",
                )
            self._finish(report, entry, row)
            tick(done, len(picks))
            charged += int(row.get("entries") or 0)
            if row["outcome"] == "fail_unknown_command":
                report.status = "aborted"
                report.message = (
                    "the model command did not run a turn (an install fault); the run stops "
                    "without charging any entry's retries"
                )
                break
            if row["outcome"] == "quota_deferred":
                report.status = "quota_deferred"
                what = (
                    "an account limit (usage, credit or key)"
                    if str(row.get("detail", "")).startswith("account limit")
                    else "a rate limit"
                )
                report.message = (
                    f"the writer reported {what}; the quota gate is closed and the rest "
                    "stays queued"
                )
                break

    def _finish(self, report: Report, entry: Entry, row: dict[str, Any]) -> None:
        counters = row.pop("_counters", None)
        if not self.s.dry_run:
            # Row first: a crash in between replays the entry (a second row), never loses one.
            ledger.append_row(self.state_dir, row)
            self._apply_queue_effect(entry, row, counters)
        row_out = dict(row)
        row_out["dry_run"] = self.s.dry_run
        report.rows.append(row_out)
        self.log(
            f"entry {entry.id} outcome={row['outcome']} entries={row['entries']} "
            f"notes={len(row.get('notes') or [])} dropped={len(row.get('dropped') or [])}"
        )

    # ---------------------------------------------------------------- queue effects

    def _apply_queue_effect(
        self, entry: Entry, row: Mapping[str, Any], counters: Mapping[str, int] | None
    ) -> None:
        outcome = str(row["outcome"])
        detail = str(row.get("detail") or "")
        if outcome in ("ok", "stale", "partial_max_turns") or outcome.startswith("skip_"):
            if self._grew(entry):
                # The session went on while we read it: keep the entry so the new part is
                # drained too (delta retain skips what was already reflected on).
                self.queue.requeue(entry.id, f"{outcome}; transcript grew")
            else:
                self.queue.remove(entry.id)
        elif outcome.startswith(("poison", "quarantine_")):
            self.queue.dead_letter(entry.id, outcome, detail)
        elif outcome.startswith("fail_") and outcome != "fail_unknown_command":
            self.queue.bump_retry(entry.id, outcome, detail, counters)
        # fail_unknown_command and quota_deferred: left in place, untouched.

    def _grew(self, entry: Entry) -> bool:
        """Did the transcript change since this run started reading it?"""
        before = self._mtimes.get(entry.id)
        now = _stat_key(Path(entry.transcript_path))
        return before is not None and now is not None and now != before

    # ---------------------------------------------------------------- one entry

    def _row(self, entry: Entry, outcome: str, **values: Any) -> dict[str, Any]:
        row: dict[str, Any] = {
            "ts": format_epoch(self.clock()),
            "entry_id": entry.id,
            "session_id": entry.session_id,
            "transcript": entry.transcript_path,
            "trigger": entry.trigger,
            "outcome": outcome,
            "entries": 0,
            "tokens": 0,
            "tokens_in": 0,
            "tokens_out": 0,
            "tokens_cache": 0,
            "cost_usd": 0.0,
            "turns": 0,
            "model": None,
            "writer": self.s.writer,
            "writer_class": None,
            "notes": [],
            "confirmed": [],
            "archived": [],
            "dropped": [],
            "commit": None,
            "retries": entry.retries,
            "detail": "",
        }
        row.update(values)
        row["detail"] = clean(str(row.get("detail") or ""))[:300]
        return row

    def process(self, entry: Entry) -> dict[str, Any]:
        """Run one entry through staleness, retry limit, cascade, writer and commit."""
        s = self.s
        started = time.monotonic()
        path = Path(entry.transcript_path)
        if not path.is_file():
            return self._row(entry, "stale", detail="transcript missing on disk")
        self._mtimes[entry.id] = _stat_key(path)
        if s.stale_days > 0 and _age_days(entry, self.clock()) > s.stale_days:
            return self._row(entry, "stale", detail=f"queued over {s.stale_days} days ago")
        if entry.retries >= s.max_retries:
            return self._row(entry, "poison", detail=f"{entry.retries} retries recorded")
        after = self._already_read(entry)
        prepared = cascade.prepare(
            str(path),
            # The heuristic writer reads nothing but the signals: CASCADE=0 changes only what
            # a model is given, never leaves the heuristic writer without its input.
            cascade=s.cascade or s.writer == "heuristic",
            max_input_chars=s.max_input_chars,
            seen_chunks=self.chunks.seen,
            known_hash=self.index.by_signal_hash,
            candidates=self.index.candidates,
            after_line=after,
            # A session with no signal: a model reads it when the gate has no evidence it
            # holds nothing (``gate.unsignalled``), the heuristic writer reads signals only.
            model=s.writer != "heuristic",
            # A model is shown what the tools said too (failed calls, what then worked).
            tools=s.writer != "heuristic",
        )
        if not prepared.skip and not prepared.bounded:
            self._observations(entry, prepared)
        if not prepared.skip:
            self._session_events(entry, prepared)
        row = self._prepared_row(entry, prepared)
        read = self._mtimes.get(entry.id)
        row["transcript_bytes"] = read[0] if read else prepared.input_bytes
        row["dialogue_lines"] = max(prepared.dialogue_lines, after)
        if not prepared.skip:
            row["duration_ms"] = int((time.monotonic() - started) * 1000)
            row["input_chars"] = len(prepared.text)
            row["bounded"] = prepared.bounded
        return row

    def _observations(self, entry: Entry, prepared: cascade.Prepared) -> None:
        """The belief-revision block's second list: up to 10 consolidated observations (notes
        of ``type: observation``) for the session's project, as the original drain gives."""
        project = project_name(entry.cwd, self.cfg.env) if entry.cwd else None
        prepared.observations = [
            cascade.Related(nid, title, said)
            for nid, title, said in self.index.observations(project)
        ]

    def _session_events(self, entry: Entry, prepared: cascade.Prepared) -> None:
        """The session's event record (todos done, tests red and green again), for the
        writer as context: capture keeps these as events, never as notes."""
        from reflectgit.state import sessionrecord
        from reflectgit.state.eventlog import safe_session

        session = safe_session(entry.session_id or Path(entry.transcript_path).stem)
        if session is not None:
            prepared.events = sessionrecord.read(self.state_dir, session)

    def _prepared_row(self, entry: Entry, prepared: cascade.Prepared) -> dict[str, Any]:
        if prepared.skip == "stale":
            return self._row(entry, "stale", detail=prepared.detail)
        if prepared.skip == "dup-signal-hash" and prepared.duplicate_of:
            return self._confirm_duplicate(entry, prepared)
        if prepared.skip:
            return self._row(entry, f"skip_{prepared.skip}", detail=prepared.detail)
        return self._write(entry, prepared)

    def _already_read(self, entry: Entry) -> int:
        """Dialogue lines of this transcript an earlier drain read (0: none, or it shrank)."""
        if self._drained is None:
            self._drained = ledger.drained(self.state_dir)
        done = self._drained.get(os.path.normpath(entry.transcript_path))
        read = self._mtimes.get(entry.id)
        if done is None or read is None or done.size is None or read[0] < done.size:
            return 0  # never drained, an old row, or the file was replaced by a shorter one
        return done.lines

    def _context(self, entry: Entry, prepared: cascade.Prepared, tokens: int = 0) -> act.Context:
        harness = entry.harness or (prepared.transcript.harness if prepared.transcript else None)
        return act.Context(
            session_id=entry.session_id or Path(entry.transcript_path).stem,
            transcript_path=entry.transcript_path,
            now=self._now(),
            harness=harness if harness and harness != "unknown" else None,
            trigger=entry.trigger,
            content_hash=prepared.signal_hash,
            scope="global",
            project=project_name(entry.cwd, self.cfg.env) if entry.cwd else None,
            discovery_tokens=tokens or None,
            writer=self.s.writer,
            anchors=self._anchors(entry, prepared),
        )

    def _anchors(self, entry: Entry, prepared: cascade.Prepared) -> tuple[dict[str, str], ...]:
        """Anchors for the session's notes: the files its edit tool calls named and the files
        of the commits it made (commit capture), at HEAD."""
        from reflectgit.notes.anchors import edited_paths
        from reflectgit.workflows.code.anchoring import committed_files, session_anchors

        transcript = prepared.transcript
        if not entry.cwd or transcript is None:
            return ()
        files = edited_paths((call.name, call.input) for call in transcript.tool_calls)
        files += committed_files(self.cfg, entry.session_id)
        return tuple(session_anchors(entry.cwd, files, self.cfg.env))

    def _confirm_duplicate(self, entry: Entry, prepared: cascade.Prepared) -> dict[str, Any]:
        target = prepared.duplicate_of or ""
        ctx = self._context(entry, prepared)
        plan = act.Plan(confirms=[(target, "the same signals were seen again")])
        commit, applied = self._commit(entry, ctx, plan)
        return self._row(
            entry,
            "skip_dup-signal-hash",
            confirmed=applied.confirmed,
            commit=commit,
            dropped=applied.dropped,
            detail=f"confirms {target}",
        )

    # ---------------------------------------------------------------- writers

    def _write(self, entry: Entry, prepared: cascade.Prepared) -> dict[str, Any]:
        if self.s.writer == "heuristic":
            answer = heuristic.write(prepared)
            return self._apply(entry, prepared, answer, writer_class=wr.VALID, entries=0)
        return self._extract(entry, prepared)

    def _extract(self, entry: Entry, prepared: cascade.Prepared) -> dict[str, Any]:
        s = self.s
        argv = list(s.command)
        if wr.find_command(argv, self.cfg.env) is None:
            return self._row(
                entry,
                "fail_unknown_command",
                entries=0,
                detail=f"model command not found: {argv[0] if argv else '(empty)'}",
            )
        prompt = cascade.build_prompt(prepared, idle=entry.trigger == "idle")
        if s.dry_run:
            return self._row(
                entry,
                "dry_run_would_extract",
                detail=f"would call {argv[0]} with a {len(prompt)} character prompt",
            )
        env = dict(self.cfg.env)
        env[DRAIN_MODEL_ENV] = s.model
        env[INTERNAL_ENV] = "1"  # the writer's own session must not fire our capture hooks
        run = wr.run_model(
            argv,
            prompt,
            timeout=s.model_timeout or wr.model_timeout(s.timeout),
            cwd=s.cwd if s.cwd and os.path.isdir(s.cwd) else None,
            env=env,
        )
        acct = {
            "tokens": run.total_tokens,
            "tokens_in": run.tokens.get("input_tokens", 0),
            "tokens_out": run.tokens.get("output_tokens", 0),
            "tokens_cache": run.tokens.get("cache_read_input_tokens", 0)
            + run.tokens.get("cache_creation_input_tokens", 0),
            "cost_usd": run.cost_usd,
            "turns": run.turns if run.turns is not None else (0 if run.no_output else 1),
            "model": run.model or s.model,
        }
        now = self.clock()
        if run.rate_limit:
            quota.record(self.state_dir, now, info=run.rate_limit)
        if run.launch_error:
            return self._row(
                entry,
                "fail_unknown_command",
                entries=0,
                writer_class=wr.IDLE,
                detail=f"the model command could not start: {run.launch_error}",
            )
        if run.oversized:
            return self._invalid(entry, wr.MALFORMED, acct, f"an answer over {wr.MAX_OUTPUT} bytes")
        wclass, parsed = wr.classify(run.text)
        err_tail = (run.stderr.strip() or run.text.strip())[-300:]
        if wr.rate_limited(run):
            quota.record(self.state_dir, now, info=None, rejected=True)
            return self._row(
                entry,
                "quota_deferred",
                entries=0,
                writer_class=wclass,
                **acct,
                detail="rate limited: " + err_tail,
            )
        if wclass != wr.VALID and wr.quota_exhausted(run):
            # A usage limit, no credit or a rejected key: the account, not this entry. The
            # gate closes (until the reported reset, else for the snapshot's TTL); nothing
            # is charged and the entry keeps its place.
            quota.record(self.state_dir, now, info=None, rejected=True, resets_at=wr.resets_at(run))
            return self._row(
                entry,
                "quota_deferred",
                entries=0,
                writer_class=wclass,
                **{**acct, "tokens": 0, "cost_usd": 0.0},
                detail="account limit: " + err_tail,
            )
        if wclass != wr.VALID and wr.size_rejected(run):
            return self._row(
                entry,
                "quarantine_oversized",
                entries=0,
                writer_class=wr.POISONED,
                **acct,
                detail=err_tail,
            )
        if run.timed_out and wclass != wr.VALID:
            timeouts = entry.counters.get("timeouts", 0) + 1
            if run.no_output and timeouts > s.timeout_retries:
                return self._row(
                    entry,
                    f"poison_timeout_exit_{run.exit_code}",
                    entries=1,
                    writer_class=wclass,
                    **acct,
                    detail="no output before the timeout",
                )
            name = "fail_no_output_exit" if run.no_output else "fail_exit"
            return self._row(
                entry,
                f"{name}_{run.exit_code}",
                entries=1,
                writer_class=wclass,
                **acct,
                detail="timed out",
                _counters={"timeouts": timeouts},
            )
        if run.exit_code != 0 and wclass != wr.VALID:
            name = "fail_no_output_exit" if run.no_output else "fail_exit"
            return self._row(
                entry,
                f"{name}_{run.exit_code}",
                entries=1,
                writer_class=wclass,
                **acct,
                detail=err_tail,
            )
        if run.is_error:
            return self._row(
                entry, "fail_is_error", entries=1, writer_class=wclass, **acct, detail=err_tail
            )
        if run.turns == 0 or (run.exit_code == 0 and run.no_output):
            return self._row(
                entry,
                "fail_unknown_command",
                entries=0,
                writer_class=wr.IDLE,
                **acct,
                detail="the writer exited 0 without a turn",
            )
        if run.total_tokens > s.token_max:
            return self._row(
                entry,
                "poison_budget",
                entries=1,
                writer_class=wclass,
                **acct,
                detail=f"{run.total_tokens} tokens > {s.token_max}",
            )
        if wclass != wr.VALID or parsed is None:
            return self._invalid(entry, wclass, acct, f"{wclass} output")
        return self._apply(entry, prepared, parsed, writer_class=wclass, entries=1, acct=acct)

    def _invalid(
        self, entry: Entry, wclass: str, acct: Mapping[str, Any], detail: str
    ) -> dict[str, Any]:
        """An answer that is not a valid action object: retried, until the streak poisons."""
        streak = entry.counters.get("invalid", 0) + 1
        if streak >= self.s.invalid_threshold:
            return self._row(
                entry,
                "poison_writer_drift",
                entries=1,
                writer_class=wclass,
                **acct,
                detail=f"{streak} invalid writer outputs in a row ({detail})",
            )
        return self._row(
            entry,
            "fail_invalid_output",
            entries=1,
            writer_class=wclass,
            **acct,
            detail=detail,
            _counters={"invalid": streak},
        )

    # ---------------------------------------------------------------- applying

    def _apply(
        self,
        entry: Entry,
        prepared: cascade.Prepared,
        answer: Mapping[str, Any],
        *,
        writer_class: str,
        entries: int,
        acct: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        acct = dict(acct or {})
        ctx = self._context(entry, prepared, int(acct.get("tokens") or 0))
        raw_actions = answer.get("actions")
        plan = act.plan_actions(
            raw_actions if isinstance(raw_actions, list) else [],
            ctx,
            revision_ids=[] if prepared.bounded else prepared.revision_ids,
            exists=self.index.exists,
            twins=self.index.twins(),
        )
        try:
            commit, applied = self._commit(entry, ctx, plan)
        except StorageError:
            # The disk said no (full, read-only): every later entry would fail the same way.
            # Stop the run with the disk's own error; the entry stays queued, uncharged.
            raise
        except ReflectGitError as exc:
            return self._row(
                entry,
                "fail_write_error",
                entries=entries,
                writer_class=writer_class,
                **acct,
                detail=exc.message,
            )
        if not self.s.dry_run:
            self.chunks.record(prepared.chunk_hashes)
        routed = self._route(applied.created) if commit else []
        return self._row(
            entry,
            "ok",
            entries=entries,
            writer_class=writer_class,
            notes=applied.created,
            confirmed=applied.confirmed,
            archived=applied.archived,
            dropped=applied.dropped,
            commit=commit,
            routed=routed,
            **acct,
            detail=prepared.detail,
        )

    def _commit(
        self, entry: Entry, ctx: act.Context, plan: act.Plan
    ) -> tuple[str | None, _Applied]:
        """All of one transcript's changes as one commit, through the KB's mutation door.

        The notes to confirm or retire are read again at commit time (not from the view the
        drain took before it called its model), and the door commits with compare-and-swap on
        them: a note a user changed meanwhile is re-read and the action re-applied on top of
        the user's version; a note the user deleted or archived meanwhile is skipped (a
        ``dropped`` row), never resurrected. Nothing at all is written in a dry run.
        """
        dropped = [
            {k: clean(str(v)) if isinstance(v, str) else v for k, v in d.items()}
            for d in plan.dropped
        ]
        if plan.empty:
            return None, _Applied(dropped=dropped)
        from reflectgit.workflows.kb import KnowledgeBase
        from reflectgit.workflows.kb.base import Snapshot

        kb = KnowledgeBase(self.store, state_dir=self.state_dir, source=ctx.source)
        if self.s.dry_run:  # what a real run would do, read from the KB as it is now
            would: _Applied = _drain_edit(kb, Snapshot(kb), entry, ctx, plan).value
            would.dropped[:0] = dropped
            return None, would
        done = kb.mutate(lambda snap: _drain_edit(kb, snap, entry, ctx, plan))
        applied: _Applied = done.value
        applied.dropped[:0] = dropped
        if done.attempts > 1:
            self.log(
                f"entry {entry.id}: re-applied after {plural(done.attempts - 1, 'concurrent edit')}"
            )
        self.index.forget()
        return done.commit, applied

    def _route(self, ids: list[str]) -> list[dict[str, Any]]:
        """ROUTING HOOK: with ``drain.route = true``, hand each new note to ``routing.route``.

        The notes are already committed to the personal KB; a routing failure is recorded in
        the ledger row and never fails the entry (``reflect-git route ID`` retries it).
        """
        if not self.s.route or not ids or self.s.dry_run:
            return []
        try:
            routing = importlib.import_module("reflectgit.workflows.routing")
        except ImportError:
            return [{"id": i, "route": None, "error": "routing is not installed"} for i in ids]
        route = getattr(routing, "route", None)
        if route is None:
            return [{"id": i, "route": None, "error": "routing has no route()"} for i in ids]
        out = []
        for nid in ids:
            try:
                result = route(self.cfg, nid)
            except Exception as exc:  # routing must never undo or fail a committed drain
                message = exc.message if isinstance(exc, ReflectGitError) else repr(exc)
                out.append({"id": nid, "route": None, "error": clean(message)[:300]})
                continue
            doc = result.to_json() if hasattr(result, "to_json") else {"route": str(result)}
            keep = ("route", "branch", "commit", "pushed", "pr_url", "queue_path", "error")
            out.append({"id": nid, **{k: doc.get(k) for k in keep}})
        self.index.forget()
        return out


@dataclass
class _Applied:
    """What one transcript's actions did to the KB as the door last read it."""

    created: list[str] = field(default_factory=list)
    confirmed: list[str] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)


def _gone(nid: str) -> str:
    return (
        f"{nid} is not a live learning (archived, forgotten or deleted since the drain read "
        "the KB): skipped, not restored"
    )


def _drain_edit(kb: Any, snap: Any, entry: Entry, ctx: act.Context, plan: act.Plan) -> Any:
    """The drain's actions applied to a snapshot of the KB (runs again on a lost race)."""
    from reflectgit.git.change import write
    from reflectgit.notes import edit
    from reflectgit.notes.note import parse_note
    from reflectgit.workflows.kb.base import Edit

    applied = _Applied()
    changes: list[Any] = []
    body: list[str] = []
    creates: list[act.Draft] = []
    confirms = list(plan.confirms)
    for draft in plan.creates:
        path = f"{DOCUMENTS}/{draft.id}.md"
        if snap.exists(path) or snap.exists(f"{ARCHIVED}/{draft.id}.md"):
            # Written by someone else since the drain planned: the same learning, confirmed.
            confirms.append((draft.id, "re-learned (same title and rule)"))
            continue
        changes.append(write(path, render_note(draft.note)))
        changes.append(write(sidecar_path_for(path), render_sidecar(draft.sidecar)))
        body.append(f"add {draft.id} [{draft.tier}]: {draft.title}")
        creates.append(draft)
        applied.created.append(draft.id)
    for nid, reason in confirms:
        found = snap.find(nid, ("live",))
        if found is None:
            applied.dropped.append({"action": "UPDATE", "id": nid, "reason": _gone(nid)})
            continue
        try:
            updated = edit.confirm(parse_note(found.data, found.path), ctx.source)
        except ReflectGitError as exc:
            applied.dropped.append({"action": "UPDATE", "id": nid, "reason": exc.message})
            continue
        if updated is None:
            applied.dropped.append(
                {
                    "action": "UPDATE",
                    "id": nid,
                    "reason": f"{nid} already confirmed by {ctx.source}",
                }
            )
            continue
        changes.append(write(found.path, rewrite_note(found.data, updated)))  # keeps the file
        applied.confirmed.append(nid)
        body.append(f"confirm {nid}: {act.clean_text(reason, 200)}")
    for nid, reason in plan.archives:
        found = snap.find(nid, ("live",))
        if found is None:
            applied.dropped.append({"action": "DELETE", "id": nid, "reason": _gone(nid)})
            continue
        try:
            changes.extend(kb.move_changes(snap, found, "archived", "archive"))
        except ReflectGitError as exc:
            applied.dropped.append({"action": "DELETE", "id": nid, "reason": exc.message})
            continue
        applied.archived.append(nid)
        body.append(f"archive {nid}: {act.clean_text(reason, 200)}")
    if not changes:
        return Edit(applied)
    ids = [d.id for d in creates] + applied.confirmed + applied.archived
    best = min(creates, key=lambda d: TIERS.index(d.tier)) if creates else None
    if best is not None:
        more = f" (+{len(creates) - 1} more)" if len(creates) > 1 else ""
        subject, op = knowledge_subject(best.title + more, best.tier), "add"
    elif applied.archived:
        subject, op = chore_subject("archive", ", ".join(applied.archived)), "archive"
    else:
        subject, op = chore_subject("confirm", ", ".join(applied.confirmed)), "confirm"
    message = build(
        subject,
        op,
        ids,
        confidence=best.tier if best is not None else None,
        source=ctx.source,
        body="\n".join(clean(line) for line in body),
        extra=[("Reflect-Entry", entry.id)],
    )
    return Edit(applied, changes, message)


def _stat_key(path: Path) -> tuple[int, int] | None:
    """(size, mtime) of a transcript, to notice a session that grew while it was drained."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _age_days(entry: Entry, now: float) -> float:
    queued = parse_instant(entry.queued_at)
    if queued is None:
        return 0.0
    return (now - queued.timestamp()) / 86400


def run_drain(
    cfg: Config,
    *,
    dry_run: bool | None = None,
    max_entries: int | None = None,
    writer: str | None = None,
    clock: Clock = time.time,
    progress: Callable[[int, int], None] | None = None,
) -> Report:
    """Drain the KB's queue once (the ``drain`` command); ``progress(done, total)`` per entry."""
    settings = Settings.from_config(cfg, dry_run=dry_run, max_entries=max_entries, writer=writer)
    drain = Drain(cfg, settings, clock=clock)
    drain.progress = progress
    return drain.run()


def cost_report(
    cfg: Config, *, since: str | None = "30d", by: str = "day", clock: Clock = time.time
) -> dict[str, Any]:
    """The ledger grouped for ``reflect-git cost``."""
    now = dt.datetime.fromtimestamp(clock(), dt.timezone.utc)
    start = ledger.parse_since(since, now)
    groups = ledger.report(ledger.read_rows(cfg.state_dir), by=by, since=start)
    total = ledger.CostGroup("total")
    for g in groups:
        total.runs += g.runs
        total.entries += g.entries
        total.tokens += g.tokens
        total.cost_usd += g.cost_usd
        total.ok += g.ok
        total.notes += g.notes
    return {
        "by": by,
        "since": start.isoformat() if start else None,
        "groups": [g.to_dict() for g in groups],
        "total": total.to_dict(),
    }
