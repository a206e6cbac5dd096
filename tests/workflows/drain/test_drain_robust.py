"""The drain against model commands that misbehave: helpers that hold its pipes, floods of
output, answers nested past reason, huge code dumps; and a dry run that writes nothing."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from reflectgit.state import ledger
from reflectgit.state.queue import Queue
from reflectgit.workflows.drain import writer as wr
from reflectgit.workflows.drain.loop import run_drain
from tests.conftest import git, run_cli_proc
from tests.support.drain import (
    Clock,
    calls,
    copy_transcript,
    create_action,
    enqueue,
    make_config,
    snapshot,
    stub_command,
)

VALID = {"actions": [create_action("Use uv pip sync for installs")]}


def _setup(tmp_path: Path, repo: Path, body: str, **env: str):  # type: ignore[no-untyped-def]
    stub = stub_command(tmp_path, body)
    cfg = make_config(repo, REFLECT_DRAIN_CMD=str(stub), **env)
    eid = enqueue(cfg, copy_transcript(tmp_path, "claude/correction-0.jsonl"))
    return cfg, stub, eid


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # a zombie waiting for init to reap it is gone too
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except OSError:
        return True


def _wait_gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return _gone(pid)


def _kill(pid_file: Path) -> None:
    if pid_file.exists():
        pid = int(pid_file.read_text())
        if not _gone(pid):
            os.kill(pid, 9)


# --------------------------------------------------------------------------- the model process


def test_a_helper_that_keeps_stdout_open_cannot_hold_the_drain(tmp_path: Path, repo: Path) -> None:
    """The model answers and exits; a helper it started in its own session (out of reach of
    a process-group kill) keeps stdout open for ten minutes. The drain takes the answer."""
    pid_file = tmp_path / "helper.pid"
    body = f"""
import subprocess
helper = subprocess.Popen(["sleep", "600"], start_new_session=True)
open({str(pid_file)!r}, "w").write(str(helper.pid))
emit({VALID!r})
sys.stdout.flush()
"""
    cfg, _stub, _ = _setup(tmp_path, repo, body, REFLECT_DRAIN_MODEL_TIMEOUT="900")
    try:
        row = run_drain(cfg, clock=Clock()).rows[0]
        assert row["outcome"] == "ok" and len(row["notes"]) == 1
        # Had the drain read until EOF, it would have returned only once the helper was gone.
        assert not _gone(int(pid_file.read_text())), "the drain waited for the helper's pipe"
    finally:
        _kill(pid_file)


def test_at_the_deadline_the_whole_process_group_is_killed(tmp_path: Path, repo: Path) -> None:
    pid_file = tmp_path / "child.pid"
    body = f"""
import subprocess
child = subprocess.Popen(["sleep", "600"])  # same process group, holds stdout too
open({str(pid_file)!r}, "w").write(str(child.pid))
time.sleep(600)
"""
    cfg, _, _eid = _setup(tmp_path, repo, body, REFLECT_DRAIN_MODEL_TIMEOUT="1")
    try:
        row = run_drain(cfg, clock=Clock()).rows[0]
        assert row["outcome"] == "fail_no_output_exit_124", row
        assert _wait_gone(int(pid_file.read_text())), "the model's child outlived the deadline"
        assert Queue(cfg.state_dir).list()[0].counters == {"timeouts": 1}
    finally:
        _kill(pid_file)


def test_model_output_is_read_up_to_a_cap(tmp_path: Path, repo: Path) -> None:
    """A model that floods stdout is stopped at 8 MB: an invalid answer, retried."""
    body = """
chunk = "x" * 65536
while True:
    sys.stdout.write(chunk)
"""
    cfg, _, eid = _setup(tmp_path, repo, body)
    row = run_drain(cfg, clock=Clock()).rows[0]
    assert row["outcome"] == "fail_invalid_output" and row["entries"] == 1
    assert str(wr.MAX_OUTPUT) in row["detail"]
    [entry] = Queue(cfg.state_dir).list()
    assert entry.id == eid and entry.retries == 1 and entry.counters == {"invalid": 1}


def test_the_reader_keeps_at_most_the_cap(tmp_path: Path) -> None:
    script = tmp_path / "flood"
    script.write_text("#!/bin/sh\nexec yes 0123456789abcdef\n")
    script.chmod(0o755)
    run = wr.run_model([str(script)], "", timeout=30, cwd=None, env=os.environ, max_output=1 << 20)
    assert run.oversized and len(run.stdout.encode()) == 1 << 20


def test_a_command_that_cannot_start_is_an_install_fault(tmp_path: Path, repo: Path) -> None:
    script = tmp_path / "not-a-program"
    script.write_bytes(b"\x7fELF garbage")
    script.chmod(0o755)
    cfg = make_config(repo, REFLECT_DRAIN_CMD=str(script))
    enqueue(cfg, copy_transcript(tmp_path, "claude/correction-0.jsonl"))
    report = run_drain(cfg, clock=Clock())
    assert report.status == "aborted"
    assert report.rows[0]["outcome"] == "fail_unknown_command"
    assert Queue(cfg.state_dir).list()[0].retries == 0


# --------------------------------------------------------------------------- hostile answers

DEEP = '{"actions": [' * 10_000 + "]}" * 10_000


@pytest.mark.parametrize("envelope", [True, False], ids=["in-envelope", "raw-stdout"])
def test_an_answer_nested_ten_thousand_deep_is_invalid_with_a_row(
    tmp_path: Path, repo: Path, envelope: bool
) -> None:
    body = f"emit({DEEP!r})" if envelope else f"sys.stdout.write({DEEP!r})"
    cfg, stub, eid = _setup(tmp_path, repo, body)
    other = enqueue(cfg, copy_transcript(tmp_path, "claude/correction-1.jsonl"))
    clock = Clock()
    report = run_drain(cfg, clock=clock, max_entries=1)
    [row] = report.rows
    assert row["outcome"] == "fail_invalid_output" and row["writer_class"] == "malformed"
    assert [r["outcome"] for r in ledger.read_rows(cfg.state_dir)] == ["fail_invalid_output"]
    assert [e.id for e in Queue(cfg.state_dir).list()] == [other, eid], "it went to the back"
    # the retry / poison path ends it: three strikes and it is a dead letter
    Queue(cfg.state_dir).purge(other)
    for _ in range(2):
        clock.now += 100_000
        run_drain(cfg, clock=clock)
    assert [e.dead_reason for e in Queue(cfg.state_dir).failed()] == ["poison_writer_drift"]
    assert calls(stub) == 3


def test_an_entry_that_raises_gets_a_row_and_the_retry_path(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reflectgit.workflows.drain import loop

    def broken(*_a: object, **_k: object) -> object:
        raise RecursionError("maximum recursion depth exceeded")

    cfg, _, eid = _setup(tmp_path, repo, f"emit({VALID!r})")
    monkeypatch.setattr(loop.act, "plan_actions", broken)
    other = enqueue(cfg, copy_transcript(tmp_path, "claude/correction-1.jsonl"))
    report = run_drain(cfg, clock=Clock())
    assert [r["outcome"] for r in report.rows] == ["fail_internal_error"] * 2
    assert [r["entry_id"] for r in ledger.read_rows(cfg.state_dir)] == [eid, other]
    assert all(e.retries == 1 for e in Queue(cfg.state_dir).list())


def _code_dump(size: int) -> str:
    """Ordinary code: braces, quotes, JSON-ish fragments, the word actions in strings."""
    block = (
        'function reducer(state = {}, action) {\n  if (action.type === "actions") {\n'
        '    return { ...state, "actions": [...state.actions, action] };\n  }\n'
        '  const cfg = {"a": 1, "b": {"c": [1, 2, {"d": "}"}]}};\n  return state;\n}\n'
        '/* a stray { and a " quote */\n'
    )
    return block * (size // len(block) + 1)


@pytest.mark.parametrize("fenced", [True, False], ids=["fenced", "bare"])
def test_the_answer_is_found_after_megabytes_of_code_with_bounded_parsing(
    monkeypatch: pytest.MonkeyPatch, fenced: bool
) -> None:
    answer = f"```json\n{json.dumps(VALID)}\n```" if fenced else f"So: {json.dumps(VALID)}"
    text = _code_dump(2_900_000) + "\n" + answer + "\n"
    parsed = []
    real = json.loads

    def counting(s: str, *a: object, **k: object) -> object:
        parsed.append(len(s))
        return real(s, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(wr.json, "loads", counting)
    found = wr.find_actions(text)
    assert found == VALID
    assert len(parsed) <= wr.MAX_ATTEMPTS, "every brace was a parse attempt"
    parsed.clear()
    assert wr.classify(_code_dump(2_900_000)) == (wr.MALFORMED, None)
    assert len(parsed) <= wr.MAX_ATTEMPTS


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ('x = "{" ; {"actions": []}', {"actions": []}),
        ('{"note": "a } inside", "actions": [1]}', {"note": "a } inside", "actions": [1]}),
        ('{"k": "\\\\"} {"actions": [2]}', {"actions": [2]}),
        ('{"wrap": {"actions": [3]}, "x": }', {"actions": [3]}),
        ('{"actions": "not a list"}', None),
        ("no braces at all", None),
    ],
)
def test_find_actions_cases(text: str, expect: object) -> None:
    assert wr.find_actions(text) == expect


# --------------------------------------------------------------------------- dry run


def test_a_dry_run_writes_nothing_but_its_log(tmp_path: Path, repo: Path) -> None:
    git("commit", "-q", "--allow-empty", "-m", "init", cwd=repo)
    stub = stub_command(tmp_path, f"emit({VALID!r})")
    cfg = make_config(repo, REFLECT_DRAIN_CMD=str(stub))
    enqueue(cfg, copy_transcript(tmp_path, "claude/correction-0.jsonl"))
    enqueue(cfg, copy_transcript(tmp_path, "claude/correction-1.jsonl"))
    torn = cfg.state_dir / "queue" / "0123456789abcdef.json"
    torn.write_bytes(b'{"format": 1, "sha256": "torn')
    before = snapshot(cfg.state_dir)
    head = git("rev-parse", "HEAD", cwd=repo)
    for writer in ("extract", "heuristic"):
        proc = run_cli_proc(
            "--kb", str(repo), "--json", "drain", "--dry-run", "--writer", writer,
            env={"REFLECT_DRAIN_CMD": str(stub), "REFLECT_DRAIN_DEBOUNCE_SEC": "0"},
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        assert doc["dry_run"] is True and len(doc["rows"]) == 2
    after = snapshot(cfg.state_dir)
    after.pop("drain.log")
    assert after == before, "the dry run wrote (or moved) something besides its log"
    assert not (cfg.state_dir / "drain.lock").exists()
    assert torn.exists() and Queue(cfg.state_dir, read_only=True).corrupt() == []
    assert calls(stub) == 0
    assert git("rev-parse", "HEAD", cwd=repo) == head
    # a real run then moves the torn file aside, as before
    run_drain(cfg, clock=Clock())
    assert not torn.exists() and Queue(cfg.state_dir).corrupt()
