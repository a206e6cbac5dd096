"""The text of the KB's reads and mutations: what ``reflect-git`` prints and what the MCP tools
answer, one implementation of each line (the CLI's ``render`` and ``mcpserver`` both read it).
Pure formatting of result objects: no I/O, no typer, no SDK."""

from __future__ import annotations

from typing import Any


def short(sha: str | None) -> str:
    return sha[:12] if sha else "-"


def added(result: Any) -> str:
    if result.status == "unchanged":
        return f"{result.id} is already in the KB, unchanged (no commit)"
    return f"{result.status} {result.id} ({result.path}) in {short(result.commit)}"


def updated(result: Any) -> list[str]:
    if result.commit:
        head = f"updated {result.id} in {short(result.commit)}"
    else:
        head = f"{result.id} unchanged (no commit)"
    return [head, *(f"note: {n}" for n in result.notes)]


def confirmed(result: Any, source: str) -> str:
    if result.commit:
        reviewed = getattr(result, "reviewed_by", None)
        return (
            f"confirmed {result.id}: proof_count {result.proof_count} in {short(result.commit)}"
            + (f"; reviewed by {reviewed}: it may reach the team's main" if reviewed else "")
        )
    return (
        f"{result.id} already confirmed by {source} (proof_count {result.proof_count}; no commit)"
    )


def moved(verb: str, result: Any) -> str:
    """``archived ID -> PATH in SHA`` / ``restored ...``."""
    return f"{verb} {result.id} -> {result.path} in {short(result.commit)}"


def superseded(result: Any) -> str:
    if result.commit:
        return f"{result.old} superseded by {result.new} in {short(result.commit)}"
    return f"{result.old} is already superseded by {result.new} (no commit)"


def shown(note: Any, raw: bytes | str) -> list[str]:
    """``show``: a header naming the file, its state and revision, then the file as committed."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    header = f"# {note.path} ({note.state}) at {short(note.revision)}"
    return [header, text.rstrip("\n")]
