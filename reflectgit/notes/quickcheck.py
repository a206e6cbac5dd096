"""The quick yes for a valid note, without PyYAML or jsonschema. Pure: bytes in, yes or no out.

``reflect-git-validate`` runs on every commit, and nearly every note it is given is valid and
written in plain YAML. ``note_is_valid(data)`` says yes for such a note from the plain reader
(``notes/plainyaml.py``) and the generated validators (``notes/validators.py``) alone, so the
hook imports neither PyYAML (15-20 ms) nor anything that explains problems. A no means only
"ask the full path": ``schema.validate_note_bytes`` then parses with PyYAML and, for an invalid
note, jsonschema explains every problem with its line and column, exactly as before. A yes is
given only when the full path would return no problem (tests hold the plain reader to PyYAML's
values and this check to the full path on every corpus file).

Also the few names both paths need: which file is a note or a sidecar, the schemas' names, the
compiled validators, and the control-character and id checks a schema cannot make.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from reflectgit.errors import NoteError
from reflectgit.notes import names, plainyaml
from reflectgit.notes.frontmatter import decode_text, split_frontmatter

TYPE_CHECKING = False  # ``typing`` is not imported on the pre-commit hook's path
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path
    from typing import Any

NOTE_SCHEMA = "frontmatter.schema.json"
SIDECAR_SCHEMA = "sidecar.schema.json"
SIDECAR_SUFFIX = ".entities.yaml"
NOTE_SUFFIX = ".md"

# Control characters a file may not hold (tab, newline and carriage return are text).
RAW_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]")

Finding = names.Finding  # path, point at the key (not the value), message


def kind_of_path(path: str | Path) -> str | None:
    """``note`` for ``*.md``, ``sidecar`` for ``*.entities.yaml``, else None (of the last part
    of the path, as ``pathlib`` names it: ``a/b.md/`` is a note, ``b.md/..`` is not)."""
    text = path if isinstance(path, str) else path.__fspath__()
    parts = [part for part in text.split("/") if part not in ("", ".")]
    name = parts[-1] if parts else ""
    if name.endswith(SIDECAR_SUFFIX):
        return "sidecar"
    if name.endswith(NOTE_SUFFIX):
        return "note"
    return None


def fast_validator(name: str) -> Callable[[Any], Any]:
    """The yes/no validator, compiled ahead of time (``validators.py``); raises on the first error."""
    from reflectgit.notes.validators import VALIDATORS

    validate: Callable[[Any], Any] = VALIDATORS[name]
    return validate


def is_valid_fast(instance: Any, name: str) -> bool:
    """Yes or no from the compiled validator."""
    from reflectgit.notes.validators import Invalid

    try:
        fast_validator(name)(instance)
    except Invalid:
        return False
    return True


def name_findings(instance: Any, escapes: bool = True) -> list[names.Finding]:
    """What git or a teammate's checkout cannot hold: control characters in any string, an id
    that cannot name a file everywhere (the schema checks the rest of an id's shape). Without
    ``escapes`` (no backslash in a file with no raw control character), YAML cannot have
    produced a control character, so strings are not searched."""
    findings = list(names.control_findings(instance)) if escapes else []
    ident = instance.get("id") if isinstance(instance, Mapping) else None
    if isinstance(ident, str) and not findings:
        problem = names.id_problem(ident)
        if problem is not None:
            findings.append((["id"], False, f"{ident!r} {problem}"))
    return findings


def sidecar_findings(data: Mapping[str, Any], strict: bool) -> Iterable[Finding]:
    """What a schema cannot say: tvalid_end >= tvalid, and the --strict rules."""
    relationships = data.get("relationships")
    edges = relationships if isinstance(relationships, list) else []
    for index, edge in enumerate(edges):
        if (
            not isinstance(edge, dict)
            or edge.get("tvalid") is None
            or edge.get("tvalid_end") is None
        ):
            continue
        from reflectgit.notes.dates import parse_instant  # datetime: only edges with both dates

        start, end = parse_instant(edge.get("tvalid")), parse_instant(edge.get("tvalid_end"))
        if start is not None and end is not None and end < start:
            yield (
                ["relationships", index, "tvalid_end"],
                False,
                f"{edge['tvalid_end']!r} is before tvalid {edge['tvalid']!r}; an edge cannot "
                "stop being true before it started (fix the dates or drop tvalid_end)",
            )
    if not strict:
        return
    for key, example in (
        ("document_id", "the note's id"),
        ("extracted_at", "2026-03-04T09:12:00Z"),
    ):
        if key not in data:
            yield ([key], True, f"is required with --strict; add `{key}: {example}`")
    entities = data.get("entities")
    listed = {
        e.get("name")
        for e in (entities if isinstance(entities, list) else [])
        if isinstance(e, dict)
    }
    for index, edge in enumerate(edges):
        if not isinstance(edge, dict):
            continue
        for end_key in ("source", "target"):
            value = edge.get(end_key)
            if isinstance(value, str) and value not in listed:
                yield (
                    ["relationships", index, end_key],
                    False,
                    f"{value!r} is not a listed entity; add it under entities or fix the name "
                    "(with --strict every edge joins two listed entities)",
                )


def frontmatter_accepted(quick: Any, data: bytes) -> bool:
    """Is ``quick``, the frontmatter of the note ``data`` as the validator sees it, valid with
    nothing a schema cannot say (control characters, an id no checkout can hold)?"""
    return (
        isinstance(quick, dict)
        and is_valid_fast(quick, NOTE_SCHEMA)
        and not RAW_CONTROL.search(data)
        and not name_findings(quick, escapes=b"\\" in data)
    )


def note_is_valid(data: bytes) -> bool:
    """Yes when the note ``data`` is plain YAML and valid (``schema.validate_note_bytes`` would
    find no problem); no when it is not, or when only the full parser may judge."""
    try:
        yaml_text, _body, _line = split_frontmatter(decode_text(data, "<note>"), "<note>")
    except NoteError:  # the full path reports it
        return False
    return frontmatter_accepted(plainyaml.json_value(yaml_text), data)


def sidecar_is_valid(data: bytes, strict: bool = False) -> bool:
    """Yes when the sidecar ``data`` is plain YAML and valid (``schema.validate_sidecar_bytes``
    would find no problem); no when it is not, or when only the full parser may judge."""
    try:
        text = decode_text(data, "<sidecar>")
    except NoteError:
        return False
    instance = plainyaml.json_value(text.replace("\r\n", "\n"))
    return (
        isinstance(instance, dict)
        and not any(sidecar_findings(instance, strict))
        and not any(names.control_findings(instance))
        and is_valid_fast(instance, SIDECAR_SCHEMA)
    )


def note_is_writable(data: bytes) -> bool:
    """Yes when a writer may commit the note ``data`` without asking PyYAML: plain YAML, valid
    (``note_is_valid``), no ``enforce`` rules (their patterns are checked on the full path) and
    no secret in any value or the body. No means only "take the full path"
    (``workflows.kb.base.validate_bytes``: PyYAML, the schema, the secret scan), which then
    names every problem. What ``add`` checks the note it wrote with: it imports neither PyYAML
    nor jsonschema.

    The secret scan sees the values as the validator does, dates as ISO strings: each value is
    scanned on its own, so the strings PyYAML would give are scanned exactly as on the full
    path, and a date's string adds nothing a full-path scan would find.
    """
    try:
        yaml_text, body, _line = split_frontmatter(decode_text(data, "<note>"), "<note>")
    except NoteError:
        return False
    front = plainyaml.json_value(yaml_text)
    if not frontmatter_accepted(front, data) or "enforce" in front:
        return False
    from reflectgit.notes import secrets
    from reflectgit.notes.note import Note

    return not secrets.note_findings(Note(front, body))
