"""The enforced-rules answer of ``hook PreToolUse`` and ``hook PermissionRequest``.

``answer`` reads the tool call from the payload, asks ``workflows/policy.check`` about it with
the rules compiled already, and returns the JSON the harness reads on stdout, or None (no
output: the harness goes on as it would). Every failure is None too. The hook never compiles:
when the compiled rules are older than the KB's HEAD (or the policy files), it starts the
compile in the background and answers from the last complete compile meanwhile (before the
first compile: from no rules). What each harness gets (``reply``):

============================  ==========================================================
Claude Code, Copilot in       PreToolUse: ``hookSpecificOutput.permissionDecision`` deny or
VS Code (its hooks take       ask with ``permissionDecisionReason``; a medium match:
Claude Code's format)         ``hookSpecificOutput.additionalContext``.
                              PermissionRequest: deny as ``hookSpecificOutput.decision``
                              ``{behavior: deny, message}``; ask and medium matches as a
                              ``systemMessage`` to the person looking at the dialog.
Codex                         The same, except that Codex's PreToolUse takes no ``ask``
                              (it rejects it and runs the tool): an ask rule becomes
                              ``additionalContext`` and Codex's own approval decides.
Copilot CLI (camelCase)       preToolUse: ``{permissionDecision, permissionDecisionReason}``
                              (deny or ask); it has no context channel and no documented
                              permissionRequest reply, so those print nothing.
============================  ==========================================================

Only the call's shape is read here (tool, input, cwd): the capture's full ``normalise`` costs
more to import than this whole hook may take.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflectgit import jsonio

if TYPE_CHECKING:
    from typing import Any

    from reflectgit.config import Config
    from reflectgit.notes.policy import Decision

PRE_TOOL = {"PreToolUse": "PreToolUse", "preToolUse": "PreToolUse"}
PERMISSION = {"PermissionRequest": "PermissionRequest", "permissionRequest": "PermissionRequest"}
EVENTS = {**PRE_TOOL, **PERMISSION}
_CAMEL_KEYS = ("toolName", "toolArgs", "sessionId")


def answer(cfg: Config, event: str, raw: bytes, harness: str | None) -> str | None:
    """The reply to print for this event, or None; never raises."""
    try:
        return _answer(cfg, event, raw, harness)
    except Exception as exc:  # never fail the harness: a broken rule set is no decision
        _log(cfg, event, "policy:error", f"{type(exc).__name__}: {exc}")
        return None


def _answer(cfg: Config, event: str, raw: bytes, harness: str | None) -> str | None:
    kind = EVENTS.get(event)
    if kind is None or not cfg.policy.enabled:
        return None
    if not cfg.state_dir_explicit and not cfg.state_dir.parent.is_dir():
        return None  # no KB here: we never create its state directory by accident
    asked = tool_call(raw)
    if asked is None:
        return None
    payload, tool, tool_input, cwd = asked
    from reflectgit.workflows.policy import check

    # The rules compiled already answer; REFLECT_GIT_HOOK_SYNC=1 compiles first (tests, CI).
    sync = cfg.hook_sync
    result = check(cfg, tool, tool_input, cwd, compile=sync)
    if not result.current:
        _compile_later(cfg)
    decision = result.decision
    if decision.silent:
        return None
    from reflectgit.notes.harness import detect_harness

    who = harness or detect_harness(event, payload)
    camel = event[:1].islower() or any(k in payload for k in _CAMEL_KEYS)
    out = reply(who, camel, kind, decision)
    sources = ",".join(dict.fromkeys(r.source for r in decision.matched))
    _log(cfg, kind, f"policy:{decision.action or 'context'}", f"{tool} {sources}")
    return jsonio.dumps(out, ensure_ascii=False) if out is not None else None


def tool_call(raw: bytes) -> tuple[dict[str, Any], str, Any, str | None] | None:
    """The call a payload asks about: (the payload, the tool, its input, the folder it runs
    in); None when the payload names no tool call (then nothing is answered)."""
    try:
        payload = jsonio.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(payload, dict):
        return None
    tool = payload.get("tool_name") or payload.get("toolName")
    if not isinstance(tool, str) or not tool:
        return None
    tool_input = payload.get("tool_input", payload.get("toolArgs"))
    if isinstance(tool_input, str):  # Copilot's toolArgs may be a JSON string
        try:
            tool_input = jsonio.loads(tool_input)
        except ValueError:
            tool_input = {"command": tool_input}
    cwd = payload.get("cwd")
    return payload, tool, tool_input, cwd if isinstance(cwd, str) else None


def unmatched(state_dir: str, home: str, raw: bytes, commands: bytes | None = None) -> bool:
    """Is the answer surely "nothing" because no rule of the last complete compile (the
    ``rules.json`` there now) matches this call? Read without the KB's configuration: the
    PreToolUse hook's quick path asks this about a call of a tool some rule names, and leaves
    a call a rule matches to ``answer`` (which says how, scoped to the project, and logs it).
    False when it cannot say. ``home``: as ``Config.home`` spells it. ``commands``: that
    compile's shell-tool rules, when all are command rules (``state/rulestamp.py``): a call of
    a shell tool is answered from them, without reading the rules or importing their parser."""
    asked = tool_call(raw)
    if asked is None:
        return True
    if commands is not None:
        said = _no_command_rule_matches(commands, asked[1], asked[2])
        if said is not None:
            return said
    from reflectgit.state import policy as compiled

    doc = compiled.load_rules(state_dir)
    if doc is None or doc.get("complete") is not True:
        return False
    from reflectgit.notes.policy import call_from, matching

    _, tool, tool_input, cwd = asked
    return not matching(compiled.rules_of(doc), call_from(tool, tool_input, cwd, home=home))


def _no_command_rule_matches(commands: bytes, tool: str, tool_input: Any) -> bool | None:
    """From the shell tools' command rules (``state/rulestamp.command_line``): does none match
    a call of ``tool``? None when they do not say (not a shell tool, a line this cannot read)."""
    from reflectgit.state.rulestamp import command_rules

    table = command_rules(commands)
    if table is None or tool.encode("utf-8") not in table[0]:
        return None
    from reflectgit.notes import shellcommand

    command = shellcommand.command_of(tool_input)
    for rule in table[1]:
        kind, *words = (field.decode("utf-8") for field in rule)
        if kind == "any":
            return False
        if kind not in shellcommand.KINDS:
            return None
        if shellcommand.matches(kind, words, command):
            return False
    return True


def _compile_later(cfg: Config) -> None:
    """Make sure the background compile is under way: asked once per change of the KB
    (``workflows/recompile.ask``); where that cannot be said, started unless one
    is running already."""
    from reflectgit.workflows import recompile

    if recompile.ask(cfg.kb, dict(cfg.env), cfg.state_dir):
        return
    from reflectgit.state import policy as compiled
    from reflectgit.workflows.background import RULES, start

    if compiled.busy(cfg.state_dir):
        return
    start(cfg.kb, cfg.env, [RULES])


def reply(harness: str, camel: bool, event: str, decision: Decision) -> dict[str, Any] | None:
    """The JSON document for one harness and event (``event``: PreToolUse or
    PermissionRequest), or None when that harness has no way to say it."""
    action = decision.action
    context = "\n".join(decision.context)
    if harness == "copilot" and camel:
        if event == "PreToolUse" and action is not None:
            return {"permissionDecision": action, "permissionDecisionReason": decision.reason}
        return None
    if event == "PreToolUse":
        if action == "ask" and harness == "codex":
            action, context = None, decision.reason
        if action is not None:
            specific = {"permissionDecision": action, "permissionDecisionReason": decision.reason}
        else:
            specific = {"additionalContext": context}
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}}
    if action == "deny":
        return {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": decision.reason},
            }
        }
    return {"systemMessage": decision.reason if action == "ask" else context}


def _log(cfg: Config, event: str, outcome: str, detail: str) -> None:
    try:  # the hooks' log alone: importing the capture workflow costs a deny ~10 ms
        from reflectgit.workflows.capture.hooklog import HookLog

        HookLog(cfg).write(event, outcome, detail)
    except Exception:
        pass
