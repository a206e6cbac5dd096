"""Agent-harness events turned into captures: deterministic notes, watchers, queue entries.

The capture pass (``sessionpass.py``) hands each event of a session's event log to
``AgentEvents.handle`` in order, after the hooks that logged them have returned; ``Capture``'s
clock is then the event's receive time, so every TTL below is measured between events.

``normalise`` first reads the payload the way its harness sends it (Claude Code, Codex, the
Copilot CLI in camelCase or its VS Code form: field names, types, event names) into one shape.
Then one function per event. State between events lives in the state directory, one JSON file
per session and kind (``capture/armed``, ``permission-armed``, ``test-state``, ``loops``,
``todo-state``, ``sessions``); every kind has a TTL that is checked when the state is read.
Events are not lessons: what happened in a session goes to its event record
(``state/sessionrecord.py``: a todo finished, tests started failing, tests went green again),
and notes are written only when the event is unambiguous and carries a lesson:

- a test runner goes from N failures to 0, the same runner over the same or a wider target,
  the failing output names its error (``testruns.first_error``, never a runner's header) and
  files were edited between the two runs: high (``test-fix``), with the failing tests, the
  error line, the files, and the rule the person stated while the tests failed; one note per
  fix (the failing test set, per session). Without an error line or an edit it is an event.
  A failing run is read from ``PostToolUseFailure.error``, a passing one from a
  ``PostToolUse`` (success is the absence of failure: no exit-code field exists);
- a failure, a loop or a test regression arms a watcher; a correcting next prompt writes a
  low note (``correction``); the watcher expires after 10 minutes;
- a todo item completed (``TodoWrite``, ``TaskCreate``/``TaskUpdate``): an event, no note;
- a permission dialog answered with "don't ask again": high (``permission``), only when the
  rule the dialog offered is found in the settings file it names; a one-off answer, a prompt
  that happens to say "yes", and the ``permission_prompt`` Notification write nothing;
- tests green after several failing runs promote the session's earlier hook notes one tier.

Copilot's ``errorOccurred`` is recorded as a breadcrumb in ``logs/errors.jsonl``.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reflectgit import jsonio
from reflectgit.notes.harness import COPILOT_EVENTS, HARNESSES, detect_harness
from reflectgit.notes.privacy import clean, clean_data
from reflectgit.notes.words import plural
from reflectgit.state.eventlog import STRING_CAP
from reflectgit.workflows.capture.commits import TIER_UP, Capture, NoteDraft, iso, safe_session

if TYPE_CHECKING:
    from typing import Any

    from reflectgit.notes import testruns
    from reflectgit.notes.signals import Correction

WATCHER_TTL = 600.0
PERMISSION_TTL = 1800.0  # a dialog may wait a while for its answer, not forever
STATE_TTL = 6 * 3600.0
TTL = {"armed": WATCHER_TTL, "permission-armed": PERMISSION_TTL}  # every other kind: STATE_TTL
PROMOTE_AFTER_FAILING_RUNS = 2
EVIDENCE_CAP = 600
OUTPUT_CAP = STRING_CAP  # of a tool's output, what the test-run parsers read (the tail)
EDIT_TOOLS = {
    "Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch",  # Claude Code, Codex
    "edit", "create", "str_replace_editor",  # Copilot CLI
}  # fmt: skip
TODO_TOOLS = {"TodoWrite", "TaskCreate", "TaskUpdate", "update_todo"}
# The kinds of a person's words (``notes/signals.py``) that state a rule a test fix carries.
RULE_KINDS = ("correction", "prohibition", "requirement")
ERRORS_FILE = "errors.jsonl"
ERRORS_MAX_BYTES = 1_000_000
# Claude Code's answer when the person rejects a tool call in the permission dialog.
_REJECTED = r"^(?:Error: )?The user doesn'?t want to proceed with this tool use"
# Codex's unified exec header line, or its ``shell`` tool's first line ("Exit code: 2", then
# "Wall time: ...", "Output:"): only at the start, where the tool writes it.
_CODEX_EXIT = r"(?:^Process exited with code|\AExit code:) (-?\d+)\s*$"

QUEUE_TRIGGERS = {
    "Stop": "stop",
    "SessionEnd": "session_end",
    "SubagentStop": "subagent_stop",
}


@dataclass(frozen=True, slots=True)
class Reply:
    """How a prompt answers a permission request."""

    decision: str  # allow | deny
    scope: str  # always | never | scoped | once
    confidence: str


def correction_in(prompt: str) -> Correction | None:
    """The correction in a prompt (the detector's, ``notes.signals.correction``), or None."""
    from reflectgit.notes.signals import correction  # here: most agent events run no detector

    return correction(prompt)


# --------------------------------------------------------------------------- helpers


def _text(value: Any, cap: int = EVIDENCE_CAP) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        value = jsonio.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
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


def _project(payload: Mapping[str, Any]) -> str | None:
    cwd = payload.get("cwd")
    if not (isinstance(cwd, str) and cwd):
        return None
    from pathlib import Path  # only for a payload with a cwd

    return Path(cwd).name


def _tags(payload: Mapping[str, Any], *more: str) -> list[str]:
    import re  # here, not at import: most agent events run no detector

    tags = [t for t in more if t]
    project = _project(payload)
    if project:
        tags.append(re.sub(r"[^a-z0-9-]+", "-", project.lower()).strip("-"))
    return [t for t in tags if t]


def _sig(tool: str, tool_input: Any) -> str:
    """A short fingerprint of a call (loop detection only needs equality)."""
    raw = jsonio.dumps([tool, tool_input], sort_keys=True, default=str).encode("utf-8")
    return f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}{len(raw):x}"


# --------------------------------------------------------------------------- payloads


def normalise(event: str, payload: Mapping[str, Any], harness: str | None = None) -> dict[str, Any]:
    """The payload in one shape whatever the harness: Claude Code's field names, plus
    ``event``, ``harness``, ``_output`` (the tool's text: stdout and stderr, or the error)
    and ``_failed`` (True, False, or None when the tool neither succeeded nor failed)."""
    name = payload.get("hook_event_name")
    if isinstance(name, str) and name and event in ("", "auto"):
        event = name
    event = COPILOT_EVENTS.get(event, event)
    who = harness if harness in HARNESSES else detect_harness(event, payload)
    out: dict[str, Any] = dict(payload)

    def first(*keys: str) -> Any:
        for key in keys:
            value = payload.get(key)
            if value not in (None, ""):
                return value
        return None

    out["event"] = event
    out["harness"] = who
    out["session_id"] = first("session_id", "sessionId")
    path = first("transcript_path", "transcriptPath")
    out["transcript_path"] = os.path.expanduser(path) if isinstance(path, str) else None
    agent_path = payload.get("agent_transcript_path")
    if isinstance(agent_path, str) and agent_path:
        out["agent_transcript_path"] = os.path.expanduser(agent_path)
    tool = first("tool_name", "toolName")
    out["tool_name"] = tool if isinstance(tool, str) else None
    tool_input = first("tool_input", "toolArgs")
    if isinstance(tool_input, str):  # Copilot's toolArgs may be a JSON string
        try:
            tool_input = jsonio.loads(tool_input)
        except ValueError:
            tool_input = {"command": tool_input}
    out["tool_input"] = tool_input
    output, failed = _outcome(event, payload)
    out["_output"] = output[-OUTPUT_CAP:]
    out["_failed"] = failed
    return out


def _outcome(event: str, payload: Mapping[str, Any]) -> tuple[str, bool | None]:
    """What the tool printed and whether it failed, read the way each harness reports it."""
    error = payload.get("error")
    if event == "PostToolUseFailure":
        # Claude Code and Copilot: the output is in `error`; there is no tool_response.
        text = error if isinstance(error, str) else _text(error, OUTPUT_CAP)
        if payload.get("is_interrupt") is True:
            return text, None
        return text, True
    response = payload.get("tool_response")
    result = payload.get("toolResult") or payload.get("tool_result")
    if isinstance(result, Mapping):  # Copilot CLI (camelCase) and its VS Code form
        text = result.get("textResultForLlm") or result.get("text_result_for_llm") or ""
        kind = result.get("resultType") or result.get("result_type")
        text = text if isinstance(text, str) else ""
        if kind == "success":
            return text, False
        if kind in ("failure", "error"):
            return text, True
        return text, None  # "denied": the tool never ran
    if isinstance(response, str):  # Codex: a header, then the output
        import re  # here, not at import: only Codex reports a string

        code = re.search(_CODEX_EXIT, response, re.MULTILINE)
        _, sep, body = response.partition("\nOutput:\n")
        text = body if sep else response
        if code:
            return text, int(code.group(1)) != 0
        return text, False
    if isinstance(response, Mapping):  # Claude Code
        parts = [response.get(k) for k in ("stdout", "stderr", "output", "content", "error")]
        text = "\n".join(p for p in parts if isinstance(p, str) and p)
        if response.get("is_error") is True or (error and isinstance(error, str)):
            return text, True
        if response.get("interrupted") is True:
            return text, None
        return text, False  # success is the absence of failure: no exit-code field exists
    if isinstance(error, str) and error:
        return error, True
    return "", None if response is None else False


# --------------------------------------------------------------------------- the events


class AgentEvents:
    """Dispatch one harness event to its handler; returns what to print on stdout (or None)."""

    def __init__(self, cap: Capture, harness: str | None = None) -> None:
        self.cap = cap
        self.harness = harness  # `--harness` on the command line; None: from the payload

    def handle(self, event: str, payload: Mapping[str, Any]) -> str | None:
        payload = normalise(event, payload, self.harness)
        event = payload["event"]
        session = safe_session(payload.get("session_id"))
        if event == "SubagentStop":
            self.subagent_stop(payload, session)
            return "{}"
        if event == "codex-notify":
            self.codex_notify(payload)
            return None
        if event == "ErrorOccurred":
            self.error_occurred(payload, session)
            return None
        if session is None:
            self.cap.log(event, "skip", "payload without a usable session_id")
            return None
        if event in ("Stop", "SessionEnd", "PreCompact"):
            self.queue_producer(event, payload, session)
            return None
        # Parallel tool calls fire concurrent hooks for one session: serialise its state.
        with self.cap.session_lock(session):
            self._remember_transcript(payload, session)
            if event in ("PostToolUse", "PostToolUseFailure"):
                self.post_tool_use(event, payload, session)
            elif event == "UserPromptSubmit":
                self.user_prompt(payload, session)
            elif event in ("PermissionRequest", "Notification", "PermissionDenied"):
                self.permission_request(event, payload, session)
            else:
                self.cap.log(event, "ignored", "", session)
        return None

    # ------------------------------------------------------------------ state with a TTL

    def _load(self, kind: str, session: str) -> dict[str, Any] | None:
        """Per-session state, or None when there is none or it is older than its TTL."""
        data = self.cap.load(kind, session)
        if data is None:
            return None
        saved = data.get("saved")
        ttl = TTL.get(kind, STATE_TTL)
        if not isinstance(saved, (int, float)) or self.cap.clock() - float(saved) > ttl:
            self.cap.drop(kind, session)
            self.cap.log("state", "expired", kind, session)
            return None
        return data

    def _save(self, kind: str, session: str, data: Mapping[str, Any], scrub: bool = True) -> None:
        self.cap.save(kind, session, {**data, "saved": self.cap.clock()}, scrub=scrub)

    def _remember_transcript(self, payload: Mapping[str, Any], session: str) -> None:
        """Copilot's sessionEnd names no transcript: keep the last one the session gave."""
        path = payload.get("transcript_path")
        if isinstance(path, str) and path:
            known = self._load("transcript", session)
            if known is None or known.get("path") != path:
                self._save("transcript", session, {"path": path})

    # ------------------------------------------------------------------ PostToolUse

    def post_tool_use(self, event: str, payload: Mapping[str, Any], session: str) -> None:
        tool = payload.get("tool_name")
        tool = tool if isinstance(tool, str) else "?"
        tool_input = payload.get("tool_input")
        output: str = payload.get("_output") or ""
        failed = payload.get("_failed")
        self._permission_outcome(payload, session, tool, tool_input, output, failed)
        if tool in EDIT_TOOLS and failed is not True:  # a failed edit changed nothing
            self._touched(payload, session, tool)
        if tool in TODO_TOOLS and isinstance(tool_input, Mapping):
            self._todos(session, tool, tool_input, payload.get("tool_response"))
        reasons: list[str] = []
        run = None
        command = _command(tool_input)
        if command and failed is not None:
            from reflectgit.notes import testruns

            run = testruns.read_run(command, output)
        if run is not None:
            reasons.extend(self._test_run(payload, session, run, command, output))
        if self._looping(session, tool, tool_input):
            reasons.append("loop")
        if failed:
            reasons.append("failure")
        if reasons:
            self._arm(session, reasons[0], tool, tool_input, output)

    def _arm(self, session: str, reason: str, tool: str, tool_input: Any, response: Any) -> None:
        self._save(
            "armed",
            session,
            {
                "reason": reason,
                "tool": tool,
                "input": _text(_command(tool_input) or tool_input),
                "response": _text(response),
                "ts": self.cap.clock(),
            },
        )
        self.cap.log("PostToolUse", f"armed:{reason}", tool, session)

    def _touched(self, payload: Mapping[str, Any], session: str, tool: str) -> None:
        """Files an edit tool changed (``apply_patch``'s too), for what a fix changed."""
        cwd = payload.get("cwd")
        tool_input = payload.get("tool_input")
        data = tool_input if isinstance(tool_input, Mapping) else {}
        named = [data.get(k) for k in ("file_path", "notebook_path", "path", "filePath")]
        paths = [p for p in named if isinstance(p, str) and p][:1]
        if tool == "apply_patch":  # the files its patch names, read as the policy reads them
            from reflectgit.notes.policy import call_from

            paths += call_from(tool, tool_input, cwd).paths
        paths = list(dict.fromkeys(_relative(p, cwd) for p in paths))
        if not paths:
            return
        for kind in ("todo-state", "test-state"):
            state = self._load(kind, session)
            if state is None:
                continue
            files = [f for f in state.get("files", []) if isinstance(f, str)]
            files += [p for p in paths if p not in files]
            state["files"] = files[-50:]
            if kind == "test-state":  # what the edit replaced, for what a fix changed
                changes = [c for c in state.get("changes", []) if isinstance(c, dict)]
                state["changes"] = (changes + _replacements(data, paths[0]))[-MAX_CHANGES:]
            self._save(kind, session, state)

    def _record(self, session: str, kind: str, key: str, summary: str, **fields: Any) -> None:
        """One event in the session's event record (``state/sessionrecord.py``)."""
        from reflectgit.state import sessionrecord

        event = {"ts": self.cap.clock(), "kind": kind, "key": key, "summary": summary}
        event.update({k: v for k, v in fields.items() if v not in (None, "", [])})
        if sessionrecord.append(self.cap.state_dir, session, event):
            self.cap.log("PostToolUse", f"event:{kind}", summary[:120], session)

    def _looping(self, session: str, tool: str, tool_input: Any) -> bool:
        state = self._load("loops", session) or {}
        recent = [s for s in state.get("recent", []) if isinstance(s, str)][-3:]
        recent.append(_sig(tool, tool_input))
        self._save("loops", session, {"recent": recent}, scrub=False)
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
        output: str,
    ) -> list[str]:
        """Track failing runs per runner; a covering green run of the same runner is a fix."""
        from reflectgit.notes import testruns

        state = self._load("test-state", session) or {}
        failing: dict[str, Any] = dict(state.get("failing") or {})
        green = [r for r in state.get("green", []) if isinstance(r, str)]
        files = [f for f in state.get("files", []) if isinstance(f, str)]
        changes = [c for c in state.get("changes", []) if isinstance(c, dict)]
        rule = state.get("rule") if isinstance(state.get("rule"), str) else None
        known = failing.get(run.runner)
        reasons: list[str] = []
        if run.failures > 0:
            tests = testruns.failing_tests(output)
            error = testruns.first_error(output, run.runner)
            if known is None:
                if run.runner in green:
                    reasons.append("test-regression")
                known = {
                    "first_failure": {
                        "failures": run.failures,
                        "tests": tests,
                        "error": error,
                        "command": _text(command, 200),
                        "ts": self.cap.clock(),
                    },
                    "target": list(run.target),
                    "filters": list(run.filters),
                    "failing_runs": 0,
                }
                if not failing:
                    files, changes, rule = [], [], None
                self._record(
                    session,
                    "tests-failed",
                    f"tests-failed:{run.runner}:{self.cap.clock()}",
                    f"{run.runner}: {plural(run.failures, 'failing test')}"
                    + (f": {error}" if error else ""),
                    runner=run.runner,
                    command=_text(command, 200),
                    failures=run.failures,
                    tests=tests,
                    error=error,
                )
            else:
                known["target"] = _union(known.get("target"), run.target)
                if list(run.filters) != known.get("filters"):
                    known["filters"] = []
                first = known.setdefault("first_failure", {})
                if not first.get("error") and error:  # a later run said what fails
                    first["error"] = error
                if not first.get("tests") and tests:
                    first["tests"] = tests
            known["failing_runs"] = int(known.get("failing_runs", 0) or 0) + 1
            known["failures"] = run.failures
            failing[run.runner] = known
            self._save(
                "test-state",
                session,
                {
                    "failing": failing,
                    "green": green,
                    "files": files,
                    "changes": changes,
                    "rule": rule,
                },
            )
            return reasons
        # Green: a fix only of what this runner failed, over the same or a wider target.
        if run.runner not in green:
            green.append(run.runner)
        if known is not None:
            before = testruns.TestRun(
                run.runner,
                int(known.get("failures") or 1),
                0,
                tuple(known.get("target") or ()),
                tuple(known.get("filters") or ()),
            )
            if testruns.covers(run, before):
                failing.pop(run.runner)
                self._tests_fixed(payload, session, run, command, known, files, rule, changes)
                runs = int(known.get("failing_runs", 0) or 0)
                if runs >= PROMOTE_AFTER_FAILING_RUNS:
                    self._promote(session, runs)
                if not failing:
                    files, changes, rule = [], [], None
            else:
                self.cap.log("PostToolUse", "green:narrower", run.runner, session)
        self._save(
            "test-state",
            session,
            {"failing": failing, "green": green, "files": files, "changes": changes, "rule": rule},
        )
        return reasons

    def _tests_fixed(
        self,
        payload: Mapping[str, Any],
        session: str,
        run: testruns.TestRun,
        command: str,
        known: Mapping[str, Any],
        files: list[str],
        rule: str | None,
        changes: list[dict[str, Any]] | None = None,
    ) -> None:
        """Failing tests went green: a note when the session learned something (the error
        line, the files edited in between), one note per fix; an event in any case."""
        from reflectgit.notes import routine
        from reflectgit.state import sessionrecord

        first, n, tests, error = _first_failure(known)
        runs = int(known.get("failing_runs", 1) or 1)
        fix = f"{run.runner}:{','.join(sorted(tests)) or error or n}"
        summary = (
            f"{run.runner}: {plural(n, 'failing test')} green again after "
            f"{plural(runs, 'failing run')}"
        )
        note = None
        if not files:
            why = "no file was edited between the failing and the green run"
        elif not error:
            why = "the failing run's output holds no error line"
        elif routine.expectation_only(error, files):
            why = routine.EXPECTATION  # the test changed, not the code
        elif routine.routine(error, ""):
            why = routine.routine(error, "")  # a lint warning or a typo: the error names its fix
        else:
            earlier = [
                e.get("note")
                for e in sessionrecord.read(self.cap.state_dir, session)
                if e.get("kind") == "tests-fixed" and e.get("fix") == fix and e.get("note")
            ]
            if earlier:
                note, why = None, f"the same fix as {earlier[0]}"
            else:
                draft = self._test_fix_draft(
                    payload, session, run, command, known, files, rule, changes or []
                )
                written = self.cap.write_notes(self._scoped([draft], payload))
                self.cap.log("PostToolUse", "note:test-fix", ",".join(written.ids), session)
                note, why = (written.ids[0] if written.ids else None), ""
        self._record(
            session,
            "tests-fixed",
            f"tests-fixed:{run.runner}:{first.get('ts')}",
            summary + (f" (note {note})" if note else f" ({why}: no note)"),
            runner=run.runner,
            command=_text(command, 200),
            failures=n,
            tests=tests,
            error=error,
            files=files,
            rule=rule,
            fix=fix,
            note=note,
            no_note=why,
        )

    def _test_fix_draft(
        self,
        payload: Mapping[str, Any],
        session: str,
        run: testruns.TestRun,
        command: str,
        known: Mapping[str, Any],
        files: list[str],
        rule: str | None,
        changes: list[dict[str, Any]],
    ) -> NoteDraft:
        first, n, tests, error = _first_failure(known)
        changed = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        failed = f"{plural(n, f'failing {run.runner} test')}"
        where = _test_names(tests) or failed
        swap = _the_change(changes)
        did = f"use `{swap['new']}`, not `{swap['old']}`, in {swap['file']}" if swap else ""
        title = rule or (f"{did[:1].upper()}{did[1:]} ({error})" if did else "")
        title = title or f"{error} (fixed in {changed})"
        lines = [
            "## What failed",
            "",
            f"`{_text(first.get('command') or command, 200)}`: {failed}, first error:",
            "",
            "```",
            error,
            "```",
            "",
        ]
        if tests:
            lines += ["## Failing tests", "", *[f"- `{t}`" for t in tests], ""]
        lines += [
            "## What changed before it went green",
            "",
            *[f"- `{f}`" for f in files],
            *(["", f"`{swap['old']}` became `{swap['new']}` in `{swap['file']}`."] if swap else []),
            "",
            f"`{_text(command, 200)}` passed after "
            f"{plural(int(known.get('failing_runs', 1) or 1), 'failing run')}.",
            "",
        ]
        if rule:
            lines += ["## The rule the session stated", "", f"> {rule}", ""]
        return NoteDraft(
            kind="test-fix",
            event="PostToolUse",
            slug=f"{run.runner} {_test_names(sorted(tests)) or error}",
            title=_text(title, 110),
            confidence="high",
            body="\n".join(lines),
            session=session,
            fields={
                "key_insight": (
                    f"{where} failed with '{error}' and went green again after changes to "
                    f"{changed}" + (f": {did}." if did else ".") + (f" {rule}" if rule else "")
                ),
                "rule": rule,
                "symptoms": [error],
                "problem": f"{failed}: {error}"[:300],
                "category": "testing",
                "tags": _tags(payload, run.runner),
                "files_touched": files,
                "validated": True,
            },
        )

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

    def _todos(self, session: str, tool: str, tool_input: Mapping[str, Any], response: Any) -> None:
        """TodoWrite sends the whole list; TaskCreate adds one task, TaskUpdate changes one."""
        state = self._load("todo-state", session) or {}
        raw_items = state.get("items")
        items: dict[str, Any] = dict(raw_items) if isinstance(raw_items, dict) else {}
        raw_ids = state.get("ids")
        ids: dict[str, str] = dict(raw_ids) if isinstance(raw_ids, dict) else {}
        files = [f for f in state.get("files", []) if isinstance(f, str)]
        changes = _todo_changes(tool, tool_input, response, items, ids)
        if changes is None:
            return
        now = self.cap.clock()
        done = False
        for said, status in changes:
            content = clean(said)  # the state is kept masked: look it up the same way
            known = items.get(content)
            if known is None:
                items[content] = {"status": status, "since": now}
                continue
            if status == "completed" and known.get("status") != "completed":
                started = float(known.get("since") or now)
                self._todo_done(session, content, started, now - started, files)
                done = True
            if status != known.get("status"):
                known["status"] = status
                if status == "in_progress":
                    known["since"] = now
        self._save(
            "todo-state",
            session,
            {"items": items, "ids": ids, "files": files if not done else []},
        )

    def _todo_done(
        self, session: str, content: str, started: float, seconds: float, files: list[str]
    ) -> None:
        """A finished todo is an event of the session, never a note: what was done is in
        the record; a lesson it taught is the drain's to find."""
        minutes = max(0, round(seconds / 60))
        took = f"{minutes} min" if minutes else f"{max(0, int(seconds))} s"
        self._record(
            session,
            "todo-done",
            f"todo-done:{content}:{started}",
            f"Done: {content} (about {took})",
            content=content,
            seconds=int(seconds),
            files=files,
        )

    # ------------------------------------------------------------------ permissions

    def permission_request(self, event: str, payload: Mapping[str, Any], session: str) -> None:
        """Remember the dialog's request; its outcome comes with the tool call that follows.

        The ``permission_prompt`` Notification only says a dialog is showing (the request is
        already remembered), so it changes nothing; ``PermissionDenied`` is a rule's or the
        auto-mode classifier's decision, not a person's, so it only closes the request.
        """
        tool = payload.get("tool_name")
        tool_input = payload.get("tool_input")
        if event == "Notification":
            kind = payload.get("notification_type")
            if kind == "permission_prompt":
                self.cap.log(event, "seen:permission-prompt", "", session)
            return
        pending = self._pending_permissions(session)
        sig = _sig(str(tool), tool_input)
        pending = [p for p in pending if p.get("sig") != sig]
        if event == "PermissionDenied":
            self._save("permission-armed", session, {"requests": pending})
            self.cap.log(event, "permission:denied-by-rule", str(tool), session)
            return
        suggestions = payload.get("permission_suggestions")
        pending.append(
            {
                "tool": tool if isinstance(tool, str) else "?",
                "command": _text(_command(tool_input) or tool_input, 300),
                "sig": sig,
                "suggestions": suggestions if isinstance(suggestions, list) else [],
                "ts": self.cap.clock(),
            }
        )
        self._save("permission-armed", session, {"requests": pending[-10:]})
        self.cap.log(event, "armed:permission", str(tool), session)

    def _pending_permissions(self, session: str) -> list[dict[str, Any]]:
        state = self._load("permission-armed", session) or {}
        now = self.cap.clock()
        return [
            p
            for p in state.get("requests", [])
            if isinstance(p, dict) and now - float(p.get("ts") or 0) <= PERMISSION_TTL
        ]

    def _permission_outcome(
        self,
        payload: Mapping[str, Any],
        session: str,
        tool: str,
        tool_input: Any,
        output: str,
        failed: bool | None,
    ) -> None:
        """The tool call a dialog asked about: it ran (allowed) or was rejected (denied)."""
        if self.cap.load("permission-armed", session) is None:
            return
        pending = self._pending_permissions(session)
        sig = _sig(tool, tool_input)
        asked = next((p for p in pending if p.get("sig") == sig), None)
        if asked is None:
            return
        pending.remove(asked)
        import re  # here, not at import: only a call a dialog asked about

        rejected = bool(failed) and re.search(_REJECTED, output.strip(), re.I) is not None
        decision = "deny" if rejected else "allow"
        rule = (
            None
            if failed is None and not rejected
            else self._persisted_rule(payload, asked, decision)
        )
        if failed is None and not rejected:
            pass  # interrupted: no answer to read
        elif rule is None:  # a one-off answer: the harness asks again next time
            self.cap.log("PostToolUse", f"permission:{decision}-once", tool, session)
        else:
            self._permission_note(payload, session, asked, decision, rule)
        # After the note: a pass killed in between finds the request and writes it again.
        self._save("permission-armed", session, {"requests": pending})

    def _persisted_rule(
        self, payload: Mapping[str, Any], asked: Mapping[str, Any], decision: str
    ) -> tuple[str, str] | None:
        """(rule, destination) when the dialog's "don't ask again" rule is now in the settings
        file it names (Claude Code writes it there before the tool runs), else None."""
        from reflectgit.workflows.transcript_file import read_small_file

        cwd = payload.get("cwd")
        places = {
            "userSettings": self.cap.cfg.home / ".claude" / "settings.json",
        }
        if isinstance(cwd, str) and os.path.isabs(cwd):
            from pathlib import Path

            places["projectSettings"] = Path(cwd) / ".claude" / "settings.json"
            places["localSettings"] = Path(cwd) / ".claude" / "settings.local.json"
        for suggestion in asked.get("suggestions") or []:
            if not isinstance(suggestion, Mapping) or suggestion.get("type") != "addRules":
                continue
            if suggestion.get("behavior") != decision:
                continue
            where = suggestion.get("destination")
            path = places.get(where) if isinstance(where, str) else None
            data = read_small_file(path) if path is not None else None
            try:
                settings = jsonio.loads(data) if data else None
            except ValueError:
                settings = None
            perms = settings.get("permissions") if isinstance(settings, dict) else None
            listed = perms.get(decision) if isinstance(perms, dict) else None
            if not isinstance(listed, list):
                continue
            for rule in suggestion.get("rules") or []:
                if not isinstance(rule, Mapping) or not isinstance(rule.get("toolName"), str):
                    continue
                content = rule.get("ruleContent")
                text = f"{rule['toolName']}({content})" if content else rule["toolName"]
                if text in listed:
                    return text, str(where)
        return None

    def _permission_note(
        self,
        payload: Mapping[str, Any],
        session: str,
        asked: Mapping[str, Any],
        decision: str,
        persisted: tuple[str, str],
    ) -> None:
        tool = str(asked.get("tool") or "?")
        command = str(asked.get("command") or "")
        rule_text, destination = persisted
        reply = Reply(decision, "always" if decision == "allow" else "never", "high")
        what = f"{tool} `{command}`" if command else tool
        verb = "Allow" if decision == "allow" else "Deny"
        title = f"{verb} {what} {reply.scope}"
        rule = f"{what}: {decision} {reply.scope} (`{rule_text}` in {destination})."
        project = _project(payload)
        body = (
            "## Permission decision\n\n"
            f"- Request: {what}\n- Answer in the dialog: {decision}, don't ask again\n"
            f"- Rule saved: `{rule_text}` ({destination})\n"
            + (f"- Project: {project}\n" if project else "")
        )
        draft = NoteDraft(
            kind="permission",
            event="PostToolUse",
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
                    "rule": rule_text,
                    "destination": destination,
                },
            },
        )
        written = self.cap.write_notes(self._scoped([draft], payload))
        self.cap.log("PostToolUse", "note:permission", ",".join(written.ids), session)

    # ------------------------------------------------------------------ prompts

    def user_prompt(self, payload: Mapping[str, Any], session: str) -> None:
        prompt = payload.get("prompt")
        if not isinstance(prompt, str):
            return
        with_fix = self._rule_while_failing(session, prompt)
        armed = self._load("armed", session)
        if armed is None:
            return
        if self.cap.clock() - float(armed.get("ts") or 0) > WATCHER_TTL:
            self.cap.drop("armed", session)
            self.cap.log("UserPromptSubmit", "watcher-expired", "", session)
            return
        match = correction_in(prompt)
        if match is None or not match.lesson:
            return  # the watcher lingers until it expires ("not like this" teaches nothing)
        if with_fix:  # the rule goes with the test fix's note: one lesson, one note
            self.cap.drop("armed", session)
            self.cap.log("UserPromptSubmit", "correction:with-test-fix", "", session)
            return
        self._correction_note(payload, session, armed, prompt, match)
        self.cap.drop("armed", session)  # after the note: a pass killed between writes it again

    def _rule_while_failing(self, session: str, prompt: str) -> bool:
        """A rule the person states while tests fail goes with the fix (its note's rule);
        True when this prompt's rule was kept for it."""
        state = self._load("test-state", session)
        if not state or not state.get("failing") or state.get("rule"):
            return False
        rule = _rule_in(prompt)
        if rule:
            self._save("test-state", session, {**state, "rule": rule})
        return bool(rule)

    def _correction_note(
        self,
        payload: Mapping[str, Any],
        session: str,
        armed: Mapping[str, Any],
        prompt: str,
        match: Correction,
    ) -> None:
        new, old = match.new, match.old
        said = _text(prompt.strip(), 400)
        if new and old:
            title = f"Use {new} instead of {old}"
        elif new:
            title = f"Use {new} instead"
        else:  # the person's own words are the rule ("Don't produce code, design ... first")
            words = said.splitlines()[0].strip()
            words = (
                words.split(",", 1)[1].strip()
                if words.lower().startswith(("no,", "nope,"))
                else words
            )
            title = words[:1].upper() + words[1:]
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
            known = self._load("transcript", session) or {}
            path = known.get("path")
        if not isinstance(path, str) or not path:
            self.cap.log(event, "skip", "no transcript_path", session)
            return
        if not self._regular(event, path, session):
            return
        if event == "Stop" and self.cap.settings.slots:
            self.keep_slots(payload, session, path)
        cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
        queued = self.cap.enqueue(
            path, trigger, session=session, cwd=cwd, harness=self._harness(payload)
        )
        self._log_queued(event, session, queued)

    def keep_slots(self, payload: Mapping[str, Any], session: str, path: str) -> None:
        """``REFLECT_SLOTS=1``: the memory slots of the session (``capture/slots.py``); a
        failure is logged and never stops the queueing that follows."""
        from reflectgit.workflows.capture import slots

        try:
            kept = slots.remember(self.cap, payload, session, path)
        except Exception as exc:
            self.cap.breadcrumb("Stop", exc)
            return
        self.cap.log("Stop", "slots" if kept else "skip", "kept" if kept else "no slots", session)

    def _regular(self, event: str, path: str, session: str | None) -> bool:
        """Only a regular file is a transcript (a FIFO or a device would hang the reader)."""
        from reflectgit.workflows.transcript_file import is_regular_file

        if is_regular_file(path) or not os.path.lexists(path):
            return True  # a missing file: the gate decides (it fails open)
        self.cap.log(event, "skip", "transcript_path is not a regular file", session)
        return False

    def subagent_stop(self, payload: Mapping[str, Any], session: str | None) -> None:
        path = payload.get("agent_transcript_path") or payload.get("transcript_path")
        if not isinstance(path, str) or not path:
            self.cap.log("SubagentStop", "skip", "no transcript path", session)
            return
        if not self._regular("SubagentStop", path, session):
            return
        agent_id = payload.get("agent_id")
        extra = {
            "agent_id": agent_id if isinstance(agent_id, str) else None,
            "agent_type": payload.get("agent_type")
            if isinstance(payload.get("agent_type"), str)
            else None,
            "parent_session_id": session,
        }
        own = _file_stem(path) if payload.get("agent_transcript_path") else session
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

    def error_occurred(self, payload: Mapping[str, Any], session: str | None) -> None:
        """Copilot's ``errorOccurred``: one breadcrumb line in ``logs/errors.jsonl``."""
        error = payload.get("error")
        if isinstance(error, Mapping):
            name, message = error.get("name"), error.get("message")
        else:
            name, message = None, error
        context = payload.get("errorContext") or payload.get("error_context")
        row = {
            "ts": iso(self.cap.clock()),
            "harness": payload.get("harness"),
            "session_id": session,
            "cwd": payload.get("cwd") if isinstance(payload.get("cwd"), str) else None,
            "name": name if isinstance(name, str) else None,
            "message": _text(message, 2000) if message is not None else None,
            "context": context if isinstance(context, str) else None,
            "recoverable": payload.get("recoverable")
            if isinstance(payload.get("recoverable"), bool)
            else None,
        }
        folder = self.cap.state_dir / "logs"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / ERRORS_FILE
        if path.exists() and path.stat().st_size > ERRORS_MAX_BYTES:
            os.replace(path, folder / (ERRORS_FILE + ".1"))
        line = jsonio.dumps(clean_data({k: v for k, v in row.items() if v is not None}))
        with path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
        self.cap.log(
            "ErrorOccurred",
            "breadcrumb",
            f"{row['name'] or ''} {row['context'] or ''}".strip(),
            session,
        )

    def _scoped(self, drafts: list[NoteDraft], payload: Mapping[str, Any]) -> list[NoteDraft]:
        """Each note carries the project it was learned in; global only when it says so."""
        from reflectgit.notes.scope import scope_fields
        from reflectgit.workflows.project import project_name

        cwd = payload.get("cwd")
        project = project_name(cwd, self.cap.cfg.env) if isinstance(cwd, str) else None
        for draft in drafts:
            said = f"{draft.title}\n{draft.fields.get('rule') or ''}\n{draft.body}"
            draft.fields.update(scope_fields(project, said))
            if isinstance(cwd, str) and "anchors" not in draft.fields:
                draft.fields["anchors"] = self._anchors(cwd, draft)
        return drafts

    def _anchors(self, cwd: str, draft: NoteDraft) -> list[dict[str, str]]:
        """Anchors from the files the session edited and the commits it made (commit capture)."""
        from reflectgit.workflows.code.anchoring import committed_files, session_anchors

        touched = draft.fields.get("files_touched")
        files = [f for f in touched if isinstance(f, str)] if isinstance(touched, list) else []
        files += committed_files(self.cap.cfg, draft.session)
        return session_anchors(cwd, files, self.cap.cfg.env)

    def _harness(self, payload: Mapping[str, Any]) -> str:
        harness = payload.get("harness")
        return harness if isinstance(harness, str) and harness in HARNESSES else "claude"

    def _log_queued(self, event: str, session: str | None, queued: Any) -> None:
        outcome = "queued" if queued.entry_id else "skip"
        self.cap.log(
            event, outcome, f"{queued.verdict.reason} {queued.entry_id or ''}".strip(), session
        )


def _union(known: Any, target: tuple[str, ...]) -> list[str]:
    """The target two failing runs cover together (() is the whole suite)."""
    before = [t for t in known or [] if isinstance(t, str)] if isinstance(known, list) else []
    if not before or not target:
        return []
    return sorted(set(before) | set(target))


def _todo_changes(
    tool: str,
    tool_input: Mapping[str, Any],
    response: Any,
    items: Mapping[str, Any],
    ids: dict[str, str],
) -> list[tuple[str, Any]] | None:
    """(content, status) pairs a todo tool call reports; None when it reports none."""
    import re  # here, not at import: most agent events run no detector

    if tool in ("TodoWrite", "update_todo"):
        todos = tool_input.get("todos")
        if not isinstance(todos, list):
            return None
        return [
            (t["content"].strip(), t.get("status"))
            for t in todos
            if isinstance(t, Mapping) and isinstance(t.get("content"), str)
        ]
    if tool == "TaskCreate":
        subject = tool_input.get("subject")
        if not isinstance(subject, str) or not subject.strip():
            return None
        task = response.get("task") if isinstance(response, Mapping) else None
        task_id = task.get("id") if isinstance(task, Mapping) else None
        if task_id is None and isinstance(response, str):
            m = re.search(r"Task #?(\w+)", response)
            task_id = m.group(1) if m else None
        if task_id is None:
            task_id = str(len(ids) + 1)  # Claude Code numbers a list's tasks 1, 2, ...
        ids[str(task_id)] = subject.strip()
        return [(subject.strip(), "pending")]
    if tool == "TaskUpdate":
        task_id = tool_input.get("taskId")
        status = tool_input.get("status")
        subject = ids.get(str(task_id)) if task_id is not None else None
        new_subject = tool_input.get("subject")
        if subject is None and isinstance(new_subject, str) and new_subject.strip():
            subject = new_subject.strip()
        if subject is None or not isinstance(status, str):
            return None
        if status == "deleted":
            return []
        return [(subject, status)]
    return None


def _first_failure(known: Mapping[str, Any]) -> tuple[Mapping[str, Any], int, list[str], str]:
    """The first failing run a test state recorded: the record, how many failed, the failing
    tests' names and the first error line."""
    first = known.get("first_failure") or {}
    n = int(first.get("failures") or known.get("failures") or 0)
    tests = [t for t in first.get("tests", []) if isinstance(t, str)]
    return first, n, tests, str(first.get("error") or "")


MAX_CHANGES = 5  # the replacements kept per test state (more: no one change is "the" fix)
CHANGE_CAP = 80  # a replacement longer than this, or over lines, is not one change to name


def _replacements(data: Mapping[str, Any], path: str) -> list[dict[str, Any]]:
    """The text an edit replaced (Claude Code's Edit and MultiEdit, Copilot's str_replace):
    ``{"file", "old", "new"}`` each."""
    many = data.get("edits")
    edits: list[Any] = many if isinstance(many, list) else [data]
    out = []
    for edit in edits:
        if not isinstance(edit, Mapping):
            continue
        old = edit.get("old_string", edit.get("old_str"))
        new = edit.get("new_string", edit.get("new_str"))
        if isinstance(old, str) and isinstance(new, str):
            out.append({"file": path, "old": old[: CHANGE_CAP + 1], "new": new[: CHANGE_CAP + 1]})
    return out


def _the_change(changes: list[dict[str, Any]]) -> dict[str, str] | None:
    """The one small replacement between a failing and a green run (``round(x, 2)`` ->
    ``x.quantize(CENT)``): a single edit, one line each side, both short; else None (several
    edits, a rewrite or a deletion name no single fix)."""
    if len(changes) != 1:
        return None
    change = changes[0]
    old, new, path = (str(change.get(k) or "") for k in ("old", "new", "file"))
    small = all(0 < len(x.strip()) <= CHANGE_CAP and "\n" not in x.strip() for x in (old, new))
    if not small or "`" in old + new or not path:
        return None
    return {"file": path, "old": old.strip(), "new": new.strip()}


def _test_names(tests: list[str]) -> str:
    """ "test_rounding, test_tax and 1 more" (a test's own name, not its path)."""
    names = [t.split("::")[-1].split(" - ")[0].strip() for t in tests]
    shown = ", ".join(names[:2])
    return shown + (f" and {len(names) - 2} more" if len(names) > 2 else "")


def _relative(path: str, cwd: Any) -> str:
    """``path`` from the session's folder when it lies inside it, else as it is."""
    if isinstance(cwd, str) and cwd.startswith("/"):
        prefix = cwd.rstrip("/") + "/"
        if path.startswith(prefix):
            return path[len(prefix) :]
    return path


def _rule_in(prompt: str) -> str | None:
    """The sentences of a person's prompt that state a rule ("always ...", "never ...", "use X
    instead"), as the drain's signal table reads a person's words, in their order; else None."""
    import re  # here, not at import: only a prompt while tests fail

    from reflectgit.notes.signals import classify

    said = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", prompt.strip()):
        hit = classify(sentence)
        if hit and hit[1] in RULE_KINDS:
            said.append(sentence.strip())
    return _text(" ".join(said), 300) if said else None


def _file_stem(path: str) -> str:
    """A transcript file's name without its suffix (``Path.stem``), pathlib imported only here."""
    from pathlib import Path

    return Path(path).stem
