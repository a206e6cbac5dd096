"""Parse Claude Code, Codex and Copilot CLI transcripts into dialogue turns, tool calls and
tool results, with who said what. Pure.

A transcript is JSON Lines written by an agent harness. Reading never raises on content. Every
record kind a harness writes is known (``docs/transcripts.md`` lists them with the harness
version they were seen in): dialogue records become ``Turn``s, tool traffic becomes
``ToolCall``s and ``ToolResult``s, and records that carry no dialogue (progress, attachments,
snapshots, titles, token counts ...) are counted in ``skipped``, never called errors. A line
that really is broken (not JSON, not an object, no record type, a dialogue record whose message
is not an object) is a ``RecordProblem`` with a clear reason. A file with nothing usable comes
back with ``error`` set (``empty``, ``binary``, ``not-a-transcript``, ``unreadable``).

Who said it is explicit on every turn (``Turn.speaker``): ``person`` (a person's typed prompt),
``assistant``, or ``injected`` (text the harness sends with the user role: meta messages,
command wrappers and caveats, skill and instruction bodies, AGENTS.md text, compaction
summaries and the compaction agent's prompt, system reminders, hook output, a subagent's task
prompt). Tool output stays in ``tool_results``. Subagent and compaction-agent files name their
parent session (``parent_session_id``, ``agent_kind``).

Codex's code mode, where the model makes its tool calls from one JavaScript ``exec`` program,
is read as the same calls made directly when the program makes them literally
(``notes/codemode.py`` reads the program; its output is attributed here).

Reading stops once enough dialogue is in hand (``max_dialogue_chars``) or ``max_bytes`` have
been read, so a huge transcript costs no more than the part that matters. Pure: lines in,
``Transcript`` out (``workflows/transcript_file.read_transcript`` reads the file).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reflectgit.notes import codemode
from reflectgit.notes.words import plural

DIALOGUE_CAP = 600_000  # characters of dialogue the gate and the slicer ever look at
MAX_BYTES = 64 * 1024 * 1024
RESULT_CAP = 4_000  # characters kept per tool result (evidence, not archive)
PROBLEMS_KEPT = 50  # per-record reasons kept (all are counted in bad_lines)

CLAUDE = "claude"
CODEX = "codex"
COPILOT = "copilot"
UNKNOWN = "unknown"

PERSON = "person"
ASSISTANT = "assistant"
INJECTED = "injected"
SPEAKERS = (PERSON, ASSISTANT, INJECTED)

SUBAGENT = "subagent"
COMPACTION = "compaction"


@dataclass(frozen=True)
class Turn:
    """One piece of dialogue: who said it and what (tool traffic excluded).

    ``role`` is the harness's message role (``user`` | ``assistant``), kept for compatibility;
    ``speaker`` says who really wrote it (``person`` | ``assistant`` | ``injected``). Left
    empty it follows the role: ``user`` is a person, ``assistant`` the assistant.
    """

    role: str  # "user" | "assistant"
    text: str
    record: int  # 0-based line number in the file
    timestamp: str | None = None
    speaker: str = ""

    def __post_init__(self) -> None:
        if not self.speaker:
            object.__setattr__(self, "speaker", ASSISTANT if self.role == "assistant" else PERSON)


@dataclass(frozen=True)
class ToolCall:
    """A tool invocation by the assistant."""

    call_id: str
    name: str
    input: Any
    record: int


@dataclass(frozen=True)
class ToolResult:
    """What a tool returned (truncated to ``RESULT_CAP`` characters)."""

    call_id: str
    content: str
    is_error: bool
    record: int


@dataclass(frozen=True)
class RecordProblem:
    """A line that is really broken, with the reason (0-based line number)."""

    record: int
    reason: str


@dataclass
class Transcript:
    """A transcript as far as it was read; ``error`` is set when nothing usable was found."""

    path: str = ""
    harness: str = UNKNOWN
    session_id: str | None = None
    cwd: str | None = None
    version: str | None = None  # the harness version the file names (first one seen)
    parent_session_id: str | None = None  # set for subagent and compaction-agent files
    agent_kind: str | None = None  # SUBAGENT | COMPACTION | None (a session of its own)
    turns: list[Turn] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)
    records: int = 0  # lines that parsed as transcript records
    skipped: int = 0  # of those, records that carry no dialogue (progress, attachment ...)
    kinds: Counter[str] = field(default_factory=Counter)  # record kind -> count
    bad_lines: int = 0  # lines skipped: not JSON, or not shaped like a record
    problems: list[RecordProblem] = field(default_factory=list)  # the first PROBLEMS_KEPT
    bytes_read: int = 0
    complete: bool = True  # False when a cap stopped the reading early
    error: str | None = None
    opening_texts: list[str] = field(default_factory=list)  # raw text of the first records
    # Codex code mode, while reading: the programs read whose output is still to come (by the
    # exec call's id), and the ``wait`` calls that resume a program's cell.
    _programs: dict[str, codemode.Program] = field(default_factory=dict, repr=False)
    _waits: dict[str, str] = field(default_factory=dict, repr=False)  # call id -> cell
    # Codex 0.157: the exit codes its ``item_completed`` events give the commands a program ran
    # (by the command's text), and the command of a one-call program still running (by cell).
    _exits: dict[str, int] = field(default_factory=dict, repr=False)
    _cells: dict[str, str] = field(default_factory=dict, repr=False)
    # Claude Code: prompts the person typed while the assistant worked, as queued (record,
    # text, timestamp); those never delivered as a turn are read as turns at the end.
    _queued: list[tuple[int, str, str | None]] = field(default_factory=list, repr=False)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def dialogue_chars(self) -> int:
        return sum(len(t.text) for t in self.turns)

    @property
    def is_side_session(self) -> bool:
        """A subagent's or the compaction agent's file: it belongs to its parent session."""
        return self.agent_kind is not None

    def said_by(self, speaker: str) -> list[Turn]:
        return [t for t in self.turns if t.speaker == speaker]


OPENING_RECORDS = 5


class _Broken(ValueError):
    """A record that is really broken; the message is the reason."""


def parse_lines(
    lines: Iterable[bytes | str], *, max_dialogue_chars: int = DIALOGUE_CAP
) -> Transcript:
    """Parse transcript lines (bytes or text) into a ``Transcript``."""
    t = Transcript()
    chars = 0
    counted = 0
    binary = False
    non_empty = 0
    last = 0
    for index, raw in enumerate(lines):
        last = index
        t.bytes_read += len(raw)
        if isinstance(raw, bytes):
            if b"\x00" in raw:
                binary = True
                _problem(t, index, "binary: the line holds NUL bytes")
                continue
            text = raw.decode("utf-8", "replace")
        else:
            text = raw
        if not text.strip():
            continue
        non_empty += 1
        try:
            record = json.loads(text)
        except ValueError as exc:
            _problem(t, index, f"not JSON: {exc}")
            continue
        if not isinstance(record, dict):
            _problem(t, index, f"not a JSON object (a {type(record).__name__})")
            continue
        try:
            dialogue = _take_record(t, record, index)
        except _Broken as exc:
            _problem(t, index, str(exc))
            continue
        t.records += 1
        if not dialogue:
            t.skipped += 1
        while counted < len(t.turns):
            chars += len(t.turns[counted].text)
            counted += 1
        if chars >= max_dialogue_chars:
            _trim_dialogue(t, max_dialogue_chars)
            t.complete = False
            break
    if t.complete:
        _claude_undelivered(t, last)
    if t.records == 0:
        if non_empty == 0 and not binary:
            t.error = "empty"
        elif binary:
            t.error = "binary: not a text transcript"
        elif t.bad_lines:
            t.error = f"not-a-transcript: none of the {plural(t.bad_lines, 'line')} is a transcript record"
    return t


def _problem(t: Transcript, index: int, reason: str) -> None:
    t.bad_lines += 1
    if len(t.problems) < PROBLEMS_KEPT:
        t.problems.append(RecordProblem(index, reason))


def _trim_dialogue(t: Transcript, cap: int) -> None:
    over = t.dialogue_chars - cap
    if over > 0 and t.turns:
        last = t.turns[-1]
        t.turns[-1] = Turn(
            last.role,
            last.text[: max(0, len(last.text) - over)],
            last.record,
            last.timestamp,
            last.speaker,
        )


# ---------------------------------------------------------------- record kinds without dialogue

# Claude Code (2.1.x) records that carry no dialogue.
CLAUDE_QUIET = frozenset(
    {
        "summary",
        "system",
        "progress",
        "attachment",
        "file-history-snapshot",
        "queue-operation",
        "worktree-state",
        "permission-mode",
        "mode",
        "agent-name",
        "custom-title",
        "ai-title",
        "last-prompt",
        "tag",
        "frame-link",
        "pr-link",
        "started",
        "result",
        "relocated",
        "bridge-session",
        "atis-latch",
    }
)
# Codex rollout record kinds that carry no dialogue (``event_msg`` copies the response items).
CODEX_QUIET = frozenset(
    {"turn_context", "event_msg", "world_state", "inter_agent_communication_metadata"}
)
# Codex response items that carry no dialogue.
CODEX_QUIET_ITEMS = frozenset(
    {
        "reasoning",
        "web_search_call",
        "tool_search_call",
        "tool_search_output",
        "image_generation_call",
        "ghost_snapshot",
        "agent_message",
        "compaction",
        "compaction_summary",
    }
)


def _take_record(t: Transcript, record: dict[str, Any], index: int) -> bool:
    """Fold one record into the transcript; True when it carried dialogue or tool traffic.

    Raises ``_Broken`` when the line is not shaped like a record at all.
    """
    kind = record.get("type")
    if not isinstance(kind, str) or not kind:
        raise _Broken("no record type (a transcript record has a string `type`)")
    if kind in ("user", "assistant"):
        if t.harness == UNKNOWN:
            t.harness = CLAUDE
        t.kinds[kind] += 1
        return _claude_record(t, record, index)
    if kind in CLAUDE_QUIET:
        _claude_envelope(t, record)
        t.kinds[kind] += 1
        if kind == "queue-operation":
            _claude_enqueued(t, record, index)
        return kind == "attachment" and _claude_queued_prompt(t, record, index)
    if kind == "session_meta":
        t.harness = CODEX
        t.kinds[kind] += 1
        _codex_meta(t, record.get("payload"))
        return False
    if kind == "response_item":
        t.harness = CODEX
        payload = record.get("payload")
        if not isinstance(payload, dict):
            raise _Broken("response_item: `payload` is not an object")
        t.kinds[f"response_item:{payload.get('type')}"] += 1
        return _codex_item(t, payload, index, _str(record.get("timestamp")))
    if kind == "compacted":
        t.kinds[kind] += 1
        payload = record.get("payload")
        message = payload.get("message") if isinstance(payload, dict) else None
        if isinstance(message, str) and message.strip():
            _turn(t, "user", message, index, _str(record.get("timestamp")), INJECTED)
            return True
        return False
    if kind in CODEX_QUIET:
        t.kinds[kind] += 1
        if kind == "event_msg":
            _codex_exit(t, record.get("payload"))
        return False
    if kind in ("message", "function_call", "function_call_output"):
        # Older Codex rollouts store response items at the top level.
        if t.harness == UNKNOWN:
            t.harness = CODEX
        t.kinds[kind] += 1
        return _codex_item(t, record, index, _str(record.get("timestamp")))
    if ("." in kind or kind == "abort") and isinstance(record.get("data"), dict):
        t.harness = COPILOT if t.harness == UNKNOWN else t.harness
        t.kinds[kind] += 1
        if _str(record.get("agentId")):
            # Copilot CLI writes a dispatched sub-agent's run into its parent's events, each
            # event marked with the sub-agent's ``agentId``: its messages and tool calls are
            # the sub-agent's work, which the session sees only as the result the dispatching
            # tool returns (as Claude Code keeps a sub-agent in a file of its own). Its
            # reports ("VERDICT: APPROVE") are not the assistant's words to the person.
            return False
        return _copilot_event(t, kind, record["data"], index, _str(record.get("timestamp")))
    # A kind this reader has not met: harnesses add record kinds often; skip, never reject.
    t.kinds[f"unknown:{kind}"] += 1
    return False


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _opening(t: Transcript, text: str) -> None:
    if len(t.opening_texts) < OPENING_RECORDS:
        t.opening_texts.append(text[:2000])


def _turn(t: Transcript, role: str, text: str, index: int, stamp: str | None, speaker: str) -> None:
    _opening(t, text)
    if text.strip():
        t.turns.append(Turn(role, text, index, stamp, speaker))


# ---------------------------------------------------------------- who wrote a user-role text

# Text the harness sends with the user role, recognised by how it starts.
_INJECTED_START = re.compile(
    r"\A\s*(?:"
    r"<(?:local-command-caveat|local-command-stdout|local-command-stderr|command-name|"
    r"command-message|command-args|system[-_]reminder|user-prompt-submit-hook|bash-stdout|"
    r"bash-stderr|bash-notification|task-notification|environment_context|user_instructions|INSTRUCTIONS|"
    r"permissions instructions|collaboration_mode|turn_aborted|user_shell_command|skill|"
    r"subagent_notification|persisted-output|system_instruction|reflect-git:drain|"
    r"ide_opened_file|ide_selection|ide_diagnostics|new-diagnostics|user_action|"
    r"teammate-message|agent-message|session-start-hook|"
    # Claude Code's CI monitor: a pull request's checks and review comments, with its own
    # "Please address the feedback ..." request (anthropics/claude-code#55431)
    r"ci-monitor-event)\b"
    # Claude Code's agent teams: a peer session's message, under the harness's own line
    r"|Another Claude session sent a message:"
    r"|Caveat: The messages below were generated by the user while running local commands"
    r"|This session is being continued from a previous conversation"
    r"|Your task is to create a detailed summary of the conversation so far"
    r"|Base directory for this skill:"
    # Codex puts the AGENTS.md files above the first prompt, under a heading of its own line
    # ("# AGENTS.md instructions for /repo", or without "for" in 0.157 from the IDE extension)
    r"|# AGENTS\.md instructions(?:[ \t]+for\b[^\n]*)?[ \t]*(?:\n|\Z)"
    r"|\[Request interrupted by user"
    r"|Stop hook feedback:"
    r"|# Context from my IDE setup:|# Files mentioned by the user:"
    r"|PreToolUse:\S+ hook|PostToolUse:\S+ hook"
    r")",
    re.IGNORECASE,
)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
# Codex's IDE extension and desktop app put the open files above a person's words.
_CODEX_REQUEST = "## My request for Codex:"
_IMAGE_TAG = re.compile(r"<image\b[^>]*>.*?</image>|<image\b[^>]*/>", re.DOTALL | re.IGNORECASE)
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL | re.IGNORECASE)


def user_text_speaker(text: str) -> str:
    """``injected`` when a user-role text is what the harness sends, else ``person``."""
    return INJECTED if _INJECTED_START.match(text) else PERSON


def _user_texts(text: str) -> list[tuple[str, str]]:
    """(speaker, text) parts of one user-role text.

    A slash command's wrapper is injected, but the arguments a person typed after the command
    are theirs; so is what follows ``## My request for Codex:`` below the IDE context Codex puts
    above it. System reminders inside a typed prompt are cut out of it.
    """
    speaker = user_text_speaker(text)
    if speaker == PERSON:
        cleaned = _REMINDER.sub("", text)
        return [(PERSON, cleaned)] if cleaned.strip() else [(INJECTED, text)]
    if _CODEX_REQUEST in text:
        head, _, asked = text.partition(_CODEX_REQUEST)
        asked = _IMAGE_TAG.sub("", asked).strip()
        return [(INJECTED, head)] + ([(PERSON, asked)] if asked else [])
    parts = [(INJECTED, text)]
    if text.lstrip().startswith(("<command-", "<command-name>")):
        args = " ".join(a.strip() for a in _COMMAND_ARGS.findall(text) if a.strip())
        if args:
            parts.append((PERSON, args))
    return parts


# ---------------------------------------------------------------- Claude Code


def _claude_envelope(t: Transcript, record: dict[str, Any]) -> None:
    t.session_id = t.session_id or _str(record.get("sessionId"))
    t.cwd = t.cwd or _str(record.get("cwd"))
    t.version = t.version or _str(record.get("version"))
    agent = _str(record.get("agentId"))
    if agent and record.get("isSidechain") is True and t.agent_kind is None:
        t.agent_kind = COMPACTION if agent.startswith("acompact") else SUBAGENT
        t.parent_session_id = _str(record.get("sessionId"))


def _claude_queued_prompt(t: Transcript, record: dict[str, Any], index: int) -> bool:
    """A prompt typed while the assistant was busy (``attachment`` ``queued_command``)."""
    attachment = record.get("attachment")
    if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
        return False
    if attachment.get("commandMode") not in (None, "prompt") or t.agent_kind is not None:
        return False
    prompt = _flatten(attachment.get("prompt"))
    for speaker, part in _user_texts(prompt):
        _turn(t, "user", part, index, _str(record.get("timestamp")), speaker)
    return bool(prompt.strip())


# A slash command typed into the queue ("/model", "/export"): the harness's command, which it
# records wrapped in its command tags when it runs; no words of the person's.
_SLASH_COMMAND = re.compile(r"\A\s*/[\w:.-]+\s*\Z")


def _claude_enqueued(t: Transcript, record: dict[str, Any], index: int) -> None:
    """A prompt the person typed while the assistant was busy (``queue-operation``
    ``enqueue`` with its ``content``), kept until the end of the reading: Claude Code delivers
    most of them later as a user record or a ``queued_command`` attachment, and some (taken in
    mid-turn, or removed from the queue once shown to the model) only ever appear here. What
    the harness queues itself (a task's notification, a skill's text) is its own text."""
    content = record.get("content")
    if record.get("operation") != "enqueue" or not isinstance(content, str):
        return
    if t.agent_kind is not None or _SLASH_COMMAND.match(content) or content.lstrip()[:1] in "{[":
        return
    for speaker, part in _user_texts(content):
        if speaker == PERSON and part.strip():
            t._queued.append((index, part, _str(record.get("timestamp"))))


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def _claude_undelivered(t: Transcript, last: int) -> None:
    """The queued prompts never delivered otherwise, read as the person's turns (a prompt
    delivered as a user record or an attachment is read there, once). Each is placed where the
    assistant's work it was typed during ends, just before the person's next delivered turn (or
    at the end of the file): the assistant saw it while it worked, and the stretch of work the
    person's last turn started (its edits, its test runs) is not cut in two by it."""
    if not t._queued:
        return
    persons = [x for x in t.turns if x.speaker == PERSON]
    said = [_folded(x.text) for x in persons]
    added = False
    for index, text, stamp in t._queued:
        folded = _folded(text)
        if any(folded in other for other in said):
            continue
        later = [x.record for x in persons if x.record > index]
        place = min(later) - 1 if later else last
        t.turns.append(Turn("user", text, place, stamp, PERSON))
        said.append(folded)
        added = True
    if added:
        t.turns.sort(key=lambda turn: turn.record)  # (stable: after a turn of the same record)


def _claude_record(t: Transcript, record: dict[str, Any], index: int) -> bool:
    role = record["type"]
    message = record.get("message")
    if not isinstance(message, dict):
        raise _Broken(f"{role} record: `message` is not an object")
    if "content" not in message:
        raise _Broken(f"{role} record: `message` has no `content`")
    _claude_envelope(t, record)
    stamp = _str(record.get("timestamp"))
    content = message.get("content")
    if role == "assistant":
        default = ASSISTANT
    elif (
        record.get("isMeta") is True
        or record.get("isCompactSummary") is True
        or record.get("isVisibleInTranscriptOnly") is True
        or record.get("sourceToolUseID")
        or "toolUseResult" in record
    ):
        default = INJECTED  # harness text, or text a tool produced
    elif t.agent_kind is not None:
        default = INJECTED  # a subagent's prompt is written by the parent agent, not a person
    else:
        default = PERSON
    if isinstance(content, str):
        _claude_text(t, role, content, index, stamp, default)
        return True
    if not isinstance(content, list):
        raise _Broken(f"{role} record: `content` is neither text nor a list of blocks")
    if any(not isinstance(block, dict) for block in content):
        raise _Broken(f"{role} record: a content block is not an object")
    for block in content:
        btype = block.get("type")
        if btype == "text":
            text = block.get("text")
            if isinstance(text, str):
                _claude_text(t, role, text, index, stamp, default)
        elif btype == "tool_use":
            t.tool_calls.append(
                ToolCall(
                    _str(block.get("id")) or "",
                    _str(block.get("name")) or "?",
                    block.get("input"),
                    index,
                )
            )
        elif btype == "tool_result":
            result = _flatten(block.get("content"))
            t.tool_results.append(
                ToolResult(
                    _str(block.get("tool_use_id")) or "",
                    result[:RESULT_CAP],
                    block.get("is_error") is True,
                    index,
                )
            )
            said = _rejection_feedback(result) if block.get("is_error") is True else ""
            if said and t.agent_kind is None:
                _turn(t, "user", said, index, stamp, PERSON)
        # thinking, redacted_thinking, image, document, fallback ...: no dialogue
    return True


# A tool call the person rejected in the permission dialog, with what they typed instead:
# "The user doesn't want to proceed with this tool use. ... the user said:\n<their words>".
_REJECTED_WITH_WORDS = re.compile(
    r"\AThe user doesn'?t want to proceed\b.*?\bthe user said:[ \t]*\n?(.*)\Z",
    re.DOTALL | re.IGNORECASE,
)


def _rejection_feedback(result: str) -> str:
    """The person's words in a rejected tool call's result, or ``""``."""
    m = _REJECTED_WITH_WORDS.match(result.strip())
    return m.group(1).strip() if m else ""


def _claude_text(
    t: Transcript, role: str, text: str, index: int, stamp: str | None, default: str
) -> None:
    if default != PERSON:
        _turn(t, role, text, index, stamp, default)
        return
    for speaker, part in _user_texts(text):
        _turn(t, role, part, index, stamp, speaker)


# ---------------------------------------------------------------- Codex


def _codex_meta(t: Transcript, payload: Any) -> None:
    if not isinstance(payload, dict):
        return
    if t.session_id is None:
        t.session_id = _str(payload.get("id")) or _str(payload.get("session_id"))
        parent = _str(payload.get("parent_thread_id")) or _str(payload.get("forked_from_id"))
        if parent and _str(payload.get("parent_thread_id")):
            t.parent_session_id = parent
            t.agent_kind = SUBAGENT
    t.cwd = t.cwd or _str(payload.get("cwd"))
    t.version = t.version or _str(payload.get("cli_version"))


def _codex_item(t: Transcript, item: dict[str, Any], index: int, stamp: str | None) -> bool:
    itype = item.get("type")
    if itype == "message":
        role = item.get("role")
        if role not in ("user", "assistant"):
            return False  # system/developer instructions are not dialogue
        content = item.get("content")
        blocks = content if isinstance(content, list) else [content]
        for block in blocks:
            text = _flatten([block]) if not isinstance(block, str) else block
            if role == "assistant":
                _turn(t, "assistant", _DIRECTIVE.sub("", text), index, stamp, ASSISTANT)
            else:
                for speaker, part in _user_texts(text):
                    _turn(t, "user", part, index, stamp, speaker)
        return True
    if itype in ("function_call", "custom_tool_call", "local_shell_call"):
        call_id = _str(item.get("call_id")) or ""
        name = _str(item.get("name")) or "?"
        args: Any = item.get("arguments", item.get("input", item.get("action")))
        if itype == "custom_tool_call" and name == codemode.EXEC and isinstance(args, str):
            program = codemode.read_program(args)
            if program is not None:
                # Code mode: the program's calls read as the same calls made directly.
                t._programs[call_id] = program
                for n, call in enumerate(program.calls):
                    t.tool_calls.append(ToolCall(f"{call_id}#{n}", call.name, call.input, index))
                return True
        if isinstance(args, str):
            with contextlib.suppress(ValueError):
                args = json.loads(args)
        if name == codemode.WAIT and isinstance(args, dict) and args.get("cell_id") is not None:
            t._waits[call_id] = str(args["cell_id"])
        t.tool_calls.append(ToolCall(call_id, name, args, index))
        return True
    if itype in ("function_call_output", "custom_tool_call_output"):
        call_id = _str(item.get("call_id")) or ""
        program = t._programs.pop(call_id, None)
        if program is not None:
            _code_mode_results(t, call_id, program, item.get("output"), index)
            return True
        if call_id in t._waits:
            waited = t._waits.pop(call_id)
            word, cell, parts = codemode.status(_parts(item.get("output")))
            if word:
                content, failed = _script_output(word, cell, parts)
                if word != codemode.RUNNING:
                    failed = failed or _exited(t, t._cells.pop(waited, ""))
                t.tool_results.append(ToolResult(call_id, content[:RESULT_CAP], failed, index))
                return True
        content, failed = _codex_output(item.get("output"))
        t.tool_results.append(ToolResult(call_id, content[:RESULT_CAP], failed, index))
        return True
    return False  # reasoning, searches, snapshots, inter-agent messages ...: no dialogue


# Codex Desktop's UI directives: a line the app's instructions have the assistant end its final
# answer with once a git step or a tool succeeded (``::git-commit{cwd="/abs/path"}``,
# ``::git-push{cwd=... branch=...}``, ``::git-create-pr{... url=... isDraft=true}``,
# ``::code-comment{title=... body=...}``, ``::created-thread{threadId=...}``, ``::archive{...}``),
# each alone on its line with single-line attributes. The app renders them as buttons: they are
# the harness's, not words the assistant said to the person.
_DIRECTIVE = re.compile(r'^[ \t]*::[a-z][a-z0-9-]*\{(?:"[^"\n]*"|[^"}\n])*\}[ \t]*(?:\n|\Z)', re.M)


# Codex's unified exec (``exec_command``, ``write_stdin``) reports a command as plain text under
# a header, not as JSON with metadata: "Chunk ID: ...", "Wall time: ...", then "Process exited
# with code N" (or "Process running with session ID N" while it runs on), "Original token
# count: ...", "Output:". Its ``shell`` tool's plain-text result opens the same way with
# "Exit code: N", then "Wall time: ...", "Output:". Its exit code is read from that header, as
# the JSON form's ``metadata.exit_code`` is: a command that exited non-zero failed, as Claude
# Code's error result says. Output that merely holds such a line further down says nothing of
# the command.
_EXEC_EXIT = re.compile(
    r"\A(?:[A-Z][\w ]{0,30}: [^\n]*\n){0,3}(?:Process exited with code|Exit code:) (-?\d+)\n"
)
# The header of a command still running: its output goes on in the result of a later
# ``write_stdin`` call naming the same session (read back together by the drain's readers).
RUNNING = re.compile(
    r"\A(?:[A-Z][\w ]{0,30}: [^\n]*\n){0,3}Process running with session ID (\d+)\n"
)


def command_text(tool_input: Any) -> str:
    """The command a tool call runs, as the drain's readers quote it (a list of words joined
    by spaces); ``""`` when it runs none."""
    if isinstance(tool_input, Mapping):
        cmd = tool_input.get("command") or tool_input.get("cmd")
        if isinstance(cmd, list):
            return " ".join(str(c) for c in cmd)
        if isinstance(cmd, str):
            return cmd
    return ""


def _codex_exit(t: Transcript, payload: Any) -> None:
    """Codex 0.157 (the app server, the VS Code extension) records each command a code-mode
    program ran as an ``item_completed`` event (``CommandExecution``: ``command`` is the shell
    and the text it runs, ``exit_code``). A program that prints only ``r.output`` leaves the
    exit code out of its result; this event is the tool's own verdict on the command, kept
    until the result of the program that ran it is read."""
    if not isinstance(payload, dict) or payload.get("type") != "item_completed":
        return
    item = payload.get("item")
    if not isinstance(item, dict):
        return
    command, code = item.get("command"), item.get("exit_code")
    if item.get("type") != "CommandExecution" or not isinstance(code, int):
        return
    text = command[-1] if isinstance(command, list) and command else command
    if isinstance(text, str) and text:
        t._exits[text] = code


def _exited(t: Transcript, command: str) -> bool:
    """Did an ``item_completed`` event say ``command`` exited non-zero? (Read once.)"""
    code = t._exits.pop(command, None) if command else None
    return code is not None and code != 0


def _parts(output: Any) -> list[str]:
    """The text parts of a tool output (a string, or a list of ``input_text`` parts)."""
    if isinstance(output, list):
        return [p["text"] for p in output if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return [output] if isinstance(output, str) else []


def _code_mode_results(
    t: Transcript, call_id: str, program: codemode.Program, output: Any, index: int
) -> None:
    """The results of a code-mode program's calls, from the exec's output. A program of one
    call printed what that call returned; in a program of several, each part is attributed to
    the call it printed only when every part is told apart (each ``text(r...)`` of one call's
    result, the program completed). Otherwise the calls stand without results: which call
    printed what, or which one failed, is not known."""
    word, cell, parts = codemode.status(_parts(output))
    if not word:
        content, failed = _codex_output(output)
        t.tool_results.append(ToolResult(call_id, content[:RESULT_CAP], failed, index))
        return
    if len(program.calls) == 1:
        content, failed = _script_output(word, cell, parts)
        command = command_text(program.calls[0].input)
        if word == codemode.RUNNING and command:
            t._cells[cell] = command  # its exit code comes with the wait that ends it
        failed = failed or _exited(t, command)
        t.tool_results.append(ToolResult(f"{call_id}#0", content[:RESULT_CAP], failed, index))
        return
    if word != codemode.COMPLETED or program.prints is None or len(program.prints) != len(parts):
        return
    for n in sorted(set(program.prints)):
        mine = [p for p, by in zip(parts, program.prints, strict=True) if by == n]
        content, failed = _script_output(word, cell, mine)
        t.tool_results.append(ToolResult(f"{call_id}#{n}", content[:RESULT_CAP], failed, index))


def _script_output(word: str, cell: str, parts: list[str]) -> tuple[str, bool]:
    """What a code-mode call returned, read as its direct result: the parts it printed (a
    whole exec result printed as JSON reads as the unified exec's text, its exit code in the
    header), failed when the program threw or the command exited non-zero. A program still
    running keeps its status line, which the ``wait`` calls resuming its cell go on from."""
    texts: list[str] = []
    failed = word == codemode.FAILED
    for part in parts:
        text, code, session = codemode.result_text(part)
        if code is not None or session:
            state = (
                f"exited with code {code}"
                if code is not None
                else f"running with session ID {session}"
            )
            text, exited_badly = _codex_output(f"Process {state}\nOutput:\n{text}")
            failed = failed or exited_badly
        texts.append(text)
    content = "\n".join(texts)
    if word == codemode.RUNNING:
        content = f"Script running with cell ID {cell}\n{content}"
    return content, failed


# Claude Code's background command: a Bash call run in the background (or moved there when it
# ran long) returns only its task id; its output, status and exit code come in the results of
# later ``TaskOutput`` (``task_id``) or ``BashOutput`` (``bash_id``) calls naming it, tagged
# (``<status>running</status>`` until it ends, then ``completed`` with ``<exit_code>N``).
BACKGROUND = re.compile(r"\ACommand running in background with ID: (\w+)")
_TASK_RUNNING = re.compile(
    r"\A<retrieval_status>\w+</retrieval_status>\s*<task_id>(\w+)</task_id>\s*"
    r"(?:<task_type>\w+</task_type>\s*)?<status>running</status>"
)
_TASK_EXIT = re.compile(r"<status>\w+</status>\s*<exit_code>(-?\d+)</exit_code>")


def still_running(content: str) -> str:
    """The run a result says is still going (``session N``: a unified exec command; ``cell
    N``: a code-mode program; ``task N``: Claude Code's background command), ``""`` when it
    ended."""
    m = RUNNING.match(content)
    if m is not None:
        return f"session {m.group(1)}"
    m = BACKGROUND.match(content) or _TASK_RUNNING.match(content)
    if m is not None:
        return f"task {m.group(1)}"
    word, cell, _ = codemode.status([content])
    return f"cell {cell}" if word == codemode.RUNNING else ""


def goes_on(tool_input: Any) -> str:
    """The run a call resumes (Codex's ``write_stdin`` names a session, code mode's ``wait``
    a cell, Claude Code's ``TaskOutput`` and ``BashOutput`` a background task), ``""`` for
    none."""
    if isinstance(tool_input, dict):
        if tool_input.get("session_id") is not None:
            return f"session {tool_input['session_id']}"
        if tool_input.get("cell_id") is not None:
            return f"cell {tool_input['cell_id']}"
        for key in ("task_id", "bash_id"):
            if isinstance(tool_input.get(key), str):
                return f"task {tool_input[key]}"
    return ""


def exited_badly(content: str) -> bool:
    """Does a background task's result say it ended with a non-zero exit code? (Its tool
    result is no error: the call that read it succeeded.)"""
    m = _TASK_EXIT.search(content[:400])
    return m is not None and int(m.group(1)) != 0


def _codex_output(output: Any) -> tuple[str, bool]:
    if isinstance(output, str):
        try:
            parsed = json.loads(output)
        except ValueError:
            code = _EXEC_EXIT.match(output)
            return output, code is not None and int(code.group(1)) != 0
        output = parsed
    if isinstance(output, dict):
        text = _flatten(output.get("output", output.get("content", "")))
        meta = output.get("metadata")
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        failed = (isinstance(code, int) and code != 0) or output.get("success") is False
        return text, bool(failed)
    return _flatten(output), False


# ---------------------------------------------------------------- Copilot CLI

# Copilot CLI's shell tools (``bash``, ``powershell``) end a command's result with a line of
# their own, "<shellId: N completed with exit code K>", and call the tool a success whatever K
# is: the exit code is the tool's verdict on the command, as Codex's header is.
_SHELL_EXIT = re.compile(r"<shellId: [^>\n]+ completed with exit code (-?\d+)>\s*\Z")


def _copilot_event(
    t: Transcript, kind: str, data: dict[str, Any], index: int, stamp: str | None
) -> bool:
    if kind in ("session.start", "session.resume"):
        t.session_id = t.session_id or _str(data.get("sessionId"))
        context = data.get("context")
        if isinstance(context, dict):
            t.cwd = t.cwd or _str(context.get("cwd"))
        t.version = t.version or _str(data.get("copilotVersion"))
        return False
    if kind == "user.message":
        text = data.get("content")
        if isinstance(text, str):
            if _str(data.get("source")):
                # Sent by the harness, not typed: "system" (its reminders), "agent-<id>" (the
                # brief the main agent wrote for a sub-agent it dispatched).
                _turn(t, "user", text, index, stamp, INJECTED)
                return True
            for speaker, part in _user_texts(text):
                _turn(t, "user", part, index, stamp, speaker)
        return True
    if kind == "assistant.message":
        text = data.get("content")
        if isinstance(text, str):
            _turn(t, "assistant", text, index, stamp, ASSISTANT)
        requests = data.get("toolRequests")
        for req in requests if isinstance(requests, list) else []:
            if isinstance(req, dict):
                args: Any = req.get("arguments")
                if isinstance(args, str):
                    with contextlib.suppress(ValueError):
                        args = json.loads(args)
                t.tool_calls.append(
                    ToolCall(
                        _str(req.get("toolCallId")) or "", _str(req.get("name")) or "?", args, index
                    )
                )
        return True
    if kind == "tool.execution_complete":
        result = data.get("result")
        text = _flatten(result.get("content") if isinstance(result, dict) else result)
        code = _SHELL_EXIT.search(text[-200:])
        failed = data.get("success") is False or (code is not None and int(code.group(1)) != 0)
        t.tool_results.append(
            ToolResult(_str(data.get("toolCallId")) or "", text[:RESULT_CAP], failed, index)
        )
        return True
    # session.*, system.*, hook.*, subagent.*, assistant.turn_*, assistant.reasoning,
    # tool.execution_start, abort: no dialogue.
    return False


def _flatten(content: Any) -> str:
    """Text of a content value: a string, or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict):
                text = block.get("text")
                if isinstance(text, str):
                    parts.append(text)
        return "\n".join(parts)
    return "" if content is None else str(content)


# ---------------------------------------------------------------- side sessions by path

_SIDE_PATH = re.compile(r"(?:^|/)(?P<parent>[^/]+)/subagents/agent-(?P<agent>[^/]+)\.jsonl$")
_OLD_SIDE_PATH = re.compile(r"(?:^|/)agent-[^/]+\.jsonl$")


def side_session(path: str) -> tuple[str | None, str] | None:
    """``(parent session id, kind)`` when a path is a subagent or compaction-agent file.

    Claude Code 2.1 keeps them as ``<session>/subagents/agent-<id>.jsonl`` next to the parent
    session's ``<session>.jsonl`` (``agent-acompact-*`` is the compaction agent); older
    versions wrote ``agent-<id>.jsonl`` beside the sessions (the parent is then only in the
    records). None for a session file of its own.
    """
    name = path.replace("\\", "/")
    m = _SIDE_PATH.search(name)
    if m:
        kind = COMPACTION if m.group("agent").startswith("acompact") else SUBAGENT
        return m.group("parent"), kind
    if _OLD_SIDE_PATH.search(name):
        return None, SUBAGENT
    return None
