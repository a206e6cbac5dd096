"""bench/quality.py and its judgement file (issue 34.5): the file is well formed, a changed note
shows as unjudged instead of being matched silently, and the bench skips without the corpus."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from bench import quality as bench_quality
from tests.conftest import DATA, REPO_ROOT, needs_shared

BENCH = REPO_ROOT / "bench" / "quality.py"


@pytest.fixture(scope="module")
def quality() -> ModuleType:
    return bench_quality


@pytest.fixture(scope="module")
def judgements(quality: ModuleType) -> dict[str, Any]:
    return quality.load()  # type: ignore[no-any-return]


def test_the_judgement_file_is_well_formed(quality, judgements) -> None:
    assert quality.problems(judgements) == []
    assert sum(len(s["lessons"]) for s in judgements["sessions"].values()) >= 20
    assert {n["verdict"] for n in judgements["notes"]} == {"useful", "junk"}


def test_a_malformed_judgement_is_named(quality, judgements) -> None:
    bad = copy.deepcopy(judgements)
    first = bad["notes"][0]
    bad["notes"].append(dict(first, title=first["title"].upper() + "  "))  # the same key
    bad["notes"].append(
        {"channel": "drain", "session": "doc-pip-uv", "title": "x", "verdict": "junk",
         "reason": "no subject", "lessons": ["uv-not-pip"]}
    )  # fmt: skip
    bad["notes"].append(
        {"channel": "drain", "session": "doc-pip-uv", "title": "y", "verdict": "useful",
         "reason": " ", "lessons": ["no-such-lesson"]}
    )  # fmt: skip
    said = "\n".join(quality.problems(bad))
    assert "judged twice" in said
    assert "a junk note keeps no lesson" in said
    assert "a verdict needs useful or junk, and a reason" in said
    assert "unknown lesson no-such-lesson" in said


def _note(quality, title: str, text: str, session: str = "doc-pip-uv") -> Any:
    return quality.Written("capture", session, title, text, "low", "doc.json")


def test_a_changed_title_is_unjudged_not_matched(quality, judgements) -> None:
    same = _note(quality, "use UV  instead of pip", "Use uv instead of pip.")
    changed = _note(quality, "Use uv instead of pip, always", "Use uv instead of pip, always.")
    figures, unjudged, _missed = quality.judge([same], judgements, "capture")
    assert (figures.notes, figures.useful, figures.unjudged) == (1, 1, 0)
    assert figures.kept == 1  # its judge names uv-not-pip
    figures, unjudged, _missed = quality.judge([changed], judgements, "capture")
    assert (figures.useful, figures.unjudged, figures.kept) == (0, 1, 0)
    assert unjudged == [changed]
    assert figures.kept_if_unjudged_useful == 1  # its terms would keep the lesson


def test_lesson_terms_need_every_term_of_a_group(quality) -> None:
    lesson = {"id": "x", "match": [["uv", "pip"], ["release script"]]}
    assert quality.matches(lesson, "Use UV instead of PIP")
    assert quality.matches(lesson, "use the Release Script")
    assert not quality.matches(lesson, "use pip")
    assert not quality.matches(lesson, "release the script")


def test_the_bench_skips_cleanly_without_the_shared_sessions(tmp_path: Path) -> None:
    env = dict(os.environ, REFLECT_SHARED_DIR=str(tmp_path / "nothing"))
    proc = subprocess.run(
        [sys.executable, str(BENCH)], capture_output=True, text=True, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("skipped: no real sessions")


@needs_shared
def test_every_real_session_file_belongs_to_a_judged_session(quality, judgements) -> None:
    real = DATA / "real"
    named = quality.sessions_of(judgements)
    files = {f"hook-events/{p.name}" for p in (real / "hook-events").glob("*.json")}
    files -= {"hook-events/MANIFEST.json"}
    files |= {p.relative_to(real).as_posix() for p in (real / "transcripts").rglob("*.jsonl")}
    assert files == set(named)


@pytest.mark.parametrize(
    "held",
    ["held-apart", "held-apart-2", "held-apart-3", "held-apart-4", "held-apart-5", "held-apart-6"],
)
def test_the_held_apart_sessions_are_judged_and_recorded(quality, tmp_path: Path, held) -> None:
    folder = quality.JUDGEMENTS.parent / held
    judgements = json.loads((folder / "judgements.json").read_text(encoding="utf-8"))
    assert quality.problems(judgements) == []
    packed = sorted(p.relative_to(folder / "transcripts").as_posix() for p in folder.rglob("*.gz"))
    assert packed  # sessions the writers were not tuned on
    sources = (folder / "SOURCES.md").read_text(encoding="utf-8")
    assert all(f"transcripts/{name}" in sources for name in packed)
    unpacked = quality.unpacked(folder, tmp_path / "sessions")
    files = {
        p.relative_to(unpacked).as_posix() for p in (unpacked / "transcripts").rglob("*.jsonl")
    }
    assert files == {f"transcripts/{name.removesuffix('.gz')}" for name in packed}
    assert set(quality.sessions_of(judgements)) == files


def test_pooled_reads_every_held_apart_set_in_number_order(quality) -> None:
    held = [real.name for real, path in quality.sets() if path != quality.JUDGEMENTS]
    on_disk = {p.name for p in quality.JUDGEMENTS.parent.glob("held-apart*") if p.is_dir()}
    assert set(held) == on_disk
    numbers = [1 if name == "held-apart" else int(name.rpartition("-")[2]) for name in held]
    assert numbers == sorted(numbers)
    # the shared sessions come first when the checkout has them, and never without them
    has_shared = (quality.REAL / "transcripts").is_dir()
    assert (quality.sets()[0][1] == quality.JUDGEMENTS) is has_shared
