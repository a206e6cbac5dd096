"""`hooks install` points what it installs at the KB you set up, says which, refuses without
one; `hooks status` names the KB each integration reads; installs that run twice in a session
are warned about; Claude Code's capture-only events are async; recall's "show" hint is a
command the agent can run (or the MCP tool)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from reflectgit.workflows.installer import CLAUDE_ASYNC_EVENTS, CLAUDE_EVENTS, doubled

VENV_BIN = str(Path(sys.executable).parent)  # holds the `reflect-git` console scripts


@pytest.fixture
def team_kb(cli, pinned_env: Path) -> Path:
    """`reflect-git init ~/team-kb` and one note in it: the getting-started page's KB."""
    kb = pinned_env / "team-kb"
    assert cli("init", str(kb)).code == 0
    added = cli("--kb", str(kb), "add", "--title", "Prefill connection pools at startup",
                "--insight", "cold pools time out the first requests", "--category", "perf",
                "--confidence", "high")  # fmt: skip
    assert added.code == 0, added.err
    return kb


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A code repository (not a KB), the current folder."""
    path = tmp_path / "app"
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    monkeypatch.chdir(path)
    return path


def settings_of(pinned_env: Path) -> dict:
    return json.loads((pinned_env / ".claude" / "settings.json").read_text())


def all_commands(settings: dict) -> list[str]:
    return [h["command"] for gs in settings["hooks"].values() for g in gs for h in g["hooks"]]


def run_as_harness(command: str, cwd: Path, payload: str) -> subprocess.CompletedProcess[str]:
    """A shell in the project folder, as Claude Code runs a hook; nothing of ours on PATH and
    no REFLECT_* variable: the command line alone must find the KB."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFLECT_")}
    env["PATH"] = "/usr/bin:/bin"
    return subprocess.run(
        command, shell=True, cwd=cwd, input=payload, capture_output=True, text=True, env=env
    )


def test_the_hooks_read_the_kb_init_made_not_learnings(cli, pinned_env, team_kb, app):
    """The issue: after `init ~/team-kb`, `hooks install --agent claude` wired ~/.learnings."""
    out = cli("hooks", "install", "--agent", "claude")
    assert out.code == 0, out.err
    config = pinned_env / ".config" / "reflect-git" / "config.toml"
    assert f"  kb: {team_kb}, your default KB ({config}); every command names it (--kb)" in (
        out.out
    )
    settings = settings_of(pinned_env)
    commands = all_commands(settings)
    assert commands and all(c.endswith(f" --kb {team_kb}") for c in commands), commands
    recall = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    start = {"session_id": "s1", "hook_event_name": "SessionStart", "cwd": str(app),
             "source": "startup", "transcript_path": str(app / "t.jsonl")}  # fmt: skip
    proc = run_as_harness(recall, app, json.dumps(start))
    assert proc.returncode == 0, proc.stderr
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Prefill connection pools at startup" in context
    # The capture hook writes into the same KB's state directory.
    stop = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    prompt = {"session_id": "s1", "hook_event_name": "UserPromptSubmit", "cwd": str(app),
              "prompt": "hello", "transcript_path": str(app / "t.jsonl")}  # fmt: skip
    assert run_as_harness(stop, app, json.dumps(prompt)).returncode == 0
    # In the inbox, or already moved into the session's event log by a pass that the
    # SessionStart above started in the background.
    events = team_kb / ".git" / "reflect-git" / "events"
    inbox = events / "inbox.spool"
    recorded = (inbox.is_file() and b'"s1"' in inbox.read_bytes()) or any(
        b'"hello"' in log.read_bytes() for log in events.glob("s1*.jsonl")
    )
    assert recorded, "no event recorded in the KB"
    assert not (pinned_env / ".learnings").exists()


def test_the_show_hint_is_a_command_the_agent_can_run(cli, pinned_env, team_kb, app):
    assert cli("hooks", "install", "--agent", "claude").code == 0
    recall = settings_of(pinned_env)["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    proc = run_as_harness(recall, app, "{}")
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    hint = context.rsplit("\n", 1)[-1]
    assert hint.startswith("(`") and hint.endswith("` prints a note in full.)"), hint
    line = hint[2 : -len("` prints a note in full.)")]
    assert f"--kb {team_kb} show ID" in line
    note_id = context.split("(", 2)[1].split(")")[0]  # "- [high] Title (ID)"
    shown = run_as_harness(line.replace(" show ID", f" show {shlex.quote(note_id)}"), app, "")
    assert shown.returncode == 0, shown.stderr
    assert "cold pools time out the first requests" in shown.stdout


def test_with_mcp_the_hint_names_the_mcp_tool(cli, pinned_env, team_kb, app):
    out = cli("hooks", "install", "--agent", "claude", "--mcp")
    assert out.code == 0, out.err
    recall = settings_of(pinned_env)["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert "from reflectgit.hooks.sessionstart import main" in recall
    assert "raise SystemExit(main())' --harness claude --mcp --kb " in recall
    context = json.loads(run_as_harness(recall, app, "{}").stdout)["hookSpecificOutput"]
    assert context["additionalContext"].endswith(
        "(the `show` tool of the reflect-git MCP server prints a note in full.)"
    )
    entry = json.loads((pinned_env / ".claude.json").read_text())["mcpServers"]["reflect-git"]
    assert entry["args"][-3:] == ["--kb", str(team_kb), "mcp"]


def test_no_kb_there_is_refused_with_a_hint_and_nothing_is_written(cli, pinned_env, app):
    out = cli("hooks", "install", "--agent", "claude")
    assert out.code == 1
    assert f"no knowledge base at {pinned_env / '.learnings'} (the fallback ~/.learnings)" in (
        out.err
    )
    assert "hint: run `reflect-git init PATH`" in out.err
    assert not (pinned_env / ".claude").exists()
    named = cli("--kb", str(app / "nope"), "hooks", "install", "--agent", "codex")
    assert named.code == 1 and "(from --kb)" in named.err
    assert not (pinned_env / ".codex").exists()


def test_claude_capture_events_are_async_and_the_answering_ones_never(
    cli, pinned_env, team_kb, app
):
    assert cli("hooks", "install", "--agent", "claude").code == 0
    hooks = settings_of(pinned_env)["hooks"]
    for event in (*CLAUDE_EVENTS, "SessionStart"):
        for entry in (h for g in hooks[event] for h in g["hooks"]):
            assert entry.get("async", False) is (event in CLAUDE_ASYNC_EVENTS), event
    for never in ("SessionStart", "PreToolUse", "PermissionRequest", "SessionEnd"):
        assert never not in CLAUDE_ASYNC_EVENTS


def test_a_shared_project_file_names_no_kb_and_relies_on_the_default(
    cli, pinned_env, team_kb, app, monkeypatch
):
    monkeypatch.setenv("PATH", f"{VENV_BIN}:/usr/bin:/bin")  # `reflect-git` is portable
    out = cli("hooks", "install", str(app), "--agent", "claude", "--scope", "project")
    assert out.code == 0, out.err
    assert f"  kb: {team_kb}, your default KB" in out.out and "names no KB" in out.out
    shared = json.loads((app / ".claude" / "settings.json").read_text())
    assert not [c for c in all_commands(shared) if "--kb" in c]
    # With no default set, the KB resolved here becomes it (so the shared hooks find it).
    assert cli("config", "default-kb", "--unset").code == 0
    again = cli("--kb", str(team_kb), "hooks", "install", str(app), "--agent", "claude",
                "--scope", "project")  # fmt: skip
    assert again.code == 0, again.err
    assert f"default KB: {team_kb}" in again.out
    assert cli("--json", "config", "default-kb").json()["default_kb"] == str(team_kb)


def test_hooks_status_names_the_kb_each_integration_reads(cli, pinned_env, team_kb, app):
    assert cli("hooks", "install", "--agent", "claude").code == 0
    assert cli("hooks", "install", "--agent", "codex").code == 0
    status = cli("--json", "hooks", "status").json()
    rows = {(r["agent"], r["scope"]): r for r in status["agents"] if r["installed"]}
    assert set(rows) == {("claude", "user"), ("codex", "user")}
    for row in rows.values():
        assert (row["kb"], row["kb_source"], row["kb_exists"]) == (str(team_kb), "named", True)
    text = cli("hooks", "status").out
    assert f"  reads: {team_kb} (named with --kb)" in text
    # The post-commit shim of this repository: it finds the default KB when it runs.
    assert cli("hooks", "install").code == 0
    git_row = cli("--json", "hooks", "status").json()["git"]
    assert (git_row["kb"], git_row["kb_source"], git_row["kb_exists"]) == (
        str(team_kb),
        "default",
        True,
    )
    # The KB goes away: status says so.
    os.rename(team_kb, team_kb.with_name("moved"))
    gone = cli("hooks", "status").out
    assert f"  reads: {team_kb} (named with --kb): no knowledge base there" in gone


def test_user_and_project_scope_together_warn_and_status_reports_it(cli, pinned_env, team_kb, app):
    """The issue: both scopes double recall and every captured event, silently."""
    assert cli("hooks", "install", "--agent", "claude").code == 0
    both = cli("hooks", "install", str(app), "--agent", "claude", "--scope", "project")
    assert both.code == 0, both.err
    assert "warning: claude hooks are installed at user and project scope" in both.err
    assert "recall twice and record every event twice" in both.err
    status = cli("--json", "hooks", "status", str(app)).json()
    assert [d["kind"] for d in status["doubled"]] == ["both-scopes"]
    assert "warning: claude hooks are installed at user and project scope" in (
        cli("hooks", "status", str(app)).out
    )
    # One scope again: no warning.
    assert cli("hooks", "install", str(app), "--agent", "claude", "--scope", "project",
               "--uninstall").code == 0  # fmt: skip
    assert cli("--json", "hooks", "status", str(app)).json()["doubled"] == []
    single = cli("hooks", "install", "--agent", "claude")
    assert "warning" not in single.err


def test_claude_and_copilot_in_one_project_warn(cli, pinned_env, team_kb, app, monkeypatch):
    """Copilot CLI also runs the hooks in a repository's .claude/settings.json."""
    monkeypatch.setenv("PATH", f"{VENV_BIN}:/usr/bin:/bin")  # the shared file is portable
    assert cli("hooks", "install", str(app), "--agent", "claude", "--scope", "project").code == 0
    out = cli("hooks", "install", "--agent", "copilot")
    assert out.code == 0, out.err
    assert "warning: Copilot CLI also runs the Claude Code hooks of the project's" in out.err
    twice = cli("--json", "hooks", "status", str(app)).json()["doubled"]
    assert [d["kind"] for d in twice] == ["copilot-reads-claude"]
    assert str(app / ".claude" / "settings.json") in twice[0]["settings"]


def test_doubled_negatives():
    row = {"installed": True, "shared": True, "events": ["Stop"], "settings": "f"}
    assert doubled([]) == []
    # Codex at user scope and Claude at project scope: two harnesses, no doubling.
    assert doubled([{**row, "agent": "codex", "scope": "user"},
                    {**row, "agent": "claude", "scope": "project"}]) == []  # fmt: skip
    # Copilot with Claude only in the personal settings.local.json: not read by Copilot.
    assert doubled([{**row, "agent": "copilot", "scope": "user"},
                    {**row, "agent": "claude", "scope": "project", "shared": False}]) == []  # fmt: skip
    # Not installed rows never count.
    assert doubled([{**row, "agent": "claude", "scope": "user"},
                    {**row, "agent": "claude", "scope": "project", "installed": False}]) == []  # fmt: skip


def test_the_timer_runs_the_default_kb(cli, pinned_env, team_kb, app):
    """The issue: `--timer` pinned ~/.learnings whatever KB the user made."""
    out = cli("hooks", "install", "--timer", "--timer-kind", "systemd")
    assert out.code == 0, out.err
    unit = (pinned_env / ".config" / "systemd" / "user" / "reflect-git-idle.service").read_text()
    assert f"--kb {team_kb} " in unit and ".learnings" not in unit
