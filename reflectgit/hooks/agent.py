"""``reflect-git hook EVENT [--harness claude|codex|copilot] [PAYLOAD]``: the agent-harness hook.

Reads the event's JSON on stdin (Codex ``notify`` passes it as the last argument instead).
``--harness`` says who sent it (the installer writes it for Codex and Copilot); without it the
harness is read from the payload's shape. Never fails the caller: every error is caught, logged
in the state directory, and the exit code is 0; every lock wait is bounded (``LOCK_WAIT``), so
a hook never waits long for a drain or another hook. Prints nothing on stdout except where the
harness expects a reply: SubagentStop always gets ``{}``, on every path, errors included;
PreToolUse and PermissionRequest get the enforced rules' decision (``hooks/policy.py``), if any.
Imports only what the event needs: no typer, no rich, no dulwich unless a note is written.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from reflectgit import jsonio
from reflectgit.notes.harness import HARNESSES

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

MAX_PAYLOAD = 8 * 1024 * 1024
LOCK_WAIT = 2.0  # seconds a hook waits for any lock before it gives up (and logs it)
# The events whose harness reads a JSON reply on stdout, and the reply that changes nothing.
QUIET_REPLY = {"SubagentStop": "{}", "subagentStop": "{}"}
# The events enforced rules answer (hooks/policy.py); PreToolUse is answered by them alone.
POLICY_EVENTS = ("PreToolUse", "preToolUse", "PermissionRequest", "permissionRequest")
POLICY_ONLY = ("PreToolUse", "preToolUse")


def read_payload(raw: bytes) -> dict[str, Any] | None:
    """The payload object, or None when it is not a JSON object."""
    try:
        data = jsonio.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def parse_args(args: Sequence[str]) -> tuple[str, str | None, str | None]:
    """(event, harness or None, payload argument or None) from the hook's arguments."""
    positional: list[str] = []
    harness: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--harness" and i + 1 < len(args):
            harness = args[i + 1]
            i += 2
            continue
        if arg.startswith("--harness="):
            harness = arg.partition("=")[2]
        else:
            positional.append(arg)
        i += 1
    harness = harness.lower() if harness and harness.lower() in HARNESSES else None
    event = positional[0] if positional else ""
    payload = positional[-1] if len(positional) > 1 else None
    return event, harness, payload


def main(argv: Sequence[str] | None = None, kb: str | None = None) -> int:
    """Run one hook event; always returns 0."""
    args = list(sys.argv[1:] if argv is None else argv)
    event, harness, argument = parse_args(args)
    cap = None
    reply: str | None = None
    try:
        from reflectgit.config import Config, environ

        # Codex `notify` passes its JSON as an argument; the others write it on stdin.
        raw = argument.encode("utf-8") if argument is not None else _stdin()
        cfg = Config.resolve(kb, environ())
        if cfg.disabled or cfg.internal:
            return 0
        if event in POLICY_EVENTS:  # enforced rules; a PermissionRequest is captured as well
            from reflectgit.git.lockwait import bounded
            from reflectgit.hooks.policy import answer

            with bounded(LOCK_WAIT):
                reply = answer(cfg, event, raw, harness)
            if event in POLICY_ONLY:
                return 0
        from reflectgit.workflows.capture.commits import Capture

        cap = Capture(cfg)
        if not cap.usable:
            return 0
        payload = read_payload(raw)
        if payload is None:
            cap.log(event or "?", "skip", "payload is not a JSON object")
            return 0
        from reflectgit.git.lockwait import bounded
        from reflectgit.workflows.capture.events import AgentEvents

        with bounded(LOCK_WAIT):
            handled = AgentEvents(cap, harness=harness).handle(event, payload)
            reply = handled if handled is not None else reply
    except BaseException as exc:  # never fail the harness, not even on KeyboardInterrupt
        _breadcrumb(cap, event, exc)
    finally:
        _reply(reply if reply is not None else QUIET_REPLY.get(event))
    return 0


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


def _breadcrumb(cap: Any, event: str, exc: BaseException) -> None:
    try:
        if cap is not None:
            cap.breadcrumb(event or "?", exc)
            return
        from reflectgit.hooks.capture import fallback_log

        fallback_log(f"hook {event}: {type(exc).__name__}: {exc}")
    except BaseException:
        pass


if __name__ == "__main__":
    raise SystemExit(main())
