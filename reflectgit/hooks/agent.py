"""``reflect-git hook EVENT``: the agent-harness hook. Reads the event's JSON on stdin.

Never fails the caller: every error is caught, logged in the state directory, and the exit
code is 0. Prints nothing on stdout except where the harness expects a reply (SubagentStop).
Imports only what the event needs: no typer, no rich, no dulwich unless a note is written.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

MAX_PAYLOAD = 8 * 1024 * 1024


def read_payload(raw: bytes) -> dict[str, Any] | None:
    """The payload object, or None when it is not a JSON object."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def main(argv: Sequence[str] | None = None, kb: str | None = None) -> int:
    """Run one hook event; always returns 0."""
    args = list(sys.argv[1:] if argv is None else argv)
    event = args[0] if args else ""
    cap = None
    try:
        from reflectgit.config import Config, environ

        # Codex `notify` passes its JSON as an argument; Claude Code writes it on stdin.
        raw = args[-1].encode("utf-8") if len(args) > 1 else sys.stdin.buffer.read(MAX_PAYLOAD)
        cfg = Config.resolve(kb, environ())
        if cfg.disabled or cfg.internal:
            return 0
        from reflectgit.workflows.capture.commits import Capture

        cap = Capture(cfg)
        if not cap.usable:
            return 0
        payload = read_payload(raw)
        if payload is None:
            cap.log(event or "?", "skip", "payload is not a JSON object")
            return 0
        from reflectgit.workflows.capture.events import AgentEvents

        reply = AgentEvents(cap).handle(event, payload)
        if reply is not None:
            sys.stdout.write(reply + "\n")
            sys.stdout.flush()
    except BaseException as exc:  # never fail the harness, not even on KeyboardInterrupt
        _breadcrumb(cap, event, exc)
    return 0


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
