"""Recall: project-aware notes for a session start, the SessionStart JSON, counters not notes."""
# ruff: noqa: F811 - pytest fixtures are imported by name and requested as parameters

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from reflectgit.git.change import write
from reflectgit.git.store import Store
from reflectgit.state.ranking import Ranking
from reflectgit.workflows.recall import ProjectContext, project_context, recall, show_hint
from tests.conftest import git, needs_shared, run_cli_proc
from tests.support.search import corpus_kb, note_text  # noqa: F401


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A code repository named ``payments-api`` on branch ``fix/celery-prefetch`` with Python files."""
    root = tmp_path / "payments-api"
    git("init", "-q", "-b", "main", str(root), cwd=tmp_path)
    (root / "worker").mkdir()
    (root / "worker" / "tasks.py").write_text("print('hi')\n")
    (root / "Dockerfile").write_text("FROM python:3.12\n")
    git("add", "-A", cwd=root)
    git("commit", "-qm", "start", cwd=root)
    git("switch", "-q", "-c", "fix/celery-prefetch", cwd=root)
    return root


def add_notes(kb: Path) -> None:
    with Store.open(kb) as store:
        store.commit(
            [
                write(
                    "documents/pay.md",
                    note_text(
                        "pay-retry",
                        "Idempotency keys on payment retries",
                        "Retries double-charged.",
                        project="payments-api",
                        key_insight='"Send an idempotency key with every retried charge."',
                    ),
                ),
                write(
                    "documents/old.md",
                    note_text("old-celery", "Celery prefetch old advice", superseded_by="x"),
                ),
                write("archived/arch.md", note_text("arch-celery", "Celery archived advice")),
            ],
            "add project notes",
        )


def test_project_context_reads_name_branch_and_touched_files(project: Path) -> None:
    (project / "worker" / "tasks.py").write_text("print('changed')\n")
    ctx = project_context(project / "worker")
    assert ctx.name == "payments-api"
    assert ctx.branch == "fix/celery-prefetch"
    assert "worker/tasks.py" in ctx.files and "Dockerfile" in ctx.files
    terms = ctx.terms()
    assert {"payments", "api", "celery", "prefetch", "python", "docker", "tasks"} <= set(terms)
    assert project_context(project, project="other").name == "other"


def _age_git_files(root: Path) -> None:
    """HEAD's files and the config a moment old, as a stamp needs them to vouch."""
    old = 1_000_000_000
    for path in (root / ".git").rglob("*"):
        if path.is_file() and "objects" not in path.parts:
            os.utime(path, (old, old))


def test_the_recent_commits_files_are_asked_again_only_when_head_moved(project: Path) -> None:
    from reflectgit.workflows.project_context import describing

    _age_git_files(project)
    first = describing(project)()
    assert first.recent is not None and first.recent[1] == ["Dockerfile", "worker/tasks.py"]
    planted = {str(project): [first.recent[0], ["planted.txt"]]}  # what git would not say
    again = describing(project, None, None, planted)()
    assert again.files == ["planted.txt"] and again.recent == (first.recent[0], ["planted.txt"])
    (project / "notes.txt").write_text("x\n")
    git("add", "notes.txt", cwd=project)
    git("commit", "-qm", "two", cwd=project)
    assert describing(project, None, None, planted)().files[0] == "notes.txt"  # HEAD moved
    _age_git_files(project)
    moved = describing(project, None, None, planted)()
    assert moved.files == ["notes.txt", "Dockerfile", "worker/tasks.py"]
    git("config", "core.abbrev", "12", cwd=project)  # the config changed: asked again too
    _age_git_files(project)
    stale = {str(project): [moved.recent[0], ["planted.txt"]]}
    assert "planted.txt" not in describing(project, None, None, stale)().files


def test_outside_a_repository_the_folder_name_is_the_project(tmp_path: Path) -> None:
    ctx = project_context(tmp_path)
    assert ctx == ProjectContext(name=tmp_path.name)


@needs_shared
def test_recall_prefers_the_project_and_its_topics(corpus_kb: Path, project: Path) -> None:
    add_notes(corpus_kb)
    result = recall(corpus_kb, corpus_kb / ".git" / "reflect-git", project, limit=3)
    got = [n.id for n in result.notes]
    assert got[0] == "pay-retry"
    assert "gr-05-celery-prefetch-starvation" in got
    assert "old-celery" not in got and "arch-celery" not in got
    assert any("project payments-api" in r for r in result.notes[0].reasons)


@needs_shared
def test_recall_claude_format_is_the_session_start_json(
    corpus_kb: Path, project: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_notes(corpus_kb)
    monkeypatch.chdir(project)
    res = cli("--kb", str(corpus_kb), "recall", "--format", "claude", "--budget", "900")
    assert res.code == 0, res
    doc = json.loads(res.out)
    assert set(doc) == {"hookSpecificOutput"}
    out = doc["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    context = out["additionalContext"]
    assert isinstance(context, str) and 0 < len(context) <= 900
    assert "Idempotency keys on payment retries (pay-retry)" in context


@needs_shared
def test_recall_in_a_real_subprocess_like_the_hook_runs_it(corpus_kb: Path, project: Path) -> None:
    proc = run_cli_proc(
        "recall", "--format", "claude", cwd=project, env={"REFLECT_GIT_KB": str(corpus_kb)}
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "gr-05-celery-prefetch-starvation" in doc["hookSpecificOutput"]["additionalContext"]


@needs_shared
def test_recall_updates_counters_but_never_the_notes(
    corpus_kb: Path, project: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    head = git("rev-parse", "HEAD", cwd=corpus_kb)
    count = git("rev-list", "--count", "--all", cwd=corpus_kb)
    first = cli("--kb", str(corpus_kb), "--json", "recall", "--limit", "2")
    assert first.code == 0, first
    ids = [n["id"] for n in first.json()["notes"]]
    assert len(ids) == 2
    cli("--kb", str(corpus_kb), "--json", "recall", "--limit", "2")
    counts = Ranking(corpus_kb / ".git" / "reflect-git").many(ids)
    assert all(counts[i].recall_count == 2 and counts[i].last_recalled_at for i in ids)
    assert git("status", "--porcelain", "--ignored", cwd=corpus_kb) == ""
    assert git("rev-parse", "HEAD", cwd=corpus_kb) == head
    assert git("rev-list", "--count", "--all", cwd=corpus_kb) == count
    for path in (corpus_kb / "documents").iterdir():
        assert "recall_count" not in path.read_text(encoding="utf-8")


@needs_shared
def test_a_damaged_counters_file_starts_over(corpus_kb: Path, project: Path) -> None:
    state = corpus_kb / ".git" / "reflect-git"
    state.mkdir(parents=True, exist_ok=True)
    (state / "ranking.sqlite3").write_bytes(b"garbage" * 500)
    result = recall(corpus_kb, state, project, limit=1)
    assert Ranking(state).counters(result.notes[0].id).recall_count == 1
    with sqlite3.connect(state / "ranking.sqlite3") as conn:
        assert conn.execute("SELECT count(*) FROM counters").fetchone()[0] == 1


@needs_shared
def test_budget_and_limit(
    corpus_kb: Path, project: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    small = cli("--kb", str(corpus_kb), "--json", "recall", "--budget", "300", "--limit", "10")
    assert small.code == 0, small
    assert len(small.json()["context"]) <= 300 and small.json()["notes"]
    text = cli("--kb", str(corpus_kb), "recall", "--limit", "1")
    assert text.out.startswith("reflect-git: 1 of 36 notes")
    bad = cli("--kb", str(corpus_kb), "recall", "--format", "yaml")
    assert bad.code == 2 and "unknown format" in bad.err


def test_an_empty_kb_still_gives_valid_json(
    repo: Path, project: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    res = cli("--kb", str(repo), "recall", "--format", "claude")
    assert res.code == 0, res
    context = json.loads(res.out)["hookSpecificOutput"]["additionalContext"]
    assert "no notes" in context


def test_as_a_hook_a_missing_kb_never_fails_the_session(tmp_path: Path, project: Path) -> None:
    proc = run_cli_proc(
        "recall", "--format", "claude", cwd=project, env={"REFLECT_GIT_KB": str(tmp_path / "none")}
    )
    assert proc.returncode == 0
    assert proc.stdout == ""
    assert "not a git repository" in proc.stderr
    text = run_cli_proc("recall", cwd=project, env={"REFLECT_GIT_KB": str(tmp_path / "none")})
    assert text.returncode == 1


def test_the_show_hint_names_a_command_that_runs_here(tmp_path: Path) -> None:
    """Started as a script of ours, the hint names the ``reflect-git`` beside it; started any
    other way (``python -c``, ``-m``, a script with no ``reflect-git`` beside it), this Python."""
    bin_dir = tmp_path / "my bin"
    bin_dir.mkdir()
    (bin_dir / "reflect-git-session-start").write_text("")
    kb = tmp_path / "kb"
    ours = str(bin_dir / "reflect-git-session-start")
    assert show_hint(False, kb, ours, "/py/python") == (
        f"`/py/python -m reflectgit --kb {kb} show ID` prints a note in full"  # none beside it
    )
    (bin_dir / "reflect-git").write_text("")
    assert show_hint(False, kb, ours, "/py/python") == (
        f"`'{bin_dir}/reflect-git' --kb {kb} show ID` prints a note in full"
    )
    assert show_hint(False, kb, "-c", "/py/python").startswith("`/py/python -m reflectgit --kb ")
    other = str(bin_dir / "pytest")  # a script, but not ours
    assert show_hint(False, kb, other, "/py/python").startswith("`/py/python -m reflectgit ")
    assert show_hint(True, kb, ours, "/py/python") == (
        "the `show` tool of the reflect-git MCP server prints a note in full"
    )
