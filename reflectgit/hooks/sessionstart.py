"""``reflect-git-session-start [--harness claude|codex|copilot] [--mcp] [--kb PATH]``: the
SessionStart hook.

One process, no command-line framework: it prints the recall its harness reads as the agent's
context (``workflows/recall_hook``: the answer kept for this project while everything it was
computed from holds, else ``workflows/recall``'s, in the harness's JSON), then starts the drain of
queued transcripts detached (``workflows/background.drain``) when anything waits for one
(``state/backlog.py``: a queued transcript, an unhandled event, a legacy queue) and exits. ``--mcp``: the recall
names the MCP server's ``show`` tool. Does nothing under ``REFLECT_DISABLED=1``.

Never fails the session: stdout holds the recall's JSON and nothing else, a problem is a line on
stderr (and a breadcrumb in the hooks' log when it is no ``ReflectGitError``), and the exit code
is 0. (Older installs run ``reflect-git recall --format HARNESS`` and ``reflect-git drain
--background --quiet``; both still work.)
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from reflectgit.notes.harness import HARNESSES

if TYPE_CHECKING:
    from collections.abc import Sequence

    from reflectgit.config import Config


def parse_args(args: Sequence[str]) -> tuple[str, bool, str | None, list[str]]:
    """(harness, ``--mcp``, ``--kb`` or None, the words not understood)."""
    harness, mcp, kb, unknown = "claude", False, None, []
    i = 0
    while i < len(args):
        word = args[i]
        name, eq, value = word.partition("=")
        if name in ("--harness", "--kb") and not eq and i + 1 < len(args):
            i += 1
            value, eq, word = args[i], "=", f"{word} {args[i]}"
        if name == "--harness" and eq and value.lower() in HARNESSES:
            harness = value.lower()
        elif name == "--kb" and eq and value:
            kb = value
        elif word == "--mcp":
            mcp = True
        else:
            unknown.append(word)
        i += 1
    return harness, mcp, kb, unknown


def main(argv: Sequence[str] | None = None) -> int:
    """Print the recall, start the drain; always returns 0."""
    harness, mcp, kb, unknown = parse_args(list(sys.argv[1:] if argv is None else argv))
    if unknown:
        _say(f"reflect-git-session-start: ignored: {' '.join(unknown)}")
    cfg = None
    try:
        from reflectgit.config import Config, environ

        cfg = Config.resolve(kb, environ())
        if cfg.disabled:
            return 0
        try:
            _recall(cfg, harness, mcp)
        finally:
            _drain(cfg)
    except BaseException as exc:  # never fail the harness, not even on KeyboardInterrupt
        _breadcrumb(cfg, exc)
    return 0


def _recall(cfg: Config, harness: str, mcp: bool) -> None:
    from pathlib import Path

    from reflectgit.workflows import recall_hook

    hint = recall_hook.show_hint(mcp, cfg.kb, sys.argv[0] if sys.argv else "", sys.executable)
    out, messages = recall_hook.session_output(cfg, Path.cwd(), hint, harness)
    for line in messages:
        _say(line)
    if out is not None:
        sys.stdout.write(out + "\n")
        sys.stdout.flush()


def _drain(cfg: Config) -> None:
    """The drain of queued transcripts, detached, when there is anything for it to do
    (``state/backlog.py``): its output goes to the state directory's ``drain-background.log``,
    never to the harness."""
    from reflectgit.state import backlog

    if not backlog.waiting(cfg.state_dir, cfg.env.get("HOME")):
        return
    from reflectgit.workflows.background import drain

    try:
        drain(cfg, [])
    except OSError as exc:
        _say(f"reflect-git-session-start: the drain did not start: {exc}")


def _say(line: str) -> None:
    """A line for the person, on stderr; a closed stderr never fails the session."""
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _breadcrumb(cfg: Config | None, exc: BaseException) -> None:
    try:
        _say(f"reflect-git-session-start: {type(exc).__name__}: {exc}")
        if cfg is not None:
            from reflectgit.workflows.capture.commits import Capture

            Capture(cfg).breadcrumb("SessionStart", exc)
            return
        from reflectgit.hooks.capture import fallback_log

        fallback_log(f"SessionStart: {type(exc).__name__}: {exc}")
    except BaseException:
        pass


if __name__ == "__main__":
    raise SystemExit(main())
