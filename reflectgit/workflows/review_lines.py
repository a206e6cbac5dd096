"""The text of the review queue and of the open knowledge branches: what ``reflect-git review``
prints and what the MCP ``review_list`` tool answers, one implementation. Pure formatting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reflectgit.notes.words import plural


def review_item(item: Any, full: bool = False) -> list[str]:
    out = [
        f"{item.branch}: {item.title} [{(item.tier or '?').upper()}]",
        f"  id {item.id or '?'}, {item.age_days:.1f} days old, "
        f"PR {item.pr_url or '(none found)'}, "
        + ("valid" if item.valid else f"INVALID ({plural(len(item.all_problems), 'problem')})"),
    ]
    out += [f"  problem: {p}" for p in item.problems]
    out += [f"  not reviewed: {u}" for u in item.unreviewed]
    if item.unreviewed:
        out.append(
            f"  approve refuses these unless each path is accepted: "
            f"--accept {' --accept '.join(sorted({u.path for u in item.unreviewed}))}"
        )
    out += [f"  near-duplicate: {d.id} ({d.title}): {d.why}" for d in item.duplicates]
    if full and item.note_text is not None:
        out += ["", item.note_text]
    return out


def review_items(items: Sequence[Any]) -> list[str]:
    return [line for item in items for line in review_item(item)] or ["no open knowledge branches"]


def queue_items(items: Sequence[Any]) -> list[str]:
    """``review queue list``."""
    out = []
    for item in items:
        where = item.source if item.present else f"{item.source} (missing)"
        out.append(
            f"{item.slug}: {item.title} [{(item.confidence or '?').upper()}] "
            f"id {item.id or '?'}, {where}, queued {item.queued_at or '?'}"
        )
    return out or ["the review queue is empty"]
