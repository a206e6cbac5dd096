"""What the gate keeps from a model writer (issue 34): a session with no signal where a command
failed or a file was edited is given to a model writer whole (the enqueue gate queues it, the
cascade opens it, the stub model is called); one where nothing failed and nothing changed (a
greeting, a question answered by reading, an empty file) is still ``no-signal`` for every
writer; the heuristic writer, which reads nothing but signals, skips them all. Real sessions of
the tune sets and Claude Code transcripts written to tmp_path, drained by the real drain."""

from __future__ import annotations

from pathlib import Path

import pytest

from reflectgit.state.queue import Queue
from reflectgit.workflows.capture.commits import Capture
from reflectgit.workflows.capture.gate import NO_SIGNAL, NO_SIGNAL_WORKED, evaluate
from reflectgit.workflows.drain import cascade
from reflectgit.workflows.drain.loop import run_drain
from tests.conftest import git
from tests.support.dialogue import session_file, tool_call
from tests.support.drain import (
    Clock,
    calls,
    copy_quality_transcript,
    create_action,
    enqueue,
    make_config,
    prompt_of,
    stub_command,
)

# No signal: the person asks why the release pipeline fails, the assistant reads, edits the
# workflow and a command fails on the way (a judged lesson of held-apart-3 is in it).
WORKED = "held-apart-3/transcripts/claude/omp__32e7c00e-d1f8-463c-8090-dacd6ba51385.jsonl.gz"
SAID = "The release pipeline fails because we did a recent change"

GREETING = [("user", "hi"), ("assistant", "Hello! How can I help you today?")]
LOOKED = [
    ("user", "What files are in this folder?"),
    *tool_call("c0", "Bash", {"command": "ls"}, "README.md\nsrc\ntests"),
    ("assistant", "A README, and the src and tests folders."),
    ("user", "Thanks."),
]
FAILED = [
    ("user", "What files are in this folder?"),
    *tool_call("c0", "Bash", {"command": "ls srcs"}, "ls: cannot access 'srcs'", error=True),
    ("assistant", "There is no srcs folder here."),
]
EDITED = [
    ("user", "Bump the version to 1.2."),
    *tool_call("e0", "Edit", {"file_path": "/p/VERSION", "old_string": "1.1"}, "Updated"),
    ("assistant", "Done, the version is 1.2."),
]


def _drain(tmp_path: Path, repo: Path, path: Path, **env: str) -> tuple[dict, Path]:
    stub = stub_command(tmp_path, f"emit({{'actions': [{create_action('A lesson')!r}]}})")
    cfg = make_config(repo, REFLECT_DRAIN_CMD=str(stub), **env)
    enqueue(cfg, path)
    [row] = run_drain(cfg, clock=Clock()).rows
    assert Queue(cfg.state_dir).list() == [], "handled either way, never left queued"
    return row, stub


def test_a_session_that_worked_is_read_whole_by_a_model_skipped_by_the_heuristic(
    tmp_path: Path,
) -> None:
    path = str(copy_quality_transcript(tmp_path, WORKED))
    plain = cascade.prepare(path)
    assert plain.skip == NO_SIGNAL and not plain.text and not plain.signals
    opened = cascade.prepare(path, model=True, max_input_chars=60_000)
    whole = cascade.prepare(path, cascade=False, max_input_chars=60_000)
    assert opened.skip is None and SAID in opened.text and opened.text == whole.text
    assert opened.detail == "read whole, no signal: a command failed or a file was edited"


@pytest.mark.parametrize("turns", [FAILED, EDITED], ids=["failed", "edited"])
def test_a_failure_or_an_edit_opens_the_gate_for_a_model_only(tmp_path: Path, turns: list) -> None:
    path = session_file(tmp_path, turns)
    assert cascade.prepare(str(path), model=True).skip is None
    assert cascade.prepare(str(path)).skip == NO_SIGNAL
    assert (evaluate(path, model=True).enqueue, evaluate(path, model=True).reason) == (
        True,
        NO_SIGNAL_WORKED,
    )
    assert (evaluate(path).enqueue, evaluate(path).reason) == (False, NO_SIGNAL)


@pytest.mark.parametrize("turns", [GREETING, LOOKED, []], ids=["greeting", "looked", "empty"])
def test_a_session_with_truly_nothing_stays_no_signal_for_every_writer(
    tmp_path: Path, turns: list
) -> None:
    path = session_file(tmp_path, turns)
    if not turns:
        path.write_text("")
    for model in (False, True):
        verdict = evaluate(path, model=model)
        assert (verdict.enqueue, verdict.reason) == (False, NO_SIGNAL)
        assert cascade.prepare(str(path), model=model).skip in {NO_SIGNAL, "empty"}


def test_the_model_writer_is_called_for_a_session_the_gate_used_to_skip(
    tmp_path: Path, repo: Path
) -> None:
    row, stub = _drain(tmp_path, repo, copy_quality_transcript(tmp_path, WORKED))
    assert row["outcome"] == "ok" and len(row["notes"]) == 1
    assert row["detail"] == "read whole, no signal: a command failed or a file was edited"
    assert calls(stub) == 1 and SAID in prompt_of(stub)


@pytest.mark.parametrize("turns", [GREETING, LOOKED], ids=["greeting", "looked"])
def test_the_model_writer_is_not_called_for_a_session_with_truly_nothing(
    tmp_path: Path, repo: Path, turns: list
) -> None:
    row, stub = _drain(tmp_path, repo, session_file(tmp_path, turns))
    assert row["outcome"] == "skip_no-signal" and row["notes"] == []
    assert calls(stub) == 0


def test_the_heuristic_writer_keeps_its_gate(tmp_path: Path, repo: Path) -> None:
    path = copy_quality_transcript(tmp_path, WORKED)
    row, stub = _drain(tmp_path, repo, path, REFLECT_DRAIN_WRITER="heuristic")
    assert row["outcome"] == "skip_no-signal" and row["notes"] == []
    assert calls(stub) == 0
    assert git("log", "--all", "--oneline", cwd=repo, check=False) == "", "nothing written"


@pytest.mark.parametrize(
    ("writer", "command", "queued"),
    [("heuristic", True, False), ("extract", False, True), ("", True, True), ("", False, False)],
)
def test_the_enqueue_gate_opens_for_the_writer_the_drain_would_use(
    tmp_path: Path, repo: Path, writer: str, command: bool, queued: bool
) -> None:
    """The hooks' enqueue asks the gate for the drain's writer, resolved as the drain resolves
    it: a worked session with no signal is queued for a model (set, or auto with a model
    command), never for the heuristic writer (set, or auto with no model command)."""
    stub = stub_command(tmp_path, "emit({'actions': []})")
    env = {"REFLECT_DRAIN_WRITER": writer, "PATH": str(tmp_path / "empty-path")}
    if command:
        env["REFLECT_DRAIN_CMD"] = str(stub)
    cfg = make_config(repo, **env)
    done = Capture(cfg).enqueue(str(session_file(tmp_path, FAILED)), "stop", session="s-1")
    reason = NO_SIGNAL_WORKED if queued else NO_SIGNAL
    assert (done.verdict.enqueue, done.verdict.reason) == (queued, reason)
    assert len(Queue(cfg.state_dir).list()) == int(queued)
    looked = session_file(tmp_path, LOOKED, "b.jsonl")
    nothing = Capture(cfg).enqueue(str(looked), "stop", session="s-2")
    assert not nothing.verdict.enqueue and len(Queue(cfg.state_dir).list()) == int(queued)
