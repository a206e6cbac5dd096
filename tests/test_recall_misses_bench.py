"""bench/recall_misses.py --confirmation (issue 34, recall): a missed cause is read but
unconfirmed when the writer, taking every cause as confirmed, writes its note; one no reader
takes is not read."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import quality, recall_misses
from reflectgit.workflows.drain.heuristic import answer, chunk
from tests.support.judged import judged_set

SESSION = "causes-1"


DIALOGUE = (
    ("user", "The invoice export crashes on empty carts, can you look at it?"),
    (
        "assistant",
        "The root cause is that `export_invoice` divides by `cart.item_count` without checking "
        "for zero. I changed `export_invoice` to return an empty invoice when the count is 0.",
    ),
    ("user", "And the PDF footer, is the company address in it?"),
    ("assistant", "The root cause is that it was broken before."),
    ("user", "Now the footer: it should hold the company address."),
)


def _set(tmp_path: Path) -> tuple[Path, dict]:
    real = tmp_path / "set"
    lesson = {"kind": "root-cause", "said_by": "assistant, nobody confirmed it", "match": [["x"]]}
    lessons = [
        dict(lesson, id="zero-item-count", lesson="zero count", where="lines 1"),
        dict(lesson, id="it-was-broken", lesson="nothing named", where="lines 3"),
    ]
    return real, judged_set(real, SESSION, DIALOGUE, lessons, cwd="/home/dev/src/billing")


def test_a_cause_read_but_unconfirmed_is_told_from_one_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real, judgements = _set(tmp_path)
    seen = recall_misses._Seen()
    monkeypatch.setattr(answer, "no_lesson", seen)
    rows = {r["lesson"]["id"]: r["why"] for r in recall_misses.classify(real, judgements, seen)}
    # both causes are signals no reader writes a note for: nobody confirmed either
    assert rows["zero-item-count"].startswith("b reader")
    assert rows["it-was-broken"].startswith("b reader")
    original = chunk._Reading.confirmation
    read = recall_misses.unconfirmed(real, judgements, seen)
    # taken as confirmed, the cause naming `export_invoice` gives its note; the one naming
    # nothing ("it was broken") still gives none: not read
    assert read == {(SESSION, "zero-item-count")}
    assert chunk._Reading.confirmation is original  # the writer is left as it was


def test_the_bench_prints_the_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real, _judgements = _set(tmp_path)
    monkeypatch.setattr(quality, "REAL", tmp_path / "no-shared-sessions")
    monkeypatch.setattr(answer, "no_lesson", answer.no_lesson)  # main watches it: restored after
    assert recall_misses.main(["--held-apart", str(real), "--confirmation", "--list"]) == 0
    out = capsys.readouterr().out
    assert f"set/{SESSION}/zero-item-count [root-cause]: b reader, unconfirmed" in out
    assert f"set/{SESSION}/it-was-broken [root-cause]: b reader, not read" in out


RULES = (
    ("user", "The deploy script fails on the staging host, please look into it."),
    ("assistant", "I checked the script: it reads the host list from `deploy/hosts.yml`."),
    ("user", "Do not make assumptions."),
    (
        "assistant",
        "Understood. The staging entry in `deploy/hosts.yml` has no port, so I will ask.",
    ),
    ("user", "Never push to `main` directly, always open a pull request."),
    ("assistant", "Understood, I will open a pull request for the fix."),
)


def test_the_bench_lists_each_note_no_lesson_drops_by_its_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "rules"
    lesson = {"kind": "rule", "said_by": "the person", "match": [["assumption"]]}
    junk = {
        "channel": "drain",
        "session": SESSION,
        "title": "Do not make assumptions",
        "verdict": "junk",
        "lessons": [],
        "reason": "names nothing a teammate could act on",
    }
    lessons = [dict(lesson, id="no-assumptions", lesson="evidence", where="lines 2")]
    judged_set(real, SESSION, RULES, lessons, [junk], cwd="/home/dev/src/billing")
    monkeypatch.setattr(quality, "REAL", tmp_path / "no-shared-sessions")
    monkeypatch.setattr(answer, "no_lesson", answer.no_lesson)  # main watches it: restored after
    assert recall_misses.main(["--held-apart", str(real), "--dropped", "--list"]) == 0
    out = capsys.readouterr().out
    check = "it directs how to reason and names nothing a teammate could act on"
    # the lesson's line names the check that dropped its note
    assert f"rules/{SESSION}/no-assumptions [rule]: b no_lesson ({check})" in out
    # the dropped note, with its verdict and the missed lesson it sits at, and the check's sum
    assert f"rules/{SESSION} [junk] {check}: Do not make assumptions; at no-assumptions" in out
    assert f"    1     1     1       0         0        1  {check}" in out
    # the rule the writer keeps is no drop
    assert "pull request" not in out.split("notes no_lesson drops")[1]
