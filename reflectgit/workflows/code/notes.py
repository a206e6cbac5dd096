"""The KB's anchored notes: the live notes whose front matter has ``anchors:``, found by
``git grep`` in the KB (a KB of 10,000 notes is searched by git) and read in one batch."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflectgit.config import DOCUMENTS
from reflectgit.git import codebase
from reflectgit.notes.anchors import Anchor, anchors_of

Env = Mapping[str, str] | None


@dataclass(frozen=True)
class AnchoredNote:
    id: str
    title: str
    path: str
    project: str | None
    anchors: tuple[Anchor, ...]
    tier: str | None = None
    front: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    said: str = field(default="", compare=False, repr=False)  # what the note says (codediff)
    body: str = field(default="", compare=False, repr=False)  # its markdown body


def anchored_notes(kb: Path, env: Env = None, project: str | None = None) -> list[AnchoredNote]:
    """Every live note with anchors (of ``project`` when given), in path order."""
    if codebase.resolve(kb, "HEAD", env) is None:
        return []
    found = codebase.matching_lines(kb, "HEAD", r"^anchors:", DOCUMENTS, env)
    paths = [p for p, _ in found if p.endswith(".md") and p.count("/") == 1]
    return read_anchored(kb, paths, env, project)


def read_anchored(
    kb: Path, paths: list[str], env: Env = None, project: str | None = None
) -> list[AnchoredNote]:
    """The anchored notes among ``paths`` (notes of the KB's HEAD)."""
    from reflectgit.notes.codediff import said
    from reflectgit.notes.note import parse_note
    from reflectgit.notes.schema import fast_frontmatter

    out: list[AnchoredNote] = []
    texts = codebase.texts(kb, [("HEAD", p) for p in paths], env)
    for path, text in zip(paths, texts, strict=True):
        if text is None:
            continue
        front = fast_frontmatter(text.encode("utf-8"))  # the validator's fast reading
        if front is None:
            try:
                front = parse_note(text, path).frontmatter
            except Exception:  # an invalid note is check's to report, not ours
                continue
        anchors = anchors_of(front)
        learned_in = front.get("project") if isinstance(front.get("project"), str) else None
        if not anchors or (project is not None and learned_in != project):
            continue
        given_id, given_title = front.get("id"), front.get("title")
        nid = given_id if isinstance(given_id, str) else Path(path).stem
        title = given_title if isinstance(given_title, str) else nid
        tier = front.get("confidence") if isinstance(front.get("confidence"), str) else None
        body = body_of(text)
        out.append(
            AnchoredNote(
                nid, title, path, learned_in, tuple(anchors), tier, front, said(front, body), body
            )
        )
    return out


def body_of(text: str) -> str:
    """A note's body (what follows its front matter); empty when it has none."""
    from reflectgit.notes.frontmatter import split_frontmatter

    try:
        return split_frontmatter(text, "<note>")[1]
    except Exception:
        return ""
