"""Install and remove reflect-git's hooks: the git post-commit shim and the agent settings.

The post-commit shim is a managed block between marker lines, so installing twice changes
nothing and uninstalling removes exactly what we wrote. A hook that was there before is kept
next to ours (``post-commit.reflect-git-chained``), runs first on every commit, and is put back
on uninstall. The hooks folder is whatever git says (``core.hooksPath``, worktrees share the
common one). Agent settings are merged: only our own entries are added, updated or removed.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflectgit.errors import ConfigError, ConflictError, UsageError
from reflectgit.git import repo_info

HOOK_NAME = "post-commit"
CHAINED_SUFFIX = ".reflect-git-chained"
BEGIN = "# >>> reflect-git post-commit >>>"
END = "# <<< reflect-git post-commit <<<"

# The same text ships as hooks/post-commit at the top of the repository (a test keeps the two
# identical). @PYTHON@ and @KB@ are filled in, shell-quoted, at install time.
SHIM_TEMPLATE = """#!/bin/sh
# >>> reflect-git post-commit >>>
# Installed by `reflect-git hooks install`; `reflect-git hooks install --uninstall` removes this
# block and puts back the hook that was here before (kept as post-commit.reflect-git-chained).
# Records each commit for reflect-git (sha, branch, subject, files, agent session) without ever
# failing or slowing the commit: the capture runs in the background (REFLECT_GIT_HOOK_SYNC=1 waits).
rg_status=0
if [ -x "$0.reflect-git-chained" ]; then
    "$0.reflect-git-chained" "$@" || rg_status=$?
fi
rg_python=@PYTHON@
rg_kb=@KB@
if [ -n "$rg_kb" ] && [ -z "${REFLECT_GIT_KB:-}" ]; then
    REFLECT_GIT_KB=$rg_kb
    export REFLECT_GIT_KB
fi
rg_capture() {
    set -- $(git rev-parse HEAD --abbrev-ref HEAD 2>/dev/null)
    if [ -x "$rg_python" ]; then
        "$rg_python" -m reflectgit.hooks.capture commit "${1:-}" "${2:-}"
    elif command -v reflect-git >/dev/null 2>&1; then
        reflect-git capture commit "${1:-}" "${2:-}"
    fi
}
if [ "${REFLECT_GIT_INTERNAL:-0}" = 1 ]; then
    : # a git command reflect-git itself ran: never capture our own work
elif [ "${REFLECT_GIT_HOOK_SYNC:-0}" = 1 ]; then
    rg_capture </dev/null >/dev/null 2>&1
else
    # Redirect the subshell itself: no copy of git's (or its caller's) pipes may stay open
    # in the background job, or whoever reads git's output would wait for the capture.
    (rg_capture &) </dev/null >/dev/null 2>&1
fi
exit $rg_status
# <<< reflect-git post-commit <<<
"""

_BLOCK = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END) + r"\n?", re.DOTALL)


def sh_quote(value: str) -> str:
    """Single-quote for POSIX sh."""
    return "'" + value.replace("'", "'\"'\"'") + "'"


def render_shim(python: str, kb: str | None) -> str:
    """The hook file for this interpreter (and the KB pinned at install, if any)."""
    return SHIM_TEMPLATE.replace("@PYTHON@", sh_quote(python)).replace("@KB@", sh_quote(kb or ""))


@dataclass(frozen=True)
class GitHookResult:
    """What ``hooks install``/``--uninstall`` did in one repository."""

    repo: str
    hook: str
    action: str  # installed | updated | unchanged | uninstalled | absent
    chained: str | None = None
    restored: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def hooks_dir(repo: Path, env: Mapping[str, str]) -> Path:
    """The folder git runs hooks from (``core.hooksPath`` or the common git dir's ``hooks``)."""
    return repo_info.hooks_dir(repo, env)


def _write_executable(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.reflect-git.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.chmod(tmp, 0o755)
    os.replace(tmp, path)


def install_git_hook(
    repo: Path, *, python: str, kb: str | None, env: Mapping[str, str]
) -> GitHookResult:
    """Install (or refresh) the post-commit shim; chain a hook that was already there."""
    folder = hooks_dir(repo, env)
    folder.mkdir(parents=True, exist_ok=True)
    hook = folder / HOOK_NAME
    chained = folder / (HOOK_NAME + CHAINED_SUFFIX)
    shim = render_shim(python, kb)
    if hook.is_symlink() or hook.exists():
        current = hook.read_text(encoding="utf-8", errors="replace") if hook.is_file() else ""
        if BEGIN in current:
            updated = _BLOCK.sub(lambda _m: shim.split("\n", 1)[1], current, count=1)
            if updated == current:
                return GitHookResult(str(repo), str(hook), "unchanged", _exists(chained))
            _write_executable(hook, updated)
            return GitHookResult(str(repo), str(hook), "updated", _exists(chained))
        if chained.exists() or chained.is_symlink():
            raise ConflictError(
                f"{chained} already exists, so the current {hook} cannot be chained",
                hint="look at both files, remove the one you do not need, and run install again",
            )
        os.replace(hook, chained)
        _write_executable(hook, shim)
        return GitHookResult(str(repo), str(hook), "installed", str(chained))
    _write_executable(hook, shim)
    return GitHookResult(str(repo), str(hook), "installed", None)


def uninstall_git_hook(repo: Path, *, env: Mapping[str, str]) -> GitHookResult:
    """Remove our block; put back the hook we chained when nothing else is left."""
    folder = hooks_dir(repo, env)
    hook = folder / HOOK_NAME
    chained = folder / (HOOK_NAME + CHAINED_SUFFIX)
    current = hook.read_text(encoding="utf-8", errors="replace") if hook.is_file() else None
    if current is None or BEGIN not in current:
        return GitHookResult(str(repo), str(hook), "absent", _exists(chained))
    rest = _BLOCK.sub("", current)
    meaningful = [line for line in rest.splitlines() if line.strip() and not line.startswith("#!")]
    if meaningful:  # someone added lines of their own around our block: keep them
        _write_executable(hook, rest)
        return GitHookResult(str(repo), str(hook), "uninstalled", _exists(chained))
    hook.unlink()
    restored = None
    if chained.exists() or chained.is_symlink():
        os.replace(chained, hook)
        restored = str(hook)
    return GitHookResult(str(repo), str(hook), "uninstalled", None, restored)


def git_hook_status(repo: Path, *, env: Mapping[str, str]) -> dict[str, Any]:
    """What is installed in a repository's hooks folder."""
    folder = hooks_dir(repo, env)
    hook = folder / HOOK_NAME
    chained = folder / (HOOK_NAME + CHAINED_SUFFIX)
    text = hook.read_text(encoding="utf-8", errors="replace") if hook.is_file() else ""
    python = None
    m = re.search(r"^rg_python=(.*)$", text, re.MULTILINE)
    if m:
        with_quotes = shlex.split(m.group(1))
        python = with_quotes[0] if with_quotes else None
    return {
        "repo": str(repo),
        "hooks_dir": str(folder),
        "hooks_path": repo_info.config_value(repo, "core.hooksPath", env),
        "hook": str(hook),
        "installed": BEGIN in text,
        "executable": hook.is_file() and os.access(hook, os.X_OK),
        "chained": _exists(chained),
        "python": python,
        "python_ok": bool(python and os.access(python, os.X_OK)),
        "other_hook": bool(text) and BEGIN not in text,
    }


def _exists(path: Path) -> str | None:
    return str(path) if path.exists() or path.is_symlink() else None


# --------------------------------------------------------------------------- agents

AGENTS = ("claude", "codex")
SCOPES = ("user", "project")
CLAUDE_EVENTS = (
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "PermissionRequest",
    "Notification",
    "Stop",
    "PreCompact",
    "SessionEnd",
    "SubagentStop",
)
_TOOL_EVENTS = {"PostToolUse", "PostToolUseFailure", "PermissionRequest"}
# At session start: hand the agent what it should know, and drain queued transcripts in the
# background (the drain detaches at once and does nothing under REFLECT_DISABLED=1).
SESSION_START_COMMANDS = ("recall --format claude", "drain --background")
_OURS = re.compile(
    r"(?:-m reflectgit|reflect-git)(?:\.hooks\.agent)? "
    r"(?:hook |recall --format claude|drain --background)"
)
CODEX_BEGIN = "# >>> reflect-git >>>"
CODEX_END = "# <<< reflect-git <<<"
_CODEX_BLOCK = re.compile(
    re.escape(CODEX_BEGIN) + r".*?" + re.escape(CODEX_END) + r"\n?", re.DOTALL
)


@dataclass(frozen=True)
class AgentHookResult:
    """What ``hooks install --agent`` did to one settings file."""

    agent: str
    scope: str
    settings: str
    action: str  # installed | updated | unchanged | uninstalled | absent
    events: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def hook_command(python: str, event: str) -> str:
    """The command line an agent harness runs for one event."""
    return f"{shlex.quote(python)} -m reflectgit hook {event}"


def is_our_command(command: object) -> bool:
    return isinstance(command, str) and bool(_OURS.search(command))


def settings_path(
    agent: str, scope: str, *, home: Path, project: Path, env: Mapping[str, str]
) -> Path:
    """Where an agent keeps the settings we merge into."""
    if agent not in AGENTS:
        raise UsageError(f"unknown agent {agent!r}", hint="use --agent claude or --agent codex")
    if scope not in SCOPES:
        raise UsageError(f"unknown scope {scope!r}", hint="use --scope user or --scope project")
    if agent == "claude":
        return (home if scope == "user" else project) / ".claude" / "settings.json"
    codex_home = env.get("CODEX_HOME")
    if scope == "user":
        return (Path(codex_home) if codex_home else home / ".codex") / "config.toml"
    return project / ".codex" / "config.toml"


def merge_claude(settings: Mapping[str, Any], python: str) -> dict[str, Any]:
    """Settings with our hook commands in place (others untouched, ours replaced, no duplicates)."""
    out = remove_claude(settings)
    hooks = out.setdefault("hooks", {})
    for event in CLAUDE_EVENTS:
        group: dict[str, Any] = {
            "hooks": [{"type": "command", "command": hook_command(python, event), "timeout": 30}]
        }
        if event in _TOOL_EVENTS:
            group = {"matcher": "*", **group}
        hooks.setdefault(event, []).append(group)
    start = [
        {"type": "command", "command": f"{shlex.quote(python)} -m reflectgit {args}", "timeout": 30}
        for args in SESSION_START_COMMANDS
    ]
    hooks.setdefault("SessionStart", []).append({"hooks": start})
    return out


def remove_claude(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Settings without our hook commands; groups and events we emptied are dropped."""
    out = json.loads(json.dumps(dict(settings)))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                kept_groups.append(group)
                continue
            entries = group["hooks"]
            kept = [
                e for e in entries if not (isinstance(e, dict) and is_our_command(e.get("command")))
            ]
            if kept or not entries:
                if len(kept) != len(entries):
                    group = {**group, "hooks": kept}
                kept_groups.append(group)
        if kept_groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    if not hooks:
        del out["hooks"]
    return out


def _read_json(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(
            f"{path} is not valid JSON ({exc})", hint="fix the file by hand, then run install again"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} does not hold a JSON object", hint="fix the file by hand")
    return data


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.reflect-git.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def install_agent_hooks(
    agent: str,
    scope: str,
    *,
    python: str,
    home: Path,
    project: Path,
    env: Mapping[str, str],
    uninstall: bool = False,
) -> AgentHookResult:
    """Merge (or remove) our hook commands in the agent's settings file."""
    path = settings_path(agent, scope, home=home, project=project, env=env)
    if agent == "codex":
        return _codex(path, scope, python, uninstall)
    before = _read_json(path)
    after = remove_claude(before) if uninstall else merge_claude(before, python)
    had = remove_claude(before) != before
    if after == before:
        action = "absent" if uninstall else "unchanged"
        return AgentHookResult(
            agent, scope, str(path), action, [] if uninstall else [*CLAUDE_EVENTS, "SessionStart"]
        )
    _write_text(path, json.dumps(after, indent=2) + "\n")
    if uninstall:
        return AgentHookResult(agent, scope, str(path), "uninstalled", [])
    return AgentHookResult(
        agent, scope, str(path), "updated" if had else "installed", [*CLAUDE_EVENTS, "SessionStart"]
    )


def _codex(path: Path, scope: str, python: str, uninstall: bool) -> AgentHookResult:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    rest = _CODEX_BLOCK.sub("", text)
    if uninstall:
        if rest == text:
            return AgentHookResult("codex", scope, str(path), "absent")
        _write_text(path, rest)
        return AgentHookResult("codex", scope, str(path), "uninstalled")
    if re.search(r"^\s*notify\s*=", rest, re.MULTILINE):
        raise ConflictError(
            f"{path} already sets `notify` for another program",
            hint="Codex runs one notify program; remove yours or call `reflect-git hook codex-notify` from it",
        )
    argv = [python, "-m", "reflectgit", "hook", "codex-notify"]
    block = f"{CODEX_BEGIN}\nnotify = {json.dumps(argv)}\n{CODEX_END}\n"
    new = block + rest  # a top-level key must come before the first [table]
    if new == text:
        return AgentHookResult("codex", scope, str(path), "unchanged", ["notify"])
    _write_text(path, new)
    return AgentHookResult(
        "codex", scope, str(path), "updated" if rest != text else "installed", ["notify"]
    )


def agent_hook_status(*, home: Path, project: Path, env: Mapping[str, str]) -> list[dict[str, Any]]:
    """For each agent and scope: the settings file and the events we are hooked into."""
    rows = []
    for agent in AGENTS:
        for scope in SCOPES:
            path = settings_path(agent, scope, home=home, project=project, env=env)
            events: list[str] = []
            if agent == "claude":
                try:
                    data = _read_json(path)
                except ConfigError:
                    data = {}
                hooks = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
                for event, groups in (hooks or {}).items():
                    for group in groups if isinstance(groups, list) else []:
                        entries = group.get("hooks", []) if isinstance(group, dict) else []
                        if any(
                            isinstance(e, dict) and is_our_command(e.get("command"))
                            for e in entries
                        ):
                            events.append(event)
                            break
            else:
                text = path.read_text(encoding="utf-8") if path.is_file() else ""
                if CODEX_BEGIN in text:
                    events.append("notify")
            rows.append(
                {
                    "agent": agent,
                    "scope": scope,
                    "settings": str(path),
                    "installed": bool(events),
                    "events": events,
                }
            )
    return rows
