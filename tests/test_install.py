"""Installed as a user installs it: ``pip install git+URL`` (what ``pipx install git+URL`` runs)
into a fresh virtual environment, from a git repository holding this checkout.

SLOW (about a minute): real pip installs from the package index, and a real pre-commit run that
builds the hooks' own environment. It proves that the core install carries neither the web nor
the MCP stack, that the commands needing them name the pip line that brings them, that the
files ``init`` writes name where this reflect-git came from (``git+URL@COMMIT``, pre-commit's
``repo:``/``rev:``), and that pre-commit runs the hooks from exactly that, with no edit.
The same from a wheel file: tests/test_packaging.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from reflectgit.workflows.ci_templates import GITHUB_PATH, PIP_VARIABLE
from tests.conftest import PINNED_GIT_ENV
from tests.support import dist
from tests.support.validation import VALID_NOTE

# What the extras bring (pip's names, normalised; markdown-it-py is not here: the core needs
# it), and the generator of the schema code: never in the core install.
WEB_AND_MCP = (
    "mcp",
    "pydantic",
    "httpx",
    "anyio",
    "starlette",
    "uvicorn",
    "jinja2",
    "fastjsonschema",
)
BAD_NOTE = "---\ntitle: Upper tier\ncreated: 2026-03-04\nconfidence: HIGH\n---\nBody.\n"
BAD_LINE = "documents/bad.md:4:13: confidence: 'HIGH' is not allowed; write 'high'"


@dataclass(frozen=True)
class Installed:
    venv: Path
    url: str  # the git URL pip installed from
    sha: str  # the commit it resolved
    env: dict[str, str]

    def run(
        self, *args: str, cwd: Path, home: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.venv / "bin" / "reflect-git"), *args],
            cwd=cwd,
            env=self.env | ({"HOME": str(home)} if home else {}),
            capture_output=True,
            text=True,
            check=False,
        )


def packages(python: Path) -> set[str]:
    """The distributions installed in ``python``'s environment, names normalised."""
    out = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {re.sub(r"[-_.]+", "-", line.split("==")[0]).lower() for line in out.splitlines()}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    """A venv with ``pip install git+file://<a repository holding this checkout>``."""
    base = tmp_path_factory.mktemp("install")
    gitconfig = base / "gitconfig"
    gitconfig.write_text("[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "REFLECT_"))}
    env.update(PINNED_GIT_ENV)
    env.update(HOME=str(base / "home"), GIT_CONFIG_GLOBAL=str(gitconfig))
    env["PRE_COMMIT_HOME"] = str(base / "pre-commit")
    (base / "home").mkdir()
    clone = base / "reflect-git"
    sha = dist.snapshot(clone, env)
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    url = clone.as_uri()
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", f"git+{url}"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert pip.returncode == 0, pip.stderr[-3000:]
    yield Installed(venv, url, sha, env)


def test_the_core_install_carries_no_web_or_mcp_stack(installed: Installed) -> None:
    have = packages(installed.venv / "bin" / "python")
    assert "reflect-git" in have
    assert not have & set(WEB_AND_MCP), sorted(have & set(WEB_AND_MCP))


def test_the_core_commands_run_without_the_extras(installed: Installed, tmp_path: Path) -> None:
    """The command line, validation, search, recall, the drain and the agent hooks: none
    imports the web or MCP stack."""
    kb = tmp_path / "kb"
    steps = [
        ("init", str(kb)),
        (
            "--kb",
            str(kb),
            "add",
            "--title",
            "Pin the CI runner image",
            "--insight",
            "ubuntu-latest moved under us twice",
            "--confidence",
            "high",
            "--category",
            "ci",
        ),
        ("--kb", str(kb), "validate"),
        ("--kb", str(kb), "check"),
        ("--kb", str(kb), "search", "runner image"),
        ("--kb", str(kb), "recall", "--limit", "1"),
        ("--kb", str(kb), "drain", "--dry-run"),
        ("--kb", str(kb), "hooks", "install", "--agent", "claude", "--no-mcp"),
        ("--kb", str(kb), "hooks", "status"),
    ]
    home = tmp_path / "home"  # the agent settings this test writes stay its own
    home.mkdir()
    for args in steps:
        proc = installed.run(*args, cwd=tmp_path, home=home)
        assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    found = installed.run("--kb", str(kb), "search", "runner image", cwd=tmp_path, home=home).stdout
    assert "Pin the CI runner image" in found


def test_serve_mcp_and_hooks_install_mcp_name_the_pip_line_that_brings_them(
    installed: Installed, tmp_path: Path
) -> None:
    kb = tmp_path / "kb"
    assert installed.run("init", str(kb), cwd=tmp_path).returncode == 0
    requirement = f"@ git+{installed.url}@{installed.sha}'"
    for args, command, extra in (
        (("serve", "--port", "0"), "serve", "serve"),
        (("mcp",), "mcp", "mcp"),
        (("hooks", "install", "--agent", "claude", "--mcp"), "hooks install --mcp", "mcp"),
    ):
        proc = installed.run("--kb", str(kb), *args, cwd=tmp_path)
        assert proc.returncode == 1, (args, proc.stdout, proc.stderr)
        error, hint = proc.stderr.splitlines()[-2:]
        assert error.startswith(f"error: `reflect-git {command}` needs the '{extra}' extra"), error
        assert hint == f"hint: pip install 'reflect-git[{extra}] {requirement}", proc.stderr
    # Nothing was written for the refused MCP registration.
    assert not (Path(installed.env["HOME"]) / ".claude.json").exists()
    assert not (Path(installed.env["HOME"]) / ".claude" / "settings.json").exists()


def test_init_names_the_git_commit_it_was_installed_from(
    installed: Installed, tmp_path: Path
) -> None:
    kb = tmp_path / "kb"
    proc = installed.run("init", str(kb), "--ci", "github", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Set by hand" not in proc.stdout + proc.stderr
    flow = yaml.safe_load((kb / GITHUB_PATH).read_text())
    pinned = f"git+{installed.url}@{installed.sha}"
    assert flow["env"][PIP_VARIABLE] == f"${{{{ vars.{PIP_VARIABLE} || '{pinned}' }}}}"
    config = yaml.safe_load((kb / ".pre-commit-config.yaml").read_text())
    (remote,) = config["repos"]
    assert (remote["repo"], remote["rev"]) == (installed.url, installed.sha)
    # What the CI job would install is installable: pip resolves the same commit.
    check = subprocess.run(
        [
            str(installed.venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--dry-run",
            "-q",
            "--no-deps",
            pinned,
        ],
        env=installed.env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert check.returncode == 0, check.stderr[-2000:]


def test_pre_commit_runs_the_hooks_from_that_commit_in_a_light_environment(
    installed: Installed, tmp_path: Path
) -> None:
    """init's config, unedited, through the real pre-commit: it clones the commit, builds the
    hooks' environment (reflect-git without the extras) and refuses a bad note by its line."""
    kb = tmp_path / "kb"
    assert installed.run("init", str(kb), cwd=tmp_path).returncode == 0
    pre_commit = [sys.executable, "-m", "pre_commit"]
    env = installed.env

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=kb, env=env, capture_output=True, text=True, check=False)

    assert run(*pre_commit, "install").returncode == 0
    (kb / "documents" / "good.md").write_text(VALID_NOTE)
    run("git", "add", "documents/good.md")
    ok = run("git", "commit", "-m", "a good note")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert re.search(r"reflect-git validate\.+Passed", ok.stdout + ok.stderr)
    (kb / "documents" / "bad.md").write_text(BAD_NOTE)
    run("git", "add", "documents/bad.md")
    refused = run("git", "commit", "-m", "bad")
    assert refused.returncode != 0 and BAD_LINE in refused.stdout + refused.stderr
    # The hooks' environment pre-commit built: reflect-git, and neither stack.
    (python,) = Path(env["PRE_COMMIT_HOME"]).glob("repo*/py_env-*/bin/python")
    have = packages(python)
    assert "reflect-git" in have
    assert not have & set(WEB_AND_MCP), sorted(have & set(WEB_AND_MCP))
