"""Recall: the few notes an agent should know at the start of a session in one project.

The project is described by what the caller passes in (the working directory's repository
name, branch and recently touched files; never read implicitly here), matched against each
note's text, ``scope``, ``project``, tags and entities through the search index, and weighted by
confidence and proof count. A note learned in another project (its ``project`` field) is not
served unless its scope is ``global`` (``notes.scope.served_in``); ``everywhere`` serves all. The result fits a character budget and renders as plain text or as
the JSON a Claude Code SessionStart hook prints. Each recall bumps the S9 ranking counters
(``reflectgit.state.ranking``, in the state directory); the notes themselves never change.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflectgit.errors import UsageError
from reflectgit.git import repo_info
from reflectgit.workflows.search.index import Index, open_fresh

DEFAULT_LIMIT = 5
DEFAULT_BUDGET = 4000  # characters of context; SessionStart context should stay small
RECENT_COMMITS = 10
MAX_TERMS = 40
CANDIDATES = 500  # per source: text matches, project notes
FORMATS = ("text", "claude", "codex", "copilot")
# The formats a SessionStart hook prints (JSON its harness reads as context).
HOOK_FORMATS = ("claude", "codex", "copilot")

# File kinds that say which tools a project uses, so notes tagged with the tool come back.
_KIND_WORDS = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".js": "javascript",
    ".jsx": "javascript",
    ".go": "go",
    ".rs": "rust",
    ".rb": "ruby",
    ".java": "java",
    ".kt": "kotlin",
    ".tf": "terraform",
    ".sql": "sql",
    ".sh": "bash",
    ".zsh": "zsh",
    "dockerfile": "docker",
    "docker-compose.yml": "docker",
    "package.json": "npm",
    "pyproject.toml": "python",
    "cargo.toml": "rust",
    "go.mod": "go",
    "makefile": "make",
}
_STOP = {
    "the", "and", "for", "with", "src", "lib", "test", "tests", "main", "master", "index",
    "init", "readme", "docs", "md", "txt", "json", "yaml", "yml", "toml", "feature", "fix",
    "app", "bin", "utils", "util", "core", "common", "new", "old", "tmp",
}  # fmt: skip


@dataclass
class ProjectContext:
    """Where the agent works: repository name, branch and recently touched files."""

    name: str
    branch: str | None = None
    files: list[str] = field(default_factory=list)
    root: Path | None = None

    def terms(self) -> list[str]:
        """Words that describe the project, most telling first, for the OR query."""
        out: list[str] = []
        sources: list[str] = [self.name, self.branch or ""]
        for path in self.files:
            lower = path.lower()
            base = lower.rsplit("/", 1)[-1]
            for key, word in _KIND_WORDS.items():
                if base == key or (key.startswith(".") and base.endswith(key)):
                    out.append(word)
            sources.append(path)
        for text in sources:
            out.extend(re.split(r"[^0-9A-Za-z]+", text.lower()))
        seen: set[str] = set()
        terms = []
        for word in out:
            if len(word) < 3 or word in _STOP or word.isdigit() or word in seen:
                continue
            seen.add(word)
            terms.append(word)
        return terms[:MAX_TERMS]


def project_context(
    cwd: Path, project: str | None = None, env: Mapping[str, str] | None = None
) -> ProjectContext:
    """Describe the project at ``cwd`` (the caller's working directory, passed in explicitly)."""
    root = repo_info.toplevel(cwd, env)
    name = project or (root.name if root else cwd.name)
    if root is None:
        return ProjectContext(name=name)
    branch = repo_info.current_branch(root, env)
    files = repo_info.modified_files(root, env) + repo_info.recent_files(root, RECENT_COMMITS, env)
    unique = list(dict.fromkeys(files))[:50]
    return ProjectContext(name=name, branch=branch, files=unique, root=root)


# --------------------------------------------------------------------------- recall


@dataclass
class Recalled:
    """One recalled note and why it came back."""

    id: str
    title: str
    tier: str
    summary: str
    path: str
    score: float
    reasons: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "tier": self.tier,
            "summary": self.summary,
            "path": self.path,
            "score": round(self.score, 4),
            "reasons": self.reasons,
        }


@dataclass
class RecallResult:
    """The notes for a session start, the project they were chosen for, and the rendered text."""

    project: ProjectContext
    notes: list[Recalled]
    total_live: int
    budget: int
    slots: list[str] = field(default_factory=list)  # the last session's (REFLECT_SLOTS=1)

    def text(self) -> str:
        """The notes, then what the last session here left (memory slots)."""
        return "\n".join([self.notes_text(), *self.slots])

    def notes_text(self) -> str:
        """Plain text: a heading line, then one short entry per note."""
        where = self.project.name + (
            f" (branch {self.project.branch})" if self.project.branch else ""
        )
        if not self.notes:
            return f"reflect-git: no notes in the knowledge base for {where} yet."
        lines = [
            f"reflect-git: {len(self.notes)} of {self.total_live} notes from the knowledge base "
            f"that bear on {where}:"
        ]
        lines.extend(_entry(n) for n in self.notes)
        lines.append("(`reflect-git show ID` prints a note in full.)")
        return "\n".join(lines)

    def claude(self) -> str:
        """The JSON a Claude Code SessionStart hook prints on stdout."""
        return json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "SessionStart",
                    "additionalContext": self.text(),
                }
            }
        )

    def copilot(self) -> str:
        """The JSON a Copilot CLI sessionStart hook prints on stdout (its hooks reference)."""
        return json.dumps({"additionalContext": self.text()})

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.project.name,
            "branch": self.project.branch,
            "files": self.project.files,
            "budget": self.budget,
            "notes": [n.to_json() for n in self.notes],
            "context": self.text(),
        }


def _entry(note: Recalled) -> str:
    return f"- [{note.tier}] {note.title} ({note.id})\n  {note.summary}"


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _as_set(text: str | None) -> set[str]:
    return {t.strip().lower() for t in (text or "").split("\n") if t.strip()}


def _scope_matches(scope: str | None, name: str) -> bool:
    if not scope:
        return False
    scope = scope.strip().lower()
    return scope == name or scope.endswith((":" + name, "/" + name))


def rank(
    index: Index, context: ProjectContext, everywhere: bool = False
) -> tuple[list[tuple[float, dict[str, Any], list[str]]], int]:
    """Live notes scored for the project, best first, and the number of live notes (notes
    learned in other projects left out unless ``everywhere``)."""
    from reflectgit.notes.scope import served_in
    from reflectgit.workflows.search.index import fts_query

    terms = context.terms()
    name = context.name.lower()
    relevance: dict[int, float] = {}
    if terms:
        query = fts_query(" ".join(terms), mode="or", prefix_last=False)
        if query:
            relevance = index.relevance(query)
    conn = index.conn
    live = "state = 'live' AND hidden = 0"
    total = int(conn.execute(f"SELECT count(*) FROM docs WHERE {live}").fetchone()[0])
    # Candidates: text matches, notes scoped to this project, and the strongest notes overall.
    # Bounded, so a KB of 100,000 notes costs no more than a small one.
    rowids = set(sorted(relevance, key=lambda r: -relevance[r])[:CANDIDATES])
    rowids.update(
        r
        for (r,) in conn.execute(
            f"SELECT rowid FROM docs WHERE {live} AND (lower(project) = ? OR lower(scope) = ?"
            " OR lower(scope) LIKE ? OR lower(scope) LIKE ?) ORDER BY weight DESC LIMIT ?",
            (name, name, f"%:{name}", f"%/{name}", CANDIDATES),
        )
    )
    rowids.update(
        r
        for (r,) in conn.execute(
            f"SELECT rowid FROM docs WHERE {live} ORDER BY weight DESC LIMIT 50"
        )
    )
    term_set = set(terms)
    top = max(relevance.values(), default=0.0) or 1.0
    scored: list[tuple[float, dict[str, Any], list[str]]] = []
    for doc in index.documents(sorted(rowids)):
        if doc["state"] != "live" or doc["hidden"]:
            continue
        if not everywhere and not served_in(context.name, doc["scope"], doc["project"]):
            continue  # learned in another project and not said to hold beyond it
        reasons: list[str] = []
        affinity = 0.0
        if (doc["project"] or "").lower() == name:
            affinity += 15
            reasons.append(f"project {context.name}")
        if _scope_matches(doc["scope"], name):
            affinity += 12
            reasons.append(f"scope {doc['scope']}")
        elif (doc["scope"] or "").lower() == "global":
            reasons.append("scope global")
        tag_hits = sorted(_as_set(doc["tags"]) & term_set)
        if tag_hits:
            affinity += 2 * len(tag_hits)
            reasons.append("tags " + ", ".join(tag_hits))
        entity_hits = sorted(_as_set(doc["entities"]) & term_set)
        if entity_hits:
            affinity += len(entity_hits)
            reasons.append("entities " + ", ".join(entity_hits))
        # Text relevance is scaled to 0..10 so a note made for this project outranks a note
        # that merely shares many words with it.
        text = 10.0 * relevance.get(doc["rowid"], 0.0) / top
        if text:
            reasons.append(f"text match {text:.2f}")
        if not reasons:
            reasons.append("strong note (confidence and proofs)")
        score = (text + affinity + 0.5) * doc["weight"]
        scored.append((score, doc, reasons))
    scored.sort(key=lambda item: (-item[0], item[1]["id"]))
    return scored, total


def recall(
    kb: Path,
    state_dir: Path,
    cwd: Path,
    *,
    project: str | None = None,
    limit: int = DEFAULT_LIMIT,
    budget: int = DEFAULT_BUDGET,
    env: Mapping[str, str] | None = None,
    now: dt.datetime | None = None,
    record: bool = True,
    everywhere: bool = False,
) -> RecallResult:
    """The notes most relevant to the project at ``cwd``, within ``budget`` characters;
    ``everywhere`` also serves notes learned in other projects."""
    if limit < 1:
        raise UsageError("--limit must be at least 1")
    if budget < 200:
        raise UsageError("the recall budget must be at least 200 characters")
    context = project_context(cwd, project, env)
    index, _ = open_fresh(kb, state_dir, env)
    with index:
        scored, total = rank(index, context, everywhere)
    result = RecallResult(project=context, notes=[], total_live=total, budget=budget)
    from reflectgit.workflows.capture.slots import recall_lines  # memory slots (issue 16)

    result.slots = recall_lines(state_dir, context.name, now)
    for score, doc, reasons in scored:
        if len(result.notes) >= limit:
            break
        note = Recalled(
            id=doc["id"],
            title=_shorten(doc["title"], 120),
            tier=doc["tier"],
            summary=_shorten(doc["summary"], 280),
            path=doc["path"],
            score=score,
            reasons=reasons,
        )
        result.notes.append(note)
        if len(result.text()) > budget:
            result.notes.pop()
            if result.notes:
                break
            # Even one note is over budget: trim its summary rather than return nothing.
            result.notes.append(note)
            room = budget - (len(result.text()) - len(note.summary))
            if room >= 20:
                note.summary = _shorten(note.summary, room)
            else:
                result.notes.pop()
            break
    if record and result.notes:
        _record([n.id for n in result.notes], state_dir, now)
    return result


def _record(ids: Sequence[str], state_dir: Path, now: dt.datetime | None) -> None:
    """Count the recall in the S9 ranking counters (the state directory, never the notes)."""
    from reflectgit.state.ranking import DB_NAME, Ranking

    when = now or dt.datetime.now(dt.timezone.utc)
    try:
        Ranking(state_dir).record_recall(ids, when)
    except sqlite3.DatabaseError:
        # Counters are soft state: an unreadable file starts over rather than failing a
        # session start.
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                (state_dir / (DB_NAME + suffix)).unlink()
        Ranking(state_dir).record_recall(ids, when)


def render(result: RecallResult, fmt: str) -> str:
    """``text``, or a SessionStart hook's JSON: ``claude`` and ``codex`` (the same
    ``hookSpecificOutput`` document), ``copilot`` (``additionalContext``)."""
    if fmt in ("claude", "codex"):
        return result.claude()
    if fmt == "copilot":
        return result.copilot()
    if fmt == "text":
        return result.text()
    raise UsageError(f"unknown format {fmt!r}", hint="use one of: " + ", ".join(FORMATS))
