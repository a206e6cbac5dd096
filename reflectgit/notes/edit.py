"""Pure edits of notes: confirm, retier, supersede links, field assignment, moves.

Every writer (the CLI, the drain, capture) makes the same change the same way through these
functions; the KB's mutation door commits what they return. Pure: no I/O, no git. Each edit
returns a new ``Note`` (the input is left as it was), or None when there is nothing to change.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from reflectgit.errors import UsageError
from reflectgit.notes.note import TIER_NUM, Note, tier_of

if TYPE_CHECKING:
    from typing import Any

# THE field a confirmation counts its sources in (the reflect format's name).
SOURCES_FIELD = "source_memory_ids"
LEGACY_SOURCES = "sources"  # what `reflect-git confirm` wrote before issue 10; folded in

TIER_UP = {"low": "medium", "medium": "high", "high": "high"}
TIER_DOWN = {"high": "medium", "medium": "low", "low": "low"}
MIN_NUM = 0.05  # a demotion within the low tier halves confidence_num, down to this


def _copy(note: Note) -> Note:
    return Note(dict(note.frontmatter), note.body)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def proof_sources(note: Note) -> list[str]:
    """The sources that confirmed a note (``provenance.source_memory_ids``, legacy folded in)."""
    prov = note.frontmatter.get("provenance")
    if not isinstance(prov, Mapping):
        return []
    out: list[str] = []
    for key in (SOURCES_FIELD, LEGACY_SOURCES):
        values = prov.get(key)
        if isinstance(values, list):
            out.extend(str(v) for v in values if str(v) not in out)
    return out


def proof_count(note: Note) -> int:
    """``provenance.proof_count``, else a top-level ``proof_count``, else 1."""
    front = note.frontmatter
    prov = front.get("provenance")
    count = _int(prov.get("proof_count")) if isinstance(prov, Mapping) else None
    if count is None:
        count = _int(front.get("proof_count"))
    return count if count is not None else 1


def confirm(note: Note, source: str) -> Note | None:
    """One more proof from ``source``: ``provenance.proof_count`` + 1 and ``source`` added to
    ``provenance.source_memory_ids`` (the reflect format's field). None when ``source`` already
    counted. A legacy ``provenance.sources`` list is folded into ``source_memory_ids``.
    ``updated`` is left alone: a confirmation is not a content edit.
    """
    source = source.strip()
    if not source:
        raise UsageError("a confirmation needs a source", hint="for example --source pr-123")
    prov_raw = note.frontmatter.get("provenance")
    if prov_raw is not None and not isinstance(prov_raw, Mapping):
        raise UsageError("provenance is not a mapping", hint="fix the note by hand")
    sources = proof_sources(note)
    if source in sources:
        return None
    count = proof_count(note)
    out = _copy(note)
    prov = dict(prov_raw or {})
    prov.pop(LEGACY_SOURCES, None)
    prov[SOURCES_FIELD] = [*sources, source]
    prov["proof_count"] = count + 1
    out.frontmatter["provenance"] = prov
    if "proof_count" in out.frontmatter:
        out.frontmatter["proof_count"] = count + 1
    return out


def _num(value: object) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    return None


def retier(
    note: Note,
    step: Mapping[str, str],
    now: dt.datetime,
    *,
    validated: bool | None = None,
) -> Note | None:
    """Move a note one tier along ``step`` (``TIER_UP`` or ``TIER_DOWN``); None if unchanged.

    ``confidence_num`` becomes the tier's number in ``TIER_NUM``; a demotion of a note that is
    already low halves its number instead (down to ``MIN_NUM``), so it still loses confidence.
    """
    front = note.frontmatter
    old = tier_of(front) or "medium"
    new = step[old]
    num = _num(front.get("confidence_num"))
    current = num if num is not None else TIER_NUM[old]
    if new != old:
        new_num = TIER_NUM[new]
    elif step == TIER_DOWN:
        new_num = max(MIN_NUM, round(current / 2, 2))
    else:
        new_num = current
    changed = (
        new != old
        or front.get("confidence") != new
        or num != new_num
        or (validated is not None and front.get("validated") != validated)
    )
    if not changed:
        return None
    out = _copy(note)
    out.frontmatter["confidence"] = new
    out.frontmatter["confidence_num"] = new_num
    if validated is not None:
        out.frontmatter["validated"] = validated
    out.frontmatter["updated"] = now
    return out


def supersede(old: Note, new: Note, old_id: str, new_id: str) -> tuple[Note, Note]:
    """``old.superseded_by = new_id`` and ``old_id`` added to ``new.supersedes``."""
    old_out, new_out = _copy(old), _copy(new)
    old_out.frontmatter["superseded_by"] = new_id
    current = new_out.frontmatter.get("supersedes")
    if current is None or current == old_id:
        new_out.frontmatter["supersedes"] = old_id
    elif isinstance(current, list):
        if old_id not in current:
            new_out.frontmatter["supersedes"] = [*current, old_id]
    else:
        new_out.frontmatter["supersedes"] = [current, old_id]
    return old_out, new_out


def link_names(value: Any) -> list[str]:
    """The ids a ``superseded_by``/``supersedes`` value names (a string, a list, or nothing)."""
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list):
        return [v.strip() for v in value if isinstance(v, str) and v.strip()]
    return []


def release(note: Note, old_id: str) -> Note | None:
    """``old_id`` taken out of ``note.supersedes`` (it is superseded by another note now);
    None when ``note`` did not list it. The field goes when nothing is left in it."""
    current = note.frontmatter.get("supersedes")
    names = link_names(current)
    if old_id not in names:
        return None
    out = _copy(note)
    rest = [n for n in names if n != old_id]
    if not rest:
        del out.frontmatter["supersedes"]
    elif isinstance(current, list):
        out.frontmatter["supersedes"] = rest
    else:
        out.frontmatter["supersedes"] = rest[0] if len(rest) == 1 else rest
    return out


def carry_links(previous: Mapping[str, Any], note: Note) -> Note:
    """``note`` taking the place of a note with the same id (a forgotten one brought back)
    keeps that id's ``superseded_by``/``supersedes`` where it sets none itself: the other
    notes still name the id, so both directions stay consistent."""
    out = _copy(note)
    for key in ("superseded_by", "supersedes"):
        if link_names(previous.get(key)) and not link_names(out.frontmatter.get(key)):
            out.frontmatter[key] = previous[key]
    return out


def assign(front: dict[str, Any], parts: Sequence[str], value: Any) -> None:
    """Set ``front[a][b]... = value`` for a dotted key, creating mappings on the way."""
    target = front
    for part in parts[:-1]:
        child = target.get(part)
        if child is None:
            child = {}
            target[part] = child
        if not isinstance(child, dict):
            raise UsageError(f"{'.'.join(parts)}: {part} is not a mapping")
        target = child
    target[parts[-1]] = value


def moved_path(path: str, folder: str) -> str:
    """Where ``path`` lands when its note moves to ``folder`` (the file name stays)."""
    return f"{folder}/{path.rsplit('/', 1)[-1]}"


# The fields ``add`` also writes into the body it makes (a note from flags: the insight is the
# body). ``update`` keeps that paragraph in step with the field.
BODY_FIELDS = ("key_insight",)


def _words(text: str) -> str:
    return " ".join(text.split())


def restate(body: str, old: str, new: str) -> str | None:
    """``body`` with the paragraph that states ``old`` now stating ``new``.

    A paragraph is a run of lines between blank lines; it states ``old`` when it holds the
    same words (line breaks and spacing aside). Only that paragraph changes: what a person
    wrote around it stays byte for byte. None when no paragraph states ``old`` (the person
    rewrote it: their words are kept as they are) or when nothing would change.
    """
    wanted = _words(old)
    if not wanted or _words(new) == wanted:
        return None
    lines = body.splitlines(keepends=True)
    start = 0
    while start < len(lines):
        if not lines[start].strip():
            start += 1
            continue
        end = start
        while end < len(lines) and lines[end].strip():
            end += 1
        block = lines[start:end]
        if _words("".join(block)) == wanted:
            ending = block[-1][len(block[-1].rstrip("\r\n")) :]
            replaced = new.strip() + ending
            return "".join([*lines[:start], replaced, *lines[end:]])
        start = end
    return None
