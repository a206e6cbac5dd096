from __future__ import annotations

import json

import pytest

from reflectgit.workflows.capture.gate import (
    DUP_PROCESSED,
    DUP_QUEUED,
    FAIL_OPEN,
    HAS_SIGNAL,
    NO_SIGNAL,
    REFLECT_ON_REFLECT,
    evaluate,
)
from tests.conftest import DATA

MANIFEST = json.loads((DATA / "transcripts" / "MANIFEST.json").read_text())
EXPECT = {
    "signal": (True, HAS_SIGNAL),
    "skip_no-signal": (False, NO_SIGNAL),
    "skip_reflect-on-reflect": (False, REFLECT_ON_REFLECT),
}


@pytest.mark.parametrize("entry", MANIFEST, ids=lambda e: e["path"])
def test_manifest_expectations_hold(entry):
    verdict = evaluate(DATA / entry["path"])
    if entry["expect"] in EXPECT:
        assert (verdict.enqueue, verdict.reason) == EXPECT[entry["expect"]]
    else:  # broken: a clear verdict either way, never an exception
        assert verdict.reason in {FAIL_OPEN, NO_SIGNAL, HAS_SIGNAL}
        if verdict.reason == FAIL_OPEN:
            assert verdict.enqueue and verdict.detail


def test_already_queued_and_processed_are_skipped():
    path = DATA / "transcripts" / "claude" / "correction-0.jsonl"
    assert evaluate(path, is_queued=lambda p: p == str(path)).reason == DUP_QUEUED
    assert evaluate(path, is_processed=lambda p: True).reason == DUP_PROCESSED


def test_gate_fails_open_on_read_errors(tmp_path):
    def broken(_: str) -> bool:
        raise OSError("queue unreadable")

    path = DATA / "transcripts" / "claude" / "correction-0.jsonl"
    assert evaluate(path, is_queued=broken, is_processed=broken).enqueue
    verdict = evaluate(tmp_path / "missing.jsonl")
    assert verdict.enqueue and verdict.reason == FAIL_OPEN
    assert evaluate(DATA / "transcripts" / "broken" / "binary.jsonl").enqueue


def test_empty_transcript_is_no_signal():
    verdict = evaluate(DATA / "transcripts" / "broken" / "empty.jsonl")
    assert (verdict.enqueue, verdict.reason) == (False, NO_SIGNAL)
