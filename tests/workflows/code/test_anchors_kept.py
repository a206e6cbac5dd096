"""Anchors end to end: ``add --anchor`` inside a code repository records its name and HEAD;
export, import and route keep them; the drain and capture fill them from the files a session
edited."""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml

from reflectgit.state.queue import Queue
from reflectgit.workflows import routing
from reflectgit.workflows.code.anchoring import session_anchors
from reflectgit.workflows.drain.loop import run_drain
from tests.conftest import git, run_cli_proc
from tests.support.coderepo import POOL_PY, CodeRepo
from tests.support.drain import Clock, create_action, make_config, stub_command
from tests.support.remote import GitDaemon, git_daemon
from tests.support.routing import kb_factory

__all__ = ["git_daemon", "kb_factory"]


def front(path: Path) -> dict[str, object]:
    return yaml.safe_load(path.read_text().split("---\n")[1])


def code_repo(tmp_path: Path) -> CodeRepo:
    code = CodeRepo(tmp_path / "billing-api")
    code.write("src/pool.py", POOL_PY).write("README.md", "# billing\n")
    code.commit("pool")
    return code


def test_add_anchor_records_project_head_and_repo_relative_paths(tmp_path: Path) -> None:
    code = code_repo(tmp_path)
    kb = tmp_path / "kb"
    assert run_cli_proc("init", str(kb), "-q").returncode == 0
    args = ["--kb", str(kb), "--json", "add", "--title", "Prefill the pool", "--insight",
            "Prefill the pool at startup: cold requests time out", "--category", "perf",
            "--confidence", "high"]  # fmt: skip
    done = run_cli_proc(*args, "--anchor", "pool.py:prefill", "--anchor", "../README.md",
                        cwd=code.path / "src")  # fmt: skip
    assert done.returncode == 0, done.stderr
    note = front(kb / json.loads(done.stdout)["path"])
    assert note["project"] == "billing-api"
    assert note["anchors"] == [
        {"path": "src/pool.py", "symbol": "prefill", "commit": code.head()},
        {"path": "README.md", "commit": code.head()},
    ]


def test_add_anchor_refuses_a_missing_file_and_outside_a_repository(tmp_path: Path) -> None:
    code = code_repo(tmp_path)
    kb = tmp_path / "kb"
    run_cli_proc("init", str(kb), "-q")
    base = ["--kb", str(kb), "add", "--title", "T t", "--insight", "I i i", "--category", "c",
            "--confidence", "high"]  # fmt: skip
    missing = run_cli_proc(*base, "--anchor", "src/nope.py", cwd=code.path)
    assert missing.returncode == 2 and "src/nope.py is not a file of billing-api" in missing.stderr
    outside = tmp_path / "plain"
    outside.mkdir()
    nowhere = run_cli_proc(*base, "--anchor", "x.py", cwd=outside)
    assert nowhere.returncode == 2 and "needs a code repository" in nowhere.stderr
    assert git("rev-list", "--count", "HEAD", cwd=kb).strip() == "1"  # nothing written


def test_export_import_and_route_keep_anchors(
    tmp_path: Path, git_daemon: GitDaemon, kb_factory
) -> None:
    code = code_repo(tmp_path)
    team = git_daemon.new_repo()
    kb = kb_factory(team)
    args = ["--kb", str(kb.path), "--json", "add", "--title", "Prefill the pool", "--insight",
            "Prefill at startup", "--category", "perf", "--confidence", "high"]  # fmt: skip
    added = run_cli_proc(*args, "--anchor", "src/pool.py:prefill", cwd=code.path)
    assert added.returncode == 0, added.stderr
    note_id = json.loads(added.stdout)["id"]
    want = [{"path": "src/pool.py", "symbol": "prefill", "commit": code.head()}]

    tarball = tmp_path / "kb.tar.gz"
    assert run_cli_proc("--kb", str(kb.path), "export", str(tarball)).returncode == 0
    other = tmp_path / "other"
    run_cli_proc("init", str(other), "-q")
    imported = run_cli_proc("--kb", str(other), "import", str(tarball))
    assert imported.returncode == 0, imported.stderr
    assert front(other / "documents" / f"{note_id}.md")["anchors"] == want

    assert routing.route(kb.config(), note_id).pushed
    text = team.git("show", f"main:documents/{note_id}.md")
    assert yaml.safe_load(text.split("---\n")[1])["anchors"] == want


def test_session_anchors_keep_files_of_the_repository_at_head(tmp_path: Path) -> None:
    code = code_repo(tmp_path)
    files = [
        str(code.path / "src" / "pool.py"),
        "README.md",  # relative to the session's folder
        "/etc/hosts",  # outside the repository
        str(code.path / "src" / "untracked.py"),  # not in HEAD
    ]
    got = session_anchors(str(code.path), files, dict(os.environ))
    assert got == [
        {"path": "src/pool.py", "commit": code.head()},
        {"path": "README.md", "commit": code.head()},
    ]
    assert session_anchors(str(tmp_path), files, dict(os.environ)) == []  # no repository
    assert session_anchors(None, files) == []


def _transcript(path: Path, cwd: Path) -> None:
    rows = [
        {"type": "user", "message": {"role": "user", "content": "the pool times out on start"},
         "sessionId": "s1", "cwd": str(cwd)},
        {"type": "assistant", "sessionId": "s1", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Edit",
             "input": {"file_path": str(cwd / "src" / "pool.py"), "old_string": "a",
                       "new_string": "b"}}]}},
        {"type": "user", "sessionId": "s1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}},
        {"type": "assistant", "sessionId": "s1",
         "message": {"role": "assistant", "content": "Fixed: the pool is prefilled."}},
        {"type": "user", "sessionId": "s1", "message": {"role": "user",
         "content": "No, never open connections lazily; always prefill the pool at startup."}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_the_drain_anchors_its_notes_to_the_files_the_session_edited(tmp_path: Path) -> None:
    code = code_repo(tmp_path)
    kb = tmp_path / "kb"
    run_cli_proc("init", str(kb), "-q")
    transcript = tmp_path / "s1.jsonl"
    _transcript(transcript, code.path)
    action = create_action("Prefill the pool at startup")
    stub = stub_command(tmp_path, f"emit({{'actions': [{action!r}]}})")
    cfg = make_config(kb, REFLECT_DRAIN_CMD=str(stub))
    Queue(cfg.state_dir, clock=Clock()).add(str(transcript), "stop", "s1", cwd=str(code.path))
    [row] = run_drain(cfg, clock=Clock()).rows
    assert row["outcome"] == "ok", row
    [note] = (kb / "documents").glob("*.md")
    got = front(note)
    assert got["project"] == "billing-api"
    assert got["anchors"] == [{"path": "src/pool.py", "commit": code.head()}]


def test_the_commits_a_session_made_are_anchors_too(tmp_path: Path) -> None:
    import subprocess

    from reflectgit.config import Config
    from reflectgit.workflows.code.anchoring import committed_files

    code = code_repo(tmp_path)
    kb = tmp_path / "kb"
    run_cli_proc("init", str(kb), "-q")
    env = {**os.environ, "REFLECT_GIT_KB": str(kb), "REFLECT_GIT_HOOK_SYNC": "1"}
    assert run_cli_proc("hooks", "install", str(code.path), env=env).returncode == 0
    code.write("src/pool.py", POOL_PY + "\nLIMIT = 3\n")
    agent = {**env, "CLAUDE_CODE_SESSION_ID": "s-commits"}  # what Claude Code exports
    subprocess.run(["git", "commit", "-qm", "a limit"], cwd=code.path, env=agent, check=True)
    cfg = Config.resolve(kb, env)
    files = committed_files(cfg, "s-commits")
    assert files == [str(code.path / "src" / "pool.py")]
    assert committed_files(cfg, "another-session") == []
    assert session_anchors(str(code.path), files, env) == [
        {"path": "src/pool.py", "commit": code.head()}
    ]
