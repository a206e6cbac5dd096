"""bench/excerpt_coverage.py (issue 34, what the extract writer is shown): a lesson counts as
shown when the excerpt holds a line of every span its judgement's ``where`` names; the tool
lines of the drain's excerpt show the two traps of held-apart-18's Codex session that its
dialogue alone did not."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from bench import excerpt_coverage as bench
from bench.quality import JUDGEMENTS, load, unpacked

HELD_18 = JUDGEMENTS.parent / "held-apart-18"


def test_where_spans_are_read_one_by_one_with_a_lines_slack() -> None:
    unit, spans = bench.spans({"where": "lines 21-23 (rejected), 27 (works)"})
    assert unit == "record"
    assert spans == [set(range(20, 25)), {26, 27, 28}]
    assert bench.spans({"where": "turns 4-5"})[0] == "turn"


def test_shown_needs_every_span_touched_needs_one() -> None:
    lesson = {"where": "lines 10, 20", "match": [["index.lock"]]}
    one = bench.Shown(None, "tool: git commit failed: index.lock", records={10}, sliced=True)
    both = bench.Shown(None, "", records={10, 21}, sliced=True)
    assert bench.covered(lesson, [one]) == (False, True, True)
    assert bench.covered(lesson, [both]) == (True, True, False)
    assert bench.covered(lesson, [bench.Shown("no-signal")]) == (False, False, False)


@pytest.mark.parametrize("tools", [False, True])
def test_the_tool_lines_show_held_apart_18s_traps(tools: bool, monkeypatch) -> None:
    monkeypatch.setattr(bench, "TOOLS", tools)
    with tempfile.TemporaryDirectory() as tmp:
        row = bench.measure(unpacked(HELD_18, Path(tmp)), load(HELD_18 / "judgements.json"), "18")
    missing = "\n".join(row.missing)
    apply_patch = "trustintern-01a0e1ff/trustintern-apply-patch-one-operation-per-file"
    assert (apply_patch in missing) is not tools
    assert row.skipped == 1 and row.transcripts == 3  # the control session: no signal
    assert (row.by_terms, row.shown) == ((3, 1) if tools else (1, 0))


def test_the_gate_is_measured_for_each_writer_with_the_lessons_it_skips() -> None:
    """held-apart-20's Copilot session with no signal (edits, failed commands, three judged
    lessons): the heuristic writer's gate skips it, and bypassed the writer writes nothing
    there; a model writer's gate reads it."""
    held = JUDGEMENTS.parent / "held-apart-20"
    with tempfile.TemporaryDirectory() as tmp:
        folder = unpacked(held, Path(tmp))
        judged = load(held / "judgements.json")
        heuristic = bench.gate(folder, judged, "20", model=False)
        model = bench.gate(folder, judged, "20", model=True)
    assert (heuristic.skipped, heuristic.transcripts, heuristic.lost, heuristic.lessons) == (
        1,
        4,
        3,
        13,
    )
    assert heuristic.bypassed == 0 and "wasa-b655f527" in heuristic.listed[0]
    assert (model.skipped, model.lost, model.listed) == (0, 0, [])
    assert bench.gate_line(heuristic) == (
        "            20 heuristic: skipped transcripts 1 of 4, judged lessons in them 3 of 13 "
        "(0 more in sessions with another transcript read); bypassed, the heuristic writes 0"
    )
