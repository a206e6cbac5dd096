"""A Claude Code session written as the harness writes it, for the drain's reader tests: turns
of plain text, tool calls with their results, in one transcript file."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def tool_call(
    call: str, name: str, tool_input: dict[str, Any], output: str, error: bool = False
) -> list[dict[str, Any]]:
    """The assistant's call of tool ``name`` and the tool's ``output`` (an error's if
    ``error``), as two records."""
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call, "content": output}
    if error:
        result["is_error"] = True
    return [
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": call, "name": name, "input": tool_input}],
            },
        },
        {"type": "user", "message": {"role": "user", "content": [result]}},
    ]


def session_file(tmp_path: Path, turns: Sequence[Any], name: str = "session.jsonl") -> Path:
    """Write ``turns`` (``(role, text)`` pairs, or whole records such as ``tool_call``'s) as
    session ``s-1``'s transcript in ``tmp_path``; return its path."""
    lines = []
    for i, turn in enumerate(turns):
        if isinstance(turn, dict):
            record = dict(turn)
        else:
            role, text = turn
            record = {"type": role, "message": {"role": role, "content": text}}
        record.update(sessionId="s-1", uuid=f"u{i}")
        lines.append(json.dumps(record))
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path
