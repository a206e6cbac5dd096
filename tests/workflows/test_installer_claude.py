"""`hooks install --agent claude`: what Claude Code reads, where, and nothing else.

The written settings are validated against SchemaStore's Claude Code settings schema (vendored
in tests/data/), the SessionStart commands are run as Claude Code runs them (a shell, in the
project folder) and their stdout is what the model would get.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from reflectgit.workflows.installer import CLAUDE_EVENTS, HOOK_CODE, SESSION_CODE
from tests.conftest import TEST_DATA
from tests.support.capture import (
    kb_fixture,  # noqa: F401
    transcript_waits,
)
from tests.support.kb import home_kb  # noqa: F401

# Every install here points its hooks at ~/.learnings: make it a KB.
pytestmark = pytest.mark.usefixtures("home_kb")

SCHEMAS = TEST_DATA
VENV_BIN = str(Path(sys.executable).parent)  # holds the `reflect-git` console script
BARE_PATH = "/usr/bin:/bin"  # git, sh; no reflect-git


def claude_schema() -> jsonschema.Draft7Validator:
    schema = json.loads((SCHEMAS / "claude-code-settings.schema.json").read_text())
    return jsonschema.Draft7Validator(schema)


def assert_valid(settings: dict) -> None:
    errors = sorted(claude_schema().iter_errors(settings), key=str)
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]


def commands_of(settings: dict) -> list[str]:
    return [
        h["command"] for groups in settings["hooks"].values() for g in groups for h in g["hooks"]
    ]


def session_start(settings: dict) -> list[str]:
    return [h["command"] for g in settings["hooks"]["SessionStart"] for h in g["hooks"]]


def run_as_harness(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """The command line as Claude Code runs it: through the shell, in the project, stdin empty."""
    return subprocess.run(
        command, shell=True, cwd=cwd, env=env, input="", capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def project_kb(tmp_path: Path, cli) -> tuple[Path, Path]:
    """A project folder and a KB holding one note."""
    kb = tmp_path / "kb"
    assert cli("init", str(kb)).code == 0
    out = cli(
        "--kb", str(kb), "add", "--title", "Prefill connection pools at startup",
        "--insight", "cold pools time out the first requests", "--category", "performance",
        "--confidence", "high",
    )  # fmt: skip
    assert out.code == 0, out.err
    project = tmp_path / "proj"
    project.mkdir()
    return project, kb


def test_the_schema_can_fail():
    """The vendored schema rejects what Claude Code would reject (so the checks below mean it)."""
    bad = {"hooks": {"PostToolUse": [{"hooks": [{"type": "command"}]}]}}
    assert list(claude_schema().iter_errors(bad))
    typo = {"hooks": {"PostToolUze": []}}
    assert list(claude_schema().iter_errors(typo))


def test_project_scope_is_portable_and_session_start_prints_only_context(
    cli, pinned_env, project_kb, monkeypatch
):
    project, kb = project_kb
    monkeypatch.setenv("PATH", f"{VENV_BIN}:{BARE_PATH}")
    out = cli("--json", "hooks", "install", str(project), "--agent", "claude", "--scope", "project")
    assert out.code == 0, out.err
    doc = out.json()
    assert doc["action"] == "installed" and doc["command"] == "reflect-git"
    shared = project / ".claude" / "settings.json"
    assert doc["settings"] == str(shared)
    assert not (project / ".claude" / "settings.local.json").exists()
    settings = json.loads(shared.read_text())
    assert_valid(settings)
    assert set(settings["hooks"]) == {*CLAUDE_EVENTS, "SessionStart"}
    for command in commands_of(settings):
        # Committed and shared: nothing of this machine in it.
        assert command.startswith(("reflect-git-session-start ", "reflect-git-hook ")), command
        assert sys.executable not in command and str(pinned_env) not in command
    assert "reflect-git-hook PostToolUse --harness claude" in commands_of(settings)

    state = project.parent / "state"
    env = {**os.environ, "REFLECT_GIT_KB": str(kb), "REFLECT_STATE_DIR": str(state)}
    (start,) = session_start(settings)  # one command: the recall, and the drain started
    transcript_waits(state)
    assert start == "reflect-git-session-start --harness claude"
    proc = run_as_harness(start, project, env)
    assert proc.returncode == 0, proc.stderr
    # Claude Code adds SessionStart stdout to the model's context: one JSON document, no more.
    context = json.loads(proc.stdout)
    assert context["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    said = context["hookSpecificOutput"]["additionalContext"]
    assert "Prefill connection pools" in said
    # The show hint names the `reflect-git` beside the hook's script, with the KB it read.
    assert f"(`{VENV_BIN}/reflect-git --kb {kb} show ID` prints a note in full.)" in said
    assert (state / "drain-background.log").is_file()  # the drain's output goes there
    # The agent hook's own entry point, as installed, answers SubagentStop with its `{}`.
    (subagent,) = [c for c in commands_of(settings) if " SubagentStop " in c]
    proc = run_as_harness(subagent, project, env)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "{}\n", ""), proc.stderr


def test_drain_background_says_nothing_on_stdout_but_tells_a_person_on_stderr(cli, kb):
    out = cli("drain", "--background")
    assert out.code == 0, out.err
    assert out.out == "" and "drain started in the background" in out.err
    doc = cli("--json", "drain", "--background").json()  # --json keeps its one document
    assert doc["background"] is True and isinstance(doc["pid"], int)


def test_reflect_disabled_silences_every_session_start_command(
    cli, pinned_env, project_kb, monkeypatch
):
    project, kb = project_kb
    monkeypatch.setenv("PATH", f"{VENV_BIN}:{BARE_PATH}")
    assert (
        cli("hooks", "install", str(project), "--agent", "claude", "--scope", "project").code == 0
    )
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    state = project.parent / "state"
    env = {**os.environ, "REFLECT_GIT_KB": str(kb), "REFLECT_STATE_DIR": str(state)}
    older = ["reflect-git recall --format claude", "reflect-git drain --background --quiet"]
    transcript_waits(state)
    for command in [*session_start(settings), *older]:  # an older install's commands too
        proc = run_as_harness(command, project, {**env, "REFLECT_DISABLED": "1"})
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == "", (command, proc.stdout)
    assert not (state / "drain-background.log").exists()  # no drain started
    # Without the switch the same recall command does hand over the note.
    assert "Prefill" in run_as_harness(session_start(settings)[0], project, env).stdout
    assert (state / "drain-background.log").is_file()


def test_an_older_installs_session_start_commands_still_work(cli, pinned_env, project_kb):
    """Older releases wrote two SessionStart commands, the recall and the drain started in the
    background: as installed, they still hand over the notes and start the drain."""
    project, kb = project_kb
    state = project.parent / "state"
    env = {**os.environ, "PATH": f"{VENV_BIN}:{BARE_PATH}", "REFLECT_STATE_DIR": str(state)}
    pin = f" --kb {kb}"
    proc = run_as_harness(f"reflect-git recall --format claude{pin}", project, env)
    assert proc.returncode == 0, proc.stderr
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Prefill connection pools" in context
    assert f"reflect-git --kb {kb} show ID" in context  # the show hint runs here as written
    proc = run_as_harness(f"reflect-git drain --background --quiet{pin}", project, env)
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
    assert (state / "drain-background.log").is_file()


def test_project_scope_without_reflect_git_on_path_keeps_machine_paths_local(
    cli, pinned_env, tmp_path, monkeypatch
):
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    shared = project / ".claude" / "settings.json"
    team = {"permissions": {"allow": ["Bash(make test)"]}}
    shared.write_text(json.dumps(team, indent=2) + "\n")
    before = shared.read_bytes()
    monkeypatch.setenv("PATH", BARE_PATH)
    out = cli("--json", "hooks", "install", str(project), "--agent", "claude", "--scope", "project")
    assert out.code == 0, out.err
    local = project / ".claude" / "settings.local.json"
    assert out.json()["settings"] == str(local)
    assert "not on PATH" in out.json()["notes"][0]
    assert shared.read_bytes() == before  # the shared file never gets this machine's path
    settings = json.loads(local.read_text())
    assert_valid(settings)
    entries = tuple(
        f"{sys.executable} -c {shlex.quote(code)} " for code in (HOOK_CODE, SESSION_CODE)
    )
    assert all(c.startswith(entries) for c in commands_of(settings))
    # Once reflect-git is on PATH, a second install moves the hooks into the shared file.
    monkeypatch.setenv("PATH", f"{VENV_BIN}:{BARE_PATH}")
    out = cli("--json", "hooks", "install", str(project), "--agent", "claude", "--scope", "project")
    assert out.json()["settings"] == str(shared) and out.json()["cleaned"] == [str(local)]
    assert json.loads(local.read_text()) == {}
    moved = json.loads(shared.read_text())
    assert moved["permissions"] == team["permissions"]
    assert_valid(moved)
    out = cli(
        "hooks", "install", str(project), "--agent", "claude", "--scope", "project", "--uninstall"
    )
    assert out.code == 0, out.err
    assert shared.read_bytes() == before


def test_symlinked_user_settings_are_edited_through_the_link(cli, pinned_env, tmp_path):
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude-settings.json"
    original = json.dumps({"model": "opus"}, indent=2) + "\n"
    real.write_text(original)
    real.chmod(0o600)
    link = pinned_env / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)
    out = cli("hooks", "install", "--agent", "claude")
    assert out.code == 0, out.err
    assert link.is_symlink() and os.readlink(link) == str(real)
    data = json.loads(real.read_text())
    assert data["model"] == "opus" and "SessionStart" in data["hooks"]
    assert_valid(data)
    assert stat.S_IMODE(real.stat().st_mode) == 0o600  # a private file stays private
    assert not list(link.parent.glob(".*tmp")) and not list(dotfiles.glob(".*tmp"))
    assert cli("hooks", "install", "--agent", "claude", "--uninstall").code == 0
    assert link.is_symlink() and real.read_text() == original


@pytest.mark.parametrize("indent", [4, "\t", 2])
def test_indentation_and_non_ascii_are_kept(cli, pinned_env, indent):
    settings = pinned_env / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {
        "statusLine": {"type": "command", "command": "echo 'Grüße ✓ 東京'"},
        "env": {"GREETING": "Привет"},
    }
    original = json.dumps(mine, indent=indent, ensure_ascii=False) + "\n"
    settings.write_text(original, encoding="utf-8")
    assert cli("hooks", "install", "--agent", "claude").code == 0
    text = settings.read_text(encoding="utf-8")
    assert "Grüße ✓ 東京" in text and "Привет" in text and "\\u" not in text
    unit = indent if isinstance(indent, str) else " " * indent
    assert f'\n{unit}"statusLine"' in text and f'\n{unit}"hooks"' in text
    assert cli("hooks", "install", "--agent", "claude", "--uninstall").code == 0
    assert settings.read_text(encoding="utf-8") == original  # byte for byte


def test_user_scope_names_this_interpreter_and_old_entries_are_replaced(cli, pinned_env):
    settings = pinned_env / ".claude" / "settings.json"
    settings.parent.mkdir()
    # What an older reflect-git wrote: no --harness, drain printing on stdout.
    old = {
        "hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "/old/python -m reflectgit hook Stop"}]}],
            "SessionStart": [
                {"hooks": [{"type": "command", "command": "/old/python -m reflectgit drain --background"}]}
            ],
        }
    }  # fmt: skip
    settings.write_text(json.dumps(old))
    out = cli("--json", "hooks", "install", "--agent", "claude")
    assert out.json()["action"] == "updated"
    data = json.loads(settings.read_text())
    assert_valid(data)
    commands = commands_of(data)
    assert not [c for c in commands if c.startswith("/old/")]
    pin = f" --kb {pinned_env}/.learnings"  # a personal file names the KB it was installed for
    assert (
        f"{sys.executable} -c 'from reflectgit.hooks.agent import main; raise SystemExit(main())' Stop --harness claude{pin}"
        in commands
    )
    start = "from reflectgit.hooks.sessionstart import main; raise SystemExit(main())"
    assert session_start(data) == [f"{sys.executable} -c '{start}' --harness claude{pin}"]
    assert len(data["hooks"]["Stop"]) == 1  # replaced, not duplicated
