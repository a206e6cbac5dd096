"""The capture pass: the detectors run over a session's event log, after the hooks returned.

The agent hooks only append their events to the inbox (``state/inbox.py``); the pass first moves
the inbox into the sessions' event logs (``state/eventlog.py``), then reads a session's events
from its cursor, in the order they came, and hands each to ``AgentEvents`` (test runs,
loops, failures and corrections, permission answers, todos, slots, the queue producer), which
writes notes through the KB's one mutation door as it always did. Its clock is each event's
receive time, so every TTL (the 10-minute watcher, the permission dialog, the per-session
state) is measured between events as they happened, not when the pass runs.

Who runs it: Stop, SessionEnd and PreCompact start it detached (``REFLECT_GIT_HOOK_SYNC=1``:
in the foreground); the drain and the idle sweep run it for sessions whose events no pass has
handled (a session that never stopped). One pass per session at a time (a lock); a pass that
finds the lock held leaves the events to the holder, which looks again before it exits.

Delivery is at least once: the cursor moves past an event only after it is handled, so a pass
killed half-way handles its last event again. That replay writes no second note: a rule-stating
note (correction, permission) is found as its own twin, and an event record (test fix, todo
done) has the same id as before, from the same title and body, in the same session (see
``Capture.write_notes``). A lock another process holds too long stops the pass with the event
unhandled (the next pass retries it); any other error is logged and the event is passed by, as
a hook did before the log existed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflectgit.git.lockwait import take
from reflectgit.state import eventlog

if TYPE_CHECKING:
    from reflectgit.config import Config

ROUNDS = 3  # a pass looks again this often for events that came in while it ran


class EventClock:
    """The time of the event being handled (``Capture``'s clock during a pass)."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def run(cfg: Config, session: str, *, wait: bool = False) -> int:
    """Handle the session's unhandled events; returns how many were handled. ``wait``: wait
    for another pass of the session to finish (else leave the events to it)."""
    handled = 0
    ingest(cfg)
    for _ in range(ROUNDS):
        acquire = take if wait else None
        with eventlog.pass_lock(cfg.state_dir, session, acquire) as held:
            if not held:
                return handled
            done, finished = _handle(cfg, session)
            handled += done
            if not finished:
                return handled
        ingest(cfg)
        if not eventlog.pending(cfg.state_dir, session):
            break
    return handled


def ingest(cfg: Config) -> int:
    """Move the hooks' inbox into the sessions' event logs (``eventlog.ingest``), logging each
    line that could not be moved; returns how many events moved."""
    moved, dropped = eventlog.ingest(cfg.state_dir, take)
    if dropped:
        from reflectgit.workflows.capture.hooklog import HookLog

        log = HookLog(cfg)
        for reason in dropped:
            log.write("event-log", "skip", reason)
    return moved


def run_pending(cfg: Config, quiet: float = 0.0, now: float | None = None) -> dict[str, int]:
    """Run the pass for every session with unhandled events (``quiet``: only those whose
    log has had no event for that many seconds before ``now``); session -> events handled."""
    out: dict[str, int] = {}
    ingest(cfg)
    for session in eventlog.sessions(cfg.state_dir, quiet, now):
        out[session] = run(cfg, session)
    return out


def _handle(cfg: Config, session: str) -> tuple[int, bool]:
    """(events handled, whether the log was read to its end) under the pass lock."""
    import time

    from reflectgit.errors import LockError
    from reflectgit.workflows.capture.commits import Capture
    from reflectgit.workflows.capture.events import AgentEvents

    state = cfg.state_dir
    clock = EventClock(time.time())
    cap = Capture(cfg, clock=clock)
    if not cap.usable:
        return 0, True
    count = 0
    for end, row in eventlog.events(state, session, eventlog.cursor(state, session)):
        if row is None:
            cap.log("event-log", "skip", "an unreadable line", session)
        else:
            ts = row.get("ts")
            clock.now = float(ts) if isinstance(ts, (int, float)) else time.time()
            payload = row.get("payload")
            harness = row.get("harness")
            try:
                AgentEvents(cap, harness=harness if isinstance(harness, str) else None).handle(
                    row["event"], payload if isinstance(payload, dict) else {}
                )
            except LockError as exc:  # someone holds the KB or the state: try again later
                cap.log(row["event"], "deferred", str(exc), session)
                return count, False
            except Exception as exc:  # a hook never failed the harness; a pass never stalls
                cap.breadcrumb(row["event"], exc)
        eventlog.advance(state, session, end)
        count += 1
    eventlog.retire(state, session, take)
    return count, True
