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


# ------------------------------------------------------------------ the extract writer

SMALL = bench_quality.JUDGEMENTS.parent / "held-apart-18"  # three transcripts, five judged notes
# The stub model answers by what the drain showed it: trustintern-01a0e1ff's excerpt names the
# sandbox (its lesson: .git/index.lock needs an escalated commit), idahcli-e6dd9346's does not.
STUB = """
if "protected by the sandbox" in prompt:
    note = {"title": "Commit from outside the sandbox",
            "key_insight": "In the sandbox git cannot create .git/index.lock: rerun escalated."}
    emit({"actions": [dict(note, action="CREATE", confidence="medium")]})
else:
    judged = {"title": "Both must be recursive: yes", "key_insight": "Walk nested suites."}
    other = {"title": "Stage files outside the sandbox",
             "key_insight": "The sandbox holds .git/index.lock, so stage escalated."}
    emit({"actions": [dict(n, action="CREATE", confidence="medium") for n in (judged, other)]})
"""


def _bench(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH), *args],
        capture_output=True,
        text=True,
        env=env if env is not None else dict(os.environ),
        check=False,
    )


def test_the_extract_writer_is_measured_with_its_model_command(tmp_path: Path) -> None:
    from tests.support.drain import stub_command

    stub = stub_command(tmp_path, STUB)
    proc = _bench("--held-apart", str(SMALL), "--writer", "extract", "--writer-cmd", str(stub))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert (tmp_path / "stub-model.calls").read_text().count("call") == 2  # one a session
    # The model's new notes wait for a person: listed with their session and first line,
    # never counted in the precision; the note whose title a judge named is judged.
    assert "precision 1/1 = 100% over judged notes (2 unjudged, not counted)" in out
    assert (
        "UNJUDGED trustintern-01a0e1ff | Commit from outside the sandbox | "
        "**How to apply:** In the sandbox git cannot create .git/index.lock: rerun escalated."
    ) in out
    assert "UNJUDGED idahcli-e6dd9346 | Stage files outside the sandbox |" in out
    assert "UNJUDGED idahcli-e6dd9346 | Both must be recursive" not in out
    # Kept: the sandbox lesson by its terms, the recursive one by its judge's word. The other
    # session's note holds the sandbox lesson's terms too, and keeps nothing there.
    assert "lessons kept by their terms 2/8 = 25%" in out
    assert "missed  trustintern-01a0e1ff: In this Codex" not in out
    assert "missed  trustintern-01a0e1ff: Codex's apply_patch" in out
    assert "drain entries by outcome: ok 2, skip_no-signal 1" in out
    assert "capture:" not in out  # capture has no writer to measure


def test_pooled_sums_the_extract_writer_over_the_sets(quality, tmp_path, monkeypatch, capsys):
    from tests.support.drain import stub_command

    stub = stub_command(tmp_path, STUB)
    monkeypatch.setattr(quality, "sets", lambda: [(SMALL, SMALL / "judgements.json")] * 2)
    assert quality.pooled(quality.DrainWriter("extract", str(stub))) == 0
    out = capsys.readouterr().out
    assert out.count("held-apart-18    drain: notes 3;") == 2
    assert out.count("UNJUDGED ") == 4
    assert "pooled    drain: notes 6; precision 2/2 = 100% over judged notes (4 unjudged" in out
    assert "lessons kept by their terms 4/16 = 25%" in out
    assert "drain entries by outcome: ok 4, skip_no-signal 2" in out


def test_the_extract_writer_without_a_model_command_is_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "REFLECT_DRAIN_CMD"}
    proc = _bench("--pooled", "--writer", "extract", env=dict(env, PATH=str(empty)))
    assert proc.returncode == 1
    assert proc.stdout == ""  # nothing measured, nothing run
    assert proc.stderr.startswith("error: no model command for the extract writer: claude is")
    assert "\nhint: install Claude Code" in proc.stderr
    given = _bench("--writer", "extract", "--writer-cmd", str(tmp_path / "no-such-model"))
    assert given.returncode == 1 and given.stdout == ""
    assert "no-such-model is not installed" in given.stderr
    unclosed = _bench("--writer", "extract", "--writer-cmd", "my-model 'open")
    assert unclosed.returncode == 1 and unclosed.stderr.startswith("error: ")
    assert "\nhint: " in unclosed.stderr
    # the command belongs to the extract writer alone
    wrong = _bench("--writer-cmd", str(tmp_path / "x"))
    assert wrong.returncode == 2 and "--writer-cmd needs --writer extract" in wrong.stderr
    empty = _bench("--writer", "extract", "--writer-cmd", " ")  # never the default quietly
    assert empty.returncode == 2 and "--writer-cmd needs a command" in empty.stderr


def test_the_heuristic_writer_stays_the_default(tmp_path: Path) -> None:
    default = _bench("--held-apart", str(SMALL))
    assert default.returncode == 0, default.stderr
    assert (
        "   drain: notes 1 (useful 1, junk 0, unjudged 0); precision 1/1 = 100%" in default.stdout
    )
    assert "UNJUDGED" not in default.stdout
    assert _bench("--held-apart", str(SMALL), "--writer", "heuristic").stdout == default.stdout
