"""Memory slots: what a session leaves for the next one in the same project. Pure.

At Stop (``REFLECT_SLOTS=1``), one pass over the transcript fills three slots, as the
original tool's do:

- ``pending_items``: ``TODO:`` lines the person or the assistant wrote, TODOs added to code
  by an edit, and the todo items (``TodoWrite``, Codex ``update_plan``, Copilot
  ``update_todo``) still open at the end;
- ``session_patterns``: how often each program was run (the first word of a shell command),
  how many tool calls failed;
- ``project_context``: the files the session edited.

Text the harness injected (skill bodies, reminders, command wrappers) is never read for
TODOs: only what a person typed, what the assistant said, and what an edit wrote.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reflectgit.notes.transcripts import INJECTED, Transcript

MAX_PENDING = 10
MAX_FILES = 20
MAX_COMMANDS = 8
ITEM_CAP = 160  # characters of one pending item
LINE_CAP = 400  # characters of one line recall shows: slots must leave room for the notes

# "TODO: x", "TODO(ann): x", "# TODO - x"; "todo" in lower case and "TodoWrite" are not TODOs.
_TODO = re.compile(r"(?<![A-Za-z0-9_])TODO(?:\([^)\n]{0,40}\))?\s*[:\-\u2013]\s*(\S[^\n]{2,})")
_EDIT_TOOLS = {"Edit", "Write", "MultiEdit", "NotebookEdit", "edit", "create", "str_replace_editor"}
_SHELL_TOOLS = {"Bash", "shell", "exec_command", "local_shell", "bash", "powershell"}
_TODO_TOOLS = {"TodoWrite", "update_todo", "update_plan"}
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update) File: (.+)$", re.MULTILINE)
_ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")
_WRAPPERS = {"sudo", "env", "time", "nohup", "exec", "command", "uv", "poetry", "npx"}
_OPEN = {"pending", "in_progress", "open", "not_started", "todo"}


@dataclass
class Slots:
    """The three slots of one session."""

    pending_items: list[str] = field(default_factory=list)
    commands: dict[str, int] = field(default_factory=dict)
    errors: int = 0
    tool_calls: int = 0
    files_touched: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.pending_items or self.commands or self.errors or self.files_touched)

    def to_json(self) -> dict[str, Any]:
        return {
            "pending_items": self.pending_items,
            "session_patterns": {
                "commands": self.commands,
                "errors": self.errors,
                "tool_calls": self.tool_calls,
            },
            "project_context": {"files_touched": self.files_touched},
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Slots:
        patterns = doc.get("session_patterns")
        patterns = patterns if isinstance(patterns, Mapping) else {}
        context = doc.get("project_context")
        context = context if isinstance(context, Mapping) else {}
        commands = patterns.get("commands")
        return cls(
            pending_items=_strings(doc.get("pending_items")),
            commands={
                str(k): int(v)
                for k, v in (commands.items() if isinstance(commands, Mapping) else ())
                if isinstance(v, int)
            },
            errors=_int(patterns.get("errors")),
            tool_calls=_int(patterns.get("tool_calls")),
            files_touched=_strings(context.get("files_touched")),
        )


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= ITEM_CAP else text[: ITEM_CAP - 1].rstrip() + "…"


def todo_lines(text: str) -> list[str]:
    """The ``TODO:`` items in a text."""
    return [_clip(m.group(1).rstrip(" */-#")) for m in _TODO.finditer(text)]


def program_of(command: str) -> str | None:
    """The program a shell command runs: ``FOO=1 uv run pytest -x`` -> ``pytest``."""
    first = re.split(r"\s*(?:&&|\|\||;|\|)\s*", command.strip(), maxsplit=1)[0]
    words = first.split()
    if words and words[0] == "cd" and ("&&" in command or ";" in command):
        rest = re.split(r"\s*(?:&&|;)\s*", command.strip(), maxsplit=1)
        return program_of(rest[1]) if len(rest) > 1 else None
    for word in words:
        if _ENV_ASSIGN.match(word) or word in _WRAPPERS or word == "run" or word.startswith("-"):
            continue
        name = word.rsplit("/", 1)[-1].strip("'\"")
        return name or None
    return None


def _command(value: Any) -> str:
    if isinstance(value, Mapping):
        value = value.get("command") or value.get("cmd")
    if isinstance(value, list):
        parts = [str(v) for v in value]
        if len(parts) >= 3 and parts[0].endswith(("bash", "sh", "zsh")) and parts[1] == "-lc":
            return parts[2]  # Codex runs ["bash", "-lc", "<command>"]
        return " ".join(parts)
    return value if isinstance(value, str) else ""


def _edit_paths(name: str, tool_input: Any) -> list[str]:
    if name == "apply_patch":
        patch = tool_input.get("input") if isinstance(tool_input, Mapping) else tool_input
        return _PATCH_FILE.findall(patch) if isinstance(patch, str) else []
    if not isinstance(tool_input, Mapping):
        return []
    path = tool_input.get("file_path") or tool_input.get("notebook_path") or tool_input.get("path")
    return [path] if isinstance(path, str) and path else []


def _edit_text(tool_input: Any) -> str:
    if not isinstance(tool_input, Mapping):
        return ""
    parts = [tool_input.get(k) for k in ("content", "new_string", "file_text", "new_str")]
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        parts += [e.get("new_string") for e in edits if isinstance(e, Mapping)]
    return "\n".join(p for p in parts if isinstance(p, str))


def _open_todos(tool_input: Any) -> list[str] | None:
    """The open items of a whole todo list (None when the call is not one)."""
    if not isinstance(tool_input, Mapping):
        return None
    items = tool_input.get("todos") or tool_input.get("plan")
    if not isinstance(items, list):
        return None
    out = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        text = item.get("content") or item.get("step") or item.get("title")
        status = str(item.get("status") or "pending").lower()
        if isinstance(text, str) and text.strip() and status in _OPEN:
            out.append(_clip(text))
    return out


def _add_unique(items: list[str], new: Iterable[str], cap: int) -> None:
    for item in new:
        if item not in items and len(items) < cap:
            items.append(item)


def extract(t: Transcript) -> Slots:
    """The slots of one transcript."""
    slots = Slots()
    todos: list[str] = []  # the last whole todo list's open items
    written: list[str] = []  # TODOs edits wrote into code
    said: list[str] = []
    commands: Counter[str] = Counter()
    files: list[str] = []
    for turn in t.turns:
        if turn.speaker != INJECTED:
            said.extend(todo_lines(turn.text))
    for call in t.tool_calls:
        slots.tool_calls += 1
        if call.name in _SHELL_TOOLS:
            program = program_of(_command(call.input))
            if program:
                commands[program] += 1
        if call.name in _EDIT_TOOLS or call.name == "apply_patch":
            for path in _edit_paths(call.name, call.input):
                if path in files:
                    files.remove(path)
                files.append(path)  # the most recent last
            written.extend(todo_lines(_edit_text(call.input)))
        if call.name in _TODO_TOOLS:
            open_items = _open_todos(call.input)
            if open_items is not None:
                todos = open_items
    slots.errors = sum(1 for r in t.tool_results if r.is_error)
    _add_unique(slots.pending_items, todos, MAX_PENDING)
    _add_unique(slots.pending_items, (f"TODO: {x}" for x in said), MAX_PENDING)
    _add_unique(slots.pending_items, (f"TODO in code: {x}" for x in written), MAX_PENDING)
    slots.commands = dict(commands.most_common(MAX_COMMANDS))
    slots.files_touched = files[-MAX_FILES:]
    return slots


def _line(text: str, cap: int = LINE_CAP) -> str:
    return text if len(text) <= cap else text[: cap - 1].rstrip() + "…"


def describe(slots: Slots, when: str | None = None, session: str | None = None) -> list[str]:
    """The lines recall shows at the next session start."""
    if slots.empty:
        return []
    head = "Left by the last session here"
    extra = ", ".join(p for p in (when, f"session {session[:8]}" if session else None) if p)
    lines = [head + (f" ({extra}):" if extra else ":")]
    if slots.pending_items:
        lines.append(_line("- pending: " + "; ".join(slots.pending_items)))
    if slots.files_touched:
        lines.append(_line("- files touched: " + ", ".join(slots.files_touched[-8:])))
    ranked = sorted(slots.commands.items(), key=lambda kv: (-kv[1], kv[0]))
    patterns = [f"{name} x{n}" for name, n in ranked]
    if slots.errors:
        patterns.append(f"{slots.errors} failed tool call{'s' if slots.errors != 1 else ''}")
    if patterns:
        lines.append("- commands: " + ", ".join(patterns))
    return lines
