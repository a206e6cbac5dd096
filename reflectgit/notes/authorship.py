"""Who wrote a note, a person or a machine, and whether a person has reviewed it. Pure.

A note a machine wrote (capture's detectors, the drain's writers, an agent through the MCP
tools) says so in ``provenance.written_by``; a person who confirms it (CLI or web ``confirm``),
promotes it from the review queue, or approves its knowledge branch (``review approve``)
stamps ``provenance.reviewed_by`` (their git identity) and ``provenance.reviewed_at``. Until
then routing sends it to review whatever its tier, and recall marks it as unreviewed. The
drain's and capture's own confirmations count proofs, never review; nor does a merge by the
forge's button, which leaves no person's name in the note (docs/team.md).

Notes written before ``written_by`` existed are recognised by what their writers always put
in them: capture's ``provenance.source_tool: reflect-git capture`` (or ``capture_event``), and
the drain's ``source_episodes`` together with the transcript's ``provenance.source_path``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reflectgit.notes.note import Note

CAPTURE = "capture"
DRAIN = "drain"
AGENT = "agent"  # an agent's own note, through the MCP tools
MACHINES = (CAPTURE, DRAIN, AGENT)
# The interfaces a person drives: a confirm or a promote through one of them is a review.
PERSON_SOURCES = ("cli", "web")

WRITTEN_BY = "written_by"
REVIEWED_BY = "reviewed_by"
REVIEWED_AT = "reviewed_at"
REVIEWED_BY_TRAILER = "Reflect-Reviewed-By"  # the commit that stamps a review says who
CAPTURE_TOOL = "reflect-git capture"  # capture's provenance.source_tool


def _provenance(front: Mapping[str, Any]) -> Mapping[str, Any]:
    prov = front.get("provenance")
    return prov if isinstance(prov, Mapping) else {}


def written_by(front: Mapping[str, Any]) -> str | None:
    """The machine that wrote the note (``capture``, ``drain``, ``agent``), or None for a
    person's note."""
    prov = _provenance(front)
    said = prov.get(WRITTEN_BY)
    if isinstance(said, str) and said.strip().lower() in MACHINES:
        return said.strip().lower()
    if prov.get("source_tool") == CAPTURE_TOOL or front.get("capture_event"):
        return CAPTURE
    episodes = front.get("source_episodes")
    source_path = prov.get("source_path")
    if isinstance(episodes, list) and episodes and isinstance(source_path, str) and source_path:
        return DRAIN
    return None


def reviewed_by(front: Mapping[str, Any]) -> str | None:
    """The person who reviewed the note, or None."""
    who = _provenance(front).get(REVIEWED_BY)
    return who.strip() if isinstance(who, str) and who.strip() else None


def unreviewed(front: Mapping[str, Any]) -> str | None:
    """The machine that wrote the note when no person has reviewed it yet, else None."""
    machine = written_by(front)
    return machine if machine is not None and reviewed_by(front) is None else None


def mark_written(fields: dict[str, Any], machine: str) -> dict[str, Any]:
    """``fields`` (a frontmatter being built) with ``provenance.written_by: machine``."""
    assert machine in MACHINES, machine
    prov = fields.get("provenance")
    fields["provenance"] = {**(prov if isinstance(prov, Mapping) else {}), WRITTEN_BY: machine}
    return fields


def mark_reviewed(note: Note, by: str, at: dt.datetime) -> Note | None:
    """The note with ``provenance.reviewed_by``/``reviewed_at`` set; None when it needs no
    review (a person's own note) or ``by`` reviewed it already. ``updated`` is left alone:
    a review is not a content edit."""
    from reflectgit.notes.note import Note

    by = by.strip()
    if not by or written_by(note.frontmatter) is None or reviewed_by(note.frontmatter) == by:
        return None
    front = dict(note.frontmatter)
    prov_raw = front.get("provenance")
    prov = dict(prov_raw) if isinstance(prov_raw, Mapping) else {}
    prov[REVIEWED_BY] = by
    prov[REVIEWED_AT] = at
    front["provenance"] = prov
    return Note(front, note.body)


def label(machine: str) -> str:
    """How recall and the route report name an unreviewed machine note."""
    return f"unreviewed, written by {machine}"
