"""The stale label recall, search, MCP and the web UI put on a note whose code moved on.

Only when a code repository is known (the folder the command runs in, or the MCP server's):
the notes shown are read from the KB in one ``git cat-file``, those anchored in that
repository's project are judged by ``staleness`` against its HEAD, and the verdicts are kept
in the state directory (``stale-labels.json``) keyed by the repository's HEAD and each note's
anchors, so the next recall at the same HEAD asks git nothing more. A note whose front matter
carries ``stale:`` (a proposal a reviewer accepted) is labelled from that, anywhere.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from reflectgit import jsonio
from reflectgit.git import codebase, repo_info
from reflectgit.notes.anchors import stale_label
from reflectgit.workflows.code.notes import AnchoredNote

Env = Mapping[str, str] | None
CACHE = "stale-labels.json"
KEEP_REPOS = 20


def flagged_label(front: Mapping[str, Any]) -> str | None:
    """The label of a note flagged ``stale:`` in its own front matter."""
    flag = front.get("stale")
    if not isinstance(flag, Mapping) or not isinstance(flag.get("reason"), str):
        return None
    commits = flag.get("commits")
    count = len(commits) if isinstance(commits, list) else 0
    size = flag.get("lines")
    lines = (
        (size["changed"], size["of"])
        if isinstance(size, Mapping) and all(type(size.get(k)) is int for k in ("changed", "of"))
        else None
    )
    return stale_label(
        flag["reason"],
        count,
        flag.get("now") if isinstance(flag.get("now"), str) else None,
        lines=lines,
    )


def stale_labels(
    kb: Path, state_dir: Path, code: Path | None, notes: Sequence[tuple[str, str]], env: Env = None
) -> dict[str, str]:
    """``{id: label}`` for the stale ones among ``notes`` (``(id, path in the KB)`` pairs).
    Never raises: a label is a courtesy, not a reason to fail a recall or a search."""
    if not notes:
        return {}
    try:
        return _labels(kb, state_dir, code, notes, env)
    except Exception:
        return {}


def _labels(
    kb: Path, state_dir: Path, code: Path | None, notes: Sequence[tuple[str, str]], env: Env
) -> dict[str, str]:
    from reflectgit.notes.anchors import anchors_of
    from reflectgit.notes.note import parse_note

    root = repo_info.toplevel(code, env) if code is not None and code.is_dir() else None
    if root is not None and os.path.realpath(root) == os.path.realpath(kb):
        root = None  # the KB itself is no code repository of its notes
    texts = codebase.texts(kb, [("HEAD", path) for _, path in notes], env)
    out: dict[str, str] = {}
    candidates: list[AnchoredNote] = []
    for (nid, path), text in zip(notes, texts, strict=True):
        if text is None or ("anchors:" not in text and "stale:" not in text):
            continue
        front = parse_note(text, path).frontmatter
        flagged = flagged_label(front)
        if flagged:
            out[nid] = flagged
            continue
        anchors = anchors_of(front)
        if root is None or not anchors or front.get("project") != root.name:
            continue
        from reflectgit.notes.codediff import said
        from reflectgit.workflows.code.notes import body_of

        text_said = said(front, body_of(text))
        given = front.get("title")
        title = given if isinstance(given, str) else nid
        candidates.append(
            AnchoredNote(nid, title, path, root.name, tuple(anchors), None, front, text_said)
        )
    if not candidates or root is None:
        return out
    head = codebase.resolve(root, "HEAD", env)
    if head is None:
        return out
    cache = _load(state_dir)
    mine = cache.get(str(root)) if isinstance(cache.get(str(root)), dict) else None
    known: dict[str, Any] = mine["notes"] if mine and mine.get("head") == head else {}
    todo = [n for n in candidates if _key(n) != (known.get(n.id) or [None])[0]]
    if todo:
        from reflectgit.workflows.code.staleness import judge

        report = judge(root, todo, env)
        labels = {s.id: s.label for s in report.stale}
        for n in todo:
            known[n.id] = [_key(n), labels.get(n.id, "")]
        cache[str(root)] = {"head": head, "notes": known}
        _save(state_dir, cache)
    for n in candidates:
        label = (known.get(n.id) or [None, ""])[1]
        if label:
            out[n.id] = label
    return out


# Bumped when the verdict's rule changes, so labels cached under the old rule are judged again.
RULE = "3"


def _key(note: AnchoredNote) -> str:
    return (
        RULE + "|" + "|".join(f"{a.path}:{a.symbol or ''}@{a.commit or ''}" for a in note.anchors)
    )


def _load(state_dir: Path) -> dict[str, Any]:
    try:
        data = jsonio.loads((state_dir / CACHE).read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save(state_dir: Path, cache: dict[str, Any]) -> None:
    from reflectgit.state.files import atomic_write

    while len(cache) > KEEP_REPOS:
        cache.pop(next(iter(cache)))
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        atomic_write(state_dir / CACHE, jsonio.dumps(cache).encode("utf-8"))
    except OSError:
        pass
