"""Parse Claude Code and Codex transcripts into dialogue turns, tool calls and tool results. Pure.

A transcript is JSON Lines written by an agent harness. Reading never raises on content: an
unreadable line is counted as a problem and skipped, and a file with nothing usable comes back
with ``error`` set (``empty``, ``binary``, ``not-json``, ``wrong-shape``, ``unreadable``).
Reading stops once enough dialogue is in hand (``max_dialogue_chars``) or ``max_bytes`` have
been read, so a huge transcript costs no more than the part that matters. Pure: lines in,
``Transcript`` out (``workflows/transcript_file.read_transcript`` reads the file).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

DIALOGUE_CAP = 600_000  # characters of dialogue the gate and the slicer ever look at
MAX_BYTES = 64 * 1024 * 1024
RESULT_CAP = 4_000  # characters kept per tool result (evidence, not archive)

CLAUDE = "claude"
CODEX = "codex"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Turn:
    """One piece of dialogue: who said it and what (tool traffic excluded)."""

    role: str  # "user" | "assistant"
    text: str
    record: int  # 0-based line number in the file
    timestamp: str | None = None


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


@dataclass
class Transcript:
    """A transcript as far as it was read; ``error`` is set when nothing usable was found."""

    path: str = ""
    harness: str = UNKNOWN
    session_id: str | None = None
    cwd: str | None = None
    turns: list[Turn] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)
    records: int = 0  # lines that parsed as transcript records
    bad_lines: int = 0  # lines skipped: not JSON, or not shaped like a record
    bytes_read: int = 0
    complete: bool = True  # False when a cap stopped the reading early
    error: str | None = None
    opening_texts: list[str] = field(default_factory=list)  # raw text of the first records

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def dialogue_chars(self) -> int:
        return sum(len(t.text) for t in self.turns)


OPENING_RECORDS = 5


def parse_lines(
    lines: Iterable[bytes | str], *, max_dialogue_chars: int = DIALOGUE_CAP
) -> Transcript:
    """Parse transcript lines (bytes or text) into a ``Transcript``."""
    t = Transcript()
    chars = 0
    counted = 0
    binary = False
    non_empty = 0
    for index, raw in enumerate(lines):
        t.bytes_read += len(raw)
        if isinstance(raw, bytes):
            if b"\x00" in raw:
                binary = True
                t.bad_lines += 1
                continue
            text = raw.decode("utf-8", "replace")
        else:
            text = raw
        if not text.strip():
            continue
        non_empty += 1
        try:
            record = json.loads(text)
        except ValueError:
            t.bad_lines += 1
            continue
        if not isinstance(record, dict) or not _take_record(t, record, index):
            t.bad_lines += 1
            continue
        t.records += 1
        while counted < len(t.turns):
            chars += len(t.turns[counted].text)
            counted += 1
        if chars >= max_dialogue_chars:
            _trim_dialogue(t, max_dialogue_chars)
            t.complete = False
            break
    if t.records == 0:
        if non_empty == 0 and not binary:
            t.error = "empty"
        elif binary:
            t.error = "binary: not a text transcript"
        elif t.bad_lines:
            t.error = f"not-a-transcript: none of {t.bad_lines} line(s) is a transcript record"
    return t


def _trim_dialogue(t: Transcript, cap: int) -> None:
    over = t.dialogue_chars - cap
    if over > 0 and t.turns:
        last = t.turns[-1]
        t.turns[-1] = Turn(
            last.role, last.text[: max(0, len(last.text) - over)], last.record, last.timestamp
        )


def _take_record(t: Transcript, record: dict[str, Any], index: int) -> bool:
    """Fold one JSON record into the transcript; False if it is not shaped like one."""
    kind = record.get("type")
    if not isinstance(kind, str):
        return False
    if kind in ("user", "assistant") and "message" in record:
        t.harness = CLAUDE if t.harness == UNKNOWN else t.harness
        _claude_record(t, record, index)
        return isinstance(record.get("message"), dict)
    if kind == "session_meta":
        t.harness = CODEX
        payload = record.get("payload")
        if isinstance(payload, dict):
            t.session_id = _str(payload.get("id")) or t.session_id
            t.cwd = _str(payload.get("cwd")) or t.cwd
        return True
    if kind == "response_item":
        t.harness = CODEX
        payload = record.get("payload")
        if not isinstance(payload, dict):
            return False
        _codex_item(t, payload, index, _str(record.get("timestamp")))
        return True
    if kind in ("message", "function_call", "function_call_output"):
        # Older Codex rollouts store response items at the top level.
        t.harness = CODEX if t.harness == UNKNOWN else t.harness
        _codex_item(t, record, index, _str(record.get("timestamp")))
        return True
    # Other known record kinds carry no dialogue (summaries, snapshots, Codex event_msg copies).
    return kind in (
        "summary",
        "system",
        "file-history-snapshot",
        "event_msg",
        "turn_context",
        "compacted",
        "queue-operation",
    )


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _opening(t: Transcript, text: str) -> None:
    if len(t.opening_texts) < OPENING_RECORDS:
        t.opening_texts.append(text[:2000])


def _claude_record(t: Transcript, record: dict[str, Any], index: int) -> None:
    t.session_id = t.session_id or _str(record.get("sessionId"))
    t.cwd = t.cwd or _str(record.get("cwd"))
    message = record.get("message")
    if not isinstance(message, dict):
        return
    role = record["type"]
    stamp = _str(record.get("timestamp"))
    content = message.get("content")
    if isinstance(content, str):
        _opening(t, content)
        if content.strip():
            t.turns.append(Turn(role, content, index, stamp))
        return
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text":
            text = block.get("text")
            if isinstance(text, str):
                _opening(t, text)
                if text.strip():
                    t.turns.append(Turn(role, text, index, stamp))
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
            t.tool_results.append(
                ToolResult(
                    _str(block.get("tool_use_id")) or "",
                    _flatten(block.get("content"))[:RESULT_CAP],
                    block.get("is_error") is True,
                    index,
                )
            )


def _codex_item(t: Transcript, item: dict[str, Any], index: int, stamp: str | None) -> None:
    itype = item.get("type")
    if itype == "message":
        role = item.get("role")
        if role not in ("user", "assistant"):
            return  # system/developer instructions are not dialogue
        text = _flatten(item.get("content"))
        _opening(t, text)
        if text.strip():
            t.turns.append(Turn(str(role), text, index, stamp))
    elif itype == "function_call":
        args: Any = item.get("arguments")
        if isinstance(args, str):
            with contextlib.suppress(ValueError):
                args = json.loads(args)
        t.tool_calls.append(
            ToolCall(_str(item.get("call_id")) or "", _str(item.get("name")) or "?", args, index)
        )
    elif itype == "function_call_output":
        output = item.get("output")
        content, failed = _codex_output(output)
        t.tool_results.append(
            ToolResult(_str(item.get("call_id")) or "", content[:RESULT_CAP], failed, index)
        )


def _codex_output(output: Any) -> tuple[str, bool]:
    if isinstance(output, str):
        try:
            parsed = json.loads(output)
        except ValueError:
            return output, False
        output = parsed
    if isinstance(output, dict):
        text = _flatten(output.get("output", output.get("content", "")))
        meta = output.get("metadata")
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        failed = (isinstance(code, int) and code != 0) or output.get("success") is False
        return text, bool(failed)
    return _flatten(output), False


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
