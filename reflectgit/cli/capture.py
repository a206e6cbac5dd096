"""Capture commands: hooks install|status, capture commit|merge|idle, hook EVENT.

The installed hooks run their own entry points (``reflect-git-hook`` for an agent's events,
``python -m reflectgit.hooks.capture`` in the git shims); ``hook`` and ``capture commit`` call
the same functions, for hooks installed by earlier releases and for a user trying one.
"""

import sys
from pathlib import Path
from typing import Any

import typer

from reflectgit.cli import render
from reflectgit.cli.options import fail, globals_of
from reflectgit.errors import EXIT_USAGE, NotFoundError

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
    timer: bool = typer.Option(
        False, "--timer", help="Schedule the drain and the idle sweep (systemd user timers)."
    ),
    timer_kind: str | None = typer.Option(
        None, "--timer-kind", help="systemd or launchd (default: launchd on macOS, else systemd)."
    ),
    mcp: bool | None = typer.Option(
        None,
        "--mcp/--no-mcp",
        help="With --agent claude|codex: also register the `reflect-git mcp` server "
        "(default: ask on a terminal, else no).",
    ),
) -> None:
    """Install (or remove) the post-commit capture hook, an agent's hook commands, or timers."""
    import os

    from reflectgit.workflows import installer

    g = globals_of(ctx)
    env = dict(g.config().env)
    if timer or timer_kind:
        _timers(ctx, (timer_kind or "").lower(), uninstall)
        return
    base = Path(os.path.expanduser(repo)).absolute() if repo else Path.cwd()
    # The KB first: without one nothing is asked, nothing is written.
    kb, kb_lines = (None, []) if agent is None or uninstall else _hooks_kb(ctx, agent, scope, base)
    register = not uninstall and _mcp_wanted(ctx, agent and agent.lower(), scope.lower(), base, mcp)
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
            kb=kb,
            mcp=register,
        )
        doc, lines = result.to_dict(), render.agent_hooks(result) + kb_lines
        mcp_agent = agent.lower() in installer.MCP_AGENTS
        registered = (
            _mcp(ctx, agent.lower(), scope.lower(), base, uninstall)
            if (register or (uninstall and mcp_agent))
            else None
        )
        if registered is not None:
            doc["mcp"] = registered.to_dict()
            lines += render.mcp_registration(registered)
        if not uninstall:
            rows = installer.agent_hook_status(home=home, project=base, env=env)
            doc["doubled"] = installer.doubled(rows)
            for twice in doc["doubled"]:
                render.note_line(ctx, render.doubled_warning(twice, base))
        render.emit(ctx, doc, lines)
        return
    pinned = str(g.config().kb) if g.kb else None
    done = [
        installer.uninstall_git_hook(base, env=env, name=name)
        if uninstall
        else installer.install_git_hook(base, python=sys.executable, kb=pinned, env=env, name=name)
        for name in installer.GIT_HOOKS
    ]
    from reflectgit.workflows import merging

    driver = (
        merging.unregister(base, env) if uninstall else merging.register(base, sys.executable, env)
    )
    doc = done[0].to_dict() | {"post_merge": done[1].to_dict(), "merge_driver": driver.to_dict()}
    lines = [line for one in done for line in render.git_hook(one)]
    render.emit(ctx, doc, lines + render.merge_registration(driver))


def _hooks_kb(ctx: typer.Context, agent: str, scope: str, base: Path) -> tuple[Path, list[str]]:
    """The KB the agent hooks will read, and the lines saying which and why.

    A personal file names the KB this command resolved (``--kb PATH`` in every command: it is
    yours, like the Python path it names). A shared file names none: each user's hooks find
    their KB from the project folder (the KB it is in, else their default KB); when you have no
    default yet, the KB resolved here becomes it. No KB there: refused, with a hint."""
    from reflectgit.config import resolve_kb, set_default_kb
    from reflectgit.git.repo_info import is_repository
    from reflectgit.workflows import installer

    cfg = globals_of(ctx).config()
    chosen = cfg.kb_choice
    target = installer.hook_target(
        agent.lower(),
        scope.lower(),
        python=sys.executable,
        home=cfg.home,
        project=base,
        env=cfg.env,
    )
    if not target.shared:
        if not is_repository(chosen.path):
            raise NotFoundError(
                f"no knowledge base at {cfg.kb} ({render.kb_reason(chosen)}): the hooks would "
                "read nothing",
                hint=render.no_kb_hint(),
            )
        return cfg.kb, render.hooks_kb_named(chosen)
    found = resolve_kb(None, cfg.env, base)
    lines = []
    if found.source == "fallback" and is_repository(chosen.path) and chosen.path != found.path:
        set_default_kb(cfg.env, chosen.path)
        found = resolve_kb(None, cfg.env, base)
        lines.append(render.default_kb_set(chosen.path, found.origin))
    if not is_repository(found.path):
        raise NotFoundError(
            f"{target.path} is shared, so it names no KB, and yours there would be {found.path} "
            f"({render.kb_reason(found)}), where there is no knowledge base",
            hint=render.no_kb_hint(),
        )
    return found.path, render.hooks_kb_found(found, chosen) + lines


def _mcp_wanted(
    ctx: typer.Context, agent: str | None, scope: str, base: Path, wanted: bool | None
) -> bool:
    """Whether ``hooks install`` registers the MCP server too, decided before anything is written.

    ``--mcp`` / ``--no-mcp`` decide; without either, an entry registered before is kept up to
    date, else a question on a terminal (stdin and stderr both ttys, no --json or --quiet), and
    from a script no, with one note saying how.
    The files the entry would go into are read (so validated) here, before the hooks."""
    from reflectgit.workflows import installer

    if agent is None or agent not in installer.MCP_AGENTS:
        if wanted:
            fail(
                f"--mcp registers the MCP server with an agent: {agent or 'no --agent'} has none here",
                hint="--mcp goes with --agent claude or --agent codex",
                code=EXIT_USAGE,
            )
        return False
    if wanted:
        _mcp_installed()
    g = globals_of(ctx)
    config = g.config()
    targets = installer.mcp_targets(agent, scope, home=config.home, project=base, env=config.env)
    if wanted is None and installer.mcp_registered(targets):
        wanted = True  # registered before: keep the entry up to date, ask nothing
    if wanted is None:
        if not (sys.stdin.isatty() and sys.stderr.isatty()) or g.json or g.quiet:
            render.note_line(ctx, render.mcp_offer(agent))
            return False
        wanted = typer.confirm(
            f"Also register the reflect-git MCP server with {agent} ({targets[0].path})?",
            default=True,
            err=True,
        )
        if wanted:
            _mcp_installed()
    if wanted:
        installer.check_mcp_targets(targets)
    return bool(wanted)


def _mcp_installed() -> None:
    """The server the entry would start needs the ``mcp`` extra: refuse before writing."""
    from reflectgit.installation import require

    require("mcp", "hooks install --mcp")


def _mcp(ctx: typer.Context, agent: str, scope: str, base: Path, uninstall: bool) -> Any:
    """Register (or, with --uninstall, remove) the ``reflect-git mcp`` entry."""
    from reflectgit.workflows import installer

    g = globals_of(ctx)
    config = g.config()
    return installer.register_mcp(
        agent,
        scope,
        python=sys.executable,
        kb=None if uninstall else str(config.kb),
        home=config.home,
        project=base,
        env=config.env,
        uninstall=uninstall,
    )


def _timers(ctx: typer.Context, kind: str, uninstall: bool) -> None:
    """``hooks install --timer``: scheduler files for the drain and the idle sweep."""
    from reflectgit.workflows import timers

    config = globals_of(ctx).config()
    kind = kind or timers.default_kind()
    if uninstall:
        result = timers.uninstall_timers(kind, home=config.home, env=config.env)
    else:
        kb = config.kb.absolute()
        result = timers.install_timers(
            kind, python=sys.executable, kb=kb, home=config.home, env=config.env
        )
    render.emit(ctx, result.to_dict(), render.timers(result))


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
    mcp = installer.mcp_status(home=home, project=base, env=env)
    lines += render.mcp_status(mcp)
    twice = installer.doubled(agents)
    lines += [render.doubled_warning(d, base) for d in twice]
    doc = {"git": git_status, "agents": agents, "mcp": mcp, "doubled": twice}
    render.emit(ctx, doc, lines)


@capture_app.command("commit")
def capture_commit(
    ctx: typer.Context,
    sha: str | None = typer.Argument(None, help="Commit to record (default: HEAD)."),
    branch: str | None = typer.Argument(None, help="Branch it was made on."),
) -> None:
    """Record a commit in the state directory (what the post-commit shim runs; never fails)."""
    from reflectgit.hooks.capture import main as capture_main

    capture_main(["commit", sha or "", branch or ""], kb=globals_of(ctx).kb)


@capture_app.command("merge")
def capture_merge(ctx: typer.Context) -> None:
    """Record the merge commit a clean `git merge` made (what the post-merge shim runs)."""
    from reflectgit.hooks.capture import main as capture_main

    capture_main(["merge"], kb=globals_of(ctx).kb)


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


@commands.command(
    "hook", context_settings={"allow_extra_args": True, "ignore_unknown_options": True}
)
def hook(
    ctx: typer.Context,
    event: str = typer.Argument(
        ..., help="The harness event (PostToolUse, Stop, postToolUse, ...)."
    ),
    payload: str | None = typer.Argument(
        None, help="The payload, when not on stdin (Codex notify)."
    ),
    harness: str | None = typer.Option(
        None,
        "--harness",
        help="Who sends the event: claude, codex or copilot (default: read from the payload).",
    ),
) -> None:
    """An agent hook: reads the event's JSON on stdin, never fails the caller (as
    `reflect-git-hook`, which the installer writes)."""
    from reflectgit.hooks.agent import main as hook_main

    extra = ["--harness", harness] if harness else []
    hook_main([event, *extra] + ([payload] if payload else []), kb=globals_of(ctx).kb)
