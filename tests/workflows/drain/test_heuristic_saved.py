"""Guidance GitHub Copilot CLI saves to its memory at the person's word (issue 34, recall).

Copilot CLI keeps what should outlive the session through its ``store_memory`` tool
(``subject``, ``fact``, ``citations``, ``reason``); a fact whose citation is the person's input
("User input: ...") is the person's guidance, said by the assistant as a rule, as Claude Code's
``type: feedback`` memory file is. The shape is from real sessions: held-apart-8 (starcar, "all
harness/hooks/tooling must work under both runtimes") and held-apart-20 (wasa-cli, "remove all
co-author by copilot shit, got it?" saved as "Do not include Co-authored-by: Copilot trailers in
git commit messages."). The negatives: a fact cited from the code, and a fact that states no
rule ("the shop is no longer credit constrained", held-apart-8's own)."""

from __future__ import annotations

import json
from pathlib import Path

from reflectgit.notes.memoryfiles import fact_from_person
from reflectgit.notes.signals import SAVED, scan
from reflectgit.notes.transcripts import parse_lines
from tests.support.drain import drained_notes

SAID = "remove all co-author by copilot shit, got it?"
RULE = "Do not include Co-authored-by: Copilot trailers in git commit messages."


def _events(said: str, fact: str, citations: str) -> list[str]:
    """A Copilot CLI events file, as held-apart-20's first turns: the person's words, the
    assistant's ``store_memory`` call and its result, its reply, then the task."""
    saved = {"subject": "git commits", "fact": fact, "citations": citations, "scope": "user"}
    events = [
        {"type": "session.start", "data": {"sessionId": "c-1", "producer": "copilot-agent"}},
        {"type": "user.message", "data": {"content": said}},
        {
            "type": "assistant.message",
            "data": {
                "content": "",
                "toolRequests": [{"toolCallId": "t1", "name": "store_memory", "arguments": saved}],
            },
        },
        {
            "type": "tool.execution_complete",
            "data": {
                "toolCallId": "t1",
                "success": True,
                "result": {"content": "Memory stored successfully."},
            },
        },
        {"type": "assistant.message", "data": {"content": "Got it! No more such trailers."}},
        {"type": "user.message", "data": {"content": "implement issue 138 of the tracker"}},
        {"type": "assistant.message", "data": {"content": "Done: DeleteBranch is idempotent."}},
    ]
    return [json.dumps(e) for e in events]


def drained(tmp_path: Path, repo: Path, lines: list[str]) -> dict:
    """The notes the real drain writes into ``repo`` from the Copilot events ``lines``."""
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return drained_notes(repo, path)


def test_a_fact_saved_citing_the_person_is_their_rule(tmp_path, repo):
    notes = drained(tmp_path, repo, _events(SAID, RULE, f'User input: "{SAID}"'))
    front = notes[RULE.rstrip(".")]
    assert front["confidence"] == "medium"
    assert front["rule"] == RULE
    assert SAID in front["problem"]


def test_the_gate_reads_the_saved_fact_where_the_words_hold_no_signal():
    transcript = parse_lines(_events(SAID, RULE, f'User input: "{SAID}"'))
    found = [s for s in scan(transcript) if s.kind == SAVED]
    assert [s.text for s in found] == [RULE]
    cited_code = parse_lines(_events(SAID, RULE, "internal/record/checkpoint.go:42"))
    assert not [s for s in scan(cited_code) if s.kind == SAVED]


def test_a_fact_cited_from_the_code_is_the_assistants_own(tmp_path, repo):
    notes = drained(tmp_path, repo, _events(SAID, RULE, "internal/record/checkpoint.go:42"))
    assert RULE.rstrip(".") not in notes


def test_a_saved_fact_that_states_no_rule_is_no_note(tmp_path, repo):
    said = "We are no longer credit constrained."
    fact = "As of 2026-07-24 the shop is no longer credit constrained (owner statement)."
    notes = drained(tmp_path, repo, _events(said, fact, f'User input: "{said}"'))
    assert not [t for t in notes if "credit" in t]


def test_only_copilots_memory_tool_with_a_citation_of_the_person_counts():
    args = {"fact": RULE, "citations": f'User input: "{SAID}"'}
    assert fact_from_person("store_memory", args) == RULE
    assert not fact_from_person("report_intent", args)
    assert not fact_from_person("store_memory", {"fact": RULE, "citations": "README.md:3"})
    assert not fact_from_person("store_memory", "not a mapping")
