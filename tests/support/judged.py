"""A judged set for the quality benches' tests: one Claude Code session written as the harness
writes it, and the judgement file ``bench/quality.py`` reads beside it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def claude_record(role: str, content: object, n: int, session: str, cwd: str) -> str:
    """Line ``n`` of a Claude Code transcript: ``role``'s ``content`` (plain text, or the
    harness's content blocks)."""
    return json.dumps(
        {
            "type": role,
            "message": {"role": role, "content": content},
            "sessionId": session,
            "cwd": cwd,
            "uuid": f"u{n}",
            "timestamp": f"2026-11-18T06:00:{n:02d}.000Z",
        }
    )


def judged_set(
    real: Path,
    session: str,
    dialogue: Sequence[tuple[str, str]],
    lessons: Sequence[dict[str, Any]],
    notes: Sequence[dict[str, Any]] = (),
    cwd: str = "/home/dev/src/app",
) -> dict[str, Any]:
    """Write, in the folder ``real``, the session ``session`` of ``dialogue`` (role, text) and
    its judgements (``lessons``, ``notes``); return the judgements."""
    path = real / "transcripts" / "claude" / f"{session}.jsonl"
    path.parent.mkdir(parents=True)
    records = (claude_record(r, t, n, session, cwd) for n, (r, t) in enumerate(dialogue))
    path.write_text("\n".join(records) + "\n")
    transcripts = [f"claude/{session}.jsonl"]
    judgements = {
        "sessions": {session: {"transcripts": transcripts, "lessons": list(lessons)}},
        "notes": list(notes),
    }
    (real / "judgements.json").write_text(json.dumps(judgements))
    return judgements
