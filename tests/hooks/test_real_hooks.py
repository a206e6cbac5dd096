"""The real hook-event sequences (``../shared/data/real/hook-events/``) replayed through real
``reflect-git hook`` processes, delivered as ``MANIFEST.json`` says, with the notes each file's
events justify written down per file."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DATA, git, needs_shared, shared_json
from tests.support.capture import (
    SYNC,
    event_kinds,
    kb_fixture,  # noqa: F401  (the kb fixture)
    notes,
    queue_entries,
    run_pass,
    session_events,
    state_dir,
    subjects,
)

pytestmark = needs_shared

REAL = DATA / "real"
HOOK_EVENTS = REAL / "hook-events"
MANIFEST: dict[str, Any] = dict(shared_json("real", "hook-events", "MANIFEST.json"))

# file -> (commit subjects of the notes it writes, oldest first; (trigger, harness) queued;
# the kinds of the events its sessions' event records keep, oldest first).
FIXED = "tests-failed", "tests-fixed"
EXPECTED: dict[str, tuple[list[str], list[tuple[str, str]], list[str]]] = {
    # pytest -q fails (PostToolUseFailure.error: 3 failed, the E line says why), an Edit of
    # invoice.py (round(x, 2) -> x.quantize(CENT)), pytest -q passes: the one note that carries
    # the lesson, titled by the one replacement between the runs.
    "doc-claude-pytest-red-green.json": (
        ["feat(knowledge): Use `x.quantize(CENT)`, not `round(x, 2)`, in b\u2026 [HIGH]"],
        [],  # its transcript (codemie 9eda1058) holds no signal: Stop queues nothing
        [*FIXED],
    ),
    # The same runs piped through `| tail` (exits 0, PostToolUse both times), but nothing was
    # edited between them: green again with nothing learned is an event, not a note.
    "doc-claude-pytest-piped.json": ([], [], [*FIXED]),
    # pip fails, then "No, don't use pip here. Use uv instead of pip, always.": a correction.
    "doc-claude-failure-then-correction.json": (
        ["feat(knowledge): Use uv instead of pip [LOW]"],
        [("stop", "claude")],
        [],
    ),
    # The dialog allowed `rm -rf node_modules` once (no rule saved); the later "yes" answers
    # "Shall I reinstall?", not the dialog: no note.
    "doc-claude-permission-dialog.json": ([], [], []),
    "doc-claude-stop-tilde-path.json": ([], [("stop", "claude")], []),
    # git push fails; vitest 1 failed -> 16 passed with no edit in between (Codex's string
    # tool_response, exit code in its header): an event; then "Use the release script
    # instead of git push".
    "codex-hooks.json": (
        ["feat(knowledge): Use the release script instead of git push [LOW]"],
        # the rollout (codemie 019e1625): no signal in its dialogue, but a repair in its tool
        # calls (`npm test` red, the assistant's words, an edit, the same run green), which
        # queues it for the drain (notes/repairs.py); the drain's readers write nothing from it
        [("stop", "codex")],
        [*FIXED],
    ),
    # Codex's notify names the same rollout's thread: queued for the same repair.
    "codex-notify.json": ([], [("stop", "codex")], []),
    # Copilot CLI camelCase: postToolUseFailure (3 failed) -> postToolUse (44 passed), no edit
    # in between: an event; then the uv correction; agentStop queues its transcriptPath.
    "copilot-cli-camelcase.json": (
        ["feat(knowledge): Use uv instead of pip [LOW]"],
        [],  # its session only asked "List the files"
        [*FIXED],
    ),
    # Its VS Code form: tool_result.result_type failure -> success; pip fails; the correction.
    "copilot-cli-vscode.json": (["feat(knowledge): Use uv instead of pip [LOW]"], [], [*FIXED]),
    # Rebuilt from real sessions: no failing-then-passing test run, no correction after a
    # failure, no permission rule saved.
    "derived-spotter-short.json": ([], [("session_end", "claude")], []),
    "derived-spotter-tool_heavy.json": ([], [("session_end", "claude")], []),
    # Its person only asked ("show tools", "what else?"): no signal, so Stop queues nothing.
    "derived-codemie-9eda1058.json": ([], [], []),
    # Seven TodoWrite items went to completed: seven events, no note; after a failure the
    # person's first correcting reply is "we don't control claude code process - it's 3rd
    # party tool ...": a correction (issue 34.3); the watcher is spent on it.
    "derived-codemie-196820da.json": (
        ["feat(knowledge): We don't control claude code process - it's 3rd\u2026 [LOW]"],
        [("stop", "claude")],
        ["todo-done"] * 7,
    ),
    # The real `mix test` run that went from 11 failures to 0 after edits; its output was cut
    # by `| tail -30` above the error, so it names no error line: an event. Compaction and the
    # subagent queue their transcripts.
    "derived-spotter-ae4a77f8.json": (
        [],
        # The subagent's file holds only the parent agent's task prompt (injected text) and
        # the subagent's answers: no person's words, no signal, not queued (issue 19).
        [("manual", "claude")],
        [*FIXED],
    ),
}


def test_every_real_hook_file_has_its_expectations():
    files = {p.name for p in HOOK_EVENTS.glob("*.json")} - {"MANIFEST.json"}
    assert files == set(EXPECTED)


def _harness(name: str) -> str | None:
    # What the installer writes for each harness (Claude Code's command has no --harness).
    return (
        "codex" if name.startswith("codex") else "copilot" if name.startswith("copilot") else None
    )


def deliver(
    name: str, env: dict[str, str], *, harness_flag: bool = True, root: Path | None = None
) -> list[subprocess.CompletedProcess[str]]:
    """Every element of the file to `reflect-git hook EVENT`, one process each, as delivered."""
    spec = MANIFEST.get(name, {})
    events = json.loads((HOOK_EVENTS / name).read_text())
    names = spec.get("events") if isinstance(spec.get("events"), list) else None
    harness = _harness(name) if harness_flag else None
    procs = []
    for i, event in enumerate(events):
        text = json.dumps(event)
        text = text.replace('"REAL/', f'"{root or REAL / "transcripts"}/')
        text = text.replace('"TRANSCRIPTS/', f'"{root or REAL / "transcripts"}/')
        word = names[i] if names else spec.get("event") or event.get("hook_event_name")
        argv = [sys.executable, "-m", "reflectgit", "hook", word]
        argv += ["--harness", harness] if harness else []
        if spec.get("delivery") == "argv":
            proc = subprocess.run([*argv, text], capture_output=True, text=True, env=env)
        else:
            proc = subprocess.run(argv, input=text, capture_output=True, text=True, env=env)
        assert proc.returncode == 0, (word, proc.stderr)
        assert proc.stderr == "", (word, proc.stderr)
        procs.append(proc)
    run_pass(env=env)  # the events no Stop passed: the end of the session, as the drain does
    return procs


@pytest.fixture(name="hook_env")
def hook_env_fixture(kb: Path, tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, REFLECT_GIT_KB=str(kb), HOME=str(home), CODEX_HOME=str(home / ".codex"))
    env[SYNC] = "1"  # a Stop's capture pass runs in the foreground
    # `~/.claude/projects/...` in doc-claude-stop-tilde-path.json: the real session, at home.
    tilde = json.loads((HOOK_EVENTS / "doc-claude-stop-tilde-path.json").read_text())[0]
    at_home = home / tilde["transcript_path"].removeprefix("~/")
    at_home.parent.mkdir(parents=True)
    shutil.copy(
        REAL / "transcripts/claude/spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl", at_home
    )
    # Codex's notify names only the thread: its rollout lives under $CODEX_HOME/sessions.
    rollout = REAL / MANIFEST["codex-notify.json"]["codex_rollout"]
    day = home / ".codex" / "sessions" / "2026" / "05" / "11"
    day.mkdir(parents=True)
    shutil.copy(rollout, day / rollout.name.removeprefix("codemie__"))
    return env


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_hook_sequences_write_exactly_the_justified_notes(kb, hook_env, name):
    procs = deliver(name, hook_env)
    want_notes, want_queue, want_events = EXPECTED[name]
    assert list(reversed(subjects(kb)[:-1])) == want_notes
    assert event_kinds(kb) == want_events
    assert sorted((e["trigger"], e["harness"]) for e in queue_entries(kb)) == sorted(want_queue)
    for proc, event in zip(procs, json.loads((HOOK_EVENTS / name).read_text()), strict=True):
        if event.get("hook_event_name") == "SubagentStop":
            assert proc.stdout == "{}\n"
        else:
            assert proc.stdout == ""
    git("fsck", "--strict", "--no-progress", cwd=kb)
    assert git("status", "--porcelain", cwd=kb) == ""


def test_the_test_fix_note_from_postToolUseFailure_carries_the_failing_run(kb, hook_env):
    deliver("doc-claude-pytest-red-green.json", hook_env)
    ((path, text),) = notes(kb).items()
    assert path.startswith("documents/lrn-test-fix-")
    assert "confidence: high" in text
    assert "tests/test_invoice.py::test_rounding" in text
    assert "- `billing/invoice.py`" in text  # the Edit between the runs, from the project
    assert "Decimal('10.00') == Decimal('10.01')" in text  # pytest's E line
    for header in ("rootdir:", "platform linux", "collected 44 items", "test session starts"):
        assert header not in text
    ((_session, (failed, fixed)),) = session_events(kb).items()
    assert failed["kind"] == "tests-failed" and failed["failures"] == 3
    assert fixed["kind"] == "tests-fixed" and fixed["note"] == path.removeprefix(
        "documents/"
    ).removesuffix(".md")
    assert fixed["files"] == ["billing/invoice.py"]


def test_a_green_run_with_nothing_edited_is_an_event_saying_why(kb, hook_env):
    deliver("doc-claude-pytest-piped.json", hook_env)
    assert notes(kb) == {}
    ((_session, (failed, fixed)),) = session_events(kb).items()
    assert failed["error"] == "AssertionError: assert Decimal('10.00') == Decimal('10.01')"
    assert "note" not in fixed
    assert fixed["no_note"] == "no file was edited between the failing and the green run"


def test_the_tilde_in_transcript_path_is_expanded(kb, hook_env):
    deliver("doc-claude-stop-tilde-path.json", hook_env)
    (entry,) = queue_entries(kb)
    assert entry["transcript_path"].startswith(hook_env["HOME"] + "/.claude/projects/")
    assert "~" not in entry["transcript_path"]


@pytest.mark.parametrize(
    "name", ["codex-hooks.json", "copilot-cli-camelcase.json", "copilot-cli-vscode.json"]
)
def test_the_harness_is_read_from_the_payload_when_the_command_does_not_say(
    kb, hook_env, name, tmp_path
):
    # The sessions these files name hold no signal, so their Stop queues nothing. Give each
    # named transcript a person's correction (from a real session) so the Stop queues it, and
    # read the harness each queue entry was given from the payload's shape alone.
    root = tmp_path / "transcripts"
    lesson = REAL / "transcripts/claude/codemie__session-196820da.jsonl"
    for rel in re.findall(r'"(?:REAL|TRANSCRIPTS)/([^"]+)"', (HOOK_EVENTS / name).read_text()):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(lesson, root / rel)
    deliver(name, hook_env, harness_flag=False, root=root)
    assert subjects(kb)[:-1] == list(reversed(EXPECTED[name][0]))
    assert event_kinds(kb) == EXPECTED[name][2]
    want = "codex" if name.startswith("codex") else "copilot"
    assert [e["harness"] for e in queue_entries(kb)] == [want]


def test_the_dialog_permission_writes_the_saved_rule_and_nothing_for_a_later_yes(
    kb, hook_env, tmp_path
):
    # The same dialog, but the person chose "Yes, and don't ask again": Claude Code saved the
    # suggested rule in .claude/settings.local.json before the tool ran.
    project = tmp_path / "billing"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(rm -rf node_modules)"]}})
    )
    events = json.loads((HOOK_EVENTS / "doc-claude-permission-dialog.json").read_text())
    for event in events:
        event["cwd"] = str(project)
        event["transcript_path"] = str(REAL / "transcripts/claude/codemie__session-9eda1058.jsonl")
        proc = subprocess.run(
            [sys.executable, "-m", "reflectgit", "hook", event["hook_event_name"]],
            input=json.dumps(event),
            capture_output=True,
            text=True,
            env=hook_env,
        )
        assert proc.returncode == 0 and proc.stderr == ""
    run_pass(env=hook_env)
    ((path, text),) = notes(kb).items()
    assert path.startswith("documents/lrn-permission-")
    assert "confidence: high" in text and "scope: always" in text
    assert "rm -rf node_modules" in text and "destination: localSettings" in text
    assert subjects(kb)[0] == "feat(knowledge): Allow Bash `rm -rf node_modules` always [HIGH]"


def test_copilot_error_occurred_is_a_breadcrumb(kb, hook_env):
    payload = {
        "sessionId": "copilot_stage0_small",
        "timestamp": 1766093532000,
        "cwd": "/tmp/repo",
        "error": {"message": "model call failed: 429 Too Many Requests", "name": "RateLimitError"},
        "errorContext": "model_call",
        "recoverable": True,
    }
    proc = subprocess.run(
        [sys.executable, "-m", "reflectgit", "hook", "errorOccurred", "--harness", "copilot"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=hook_env,
    )
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    run_pass(env=hook_env)
    (row,) = [
        json.loads(x) for x in (state_dir(kb) / "logs" / "errors.jsonl").read_text().splitlines()
    ]
    assert row["name"] == "RateLimitError" and row["context"] == "model_call"
    assert row["harness"] == "copilot" and row["session_id"] == "copilot_stage0_small"
    assert row["recoverable"] is True and "429" in row["message"]
    assert subjects(kb) == ["init"] and queue_entries(kb) == []
