"""``reflect-git hook EVENT [--harness claude|codex|copilot] [--kb PATH] [PAYLOAD]``: the agent-harness hook.

Does little, by design. Reads the event's JSON on stdin (Codex ``notify`` passes it as the last
argument instead), appends it to the session's event log in the state directory
(``state/eventlog.py``), answers what the harness reads, and exits:

- PreToolUse and PermissionRequest get the enforced rules' decision from the rules compiled
  already (``hooks/policy.py``); PreToolUse is not logged, it is answered;
- SubagentStop always gets ``{}``, on every path, errors included;
- Stop, SessionEnd and PreCompact (and Codex ``notify``) start the capture pass over the
  session's events, detached (``REFLECT_GIT_HOOK_SYNC=1``: in the foreground); the pass runs
  the detectors and writes the notes (``workflows/capture/sessionpass.py``).

No note is committed inside a tool call. ``--harness`` says who sent the event (the installer
writes it for Codex and Copilot); without it the harness is read from the payload's shape.
Never fails the caller: every error is caught, logged in the state directory, and the exit code
is 0; every lock wait is bounded (``LOCK_WAIT``). (SessionStart's recall is its own hook
command, ``recall --format HARNESS``.)
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from reflectgit import jsonio
from reflectgit.notes.harness import COPILOT_EVENTS, HARNESSES

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from reflectgit.config import Config

MAX_PAYLOAD = 8 * 1024 * 1024
LOCK_WAIT = 2.0  # seconds a hook waits for any lock before it gives up (and logs it)
# The events whose harness reads a JSON reply on stdout, and the reply that changes nothing.
QUIET_REPLY = {"SubagentStop": "{}", "subagentStop": "{}"}
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


def parse_args(args: Sequence[str]) -> tuple[str, str | None, str | None, str | None]:
    """(event, harness or None, payload argument or None, ``--kb`` or None) from the hook's
    arguments (the installer names the KB in a personal settings file)."""
    positional: list[str] = []
    options: dict[str, str] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=")
        if name in ("--harness", "--kb"):
            if eq:
                options[name] = value
            elif i + 1 < len(args):
                options[name] = args[i + 1]
                i += 1
        else:
            positional.append(arg)
        i += 1
    harness = options.get("--harness")
    harness = harness.lower() if harness and harness.lower() in HARNESSES else None
    event = positional[0] if positional else ""
    payload = positional[-1] if len(positional) > 1 else None
    return event, harness, payload, options.get("--kb") or None


def main(argv: Sequence[str] | None = None, kb: str | None = None) -> int:
    """Run one hook event; always returns 0."""
    args = list(sys.argv[1:] if argv is None else argv)
    event, harness, argument, named_kb = parse_args(args)
    kb = kb or named_kb
    cfg = None
    reply: str | None = None
    try:
        from reflectgit.config import Config, environ

        # Codex `notify` passes its JSON as an argument; the others write it on stdin.
        raw = argument.encode("utf-8") if argument is not None else _stdin()
        cfg = Config.resolve(kb, environ())
        if cfg.disabled or cfg.internal:
            return 0
        from reflectgit.git.lockwait import bounded

        if event in POLICY_EVENTS:  # enforced rules; a PermissionRequest is captured as well
            from reflectgit.hooks.policy import answer

            with bounded(LOCK_WAIT):
                reply = answer(cfg, event, raw, harness)
            if event in POLICY_ONLY:
                return 0
        from reflectgit.workflows.capture.hooklog import HookLog

        cfg.capture  # noqa: B018  (a malformed value falls back; the log says so at once)
        log = HookLog(cfg)
        if not log.usable:
            return 0
        payload = read_payload(raw)
        if payload is None:
            log.write(event or "?", "skip", "payload is not a JSON object")
            return 0
        import time

        from reflectgit.git.lockwait import take
        from reflectgit.state import eventlog

        session = session_of(payload) or eventlog.UNSESSIONED
        line = eventlog.record(time.time(), harness, event, payload)
        with bounded(LOCK_WAIT):
            eventlog.append(cfg.state_dir, session, line, take)
        if event_name(event, payload) in PASS_EVENTS:
            _capture_pass(cfg, session)
    except BaseException as exc:  # never fail the harness, not even on KeyboardInterrupt
        _breadcrumb(cfg, event, exc)
    finally:
        _reply(reply if reply is not None else QUIET_REPLY.get(event))
    return 0


def session_of(payload: dict[str, Any]) -> str | None:
    """The session whose log the event goes to (Codex ``notify``: its thread), or None."""
    from reflectgit.state.eventlog import safe_session

    for key in ("session_id", "sessionId", "thread-id", "thread_id"):
        value = payload.get(key)
        if value not in (None, ""):
            return safe_session(value)
    return None


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


def _stdin() -> bytes:
    data = sys.stdin.buffer.read(MAX_PAYLOAD + 1)
    return data if len(data) <= MAX_PAYLOAD else b""  # cut JSON is no JSON


def _reply(text: str | None) -> None:
    if text is None:
        return
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BaseException:
        pass


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


if __name__ == "__main__":
    raise SystemExit(main())
