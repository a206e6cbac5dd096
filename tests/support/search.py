"""Fixtures for the search and recall tests: a KB holding the shared corpus, committed by store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reflectgit.git.change import write
from reflectgit.git.store import Store
from reflectgit.notes.note import parse_note
from tests.conftest import DATA

CORPUS_DIRS = (DATA / "notes" / "valid", DATA / "compat")


def corpus_files() -> list[Path]:
    """Every note and sidecar of the sample corpus."""
    out: list[Path] = []
    for folder in CORPUS_DIRS:
        out.extend(sorted(p for p in folder.iterdir() if p.suffix in (".md", ".yaml")))
    return out


def corpus_notes() -> list[tuple[str, str]]:
    """(expected id, title) for every sample note: id, else name, else the file stem."""
    out = []
    for path in corpus_files():
        if path.suffix != ".md":
            continue
        note = parse_note(path.read_bytes(), str(path))
        front = note.frontmatter
        note_id = front.get("id") or front.get("name") or path.stem
        out.append((str(note_id), note.title))
    return out


def committed_kb(tmp_path: Path, files: dict[str, bytes], message: str = "notes") -> Path:
    """A KB at ``tmp_path/kb`` (with a work tree) whose first commit holds ``files``, each
    given as its path in the KB (``documents/a.md``) and its bytes."""
    kb = tmp_path / "kb"
    with Store.init(kb) as store:
        store.commit([write(path, data) for path, data in files.items()], message)
    return kb


def committed_notes(tmp_path: Path, notes: dict[str, bytes]) -> Path:
    """``committed_kb`` of notes given by file stem: ``{"a": note_text(...)}`` is
    ``documents/a.md``."""
    return committed_kb(tmp_path, {f"documents/{k}.md": v for k, v in notes.items()})


@pytest.fixture
def corpus_kb(tmp_path: Path) -> Iterator[Path]:
    """A KB (with a work tree) whose first commit holds the whole sample corpus in documents/."""
    files = {f"documents/{p.name}": p.read_bytes() for p in corpus_files()}
    yield committed_kb(tmp_path, files, "import the sample corpus")


def note_text(note_id: str, title: str, body: str = "Body.", **fields: str) -> bytes:
    """A small valid note; extra frontmatter fields are written as given (already YAML)."""
    values = {"id": note_id, "created": '"2026-03-01"', "confidence": "high"}
    values["title"] = '"' + title + '"'
    values.update(fields)
    lines = ["---", *(f"{key}: {value}" for key, value in values.items()), "---", body, ""]
    return "\n".join(lines).encode("utf-8")
