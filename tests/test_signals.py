from __future__ import annotations

import pytest

from reflectgit.notes.signals import HIGH, LOW, MEDIUM, categorize, classify, detect, scan
from reflectgit.notes.transcripts import parse_lines
from reflectgit.workflows.transcript_file import read_transcript
from tests.conftest import DATA


@pytest.mark.parametrize(
    ("line", "tier", "kind"),
    [
        ("No, don't use pip here.", HIGH, "correction"),
        ("no", HIGH, "correction"),
        ("Use uv instead of pip.", HIGH, "correction"),
        ("You should have run the linter first", HIGH, "correction"),
        ("Never push to main directly", HIGH, "prohibition"),
        ("We must pin the version", HIGH, "requirement"),
        ("I already told you last week", HIGH, "frustration"),
        ("The rule is: one commit per change", HIGH, "explicit-rule"),
        ("only for this repo", HIGH, "explicit-rule"),
        ("The root cause was a stale cache", HIGH, "root-cause"),
        ("Fixed by pinning numpy", HIGH, "fix-confirmed"),
        ("We decided to go with WAL", HIGH, "decision"),
        ("Turns out the lock is exclusive", HIGH, "breakthrough"),
        ("Perfect.", MEDIUM, "approval"),
        ("Great job on that", MEDIUM, "positive-feedback"),
        ("Keep doing it this way", MEDIUM, "continuation"),
        ("I spent 3 hours on this", MEDIUM, "time-investment"),
        ("That flag is undocumented", MEDIUM, "docs-vs-reality"),
        ("Make sure to export the PATH", MEDIUM, "env-gotcha"),
        ("Maybe try the other flag", LOW, "suggestion"),
        ("Interesting output", LOW, "observation"),
        ("It seems like a race", LOW, "tentative"),
        ("That worked", LOW, "implicit-success"),
        ("I discovered a flag for this", LOW, "tool-discovery"),
    ],
)
def test_classify(line, tier, kind):
    assert classify(line) == (tier, kind)


@pytest.mark.parametrize(
    "line",
    [
        "What files are in this directory?",
        "There is a README, a setup.cfg, and the src and tests folders.",
        "Thanks.",
        "No tests ran in this module.",
        "Know your tools",
    ],
)
def test_plain_lines_have_no_signal(line):
    assert classify(line) is None


def test_highest_tier_wins_within_a_line():
    assert classify("Perfect, but never do that again")[0] == HIGH


def test_detect_reports_line_index_and_category():
    found = detect(["hello", "never store the password in the repo", "ok"])
    assert len(found) == 1
    assert found[0].line_index == 1 and found[0].category == "Security"
    assert categorize("nothing special here") == "Unknown"


def test_scan_reads_dialogue_never_tool_output():
    t = read_transcript(DATA / "transcripts" / "claude" / "no-signal-0.jsonl")
    assert scan(t) == []
    # The tool result in a no-signal session says nothing; a noisy tool result must not count.
    lines = [
        '{"type":"user","message":{"role":"user","content":"list files"}}',
        '{"type":"user","message":{"role":"user","content":[{"type":"tool_result",'
        '"tool_use_id":"t","content":"error: never fixed by always wrong root cause"}]}}',
    ]
    assert scan(parse_lines(lines)) == []


def test_scan_ignores_private_spans_and_respects_the_cap():
    lines = [
        '{"type":"user","message":{"role":"user","content":"<private>never do X</private> hi"}}',
    ]
    assert scan(parse_lines(lines)) == []
    long = '{"type":"user","message":{"role":"user","content":"' + "a " * 400 + 'never"}}'
    t = parse_lines([long])
    assert scan(t, cap=100) == []
    assert scan(t)


def test_big_transcript_signals_near_the_end_are_found():
    t = read_transcript(DATA / "transcripts" / "claude" / "big.jsonl")
    kinds = {s.kind for s in scan(t)}
    assert {"breakthrough", "decision"} <= kinds
