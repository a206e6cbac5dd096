"""The session's event record reaches the drain's writer as context: the extract prompt lists
the events under its own marker, the heuristic writer's input carries them, and an event
alone is never a lesson (a session with events but no signal is not written)."""

from __future__ import annotations

import json
from pathlib import Path

from reflectgit.state import sessionrecord
from reflectgit.state.queue import Queue
from reflectgit.workflows.drain import cascade, heuristic
from tests.conftest import run_cli_proc
from tests.support.drain import prompt_of, stub_command

SESSION = "0b7e5c1a-events"
FIXED = {
    "ts": 1_800_000_000.0,
    "kind": "tests-fixed",
    "key": "tests-fixed:pytest:1",
    "summary": "pytest: 3 failing tests green again after 1 failing run (note lrn-test-fix-a)",
}
DONE = {
    "ts": 1_800_000_060.0,
    "kind": "todo-done",
    "key": "todo-done:a",
    "summary": "Done: Wire it",
}


def _line(role: str, text: str, n: int) -> str:
    return json.dumps(
        {
            "type": role,
            "message": {"role": role, "content": text},
            "sessionId": SESSION,
            "cwd": "/home/dev/src/billing",
            "uuid": f"u{n}",
            "timestamp": f"2026-11-18T06:00:{n:02d}.000Z",
        }
    )


def _transcript(tmp: Path, *lines: tuple[str, str]) -> Path:
    path = tmp / f"{SESSION}.jsonl"
    path.write_text("\n".join(_line(r, t, n) for n, (r, t) in enumerate(lines)) + "\n")
    return path


LESSON = (
    ("user", "Round the invoice totals."),
    ("assistant", "I used round(x, 2)."),
    ("user", "No, never use round() for money. Always use Decimal.quantize with ROUND_HALF_UP."),
)


def test_the_prompt_lists_the_session_events_as_context_not_lessons(tmp_path: Path) -> None:
    prepared = cascade.prepare(str(_transcript(tmp_path, *LESSON)))
    assert not prepared.skip
    assert cascade.EVENTS_MARKER not in cascade.build_prompt(prepared)  # no record: no block
    prepared.events = [FIXED, DONE]
    prompt = cascade.build_prompt(prepared)
    block = prompt.split(cascade.EVENTS_MARKER, 1)[1]
    assert "Do not CREATE a learning for an event alone" in block
    assert "- 08:00 tests-fixed: pytest: 3 failing tests green again" in block
    assert "- 08:01 todo-done: Done: Wire it" in block


def test_the_drain_hands_the_record_to_the_extract_writer(tmp_path: Path) -> None:
    kb_path = tmp_path / "kb"
    assert run_cli_proc("--kb", str(kb_path), "init").returncode == 0
    state = kb_path / ".git" / "reflect-git"
    for event in (FIXED, DONE):
        sessionrecord.append(state, SESSION, event)
    stub = stub_command(tmp_path, "emit({'actions': []})")
    Queue(state).add(str(_transcript(tmp_path, *LESSON)), "stop", SESSION)
    done = run_cli_proc(
        "--kb", str(kb_path), "drain",
        env={"REFLECT_DRAIN_CMD": str(stub), "REFLECT_DRAIN_DEBOUNCE_SEC": "0"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    prompt = prompt_of(stub)
    assert cascade.EVENTS_MARKER in prompt
    assert "todo-done: Done: Wire it" in prompt.split(cascade.EVENTS_MARKER, 1)[1]


def test_the_heuristic_writer_gets_the_events_and_writes_no_note_for_them(tmp_path: Path) -> None:
    chatter = (("user", "Wire the retry please."), ("assistant", "Done, the retry is wired."))
    prepared = cascade.prepare(str(_transcript(tmp_path, *chatter)))
    assert prepared.skip == "no-signal"  # events alone never make a session worth writing
    prepared = cascade.prepare(str(_transcript(tmp_path, *LESSON)))
    prepared.events = [FIXED, DONE]
    titles = [a["title"] for a in heuristic.write(prepared)["actions"]]
    assert titles and not any("Done:" in t or "green again" in t for t in titles)
