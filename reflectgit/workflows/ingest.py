"""``reflect-git ingest``: other tools' memory files turned into candidate notes, then notes.

``find_files`` looks where each tool keeps its memory (``notes/memoryfiles.py`` says where and
how each format is read); ``scan`` reads the rules of every file found into candidates, each
marked ``new`` or already ingested (the ingest ledger in the state directory holds the content
hash of every rule ever ingested, so the same text is never ingested twice, from any file);
``ingest`` writes the approved candidates as validated notes through the KB's one door, one
commit per note, each with its provenance (tool, file, line, content hash), and appends each
one's hash to the ledger after its commit.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflectgit.errors import NotFoundError
from reflectgit.notes import memoryfiles
from reflectgit.notes.scope import GLOBAL, scope_fields
from reflectgit.notes.secrets import has_secret, mask
from reflectgit.state.ledger import append_jsonl, read_jsonl

LEDGER_FILE = "ingest-ledger.jsonl"
MAX_FILE_BYTES = 1024 * 1024  # a memory file larger than this is not a memory file
DEFAULT_CONFIDENCE = "medium"  # written by a person, never proven here: reviewed like any medium

# (path inside a project, tool, kind) in the order the table lists them.
PROJECT_FILES: tuple[tuple[str, str, str], ...] = (
    ("CLAUDE.md", "claude-code", "md"),
    (".claude/CLAUDE.md", "claude-code", "md"),
    ("CLAUDE.local.md", "claude-code", "md"),
    ("AGENTS.md", "agents-md", "md"),
    (".cursorrules", "cursor", "text"),
    (".github/copilot-instructions.md", "copilot", "md"),
)
# (folder inside a project, file pattern, tool, kind)
PROJECT_GLOBS: tuple[tuple[str, str, str, str], ...] = (
    (".claude/rules", "*.md", "claude-code", "md"),
    (".cursor/rules", "*.mdc", "cursor", "mdc"),
    (".github/instructions", "*.instructions.md", "copilot", "md"),
)


@dataclass(frozen=True)
class Found:
    """A memory file: where it is, what to call it in a table, whose it is, how to read it."""

    path: Path
    shown: str  # relative to the project, or ``~/...`` for the user's own files
    tool: str
    kind: str
    personal: bool = False  # the user's own files (~/.claude): their rules hold everywhere
    project: str | None = None  # the repository the file belongs to


@dataclass
class Candidate:
    """One rule that could become a note."""

    number: int
    tool: str
    file: str
    line: int
    text: str
    title: str
    content_hash: str
    # new | ingested (in the ledger) | duplicate (same text earlier in this scan) | secret
    # (holds a credential: masked in the table, never written)
    status: str
    section: str = ""
    meta: dict[str, str] = field(default_factory=dict)
    personal: bool = False
    project: str | None = None
    note_id: str | None = None  # once written

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "tool": self.tool,
            "file": self.file,
            "line": self.line,
            "title": self.title,
            "rule": self.text,
            "content_hash": self.content_hash,
            "status": self.status,
            "id": self.note_id,
        }


@dataclass
class Scan:
    files: list[Found]
    candidates: list[Candidate]

    @property
    def new(self) -> list[Candidate]:
        return [c for c in self.candidates if c.status == "new"]

    def to_json(self) -> dict[str, Any]:
        return {
            "files": [{"path": f.shown, "tool": f.tool} for f in self.files],
            "candidates": [c.to_json() for c in self.candidates],
        }


@dataclass
class Ingested:
    written: list[Candidate]
    commits: list[str]


# --------------------------------------------------------------------------- finding files


def _shown(path: Path, root: Path | None, home: Path) -> str:
    if root is not None:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            pass
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)


def _kind_of(path: Path) -> tuple[str, str]:
    """(tool, kind) of a file named on the command line, by its name."""
    name = path.name
    if name.endswith(".mdc"):
        return "cursor", "mdc"
    if name == ".cursorrules":
        return "cursor", "text"
    if name == "AGENTS.md":
        return "agents-md", "md"
    if name == "copilot-instructions.md" or name.endswith(".instructions.md"):
        return "copilot", "md"
    return "claude-code", "md"  # CLAUDE.md, CLAUDE.local.md, rules and auto-memory files


def project_files(root: Path, home: Path, project: str | None = None) -> list[Found]:
    """The memory files of the project at ``root``, and Claude Code's auto memory for it."""
    out: list[Found] = []
    for rel, tool, kind in PROJECT_FILES:
        path = root / rel
        if path.is_file() and _inside(path, root):
            out.append(Found(path, rel, tool, kind, project=project))
    for folder, pattern, tool, kind in PROJECT_GLOBS:
        for path in sorted((root / folder).glob(pattern)):
            if path.is_file() and _inside(path, root):
                shown = path.relative_to(root).as_posix()
                out.append(Found(path, shown, tool, kind, project=project))
    memory = home / ".claude" / "projects" / memoryfiles.claude_project_slug(str(root))
    for path in sorted((memory / "memory").glob("*.md")):
        if path.is_file():
            shown = _shown(path, None, home)
            out.append(Found(path, shown, "claude-code", "md", project=project))
    return out


def _inside(path: Path, root: Path) -> bool:
    """Does ``path``, its links followed, stay inside the project at ``root``? A project's
    ``CLAUDE.md`` linked to a file elsewhere (``~/.ssh/config``, another checkout) is not
    the project's memory, and is not read."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a link loop
        return False


def user_files(home: Path) -> list[Found]:
    """The user's own Claude Code memory: ``~/.claude/CLAUDE.md`` and ``~/.claude/rules/*.md``."""
    base = home / ".claude"
    paths = [base / "CLAUDE.md", *sorted((base / "rules").glob("*.md"))]
    return [
        Found(p, _shown(p, None, home), "claude-code", "md", personal=True)
        for p in paths
        if p.is_file()
    ]


def _root(path: Path, env: Mapping[str, str] | None) -> tuple[Path, str | None]:
    """The top of the repository that holds the folder ``path`` (else the folder), and its
    project name."""
    from reflectgit.git import repo_info
    from reflectgit.workflows.project import project_name

    root = repo_info.toplevel(path, env) or path
    return root, project_name(root, env)


def find_files(
    paths: Sequence[Path],
    *,
    home: Path,
    cwd: Path,
    env: Mapping[str, str] | None = None,
) -> list[Found]:
    """The memory files ``paths`` name (a file, or a project folder to look in, relative to
    ``cwd``); with no paths, the project that holds ``cwd`` and the user's own files."""
    found: list[Found] = []
    if not paths:
        root, project = _root(cwd, env)
        found.extend(project_files(root, home, project))
        found.extend(user_files(home))
    for given in paths:
        path = home / str(given)[2:] if str(given).startswith("~/") else cwd / given
        if path.is_dir():
            found.extend(project_files(path, home, _root(path, env)[1]))
        elif path.is_file():
            tool, kind = _kind_of(path)
            project = _root(path.parent, env)[1]
            found.append(Found(path, _shown(path, cwd, home), tool, kind, project=project))
        else:
            raise NotFoundError(
                f"no such file or folder: {given}",
                hint="name memory files (CLAUDE.md, AGENTS.md, .cursorrules, *.mdc ...) or "
                "project folders that hold them",
            )
    unique: dict[Path, Found] = {}
    for f in found:
        unique.setdefault(f.path.resolve(), f)
    return list(unique.values())


# --------------------------------------------------------------------------- the ledger


def ledger_path(state_dir: Path) -> Path:
    return state_dir / LEDGER_FILE


def ingested_hashes(state_dir: Path) -> set[str]:
    return {
        str(row["hash"])
        for row in read_jsonl(ledger_path(state_dir))
        if isinstance(row.get("hash"), str)
    }


# --------------------------------------------------------------------------- scanning


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\x00" in data[:8192]:
        return None  # binary
    return data.decode("utf-8", errors="replace")


def scan(files: Iterable[Found], state_dir: Path) -> Scan:
    """Every rule in ``files`` as a candidate, marked new, ingested or duplicate."""
    done = ingested_hashes(state_dir)
    seen: set[str] = set()
    kept: list[Found] = []
    candidates: list[Candidate] = []
    for f in files:
        text = _read(f.path)
        if text is None:
            continue
        kept.append(f)
        memory = memoryfiles.read_memory_file(text, f.kind)
        for rule in memory.rules:
            digest = rule.content_hash
            status = "ingested" if digest in done else "duplicate" if digest in seen else "new"
            text = rule.text
            if has_secret(text):  # never a note, and never shown as it is
                status, text = "secret", mask(text)
            seen.add(digest)
            candidates.append(
                Candidate(
                    number=len(candidates) + 1,
                    tool=f.tool,
                    file=f.shown,
                    line=rule.line,
                    text=text,
                    title=memoryfiles.title_of(text),
                    content_hash=digest,
                    status=status,
                    section=rule.section,
                    meta=dict(memory.meta),
                    personal=f.personal,
                    project=f.project,
                )
            )
    return Scan(kept, candidates)


def select(candidates: Sequence[Candidate], spec: str) -> list[Candidate]:
    """The new candidates a reply names: ``all``, or numbers and ranges (``1,3-5``)."""
    from reflectgit.errors import UsageError

    new = {c.number: c for c in candidates if c.status == "new"}
    spec = spec.strip().lower()
    if spec in ("a", "all", "y", "yes"):
        return list(new.values())
    picked: list[Candidate] = []
    for part in spec.replace(" ", ",").split(","):
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            start, end = int(lo), int(hi) if sep else int(lo)
        except ValueError:
            raise UsageError(
                f"{part!r} is not a number or a range", hint="answer like 1,3-5, or all"
            ) from None
        for n in range(start, end + 1):
            if n not in new:
                raise UsageError(
                    f"#{n} is not a new candidate", hint="pick numbers of rows marked new"
                )
            if new[n] not in picked:
                picked.append(new[n])
    return picked


# --------------------------------------------------------------------------- writing


def note_fields(c: Candidate, now: dt.datetime) -> dict[str, Any]:
    """The note's fields: the rule, its provenance, where it applies."""
    body = [c.text, "", f"Ingested from `{c.file}` line {c.line} ({c.tool})."]
    if c.section:
        body.append(f"Section: {c.section}.")
    applies = c.meta.get("globs") or c.meta.get("applyTo")
    if applies:
        body.append(f"Applies to: `{applies}`.")
    if c.meta.get("description"):
        body.append(f"Rule file: {c.meta['description']}.")
    if c.meta.get("alwaysApply"):
        body.append(f"alwaysApply: {c.meta['alwaysApply']}.")
    fields: dict[str, Any] = {
        "type": "learning",
        "title": c.title,
        "rule": c.text,
        "key_insight": c.text,
        "category": "convention",
        "tags": ["ingested", c.tool],
        "body": "\n".join(body) + "\n",
        "provenance": {
            "source_tool": c.tool,
            "source_path": c.file,
            "source_line": c.line,
            "content_hash": c.content_hash,
            "detected_at": now,
        },
    }
    if c.personal:
        fields["scope"] = GLOBAL  # the user's own file: it holds in every project
    else:
        fields.update(scope_fields(c.project, c.text))
    return fields


def ingest(
    kb: Any,
    state_dir: Path,
    chosen: Sequence[Candidate],
    *,
    confidence: str = DEFAULT_CONFIDENCE,
) -> Ingested:
    """Write each chosen candidate as a note (validated, through the door) and record it in
    the ingest ledger; a candidate already in the ledger is left alone."""
    from reflectgit.notes.note import Note, render_note

    done = ingested_hashes(state_dir)
    written: list[Candidate] = []
    commits: list[str] = []
    for c in chosen:
        if c.content_hash in done:
            continue
        now = kb.clock()
        fields = note_fields(c, now)
        body = fields.pop("body")
        fields["confidence"] = confidence
        fields["created"] = now
        data = render_note(Note(fields, body))
        result = kb.add(data, source_name=f"{c.file}:{c.line}")
        c.note_id = result.id
        if result.commit:
            commits.append(result.commit)
        append_jsonl(
            ledger_path(state_dir),
            {
                "ts": now.isoformat(),
                "hash": c.content_hash,
                "id": result.id,
                "file": c.file,
                "line": c.line,
                "tool": c.tool,
            },
        )
        done.add(c.content_hash)
        written.append(c)
    return Ingested(written, commits)
