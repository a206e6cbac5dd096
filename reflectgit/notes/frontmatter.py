"""The frame of a note file: UTF-8 text within a size bound, ``---``-fenced frontmatter, a body.
Pure. Apart from ``notes/note.py`` (which parses the frontmatter with PyYAML) so that the
pre-commit hook's quick yes (``notes/quickcheck.py``) reads a note without importing PyYAML.
"""

from __future__ import annotations

import re

from reflectgit.errors import NoteError

MAX_NOTE_BYTES = 1024 * 1024

_FENCE = re.compile(r"---[ \t]*(\r?\n|\Z)")
_CLOSE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)


def decode_text(data: bytes, source: str) -> str:
    """UTF-8 (a BOM is fine) within the size bound, or a clear error."""
    if len(data) > MAX_NOTE_BYTES:
        raise NoteError(
            f"{source}: {len(data)} bytes is over the {MAX_NOTE_BYTES} byte limit for a note",
            hint="split the note, or move long logs out of it",
        )
    if b"\x00" in data:
        raise NoteError(
            f"{source}: binary file (contains NUL bytes)",
            hint="notes are UTF-8 markdown text",
            line=data[: data.index(b"\x00")].count(b"\n") + 1,
            column=1,
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise NoteError(
            f"{source}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            hint="re-save the file as UTF-8 (for example `iconv -f latin1 -t utf-8`)",
            line=line,
            column=col,
        ) from None


def split_frontmatter(text: str, source: str) -> tuple[str, str, int]:
    """Split note text into (frontmatter YAML, body, first YAML line number)."""
    opening = _FENCE.match(text)
    if not opening:
        raise NoteError(
            f"{source}: no frontmatter (the file must start with a line '---')",
            hint="add a '---' fenced YAML block with at least title, created and confidence",
            line=1,
            column=1,
        )
    start = opening.end()
    closing = _CLOSE.search(text, start)
    if not closing:
        raise NoteError(
            f"{source}: the frontmatter opened on line 1 is never closed",
            hint="add a line '---' after the last frontmatter field",
            line=1,
            column=1,
        )
    yaml_text = text[start : closing.start()]
    rest = text[closing.end() :]
    if rest.startswith("\n"):
        rest = rest[1:]
    crlf = opening.group(1) == "\r\n"
    if crlf:
        yaml_text = yaml_text.replace("\r\n", "\n")
        rest = rest.replace("\r\n", "\n")
    return yaml_text, rest, 2
