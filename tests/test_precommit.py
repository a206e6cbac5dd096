"""The pre-commit hooks, through the real pre-commit and real ``git commit``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.conftest import PINNED_GIT_ENV, REPO_ROOT, git
from tests.fixtures_validation import VALID_NOTE

HOOKS = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
BAD_NOTE = "---\ntitle: Upper tier\ncreated: 2026-03-04\nconfidence: HIGH\n---\nBody.\n"


def hook(hook_id: str) -> dict:
    (found,) = [h for h in HOOKS if h["id"] == hook_id]
    return found


def test_hooks_are_console_scripts_of_the_package():
    pyproject = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert [h["id"] for h in HOOKS] == ["reflect-git-validate", "reflect-git-check"]
    for entry in HOOKS:
        assert entry["language"] == "python"
        assert re.search(rf'^{entry["entry"]} = "reflectgit\.hooks\.', pyproject, re.MULTILINE)
    assert hook("reflect-git-check")["pass_filenames"] is False
    assert hook("reflect-git-validate").get("pass_filenames", True) is True


@pytest.mark.parametrize(
    "path",
    [
        "documents/lrn-pool-timeout-a1b2c3.md",
        "documents/lrn-pool-timeout-a1b2c3.entities.yaml",
        "archived/old-note.md",
        "archived/old-note.entities.yaml",
    ],
)
def test_validate_files_pattern_matches_notes_and_sidecars(path):
    assert re.search(hook("reflect-git-validate")["files"], path)


@pytest.mark.parametrize(
    "path",
    [
        "README.md",
        "docs/guide.md",
        "documents/sub/note.md",
        "documents/note.yaml",
        "documents/note.md.orig",
        "documents/notes.entities.yml",
        "review-queue/pointer.yaml",
        ".forgotten/gone.md",
        "team/documents/note.md",
        ".pre-commit-config.yaml",
    ],
)
def test_validate_files_pattern_skips_everything_else(path):
    assert not re.search(hook("reflect-git-validate")["files"], path)


def test_init_config_uses_the_same_files_pattern():
    from reflectgit.workflows.kb.layout import HOOK_FILES

    assert hook("reflect-git-validate")["files"] == HOOK_FILES


# --------------------------------------------------------------------------- real pre-commit


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def hook_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Environment for real pre-commit runs: pinned git, a private PRE_COMMIT_HOME, our venv."""
    base = tmp_path_factory.mktemp("precommit")
    gitconfig = base / "gitconfig"
    gitconfig.write_text("[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "REFLECT_"))}
    env.update(PINNED_GIT_ENV)
    env["HOME"] = str(base)
    env["GIT_CONFIG_GLOBAL"] = str(gitconfig)
    env["PRE_COMMIT_HOME"] = str(base / "cache")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    yield env


@pytest.fixture(scope="module")
def hook_repo(
    tmp_path_factory: pytest.TempPathFactory, hook_env: dict[str, str]
) -> tuple[Path, str]:
    """This project as pre-commit sees it: the current sources, committed in a scratch repo."""
    snapshot = tmp_path_factory.mktemp("hook-repo") / "reflect-git"
    listed = _run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], REPO_ROOT, hook_env
    ).stdout
    for rel in filter(None, listed.split("\0")):
        source = REPO_ROOT / rel
        if source.is_file():
            (snapshot / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, snapshot / rel)
    _run(["git", "init", "-q", "-b", "main"], snapshot, hook_env)
    _run(["git", "add", "-A"], snapshot, hook_env)
    _run(["git", "commit", "-q", "-m", "snapshot"], snapshot, hook_env)
    sha = _run(["git", "rev-parse", "HEAD"], snapshot, hook_env).stdout.strip()
    assert len(sha) == 40
    return snapshot, sha


def _kb(path: Path, env: dict[str, str]) -> Path:
    proc = _run(
        [sys.executable, "-m", "reflectgit", "init", str(path), "--no-pre-commit"], path.parent, env
    )
    assert proc.returncode == 0, proc.stderr
    return path


def test_try_repo_refuses_the_invalid_note_with_its_line(hook_repo, hook_env, tmp_path):
    """One try-repo run (it builds a fresh environment each time): both hooks, as installed."""
    snapshot, _sha = hook_repo
    kb = _kb(tmp_path / "kb", hook_env)
    twin = VALID_NOTE.replace("---\ntitle", "---\nid: twin\ntitle")
    (kb / "documents" / "good.md").write_text(twin)
    (kb / "documents" / "again.md").write_text(twin)
    (kb / "documents" / "bad.md").write_text(BAD_NOTE)
    _run(["git", "add", "-A"], kb, hook_env)
    proc = _run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(snapshot),
            "--files",
            "documents/good.md",
            "documents/bad.md",
            "README.md",
        ],
        kb,
        hook_env,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert re.search(r"reflect-git validate\.+Failed", out), out
    assert "documents/bad.md:4:13: confidence: 'HIGH' is not allowed; write 'high'" in out
    assert "good.md:" not in out.split("reflect-git check")[0]
    assert re.search(r"reflect-git check\.+Failed", out), out
    assert "documents/good.md:2:5: id: 'twin' is already used by documents/again.md" in out


def test_a_valid_note_commits_and_an_invalid_one_is_refused(hook_env, tmp_path):
    kb = tmp_path / "kb"
    proc = _run([sys.executable, "-m", "reflectgit", "init", str(kb)], tmp_path, hook_env)
    assert proc.returncode == 0, proc.stderr
    assert _run([sys.executable, "-m", "pre_commit", "install"], kb, hook_env).returncode == 0
    (kb / "documents" / "bad.md").write_text(BAD_NOTE)
    _run(["git", "add", "documents/bad.md"], kb, hook_env)
    refused = _run(["git", "commit", "-m", "bad"], kb, hook_env)
    assert refused.returncode != 0
    out = refused.stdout + refused.stderr
    assert "documents/bad.md:4:13: confidence: 'HIGH' is not allowed; write 'high'" in out
    assert git("rev-list", "--count", "HEAD", cwd=kb).strip() == "1"
    (kb / "documents" / "bad.md").write_text(VALID_NOTE)
    _run(["git", "add", "documents/bad.md"], kb, hook_env)
    ok = _run(["git", "commit", "-m", "a good note"], kb, hook_env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert git("log", "-1", "--format=%s", cwd=kb).strip() == "a good note"
    assert "documents/bad.md" in git("ls-tree", "-r", "--name-only", "HEAD", cwd=kb)
    # The check hook sees the whole KB: a second note with the same id is refused.
    twin = VALID_NOTE.replace("---\ntitle", "---\nid: bad\ntitle")
    (kb / "documents" / "twin.md").write_text(twin)
    (kb / "documents" / "bad.md").write_text(twin)
    _run(["git", "add", "documents"], kb, hook_env)
    clash = _run(["git", "commit", "-m", "twins"], kb, hook_env)
    assert clash.returncode != 0
    assert "documents/twin.md:2:5: id: 'bad' is already used by documents/bad.md" in (
        clash.stdout + clash.stderr
    )
    assert git("log", "-1", "--format=%s", cwd=kb).strip() == "a good note"
