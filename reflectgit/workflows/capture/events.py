"""Agent-harness events turned into captures: deterministic notes, watchers, queue entries.

One function per event. State between events lives in the state directory, one JSON file per
session and kind (``capture/armed``, ``permission-armed``, ``test-state``, ``loops``,
``todo-state``, ``sessions``). Notes are written only when the event is unambiguous:

- tests go from N failures to 0: high (``test-fix``);
- a failure, a loop or a test regression arms a watcher; a correcting next prompt writes a
  low note (``correction``); the watcher expires after 10 minutes;
- a todo item completed: medium (``todo-done``), with duration and files touched;
- a reply to a permission request: high for always/never/scoped, medium for a one-off;
- tests green after several failing runs promote the session's earlier hook notes one tier.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reflectgit.notes.privacy import clean
from reflectgit.workflows.capture.commits import TIER_UP, Capture, NoteDraft, safe_session

if TYPE_CHECKING:
    from reflectgit.notes import testruns

WATCHER_TTL = 600.0
PROMOTE_AFTER_FAILING_RUNS = 2
EVIDENCE_CAP = 600
EDIT_TOOLS = {"Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"}

QUEUE_TRIGGERS = {
    "Stop": "stop",
    "SessionEnd": "session_end",
    "SubagentStop": "subagent_stop",
}

# Pattern text only: `re` compiles (and caches) a pattern the first time a prompt needs it, so
# the many events that never look at a prompt do not pay for compiling these.
# "use X instead", "no, don't", "should have", "instead of X, use Y", and close relatives.
_USE_INSTEAD = (
    r"\binstead of\s+(?P<old1>[^,.;!?]+?),?\s+use\s+(?P<new1>[^.,;!?]+)"
    r"|\buse\s+(?P<new2>[^.;!?]+?)\s+instead(?:\s+of\s+(?P<old2>[^.,;!?]+))?"
)
_CORRECTION = (
    _USE_INSTEAD + r"|\bno,?\s+(?:don'?t|do not)\b"
    r"|\bdon'?t\s+(?:use|do|run)\b"
    r"|\bshould(?:n'?t| not)?\s+have\b"
    r"|\bstop\s+(?:doing|using|running)\b"
    r"|\bthat'?s\s+(?:wrong|not right|incorrect)\b"
)
_ALWAYS = r"^\s*(?:yes,?\s+)?(?:always|always allow|allow always|yes to all)\b"
_NEVER = r"^\s*(?:no,?\s+)?(?:never|don'?t ever|never allow|deny always)\b"
_SCOPED = (
    r"^\s*(?:yes,?\s+)?(?:only|just)\s+(?:for|in|on|within|under|when)\b.*"
    r"|^\s*(?:yes,?\s+)?(?:for|in)\s+this\s+(?:repo|project|directory|folder|branch|session)\s+only\b"
)
_YES = r"^\s*(?:y|yes|yep|yeah|ok|okay|sure|go ahead|allow|approve|approved|do it)\s*[.!]*\s*$"
_NO = r"^\s*(?:n|no|nope|deny|denied|don'?t|do not|stop|cancel)\s*[.!]*\s*$"


@dataclass(frozen=True)
class Reply:
    """How a prompt answers a permission request."""

    decision: str  # allow | deny
    scope: str  # always | never | scoped | once
    confidence: str


def permission_reply(prompt: str) -> Reply | None:
    """Classify a prompt as a permission reply, or None when it is something else."""
    text = prompt.strip()
    if not text or len(text) > 200:
        return None
    if re.match(_NEVER, text, re.I):
        return Reply("deny", "never", "high")
    if re.match(_ALWAYS, text, re.I):
        return Reply("allow", "always", "high")
    if re.match(_SCOPED, text, re.I):
        return Reply("allow", "scoped", "high")
    if re.match(_YES, text, re.I):
        return Reply("allow", "once", "medium")
    if re.match(_NO, text, re.I):
        return Reply("deny", "once", "medium")
    return None


def correction_in(prompt: str) -> re.Match[str] | None:
    """The correction phrase in a prompt (a "use X instead of Y" first), or None."""
    return re.search(_USE_INSTEAD, prompt, re.I) or re.search(_CORRECTION, prompt, re.I)


# --------------------------------------------------------------------------- helpers


def _text(value: Any, cap: int = EVIDENCE_CAP) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        value = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    value = clean(value)
    return value if len(value) <= cap else value[: cap - 1] + "…"


def _command(tool_input: Any) -> str:
    if isinstance(tool_input, Mapping):
        cmd = tool_input.get("command")
        if isinstance(cmd, list):
            return " ".join(str(c) for c in cmd)
        if isinstance(cmd, str):
            return cmd
    return ""


def _response_text(response: Any) -> str:
    if isinstance(response, str):
        return response
    if isinstance(response, Mapping):
        parts = [response.get(k) for k in ("stdout", "stderr", "output", "content", "error")]
        return "\n".join(p for p in parts if isinstance(p, str) and p)
    return ""


def _failed(event: str, payload: Mapping[str, Any]) -> bool:
    """The reference's failure rule: non-zero exit, is_error, an error field, or Bash stderr only."""
    if event == "PostToolUseFailure":
        return True
    if payload.get("error"):
        return True
    response = payload.get("tool_response")
    if not isinstance(response, Mapping):
        return False
    if response.get("is_error") is True or response.get("error"):
        return True
    for key in ("exit_code", "exitCode", "returncode", "status"):
        code = response.get(key)
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            return True
    stdout, stderr = response.get("stdout"), response.get("stderr")
    return (
        payload.get("tool_name") == "Bash"
        and isinstance(stderr, str)
        and bool(stderr.strip())
        and not (isinstance(stdout, str) and stdout.strip())
    )


def _project(payload: Mapping[str, Any]) -> str | None:
    cwd = payload.get("cwd")
    return Path(cwd).name if isinstance(cwd, str) and cwd else None


def _tags(payload: Mapping[str, Any], *more: str) -> list[str]:
    tags = [t for t in more if t]
    project = _project(payload)
    if project:
        tags.append(re.sub(r"[^a-z0-9-]+", "-", project.lower()).strip("-"))
    return [t for t in tags if t]


def _sig(tool: str, tool_input: Any) -> str:
    """A short fingerprint of a call (loop detection only needs equality)."""
    raw = json.dumps([tool, tool_input], sort_keys=True, default=str).encode("utf-8")
    return f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}{len(raw):x}"


# --------------------------------------------------------------------------- the events


class AgentEvents:
    """Dispatch one harness event to its handler; returns what to print on stdout (or None)."""

    def __init__(self, cap: Capture) -> None:
        self.cap = cap

    def handle(self, event: str, payload: Mapping[str, Any]) -> str | None:
        session = safe_session(payload.get("session_id"))
        name = payload.get("hook_event_name")
        if isinstance(name, str) and name and name != event:
            event = name if event in ("", "auto") else event
        if event == "SubagentStop":
            self.subagent_stop(payload, session)
            return "{}"
        if event == "codex-notify":
            self.codex_notify(payload)
            return None
        if session is None:
            self.cap.log(event, "skip", "payload without a usable session_id")
            return None
        if event in ("Stop", "SessionEnd", "PreCompact"):
            self.queue_producer(event, payload, session)
            return None
        # Parallel tool calls fire concurrent hooks for one session: serialise its state.
        with self.cap.session_lock(session):
            if event in ("PostToolUse", "PostToolUseFailure"):
                self.post_tool_use(event, payload, session)
            elif event == "UserPromptSubmit":
                self.user_prompt(payload, session)
            elif event in ("PermissionRequest", "Notification"):
                self.permission_request(event, payload, session)
            else:
                self.cap.log(event, "ignored", "", session)
        return None

    # ------------------------------------------------------------------ PostToolUse

    def post_tool_use(self, event: str, payload: Mapping[str, Any], session: str) -> None:
        tool = payload.get("tool_name")
        tool = tool if isinstance(tool, str) else "?"
        tool_input = payload.get("tool_input")
        response = payload.get("tool_response")
        if tool in EDIT_TOOLS and isinstance(tool_input, Mapping):
            self._touched(session, tool_input)
        if tool == "TodoWrite" and isinstance(tool_input, Mapping):
            self._todos(payload, session, tool_input)
        reasons: list[str] = []
        run = None
        command = _command(tool_input)
        if command:
            from reflectgit.notes import testruns

            run = testruns.read_run(command, _response_text(response))
        if run is not None:
            reasons.extend(self._test_run(payload, session, run, command, response))
        if self._looping(session, tool, tool_input):
            reasons.append("loop")
        if _failed(event, payload):
            reasons.append("failure")
        if reasons:
            self._arm(session, reasons[0], tool, tool_input, payload.get("error") or response)

    def _arm(self, session: str, reason: str, tool: str, tool_input: Any, response: Any) -> None:
        self.cap.save(
            "armed",
            session,
            {
                "reason": reason,
                "tool": tool,
                "input": _text(_command(tool_input) or tool_input),
                "response": _text(_response_text(response) or response),
                "ts": self.cap.clock(),
            },
        )
        self.cap.log("PostToolUse", f"armed:{reason}", tool, session)

    def _touched(self, session: str, tool_input: Mapping[str, Any]) -> None:
        path = (
            tool_input.get("file_path") or tool_input.get("notebook_path") or tool_input.get("path")
        )
        if not isinstance(path, str):
            return
        for kind in ("todo-state", "test-state"):
            state = self.cap.load(kind, session)
            if state is None:
                continue
            files = [f for f in state.get("files", []) if isinstance(f, str)]
            if path not in files:
                files.append(path)
            state["files"] = files[-50:]
            self.cap.save(kind, session, state)

    def _looping(self, session: str, tool: str, tool_input: Any) -> bool:
        state = self.cap.load("loops", session) or {}
        recent = [s for s in state.get("recent", []) if isinstance(s, str)][-3:]
        recent.append(_sig(tool, tool_input))
        self.cap.save("loops", session, {"recent": recent}, scrub=False)
        if len(recent) >= 3 and recent[-1] == recent[-2] == recent[-3]:
            return True
        return (
            len(recent) >= 4
            and recent[-1] == recent[-3]
            and recent[-2] == recent[-4]
            and recent[-1] != recent[-2]
        )

    def _test_run(
        self,
        payload: Mapping[str, Any],
        session: str,
        run: testruns.TestRun,
        command: str,
        response: Any,
    ) -> list[str]:
        state = self.cap.load("test-state", session) or {}
        last = state.get("failures")
        failing_runs = int(state.get("failing_runs", 0) or 0)
        output = _response_text(response)
        from reflectgit.notes import testruns

        reasons: list[str] = []
        if run.failures > 0:
            if last == 0:
                reasons.append("test-regression")
            if not last:
                state["first_failure"] = {
                    "failures": run.failures,
                    "tests": testruns.failing_tests(output),
                    "evidence": _evidence(output),
                    "command": _text(command, 200),
                    "ts": self.cap.clock(),
                }
                state["files"] = []
            state["failing_runs"] = failing_runs + 1
            state["failures"] = run.failures
            self.cap.save("test-state", session, state)
            return reasons
        # Green.
        if isinstance(last, int) and last > 0:
            self._write_test_fix(payload, session, run, command, state)
            if failing_runs >= PROMOTE_AFTER_FAILING_RUNS:
                self._promote(session, failing_runs)
        self.cap.save("test-state", session, {"failures": 0, "failing_runs": 0, "files": []})
        return reasons

    def _write_test_fix(
        self,
        payload: Mapping[str, Any],
        session: str,
        run: testruns.TestRun,
        command: str,
        state: Mapping[str, Any],
    ) -> None:
        first = state.get("first_failure") or {}
        n = int(first.get("failures") or state.get("failures") or 0)
        tests = [t for t in first.get("tests", []) if isinstance(t, str)]
        files = [f for f in state.get("files", []) if isinstance(f, str)]
        evidence = str(first.get("evidence") or "")
        project = _project(payload)
        where = f" in {project}" if project else ""
        title = f"{run.runner}: {n} failing test{'s' if n != 1 else ''} fixed{where}"
        symptom = _symptom(evidence) or f"{n} failing tests"
        lines = [
            "## What happened",
            "",
            f"`{_text(command, 200)}` went from {n} failure(s) to 0 in one session "
            f"after {state.get('failing_runs', 1)} failing run(s).",
            "",
        ]
        if evidence:
            lines += ["## Evidence", "", "```", evidence, "```", ""]
        if tests:
            lines += ["## Failing tests", "", *[f"- `{t}`" for t in tests], ""]
        if files:
            lines += [
                "## Files changed before the suite went green",
                "",
                *[f"- `{f}`" for f in files],
                "",
            ]
        draft = NoteDraft(
            kind="test-fix",
            event="PostToolUse",
            slug=f"{run.runner} {project or ''}",
            title=title,
            confidence="high",
            body="\n".join(lines),
            session=session,
            fields={
                "key_insight": (
                    f"{run.runner} failed with '{symptom}' and went green again after changes to "
                    + (", ".join(files[:5]) if files else "the code in the same session")
                    + "."
                ),
                "symptoms": [symptom] if symptom else [],
                "problem": f"{n} failing {run.runner} test(s)",
                "category": "testing",
                "tags": _tags(payload, run.runner),
                "files_touched": files,
                "validated": True,
            },
        )
        written = self.cap.write_notes(self._scoped([draft], payload))
        self.cap.log("PostToolUse", "note:test-fix", ",".join(written.ids), session)

    def _promote(self, session: str, failing_runs: int) -> None:
        ids = self.cap.session_notes(session)
        if not ids:
            return
        written = self.cap.retier(
            ids,
            session=session,
            step=TIER_UP,
            op="promote",
            source="capture:test-green",
            reason=f"tests went green after {failing_runs} failing runs",
            validated=True,
        )
        self.cap.log("PostToolUse", "promoted", ",".join(written.ids), session)

    def _todos(
        self, payload: Mapping[str, Any], session: str, tool_input: Mapping[str, Any]
    ) -> None:
        todos = tool_input.get("todos")
        if not isinstance(todos, list):
            return
        state = self.cap.load("todo-state", session) or {}
        items: dict[str, Any] = state.get("items") if isinstance(state.get("items"), dict) else {}  # type: ignore[assignment]
        files = [f for f in state.get("files", []) if isinstance(f, str)]
        now = self.cap.clock()
        drafts = []
        for todo in todos:
            if not isinstance(todo, Mapping) or not isinstance(todo.get("content"), str):
                continue
            content = todo["content"].strip()
            status = todo.get("status")
            key = content
            known = items.get(key)
            if known is None:
                items[key] = {"status": status, "since": now}
                continue
            if status == "completed" and known.get("status") != "completed":
                started = float(known.get("since") or now)
                drafts.append(self._todo_draft(payload, session, content, now - started, files))
            if status != known.get("status"):
                known["status"] = status
                if status == "in_progress":
                    known["since"] = now
        self.cap.save("todo-state", session, {"items": items, "files": files if not drafts else []})
        if drafts:
            written = self.cap.write_notes(self._scoped(drafts, payload))
            self.cap.log("PostToolUse", "note:todo-done", ",".join(written.ids), session)

    def _todo_draft(
        self,
        payload: Mapping[str, Any],
        session: str,
        content: str,
        seconds: float,
        files: list[str],
    ) -> NoteDraft:
        minutes = max(0, round(seconds / 60))
        took = f"{minutes} min" if minutes else f"{max(0, int(seconds))} s"
        lines = ["## Completed", "", f"- {content}", "", f"Took about {took}."]
        if files:
            lines += ["", "## Files touched", "", *[f"- `{f}`" for f in files]]
        return NoteDraft(
            kind="todo-done",
            event="PostToolUse",
            slug=content,
            title=f"Done: {content}",
            confidence="medium",
            body="\n".join(lines) + "\n",
            session=session,
            fields={
                "key_insight": f"Completed '{content}' in about {took}.",
                "category": "process",
                "tags": _tags(payload, "todo"),
                "duration_seconds": int(seconds),
                "files_touched": files,
            },
        )

    # ------------------------------------------------------------------ prompts and permissions

    def permission_request(self, event: str, payload: Mapping[str, Any], session: str) -> None:
        tool = payload.get("tool_name")
        tool_input = payload.get("tool_input")
        if event == "Notification":
            message = payload.get("message")
            kind = payload.get("notification_type")
            if not (
                kind == "permission_prompt"
                or (isinstance(message, str) and "permission" in message.lower())
            ):
                return
            if not isinstance(tool, str) and isinstance(message, str):
                m = re.search(r"permission to use (\S+)", message)
                tool = m.group(1) if m else None
        self.cap.save(
            "permission-armed",
            session,
            {
                "tool": tool if isinstance(tool, str) else "?",
                "command": _text(_command(tool_input) or tool_input, 300),
                "ts": self.cap.clock(),
            },
        )
        self.cap.log(event, "armed:permission", str(tool), session)

    def user_prompt(self, payload: Mapping[str, Any], session: str) -> None:
        prompt = payload.get("prompt")
        if not isinstance(prompt, str):
            return
        asked = self.cap.load("permission-armed", session)
        if asked is not None:
            self.cap.drop("permission-armed", session)  # single-shot
            reply = permission_reply(prompt)
            if reply is not None:
                self._permission_note(payload, session, asked, reply, prompt)
                return
        armed = self.cap.load("armed", session)
        if armed is None:
            return
        if self.cap.clock() - float(armed.get("ts") or 0) > WATCHER_TTL:
            self.cap.drop("armed", session)
            self.cap.log("UserPromptSubmit", "watcher-expired", "", session)
            return
        match = correction_in(prompt)
        if match is None:
            return  # the watcher lingers until it expires
        self.cap.drop("armed", session)
        self._correction_note(payload, session, armed, prompt, match)

    def _permission_note(
        self,
        payload: Mapping[str, Any],
        session: str,
        asked: Mapping[str, Any],
        reply: Reply,
        prompt: str,
    ) -> None:
        tool = str(asked.get("tool") or "?")
        command = str(asked.get("command") or "")
        what = f"{tool} `{command}`" if command else tool
        said = _text(prompt.strip(), 200)
        verb = "Allow" if reply.decision == "allow" else "Deny"
        if reply.scope == "scoped":
            title = f"Allow {what} {said}"
            rule = f"{what}: allowed, {said}."
        elif reply.scope in ("always", "never"):
            title = f"{verb} {what} {reply.scope}"
            rule = f"{what}: {reply.decision} {reply.scope}."
        else:
            title = f"{verb} {what} (one-off)"
            rule = f"{what}: the user said {said!r} once; ask again next time."
        project = _project(payload)
        body = (
            "## Permission reply\n\n"
            f"- Request: {what}\n- Reply: {said}\n- Decision: {reply.decision} ({reply.scope})\n"
            + (f"- Project: {project}\n" if project else "")
        )
        draft = NoteDraft(
            kind="permission",
            event="UserPromptSubmit",
            slug=f"{reply.decision} {reply.scope} {tool} {command}",
            title=title,
            confidence=reply.confidence,
            body=body,
            session=session,
            fields={
                "rule": rule,
                "key_insight": rule,
                "category": "security",
                "tags": _tags(payload, "permission", tool.lower()),
                "permission": {
                    "tool": tool,
                    "command": command,
                    "decision": reply.decision,
                    "scope": reply.scope,
                },
            },
        )
        written = self.cap.write_notes(self._scoped([draft], payload))
        self.cap.log("UserPromptSubmit", "note:permission", ",".join(written.ids), session)

    def _correction_note(
        self,
        payload: Mapping[str, Any],
        session: str,
        armed: Mapping[str, Any],
        prompt: str,
        match: re.Match[str],
    ) -> None:
        new = (match.group("new1") or match.group("new2") or "").strip(" `'\"")
        old = (match.group("old1") or match.group("old2") or "").strip(" `'\"")
        said = _text(prompt.strip(), 400)
        if new and old:
            title = f"Use {new} instead of {old}"
        elif new:
            title = f"Use {new} instead"
        else:
            title = f"Correction after {armed.get('reason', 'a failure')}: {said.splitlines()[0]}"
        title = _text(title, 110)
        tool = str(armed.get("tool") or "?")
        lines = [
            "## Corrected",
            "",
            f"> {said}",
            "",
            f"## What the agent was doing ({armed.get('reason', 'failure')})",
            "",
            f"- Tool: {tool}",
            f"- Input: `{armed.get('input', '')}`",
        ]
        if armed.get("response"):
            lines += ["", "```", str(armed["response"]), "```"]
        draft = NoteDraft(
            kind="correction",
            event="UserPromptSubmit",
            slug=title if new else said,
            title=title,
            confidence="low",
            body="\n".join(lines) + "\n",
            session=session,
            fields={
                "key_insight": said.splitlines()[0] if said else title,
                "rule": title if new else None,
                "problem": f"{tool} {armed.get('reason', 'failure')}: {armed.get('input', '')}"[
                    :300
                ],
                "category": "corrections",
                "tags": _tags(payload, "correction", str(armed.get("reason", ""))),
                "watcher_reason": armed.get("reason"),
            },
        )
        written = self.cap.write_notes(self._scoped([draft], payload))
        self.cap.log("UserPromptSubmit", "note:correction", ",".join(written.ids), session)

    # ------------------------------------------------------------------ queue producers

    def queue_producer(self, event: str, payload: Mapping[str, Any], session: str) -> None:
        if event == "PreCompact":
            if not self.cap.settings.auto_reflect:
                self.cap.log(event, "skip", "REFLECT_AUTO_REFLECT=0", session)
                return
            trigger = payload.get("trigger")
            trigger = trigger if isinstance(trigger, str) and trigger else "precompact"
        else:
            trigger = QUEUE_TRIGGERS[event]
        if event == "Stop":
            self.cap.sweep()
        path = payload.get("transcript_path")
        if not isinstance(path, str) or not path:
            self.cap.log(event, "skip", "no transcript_path", session)
            return
        cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
        queued = self.cap.enqueue(
            path, trigger, session=session, cwd=cwd, harness=self._harness(payload)
        )
        self._log_queued(event, session, queued)

    def subagent_stop(self, payload: Mapping[str, Any], session: str | None) -> None:
        path = payload.get("agent_transcript_path") or payload.get("transcript_path")
        if not isinstance(path, str) or not path:
            self.cap.log("SubagentStop", "skip", "no transcript path", session)
            return
        agent_id = payload.get("agent_id")
        extra = {
            "agent_id": agent_id if isinstance(agent_id, str) else None,
            "agent_type": payload.get("agent_type")
            if isinstance(payload.get("agent_type"), str)
            else None,
            "parent_session_id": session,
        }
        own = Path(path).stem if payload.get("agent_transcript_path") else session
        queued = self.cap.enqueue(
            path,
            "subagent_stop",
            session=safe_session(own) or session,
            cwd=payload.get("cwd") if isinstance(payload.get("cwd"), str) else None,
            harness=self._harness(payload),
            scope="subagent",
            extra={k: v for k, v in extra.items() if v},
        )
        self._log_queued("SubagentStop", session, queued)

    def codex_notify(self, payload: Mapping[str, Any]) -> None:
        """Codex ``notify`` (agent-turn-complete): queue the thread's rollout, like Stop."""
        if payload.get("type") != "agent-turn-complete":
            return
        thread = safe_session(payload.get("thread-id") or payload.get("thread_id"))
        if thread is None:
            self.cap.log("codex-notify", "skip", "no usable thread-id")
            return
        home = self.cap.settings.codex_home
        rollouts = sorted((home / "sessions").rglob(f"rollout-*{thread}.jsonl"))
        if not rollouts:
            self.cap.log("codex-notify", "skip", "no rollout for the thread", thread)
            return
        cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
        queued = self.cap.enqueue(
            str(rollouts[-1]), "stop", session=thread, cwd=cwd, harness="codex"
        )
        self._log_queued("codex-notify", thread, queued)

    def _scoped(self, drafts: list[NoteDraft], payload: Mapping[str, Any]) -> list[NoteDraft]:
        """Each note carries the project it was learned in; global only when it says so."""
        from reflectgit.notes.scope import scope_fields
        from reflectgit.workflows.project import project_name

        cwd = payload.get("cwd")
        project = project_name(cwd, self.cap.cfg.env) if isinstance(cwd, str) else None
        for draft in drafts:
            said = f"{draft.title}\n{draft.fields.get('rule') or ''}\n{draft.body}"
            draft.fields.update(scope_fields(project, said))
        return drafts

    def _harness(self, payload: Mapping[str, Any]) -> str:
        harness = payload.get("harness")
        return harness if isinstance(harness, str) and harness else "claude"

    def _log_queued(self, event: str, session: str | None, queued: Any) -> None:
        outcome = "queued" if queued.entry_id else "skip"
        self.cap.log(
            event, outcome, f"{queued.verdict.reason} {queued.entry_id or ''}".strip(), session
        )


def _symptom(evidence: str) -> str:
    """The first line of evidence that says what went wrong (not a banner or a test id)."""
    for line in evidence.splitlines():
        text = line.strip()
        if re.match(
            r"^(?:=+|-+|FAILED\b|ERROR\b|PASSED\b)|short test summary|^\d+ (?:failed|passed)", text
        ):
            continue
        if text:
            return text[:200]
    return ""


def _evidence(output: str, lines: int = 12) -> str:
    """The lines of test output that say what failed (not the whole log)."""
    keep = [
        line
        for line in output.splitlines()
        if line.strip()
        and not set(line.strip()) <= set("=-_ ")
        and not line.startswith("platform ")
    ]
    interesting = [
        line
        for line in keep
        if re.search(r"FAIL|Error|error|assert|panicked|Exception|failed", line)
        or not re.search(r"collected|session starts|passed in", line)
    ]
    return clean("\n".join(interesting[:lines]))[:EVIDENCE_CAP]
