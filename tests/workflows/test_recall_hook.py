"""The SessionStart hook's kept answer (``workflows/recall_hook``): served only while everything
it was computed from holds, computed again when any of it changes, never stale.

Each test keeps an answer with a real hook process, then marks the kept text: a run that prints
the mark was served the kept answer, a run that does not computed it again. Real KBs, real git,
real hook processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reflectgit.state.ranking import counters
from reflectgit.workflows.recall import recall
from reflectgit.workflows.recall_hook import ANSWERS
from tests.conftest import git, run_cli_proc
from tests.support.coderepo import CodeRepo
from tests.support.search import committed_kb, note_text

MARK = "KEPT-ANSWER-SERVED"
HOOK_TIMEOUT = 60  # a liveness bound, far above what the hook takes


def settle(repo: Path) -> None:
    """Age the files HEAD is read from, as if the last commit were a minute old (within two
    seconds of a move the stamp cannot vouch, and nothing is kept)."""
    past = time.time() - 60
    git_dir = repo / ".git"
    for path in [git_dir / "HEAD", git_dir / "packed-refs", *(git_dir / "refs").rglob("*")]:
        if path.is_file():
            os.utime(path, (past, past))


def commit(repo: Path, files: dict[str, bytes], message: str = "more") -> None:
    for name, data in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_bytes(data)
    git("add", "-A", cwd=repo)
    git("commit", "-qm", message, cwd=repo)
    settle(repo)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "harbour"
    git("init", "-q", "-b", "main", str(root), cwd=tmp_path)
    commit(root, {"README.md": b"A project.\n"}, "start")
    return root


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    notes = {
        f"documents/n{i}.md": note_text(f"n{i}", f"Pool note {i}", "Prefill the pools.")
        for i in range(6)
    }
    notes["documents/z-zanzibar.md"] = note_text("z-zanzibar", "Zanzibar ferry timetable")
    repo = committed_kb(tmp_path, notes)
    settle(repo)
    return repo


def hook(project: Path, kb: Path, state: Path, **env: str) -> subprocess.CompletedProcess[str]:
    payload = {"session_id": "s1", "hook_event_name": "SessionStart", "cwd": str(project)}
    proc = subprocess.run(
        [sys.executable, "-m", "reflectgit.hooks.sessionstart", "--kb", str(kb)],
        cwd=project,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={**os.environ, "REFLECT_STATE_DIR": str(state), **env},
        timeout=HOOK_TIMEOUT,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return proc


def context(proc: subprocess.CompletedProcess[str]) -> str:
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def kept(state: Path) -> dict:
    return json.loads((state / ANSWERS).read_text())


def mark(state: Path, **fields: object) -> None:
    """Mark the kept answer (and set ``fields`` of it): printing the mark means it was served."""
    answers = kept(state)
    (entry,) = answers.values()
    entry["text"] = entry["text"].replace("reflect-git:", MARK, 1)
    entry.update(fields)
    (state / ANSWERS).write_text(json.dumps(answers))


def test_the_kept_answer_is_the_computed_one_and_counts_as_a_recall(project, kb, tmp_path):
    state = tmp_path / "state"
    first = hook(project, kb, state)
    assert "Pool note 0" in context(first)
    assert len(kept(state)) == 1
    served = hook(project, kb, state)
    assert served.stdout == first.stdout
    (state / ANSWERS).unlink()
    assert hook(project, kb, state).stdout == first.stdout  # computed again: the same bytes
    assert counters(state, "n0").recall_count == 3  # a served answer is counted too
    mark(state)
    assert context(hook(project, kb, state)).startswith(MARK)  # nothing changed: served


def test_a_commit_to_the_kb_computes_it_again(project, kb, tmp_path):
    state = tmp_path / "state"
    hook(project, kb, state)
    mark(state)
    commit(kb, {"documents/a-first.md": note_text("a-first", "A first pool note")})
    out = context(hook(project, kb, state))
    assert MARK not in out and "A first pool note" in out


def test_nothing_is_kept_while_the_kb_head_just_moved(project, kb, tmp_path):
    state = tmp_path / "state"
    (kb / "documents" / "a-new.md").write_bytes(note_text("a-new", "A new pool note"))
    git("add", "-A", cwd=kb)
    git("commit", "-qm", "now", cwd=kb)  # not settled: HEAD's files cannot vouch yet
    assert "A new pool note" in context(hook(project, kb, state))
    assert not (state / ANSWERS).exists()


def test_the_project_files_and_branch_compute_it_again(project, kb, tmp_path):
    state = tmp_path / "state"
    assert "Zanzibar" not in context(hook(project, kb, state))  # six pool notes rank first
    mark(state)
    commit(project, {"zanzibar.py": b"ferry = 1\n"})  # a file the last commits touched
    out = context(hook(project, kb, state))
    assert MARK not in out and "Zanzibar ferry timetable" in out
    mark(state)
    (project / "README.md").write_text("Changed.\n")  # not committed: it leads the files now
    assert MARK not in context(hook(project, kb, state))
    mark(state)
    git("switch", "-q", "-c", "ferries", cwd=project)
    out = context(hook(project, kb, state))
    assert MARK not in out and "(branch ferries)" in out


def test_settings_and_the_synonym_file_compute_it_again(project, kb, tmp_path):
    state = tmp_path / "state"
    hook(project, kb, state)
    mark(state)
    assert MARK not in context(hook(project, kb, state, REFLECT_RECALL_BUDGET="3000"))
    hook(project, kb, state)
    mark(state)
    table = kb / "synonyms.txt"
    table.write_text("pool, reservoir\n")
    past = time.time() - 60
    os.utime(table, (past, past))
    assert MARK not in context(hook(project, kb, state))
    mark(state)
    assert context(hook(project, kb, state)).startswith(MARK)  # the same file: served


def test_a_transcript_that_grew_computes_it_again(project, tmp_path):
    transcript = tmp_path / "session.jsonl"
    transcript.write_bytes(b"x" * 4000)
    provenance = "{source_path: '" + str(transcript) + "'}"
    repo = committed_kb(
        tmp_path, {"documents/a.md": note_text("a", "Pool note", provenance=provenance)}
    )
    settle(repo)
    state = tmp_path / "state"
    assert "~1,000 tokens to discover (1 transcript)" in context(hook(project, repo, state))
    mark(state)
    assert context(hook(project, repo, state)).startswith(MARK)
    transcript.write_bytes(b"x" * 8000)
    out = context(hook(project, repo, state))
    assert MARK not in out and "~2,000 tokens to discover (1 transcript)" in out


def test_until_a_relationship_starts_or_stops_holding(project, tmp_path):
    sidecar = (
        b"document_id: a-pump\nextracted_at: '2026-01-10T00:00:00Z'\n"
        b"relationships:\n- source: pump\n  target: celery\n  type: causes\n"
        b"  description: celery prefetch starvation\n"
        b"  tvalid: '2026-01-10'\n  tvalid_end: '2099-02-01'\n"
        b"- source: pump\n  target: valve\n  type: causes\n"
        b"  description: valve wear\n  tvalid: '2098-05-01'\n"
    )
    files = {
        "documents/a-pump.md": note_text("a-pump", "Pump valve"),
        "documents/a-pump.entities.yaml": sidecar,
    }
    repo = committed_kb(tmp_path, files)
    settle(repo)
    state = tmp_path / "state"
    assert recall(repo, state, project, record=False).holds_until == "2098-05-01T00:00:00"
    assert recall(repo, state, project, record=False, as_of="2026-01-15").holds_until is None
    hook(project, repo, state)
    assert next(iter(kept(state).values()))["holds_until"] == "2098-05-01T00:00:00"
    mark(state)
    assert context(hook(project, repo, state)).startswith(MARK)
    mark(state, holds_until="2001-01-01T00:00:00")  # that instant has passed
    assert MARK not in context(hook(project, repo, state))


def test_no_relationship_holds_it_for_ever(project, kb, tmp_path):
    assert recall(kb, tmp_path / "state", project, record=False).holds_until is None


def test_an_answer_that_read_the_code_repository_is_never_kept(tmp_path):
    code = CodeRepo(tmp_path / "billing-api")
    code.write("src/retry.py", "def backoff(n):\n    return n\n").commit("first")
    repo = tmp_path / "kb"
    assert run_cli_proc("init", str(repo), "-q").returncode == 0
    args = ["--kb", str(repo), "add", "--title", "Backoff is capped", "--insight", "sixty",
            "--confidence", "high", "--anchor", "src/retry.py:backoff"]  # fmt: skip
    assert run_cli_proc(*args, cwd=code.path).returncode == 0
    settle(repo)
    settle(code.path)
    state = tmp_path / "state"
    assert "Backoff is capped" in context(hook(code.path, repo, state))
    assert not (state / ANSWERS).exists()  # the branch's changes were asked: nothing kept


def test_what_the_last_session_left_computes_it_again(project, kb, tmp_path):
    import datetime as dt

    from reflectgit.notes.slots import Slots
    from reflectgit.state import slots as slot_files

    state = tmp_path / "state"
    hook(project, kb, state)
    mark(state)
    left = Slots(pending_items=["TODO: finish the ferry timetable"]).to_json()
    updated = dt.datetime.now(dt.timezone.utc).isoformat()
    slot_files.save(state, "harbour", {"project": "harbour", "updated": updated, **left})
    out = context(hook(project, kb, state))
    assert MARK not in out and "TODO: finish the ferry timetable" in out


def test_a_damaged_kept_answer_is_computed_again(project, kb, tmp_path):
    state = tmp_path / "state"
    first = hook(project, kb, state).stdout
    for damage in ({"transcripts": [["x"]]}, {"holds_until": 5}, {"ids": "n0"}):
        mark(state, **damage)
        assert hook(project, kb, state).stdout == first  # and nothing on stderr
    (state / ANSWERS).write_text("{not json")
    assert hook(project, kb, state).stdout == first
    assert len(kept(state)) == 1


def test_a_commit_through_the_door_prepares_the_next_answer(project, kb, tmp_path):
    state = tmp_path / "state"
    hook(project, kb, state)
    before = next(iter(kept(state).values()))["stamp"]
    add = ["--kb", str(kb), "add", "--title", "A first pool note", "--insight", "prefill",
           "--confidence", "high"]  # fmt: skip
    env = {**os.environ, "REFLECT_STATE_DIR": str(state)}
    # The answers are prepared in the process a commit starts for its other jobs: the rules'
    # compile, which the hooks use once compiled (never a process of its own per commit).
    for args in (["--kb", str(kb), "rules", "list"], add):
        cmd = [sys.executable, "-m", "reflectgit", *args]
        done = subprocess.run(cmd, env=env, capture_output=True, check=False)
        assert done.returncode == 0
    deadline = time.monotonic() + HOOK_TIMEOUT  # the detached job's liveness bound
    while next(iter(kept(state).values()))["stamp"] == before:
        assert time.monotonic() < deadline, "no answer was prepared"
        time.sleep(0.2)
    prepared = next(iter(kept(state).values()))
    assert "A first pool note" in prepared["text"]
    assert counters(state, "n0").recall_count == 1  # preparing counts no recall
    mark(state)
    assert context(hook(project, kb, state)).startswith(MARK)  # the next session: served
