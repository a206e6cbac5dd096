"""The post-commit capture, installed into real repositories and fired by real `git commit`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reflectgit.workflows.installer import SHIM_TEMPLATE
from tests.conftest import REPO_ROOT, git
from tests.support.capture import kb_fixture, state_dir, wait_for  # noqa: F401  (kb fixture)

SYNC = {"REFLECT_GIT_HOOK_SYNC": "1"}


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reflectgit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def commit(repo: Path, message: str, name: str = "f.txt", env: dict[str, str] | None = None) -> str:
    (repo / name).write_text(message + "\n")
    full = dict(os.environ, **(env or SYNC))
    subprocess.run(["git", "add", name], cwd=repo, check=True, env=full)
    proc = subprocess.run(
        ["git", "commit", "-q", "-m", message], cwd=repo, env=full, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    return git("rev-parse", "HEAD", cwd=repo).strip()


def records(kb_path: Path) -> list[dict]:
    path = state_dir(kb_path) / "commits.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def code(tmp_path: Path) -> Path:
    path = tmp_path / "code"
    git("init", "-q", "-b", "main", str(path), cwd=tmp_path)
    return path


def test_shipped_shim_matches_the_installer_template():
    assert (REPO_ROOT / "hooks" / "post-commit").read_text() == SHIM_TEMPLATE


def test_install_records_commits_with_session_files_and_branch(kb, code):
    result = cli("--json", "hooks", "install", str(code))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["action"] == "installed"
    sha = commit(code, "Add f\n\nWhy: because.", env={**SYNC, "CLAUDE_SESSION_ID": "sess-a"})
    (row,) = records(kb)
    assert row["sha"] == sha
    assert row["branch"] == "main"
    assert row["subject"] == "Add f"
    assert row["body"] == "Why: because."
    assert row["files"] == ["f.txt"]
    assert row["session"] == "sess-a"
    assert row["merge_conflict_resolved"] is False
    assert row["ts"]


def test_session_falls_back_to_reflect_session_id(kb, code):
    cli("hooks", "install", str(code))
    commit(code, "one", env={**SYNC, "REFLECT_SESSION_ID": "sess-r"})
    commit(code, "two", env=SYNC)
    assert [r["session"] for r in records(kb)] == ["sess-r", None]


def test_install_is_idempotent_and_recording_twice_changes_nothing(kb, code):
    cli("hooks", "install", str(code))
    hook = code / ".git" / "hooks" / "post-commit"
    first = hook.read_text()
    again = cli("--json", "hooks", "install", str(code))
    assert json.loads(again.stdout)["action"] == "unchanged"
    assert hook.read_text() == first
    assert first.count("# >>> reflect-git post-commit >>>") == 1
    sha = commit(code, "once")
    proc = subprocess.run(
        [sys.executable, "-m", "reflectgit", "capture", "commit", sha, "main"],
        cwd=code,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and proc.stdout == ""
    assert [r["sha"] for r in records(kb)] == [sha]


def test_existing_hook_is_chained_first_and_restored_on_uninstall(kb, code):
    hook = code / ".git" / "hooks" / "post-commit"
    original = '#!/bin/sh\necho "chained $(git rev-parse HEAD)" >> "$(git rev-parse --git-dir)/chained.log"\nexit 3\n'
    hook.write_text(original)
    hook.chmod(0o755)
    out = cli("--json", "hooks", "install", str(code))
    assert json.loads(out.stdout)["chained"].endswith("post-commit.reflect-git-chained")
    sha = commit(code, "chained commit")
    assert (code / ".git" / "chained.log").read_text() == f"chained {sha}\n"
    assert records(kb)[0]["sha"] == sha
    status = json.loads(cli("--json", "hooks", "status", str(code)).stdout)
    assert status["git"]["installed"] and status["git"]["chained"]
    out = cli("--json", "hooks", "install", str(code), "--uninstall")
    assert json.loads(out.stdout)["restored"]
    assert hook.read_text() == original
    assert not (code / ".git" / "hooks" / "post-commit.reflect-git-chained").exists()
    commit(code, "after uninstall")
    assert len(records(kb)) == 1
    assert len((code / ".git" / "chained.log").read_text().splitlines()) == 2


def test_uninstall_without_chained_hook_removes_the_file(kb, code):
    cli("hooks", "install", str(code))
    cli("hooks", "install", str(code), "--uninstall")
    assert not (code / ".git" / "hooks" / "post-commit").exists()
    again = cli("--json", "hooks", "install", str(code), "--uninstall")
    assert json.loads(again.stdout)["action"] == "absent"


def test_core_hooks_path_is_respected(kb, code):
    git("config", "core.hooksPath", ".githooks", cwd=code)
    cli("hooks", "install", str(code))
    assert (code / ".githooks" / "post-commit").exists()
    assert not (code / ".git" / "hooks" / "post-commit").exists()
    sha = commit(code, "via hooksPath")
    assert records(kb)[0]["sha"] == sha


def test_works_from_a_worktree(kb, code, tmp_path):
    commit(code, "base")
    worktree = tmp_path / "wt"
    git("worktree", "add", "-q", "-b", "feature", str(worktree), cwd=code)
    out = cli("--json", "hooks", "install", str(worktree))
    assert out.returncode == 0, out.stderr
    sha = commit(worktree, "on the feature branch", name="g.txt")
    row = records(kb)[-1]
    assert (row["sha"], row["branch"], row["files"]) == (sha, "feature", ["g.txt"])


def test_background_mode_records_without_waiting(kb, code):
    cli("hooks", "install", str(code))
    sha = commit(code, "in the background", env={"REFLECT_GIT_HOOK_SYNC": "0"})
    wait_for(lambda: any(r["sha"] == sha for r in records(kb)), "the background capture")


def test_reflect_git_commits_are_skipped(kb, code):
    cli("hooks", "install", str(code))
    commit(code, "ours\n\nReflect-Op: add\nReflect-Git: 0.1.0")
    assert records(kb) == []


def test_git_commands_run_by_reflect_git_are_never_captured(kb, code):
    cli("hooks", "install", str(code))
    commit(code, "made by a reflect-git git call", env={**SYNC, "REFLECT_GIT_INTERNAL": "1"})
    assert records(kb) == []
    sha = commit(code, "made by a person", name="g.txt")
    assert [r["sha"] for r in records(kb)] == [sha]


def test_merge_with_resolved_conflict_is_flagged(kb, code):
    cli("hooks", "install", str(code))
    commit(code, "base")
    git("switch", "-q", "-c", "side", cwd=code)
    commit(code, "side change")
    git("switch", "-q", "main", cwd=code)
    commit(code, "main change")
    env = dict(os.environ, **SYNC)
    subprocess.run(["git", "merge", "-q", "side"], cwd=code, env=env, capture_output=True)
    (code / "f.txt").write_text("resolved\n")
    subprocess.run(["git", "add", "f.txt"], cwd=code, env=env, check=True)
    subprocess.run(["git", "commit", "-q", "--no-edit"], cwd=code, env=env, check=True)
    merge = records(kb)[-1]
    assert len(merge["parents"]) == 2
    assert merge["merge_conflict_resolved"] is True
    assert merge["files"] == ["f.txt"]


def _note(note_id: str, confidence: str, session: str) -> str:
    return (
        f"---\nid: {note_id}\ntitle: {note_id} title\ncreated: 2026-11-01\n"
        f"confidence: {confidence}\nsession_id: {session}\n---\nbody\n"
    )


def test_revert_demotes_the_session_learnings_in_one_commit(kb, code):
    docs = kb / "documents"
    docs.mkdir(exist_ok=True)
    (docs / "lrn-a.md").write_text(_note("lrn-a", "high", "sess-x"))
    (docs / "lrn-b.md").write_text(_note("lrn-b", "medium", "sess-x"))
    (docs / "lrn-c.md").write_text(_note("lrn-c", "high", "other"))
    (docs / "lrn-d.md").write_text(_note("lrn-d", "low", "sess-x"))
    git("add", "documents", cwd=kb)
    git("commit", "-qm", "seed notes", cwd=kb)
    cli("hooks", "install", str(code))
    bad = commit(code, "risky change", env={**SYNC, "CLAUDE_SESSION_ID": "sess-x"})
    before = int(git("rev-list", "--count", "main", cwd=kb))
    env = dict(os.environ, **SYNC)
    subprocess.run(
        ["git", "revert", "--no-edit", bad], cwd=code, env=env, check=True, capture_output=True
    )
    assert int(git("rev-list", "--count", "main", cwd=kb)) == before + 1
    message = git("log", "-1", "--format=%B", "main", cwd=kb)
    assert "Reflect-Op: demote" in message
    assert f"Reflect-Reason: commit {bad[:12]} (risky change) was reverted" in message
    assert git("show", "main:documents/lrn-a.md", cwd=kb).count("confidence: medium") == 1
    assert "confidence: low" in git("show", "main:documents/lrn-b.md", cwd=kb)
    assert "confidence: high" in git("show", "main:documents/lrn-c.md", cwd=kb)
    changed = git("show", "--name-only", "--format=", "main", cwd=kb).split()
    assert changed == ["documents/lrn-a.md", "documents/lrn-b.md", "documents/lrn-d.md"]
    low = git("show", "main:documents/lrn-d.md", cwd=kb)
    assert "confidence: low" in low and "confidence_num: 0.15" in low
    assert git("status", "--porcelain", cwd=kb) == ""
    assert records(kb)[-1]["reverts"] == bad


def test_capture_ignores_the_git_environment_of_the_hook(kb, code, tmp_path):
    (code / "f.txt").write_text("x\n")
    git("add", "f.txt", cwd=code)
    git("-c", "core.hooksPath=/dev/null", "commit", "-qm", "no hook ran", cwd=code)
    sha = git("rev-parse", "HEAD", cwd=code).strip()
    # git exports GIT_DIR / GIT_INDEX_FILE to hooks; a git we spawn must not follow stale ones.
    proc = subprocess.run(
        [sys.executable, "-m", "reflectgit", "capture", "commit"],
        cwd=code,
        env=dict(os.environ, GIT_DIR=str(tmp_path / "nowhere"), GIT_INDEX_FILE="/nonexistent"),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and proc.stdout == ""
    assert records(kb)[-1]["sha"] == sha


def test_install_outside_a_repository_is_a_clear_error(tmp_path):
    out = cli("hooks", "install", str(tmp_path))
    assert out.returncode == 1
    assert out.stderr.startswith("error: ") and "not a git repository" in out.stderr


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_background_capture_holds_none_of_the_callers_pipes(kb, code, tmp_path):
    from reflectgit.workflows.installer import install_git_hook

    report = tmp_path / "fds.txt"
    fake = tmp_path / "fake-python"
    # Stands in for the interpreter: records the open fds of the job that launched it.
    fake.write_text(
        f'#!/bin/sh\nls -l /proc/$PPID/fd/ /proc/$$/fd/ > "{report}.tmp" 2>&1\nmv "{report}.tmp" "{report}"\n'
    )
    fake.chmod(0o755)
    install_git_hook(code, python=str(fake), kb=None, env=dict(os.environ))
    commit(code, "pipes", env={"REFLECT_GIT_HOOK_SYNC": "0"})  # run with stdout/stderr as pipes
    wait_for(report.exists, "the background job")
    assert "pipe:" not in report.read_text()


def test_install_with_kb_pins_that_kb(kb, code, tmp_path, monkeypatch):
    other = tmp_path / "other-kb"
    git("init", "-q", "-b", "main", str(other), cwd=tmp_path)
    out = cli("--kb", str(other), "hooks", "install", str(code))
    assert out.returncode == 0, out.stderr
    monkeypatch.delenv("REFLECT_GIT_KB")
    sha = commit(code, "pinned")
    assert records(other)[0]["sha"] == sha
    assert records(kb) == []


def test_commit_capture_never_creates_a_missing_kb(code, tmp_path, monkeypatch):
    missing = tmp_path / "nowhere"
    monkeypatch.setenv("REFLECT_GIT_KB", str(missing))
    cli("hooks", "install", str(code))
    commit(code, "no kb yet")
    assert not missing.exists()


def test_install_writes_a_post_merge_shim_and_uninstall_removes_both(kb, code):
    out = cli("hooks", "install", str(code), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    hooks = Path(doc["hook"]).parent
    merge = (hooks / "post-merge").read_text()
    assert "# >>> reflect-git post-merge >>>" in merge and "capture merge" in merge
    assert "capture commit" not in merge
    assert "capture commit" in (hooks / "post-commit").read_text()
    out = cli("hooks", "install", str(code), "--uninstall", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["post_merge"]["action"] == "uninstalled"
    assert not (hooks / "post-merge").exists() and not (hooks / "post-commit").exists()


def test_a_post_merge_hook_of_the_users_is_chained_and_put_back(kb, code):
    hooks = Path(git("rev-parse", "--absolute-git-dir", cwd=code).strip()) / "hooks"
    hooks.mkdir(exist_ok=True)
    mine = hooks / "post-merge"
    mine.write_text("#!/bin/sh\necho mine\n")
    mine.chmod(0o755)
    assert cli("hooks", "install", str(code)).returncode == 0
    assert (hooks / "post-merge.reflect-git-chained").read_text() == "#!/bin/sh\necho mine\n"
    assert cli("hooks", "install", str(code), "--uninstall").returncode == 0
    assert mine.read_text() == "#!/bin/sh\necho mine\n"
