"""Enforced rules: ``rules list`` (what is in force, and from where) and ``rules test`` (what
``hook PreToolUse`` would answer for a command or a path). See docs/rules.md."""

import typer

from reflectgit.cli import render
from reflectgit.cli.options import fail, globals_of

commands = typer.Typer()
rules_app = typer.Typer(help="Enforced rules: what the PreToolUse hook blocks, asks or says.")
commands.add_typer(rules_app, name="rules")

HARNESS_CHOICES = ("claude", "codex", "copilot")
EVENT_CHOICES = ("PreToolUse", "PermissionRequest")


@rules_app.command("list")
def list_cmd(ctx: typer.Context) -> None:
    """Every rule in force: from notes on HEAD, and from the JSONL policy files (recompiled
    when the KB or a policy file changed)."""
    from reflectgit.workflows.policy import load, policy_files

    cfg = globals_of(ctx).config()
    cfg.require_kb()
    ruleset = load(cfg)
    doc = {
        "tree": ruleset.tree,
        "rules": [{**r.to_json(), "effect": r.effect} for r in ruleset.rules],
        "files": [str(p) for p in policy_files(cfg)],
        "files_read": ruleset.files,
        "problems": ruleset.problems,
    }
    render.emit(ctx, doc, render.rule_table(ruleset))
    for problem in ruleset.problems:
        render.note_line(ctx, f"warning: {problem}")


@rules_app.command("test")
def test_cmd(
    ctx: typer.Context,
    what: str = typer.Argument(..., help="A shell command, or a path with --tool Edit|Read."),
    tool: str = typer.Option("Bash", "--tool", help="The tool the call is for (Bash, Edit, ...)."),
    cwd: str | None = typer.Option(None, "--cwd", help="The session's directory (default: here)."),
    harness: str = typer.Option("claude", "--harness", help="Whose reply to show."),
    event: str = typer.Option("PreToolUse", "--event", help="PreToolUse or PermissionRequest."),
) -> None:
    """What `hook PreToolUse` would answer for WHAT: the rules that match, the decision, and
    the JSON the harness would read."""
    import os

    from reflectgit.hooks.policy import reply
    from reflectgit.workflows.policy import check

    if harness not in HARNESS_CHOICES:
        fail(f"unknown harness {harness!r}", "use claude, codex or copilot", code=2)
    if event not in EVENT_CHOICES:
        fail(f"unknown event {event!r}", "use PreToolUse or PermissionRequest", code=2)
    if not what.strip():
        fail("nothing to test", 'give a command: reflect-git rules test "git push --force"', 2)
    cfg = globals_of(ctx).config()
    cfg.require_kb()
    if tool in ("Edit", "Write", "Read", "MultiEdit", "NotebookEdit"):
        tool_input: dict[str, str] = {"file_path": what}
    elif tool == "WebFetch":
        tool_input = {"url": what}
    else:
        tool_input = {"command": what}
    where = os.path.abspath(cwd) if cwd else os.getcwd()
    result = check(cfg, tool, tool_input, where)
    answer = None if result.decision.silent else reply(harness, False, event, result.decision)
    doc = {
        "tool": tool,
        "input": tool_input,
        "decision": result.decision.action,
        "reason": result.decision.reason or None,
        "context": list(result.decision.context),
        "matched": [{**r.to_json(), "effect": r.effect} for r in result.decision.matched],
        "reply": answer,
    }
    render.emit(ctx, doc, render.rule_test(result, harness, event, answer))
