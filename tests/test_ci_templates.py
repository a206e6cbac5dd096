"""init --ci: the workflow files, and the GitHub step actually run against a real clone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from reflectgit.workflows.ci_templates import (
    GITHUB_PATH,
    GITLAB_INCLUDE_PATH,
    GITLAB_PATH,
    ci_files,
)
from tests.conftest import git
from tests.fixtures_routing import note_bytes


def test_init_ci_github_commits_the_workflow_idempotently(tmp_path: Path, cli) -> None:
    kb = tmp_path / "kb"
    res = cli("--json", "init", str(kb), "--ci", "github", "--no-pre-commit")
    assert res.code == 0, res
    assert GITHUB_PATH in res.json()["written"]
    assert git("ls-files", GITHUB_PATH, cwd=kb).strip() == GITHUB_PATH
    assert git("status", "--porcelain", cwd=kb) == ""
    commits = git("rev-list", "--count", "HEAD", cwd=kb)
    assert cli("init", str(kb), "--ci", "github", "--no-pre-commit").code == 0
    assert git("rev-list", "--count", "HEAD", cwd=kb) == commits
    flow = yaml.safe_load((kb / GITHUB_PATH).read_text())
    steps = flow["jobs"]["knowledge"]["steps"]
    script = steps[-1]["run"]
    assert "validate --format github" in script and "check --base" in script
    assert "GITHUB_STEP_SUMMARY" in script
    assert steps[0]["with"]["fetch-depth"] == 0


def test_unknown_ci_kind_writes_nothing(tmp_path: Path, cli) -> None:
    res = cli("init", str(tmp_path / "kb"), "--ci", "jenkins")
    assert res.code == 2 and "unknown CI kind" in res.err
    assert not (tmp_path / "kb").exists()


def test_gitlab_job_and_foreign_pipeline(tmp_path: Path, cli) -> None:
    job = yaml.safe_load(ci_files("gitlab")[GITLAB_PATH])
    assert "check --base" in " ".join(job["reflect-git"]["script"])
    assert ci_files("gitlab", {GITLAB_PATH: b"build:\n  script: make\n"}).keys() == {
        GITLAB_INCLUDE_PATH
    }
    kb = tmp_path / "kb"
    assert cli("init", str(kb), "--ci", "gitlab", "--no-pre-commit").code == 0
    assert (kb / GITLAB_PATH).exists()


def test_github_step_runs_and_annotates(tmp_path: Path, repo: Path) -> None:
    """Run the workflow's own shell step in a clone, the way the runner would."""
    (repo / "documents").mkdir()
    (repo / "documents/lrn-a.md").write_bytes(note_bytes("A note", note_id="lrn-a"))
    git("add", ".", cwd=repo)
    git("commit", "-qm", "a", cwd=repo)
    clone = tmp_path / "clone"
    git("clone", "-q", str(repo), str(clone), cwd=tmp_path)
    git("switch", "-qc", "knowledge/b", cwd=clone)
    (clone / "documents/lrn-b.md").write_bytes(note_bytes("B", note_id="lrn-a"))  # id clash
    git("add", ".", cwd=clone)
    git("commit", "-qm", "b", cwd=clone)
    step = yaml.safe_load(ci_files("github")[GITHUB_PATH])["jobs"]["knowledge"]["steps"][-1]["run"]
    step = step.replace("${{ github.base_ref || 'main' }}", "main")
    summary = tmp_path / "summary.md"
    bin_dir = Path(sys.executable).parent
    env = {
        **os.environ,
        "GITHUB_STEP_SUMMARY": str(summary),
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
    }
    proc = subprocess.run(["bash", "-c", step], cwd=clone, env=env, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    assert "::error file=documents/lrn-b.md" in proc.stdout
    assert "'lrn-a'" in proc.stdout
    assert "## reflect-git" in summary.read_text()
