"""Capture commands: hooks install|status, capture commit|idle, hook EVENT.

``hook EVENT`` and ``capture commit`` normally never get here: ``fastpath`` sends them straight
to ``reflectgit.hooks``. These typer commands are what ``--help`` shows and what runs when
the peek steps aside.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from reflectgit.cli import render
from reflectgit.cli.options import globals_of
from reflectgit.errors import NotFoundError

commands = typer.Typer()

hooks_app = typer.Typer(
    help="Install, remove and inspect the capture hooks (git post-commit, agent harnesses).",
    no_args_is_help=True,
)
commands.add_typer(hooks_app, name="hooks")
capture_app = typer.Typer(
    help="What the installed hooks run (you rarely call these yourself).", no_args_is_help=True
)
commands.add_typer(capture_app, name="capture")


@hooks_app.command("install")
def hooks_install(
    ctx: typer.Context,
    repo: str | None = typer.Argument(
        None, help="Repository for the post-commit hook (default: .)."
    ),
    uninstall: bool = typer.Option(False, "--uninstall", help="Remove our hooks, restore others."),
    agent: str | None = typer.Option(
        None,
        "--agent",
        help="Merge hook commands into an agent's settings: claude, codex or copilot.",
    ),
    scope: str = typer.Option(
        "user", "--scope", help="Agent settings to change: user (home) or project (REPO)."
    ),
) -> None:
    """Install (or remove) the post-commit capture hook, or an agent's hook commands."""
    import os

    from reflectgit.workflows import installer

    g = globals_of(ctx)
    env = dict(g.config().env)
    base = Path(os.path.expanduser(repo)).absolute() if repo else Path.cwd()
    if agent is not None:
        home = g.config().home
        result = installer.install_agent_hooks(
            agent.lower(),
            scope.lower(),
            python=sys.executable,
            home=home,
            project=base,
            env=env,
            uninstall=uninstall,
        )
        render.emit(ctx, result.to_dict(), render.agent_hooks(result))
        return
    if uninstall:
        done = installer.uninstall_git_hook(base, env=env)
    else:
        pinned = str(g.config().kb) if g.kb else None
        done = installer.install_git_hook(base, python=sys.executable, kb=pinned, env=env)
    render.emit(ctx, done.to_dict(), render.git_hook(done))


@hooks_app.command("status")
def hooks_status(
    ctx: typer.Context,
    repo: str | None = typer.Argument(None, help="Repository to inspect (default: .)."),
) -> None:
    """What is installed where: the post-commit hook and each agent's settings."""
    import os

    from reflectgit.workflows import installer

    g = globals_of(ctx)
    env = dict(g.config().env)
    base = Path(os.path.expanduser(repo)).absolute() if repo else Path.cwd()
    try:
        git_status: dict[str, Any] | None = installer.git_hook_status(base, env=env)
    except NotFoundError:
        git_status = None  # agent settings are still worth showing
    home = Path(env.get("HOME") or Path.home())
    agents = installer.agent_hook_status(home=home, project=base, env=env)
    lines = render.hooks_status(base, git_status, agents)
    render.emit(ctx, {"git": git_status, "agents": agents}, lines)


@capture_app.command("commit")
def capture_commit(
    ctx: typer.Context,
    sha: str | None = typer.Argument(None, help="Commit to record (default: HEAD)."),
    branch: str | None = typer.Argument(None, help="Branch it was made on."),
) -> None:
    """Record a commit in the state directory (what the post-commit shim runs; never fails)."""
    from reflectgit.hooks.capture import main as capture_main

    capture_main(["commit", sha or "", branch or ""], kb=globals_of(ctx).kb)


@capture_app.command("idle")
def capture_idle(ctx: typer.Context) -> None:
    """Queue agent sessions that went quiet (REFLECT_IDLE_* settings; for a timer)."""
    from reflectgit.workflows.capture.commits import Capture

    cap = Capture(globals_of(ctx).config())
    if cap.idle_disabled:
        render.emit(ctx, {"disabled": True, "queued": []}, "idle sweep disabled")
        return
    root, threshold, max_age, limit = cap.idle_settings()
    results = cap.idle_sweep(root, threshold=threshold, max_age=max_age, limit=limit)
    rows = [
        {
            "transcript": path,
            "reason": q.verdict.reason,
            "entry": q.entry_id,
            "created": q.created,
        }
        for path, q in results
    ]
    doc = {"disabled": False, "root": str(root), "queued": rows}
    render.emit(ctx, doc, render.idle_swept(rows, root))


@commands.command("hook", context_settings={"allow_extra_args": True})
def hook(
    event: str = typer.Argument(..., help="The harness event (PostToolUse, Stop, ...)."),
    payload: str | None = typer.Argument(None, help="The payload, when not on stdin (Codex)."),
) -> None:
    """An agent hook: reads the event's JSON on stdin, never fails the caller."""
    from reflectgit.hooks.agent import main as hook_main

    hook_main([event] + ([payload] if payload else []))
