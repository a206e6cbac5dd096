"""`hooks install --agent codex|copilot`: their own hook files, merged, idempotent, removable.

Codex: ``hooks.json`` next to its config (developers.openai.com/codex/hooks), validated with
SchemaStore's codex-hooks schema. Copilot CLI: ``~/.copilot/hooks/*.json`` and
``.github/hooks/*.json`` (docs.github.com/en/copilot/reference/hooks-reference), validated with a
schema written from that reference. SessionStart commands run as the harness runs them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from reflectgit.workflows.installer import CODEX_EVENTS, COPILOT_EVENTS
from tests.conftest import DATA, TEST_DATA, needs_shared
from tests.support.capture import transcript_waits
from tests.support.kb import home_kb  # noqa: F401

# Every install here points its hooks at ~/.learnings: make it a KB.
pytestmark = pytest.mark.usefixtures("home_kb")

SCHEMAS = TEST_DATA
VENV_BIN = str(Path(sys.executable).parent)
BARE_PATH = "/usr/bin:/bin"


def validator(name: str) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(json.loads((SCHEMAS / name).read_text()))


def assert_valid(name: str, doc: dict) -> None:
    errors = [f"{list(e.path)}: {e.message}" for e in validator(name).iter_errors(doc)]
    assert not errors, errors


def run_as_harness(
    command: str, cwd: Path, env: dict[str, str], stdin: str = ""
) -> subprocess.CompletedProcess:
    return subprocess.run(
        command,
        shell=True,
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def kb_with_note(tmp_path: Path, cli) -> Path:
    kb = tmp_path / "kb"
    assert cli("init", str(kb)).code == 0
    out = cli(
        "--kb", str(kb), "add", "--title", "Use the release script, never git push",
        "--insight", "pushing from a laptop skips the release checks", "--category", "process",
        "--confidence", "high",
    )  # fmt: skip
    assert out.code == 0, out.err
    return kb


# --------------------------------------------------------------------------- schemas


def test_the_schemas_can_fail():
    assert list(validator("codex-hooks.schema.json").iter_errors({"hooks": {"Stop": {}}}))
    assert list(validator("codex-hooks.schema.json").iter_errors({}))  # hooks is required
    copilot = validator("copilot-hooks.schema.json")
    assert list(copilot.iter_errors({"version": 2, "hooks": {}}))
    assert list(copilot.iter_errors({"version": 1, "hooks": {"agentStopp": []}}))
    assert list(copilot.iter_errors({"version": 1, "hooks": {"agentStop": [{"type": "command"}]}}))


# --------------------------------------------------------------------------- Codex


def test_codex_user_hooks_merge_and_uninstall_exactly(cli, pinned_env):
    hooks_json = pinned_env / ".codex" / "hooks.json"
    hooks_json.parent.mkdir()
    theirs = {
        "hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
        }
    }  # fmt: skip
    original = json.dumps(theirs, indent=4) + "\n"
    hooks_json.write_text(original)
    out = cli("--json", "hooks", "install", "--agent", "codex")
    assert out.code == 0, out.err
    assert out.json()["action"] == "installed" and out.json()["settings"] == str(hooks_json)
    assert any("/hooks" in n for n in out.json()["notes"])  # Codex asks to trust new hooks
    data = json.loads(hooks_json.read_text())
    assert_valid("codex-hooks.schema.json", data)
    assert set(data["hooks"]) == {*CODEX_EVENTS, "SessionStart", "PreToolUse"}
    assert data["hooks"]["Stop"][0] == theirs["hooks"]["Stop"][0]
    stop = data["hooks"]["Stop"][1]["hooks"][0]
    pin = f" --kb {pinned_env}/.learnings"  # a personal file names the KB it was installed for
    assert (
        stop["command"]
        == f"{sys.executable} -c 'from reflectgit.hooks.agent import main; raise SystemExit(main())' Stop --harness codex{pin}"
    )
    assert "async" not in stop  # Codex skips async command hooks
    starts = [h["command"] for g in data["hooks"]["SessionStart"] for h in g["hooks"]]
    start = "from reflectgit.hooks.sessionstart import main; raise SystemExit(main())"
    assert starts == [f"{sys.executable} -c '{start}' --harness codex{pin}"]
    text = hooks_json.read_text()
    assert cli("--json", "hooks", "install", "--agent", "codex").json()["action"] == "unchanged"
    assert hooks_json.read_text() == text
    assert cli("hooks", "install", "--agent", "codex", "--uninstall").code == 0
    assert hooks_json.read_text() == original


def test_codex_home_is_honoured(cli, pinned_env, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    assert cli("hooks", "install", "--agent", "codex").code == 0
    assert (tmp_path / "codex-home" / "hooks.json").is_file()
    assert not (pinned_env / ".codex").exists()


@needs_shared
def test_codex_session_start_hands_over_context_as_codex_reads_it(
    cli, pinned_env, kb_with_note, tmp_path
):
    assert cli("hooks", "install", "--agent", "codex").code == 0
    data = json.loads((pinned_env / ".codex" / "hooks.json").read_text())
    (command,) = [h["command"] for g in data["hooks"]["SessionStart"] for h in g["hooks"]]
    # The real Codex SessionStart payload (shared data), in this test's folder.
    events = json.loads((DATA / "real" / "hook-events" / "codex-hooks.json").read_text())
    start = {**events[0], "cwd": str(tmp_path)}
    assert start["hook_event_name"] == "SessionStart"
    state = tmp_path / "state"
    transcript_waits(state)
    env = {**os.environ, "REFLECT_GIT_KB": str(kb_with_note), "REFLECT_STATE_DIR": str(state)}
    proc = run_as_harness(command, tmp_path, {**env, "REFLECT_DISABLED": "1"}, json.dumps(start))
    assert proc.returncode == 0 and proc.stdout == ""
    assert not (state / "drain-background.log").exists()
    proc = run_as_harness(command, tmp_path, env, json.dumps(start))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    # Codex's session-start output schema: only these keys, hookEventName fixed.
    assert set(out) == {"hookSpecificOutput"}
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "release script" in out["hookSpecificOutput"]["additionalContext"]
    assert (state / "drain-background.log").is_file()  # and the drain started


def test_codex_project_scope_is_portable_or_refused(cli, tmp_path, monkeypatch):
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.setenv("PATH", BARE_PATH)
    out = cli("--json", "hooks", "install", str(project), "--agent", "codex", "--scope", "project")
    assert out.code == 1 and "not on PATH" in out.json()["error"] and out.json()["hint"]
    assert not (project / ".codex").exists()  # nothing written
    monkeypatch.setenv("PATH", f"{VENV_BIN}:{BARE_PATH}")
    out = cli("--json", "hooks", "install", str(project), "--agent", "codex", "--scope", "project")
    assert out.code == 0, out.err
    data = json.loads((project / ".codex" / "hooks.json").read_text())
    assert_valid("codex-hooks.schema.json", data)
    commands = [h["command"] for gs in data["hooks"].values() for g in gs for h in g["hooks"]]
    assert all(c.startswith(("reflect-git-session-start ", "reflect-git-hook ")) for c in commands)
    assert "reflect-git-session-start --harness codex" in commands


# --------------------------------------------------------------------------- Copilot CLI


def test_copilot_user_hooks_file_is_ours_and_goes_on_uninstall(cli, pinned_env):
    out = cli("--json", "hooks", "install", "--agent", "copilot")
    assert out.code == 0, out.err
    path = pinned_env / ".copilot" / "hooks" / "reflect-git.json"
    assert out.json()["settings"] == str(path)
    data = json.loads(path.read_text())
    assert_valid("copilot-hooks.schema.json", data)
    assert data["version"] == 1
    assert set(data["hooks"]) == {*COPILOT_EVENTS, "sessionStart"}
    (error,) = data["hooks"]["errorOccurred"]
    assert error == {
        "type": "command",
        "bash": f"{sys.executable} -c 'from reflectgit.hooks.agent import main; raise SystemExit(main())' errorOccurred --harness copilot"
        f" --kb {pinned_env}/.learnings",
        "timeoutSec": 30,
    }
    text = path.read_text()
    assert cli("--json", "hooks", "install", "--agent", "copilot").json()["action"] == "unchanged"
    assert path.read_text() == text
    status = cli("--json", "hooks", "status", str(pinned_env)).json()
    row = next(r for r in status["agents"] if r["agent"] == "copilot" and r["scope"] == "user")
    assert row["installed"] and "agentStop" in row["events"]
    assert cli("hooks", "install", "--agent", "copilot", "--uninstall").code == 0
    assert not path.exists()
    assert (
        cli("--json", "hooks", "install", "--agent", "copilot", "--uninstall").json()["action"]
        == "absent"
    )


def test_copilot_uninstall_keeps_entries_someone_added_to_our_file(cli, pinned_env, monkeypatch):
    monkeypatch.setenv("COPILOT_HOME", str(pinned_env / "cp"))
    assert cli("hooks", "install", "--agent", "copilot").code == 0
    path = pinned_env / "cp" / "hooks" / "reflect-git.json"
    data = json.loads(path.read_text())
    theirs = {"type": "command", "bash": "./audit.sh", "timeoutSec": 5}
    data["hooks"]["postToolUse"].insert(0, theirs)
    path.write_text(json.dumps(data, indent=2) + "\n")
    assert cli("hooks", "install", "--agent", "copilot", "--uninstall").code == 0
    assert json.loads(path.read_text()) == {"version": 1, "hooks": {"postToolUse": [theirs]}}


def test_copilot_project_scope_shared_file_or_personal_settings(cli, tmp_path, monkeypatch):
    project = tmp_path / "proj"
    local = project / ".github" / "copilot" / "settings.local.json"
    local.parent.mkdir(parents=True)
    local.write_text(json.dumps({"model": "gpt-5"}, indent=2) + "\n")
    monkeypatch.setenv("PATH", BARE_PATH)
    out = cli(
        "--json", "hooks", "install", str(project), "--agent", "copilot", "--scope", "project"
    )
    assert out.code == 0, out.err
    assert out.json()["settings"] == str(local)
    inline = json.loads(local.read_text())
    assert inline["model"] == "gpt-5" and "version" not in inline
    assert_valid("copilot-hooks.schema.json", {"version": 1, "hooks": inline["hooks"]})
    assert not (project / ".github" / "hooks").exists()  # no machine path in the shared folder
    monkeypatch.setenv("PATH", f"{VENV_BIN}:{BARE_PATH}")
    out = cli(
        "--json", "hooks", "install", str(project), "--agent", "copilot", "--scope", "project"
    )
    shared = project / ".github" / "hooks" / "reflect-git.json"
    assert out.json()["settings"] == str(shared) and out.json()["cleaned"] == [str(local)]
    assert json.loads(local.read_text()) == {"model": "gpt-5"}
    data = json.loads(shared.read_text())
    assert_valid("copilot-hooks.schema.json", data)
    entry = data["hooks"]["agentStop"][0]
    assert entry["bash"] == entry["powershell"] == "reflect-git-hook agentStop --harness copilot"


@needs_shared
def test_copilot_session_start_prints_additional_context(cli, pinned_env, kb_with_note, tmp_path):
    assert cli("hooks", "install", "--agent", "copilot").code == 0
    data = json.loads((pinned_env / ".copilot" / "hooks" / "reflect-git.json").read_text())
    (command,) = [e["bash"] for e in data["hooks"]["sessionStart"]]
    assert " import main; raise SystemExit(main())' --harness copilot --kb " in command
    assert "from reflectgit.hooks.sessionstart" in command
    events = json.loads((DATA / "real" / "hook-events" / "copilot-cli-camelcase.json").read_text())
    start = {**events[0], "cwd": str(tmp_path)}  # the real camelCase sessionStart payload
    state = tmp_path / "state"
    transcript_waits(state)
    env = {**os.environ, "REFLECT_GIT_KB": str(kb_with_note), "REFLECT_STATE_DIR": str(state)}
    proc = run_as_harness(command, tmp_path, env, json.dumps(start))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"additionalContext"} and "release script" in out["additionalContext"]
    assert (state / "drain-background.log").is_file()  # and the drain started


def test_invalid_copilot_file_is_refused_and_left_alone(cli, pinned_env):
    path = pinned_env / ".copilot" / "hooks" / "reflect-git.json"
    path.parent.mkdir(parents=True)
    path.write_text("{ // a comment\n}")
    out = cli("hooks", "install", "--agent", "copilot")
    assert out.code == 1 and "not valid JSON" in out.err
    assert path.read_text() == "{ // a comment\n}"
