"""Which agent harness sent a hook payload (Claude Code, Codex, Copilot), from its shape. Pure.

One reading for every hook: the capture's ``normalise`` and the enforced rules' reply both ask
here, so a payload is never Codex's to one and Claude Code's to the other. Cheap to import: the
PreToolUse hook reads it before anything else.
"""

from __future__ import annotations

TYPE_CHECKING = False  # ``typing`` is not imported on the SessionStart hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

HARNESSES = ("claude", "codex", "copilot")
# Copilot CLI camelCase event names (its hooks reference) -> the event we handle.
COPILOT_EVENTS = {
    "sessionStart": "SessionStart",
    "sessionEnd": "SessionEnd",
    "userPromptSubmitted": "UserPromptSubmit",
    "preToolUse": "PreToolUse",
    "postToolUse": "PostToolUse",
    "postToolUseFailure": "PostToolUseFailure",
    "agentStop": "Stop",
    "subagentStart": "SubagentStart",
    "subagentStop": "SubagentStop",
    "preCompact": "PreCompact",
    "notification": "Notification",
    "permissionRequest": "PermissionRequest",
    "errorOccurred": "ErrorOccurred",
}
# Keys only Copilot's payloads carry (Claude Code and Codex payloads carry no timestamp).
COPILOT_KEYS = ("sessionId", "toolName", "toolArgs", "toolResult", "tool_result", "timestamp")


def detect_harness(event: str, payload: Mapping[str, Any]) -> str:
    """Which harness sent this payload, from its shape (when ``--harness`` did not say)."""
    declared = payload.get("harness")
    if isinstance(declared, str) and declared in HARNESSES:
        return declared
    if event in COPILOT_EVENTS or any(k in payload for k in COPILOT_KEYS):
        return "copilot"
    if event == "codex-notify" or "turn_id" in payload or "thread-id" in payload:
        return "codex"
    if isinstance(payload.get("tool_response"), str):
        return "codex"  # Claude Code's tool_response is an object
    return "claude"
