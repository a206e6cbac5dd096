"""Fixtures for validation tests: small KB folders built from the shared corpus."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import DATA

VALID_NOTE = (
    "---\ntitle: Pin the CI runner image\ncreated: 2026-03-04\nconfidence: high\n---\n\nBody.\n"
)


def copy_corpus(target: Path, *folders: str) -> Path:
    """Copy the notes and sidecars of corpus folders (e.g. ``notes/valid``) into ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    for folder in folders:
        for path in sorted((DATA / folder).iterdir()):
            if path.name.endswith((".md", ".entities.yaml")):
                shutil.copyfile(path, target / path.name)
    return target


def make_valid_kb(tmp_path: Path) -> Path:
    """A KB folder (not a git repository) whose documents/ hold the valid corpus and compat."""
    kb = tmp_path / "kb"
    copy_corpus(kb / "documents", "notes/valid", "compat")
    (kb / "archived").mkdir()
    (kb / "review-queue").mkdir()
    return kb
