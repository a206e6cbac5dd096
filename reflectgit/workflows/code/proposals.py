"""Stale notes go to review, never away: ``stale --propose``.

A note whose file was renamed with its code unchanged (``moved``) is proposed too, with its
anchor re-pointed: the new path, at the HEAD that was checked (no ``stale:`` flag: it holds).

Each stale note is routed for review with ``stale:`` added to its front matter (why, the commits,
when it was found): with a team, on a ``knowledge/<slug>`` branch and a draft pull request (the
routing of ``route --review``: a person approves the flag, edits the note on the branch, or
rejects it as a false alarm); without one, as a pointer in the personal KB's review queue to
the proposed version (kept in the state directory's ``stale-proposals/``). The note itself
stays where it is: nothing is archived or deleted by this command. Proposing the same thing
twice opens nothing new.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reflectgit.git import codebase
from reflectgit.notes.note import parse_note, render_note, sidecar_path_for

PROPOSALS = "stale-proposals"

if TYPE_CHECKING:
    from reflectgit.config import Config
    from reflectgit.workflows.code.staleness import StaleNote, StaleReport


@dataclass
class Proposal:
    id: str
    route: str  # "branch" | "queue" | "main" (already flagged there)
    where: str  # the branch and PR, or the queue file
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "route": self.route, "where": self.where, "error": self.error}


def stale_field(note: StaleNote, head: str) -> dict[str, Any]:
    """The ``stale:`` front matter a proposal adds (no date: proposing twice is idempotent)."""
    first = next(a for a in note.anchors if a.reason == note.reason)
    out: dict[str, Any] = {"reason": note.reason, "head": head}
    if first.now and first.now != first.anchor.path:
        out["now"] = first.now
    out["commits"] = [c.sha for c in note.commits][:20]
    out.update(note.lines_json())
    return out


def moved_anchors(front: dict[str, Any], note: StaleNote, head: str) -> list[dict[str, str]]:
    """The note's anchors, those whose file moved re-pointed to the new path at ``head``."""
    from reflectgit.notes.anchors import anchors_of

    moved = {(a.anchor.path, a.anchor.symbol): a.now for a in note.anchors if a.now}
    out: list[dict[str, str]] = []
    for anchor in anchors_of(front):
        now = moved.get((anchor.path, anchor.symbol))
        item = anchor.to_yaml()
        if now is not None and now != anchor.path:
            item = {**item, "path": now, "commit": head}
        out.append(item)
    return out


def propose_review(cfg: Config, report: StaleReport) -> list[Proposal]:
    from reflectgit.workflows import routing

    out: list[Proposal] = []
    for note in [*report.stale, *report.moved]:
        [data, side] = codebase.texts(
            cfg.kb, [("HEAD", note.path), ("HEAD", sidecar_path_for(note.path))], cfg.env
        )
        if data is None:
            continue
        parsed = parse_note(data, note.path)
        if note in report.moved:
            parsed.frontmatter["anchors"] = moved_anchors(parsed.frontmatter, note, report.head)
        else:
            parsed.frontmatter["stale"] = stale_field(note, report.head)
        # A stable place (the state directory, never committed): proposing twice is one
        # proposal, and the review queue's pointer names a file that holds it.
        folder = cfg.state_dir / PROPOSALS
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / Path(note.path).name
        path.write_bytes(render_note(parsed))
        if side is not None:
            Path(sidecar_path_for(str(path))).write_text(side, encoding="utf-8")
        result = routing.route(cfg, str(path), review=True)
        where = result.queue_path or " ".join(x for x in (result.branch, result.pr_url) if x)
        out.append(Proposal(note.id, result.route, where, result.error))
    return out


__all__ = ["Proposal", "propose_review"]
