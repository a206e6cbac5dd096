"""``hooks install --agent claude|codex --mcp``: the MCP server entry in the harness's real config
files (Claude Code's ``~/.claude.json`` / ``.mcp.json``, Codex's ``config.toml``), merged next to
what is there, kept byte for byte where untouched, idempotent, removed by ``--uninstall``; and
the entry written really starts a server the SDK's client can talk to."""

from __future__ import annotations

import difflib
import json
import os
import pty
import select
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.conftest import run_cli_proc
from tests.support.kb import home_kb  # noqa: F401

# Every install here points its hooks at ~/.learnings: make it a KB.
pytestmark = pytest.mark.usefixtures("home_kb")

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

VENV_BIN = str(Path(sys.executable).parent)  # holds the `reflect-git` console script
BARE_PATH = "/usr/bin:/bin"  # git, sh; no reflect-git

CLAUDE_JSON = {
    "numStartups": 41,
    "installMethod": "native",
    "autoUpdates": True,
    "tipsHistory": {"memory-command": 12, "theme-command": 3},
    "mcpServers": {
        "github": {
            "type": "stdio",
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"},
        }
    },
    "projects": {
        "/home/me/café": {"allowedTools": [], "mcpServers": {}, "hasTrustDialogAccepted": True}
    },
    "userID": "0f3c9",
}
CODEX_TOML = """\
# my Codex settings
model = "gpt-5-codex"
approval_policy = "on-request"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_TOKEN = "x" }

# profiles below
[profiles.fast]
model = "gpt-5-mini"   # cheap
"""


def added_and_removed(before: str, after: str) -> tuple[list[str], list[str]]:
    diff = list(difflib.ndiff(before.splitlines(keepends=True), after.splitlines(keepends=True)))
    return [d[2:] for d in diff if d.startswith("+ ")], [d[2:] for d in diff if d.startswith("- ")]


def install(
    *args: str, path: str | None = None, kb: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {"PATH": path} if path else None
    head = ["--kb", str(kb)] if kb else []
    return run_cli_proc(*head, "--json", "hooks", "install", *args, env=env)


def tools_of(command: str, args: list[str], cwd: Path) -> list[str]:
    """Start the server the way the harness would, from the entry, and list its tools."""
    params = StdioServerParameters(command=command, args=args, env=dict(os.environ), cwd=str(cwd))

    async def main() -> list[str]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            return [t.name for t in (await s.list_tools()).tools]

    return anyio.run(main)


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    path = tmp_path / "kb"
    assert run_cli_proc("--kb", str(path), "init", "--no-pre-commit").returncode == 0
    return path


# --------------------------------------------------------------------------- Claude Code


def test_claude_user_scope_merges_into_claude_json_and_uninstall_restores_it(
    pinned_env: Path, tmp_path: Path, kb: Path
) -> None:
    path = pinned_env / ".claude.json"
    original = json.dumps(CLAUDE_JSON, indent=2, ensure_ascii=False)  # as Claude Code writes it
    path.write_text(original, encoding="utf-8")
    project = tmp_path / "proj"
    project.mkdir()

    done = install(str(project), "--agent", "claude", "--mcp", kb=kb)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["mcp"]["action"] == "registered" and doc["mcp"]["config"] == str(path)
    after = path.read_text(encoding="utf-8")
    data = json.loads(after)
    entry = data["mcpServers"]["reflect-git"]
    assert entry == {
        "type": "stdio",
        "command": sys.executable,
        "args": ["-m", "reflectgit", "--kb", str(kb), "mcp"],
        "env": {},
    }
    assert data["mcpServers"]["github"] == CLAUDE_JSON["mcpServers"]["github"]
    added, removed = added_and_removed(original, after)
    assert removed == []  # not one line that was there changed
    ours = json.dumps({"reflect-git": entry}, indent=2).splitlines()[1:-1]  # the entry's lines
    # github's closing brace gains a comma: diffed, that is "},", our lines, and its own brace.
    assert added == ["    },\n"] + [f"  {line}\n" for line in ours[:-1]]
    assert not after.endswith("\n")  # the file had no final newline and gets none
    # The hooks went where they always go.
    assert (pinned_env / ".claude" / "settings.json").exists()
    # The entry starts a working server.
    assert tools_of(entry["command"], entry["args"], project) == [
        "search", "recall", "show", "add", "confirm", "update", "supersede", "archive",
        "review_list",
    ]  # fmt: skip

    again = install(str(project), "--agent", "claude", "--mcp", kb=kb)
    assert json.loads(again.stdout)["mcp"]["action"] == "unchanged"
    assert path.read_text(encoding="utf-8") == after

    gone = install(str(project), "--agent", "claude", "--uninstall")
    assert gone.returncode == 0, gone.stderr
    assert json.loads(gone.stdout)["mcp"]["action"] == "removed"
    assert path.read_text(encoding="utf-8") == original  # byte for byte


def test_claude_project_scope_writes_a_portable_mcp_json_or_the_private_local_entry(
    pinned_env: Path, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    shared = project / ".mcp.json"
    shared.write_text('{\n    "mcpServers": {\n        "db": {"command": "db-mcp"}\n    }\n}\n')
    done = install(str(project), "--agent", "claude", "--scope", "project", "--mcp",
                   path=f"{VENV_BIN}:{BARE_PATH}")  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(shared.read_text())
    assert data["mcpServers"]["reflect-git"] == {
        "type": "stdio", "command": "reflect-git", "args": ["mcp"], "env": {},
    }  # fmt: skip
    assert data["mcpServers"]["db"] == {"command": "db-mcp"}
    assert shared.read_text().startswith(
        '{\n    "mcpServers": {\n        "db": {\n'
    )  # 4 spaces kept
    assert not (pinned_env / ".claude.json").exists()  # no machine path anywhere

    # Without reflect-git on PATH the shared file would need this machine's path: the entry
    # goes to Claude Code's private per-project entry instead, and the shared one is taken out.
    bare = install(str(project), "--agent", "claude", "--scope", "project", "--mcp", path=BARE_PATH)
    assert bare.returncode == 0, bare.stderr
    local = json.loads((pinned_env / ".claude.json").read_text())
    entry = local["projects"][str(project)]["mcpServers"]["reflect-git"]
    assert entry["command"] == sys.executable
    assert "reflect-git" not in json.loads(shared.read_text())["mcpServers"]
    assert json.loads(shared.read_text())["mcpServers"]["db"] == {"command": "db-mcp"}

    gone = install(str(project), "--agent", "claude", "--scope", "project", "--uninstall",
                   path=BARE_PATH)  # fmt: skip
    assert gone.returncode == 0, gone.stderr
    # The per-project entry install made only for ours goes with it.
    assert str(project) not in json.loads((pinned_env / ".claude.json").read_text())["projects"]
    assert json.loads(shared.read_text())["mcpServers"] == {"db": {"command": "db-mcp"}}


def test_files_that_only_ever_held_our_entry_are_removed_by_uninstall(
    pinned_env: Path, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    on_path = f"{VENV_BIN}:{BARE_PATH}"
    assert install(str(project), "--agent", "claude", "--scope", "project", "--mcp",
                   path=on_path).returncode == 0  # fmt: skip
    assert install(str(project), "--agent", "codex", "--mcp").returncode == 0
    assert (project / ".mcp.json").exists() and (pinned_env / ".codex" / "config.toml").exists()
    for agent, scope in (("claude", "project"), ("codex", "user")):
        done = install(
            str(project), "--agent", agent, "--scope", scope, "--uninstall", path=on_path
        )
        assert done.returncode == 0, done.stderr
    assert not (project / ".mcp.json").exists()
    assert not (pinned_env / ".codex" / "config.toml").exists()


# --------------------------------------------------------------------------- Codex


def test_codex_user_scope_adds_one_table_round_trips_and_uninstalls_byte_for_byte(
    pinned_env: Path, tmp_path: Path, kb: Path
) -> None:
    config = pinned_env / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_TOML, encoding="utf-8")
    project = tmp_path / "proj"
    project.mkdir()

    done = install(str(project), "--agent", "codex", "--mcp")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["mcp"]["action"] == "registered"
    after = config.read_text(encoding="utf-8")
    data = tomllib.loads(after)
    # A personal entry names the KB it was made for: the default KB `init` (the fixture) set.
    named_kb = str(kb)
    assert data["mcp_servers"]["reflect-git"] == {
        "command": sys.executable,
        "args": ["-m", "reflectgit", "--kb", named_kb, "mcp"],
    }
    before = tomllib.loads(CODEX_TOML)
    assert {k: v for k, v in data.items() if k != "mcp_servers"} == {
        k: v for k, v in before.items() if k != "mcp_servers"
    }
    assert data["mcp_servers"]["github"] == before["mcp_servers"]["github"]
    added, removed = added_and_removed(CODEX_TOML, after)
    assert removed == []
    assert added == [
        "\n",
        "[mcp_servers.reflect-git]\n",
        f'command = "{sys.executable}"\n',
        f'args = ["-m", "reflectgit", "--kb", "{named_kb}", "mcp"]\n',
    ]
    assert after.startswith(CODEX_TOML)  # every byte that was there, in place
    server = data["mcp_servers"]["reflect-git"]
    assert "search" in tools_of(server["command"], server["args"], project)

    status = run_cli_proc("--json", "hooks", "status", str(project))
    rows = [r for r in json.loads(status.stdout)["mcp"] if r["registered"]]
    assert rows == [
        {
            "agent": "codex",
            "scope": "user",
            "config": str(config),
            "registered": True,
            "command": sys.executable,
            "kb": named_kb,
            "kb_source": "named",
            "kb_exists": True,
        }
    ]
    text = run_cli_proc("hooks", "status", str(project)).stdout
    assert f"codex (user) MCP: {sys.executable} ({config})" in text
    assert f"claude (user) MCP: not registered ({pinned_env / '.claude.json'})" in text

    again = install(str(project), "--agent", "codex", "--mcp")
    assert json.loads(again.stdout)["mcp"]["action"] == "unchanged"
    # Registered before: a plain install (from a script) keeps the entry, and says nothing.
    plain = install(str(project), "--agent", "codex")
    assert json.loads(plain.stdout)["mcp"]["action"] == "unchanged"
    assert "--mcp" not in plain.stderr
    assert config.read_text(encoding="utf-8") == after

    gone = install(str(project), "--agent", "codex", "--uninstall")
    assert gone.returncode == 0, gone.stderr
    assert config.read_text(encoding="utf-8") == CODEX_TOML


def test_codex_an_older_table_of_ours_is_replaced_in_place(
    pinned_env: Path, tmp_path: Path
) -> None:
    config = pinned_env / ".codex" / "config.toml"
    config.parent.mkdir()
    old = (
        'model = "o3"\n\n[mcp_servers."reflect-git"]\ncommand = "/old/venv/bin/python"\n'
        'args = ["-m", "reflectgit", "mcp"]\nstartup_timeout_sec = 5\n\n'
        '[mcp_servers.reflect-git.env]\nX = "1"\n\n# keep me\n[mcp_servers.other]\ncommand = "o"\n'
    )
    config.write_text(old, encoding="utf-8")
    done = install(str(tmp_path), "--agent", "codex", "--mcp")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["mcp"]["action"] == "updated"
    text = config.read_text(encoding="utf-8")
    named_kb = pinned_env / ".learnings"
    assert text == (
        'model = "o3"\n\n[mcp_servers.reflect-git]\n'
        f'command = "{sys.executable}"\nargs = ["-m", "reflectgit", "--kb", "{named_kb}", "mcp"]\n'
        '\n# keep me\n[mcp_servers.other]\ncommand = "o"\n'
    )
    assert tomllib.loads(text)["mcp_servers"]["other"] == {"command": "o"}


def test_codex_an_entry_we_cannot_edit_as_a_table_is_refused_and_nothing_is_written(
    pinned_env: Path, tmp_path: Path
) -> None:
    config = pinned_env / ".codex" / "config.toml"
    config.parent.mkdir()
    inline = 'mcp_servers = { reflect-git = { command = "x" } }\n'
    config.write_text(inline, encoding="utf-8")
    done = install(str(tmp_path), "--agent", "codex", "--mcp")
    assert done.returncode == 1
    doc = json.loads(done.stdout)
    assert "inline or dotted keys" in doc["error"] and "[mcp_servers.reflect-git]" in doc["hint"]
    assert config.read_text(encoding="utf-8") == inline
    assert not (pinned_env / ".codex" / "hooks.json").exists()  # the hooks were not written


# --------------------------------------------------------------------------- the offer


def test_from_a_script_nothing_is_registered_and_one_note_says_how(
    pinned_env: Path, tmp_path: Path
) -> None:
    done = run_cli_proc("hooks", "install", str(tmp_path), "--agent", "claude", input="")
    assert done.returncode == 0, done.stderr
    assert "add --mcp to register it" in done.stderr
    assert "MCP" not in done.stdout
    assert not (pinned_env / ".claude.json").exists()
    quiet = run_cli_proc("hooks", "install", str(tmp_path), "--agent", "claude", "--no-mcp")
    assert quiet.returncode == 0 and "--mcp" not in quiet.stderr


def test_mcp_with_an_agent_that_has_none_is_a_usage_error_before_anything_is_written(
    pinned_env: Path, tmp_path: Path
) -> None:
    done = run_cli_proc("hooks", "install", str(tmp_path), "--agent", "copilot", "--mcp")
    assert done.returncode == 2
    assert "error: --mcp registers the MCP server with an agent" in done.stderr
    assert "hint: --mcp goes with --agent claude or --agent codex" in done.stderr
    assert not (pinned_env / ".copilot").exists()


def test_a_broken_claude_json_is_refused_before_the_hooks_are_written(
    pinned_env: Path, tmp_path: Path
) -> None:
    (pinned_env / ".claude.json").write_text('{"numStartups": 3,', encoding="utf-8")
    done = run_cli_proc("hooks", "install", str(tmp_path), "--agent", "claude", "--mcp")
    assert done.returncode == 1
    assert "is not valid JSON" in done.stderr and "hint: " in done.stderr
    assert (pinned_env / ".claude.json").read_text() == '{"numStartups": 3,'
    assert not (pinned_env / ".claude" / "settings.json").exists()


def _answer_on_a_terminal(args: list[str], answer: bytes) -> tuple[int, str]:
    """Run the CLI with stdin and stderr on a pseudo-terminal; type ``answer`` at the prompt."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "reflectgit", *args],
        stdin=slave,
        stderr=slave,
        stdout=subprocess.PIPE,
        env=dict(os.environ),
    )
    os.close(slave)
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    seen = b""
    try:
        while b"[Y/n]" not in seen:
            ready, _, _ = select.select([master], [], [], 1)
            if ready:
                try:
                    seen += os.read(master, 4096)
                except OSError:
                    break
            elif proc.poll() is not None:
                break
        os.write(master, answer)
        assert proc.stdout is not None
        proc.stdout.read()
        code = proc.wait()
    finally:
        watchdog.cancel()
        os.close(master)
    return code, seen.decode("utf-8", "replace")


@pytest.mark.parametrize(("answer", "registered"), [(b"y\n", True), (b"n\n", False)])
def test_on_a_terminal_install_asks_and_does_what_the_answer_says(
    pinned_env: Path, tmp_path: Path, answer: bytes, registered: bool
) -> None:
    code, prompt = _answer_on_a_terminal(
        ["hooks", "install", str(tmp_path), "--agent", "claude"], answer
    )
    assert code == 0
    assert (
        f"Also register the reflect-git MCP server with claude ({pinned_env / '.claude.json'})?"
        in prompt
    )
    path = pinned_env / ".claude.json"
    servers: dict[str, Any] = json.loads(path.read_text())["mcpServers"] if path.exists() else {}
    assert ("reflect-git" in servers) is registered


@pytest.mark.parametrize("agent", ["codex", "claude"])
def test_a_settings_file_that_cannot_be_read_is_an_error_and_nothing_is_written(
    pinned_env: Path, tmp_path: Path, agent: str
) -> None:
    # a directory where the file should be: read_text fails with other than "no such file"
    config = pinned_env / (".codex/config.toml" if agent == "codex" else ".claude.json")
    config.mkdir(parents=True)
    done = install(str(tmp_path), "--agent", agent, "--mcp")
    assert done.returncode == 1
    assert f"error: cannot read {config}" in done.stderr
    assert "hint: make it a readable file" in done.stderr
    assert config.is_dir() and not any(config.iterdir())
