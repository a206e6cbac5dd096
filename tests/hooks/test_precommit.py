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

import reflectgit
from reflectgit.workflows.release import MINIMUM_PRE_COMMIT, REPOSITORY, TAG, pre_commit_config_text
from tests.conftest import PINNED_GIT_ENV, REPO_ROOT, git
from tests.support.validation import VALID_NOTE

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

HOOKS = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
BAD_NOTE = "---\ntitle: Upper tier\ncreated: 2026-03-04\nconfidence: HIGH\n---\nBody.\n"
BAD_LINE = "documents/bad.md:4:13: confidence: 'HIGH' is not allowed; write 'high'"
# A docs page with front matter (a static-site generator's): not a note, wherever it sits.
DOCS_PAGE = "---\ntitle: Our guide\nlayout: page\ndate: 2026-03-04\n---\n# Guide\n"


def hook(hook_id: str) -> dict:
    (found,) = [h for h in HOOKS if h["id"] == hook_id]
    return found


def test_hooks_are_console_scripts_of_their_own():
    """Each pre-commit hook is a console script whose entry point is ``reflectgit.hooks``, not
    the command line's parser."""
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    scripts = pyproject["project"]["scripts"]
    assert "script-files" not in pyproject["tool"].get("setuptools", {})
    assert [h["id"] for h in HOOKS] == ["reflect-git-validate", "reflect-git-check"]
    for entry in HOOKS:
        assert entry["language"] == "python"
        assert re.fullmatch(r"reflectgit\.hooks\.\w+:main", scripts[entry["entry"]])
    assert scripts["reflect-git-hook"] == "reflectgit.hooks.agent:main"
    assert hook("reflect-git-check")["pass_filenames"] is False
    assert hook("reflect-git-validate").get("pass_filenames", True) is True


def test_hooks_run_at_commit_time_only_and_name_their_minimum_pre_commit():
    """Not at commit-msg, post-checkout or pre-push: a KB check belongs where a commit is made."""
    for entry in HOOKS:
        assert entry["stages"] == ["pre-commit", "pre-merge-commit", "manual"]
        # The stage names above arrived in pre-commit 3.2.0.
        assert entry["minimum_pre_commit_version"] == MINIMUM_PRE_COMMIT == "3.2.0"
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extra = pyproject["project"]["optional-dependencies"]["pre-commit"]
    assert extra == [f"pre-commit>={MINIMUM_PRE_COMMIT}"]


def test_the_manifest_and_a_generated_config_pass_pre_commits_own_validators(tmp_path):
    manifest = _run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", ".pre-commit-hooks.yaml"],
        REPO_ROOT,
        dict(os.environ),
    )
    assert manifest.returncode == 0, manifest.stdout + manifest.stderr
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(pre_commit_config_text())
    checked = _run(
        [sys.executable, "-m", "pre_commit", "validate-config", str(config)],
        tmp_path,
        dict(os.environ),
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "deprecated" not in checked.stdout + checked.stderr


def test_the_generated_rev_is_this_release_tag_and_the_changelog_has_its_entry():
    """The release convention: tag v<version>, a CHANGELOG entry, and init's config agree."""
    config = yaml.safe_load(pre_commit_config_text())
    (repo,) = config["repos"]
    assert repo["repo"] == REPOSITORY
    assert repo["rev"] == TAG == f"v{reflectgit.__version__}"
    assert [h["id"] for h in repo["hooks"]] == [h["id"] for h in HOOKS]
    assert config["minimum_pre_commit_version"] == MINIMUM_PRE_COMMIT
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["version"] == reflectgit.__version__
    changelog = (REPO_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[(\d[^\]]*)\] - (\d{4}-\d{2}-\d{2})$", changelog, re.MULTILINE)
    assert releases and releases[0][0] == reflectgit.__version__, releases
    assert f"[{reflectgit.__version__}]: {REPOSITORY}/releases/tag/{TAG}" in changelog
    # A tag that exists in this clone names a release the changelog knows.
    tags = git("tag", "--list", "v*", cwd=REPO_ROOT).split()
    for tag in tags:
        assert tag[1:] in {version for version, _ in releases}, tag


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
    """A copy of this repository (the current sources), committed and tagged as a release is."""
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
    _run(
        ["git", "tag", "-a", TAG, "-m", f"reflect-git {reflectgit.__version__}"], snapshot, hook_env
    )
    sha = _run(["git", "rev-parse", "HEAD"], snapshot, hook_env).stdout.strip()
    assert len(sha) == 40
    return snapshot, sha


def _kb(path: Path, env: dict[str, str], *extra: str) -> Path:
    proc = _run([sys.executable, "-m", "reflectgit", "init", str(path), *extra], path.parent, env)
    assert proc.returncode == 0, proc.stderr
    return path


def test_try_repo_refuses_the_invalid_note_with_its_line(hook_repo, hook_env, tmp_path):
    """One try-repo run (it builds a fresh environment each time): both hooks, as installed."""
    snapshot, _sha = hook_repo
    kb = _kb(tmp_path / "kb", hook_env, "--no-pre-commit")
    twin = VALID_NOTE.replace("---\ntitle", "---\nid: twin\ntitle")
    (kb / "documents" / "good.md").write_text(twin)
    (kb / "documents" / "again.md").write_text(twin)
    (kb / "documents" / "bad.md").write_text(BAD_NOTE)
    _run(["git", "add", "-A"], kb, hook_env)
    # Untracked: neither hook may judge it.
    (kb / "documents" / "draft.md").write_text(BAD_NOTE.replace("Upper", "Draft"))
    proc = _run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(snapshot), "--ref", TAG],
        kb,
        hook_env,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert re.search(r"reflect-git validate\.+Failed", out), out
    assert BAD_LINE in out
    assert "good.md:" not in out.split("reflect-git check")[0]
    assert re.search(r"reflect-git check\.+Failed", out), out
    assert "documents/good.md:2:5: id: 'twin' is already used by documents/again.md" in out
    assert "draft.md" not in out


def _tagged_config(kb: Path, snapshot: Path) -> None:
    """init's own config, its repo pointed at the tagged clone (a mirror, as a team would)."""
    config = kb / ".pre-commit-config.yaml"
    text = config.read_text()
    assert f"repo: {REPOSITORY}\n" in text and f"rev: {TAG}\n" in text
    config.write_text(text.replace(REPOSITORY, snapshot.as_uri()))


def test_the_generated_config_at_a_tagged_clone_guards_real_commits(hook_repo, hook_env, tmp_path):
    snapshot, _sha = hook_repo
    kb = _kb(tmp_path / "kb", hook_env)
    _tagged_config(kb, snapshot)
    git("commit", "-qam", "use our mirror of reflect-git", cwd=kb)
    installed = _run([sys.executable, "-m", "pre_commit", "install"], kb, hook_env)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    # An untracked invalid draft does not block a valid note's commit.
    (kb / "documents" / "draft.md").write_text(BAD_NOTE)
    (kb / "documents" / "good.md").write_text(VALID_NOTE)
    # Front matter markdown outside the layout is a docs page, not a stray note.
    (kb / "docs").mkdir()
    (kb / "docs" / "guide.md").write_text(DOCS_PAGE)
    _run(["git", "add", "documents/good.md", "docs/guide.md"], kb, hook_env)
    ok = _run(["git", "commit", "-m", "a good note"], kb, hook_env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert re.search(r"reflect-git check\.+Passed", ok.stderr + ok.stdout), ok.stderr
    assert git("log", "-1", "--format=%s", cwd=kb).strip() == "a good note"
    assert git("status", "--porcelain", cwd=kb).strip() == "?? documents/draft.md"

    # Staged, the same draft is refused with its line; nothing is committed.
    (kb / "documents" / "draft.md").rename(kb / "documents" / "bad.md")
    _run(["git", "add", "documents/bad.md"], kb, hook_env)
    refused = _run(["git", "commit", "-m", "bad"], kb, hook_env)
    assert refused.returncode != 0
    assert BAD_LINE in refused.stdout + refused.stderr
    assert git("log", "-1", "--format=%s", cwd=kb).strip() == "a good note"

    # The check judges the staged content: fixed in the index, the commit goes through even
    # though the work tree still holds the bad version (pre-commit stashes it meanwhile).
    (kb / "documents" / "bad.md").write_text(VALID_NOTE.replace("Pin the", "Fixed the"))
    _run(["git", "add", "documents/bad.md"], kb, hook_env)
    (kb / "documents" / "bad.md").write_text(BAD_NOTE)
    fixed = _run(["git", "commit", "-m", "fixed"], kb, hook_env)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "Fixed the" in git("show", "HEAD:documents/bad.md", cwd=kb)
    assert (kb / "documents" / "bad.md").read_text() == BAD_NOTE

    # The check hook sees the whole KB: a second note with the same id is refused.
    twin = VALID_NOTE.replace("---\ntitle", "---\nid: good\ntitle")
    (kb / "documents" / "twin.md").write_text(twin)
    _run(["git", "add", "documents/twin.md"], kb, hook_env)
    clash = _run(["git", "commit", "-m", "twins"], kb, hook_env)
    assert clash.returncode != 0
    assert "documents/twin.md:2:5: id: 'good' is already used by documents/good.md" in (
        clash.stdout + clash.stderr
    )
    assert git("log", "-1", "--format=%s", cwd=kb).strip() == "fixed"


# --------------------------------------------------------------------------- the check hook


def _check(kb: Path, *args: str) -> tuple[int, str]:
    """The hook's console-script entry point in a process of its own, as pre-commit runs it."""
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from reflectgit.hooks.check import main; "
            "raise SystemExit(main(sys.argv[1:]))",
            "--kb",
            str(kb),
            *args,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.returncode, proc.stdout


def test_the_check_hook_judges_what_git_tracks_and_stages(tmp_path):
    kb = tmp_path / "kb"
    git("init", "-q", "-b", "main", str(kb), cwd=tmp_path)
    (kb / "documents").mkdir()
    (kb / "documents" / "good.md").write_text(VALID_NOTE)
    git("add", ".", cwd=kb)
    # Untracked: a twin of good.md and a note outside the layout.
    twin = VALID_NOTE.replace("---\ntitle", "---\nid: good\ntitle")
    (kb / "documents" / "twin.md").write_text(twin)
    (kb / "notes").mkdir()
    (kb / "notes" / "lost.md").write_text(VALID_NOTE)
    assert _check(kb) == (0, "")
    code, out = _check(kb, "--worktree")
    assert code == 1
    assert "documents/twin.md:2:5: id: 'good' is already used by documents/good.md" in out
    assert "notes/lost.md:1:1: a note outside documents/ is never read" in out
    # Staged, they count; the staged bytes are judged, not the work tree's.
    git("add", "documents/twin.md", "notes/lost.md", cwd=kb)
    (kb / "documents" / "twin.md").write_text(VALID_NOTE.replace("---\ntitle", "---\nid: t\ntitle"))
    code, out = _check(kb)
    assert code == 1
    assert "documents/twin.md:2:5: id: 'good' is already used by documents/good.md" in out
    assert "notes/lost.md:1:1: a note outside documents/ is never read" in out
    git("add", "documents/twin.md", cwd=kb)
    git("rm", "-q", "--cached", "notes/lost.md", cwd=kb)
    assert _check(kb) == (0, "")


def test_the_check_hook_leaves_front_matter_pages_outside_the_layout_alone(tmp_path):
    kb = tmp_path / "kb"
    git("init", "-q", "-b", "main", str(kb), cwd=tmp_path)
    (kb / "docs").mkdir()
    (kb / "docs" / "guide.md").write_text(DOCS_PAGE)
    (kb / "docs" / "adr-1.md").write_text("---\nstatus: accepted\ntitle: Use git\n---\nWhy.\n")
    (kb / "README.md").write_text("---\n# not even YAML: [\n---\n")
    git("add", ".", cwd=kb)
    assert _check(kb) == (0, "")
    # A file that reads as a note (every field a note needs) is still a stray note.
    (kb / "docs" / "note.md").write_text(VALID_NOTE)
    git("add", ".", cwd=kb)
    assert _check(kb) == (
        1,
        "docs/note.md:1:1: a note outside documents/ is never read: move it to documents/\n",
    )


def test_outside_a_git_repository_the_check_hook_reads_the_folder(tmp_path):
    (tmp_path / "documents").mkdir()
    (tmp_path / "documents" / "bad.md").write_text(
        BAD_NOTE.replace("confidence: HIGH\n", "recall_count: 1\nconfidence: high\n")
    )
    code, out = _check(tmp_path)
    assert code == 1 and "documents/bad.md:4:1: recall_count: is a ranking field" in out
