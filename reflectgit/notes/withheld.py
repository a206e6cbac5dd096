"""Why a note is withheld from agents: it does not validate, or it holds a secret.

Recall, the MCP tools and the SessionStart hook hand an agent only notes that pass the schema
validators (``notes/schema.py``) and hold no secret (``notes/secrets.py``, the one scanner):
a file a teammate pushed with no front matter, ``confidence: ultra`` or a credential in it
never becomes context. The search index decides this once per note, when it indexes the note
(``workflows/search/documents.py``), so a session start pays nothing for it. Pure: parsed
notes or bytes in, a reason (or None) out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflectgit.errors import NoteError

if TYPE_CHECKING:
    from reflectgit.notes.note import Note, Sidecar


def reason(
    path: str,
    note: Note | None,
    unreadable: str | None = None,
    text: str = "",
    sidecar: Sidecar | None = None,
) -> str | None:
    """Why the note at ``path`` must not reach an agent, or None when it may.

    ``note`` is the parsed note, or None with ``unreadable`` (why it did not parse) and its
    ``text``; ``sidecar`` its parsed sidecar, if any. Secrets are named by kind, never shown.
    """
    from reflectgit.notes import secrets

    found: list[str] = []
    if note is None:
        found.append(f"does not validate: {unreadable or 'unreadable'}")
        kinds = [f.label for f in secrets.scan(text)]
    else:
        from reflectgit.notes.schema import validate_note

        errors = [p for p in validate_note(note, path) if p.severity == "error"]
        if errors:
            first = errors[0]
            where = f"{first.field}: " if first.field else ""
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            found.append(f"does not validate: {where}{first.message}{more}")
        kinds = [f.label for f in secrets.note_findings(note)]
    if sidecar is not None:
        kinds += [f.label for f in secrets.sidecar_findings(sidecar)]
    if kinds:
        found.append("holds " + ", ".join(dict.fromkeys(kinds)) + " (not shown)")
    return "; ".join(found) or None


def reason_of_bytes(path: str, data: bytes, sidecar: bytes | None = None) -> str | None:
    """``reason`` for a note file's bytes (and its sidecar's)."""
    from reflectgit.notes.note import parse_note, parse_sidecar

    side = None
    if sidecar is not None:
        try:
            side = parse_sidecar(sidecar, path)
        except NoteError:
            side = None
    try:
        note = parse_note(data, path)
    except NoteError as exc:
        return reason(path, None, one_line(exc.message), data.decode("utf-8", "replace"), side)
    return reason(path, note, sidecar=side)


def one_line(message: str) -> str:
    """A parser's message on one line, without the file name it starts with."""
    text = " ".join(message.split())
    head, sep, rest = text.partition(": ")
    return rest if sep and "/" in head else text
