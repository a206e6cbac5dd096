"""`hooks install --agent claude|codex|copilot`: merge our commands, leave everything else alone.

tests/workflows/test_installer_claude.py and tests/workflows/test_installer_codex_copilot.py check the written files
against each harness's documented format and run the commands as the harness does.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from reflectgit.workflows.installer import CLAUDE_EVENTS, is_our_command
from tests.conftest import needs_shared
from tests.support.capture import kb_fixture, queue_entries, transcripts_fixture  # noqa: F401
from tests.support.kb import home_kb  # noqa: F401

# Every install here points its hooks at ~/.learnings: make it a KB.
pytestmark = pytest.mark.usefixtures("home_kb")

OTHER = {
    "model": "opus",
    "hooks": {
        "PostToolUse": [
            {"matcher": "Edit", "hooks": [{"type": "command", "command": "prettier --write"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    },
}


def test_claude_user_install_merges_and_uninstall_restores(cli, pinned_env):
    settings = Path(pinned_env) / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(OTHER))
    out = cli("--json", "hooks", "install", "--agent", "claude")
    assert out.code == 0, out.err
    assert out.json()["action"] == "installed"
    data = json.loads(settings.read_text())
    assert data["model"] == "opus"
    assert set(CLAUDE_EVENTS) <= set(data["hooks"])
    post = data["hooks"]["PostToolUse"]
    assert post[0] == OTHER["hooks"]["PostToolUse"][0]
    assert post[1]["matcher"] == "*"
    # A personal file names the KB the install found (here the fallback ~/.learnings).
    assert post[1]["hooks"][0]["command"].endswith(
        f"-c 'from reflectgit.hooks.agent import main; raise SystemExit(main())' PostToolUse --harness claude --kb {pinned_env}/.learnings"
    )
    assert post[1]["hooks"][0]["async"] is True  # capture only: Claude Code does not wait
    # Installing again changes nothing and never duplicates.
    before = settings.read_text()
    assert cli("--json", "hooks", "install", "--agent", "claude").json()["action"] == "unchanged"
    assert settings.read_text() == before
    status = cli("--json", "hooks", "status", str(pinned_env)).json()
    row = next(r for r in status["agents"] if r["agent"] == "claude" and r["scope"] == "user")
    assert row["installed"] and "Stop" in row["events"]
    out = cli("--json", "hooks", "install", "--agent", "claude", "--uninstall")
    assert out.json()["action"] == "uninstalled"
    assert json.loads(settings.read_text()) == OTHER


def test_session_start_recalls_and_drains_in_the_background(cli, pinned_env, tmp_path):
    import subprocess

    out = cli("hooks", "install", "--agent", "claude")
    assert out.code == 0, out.err
    data = json.loads((Path(pinned_env) / ".claude" / "settings.json").read_text())
    entries = [h for g in data["hooks"]["SessionStart"] for h in g["hooks"]]
    commands = [h["command"] for h in entries]
    pin = f" --kb {pinned_env}/.learnings"
    (command,) = commands  # one process: the recall, then the drain started detached
    start = "from reflectgit.hooks.sessionstart import main; raise SystemExit(main())"
    assert command.endswith(f"-c '{start}' --harness claude" + pin)
    assert not any("async" in h for h in entries)  # its stdout is the context: never async
    # The harness runs the command line as written, in the project folder, with a KB that
    # holds no commit yet: it must still answer with the JSON Claude Code expects, exit 0.
    proc = subprocess.run(
        command, shell=True, cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    cli("hooks", "install", "--agent", "claude", "--uninstall")
    assert not (Path(pinned_env) / ".claude" / "settings.json").read_text().count("reflectgit")


def test_claude_project_scope_writes_the_project_settings(cli, tmp_path, monkeypatch):
    import sys

    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin")
    project = tmp_path / "proj"
    project.mkdir()
    out = cli("hooks", "install", str(project), "--agent", "claude", "--scope", "project")
    assert out.code == 0, out.err
    data = json.loads((project / ".claude" / "settings.json").read_text())
    assert "SubagentStop" in data["hooks"]
    cli("hooks", "install", str(project), "--agent", "claude", "--scope", "project", "--uninstall")
    assert json.loads((project / ".claude" / "settings.json").read_text()) == {}


def test_hooks_of_an_earlier_release_are_ours_to_upgrade_and_to_remove(cli, pinned_env):
    """Earlier releases wrote `reflect-git hook EVENT` (and `<python> -m reflectgit hook`); an
    install replaces them with `reflect-git-hook EVENT`, an uninstall removes either."""
    settings = Path(pinned_env) / ".claude" / "settings.json"
    settings.parent.mkdir()
    old = json.loads(json.dumps(OTHER))
    old["hooks"]["Stop"].append(
        {"hooks": [{"type": "command", "command": "reflect-git hook Stop --harness claude"}]}
    )
    old["hooks"]["PostToolUse"].append(
        {
            "matcher": "*",
            "hooks": [{"type": "command", "command": "/old/python -m reflectgit hook PostToolUse"}],
        }
    )
    settings.write_text(json.dumps(old))
    assert cli("--json", "hooks", "install", "--agent", "claude").json()["action"] == "updated"
    commands = [
        h["command"] for groups in json.loads(settings.read_text())["hooks"].values()
        for g in groups for h in g["hooks"]
    ]  # fmt: skip
    assert not [c for c in commands if " hook " in c or c.startswith("/old/")], commands
    stop = f"-c 'from reflectgit.hooks.agent import main; raise SystemExit(main())' Stop --harness claude --kb {pinned_env}/.learnings"
    assert sum(c.endswith(stop) for c in commands) == 1
    settings.write_text(json.dumps(old))  # an old install, removed as it is
    assert cli("--json", "hooks", "install", "--agent", "claude", "--uninstall").code == 0
    assert json.loads(settings.read_text()) == OTHER


def test_our_commands_are_told_from_everyone_elses():
    for ours in (
        "reflect-git-hook PostToolUse --harness claude",
        "'/opt/py 3/bin/python' -m reflectgit.hooks.agent Stop --harness codex",
        "'/opt/py 3/bin/python' -c 'from reflectgit.hooks.agent import main; raise SystemExit(main())' Stop --harness codex",
        "reflect-git hook Stop --harness claude",
        "/usr/bin/python3 -m reflectgit hook Stop",
        "reflect-git recall --format claude",
        "/usr/bin/python3 -m reflectgit drain --background --quiet",
        "reflect-git-session-start --harness codex --mcp",
        "'/opt/py 3/bin/python' -m reflectgit.hooks.sessionstart --harness claude",
        "/usr/bin/python3 -c 'from reflectgit.hooks.sessionstart import main; raise SystemExit(main())'"
        " --harness claude",
    ):
        assert is_our_command(ours), ours
    for theirs in (
        "prettier --write",
        "reflect-git-hooks-of-mine Stop",
        "reflect-git-session-starter",
        "say reflect-git",
        None,
    ):
        assert not is_our_command(theirs), theirs


def test_invalid_settings_are_refused_and_left_alone(cli, pinned_env):
    settings = Path(pinned_env) / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{ not json")
    out = cli("hooks", "install", "--agent", "claude")
    assert out.code == 1 and "not valid JSON" in out.err and "hint:" in out.err
    assert settings.read_text() == "{ not json"


def test_unknown_agent_is_a_usage_error(cli):
    out = cli("hooks", "install", "--agent", "vim")
    assert out.code == 2 and "unknown agent" in out.err


def test_codex_install_replaces_an_old_notify_block_and_keeps_the_rest(cli, pinned_env):
    config = Path(pinned_env) / ".codex" / "config.toml"
    config.parent.mkdir()
    mine = 'model = "o4"\n\n[profiles.fast]\nmodel = "mini"\n'
    # What an older reflect-git wrote: a managed `notify` block before the tables.
    config.write_text(
        '# >>> reflect-git >>>\nnotify = ["/old/python", "-m", "reflectgit", "hook", '
        '"codex-notify"]\n# <<< reflect-git <<<\n' + mine
    )
    out = cli("--json", "hooks", "install", "--agent", "codex")
    assert out.code == 0, out.err
    assert out.json()["settings"] == str(config.with_name("hooks.json"))
    assert out.json()["cleaned"] == [str(config)]
    assert config.read_text() == mine
    data = json.loads(config.with_name("hooks.json").read_text())
    assert "Stop" in data["hooks"] and "SessionStart" in data["hooks"]
    cli("hooks", "install", "--agent", "codex", "--uninstall")
    assert config.read_text() == mine and not config.with_name("hooks.json").exists()


def test_codex_install_leaves_the_users_own_notify_program(cli, pinned_env):
    config = Path(pinned_env) / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('notify = ["terminal-notifier"]\n')
    out = cli("hooks", "install", "--agent", "codex")
    assert out.code == 0, out.err
    assert config.read_text() == 'notify = ["terminal-notifier"]\n'


@needs_shared
def test_codex_notify_queues_the_thread_rollout(kb, pinned_env):
    from tests.conftest import DATA
    from tests.support.capture import run_hook

    thread = "a1374ada-3da2-56de-9e16-6ea50acf264a"
    folder = Path(pinned_env) / ".codex" / "sessions" / "2026" / "11" / "02"
    folder.mkdir(parents=True)
    rollout = folder / f"rollout-2026-11-02T14-00-00-{thread}.jsonl"
    rollout.write_bytes(
        (DATA / "transcripts" / "codex" / "rollout-correction-0.jsonl").read_bytes()
    )
    payload = json.dumps({"type": "agent-turn-complete", "thread-id": thread, "cwd": "/w"})
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "reflectgit", "hook", "codex-notify", payload],
        capture_output=True,
        text=True,
        env={**os.environ, "REFLECT_GIT_HOOK_SYNC": "1"},  # the capture pass in the foreground
    )
    assert proc.returncode == 0 and proc.stdout == ""
    (entry,) = queue_entries(kb)
    assert entry["harness"] == "codex" and entry["transcript_path"] == str(rollout)
    assert run_hook("codex-notify", "{}").returncode == 0


@needs_shared
def test_idle_sweep_queues_quiet_sessions_only(cli, kb, transcripts, monkeypatch):
    now = time.time()
    quiet = transcripts / "02c8261b-740c-1a65-89be-4b4bd9ee50e2.jsonl"
    fresh = transcripts / "d5f4b3b2-e4b0-6ce6-0741-c7a87ce42c82.jsonl"
    old = transcripts / "091489cd-03b2-7030-e7f5-24f34dabb96d.jsonl"
    for path in transcripts.iterdir():
        os.utime(path, (now - 3 * 86400, now - 3 * 86400))
    os.utime(quiet, (now - 1200, now - 1200))
    os.utime(fresh, (now - 5, now - 5))
    os.utime(old, (now - 2 * 86400, now - 2 * 86400))
    monkeypatch.setenv("REFLECT_IDLE_PROJECTS_ROOT", str(transcripts))
    out = cli("--json", "capture", "idle")
    assert out.code == 0, out.err
    assert [e["transcript_path"] for e in queue_entries(kb)] == [str(quiet)]
    assert queue_entries(kb)[0]["trigger"] == "idle"
    monkeypatch.setenv("REFLECT_IDLE_DISABLED", "1")
    assert cli("--json", "capture", "idle").json()["disabled"] is True
