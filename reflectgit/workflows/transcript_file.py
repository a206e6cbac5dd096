"""Read a transcript file from disk into a ``Transcript`` (the parsing is pure, in notes/)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reflectgit.notes.transcripts import DIALOGUE_CAP, MAX_BYTES, Transcript, parse_lines


def read_transcript(
    path: str | Path,
    *,
    max_dialogue_chars: int = DIALOGUE_CAP,
    max_bytes: int = MAX_BYTES,
) -> Transcript:
    """Read a transcript file; never raises for what the file contains or whether it exists."""
    name = str(path)
    try:
        with open(path, "rb") as fh:
            result = parse_lines(
                _bounded_lines(fh, max_bytes), max_dialogue_chars=max_dialogue_chars
            )
    except OSError as exc:
        return Transcript(path=name, error=f"unreadable: {exc.strerror or exc}")
    result.path = name
    return result


def _bounded_lines(fh: Any, max_bytes: int) -> Iterator[bytes]:
    total = 0
    for line in fh:
        total += len(line)
        if total > max_bytes:
            return
        yield line
