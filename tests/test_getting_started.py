"""docs/getting-started.md as a new user runs it, on a fresh home folder: reflect-git installed
into a new virtual environment from a ``git+file://`` URL (a clone of this checkout, as it is
now), ``init ~/team-kb``, a note added from inside the KB without ``--kb``, ``hooks install
--agent ...`` from a project folder without ``--kb``; then the SessionStart command the install
wrote, run as the harness runs it (a shell in the project, a PATH without reflect-git) and fed a
real payload, prints that note, and its "show" hint is a command that prints the note in full.

The install takes about 30 seconds, so the tests of this module share one environment."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DATA, PINNED_GIT_ENV, REPO_ROOT, TEST_DATA, git

TITLE = "Pin the CI runner image"
INSIGHT = "Floating runner images broke the build twice."

# Where each harness reads its user-scope hooks, and the SessionStart event's name there.
HOOK_FILES = {
    "claude": (".claude/settings.json", "SessionStart"),
    "codex": (".codex/hooks.json", "SessionStart"),
    "copilot": (".copilot/hooks/reflect-git.json", "sessionStart"),
}
# The real payloads (shared data), when present: (file, index of the SessionStart payload).
REAL_START = {
    "claude": ("derived-spotter-short.json", 0),
    "codex": ("codex-hooks.json", 0),
    "copilot": ("copilot-cli-camelcase.json", 0),
}


def _snapshot(to: Path) -> None:
    """A git repository holding this checkout's files as they are now (committed or not)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    to.mkdir()
    for name in filter(None, listed.split("\0")):
        source = REPO_ROOT / name
        if not source.is_file():
            continue  # deleted in the work tree
        target = to / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    git("init", "-q", "-b", "main", str(to), cwd=to.parent)
    git("add", "-A", cwd=to)
    git("commit", "-qm", "snapshot", cwd=to)


@pytest.fixture(scope="module")
def venv_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pip install git+file://<clone>`` into a fresh virtual environment; its ``bin``."""
    base = tmp_path_factory.mktemp("getting-started")
    clone = base / "reflect-git"
    env = {**os.environ, **PINNED_GIT_ENV}
    env.pop("GIT_CONFIG_GLOBAL", None)
    old = {k: os.environ.get(k) for k in PINNED_GIT_ENV}
    os.environ.update(PINNED_GIT_ENV)
    try:
        _snapshot(clone)
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", f"git+file://{clone}"],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
        env=env,
    )
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    return venv / "bin"


def user_env(home: Path, path: str) -> dict[str, str]:
    """A new user's environment: their home, git's identity, nothing of reflect-git's."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("REFLECT_", "XDG_", "CLAUDE_", "CODEX_", "COPILOT_"))
    }
    return {**env, "HOME": str(home), "PATH": path}


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"{argv}: {proc.stdout}\n{proc.stderr}"
    return proc


def session_start_command(agent: str, home: Path) -> str:
    """The command the install wrote for SessionStart, read from the harness's file."""
    name, event = HOOK_FILES[agent]
    data = json.loads((home / name).read_text())
    entries = data["hooks"][event]
    if agent == "copilot":
        commands = [e["bash"] for e in entries]
    else:
        commands = [h["command"] for group in entries for h in group["hooks"]]
    (command,) = commands
    assert "from reflectgit.hooks.sessionstart import main" in command
    assert f" --harness {agent} " in command
    return command


def start_payload(agent: str, project: Path) -> str:
    """The harness's SessionStart payload: the shared data's real one when present, else the
    sample shipped in tests/data; its folder is the project's."""
    name, index = REAL_START[agent]
    real = DATA / "real" / "hook-events" / name
    if real.is_file():
        payload = json.loads(real.read_text())[index]
    else:
        payload = json.loads((TEST_DATA / "session-start.json").read_text())[agent]
    payload["cwd"] = str(project)
    if payload.get("transcript_path"):
        payload["transcript_path"] = str(project / ".transcript.jsonl")
    return json.dumps(payload)


def context_of(agent: str, stdout: str) -> str:
    out = json.loads(stdout)
    if agent == "copilot":
        return out["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    return out["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("agent", ["claude", "codex", "copilot"])
def test_a_new_user_sees_their_note_at_session_start(
    agent: str, venv_bin: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    shell_path = f"{venv_bin}:/usr/bin:/bin"  # `export PATH=...` as the Install section says
    env = user_env(home, shell_path)
    kb = home / "team-kb"

    made = run(["reflect-git", "init", str(kb)], home, env)
    assert f"default KB: {kb}" in made.stdout
    added = run(
        ["reflect-git", "add", "--title", TITLE, "--insight", INSIGHT,
         "--category", "ci", "--confidence", "high"],
        kb, env,
    )  # fmt: skip
    note_id = added.stdout.split()[1]
    app = home / "src" / "app"
    app.mkdir(parents=True)
    git("init", "-q", "-b", "main", str(app), cwd=home)
    installed = run(["reflect-git", "hooks", "install", "--agent", agent], app, env)
    assert f"  kb: {kb}, your default KB" in installed.stdout

    # The harness: a shell in the project, its own PATH (no reflect-git on it), real payload.
    recall = session_start_command(agent, home)
    harness_env = user_env(home, "/usr/bin:/bin")
    proc = subprocess.run(
        recall,
        shell=True,
        cwd=app,
        env=harness_env,
        input=start_payload(agent, app),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    context = context_of(agent, proc.stdout)
    assert f"[high] {TITLE} ({note_id})" in context and INSIGHT in context, context

    # "show": a command the agent can run from there, as it is written.
    hint = context.rsplit("\n", 1)[-1]
    assert hint.startswith("(`") and hint.endswith(" show ID` prints a note in full.)"), hint
    show = hint[2 : -len(" ID` prints a note in full.)")] + " " + shlex.quote(note_id)
    shown = subprocess.run(
        show, shell=True, cwd=app, env=harness_env, capture_output=True, text=True, check=False
    )
    assert shown.returncode == 0, shown.stderr
    assert INSIGHT in shown.stdout

    if agent == "claude":
        # The same hooks at project scope too: a warning, and `hooks status` says it.
        twice = run(
            ["reflect-git", "hooks", "install", "--agent", "claude", "--scope", "project"], app, env
        )
        assert "warning: claude hooks are installed at user and project scope" in twice.stderr
        status = run(["reflect-git", "hooks", "status"], app, env)
        assert "warning: claude hooks are installed at user and project scope" in status.stdout
        assert f"  reads: {kb} (named with --kb)" in status.stdout
