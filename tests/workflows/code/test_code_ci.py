"""``reflect-git code-ci``: the pull-request and stale jobs for a code repository. The files
parse, name what they need, and their pull-request step, run the way a runner runs it (its
shell, the CI's variables), keeps one comment on a loopback forge's pull request."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from reflectgit.workflows.code.ci import MARKER, PATHS, code_ci_files
from reflectgit.workflows.code.pr_comment import MARKER as COMMENT_MARKER
from tests.conftest import git, run_cli_proc
from tests.support.coderepo import POOL_PY, CodeRepo
from tests.support.forge_server import TOKEN, make_forge

__all__ = ["make_forge"]


def _bin_dir(tmp_path: Path) -> Path:
    """A folder whose ``reflect-git`` is this checkout's (what the install step provides)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "reflect-git"
    script.write_text(f'#!/bin/sh\nexec {sys.executable} -m reflectgit "$@"\n')
    script.chmod(0o755)
    return folder


def _world(tmp_path: Path, kind: str, make_forge: Any) -> tuple[Path, Any, Path, Any]:
    """A KB with a note anchored in billing-api, the forge serving billing-api with a pull
    request from ``feature``, and the runner's checkout of that branch."""
    code = CodeRepo(tmp_path / "billing-api")
    code.write("src/pool.py", POOL_PY).commit("first")
    kb = tmp_path / "kb"
    run_cli_proc("init", str(kb), "-q")
    args = ["--kb", str(kb), "add", "--title", "Prefill before serving", "--insight",
            "cold pools time out", "--category", "perf", "--confidence", "high",
            "--anchor", "src/pool.py:prefill"]  # fmt: skip
    assert run_cli_proc(*args, cwd=code.path).returncode == 0
    bare = tmp_path / "billing-api.git"
    git("clone", "-q", "--bare", str(code.path), str(bare), cwd=tmp_path)
    code.branch("feature")
    code.write("src/pool.py", POOL_PY.replace("range(size)", "range(size + 1)")).commit("more")
    git("push", "-q", str(bare), "feature", cwd=code.path)
    # what the runner's checkout holds: a clone of the forge's repository, on the change
    work = tmp_path / "work" / "billing-api"
    git("clone", "-q", str(bare), str(work), cwd=tmp_path)
    git("checkout", "-q", "feature", cwd=work)
    forge = make_forge(kind, {"acme/billing-api": bare})
    return kb, forge, work, forge.add_pr("acme/billing-api", "feature", "main")


@pytest.mark.parametrize("kind", ["github", "gitea", "gitlab"])
def test_the_files_parse_and_name_what_they_need(kind: str) -> None:
    [(path, text)] = code_ci_files(kind).items()
    assert path == PATHS[kind] and text.startswith(MARKER)
    doc = yaml.safe_load(text)
    if kind == "gitlab":
        assert set(doc) >= {"reflect-git-pr-notes", "reflect-git-stale"}
        script = " ".join(doc["reflect-git-pr-notes"]["script"])
        assert '--comment "$CI_MERGE_REQUEST_IID" --forge gitlab' in script
    else:
        assert set(doc["jobs"]) == {"pr-notes", "stale"}
        assert doc["permissions"]["pull-requests"] == "write"
        steps = doc["jobs"]["pr-notes"]["steps"]
        assert steps[0]["with"]["fetch-depth"] == 0  # the merge base needs the history
        assert f"--forge {'github' if kind == 'github' else 'gitea'}" in steps[-1]["run"]


def _pr_step(kind: str) -> tuple[str, dict[str, str]]:
    """The pull-request step's shell and the variables the CI gives it."""
    [text] = code_ci_files(kind).values()
    doc = yaml.safe_load(text)
    if kind == "gitlab":
        job = doc["reflect-git-pr-notes"]
        return "\n".join(job["script"]), {}
    step = doc["jobs"]["pr-notes"]["steps"][-1]
    return step["run"], {k: str(v) for k, v in step["env"].items() if "${{" not in str(v)}


@pytest.mark.parametrize("kind", ["github", "gitea", "gitlab"])
def test_the_pull_request_step_keeps_one_comment(
    tmp_path: Path, kind: str, make_forge: Any
) -> None:
    kb, forge, work, pr = _world(tmp_path, kind, make_forge)
    script, _ = _pr_step(kind)
    env = dict(os.environ)
    env["PATH"] = f"{_bin_dir(tmp_path)}{os.pathsep}{env['PATH']}"
    if kind == "gitlab":
        env.update(
            CI_PROJECT_DIR=str(work), CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main",
            CI_PROJECT_NAME="billing-api", CI_MERGE_REQUEST_IID=str(pr.number),
            CI_PROJECT_PATH="acme/billing-api", CI_API_V4_URL=forge.api_url,
            GITLAB_TOKEN=TOKEN,
        )  # fmt: skip
        shutil.copytree(kb, work / ".reflect-kb")
    else:
        token = "GITHUB_TOKEN" if kind == "github" else "GITEA_TOKEN"
        env.update(
            RUNNER_TEMP=str(tmp_path), BASE="main", NUMBER=str(pr.number),
            PROJECT="billing-api", GITHUB_REPOSITORY="acme/billing-api",
            GITHUB_API_URL=forge.api_url, **{token: TOKEN},
        )  # fmt: skip
    for _ in range(2):  # two pushes: one comment
        done = subprocess.run(
            ["bash", "-e", "-c", script], cwd=work, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    ours = [c for c in pr.comments if COMMENT_MARKER in c]
    assert len(ours) == 1 and "Prefill before serving" in ours[0]


def test_code_ci_writes_once_and_never_replaces_a_foreign_file(tmp_path: Path) -> None:
    code = CodeRepo(tmp_path / "app")
    code.write("a.txt", "a\n").commit("a")
    first = run_cli_proc("--json", "code-ci", "github", "--repo", str(code.path))
    assert first.returncode == 0, first.stderr
    [written] = json.loads(first.stdout)["files"]
    assert Path(written).read_text().startswith(MARKER)
    assert run_cli_proc("code-ci", "github", "--repo", str(code.path)).returncode == 0
    mine = code.path / PATHS["gitea"]
    mine.parent.mkdir(parents=True)
    mine.write_text("name: ours\n")
    refused = run_cli_proc("code-ci", "gitea", "--repo", str(code.path))
    assert refused.returncode == 1 and "not written by reflect-git" in refused.stderr
    assert mine.read_text() == "name: ours\n"
    bad = run_cli_proc("code-ci", "jenkins", "--repo", str(code.path))
    assert bad.returncode == 2
