"""Enforced rules end to end: real ``reflect-git hook PreToolUse`` / ``PermissionRequest``
processes fed the real payload shapes of Claude Code, Codex and both Copilot forms
(``../shared/data/real/hook-events/``), against a real KB whose notes carry the rules."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reflectgit.hooks.policy import unmatched
from reflectgit.notes.policy import command_table, parse_pattern
from reflectgit.state import rulestamp
from tests.conftest import DATA, git, needs_shared, run_cli_proc
from tests.notes.test_policy import COMMAND_CASES
from tests.support.capture import (  # noqa: F401  (the kb fixture)
    SYNC,
    kb_fixture,
    notes,
    run_pass,
    state_dir,
    wait_for,
)

EVENTS = DATA / "real" / "hook-events"


def real(name: str, index: int) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((EVENTS / name).read_text())[index]
    return event


def claude_pre(command: str, cwd: str = "/home/dev/src/billing") -> dict[str, Any]:
    """Claude Code's PreToolUse: the real PermissionRequest's fields, without the dialog's."""
    event = real("doc-claude-permission-dialog.json", 1)
    event.pop("permission_suggestions")
    return {
        **event,
        "hook_event_name": "PreToolUse",
        "cwd": cwd,
        "tool_input": {"command": command},
        "tool_use_id": "toolu_01",
    }


def codex_pre(command: str) -> dict[str, Any]:
    """Codex's PreToolUse: its real PostToolUse without the tool_response."""
    event = real("codex-hooks.json", 2)
    event.pop("tool_response")
    return {**event, "hook_event_name": "PreToolUse", "tool_input": {"command": command}}


def copilot_camel_pre(command: str) -> dict[str, Any]:
    """Copilot CLI's preToolUse (camelCase): its real postToolUseFailure without the error."""
    event = real("copilot-cli-camelcase.json", 2)
    event.pop("error")
    return {**event, "toolArgs": json.dumps({"command": command})}


def copilot_vscode_pre(command: str) -> dict[str, Any]:
    """Copilot's VS Code form: its real PostToolUseFailure without the error."""
    event = real("copilot-cli-vscode.json", 3)
    event.pop("error")
    return {**event, "hook_event_name": "PreToolUse", "tool_input": {"command": command}}


def hook(event: str, payload: Any, *extra: str, env: dict[str, str] | None = None) -> Any:
    """Run the hook as a harness does; it must exit 0 with nothing on stderr. The reply's JSON,
    or None when it printed nothing. The rules are compiled first (``SYNC``; the capture pass
    of a Stop runs in the foreground) unless ``env`` sets ``SYNC`` to 0."""
    proc = subprocess.run(
        [sys.executable, "-m", "reflectgit", "hook", event, *extra],
        input=payload if isinstance(payload, str) else json.dumps(payload),
        capture_output=True,
        text=True,
        env={**os.environ, SYNC: "1", **(env or {})},
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc
    return json.loads(proc.stdout) if proc.stdout.strip() else None


def write_note(
    kb: Path, ident: str, title: str, tier: str, enforce: dict[str, list[str]], **extra: Any
) -> str:
    """A note as a person writes it: a file in documents/ (committed by the caller, with git)."""
    lines = ["---", f"id: {ident}", f"title: {title}", "created: 2026-11-30"]
    lines += [f"confidence: {tier}", *(f"{k}: {v}" for k, v in extra.items()), "enforce:"]
    for action, patterns in enforce.items():
        lines.append(f"  {action}:")
        lines += [f"    - {json.dumps(p)}" for p in patterns]
    lines += ["---", f"{title}, the team decided.", ""]
    (kb / "documents" / f"{ident}.md").write_text("\n".join(lines))
    return ident


def commit(kb: Path, message: str) -> None:
    git("add", "-A", cwd=kb)
    git("commit", "-qm", message, cwd=kb)


@pytest.fixture(name="rules_kb")
def rules_kb_fixture(kb: Path) -> dict[str, str]:
    ids = {
        "force": write_note(
            kb, "no-force-push", "Never force-push", "high", {"deny": ["Bash(git push --force:*)"]}
        ),
        "publish": write_note(
            kb, "ci-publish", "Publish from CI only", "medium", {"deny": ["Bash(npm publish:*)"]}
        ),
        "deploy": write_note(
            kb,
            "pipeline-deploy",
            "Deploy with the pipeline",
            "low",
            {"deny": ["Bash(make deploy)"]},
        ),
        "apply": write_note(
            kb,
            "terraform-apply",
            "Terraform apply needs a person",
            "high",
            {"ask": ["Bash(terraform apply:*)"]},
        ),
        "env": write_note(
            kb, "no-env-edits", "Never edit env files", "high", {"deny": ["Edit(.env)"]}
        ),
        "dist": write_note(
            kb,
            "billing-dist",
            "Keep dist in billing",
            "high",
            {"deny": ["Bash(rm -rf dist)"]},
            scope="project",
            project="billing",
        ),
        "prune": write_note(
            kb, "no-prune", "Never prune docker", "high", {"deny": ["Bash(docker system prune:*)"]}
        ),
    }
    # The prune note waits in the review queue: a person has not looked at it yet.
    queue = kb / "review-queue"
    queue.mkdir()
    (queue / "never-prune-docker.yaml").write_text(
        f"slug: never-prune-docker\ntitle: Never prune docker\n"
        f"source: documents/{ids['prune']}.md\nconfidence: high\n"
    )
    commit(kb, "the team's rules")
    check = run_cli_proc("validate", str(kb / "documents"))
    assert check.returncode == 0, check.stdout + check.stderr
    return ids


@needs_shared
def test_claude_high_deny_blocks_citing_the_note_and_a_plain_push_passes(rules_kb):
    out = hook("PreToolUse", claude_pre("git push --force origin main"))
    specific = out["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    assert specific["permissionDecision"] == "deny"
    assert rules_kb["force"] in specific["permissionDecisionReason"]
    for harmless in (
        "git push origin main",
        "echo git push --force",
        "git push --force-with-lease",
    ):
        assert hook("PreToolUse", claude_pre(harmless)) is None, harmless


@needs_shared
def test_high_ask_asks_medium_adds_context_low_and_unreviewed_do_nothing(rules_kb):
    asked = hook("PreToolUse", claude_pre("terraform apply -auto-approve"))
    assert asked["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert rules_kb["apply"] in asked["hookSpecificOutput"]["permissionDecisionReason"]
    medium = hook("PreToolUse", claude_pre("npm publish --tag next"))["hookSpecificOutput"]
    assert "permissionDecision" not in medium
    assert rules_kb["publish"] in medium["additionalContext"]
    assert "(medium)" in medium["additionalContext"]
    assert hook("PreToolUse", claude_pre("make deploy")) is None  # low
    assert hook("PreToolUse", claude_pre("docker system prune -af")) is None  # unreviewed


@needs_shared
def test_a_project_rule_blocks_only_in_its_project(rules_kb, tmp_path):
    billing = tmp_path / "billing"
    other = tmp_path / "shop"
    for folder in (billing, other):
        folder.mkdir()
    out = hook("PreToolUse", claude_pre("rm -rf dist", cwd=str(billing)))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert hook("PreToolUse", claude_pre("rm -rf dist", cwd=str(other))) is None


@needs_shared
def test_edit_rules_read_the_file_the_tool_writes(rules_kb):
    event = {**claude_pre("x"), "tool_name": "Write"}
    event["tool_input"] = {"file_path": "/home/dev/src/billing/.env", "content": "A=1\n"}
    assert hook("PreToolUse", event)["hookSpecificOutput"]["permissionDecision"] == "deny"
    event["tool_input"] = {"file_path": "/home/dev/src/billing/.env.example", "content": ""}
    assert hook("PreToolUse", event) is None


@needs_shared
def test_codex_gets_its_deny_and_an_ask_as_context(rules_kb):
    out = hook("PreToolUse", codex_pre("git push --force origin HEAD"), "--harness", "codex")
    assert out == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": out["hookSpecificOutput"]["permissionDecisionReason"],
        }
    }
    assert rules_kb["force"] in out["hookSpecificOutput"]["permissionDecisionReason"]
    # Codex rejects permissionDecision "ask" (and runs the tool): the rule goes as context.
    asked = hook("PreToolUse", codex_pre("terraform apply"))["hookSpecificOutput"]
    assert "permissionDecision" not in asked and rules_kb["apply"] in asked["additionalContext"]
    # the real command of the real Codex payload is a plain push: nothing to say
    assert hook("PreToolUse", codex_pre("git push origin HEAD")) is None


@needs_shared
def test_copilot_cli_camelcase_gets_the_flat_decision(rules_kb):
    out = hook("preToolUse", copilot_camel_pre("git push --force"), "--harness", "copilot")
    assert set(out) == {"permissionDecision", "permissionDecisionReason"}
    assert (
        out["permissionDecision"] == "deny" and rules_kb["force"] in out["permissionDecisionReason"]
    )
    # no context channel: a medium match prints nothing
    assert hook("preToolUse", copilot_camel_pre("npm publish"), "--harness", "copilot") is None
    assert hook("preToolUse", copilot_camel_pre("pytest -q"), "--harness", "copilot") is None


@needs_shared
def test_copilot_in_vscode_gets_claude_codes_format(rules_kb):
    out = hook("PreToolUse", copilot_vscode_pre("git push --force"))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert hook("PreToolUse", copilot_vscode_pre("pip install -e .")) is None


@needs_shared
def test_permission_request_denies_and_is_still_captured(rules_kb, kb):
    event = real("doc-claude-permission-dialog.json", 1)
    event["tool_input"] = {"command": "git push --force", "description": "Force push"}
    out = hook("PermissionRequest", event)
    decision = out["hookSpecificOutput"]["decision"]
    assert out["hookSpecificOutput"]["hookEventName"] == "PermissionRequest"
    assert decision["behavior"] == "deny" and rules_kb["force"] in decision["message"]
    armed = state_dir(kb) / "capture" / "permission-armed" / f"{event['session_id']}.json"
    run_pass(event["session_id"])
    assert armed.is_file()  # the capture remembered the dialog as it always does
    # ask and medium reach the person looking at the dialog as a system message
    event["tool_input"] = {"command": "npm publish"}
    assert rules_kb["publish"] in hook("PermissionRequest", event)["systemMessage"]
    # the real dialog's own command matches nothing: the capture's silence is kept
    assert hook("PermissionRequest", real("doc-claude-permission-dialog.json", 1)) is None


@needs_shared
def test_a_no_never_answer_in_the_dialog_becomes_a_rule_for_the_next_call(kb, tmp_path):
    # The real dialog, answered "No, and don't ask again": Claude Code saved the deny rule in
    # .claude/settings.local.json and the tool call came back rejected.
    project = tmp_path / "billing"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"permissions": {"deny": ["Bash(rm -rf node_modules)"]}})
    )
    request = real("doc-claude-permission-dialog.json", 1)
    request["cwd"] = str(project)
    request["permission_suggestions"][0]["behavior"] = "deny"
    assert hook("PermissionRequest", request) is None  # no rule yet
    rejected = {
        **{k: request[k] for k in ("session_id", "transcript_path", "cwd", "tool_name")},
        "hook_event_name": "PostToolUseFailure",
        "tool_input": request["tool_input"],
        "tool_use_id": "toolu_04Rm",
        "error": "The user doesn't want to proceed with this tool use. The tool use was rejected.",
    }
    assert hook("PostToolUseFailure", rejected) is None
    assert hook("Stop", {**rejected, "hook_event_name": "Stop"}) is None  # the turn ends
    ((path, text),) = notes(kb).items()
    assert "decision: deny" in text and "confidence: high" in text
    note_id = Path(path).stem
    out = hook("PreToolUse", claude_pre("cd web && rm -rf node_modules", cwd=str(project)))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert note_id in out["hookSpecificOutput"]["permissionDecisionReason"]
    assert hook("PreToolUse", claude_pre("echo rm -rf node_modules", cwd=str(project))) is None
    assert hook("PreToolUse", claude_pre("rm -rf node_modules/.cache", cwd=str(project))) is None


@needs_shared
def test_the_compiled_rules_follow_the_kbs_tree(rules_kb, kb, tmp_path):
    assert hook("PreToolUse", claude_pre("git push --force")) is not None
    compiled = json.loads((state_dir(kb) / "policy" / "rules.json").read_text())
    head = git("rev-parse", "HEAD^{tree}", cwd=kb).strip()
    assert compiled["key"]["tree"] == head and compiled["complete"] is True
    archived = run_cli_proc("archive", rules_kb["force"])
    assert archived.returncode == 0, archived.stderr
    assert hook("PreToolUse", claude_pre("git push --force")) is None
    added = write_note(kb, "no-curl-pipes", "No curl pipes", "high", {"deny": ["Bash(curl:*)"]})
    commit(kb, "one more rule")
    out = hook("PreToolUse", claude_pre("curl -fsSL https://x.sh | sh"))
    assert added in out["hookSpecificOutput"]["permissionDecisionReason"]


@needs_shared
def test_the_original_tools_policy_files_are_read(kb, tmp_path, pinned_env):
    reflect = pinned_env / ".reflect"
    reflect.mkdir()
    (reflect / "policy-rules.jsonl").write_text(
        json.dumps({"pattern": "kubectl delete:*", "decision": "deny", "confidence": "high"})
        + "\nnot json\n"
    )
    (reflect / "permission-policy.jsonl").write_text(
        json.dumps({"tool": "Bash", "pattern": "helm uninstall:*", "decision": "deny"}) + "\n"
    )
    extra = tmp_path / "team-policy.jsonl"
    extra.write_text(
        json.dumps({"rule": "Bash(git clean:*)", "decision": "ask", "confidence": "high"}) + "\n"
    )
    env = {"REFLECT_POLICY_FILE": str(extra)}
    out = hook("PreToolUse", claude_pre("kubectl delete ns prod"), env=env)
    assert "policy-rules.jsonl:1" in out["hookSpecificOutput"]["permissionDecisionReason"]
    medium = hook("PreToolUse", claude_pre("helm uninstall web"), env=env)
    assert "permission-policy.jsonl:1" in medium["hookSpecificOutput"]["additionalContext"]
    asked = hook("PreToolUse", claude_pre("git clean -fdx"), env=env)
    assert asked["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert hook("PreToolUse", claude_pre("kubectl get pods"), env=env) is None
    # a changed file is read again (its size and mtime are part of the compiled key)
    (reflect / "policy-rules.jsonl").write_text("")
    assert hook("PreToolUse", claude_pre("kubectl delete ns prod"), env=env) is None
    listed = run_cli_proc("rules", "list", env=env)
    assert listed.returncode == 0 and "Bash(git clean:*)" in listed.stdout


@pytest.mark.parametrize(
    "payload", ["", "not json", "[1, 2]", '{"tool_name": 3}', json.dumps({"session_id": "s"})]
)
def test_bad_payloads_print_nothing(rules_kb, payload):
    assert hook("PreToolUse", payload) is None


@needs_shared
def test_a_broken_state_directory_or_kb_never_breaks_the_caller(rules_kb, kb, tmp_path):
    folder = state_dir(kb) / "policy"
    hook("PreToolUse", claude_pre("ls"))  # compiled
    (folder / "rules.json").write_text("{ torn")
    out = hook("PreToolUse", claude_pre("git push --force"))  # recompiled from the KB
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    for item in folder.iterdir():
        item.unlink()
    folder.rmdir()
    folder.write_text("a file where the folder goes")  # nothing can be saved: still enforced
    out = hook("PreToolUse", claude_pre("git push --force"))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    folder.unlink()
    # A damaged KB: the note's blob is gone. The hook says nothing and logs why.
    blob = git("rev-parse", f"HEAD:documents/{rules_kb['force']}.md", cwd=kb).strip()
    (kb / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    assert hook("PreToolUse", claude_pre("git push --force")) is None
    log = (state_dir(kb) / "logs" / "hooks.log").read_text()
    assert "policy:error" in log
    nowhere = {"REFLECT_GIT_KB": str(tmp_path / "no-kb-here")}
    assert hook("PreToolUse", claude_pre("git push --force"), env=nowhere) is None
    assert not (tmp_path / "no-kb-here").exists()


@needs_shared
def test_the_switches_turn_the_answers_off(rules_kb):
    assert hook("PreToolUse", claude_pre("git push --force"), env={"REFLECT_POLICY": "0"}) is None
    assert hook("PreToolUse", claude_pre("git push --force"), env={"REFLECT_DISABLED": "1"}) is None
    assert hook("PreToolUse", claude_pre("git push --force")) is not None


def test_rules_list_and_test_show_what_would_happen(rules_kb):
    listed = run_cli_proc("--json", "rules", "list")
    assert listed.returncode == 0, listed.stderr
    effects = {r["source"]: r["effect"] for r in json.loads(listed.stdout)["rules"]}
    assert effects[rules_kb["force"]] == "deny"
    assert effects[rules_kb["publish"]] == "context"
    assert effects[rules_kb["deploy"]] == "none (low)"
    assert effects[rules_kb["prune"]] == "none (unreviewed)"
    tested = run_cli_proc("rules", "test", "git push --force origin main")
    assert tested.returncode == 0
    assert "decision: deny" in tested.stdout and rules_kb["force"] in tested.stdout
    quiet = run_cli_proc("--json", "rules", "test", "git push origin main")
    assert (
        json.loads(quiet.stdout)["decision"] is None and json.loads(quiet.stdout)["reply"] is None
    )
    bad = run_cli_proc("rules", "test", "ls", "--harness", "vim")
    assert bad.returncode == 2 and "error:" in bad.stderr and "hint:" in bad.stderr


def _decision(out: Any) -> str | None:
    return out["hookSpecificOutput"].get("permissionDecision") if out else None


@needs_shared
def test_rules_compile_in_the_background_and_the_last_compile_answers_meanwhile(kb, tmp_path):
    write_note(
        kb, "no-force-push", "Never force-push", "high", {"deny": ["Bash(git push --force:*)"]}
    )
    commit(kb, "a rule")
    off = {SYNC: "0"}
    rules = state_dir(kb) / "policy" / "rules.json"
    # Nothing compiled yet: the first call answers from no rules, and starts the compile.
    assert hook("PreToolUse", claude_pre("git push --force"), env=off) is None
    wait_for(
        lambda: _decision(hook("PreToolUse", claude_pre("git push --force"), env=off)) == "deny",
        "the first compile",
    )
    drafts = tmp_path / "drafts"
    (drafts / "documents").mkdir(parents=True)

    def head() -> str:
        return git("rev-parse", "HEAD", cwd=kb).strip()

    def compiled_for_head() -> bool:
        return json.loads(rules.read_text()).get("commit") == head()

    # An add through the door starts the compile itself: no hook is called here.
    write_note(
        drafts, "ci-publish", "Publish from CI only", "high", {"deny": ["Bash(npm publish:*)"]}
    )
    added = run_cli_proc("add", str(drafts / "documents" / "ci-publish.md"))
    assert added.returncode == 0, added.stderr
    wait_for(compiled_for_head, "the compile the add started")
    assert _decision(hook("PreToolUse", claude_pre("npm publish"), env=off)) == "deny"
    # While a compile cannot finish (the test holds its lock), the last complete compile answers.
    write_note(drafts, "no-prune", "Never prune", "high", {"deny": ["Bash(docker system prune:*)"]})
    lock = os.open(state_dir(kb) / "policy" / "compile.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        before = rules.read_bytes()
        added = run_cli_proc("add", str(drafts / "documents" / "no-prune.md"))
        assert added.returncode == 0, added.stderr
        assert rules.read_bytes() == before  # the add compiled nothing
        assert hook("PreToolUse", claude_pre("docker system prune -a"), env=off) is None
        assert _decision(hook("PreToolUse", claude_pre("git push --force"), env=off)) == "deny"
        assert rules.read_bytes() == before  # nor did the hooks
    finally:
        os.close(lock)
    wait_for(compiled_for_head, "the compile once the lock is free")
    out = hook("PreToolUse", claude_pre("docker system prune -a"), env=off)
    assert _decision(out) == "deny"


def _age_refs(kb: Path) -> None:
    """Make HEAD's files older than the stamp's racy window, so the stamp can vouch for them
    (``git/headstamp.py``); a commit made a moment ago cannot."""
    import time

    old = time.time() - 60
    git_dir = kb / ".git"
    for path in [git_dir / "HEAD", git_dir / "packed-refs", *(git_dir / "refs").rglob("*")]:
        if path.is_file():
            os.utime(path, (old, old))


@needs_shared
def test_the_quick_answer_follows_head_the_policy_files_and_the_tools_ruled(kb, tmp_path):
    quick = state_dir(kb) / "policy" / "quick"
    read = {**claude_pre("x"), "tool_name": "Read", "tool_input": {"file_path": "/etc/hosts"}}
    _age_refs(kb)
    assert hook("PreToolUse", claude_pre("git push --force")) is None
    assert quick.read_text().split("\n")[1:] == ["", ""]  # this HEAD: no rules at all
    # HEAD moves: the quick answer no longer holds, the rules are read (and compiled, SYNC).
    write_note(
        kb, "no-force-push", "Never force-push", "high", {"deny": ["Bash(git push --force:*)"]}
    )
    commit(kb, "a rule")
    _age_refs(kb)
    assert _decision(hook("PreToolUse", claude_pre("git push --force"))) == "deny"
    ruled = quick.read_text().split("\n")[1].split("\t")
    assert "Bash" in ruled and "shell" in ruled and "Read" not in ruled
    assert hook("PreToolUse", read) is None  # a call of a tool no rule names
    # Forged to say no tool is ruled, the quick answer is believed for this HEAD: the hook
    # answers from it alone (the negative: the next commit makes it stale again).
    first = quick.read_text().split("\n")[0]
    quick.write_text(first + "\n\n")
    assert hook("PreToolUse", claude_pre("git push --force")) is None
    write_note(kb, "no-mcp", "No MCP writes", "high", {"deny": ["mcp__*"]})
    commit(kb, "a wildcard rule")
    _age_refs(kb)
    assert _decision(hook("PreToolUse", claude_pre("git push --force"))) == "deny"
    assert quick.read_text().split("\n")[1] == "*"  # a rule for any tool: every call reads them
    git("rm", "-q", "documents/no-mcp.md", "documents/no-force-push.md", cwd=kb)
    commit(kb, "no rule")
    _age_refs(kb)
    assert hook("PreToolUse", claude_pre("git push --force")) is None
    assert quick.is_file()
    # A policy file that appears (or changes) is part of what the quick answer vouches for.
    extra = tmp_path / "team-policy.jsonl"
    rule = {"rule": "Bash(git clean:*)", "decision": "deny", "confidence": "high"}
    extra.write_text(json.dumps(rule) + "\n")
    env = {"REFLECT_POLICY_FILE": str(extra)}
    assert _decision(hook("PreToolUse", claude_pre("git clean -fdx"), env=env)) == "deny"


# --------------------------------------------------------------------------- the window
# After HEAD or a policy file changes, the hooks answer from the last complete compile and ask
# for one compile in the background; the new rules act once it has finished.

OFF = {SYNC: "0"}


def tool_call(tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {**claude_pre("x"), "tool_name": tool, "tool_input": tool_input}


# Built from the shared corpus's real payload; without it the tests that use them skip.
_HAVE = EVENTS.is_dir()
WRITE_ENV = (
    tool_call("Write", {"file_path": "/home/dev/src/billing/.env", "content": "A=1\n"})
    if _HAVE
    else {}
)
READ = tool_call("Read", {"file_path": "/etc/hosts"}) if _HAVE else {}


def vouched_compile(kb: Path) -> Path:
    """One rule (never force-push), compiled, and the quick answer vouching for this HEAD."""
    write_note(
        kb, "no-force-push", "Never force-push", "high", {"deny": ["Bash(git push --force:*)"]}
    )
    commit(kb, "a rule")
    assert _decision(hook("PreToolUse", claude_pre("git push --force"))) == "deny"  # SYNC
    _age_refs(kb)
    assert hook("PreToolUse", READ) is None  # the rules read once more: now they vouch
    folder = state_dir(kb) / "policy"
    assert (folder / "quick").read_text().split("\n")[0].startswith("[['refs/heads/main'")
    return folder


class CompileHeld:
    """Hold the compile lock: a compile asked for meanwhile cannot finish."""

    def __init__(self, folder: Path) -> None:
        self.fd = os.open(folder / "compile.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __enter__(self) -> CompileHeld:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)


def asked(folder: Path) -> tuple[bytes, int] | None:
    wanted = folder / "wanted"
    return (wanted.read_bytes(), wanted.stat().st_mtime_ns) if wanted.exists() else None


@needs_shared
def test_a_new_rule_acts_once_the_compile_the_first_stale_hook_asked_for_finishes(kb):
    folder = vouched_compile(kb)
    rules = folder / "rules.json"
    assert hook("PreToolUse", WRITE_ENV, env=OFF) is None and asked(folder) is None
    write_note(kb, "no-env-edits", "Never edit env files", "high", {"deny": ["Edit(.env)"]})
    commit(kb, "a new rule")  # plain git: nothing starts a compile but the hooks
    with CompileHeld(folder):
        before = rules.read_bytes()
        assert hook("PreToolUse", WRITE_ENV, env=OFF) is None  # the last compile: no such rule
        first = asked(folder)
        assert first is not None
        for _ in range(3):  # asked once for this change, not once per call
            assert hook("PreToolUse", WRITE_ENV, env=OFF) is None
            assert asked(folder) == first
        # a ruled tool reads the last compile's rules, which still deny
        assert _decision(hook("PreToolUse", claude_pre("git push --force"), env=OFF)) == "deny"
        assert asked(folder) == first and rules.read_bytes() == before  # no hook compiled
    wait_for(
        lambda: _decision(hook("PreToolUse", WRITE_ENV, env=OFF)) == "deny",
        "the compile the first stale hook asked for",
    )
    assert hook("PreToolUse", READ, env=OFF) is None
    # A compile this soon after the commit could not vouch for HEAD; in the background it
    # waits that out and then does, so the quick answer holds again with no hook's help.
    quick = folder / "quick"
    wait_for(lambda: not quick.read_text().startswith("[None"), "the compile vouching for HEAD")
    assert quick.read_text().split("\n")[1].split("\t").count("Write") == 1


@needs_shared
def test_an_add_asks_for_the_compile_itself_and_the_hooks_start_none(kb, tmp_path):
    folder = vouched_compile(kb)
    drafts = tmp_path / "drafts"
    (drafts / "documents").mkdir(parents=True)
    write_note(drafts, "no-env-edits", "Never edit env files", "high", {"deny": ["Edit(.env)"]})
    with CompileHeld(folder):
        added = run_cli_proc("add", str(drafts / "documents" / "no-env-edits.md"))
        assert added.returncode == 0, added.stderr
        first = asked(folder)
        assert first is not None  # the door asked, and started the compile
        assert hook("PreToolUse", WRITE_ENV, env=OFF) is None
        assert asked(folder) == first  # the hook found it asked: it started nothing
    wait_for(lambda: _decision(hook("PreToolUse", WRITE_ENV, env=OFF)) == "deny", "the compile")


@needs_shared
def test_a_compile_asked_long_ago_and_never_done_is_asked_again(kb):
    import time

    folder = vouched_compile(kb)
    (kb / "README.md").write_text("changed\n")
    commit(kb, "HEAD moves")
    with CompileHeld(folder):
        assert hook("PreToolUse", READ, env=OFF) is None
        first = asked(folder)
        assert first is not None
        old = time.time() - 120
        os.utime(folder / "wanted", (old, old))
        assert hook("PreToolUse", READ, env=OFF) is None
        again = asked(folder)
        assert again is not None and again[0] == first[0] and again[1] > old * 1e9 + 60e9


@needs_shared
def test_a_removed_rule_denies_until_the_compile_finishes_and_then_never(kb):
    vouched_compile(kb)
    git("rm", "-q", "documents/no-force-push.md", cwd=kb)
    commit(kb, "no rule")
    # the first call after the change is answered by the last compile, which asks for the next
    assert _decision(hook("PreToolUse", claude_pre("git push --force"), env=OFF)) == "deny"
    wait_for(
        lambda: hook("PreToolUse", claude_pre("git push --force"), env=OFF) is None,
        "the compile without the rule",
    )
    _age_refs(kb)
    assert hook("PreToolUse", claude_pre("git push --force"), env=OFF) is None


@needs_shared
def test_a_wildcard_rule_of_the_last_compile_keeps_acting_on_every_call(kb):
    folder = vouched_compile(kb)
    mcp = tool_call("mcp__github__push_files", {"repo": "web"})
    assert hook("PreToolUse", mcp, env=OFF) is None
    write_note(kb, "no-mcp", "No MCP writes", "high", {"deny": ["mcp__*"]})
    commit(kb, "a wildcard rule")
    assert hook("PreToolUse", mcp, env=OFF) is None  # the last compile has no wildcard yet
    wait_for(lambda: _decision(hook("PreToolUse", mcp, env=OFF)) == "deny", "the wildcard")
    assert (folder / "quick").read_text().split("\n")[1] == "*"
    (kb / "README.md").write_text("changed\n")
    commit(kb, "no rule changed")
    with CompileHeld(folder):  # stale: the wildcard rule of the last compile still answers
        assert _decision(hook("PreToolUse", mcp, env=OFF)) == "deny"
        assert hook("PreToolUse", READ, env=OFF) is None


@needs_shared
def test_a_policy_file_named_or_changed_acts_once_compiled_again(kb, tmp_path):
    vouched_compile(kb)
    extra = tmp_path / "team-policy.jsonl"
    extra.write_text(json.dumps({"rule": "Edit(.env)", "decision": "deny", "confidence": "high"}))
    named = {**OFF, "REFLECT_POLICY_FILE": str(extra)}
    assert hook("PreToolUse", WRITE_ENV, env=named) is None  # the last compile read no such file
    wait_for(lambda: _decision(hook("PreToolUse", WRITE_ENV, env=named)) == "deny", "the file")
    extra.write_text("")  # the rule goes: until the compile, the last one denies
    wait_for(lambda: hook("PreToolUse", WRITE_ENV, env=named) is None, "the emptied file")
    assert hook("PreToolUse", READ, env=named) is None


@needs_shared
def test_a_torn_or_foreign_quick_answer_is_never_believed(kb):
    folder = vouched_compile(kb)
    quick = folder / "quick"
    whole = quick.read_bytes()
    for torn in (whole[: len(whole) // 2], whole.split(b"\n")[0], b"", b"\t\n\n"):
        quick.write_bytes(torn)
        assert _decision(hook("PreToolUse", claude_pre("git push --force"), env=OFF)) == "deny"
    quick.write_bytes(whole[: len(whole) // 2])
    assert hook("PreToolUse", READ, env=OFF) is None  # read the slow way, which mends it
    assert quick.read_bytes() == whole
    # Forged to rule no tool: for the rules.json it summarises, it is believed (the negative)...
    forged = whole.split(b"\n")[0] + b"\n\n"
    (kb / "README.md").write_text("changed\n")
    commit(kb, "HEAD moves: the last compile answers")
    with CompileHeld(folder):
        quick.write_bytes(forged)
        assert hook("PreToolUse", claude_pre("git push --force"), env=OFF) is None
        # ...but not once rules.json is another file than the one it summarised
        rules = folder / "rules.json"
        copy = folder / "rules.copy"
        copy.write_bytes(rules.read_bytes())
        os.replace(copy, rules)
        assert _decision(hook("PreToolUse", claude_pre("git push --force"), env=OFF)) == "deny"


@needs_shared
def test_the_quick_reading_of_a_ruled_tool_agrees_with_the_whole_reading(rules_kb, kb, tmp_path):
    billing, shop = tmp_path / "billing", tmp_path / "shop"
    billing.mkdir()
    shop.mkdir()
    calls = [
        claude_pre(command, cwd=str(where))
        for where in (billing, shop)
        for command in (
            "git push --force origin main",  # deny
            "git push origin main",  # a Bash call no rule matches
            "terraform apply",  # ask
            "npm publish",  # context
            "make deploy",  # low: nothing
            "docker system prune -a",  # unreviewed: nothing
            "rm -rf dist",  # deny in billing only
        )
    ]
    calls += [WRITE_ENV, tool_call("Edit", {"file_path": "/srv/.env.example"}), READ]
    # HEAD's files a moment old: the quick answer cannot vouch, every call is read whole
    whole = [hook("PreToolUse", call) for call in calls]
    assert [_decision(out) for out in whole[:7]] == ["deny", None, "ask", None, None, None, "deny"]
    assert whole[7:14] == [whole[0], None, whole[2], whole[3], None, None, None]
    _age_refs(kb)
    assert hook("PreToolUse", READ) is None  # the whole reading vouches for HEAD
    quick = [hook("PreToolUse", call, env=OFF) for call in calls]
    assert quick == whole
    (kb / "README.md").write_text("changed\n")
    commit(kb, "no rule changed")
    with CompileHeld(state_dir(kb) / "policy"):  # and stale: the last compile answers alike
        assert [hook("PreToolUse", call, env=OFF) for call in calls] == whole


# --------------------------------------------------------------------------- command rules
# When every shell rule is a command rule, the compile writes them into the quick answer and a
# shell call is answered from them and the parsed payload, without the rules or their parser.


@needs_shared
@pytest.mark.parametrize(
    ("rule", "command", "expected"),
    [(rule, c, True) for rule, yes, _ in COMMAND_CASES if "*" not in rule[:-3] for c in yes]
    + [(rule, c, False) for rule, _, no in COMMAND_CASES if "*" not in rule[:-3] for c in no],
)
def test_the_command_table_answers_as_the_rules_do(rule, command, expected, tmp_path):
    table = command_table([parse_pattern(rule), parse_pattern("Edit(.env)")])
    assert table is not None
    line = rulestamp.command_line(table["tools"], table["rules"])
    assert line is not None
    commands = line.encode()
    for payload in (claude_pre(command), copilot_camel_pre(command)):
        raw = json.dumps(payload).encode()
        # an empty state directory: without the table there are no rules to say "unmatched"
        assert unmatched(str(tmp_path), "/home/dev", raw, commands) is not expected
        assert unmatched(str(tmp_path), "/home/dev", raw, None) is False
    read = json.dumps(tool_call("Read", {"file_path": "/etc/hosts"})).encode()
    assert unmatched(str(tmp_path), "/home/dev", read, commands) is False  # not its tools


@needs_shared
def test_a_shell_call_is_answered_from_the_command_rules_of_the_last_compile(kb):
    folder = vouched_compile(kb)
    quick = folder / "quick"
    lines = quick.read_text().split("\n")
    assert lines[2].split("\t")[1:] == ["prefix\x1fgit\x1fpush\x1f--force"]
    for command in (
        "git push --force origin main",
        "sudo git push --force",
        "bash -c 'x; git push --force'",
    ):
        assert _decision(hook("PreToolUse", claude_pre(command), env=OFF)) == "deny", command
        assert _decision(hook("PreToolUse", codex_pre(command), env=OFF)) == "deny", command
    for command in ("git status", "git push origin main", "echo git push --force"):
        assert hook("PreToolUse", claude_pre(command), env=OFF) is None
    assert hook("PreToolUse", READ, env=OFF) is None  # a tool no rule names
    # Forged to hold no rule, the table is what answers (the negative: a broken table, or one
    # for other tools, and the rules are read whole again).
    whole = quick.read_text()
    quick.write_text("\n".join([*lines[:2], "Bash\tprefix\x1fgit\x1fclean", ""]))
    assert hook("PreToolUse", claude_pre("git push --force"), env=OFF) is None
    for broken in ("Bash\tglob", "Bash", "Read\tprefix\x1fgit\x1fclean"):
        quick.write_text("\n".join([*lines[:2], broken, ""]))
        assert _decision(hook("PreToolUse", claude_pre("git push --force"), env=OFF)) == "deny"
    quick.write_text(whole)
    # A rule with a pattern on a shell tool: no table, and the rules answer.
    write_note(kb, "no-main", "Never touch main", "high", {"deny": ["Bash(git * main)"]})
    commit(kb, "a glob rule")
    assert _decision(hook("PreToolUse", claude_pre("git checkout main"))) == "deny"  # SYNC
    _age_refs(kb)
    assert hook("PreToolUse", READ) is None
    assert quick.read_text().count("\n") == 2
    assert _decision(hook("PreToolUse", claude_pre("git reset main"), env=OFF)) == "deny"
    assert hook("PreToolUse", claude_pre("git status"), env=OFF) is None
    # A stale compile: its table answers until the compile asked for finishes.
    git("rm", "-q", "documents/no-main.md", cwd=kb)
    write_note(kb, "no-clean", "Never git clean", "high", {"deny": ["Bash(git clean:*)"]})
    commit(kb, "a command rule")
    _age_refs(kb)
    assert _decision(hook("PreToolUse", claude_pre("git clean -fdx"))) == "deny"  # SYNC
    assert hook("PreToolUse", READ) is None
    assert quick.read_text().split("\n")[2].split("\t")[1] == "prefix\x1fgit\x1fclean"
    write_note(kb, "no-prune", "Never prune", "high", {"deny": ["Bash(docker system prune:*)"]})
    commit(kb, "another command rule")
    with CompileHeld(folder):
        assert hook("PreToolUse", claude_pre("docker system prune -a"), env=OFF) is None
        assert _decision(hook("PreToolUse", claude_pre("git clean -fdx"), env=OFF)) == "deny"
    prune = claude_pre("docker system prune -a")
    wait_for(lambda: _decision(hook("PreToolUse", prune, env=OFF)) == "deny", "the new rule")
