from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from reflectgit.config import Config
from reflectgit.installation import source
from reflectgit.workflows.release import REPO_PLACEHOLDER, REV_PLACEHOLDER
from tests.conftest import git
from tests.support.validation import VALID_NOTE

SCAFFOLD = [
    ".gitattributes",
    ".gitignore",
    ".pre-commit-config.yaml",
    ".reflect-git.toml",
    "archived/.gitkeep",
    "documents/.gitkeep",
    "review-queue/.gitkeep",
]


def tracked(path: Path) -> list[str]:
    return sorted(git("ls-tree", "-r", "--name-only", "HEAD", cwd=path).split())


def commit_count(path: Path) -> int:
    return int(git("rev-list", "--count", "HEAD", cwd=path).strip())


def test_init_creates_a_kb_in_one_commit(cli, tmp_path):
    kb = tmp_path / "kb"
    result = cli("init", str(kb), "--team-remote", "git@example.com:team/kb.git")
    assert result.code == 0, result
    assert f"Created the knowledge base in {kb}" in result.out
    assert tracked(kb) == SCAFFOLD
    assert commit_count(kb) == 1
    assert git("status", "--porcelain", cwd=kb) == ""
    git("fsck", "--strict", cwd=kb)
    assert git("symbolic-ref", "--short", "HEAD", cwd=kb).strip() == "main"
    message = git("log", "-1", "--format=%B", cwd=kb)
    assert message.startswith("chore(knowledge): init knowledge base\n")
    trailers = git("log", "-1", "--format=%(trailers:key=Reflect-Op,valueonly)", cwd=kb)
    assert trailers.strip() == "init"
    assert "Reflect-Git: " in message
    settings = Config.resolve(kb, env={}).settings
    assert settings["team"]["remote"] == "git@example.com:team/kb.git"
    ignored = git("show", "HEAD:.gitignore", cwd=kb)
    assert "nano_graphrag_cache/" in ignored and ".reflect-git/" in ignored


def test_second_run_changes_nothing_and_says_so(cli, tmp_path):
    kb = tmp_path / "kb"
    assert cli("init", str(kb)).code == 0
    head = git("rev-parse", "HEAD", cwd=kb)
    again = cli("init", str(kb))
    assert again.code == 0
    assert "already a reflect-git knowledge base: nothing to change" in again.out
    assert git("rev-parse", "HEAD", cwd=kb) == head
    doc = cli("--json", "init", str(kb)).json()
    assert doc == {
        "kb": str(kb),
        "commit": None,
        "created": False,
        "written": [],
        "left_untracked": [],
        "merge_driver": "unchanged",
        "forge": {"settings": {}, "sources": {}, "ignored": []},
    }


def test_init_uses_the_kb_option_and_json(cli, tmp_path):
    kb = tmp_path / "learnings"
    doc = cli("--kb", str(kb), "--json", "init", "--no-pre-commit").json()
    assert doc["kb"] == str(kb) and doc["created"] is True
    assert doc["commit"] == git("rev-parse", "HEAD", cwd=kb).strip()
    assert ".pre-commit-config.yaml" not in tracked(kb)


def test_a_new_team_remote_updates_only_that_line(cli, tmp_path):
    kb = tmp_path / "kb"
    cli("init", str(kb), "--team-remote", "one")
    assert cli("init", str(kb), "--team-remote", "two").code == 0
    assert commit_count(kb) == 2
    assert git("diff", "--name-only", "HEAD~1", "HEAD", cwd=kb).split() == [".reflect-git.toml"]
    assert Config.resolve(kb, env={}).settings["team"]["remote"] == "two"


def test_adopts_an_existing_repository_keeping_its_history(cli, repo):
    (repo / "documents").mkdir()
    (repo / "documents" / "n.md").write_text(VALID_NOTE)
    (repo / ".gitignore").write_text("*.swp\n")
    git("add", ".", cwd=repo)
    git("commit", "-q", "-m", "my notes", cwd=repo)
    result = cli("init", str(repo))
    assert result.code == 0, result
    assert "Adopted the knowledge base" in result.out
    assert commit_count(repo) == 2
    assert git("log", "-1", "--format=%s", "HEAD~1", cwd=repo).strip() == "my notes"
    files = tracked(repo)
    assert "documents/n.md" in files and "documents/.gitkeep" not in files
    ignore = (repo / ".gitignore").read_text()
    assert ignore.startswith("*.swp\n") and "nano_graphrag_cache/" in ignore
    assert git("status", "--porcelain", cwd=repo) == ""


def test_adopting_an_empty_repository(cli, repo):
    assert cli("init", str(repo)).code == 0
    assert tracked(repo) == SCAFFOLD


def test_refuses_a_non_empty_folder_that_is_not_a_kb(cli, tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "main.py").write_text("print()\n")
    result = cli("init", str(folder))
    assert result.code == 1
    assert "is not empty (main.py) and is not a knowledge base" in result.err
    assert "--force" in result.err
    assert sorted(p.name for p in folder.iterdir()) == ["main.py"]


def test_force_adds_the_layout_and_leaves_untracked_files_alone(cli, tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "main.py").write_text("print()\n")
    (folder / ".gitignore").write_text("build/\n")
    result = cli("init", str(folder), "--force")
    assert result.code == 0, result
    assert "left .gitignore alone" in result.out
    assert ".gitignore" not in tracked(folder)
    assert (folder / ".gitignore").read_text() == "build/\n"
    assert git("status", "--porcelain", cwd=folder).split() == ["??", ".gitignore", "??", "main.py"]


def test_refuses_to_clobber_uncommitted_edits(cli, tmp_path):
    kb = tmp_path / "kb"
    cli("init", str(kb), "--team-remote", "one")
    (kb / ".reflect-git.toml").write_text("# mine\n")
    result = cli("init", str(kb), "--team-remote", "two")
    assert result.code == 1
    assert "uncommitted changes in .reflect-git.toml" in result.err
    assert commit_count(kb) == 1
    assert (kb / ".reflect-git.toml").read_text() == "# mine\n"


def test_refuses_a_file(cli, tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    result = cli("init", str(target))
    assert result.code == 1 and "is a file" in result.err


def test_the_new_kb_validates_checks_and_has_a_valid_pre_commit_config(cli, tmp_path):
    kb = tmp_path / "kb"
    cli("init", str(kb))
    assert cli("--kb", str(kb), "validate").code == 0
    assert cli("--kb", str(kb), "check").code == 0
    config = yaml.safe_load((kb / ".pre-commit-config.yaml").read_text())
    (remote,) = config["repos"]
    # Where this reflect-git was installed from (tests/test_install.py installs it from a git
    # URL and from a wheel, and runs the config through the real pre-commit).
    here = source()
    assert (remote["repo"], remote["rev"]) == (
        (here.repo, here.rev) if here.repo else (REPO_PLACEHOLDER, REV_PLACEHOLDER)
    )
    assert [h["id"] for h in remote["hooks"]] == ["reflect-git-validate", "reflect-git-check"]
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", ".pre-commit-config.yaml"],
        cwd=kb,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
