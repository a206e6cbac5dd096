"""Sessions across turns and commits: Stop fires every turn, so a drained session that grew
is queued again and drained for its new turns only; commits are linked to the agent session
through the variables the harnesses really export; a revert demotes that session's notes,
drain notes included; a clean merge is recorded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reflectgit.state import ledger
from reflectgit.state.queue import Queue
from reflectgit.workflows.drain.loop import run_drain
from tests.conftest import DATA, git
from tests.support.capture import kb_fixture, run_hook, state_dir  # noqa: F401  (kb fixture)
from tests.support.drain import Clock, calls, create_action, make_config, prompt_of, stub_command

SESSION = "02c8261b-740c-1a65-89be-4b4bd9ee50e2"
SRC = DATA / "transcripts"


def _line(role: str, text: str) -> str:
    return json.dumps(
        {"type": role, "message": {"role": role, "content": text}, "sessionId": SESSION}
    )


def _stop(transcript: Path) -> str:
    return json.dumps(
        {
            "session_id": SESSION,
            "transcript_path": str(transcript),
            "cwd": "/home/dev/src/pip-app",
            "hook_event_name": "Stop",
            "stop_hook_active": False,
        }
    )


def _hook_log(kb: Path) -> str:
    path = state_dir(kb) / "logs" / "hooks.log"
    return path.read_text() if path.exists() else ""


def test_stop_every_turn_requeues_a_drained_session_that_grew(kb: Path, tmp_path: Path) -> None:
    transcript = tmp_path / f"{SESSION}.jsonl"
    transcript.write_text((SRC / "claude" / "correction-0.jsonl").read_text())
    stub = stub_command(tmp_path, "emit({'actions': []})")
    cfg = make_config(kb, REFLECT_DRAIN_CMD=str(stub))
    queue = Queue(cfg.state_dir)

    assert run_hook("Stop", _stop(transcript)).returncode == 0
    assert len(queue.list()) == 1
    [row] = run_drain(cfg, clock=Clock()).rows
    assert row["outcome"] == "ok" and row["transcript_bytes"] == transcript.stat().st_size
    first_prompt = prompt_of(stub)
    assert "uv pip sync requirements.lock" in first_prompt

    # the next turn's Stop with nothing new: already drained, not queued
    assert run_hook("Stop", _stop(transcript)).returncode == 0
    assert queue.list() == []
    assert "dup-already-processed" in _hook_log(kb)

    # the session goes on: an end-of-session correction
    with transcript.open("a") as fh:
        fh.write(_line("assistant", "Done, I ran the migration by hand on the staging box.") + "\n")
        fh.write(_line("user", "Never run migrations by hand; always use `make migrate`.") + "\n")
    assert run_hook("Stop", _stop(transcript)).returncode == 0
    [entry] = queue.list()
    assert entry.retries == 0
    [again] = run_drain(cfg, clock=Clock()).rows
    assert again["outcome"] == "ok" and calls(stub) == 2
    prompt = prompt_of(stub)
    assert "always use `make migrate`" in prompt
    assert "Always use `uv pip sync" not in prompt, "the old turns were sliced again"

    # and once more without growth: no model call at all
    assert run_hook("Stop", _stop(transcript)).returncode == 0
    assert queue.list() == []


def test_a_grown_transcript_with_no_new_signal_is_skipped_for_nothing(
    kb: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / f"{SESSION}.jsonl"
    transcript.write_text((SRC / "claude" / "correction-0.jsonl").read_text())
    stub = stub_command(tmp_path, "emit({'actions': []})")
    cfg = make_config(kb, REFLECT_DRAIN_CMD=str(stub))
    run_hook("Stop", _stop(transcript))
    run_drain(cfg, clock=Clock())
    with transcript.open("a") as fh:
        fh.write(_line("assistant", "Ran the linter on the changed files.") + "\n")
    run_hook("Stop", _stop(transcript))
    [row] = run_drain(cfg, clock=Clock()).rows
    assert row["outcome"] == "skip_nothing-new" and row["entries"] == 0
    assert calls(stub) == 1


def test_a_transcript_replaced_by_a_shorter_one_is_read_from_the_start(
    kb: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / f"{SESSION}.jsonl"
    transcript.write_text((SRC / "claude" / "correction-0.jsonl").read_text())
    stub = stub_command(tmp_path, "emit({'actions': []})")
    cfg = make_config(kb, REFLECT_DRAIN_CMD=str(stub))
    run_hook("Stop", _stop(transcript))
    run_drain(cfg, clock=Clock())
    transcript.write_text(_line("user", "Never commit the .env file; always use the vault.") + "\n")
    run_hook("Stop", _stop(transcript))
    [row] = run_drain(cfg, clock=Clock()).rows
    assert row["outcome"] == "ok" and "always use the vault" in prompt_of(stub)


def test_old_ledger_rows_without_a_size_count_until_the_transcript_changes(
    tmp_path: Path,
) -> None:
    from reflectgit.workflows.capture.commits import drained_as_is

    state = tmp_path / "state"
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("x\n")
    os.utime(transcript, (1_700_000_000, 1_700_000_000))
    ledger.append_row(
        state, {"ts": "2026-11-18T06:00:00Z", "outcome": "ok", "transcript": str(transcript)}
    )
    assert drained_as_is(state, str(transcript))
    transcript.write_text("x\ny\n")  # modified now, after the row
    assert not drained_as_is(state, str(transcript))
    assert not drained_as_is(state, str(tmp_path / "never-drained.jsonl"))


# --------------------------------------------------------------------------- commits

SYNC = {"REFLECT_GIT_HOOK_SYNC": "1"}
HARNESS_VARS = ("CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID", "CODEX_THREAD_ID")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reflectgit", *args], capture_output=True, text=True, check=False
    )


def _commit(repo: Path, message: str, env: dict[str, str], name: str = "f.txt") -> str:
    full = {k: v for k, v in os.environ.items() if k not in HARNESS_VARS}
    full.update(SYNC, **env)
    (repo / name).write_text(message + "\n")
    subprocess.run(["git", "add", name], cwd=repo, check=True, env=full)
    subprocess.run(["git", "commit", "-q", "-m", message], cwd=repo, check=True, env=full)
    return git("rev-parse", "HEAD", cwd=repo).strip()


def _records(kb: Path) -> list[dict]:
    path = state_dir(kb) / "commits.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def code(tmp_path: Path, kb: Path) -> Path:
    path = tmp_path / "code"
    git("init", "-q", "-b", "main", str(path), cwd=tmp_path)
    out = _cli("hooks", "install", str(path))
    assert out.returncode == 0, out.stderr
    return path


@pytest.mark.parametrize(
    ("var", "value"),
    [
        ("CLAUDE_CODE_SESSION_ID", "5f1c3f0e-4b7a-4c55-9d0e-2f9a1b6c7d8e"),  # Claude Code
        ("CODEX_THREAD_ID", "019d1afb-b2c7-72d3-b240-f3ee9d31b2c9"),  # Codex
    ],
)
def test_commits_are_linked_to_the_session_the_harness_exports(
    kb: Path, code: Path, var: str, value: str
) -> None:
    sha = _commit(code, "work of an agent", {var: value})
    [row] = _records(kb)
    assert row["sha"] == sha and row["session"] == value


def test_a_commit_outside_any_agent_has_no_session(kb: Path, code: Path) -> None:
    _commit(code, "by hand", {})
    assert [r["session"] for r in _records(kb)] == [None]


def _drain_note(kb: Path, tmp_path: Path, session: str, title: str, source: str) -> str:
    """A note the drain wrote from a transcript of ``session`` (real drain, stub model)."""
    stub = stub_command(tmp_path, f"emit({{'actions': [{create_action(title)!r}]}})", session)
    cfg = make_config(kb, REFLECT_DRAIN_CMD=str(stub))
    transcript = tmp_path / f"{session}.jsonl"
    transcript.write_text((SRC / "claude" / source).read_text())
    Queue(cfg.state_dir).add(str(transcript), "stop", session)
    [row] = run_drain(cfg, clock=Clock()).rows
    assert len(row["notes"]) == 1, row
    return str(row["notes"][0])


def _confidence(kb: Path, nid: str) -> str:
    text = git("show", f"main:documents/{nid}.md", cwd=kb)
    return next(x.split(": ", 1)[1] for x in text.splitlines() if x.startswith("confidence:"))


def test_a_revert_demotes_every_note_of_the_session_drain_notes_included(
    kb: Path, code: Path, tmp_path: Path
) -> None:
    session = "5f1c3f0e-4b7a-4c55-9d0e-2f9a1b6c7d8e"
    ours = _drain_note(
        kb, tmp_path, session, "Prefill connection pools at startup", "correction-1.jsonl"
    )
    theirs = _drain_note(
        kb, tmp_path, "other-session-0001", "Pin the base image digest", "correction-2.jsonl"
    )
    assert _confidence(kb, ours) == _confidence(kb, theirs) == "high"
    bad = _commit(code, "risky change", {"CLAUDE_CODE_SESSION_ID": session})
    env = {k: v for k, v in os.environ.items() if k not in HARNESS_VARS}
    subprocess.run(
        ["git", "revert", "--no-edit", bad],
        cwd=code,
        env={**env, **SYNC},
        check=True,
        capture_output=True,
    )
    assert _records(kb)[-1]["reverts"] == bad
    assert _confidence(kb, ours) == "medium", "the drain note of the reverted session"
    assert _confidence(kb, theirs) == "high"
    message = git("log", "-1", "--format=%B", "main", cwd=kb)
    assert "Reflect-Op: demote" in message and f"Reflect-Session: {session}" in message
    assert git("status", "--porcelain", cwd=kb) == ""


def test_a_note_the_session_only_confirmed_is_not_demoted(
    kb: Path, code: Path, tmp_path: Path
) -> None:
    from reflectgit.workflows.capture.commits import _names_session

    made = "---\nid: a\nsource_episodes: ['drain:s-made-it']\n---\nbody\n"
    confirmed = (
        "---\nid: b\nsource_episodes: ['drain:s-made-it']\n"
        "provenance: {source_memory_ids: ['drain:s-confirmed']}\n---\nbody\n"
    )
    codex = "---\nid: c\nsource_episodes: ['drain:rollout-2026-11-18T06-00-00-019d1afb']\n---\n"
    assert _names_session(made.encode(), "s-made-it")
    assert not _names_session(confirmed.encode(), "s-confirmed")
    assert _names_session(codex.encode(), "019d1afb")
    assert not _names_session(codex.encode(), "1afb")


def test_a_clean_merge_is_recorded_and_a_fast_forward_is_not(kb: Path, code: Path) -> None:
    # the `code` fixture ran `hooks install`: it wrote the post-merge shim beside post-commit
    again = subprocess.run(
        [sys.executable, "-m", "reflectgit", "hooks", "install", str(code), "--json"],
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0, again.stderr
    post_merge = json.loads(again.stdout)["post_merge"]
    assert post_merge["action"] == "unchanged"
    assert "reflect-git post-merge" in Path(post_merge["hook"]).read_text()
    session = {"CLAUDE_CODE_SESSION_ID": "merge-session-01"}
    _commit(code, "base", session)
    git("switch", "-q", "-c", "side", cwd=code)
    _commit(code, "side work", session, name="side.txt")
    git("switch", "-q", "main", cwd=code)
    _commit(code, "main work", session, name="main.txt")
    env = {k: v for k, v in os.environ.items() if k not in HARNESS_VARS}
    merged = subprocess.run(
        ["git", "merge", "-q", "--no-edit", "side"],
        cwd=code,
        env={**env, **SYNC, **session},
        capture_output=True,
        text=True,
    )
    assert merged.returncode == 0, merged.stderr
    merge = _records(kb)[-1]
    assert merge["sha"] == git("rev-parse", "HEAD", cwd=code).strip()
    assert len(merge["parents"]) == 2 and merge["merge_conflict_resolved"] is False
    assert merge["session"] == "merge-session-01"
    assert merge["subject"].startswith("Merge branch 'side'")
    # a fast-forward brings commits made elsewhere: nothing is recorded for it
    count = len(_records(kb))
    git("switch", "-q", "-c", "ahead", cwd=code)
    _commit(code, "ahead work", session, name="ahead.txt")
    git("switch", "-q", "main", cwd=code)
    _commit_count_before = len(_records(kb))
    subprocess.run(
        ["git", "merge", "-q", "--ff-only", "ahead"],
        cwd=code,
        env={**env, **SYNC, **session},
        check=True,
        capture_output=True,
    )
    assert len(_records(kb)) == _commit_count_before == count + 1


def test_a_retried_dead_letter_is_read_from_the_start(kb: Path, tmp_path: Path) -> None:
    """A quarantined entry read nothing: after `queue retry` its signals are all there."""
    transcript = tmp_path / f"{SESSION}.jsonl"
    transcript.write_text((SRC / "claude" / "correction-0.jsonl").read_text())
    stub = stub_command(tmp_path, "emit('Prompt is too long', is_error=True)")
    cfg = make_config(kb, REFLECT_DRAIN_CMD=str(stub))
    run_hook("Stop", _stop(transcript))
    [row] = run_drain(cfg, clock=Clock()).rows
    assert row["outcome"] == "quarantine_oversized"
    assert run_hook("Stop", _stop(transcript)).returncode == 0
    assert Queue(cfg.state_dir).list() == [], "a dead letter is not re-queued until it grows"
    [dead] = Queue(cfg.state_dir).failed()
    Queue(cfg.state_dir).retry(dead.id)
    heuristic = make_config(kb, REFLECT_DRAIN_WRITER="heuristic")
    [again] = run_drain(heuristic, clock=Clock()).rows
    assert again["outcome"] == "ok" and len(again["notes"]) == 1
