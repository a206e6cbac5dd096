"""Which sessions are reflect runs themselves (issue 34.4: no false positives on /reflect text).

A reflect run is skipped by the gate and the drain; a session that only talks about /reflect
or the drain is a session like any other.
"""

from __future__ import annotations

import json

import pytest

from reflectgit.notes.transcripts import parse_lines
from reflectgit.workflows.capture.gate import DRAIN_MARKER, is_reflect_run


def _opening(text: str) -> bool:
    record = {
        "type": "user",
        "sessionId": "s",
        "uuid": "u",
        "message": {"role": "user", "content": text},
    }
    return is_reflect_run(parse_lines([json.dumps(record)]))


@pytest.mark.parametrize(
    "text",
    [
        "<command-name>/reflect</command-name>\n<command-message>reflect</command-message>",
        "<command-name>reflect</command-name>\nProcess the transcript at: /home/u/s.jsonl",
        "<command-message>reflect:drain</command-message>",
        f"{DRAIN_MARKER}\nYou are a knowledge-extraction function, not an agent.",
        "/reflect --dry-run",
        "  /reflect:skills",
        "Process the transcript at: /home/u/.claude/projects/x/abc.jsonl",
    ],
)
def test_reflect_runs_are_recognised(text):
    assert _opening(text)


@pytest.mark.parametrize(
    "text",
    [
        "I ran /reflect yesterday and it wrote nothing",
        "Here is the README part:\n/reflect --dry-run shows the queue\nwhy is it empty?",
        "the reflect-git drain builds a prompt from the slice; why is it slow?",
        "/reflections.md is stale, regenerate it",
        "can you explain what 'Process the transcript at:' means in the old tool?",
    ],
)
def test_sessions_that_only_talk_about_reflect_are_not_reflect_runs(text):
    assert not _opening(text)
