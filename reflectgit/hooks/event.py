"""An agent event read whole: the enforced rules' answer, the end of a turn, and every event the
quick path of ``hooks/agent.py`` cannot place without the KB's whole configuration.

Resolves the ``Config`` (the KB found from the folder or the user's default, the settings
file), answers PreToolUse and PermissionRequest from the rules compiled already
(``hooks/policy.py``), appends every other event to the inbox as the quick path does
(``state/inbox.py``), and at the end of a turn (Stop, SessionEnd, PreCompact, Codex
``notify``) starts the session's capture pass. Never fails the caller: every error is caught
and logged in the state directory; the reply the harness reads is printed on every path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reflectgit import jsonio
from reflectgit.hooks.agent import LOCK_WAIT, QUIET_REPLY, reply, stdin
from reflectgit.notes.harness import COPILOT_EVENTS, HARNESSES

if TYPE_CHECKING:
    from reflectgit.config import Config

# The events enforced rules answer (hooks/policy.py); PreToolUse is answered by them alone.
POLICY_EVENTS = ("PreToolUse", "preToolUse", "PermissionRequest", "permissionRequest")
POLICY_ONLY = ("PreToolUse", "preToolUse")
# The ends of a turn: the capture pass runs over the session's events (Codex `notify` is one).
PASS_EVENTS = ("Stop", "SessionEnd", "PreCompact", "codex-notify")


def read_payload(raw: bytes) -> dict[str, Any] | None:
    """The payload object, or None when it is not a JSON object."""
    try:
        data = jsonio.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def handle(
    event: str,
    harness: str | None,
    argument: str | None,
    kb: str | None,
    raw: bytes | None = None,
) -> int:
    """Run one hook event with the whole configuration; always returns 0. ``raw``: the
    payload, when the quick path has read it already."""
    harness = harness if harness in HARNESSES else None
    cfg = None
    answer: str | None = None
    try:
        from reflectgit.config import Config, environ

        # Codex `notify` passes its JSON as an argument; the others write it on stdin.
        if raw is None:
            raw = argument.encode("utf-8") if argument is not None else stdin()
        cfg = Config.resolve(kb, environ())
        if cfg.disabled or cfg.internal:
            return 0
        from reflectgit.git.lockwait import bounded

        if event in POLICY_EVENTS:  # enforced rules; a PermissionRequest is captured as well
            from reflectgit.hooks.policy import answer as rules_answer

            with bounded(LOCK_WAIT):
                answer = rules_answer(cfg, event, raw, harness)
            if event in POLICY_ONLY:
                return 0
        from reflectgit.workflows.capture.hooklog import HookLog

        cfg.capture  # noqa: B018  (a malformed value falls back; the log says so at once)
        log = HookLog(cfg)
        if not log.usable:
            return 0
        # An event that may end a turn is read now (which session's pass to start); the
        # others are read by the pass, as the quick path's are.
        ends_turn = COPILOT_EVENTS.get(event, event) in PASS_EVENTS or event in ("", "auto")
        payload = read_payload(raw) if ends_turn else None
        if ends_turn and payload is None:
            log.write(event or "?", "skip", "payload is not a JSON object")
            return 0
        import time

        from reflectgit.state import inbox

        line = inbox.line(time.time(), harness, event, raw)
        inbox.append(str(cfg.state_dir), line, LOCK_WAIT)
        if payload is not None and event_name(event, payload) in PASS_EVENTS:
            from reflectgit.state import eventlog

            _capture_pass(cfg, eventlog.session_of(payload) or eventlog.UNSESSIONED)
    except BaseException as exc:  # never fail the harness, not even on KeyboardInterrupt
        _breadcrumb(cfg, event, exc)
    finally:
        reply(answer if answer is not None else QUIET_REPLY.get(event))
    return 0


def event_name(event: str, payload: dict[str, Any]) -> str:
    """The event as the capture reads it (``hook_event_name`` for ``auto``; Copilot's names)."""
    name = payload.get("hook_event_name")
    if isinstance(name, str) and name and event in ("", "auto"):
        event = name
    return COPILOT_EVENTS.get(event, event)


def _capture_pass(cfg: Config, session: str) -> None:
    """The end of a turn: run the capture pass detached (in the foreground with
    ``REFLECT_GIT_HOOK_SYNC=1``), unless one is running for the session already."""
    if cfg.hook_sync:
        from reflectgit.git.lockwait import bounded
        from reflectgit.workflows.capture.sessionpass import run

        with bounded(LOCK_WAIT):
            run(cfg, session, wait=True)
        return
    from reflectgit.state import eventlog

    if eventlog.busy(cfg.state_dir, session):
        return  # the running pass looks again for new events before it exits
    from reflectgit.workflows.background import PASS, start

    start(cfg.kb, cfg.env, [PASS, session])


def breadcrumb(kb: str | None, event: str, exc: BaseException) -> None:
    """Log a quick path's failure where the whole configuration says; never raises."""
    cfg = None
    try:
        from reflectgit.config import Config, environ

        cfg = Config.resolve(kb, environ())
    except BaseException:
        pass
    _breadcrumb(cfg, event, exc)


def _breadcrumb(cfg: Config | None, event: str, exc: BaseException) -> None:
    try:
        if cfg is not None:
            from reflectgit.workflows.capture.commits import Capture

            Capture(cfg).breadcrumb(event or "?", exc)
            return
        from reflectgit.hooks.capture import fallback_log

        fallback_log(f"hook {event}: {type(exc).__name__}: {exc}")
    except BaseException:
        pass
