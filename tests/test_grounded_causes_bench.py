"""bench/grounded_causes.py (issue 34, precision): a cause is grounded when a code token it
names is in the session's evidence, the edits after it or the failing output before it;
prose words are not code tokens, and an account naming no code is grounded nowhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import grounded_causes, quality
from reflectgit.notes.commandruns import commands_run
from reflectgit.workflows.transcript_file import read_transcript
from tests.support.judged import claude_record

SESSION = "grounded-1"
CWD = "/home/dev/src/billing"
CAUSE = "The root cause is that `export_invoice` divides by `cart.item_count` without checking for zero."
ACCOUNT = "This is a well-specified, minimal fix. I have everything I need."


def _record(n: int, role: str, content: object) -> str:
    return claude_record(role, content, n, SESSION, CWD)


def _session(folder: Path) -> Path:
    """The person reports a crash; a test run fails naming `item_count`; the assistant states
    the cause, then an account, then edits `export_invoice`."""
    failing = "FAILED test_export.py::test_empty - ZeroDivisionError: cart.item_count is 0"
    edit = {
        "file_path": f"{CWD}/billing/export.py",
        "old_string": "return total / cart.item_count",
        "new_string": "if not cart.item_count:\n    return empty_invoice()\nreturn total / cart.item_count",
    }
    lines = [
        _record(0, "user", "The invoice export crashes on empty carts, can you look at it?"),
        _record(1, "assistant", [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest -q"}}
        ]),
        _record(2, "user", [
            {"type": "tool_result", "tool_use_id": "t1", "content": failing, "is_error": True}
        ]),
        _record(3, "assistant", CAUSE),
        _record(4, "assistant", ACCOUNT),
        _record(5, "assistant", [
            {"type": "tool_use", "id": "t2", "name": "Edit", "input": edit}
        ]),
        _record(6, "user", [
            {"type": "tool_result", "tool_use_id": "t2", "content": "The file was updated."}
        ]),
    ]  # fmt: skip
    path = folder / "transcripts" / "claude" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_code_tokens_are_code_not_prose() -> None:
    assert grounded_causes.code_tokens(CAUSE) == {"export_invoice", "cart", "item_count"}
    assert grounded_causes.code_tokens("`make test` fails on `TestPushToOrigin`") == {
        "make",
        "test",
        "testpushtoorigin",
    }
    # a dotted name, a path and a version are code in prose too; plain words are not
    assert grounded_causes.code_tokens("main is on schema 1.1 in docs/schema.md") == {
        "1.1",
        "docs",
        "schema",
    }
    assert grounded_causes.code_tokens(ACCOUNT) == set()
    assert grounded_causes.code_tokens("The health check runs too quickly after a restart") == set()


def test_a_cause_naming_what_failed_and_was_edited_is_grounded(tmp_path: Path) -> None:
    transcript = read_transcript(_session(tmp_path))
    ran = commands_run(transcript)
    at = grounded_causes.record_of(transcript, CAUSE)
    assert at == 3
    g = grounded_causes.grounding(
        CAUSE,
        grounded_causes.evidence(transcript, ran, at),
        grounded_causes.evidence(transcript, ran, at, True),
    )
    assert g["edits"] == ["cart", "item_count"]  # the edit's old and new text
    assert g["fail"] == ["cart", "item_count"]  # the failing run's output
    assert all(grounded_causes.grounded(g, v) for v in grounded_causes.VARIANTS)
    # the account after it names nothing in code: grounded nowhere, though the same edit follows
    account = grounded_causes.record_of(transcript, ACCOUNT)
    assert account == 4
    none = grounded_causes.grounding(
        ACCOUNT,
        grounded_causes.evidence(transcript, ran, account),
        grounded_causes.evidence(transcript, ran, account, True),
    )
    assert not any(grounded_causes.grounded(none, v) for v in grounded_causes.VARIANTS)


def test_a_cause_naming_code_nothing_touched_is_not_grounded(tmp_path: Path) -> None:
    transcript = read_transcript(_session(tmp_path))
    ran = commands_run(transcript)
    other = "The `render_footer` helper drops the company address"
    g = grounded_causes.grounding(
        other,
        grounded_causes.evidence(transcript, ran, 3),
        grounded_causes.evidence(transcript, ran, 3, True),
    )
    assert g["tokens"] == ["render_footer"]
    assert not grounded_causes.grounded(g, "either_wide")


def test_the_bench_reads_a_first_runs_junk_at_its_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "held-apart-x"
    _session(real)
    judged = "judged by the lead after the set's one run (abc1234): planning narration"
    judgements = {
        "measured_at": "abc1234 (the one held-out run, judged after it)",
        "sessions": {SESSION: {"transcripts": [f"claude/{SESSION}.jsonl"], "lessons": []}},
        "notes": [
            {
                "channel": "drain",
                "session": SESSION,
                "title": "This is a well-specified, minimal fix",
                "verdict": "junk",
                "reason": judged,
                "lessons": [],
            }
        ],
    }
    (real / "judgements.json").write_text(json.dumps(judgements))
    monkeypatch.setattr(quality, "REAL", tmp_path / "no-shared-sessions")
    assert grounded_causes.main(["--held-apart", str(real), "--first-runs", "--list"]) == 0
    out = capsys.readouterr().out
    assert "first runs' junk notes: 1, found in an assistant's turn: 1" in out
    assert "....... [junk] held-apart-x/grounded-1 (assistant, r4)" in out
    # the writer writes no cause here; the first run's junk note is dropped
    written, first = [line for line in out.splitlines() if line.startswith("either ")]
    assert written.split()[1:3] == ["0/0", "0/0"]
    assert first.split()[1:3] == ["0/0", "1/0"]
