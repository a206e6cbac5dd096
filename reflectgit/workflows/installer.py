"""Install and remove reflect-git's hooks: the git post-commit shim and the agent settings.

The post-commit shim is a managed block between marker lines, so installing twice changes
nothing and uninstalling removes exactly what we wrote. A hook that was there before is kept
next to ours (``post-commit.reflect-git-chained``), runs first on every commit, and is put back
on uninstall. The hooks folder is whatever git says (``core.hooksPath``, worktrees share the
common one). Agent settings are merged: only our own entries are added, updated or removed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflectgit.config import toml_string
from reflectgit.errors import ConfigError, ConflictError, UsageError
from reflectgit.git import repo_info
from reflectgit.installation import REPOSITORY

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

HOOK_NAME = "post-commit"
MERGE_HOOK = "post-merge"  # a clean `git merge` fires post-merge only, never post-commit
GIT_HOOKS = (HOOK_NAME, MERGE_HOOK)
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


def _markers(name: str) -> tuple[str, re.Pattern[str]]:
    """The BEGIN marker of one hook's managed block and the pattern of the whole block."""
    begin, end = BEGIN.replace(HOOK_NAME, name), END.replace(HOOK_NAME, name)
    return begin, re.compile(re.escape(begin) + r".*?" + re.escape(end) + r"\n?", re.DOTALL)


def shim_template(name: str = HOOK_NAME) -> str:
    """The shim of one git hook: post-commit records the commit, post-merge the merge commit."""
    if name == HOOK_NAME:
        return SHIM_TEMPLATE
    return (
        SHIM_TEMPLATE.replace(HOOK_NAME, name)
        .replace("capture commit", "capture merge")
        .replace("# Records each commit", "# Records each clean merge")
    )


def sh_quote(value: str) -> str:
    """Single-quote for POSIX sh."""
    return "'" + value.replace("'", "'\"'\"'") + "'"


def render_shim(python: str, kb: str | None, name: str = HOOK_NAME) -> str:
    """The hook file for this interpreter (and the KB pinned at install, if any)."""
    return (
        shim_template(name)
        .replace("@PYTHON@", sh_quote(python))
        .replace("@KB@", sh_quote(kb or ""))
    )


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
    repo: Path, *, python: str, kb: str | None, env: Mapping[str, str], name: str = HOOK_NAME
) -> GitHookResult:
    """Install (or refresh) one shim (post-commit by default); chain a hook already there."""
    begin, block = _markers(name)
    folder = hooks_dir(repo, env)
    folder.mkdir(parents=True, exist_ok=True)
    hook = folder / name
    chained = folder / (name + CHAINED_SUFFIX)
    shim = render_shim(python, kb, name)
    if hook.is_symlink() or hook.exists():
        current = hook.read_text(encoding="utf-8", errors="replace") if hook.is_file() else ""
        if begin in current:
            updated = block.sub(lambda _m: shim.split("\n", 1)[1], current, count=1)
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


def uninstall_git_hook(
    repo: Path, *, env: Mapping[str, str], name: str = HOOK_NAME
) -> GitHookResult:
    """Remove our block; put back the hook we chained when nothing else is left."""
    begin, block = _markers(name)
    folder = hooks_dir(repo, env)
    hook = folder / name
    chained = folder / (name + CHAINED_SUFFIX)
    current = hook.read_text(encoding="utf-8", errors="replace") if hook.is_file() else None
    if current is None or begin not in current:
        return GitHookResult(str(repo), str(hook), "absent", _exists(chained))
    rest = block.sub("", current)
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
    pinned = re.search(r"^rg_kb=(.*)$", text, re.MULTILINE)
    named = (shlex.split(pinned.group(1)) or [""])[0] if pinned else ""
    reads = reads_kb(named or None, repo, env) if BEGIN in text else {}
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
        **reads,
    }


def _exists(path: Path) -> str | None:
    return str(path) if path.exists() or path.is_symlink() else None


# --------------------------------------------------------------------------- agents
#
# Three harnesses, two hook formats:
# - Claude Code (``settings.json``) and Codex (``hooks.json``) nest commands in matcher groups:
#   {"hooks": {"Event": [{"matcher": "*", "hooks": [{"type": "command", "command": "..."}]}]}}
# - Copilot CLI (``.github/hooks/*.json``, ``~/.copilot/hooks/*.json``, or the inline ``hooks``
#   of ``.github/copilot/settings.local.json``) lists flat entries:
#   {"version": 1, "hooks": {"event": [{"type": "command", "bash": "...", "timeoutSec": 30}]}}
# Every entry of ours runs ``reflect-git-hook EVENT`` (``<python> -c HOOK_CODE EVENT``)
# for the agent's events, and ``reflect-git-session-start`` (``<python> -c SESSION_CODE``) at
# session start: that is how we find ours again (and the ``reflect-git hook EVENT``, ``recall
# --format`` and ``drain --background`` of earlier releases, so an old install is upgraded or
# removed), and nothing else in the file is ever touched.
#
# A user-scope file is personal, so it names this interpreter by its absolute path (it works
# whatever PATH the harness has). A project-scope file is committed and shared, so it gets the
# portable ``reflect-git`` (when that is on PATH); when it is not, the machine path goes only into
# the personal, uncommitted file the harness offers (``.claude/settings.local.json``,
# ``.github/copilot/settings.local.json``), never into the shared one.

AGENTS = ("claude", "codex", "copilot")
SCOPES = ("user", "project")
HOOK_TIMEOUT = 30
PORTABLE = "reflect-git"
PORTABLE_HOOK = "reflect-git-hook"  # the agent hooks' own entry point (hooks/agent.py)
PORTABLE_SESSION = "reflect-git-session-start"  # SessionStart's (hooks/sessionstart.py)
# How a personal file starts those entry points with this interpreter: `-m` would import runpy
# (3 ms of every tool call), and the console script's wrapper imports `re`.
HOOK_CODE = "from reflectgit.hooks.agent import main; raise SystemExit(main())"
SESSION_CODE = "from reflectgit.hooks.sessionstart import main; raise SystemExit(main())"
CLAUDE_EVENTS = (
    "PreToolUse",  # enforced rules (docs/rules.md)
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
_TOOL_EVENTS = {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"}
# Claude Code runs these with `"async": true`: they only record, so the session never waits for
# them. Never async: SessionStart (its stdout is the context), PreToolUse and PermissionRequest
# (their answer is the decision), and SessionEnd (the session is ending: a background hook may be
# stopped with it, and nobody waits at that point anyway). Codex skips async hooks and Copilot
# CLI has none, so only Claude Code gets the field.
CLAUDE_ASYNC_EVENTS = frozenset(
    {
        "PostToolUse",
        "PostToolUseFailure",
        "UserPromptSubmit",
        "Notification",
        "Stop",
        "PreCompact",
        "SubagentStop",
    }
)
# Codex's lifecycle events (developers.openai.com/codex/hooks); Stop carries transcript_path.
CODEX_EVENTS = (
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "Stop",
)
# Copilot CLI's camelCase events (its hooks reference); errorOccurred leaves error breadcrumbs.
COPILOT_EVENTS = (
    "userPromptSubmitted",
    "preToolUse",  # enforced rules (docs/rules.md)
    "postToolUse",
    "postToolUseFailure",
    "preCompact",
    "agentStop",
    "subagentStop",
    "sessionEnd",
    "errorOccurred",
)
SESSION_START_EVENT = {"claude": "SessionStart", "codex": "SessionStart", "copilot": "sessionStart"}
# At session start one command hands the agent what it should know (the only thing printed on
# stdout) and starts the drain of queued transcripts in the background, silently. It does
# nothing under REFLECT_DISABLED=1. Older installs wrote two commands, ``recall --format
# HARNESS`` and ``drain --background``: they are ours too, replaced on install.
_OURS = re.compile(
    r"(?:-m reflectgit|reflect-git)(?:\.hooks\.agent)? (?:hook |recall --format |drain --background)"
    r"|(?:-m reflectgit\.hooks\.(?:agent|sessionstart)|reflect-git-(?:hook|session-start))(?: |$)"
    r"|-c 'from reflectgit\.hooks\.(?:agent|sessionstart) import main"
)
# The `notify` block older reflect-git releases wrote into Codex's config.toml (now replaced by
# the lifecycle hooks: removed on install and uninstall).
CODEX_BEGIN = "# >>> reflect-git >>>"
CODEX_END = "# <<< reflect-git <<<"
_CODEX_BLOCK = re.compile(
    re.escape(CODEX_BEGIN) + r".*?" + re.escape(CODEX_END) + r"\n?", re.DOTALL
)


@dataclass(frozen=True)
class AgentHookResult:
    """What ``hooks install --agent`` did: the file it wrote (or cleaned) and what it holds."""

    agent: str
    scope: str
    settings: str
    action: str  # installed | updated | unchanged | uninstalled | absent
    events: list[str] = field(default_factory=list)
    command: str | None = None  # how the harness starts reflect-git
    cleaned: list[str] = field(default_factory=list)  # other files our old entries left
    notes: list[str] = field(default_factory=list)
    kb: str | None = None  # the KB named in the hooks (--kb); None: they find it themselves

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class SettingsFile:
    """One file a harness reads hooks from: its path, its format, and whether it is shared."""

    path: Path
    style: (
        str  # grouped (Claude Code, Codex) | flat (Copilot hooks file) | inline (Copilot settings)
    )
    shared: bool  # committed with the project: portable commands only


def machine_launcher(python: str) -> str:
    """This interpreter, by absolute path: for personal files."""
    return f"{shlex.quote(python)} -m reflectgit"


def portable_launcher(env: Mapping[str, str]) -> str | None:
    """``reflect-git`` when it and ``reflect-git-hook`` are on PATH here (so a shared file works
    as written)."""
    path = env.get("PATH", "")
    found = all(
        shutil.which(name, path=path) for name in (PORTABLE, PORTABLE_HOOK, PORTABLE_SESSION)
    )
    return PORTABLE if found else None


def hook_launcher(launcher: str, python: str, session_start: bool = False) -> str:
    """What starts an agent hook (``session_start``: the SessionStart one): its script where
    ``reflect-git`` is portable, else this interpreter running the same entry point."""
    if launcher == PORTABLE:
        return PORTABLE_SESSION if session_start else PORTABLE_HOOK
    return f"{shlex.quote(python)} -c {shlex.quote(SESSION_CODE if session_start else HOOK_CODE)}"


def hook_command(hook_launcher: str, event: str, harness: str = "claude") -> str:
    """The command line a harness runs for one event."""
    return f"{hook_launcher} {event} --harness {harness}"


def kb_option(kb: str | os.PathLike[str] | None) -> str:
    """`` --kb PATH`` (shell-quoted) for a command that names its KB, else nothing."""
    return f" --kb {shlex.quote(os.fspath(kb))}" if kb else ""


def kb_of_command(command: str) -> str | None:
    """The KB an installed command names with ``--kb``, or None."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for i, word in enumerate(words):
        if word == "--kb" and i + 1 < len(words):
            return words[i + 1]
        if word.startswith("--kb="):
            return word[len("--kb=") :]
    return None


def is_our_command(command: object) -> bool:
    return isinstance(command, str) and bool(_OURS.search(command))


def settings_files(
    agent: str, scope: str, *, home: Path, project: Path, env: Mapping[str, str]
) -> list[SettingsFile]:
    """The files an agent reads hooks from for a scope: the shared one first."""
    if agent not in AGENTS:
        raise UsageError(
            f"unknown agent {agent!r}", hint="use --agent claude, --agent codex or --agent copilot"
        )
    if scope not in SCOPES:
        raise UsageError(f"unknown scope {scope!r}", hint="use --scope user or --scope project")
    user = scope == "user"
    if agent == "claude":
        if user:
            config_dir = env.get("CLAUDE_CONFIG_DIR")
            folder = Path(config_dir) if config_dir else home / ".claude"
            return [SettingsFile(folder / "settings.json", "grouped", False)]
        return [
            SettingsFile(project / ".claude" / "settings.json", "grouped", True),
            SettingsFile(project / ".claude" / "settings.local.json", "grouped", False),
        ]
    if agent == "codex":
        codex_home = env.get("CODEX_HOME")
        folder = (
            (Path(codex_home) if codex_home else home / ".codex") if user else project / ".codex"
        )
        return [SettingsFile(folder / "hooks.json", "grouped", not user)]
    if user:
        copilot_home = env.get("COPILOT_HOME")
        folder = Path(copilot_home) if copilot_home else home / ".copilot"
        return [SettingsFile(folder / "hooks" / "reflect-git.json", "flat", False)]
    return [
        SettingsFile(project / ".github" / "hooks" / "reflect-git.json", "flat", True),
        SettingsFile(project / ".github" / "copilot" / "settings.local.json", "inline", False),
    ]


def _plan(
    agent: str, launcher: str, python: str, kb: str | None = None, mcp: bool = False
) -> dict[str, list[str]]:
    """event -> our command lines, in the order they are written. ``kb``: the KB every command
    names; ``mcp``: recall names the MCP server's ``show`` tool (else the command line)."""
    events = {"claude": CLAUDE_EVENTS, "codex": CODEX_EVENTS, "copilot": COPILOT_EVENTS}[agent]
    hooks = hook_launcher(launcher, python)
    pin = kb_option(kb)
    plan = {event: [hook_command(hooks, event, agent) + pin] for event in events}
    session = hook_launcher(launcher, python, session_start=True)
    plan[SESSION_START_EVENT[agent]] = [
        f"{session} --harness {agent}{' --mcp' if mcp else ''}{pin}"
    ]
    return plan


def _copy(settings: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(dict(settings)))
    return out


def _entry_is_ours(entry: object) -> bool:
    if not isinstance(entry, dict):
        return False
    return any(is_our_command(entry.get(k)) for k in ("command", "bash", "powershell"))


def _pruned(settings: Mapping[str, Any], prune: Callable[[list[Any]], list[Any]]) -> dict[str, Any]:
    """Settings with each event's list of hooks ``prune``d; the events that leaves empty, and
    ``hooks`` when none is left, dropped."""
    out = _copy(settings)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        if not isinstance(hooks[event], list):
            continue
        kept = prune(hooks[event])
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del out["hooks"]
    return out


def _not_ours(entries: list[Any]) -> list[Any]:
    return [e for e in entries if not _entry_is_ours(e)]


def _groups_not_ours(groups: list[Any]) -> list[Any]:
    """Matcher groups without our entries; a group we emptied is dropped."""
    kept_groups = []
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            kept_groups.append(group)
            continue
        entries = group["hooks"]
        kept = _not_ours(entries)
        if kept or not entries:
            if len(kept) != len(entries):
                group = {**group, "hooks": kept}
            kept_groups.append(group)
    return kept_groups


def remove_grouped(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Settings without our hook commands; groups and events we emptied are dropped."""
    return _pruned(settings, _groups_not_ours)


def merge_grouped(
    settings: Mapping[str, Any], plan: Mapping[str, list[str]], matchers: bool
) -> dict[str, Any]:
    """Settings with our matcher groups in place (others untouched, ours replaced)."""
    out = remove_grouped(settings)
    hooks = out.setdefault("hooks", {})
    for event, commands in plan.items():
        entries: list[dict[str, Any]] = []
        for command in commands:
            entry: dict[str, Any] = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
            if matchers and event in CLAUDE_ASYNC_EVENTS:  # Claude Code's settings only
                entry["async"] = True
            entries.append(entry)
        group: dict[str, Any] = {"hooks": entries}
        if matchers and event in _TOOL_EVENTS:
            group = {"matcher": "*", **group}
        hooks.setdefault(event, []).append(group)
    return out


def remove_flat(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A Copilot hooks document without our entries; events we emptied are dropped."""
    return _pruned(settings, _not_ours)


def merge_flat(
    settings: Mapping[str, Any], plan: Mapping[str, list[str]], *, versioned: bool, portable: bool
) -> dict[str, Any]:
    """A Copilot hooks document with our entries in place."""
    out = remove_flat(settings)
    if versioned:
        out.setdefault("version", 1)
    hooks = out.setdefault("hooks", {})
    for event, commands in plan.items():
        for command in commands:
            entry: dict[str, Any] = {"type": "command", "bash": command}
            if portable:  # `reflect-git ...` reads the same in PowerShell
                entry["powershell"] = command
            entry["timeoutSec"] = HOOK_TIMEOUT
            hooks.setdefault(event, []).append(entry)
    return out


def _remove(style: str, data: Mapping[str, Any]) -> dict[str, Any]:
    return remove_grouped(data) if style == "grouped" else remove_flat(data)


def _our_entries(style: str, data: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """event -> our entries in a hooks document (events without ours left out)."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return {}
    found = {}
    for event, items in hooks.items():
        entries: list[Any] = []
        for item in items if isinstance(items, list) else []:
            if style == "grouped" and isinstance(item, dict):
                inner = item.get("hooks")
                entries.extend(inner if isinstance(inner, list) else [])
            else:
                entries.append(item)
        ours = [e for e in entries if _entry_is_ours(e)]
        if ours:
            found[event] = ours
    return found


# ------------------------------------------------------------------ JSON files, kept as found


def _text(path: Path) -> str | None:
    """A settings file's text, None when there is no such file (one unreadable is an error)."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(
            f"cannot read {path}: {exc.strerror or exc}",
            hint="make it a readable file (or move it away), then run install again",
        ) from None


def _read_json(path: Path) -> tuple[dict[str, Any], str]:
    """The object in a settings file and its text (``{}`` and ``""`` when there is none)."""
    text = _text(path)
    if text is None:
        return {}, ""
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(
            f"{path} is not valid JSON ({exc})", hint="fix the file by hand, then run install again"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} does not hold a JSON object", hint="fix the file by hand")
    return data, text


def json_indent(text: str) -> str | int:
    """The indentation a JSON file uses (its first indented line), 2 when it has none."""
    m = re.search(r"^([ \t]+)\S", text, re.MULTILINE)
    if not m:
        return 2
    ws = m.group(1)
    return "\t" if ws.startswith("\t") else len(ws)


def _dump_json(data: Mapping[str, Any], like: str) -> str:
    """JSON in the file's own indentation, non-ASCII kept as written."""
    return json.dumps(data, indent=json_indent(like), ensure_ascii=False) + "\n"


def _write_text(path: Path, text: str) -> None:
    """Replace a file's content atomically; a symlink is written through (the link stays)."""
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.reflect-git.tmp")
    tmp.write_text(text, encoding="utf-8")
    if target.exists():
        with contextlib.suppress(OSError):
            shutil.copymode(target, tmp)
    os.replace(tmp, target)


def _delete(path: Path) -> None:
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    with contextlib.suppress(FileNotFoundError):
        target.unlink()


def _only_our_husk(f: SettingsFile, data: Mapping[str, Any]) -> bool:
    """A hooks file with nothing left in it, which its harness would reject or ignore: Copilot's
    ``{"version": 1}``, Codex's ``{}`` (its schema requires hooks). Uninstall deletes it."""
    if f.style == "flat":
        return set(data) <= {"version"}
    return f.path.name == "hooks.json" and not data


# ------------------------------------------------------------------ install and uninstall


def _codex_config(settings_json: Path) -> Path:
    return settings_json.with_name("config.toml")


def _drop_codex_notify(config: Path) -> bool:
    """Remove the `notify` block an older reflect-git wrote; True when there was one."""
    try:
        text = config.read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    rest = _CODEX_BLOCK.sub("", text)
    if rest == text:
        return False
    _write_text(config, rest)
    return True


def install_agent_hooks(
    agent: str,
    scope: str,
    *,
    python: str,
    home: Path,
    project: Path,
    env: Mapping[str, str],
    uninstall: bool = False,
    kb: Path | None = None,
    mcp: bool = False,
) -> AgentHookResult:
    """Merge (or remove) our hook commands in the agent's settings; leave everything else.

    ``kb`` is named in every command (``--kb PATH``) when the file is personal; a shared file
    names no KB (each user's hooks find theirs: the KB around the project, else their default
    KB). ``mcp``: the recall hint names the MCP server's ``show`` tool."""
    files = settings_files(agent, scope, home=home, project=project, env=env)
    if uninstall:
        return _uninstall(agent, scope, files)
    target, launcher = _choose(agent, scope, files, python, env)
    pinned = str(kb) if kb is not None and not target.shared else None
    plan = _plan(agent, launcher, python, pinned, mcp)
    portable = launcher == PORTABLE
    # Read (and so validate) every file before writing any.
    read = {f.path: _read_json(f.path) for f in files}
    before, text = read[target.path]
    if target.style == "grouped":
        after = merge_grouped(before, plan, matchers=agent == "claude")
    else:
        after = merge_flat(before, plan, versioned=target.style == "flat", portable=portable)
    had = _remove(target.style, before) != before
    cleaned = []
    for other in files:
        if other is target:
            continue
        data, other_text = read[other.path]
        left = _remove(other.style, data)
        if left != data:
            if _only_our_husk(other, left):
                _delete(other.path)
            else:
                _write_text(other.path, _dump_json(left, other_text))
            cleaned.append(str(other.path))
    if agent == "codex" and _drop_codex_notify(_codex_config(target.path)):
        cleaned.append(str(_codex_config(target.path)))
    events = list(plan)
    notes = _notes(agent, target, portable)
    if after == before:
        action = "updated" if cleaned else "unchanged"
    else:
        _write_text(target.path, _dump_json(after, text))
        action = "updated" if had or cleaned else "installed"
    return AgentHookResult(
        agent, scope, str(target.path), action, events, launcher, cleaned, notes, pinned
    )


def hook_target(
    agent: str, scope: str, *, python: str, home: Path, project: Path, env: Mapping[str, str]
) -> SettingsFile:
    """The file ``install_agent_hooks`` would write (shared or personal), before it does."""
    files = settings_files(agent, scope, home=home, project=project, env=env)
    return _choose(agent, scope, files, python, env)[0]


def _choose(
    agent: str, scope: str, files: list[SettingsFile], python: str, env: Mapping[str, str]
) -> tuple[SettingsFile, str]:
    """The file our entries go into and the launcher they use."""
    if scope == "user":
        return files[0], machine_launcher(python)
    portable = portable_launcher(env)
    if portable:
        return files[0], portable
    personal = [f for f in files if not f.shared]
    if personal:
        return personal[0], machine_launcher(python)
    raise ConfigError(
        f"`{PORTABLE}` is not on PATH, and {files[0].path} is shared with the project: "
        "it would hold this machine's path",
        hint=f"put {PORTABLE} on PATH (`pipx install git+{REPOSITORY}`) and run install again, "
        "or use --scope user",
    )


def _notes(agent: str, target: SettingsFile, portable: bool) -> list[str]:
    notes = []
    if not target.shared and target.path.name == "settings.local.json":
        notes.append(
            f"`{PORTABLE}` is not on PATH, so the hooks name this machine's Python and went into "
            f"{target.path} (personal; keep it out of git)"
        )
    if agent == "codex":
        notes.append("Codex runs new hooks once you trust them: open /hooks in Codex")
    return notes


def _uninstall(agent: str, scope: str, files: list[SettingsFile]) -> AgentHookResult:
    read = {f.path: _read_json(f.path) for f in files}
    changed = []
    for f in files:
        data, text = read[f.path]
        left = _remove(f.style, data)
        if left == data:
            continue
        if _only_our_husk(f, left):
            _delete(f.path)
        else:
            _write_text(f.path, _dump_json(left, text))
        changed.append(str(f.path))
    if agent == "codex" and _drop_codex_notify(_codex_config(files[0].path)):
        changed.append(str(_codex_config(files[0].path)))
    if not changed:
        return AgentHookResult(agent, scope, str(files[0].path), "absent")
    return AgentHookResult(agent, scope, changed[0], "uninstalled", cleaned=changed[1:])


def agent_hook_status(*, home: Path, project: Path, env: Mapping[str, str]) -> list[dict[str, Any]]:
    """For each agent, scope and settings file: the events we are hooked into, and the KB those
    hooks read (the one their commands name, else the one they find from the project folder)
    and whether it exists."""
    rows = []
    for agent in AGENTS:
        for scope in SCOPES:
            for f in settings_files(agent, scope, home=home, project=project, env=env):
                try:
                    data, _ = _read_json(f.path)
                except ConfigError:
                    data = {}
                entries = _our_entries(f.style, data)
                row: dict[str, Any] = {
                    "agent": agent,
                    "scope": scope,
                    "settings": str(f.path),
                    "shared": f.shared,
                    "installed": bool(entries),
                    "events": list(entries),
                }
                if entries:
                    first = next(iter(entries.values()))[0]
                    command = first.get("command") or first.get("bash") or ""
                    row.update(reads_kb(kb_of_command(command), project, env))
                rows.append(row)
    return rows


def reads_kb(named: str | None, project: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """Which KB an installed command reads: the one it names, else the one it would find from
    the project folder (``config.resolve_kb``); and whether a repository is there."""
    from reflectgit.config import resolve_kb

    try:
        if named:
            path, source = Path(named), "named"
        else:
            choice = resolve_kb(None, env, project)
            path, source = choice.path, choice.source
    except ConfigError as exc:
        return {"kb": None, "kb_source": "error", "kb_exists": False, "kb_error": exc.message}
    return {"kb": str(path), "kb_source": source, "kb_exists": repo_info.is_repository(path)}


def doubled(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Where a session in the project runs our hooks twice (recall injected twice, every event
    recorded twice): one agent installed at both scopes, or Copilot CLI installed while the
    project's ``.claude/settings.json`` holds our Claude Code hooks (Copilot CLI runs those too)."""
    found = []
    installed = [r for r in rows if r["installed"]]
    for agent in AGENTS:
        mine = [r for r in installed if r["agent"] == agent]
        if {r["scope"] for r in mine} == set(SCOPES):
            found.append(
                {"kind": "both-scopes", "agent": agent, "settings": [r["settings"] for r in mine]}
            )
    claude_shared = [
        r for r in installed if r["agent"] == "claude" and r["scope"] == "project" and r["shared"]
    ]
    copilot = [r for r in installed if r["agent"] == "copilot"]
    if claude_shared and copilot:
        found.append(
            {
                "kind": "copilot-reads-claude",
                "agent": "copilot",
                "settings": [claude_shared[0]["settings"], *(r["settings"] for r in copilot)],
            }
        )
    return found


# --------------------------------------------------------------------------- the MCP server
#
# `hooks install --agent claude|codex` can also register `reflect-git mcp` with the harness:
# - Claude Code: the ``mcpServers`` object of ``~/.claude.json`` (user scope; the file
#   ``claude mcp add --scope user`` writes, ``$CLAUDE_CONFIG_DIR/.claude.json`` when that is
#   set), ``.mcp.json`` at the project root (project scope, shared), or, when ``reflect-git`` is
#   not on PATH, the project's entry in ``~/.claude.json`` (``projects.<path>.mcpServers``, the
#   private "local" scope of ``claude mcp add``), as the hooks go to ``settings.local.json``.
# - Codex: the ``[mcp_servers.reflect-git]`` table of ``~/.codex/config.toml`` (``$CODEX_HOME``)
#   or of the project's ``.codex/config.toml``.
# One entry, named ``reflect-git``; every other server and setting is left as it was. The JSON
# files are rewritten in their own indentation (the content we do not touch comes out byte for
# byte the same for files written with a consistent indent, as Claude Code writes them); the
# TOML file is edited as text, only our table's lines, and the result is read back with tomllib
# and compared with what was meant before anything is written.

MCP_NAME = "reflect-git"
MCP_AGENTS = ("claude", "codex")


@dataclass(frozen=True)
class McpResult:
    """What registering (or removing) the MCP server did."""

    agent: str
    scope: str
    config: str  # the file holding the entry
    action: str  # registered | updated | unchanged | removed | absent
    command: list[str] = field(default_factory=list)  # command and args the harness runs
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class McpTarget:
    """Where the entry goes: the file, the key path of the servers object in it, shared or not."""

    path: Path
    keys: tuple[str, ...]  # JSON: the object holding the servers; TOML: ("mcp_servers",)
    shared: bool
    toml: bool = False


def mcp_launch(launcher_python: str | None, kb: str | None) -> list[str]:
    """The argv that starts the server: this interpreter, or ``reflect-git`` on PATH."""
    pinned = ["--kb", kb] if kb else []
    if launcher_python is None:
        return [PORTABLE, *pinned, "mcp"]
    return [launcher_python, "-m", "reflectgit", *pinned, "mcp"]


def _claude_json(home: Path, env: Mapping[str, str]) -> Path:
    config_dir = env.get("CLAUDE_CONFIG_DIR")
    return (Path(config_dir) if config_dir else home) / ".claude.json"


def _codex_toml(scope: str, home: Path, project: Path, env: Mapping[str, str]) -> Path:
    if scope == "project":
        return project / ".codex" / "config.toml"
    codex_home = env.get("CODEX_HOME")
    return (Path(codex_home) if codex_home else home / ".codex") / "config.toml"


def mcp_targets(
    agent: str, scope: str, *, home: Path, project: Path, env: Mapping[str, str]
) -> list[McpTarget]:
    """Every file the entry may live in for an agent and scope: the preferred one first."""
    if agent not in MCP_AGENTS:
        raise UsageError(
            f"{agent} has no MCP registration here",
            hint="--mcp goes with --agent claude or --agent codex",
        )
    if scope not in SCOPES:
        raise UsageError(f"unknown scope {scope!r}", hint="use --scope user or --scope project")
    if agent == "codex":
        return [
            McpTarget(
                _codex_toml(scope, home, project, env), ("mcp_servers",), scope != "user", True
            )
        ]
    user = _claude_json(home, env)
    if scope == "user":
        return [McpTarget(user, ("mcpServers",), False)]
    local = ("projects", str(project), "mcpServers")
    return [McpTarget(project / ".mcp.json", ("mcpServers",), True), McpTarget(user, local, False)]


def check_mcp_targets(targets: Sequence[McpTarget]) -> None:
    """Read every file the entry may touch: a ``ConfigError`` before anything is written."""
    for target in targets:
        if target.toml:
            data, text = _read_toml(target.path)
            servers = data.get("mcp_servers")
            if isinstance(servers, dict) and MCP_NAME in servers and _our_table_span(text) is None:
                raise _not_ours_to_edit(target.path)
        else:
            data, _ = _read_json(target.path)
            holder = _dig(data, target.keys)
            if holder is not None and not isinstance(holder, dict):
                raise ConfigError(
                    f"{target.path}: {'.'.join(target.keys)} is not a JSON object",
                    hint="fix the file by hand, then run install again",
                )


def mcp_registered(targets: Sequence[McpTarget]) -> bool:
    """Whether one of these files already holds our entry (install then keeps it up to date)."""
    for target in targets:
        if target.toml:
            holder = _read_toml(target.path)[0].get("mcp_servers")
        else:
            holder = _dig(_read_json(target.path)[0], target.keys)
        if isinstance(holder, dict) and MCP_NAME in holder:
            return True
    return False


def register_mcp(
    agent: str,
    scope: str,
    *,
    python: str,
    kb: str | None,
    home: Path,
    project: Path,
    env: Mapping[str, str],
    uninstall: bool = False,
) -> McpResult:
    """Register ``reflect-git mcp`` with an agent (or remove it); nothing else in the file moves.

    A user-scope entry runs this interpreter by absolute path (and pins ``--kb`` when one was
    given); a shared project file gets the portable ``reflect-git mcp`` and never a machine
    path; without ``reflect-git`` on PATH, Claude Code's private per-project entry is used.
    """
    targets = mcp_targets(agent, scope, home=home, project=project, env=env)
    if uninstall:
        return _unregister(agent, scope, targets)
    portable = portable_launcher(env) if scope == "project" else None
    notes: list[str] = []
    if scope == "project" and portable:
        target, argv = targets[0], mcp_launch(None, None)
        if kb:
            notes.append(
                f"{target.path} is shared, so it names no KB: each user's server reads the KB "
                "the project is in, else their default KB (`reflect-git config default-kb`)"
            )
    else:
        personal = [t for t in targets if not t.shared]
        if not personal:
            raise ConfigError(
                f"`{PORTABLE}` is not on PATH, and {targets[0].path} is shared with the project: "
                "it would hold this machine's path",
                hint=f"put {PORTABLE} on PATH (`pipx install git+{REPOSITORY}`) and run install "
                "again, or use --scope user",
            )
        target, argv = personal[0], mcp_launch(python, kb)
        if scope == "project":
            notes.append(f"`{PORTABLE}` is not on PATH: registered for you only, in {target.path}")
    if agent == "codex" and scope == "project":
        notes.append("Codex reads a project's .codex/config.toml only once you trust the project")
    if agent == "claude" and target.shared:
        notes.append("Claude Code asks each user to approve a project's .mcp.json servers")
    action = (_write_toml if target.toml else _write_json_entry)(target, argv)
    for other in targets:  # an entry of ours left in the other file of this scope goes
        if other is not target and _remove_entry(other):
            notes.append(f"removed the older entry in {other.path}")
    return McpResult(agent, scope, str(target.path), action, argv, notes)


def _unregister(agent: str, scope: str, targets: list[McpTarget]) -> McpResult:
    removed = [str(t.path) for t in targets if _remove_entry(t)]
    if not removed:
        return McpResult(agent, scope, str(targets[0].path), "absent")
    return McpResult(
        agent, scope, removed[0], "removed", notes=[f"removed from {p}" for p in removed[1:]]
    )


def _remove_entry(target: McpTarget) -> bool:
    if target.toml:
        return _remove_toml(target)
    data, text = _read_json(target.path)
    holder = _dig(data, target.keys)
    if not isinstance(holder, dict) or MCP_NAME not in holder:
        return False
    del holder[MCP_NAME]
    parent = _dig(data, target.keys[:-1])
    if not holder and parent == {target.keys[-1]: {}} and len(target.keys) > 1:
        # the per-project entry we made for it (Claude Code's own hold more keys)
        del _dig(data, target.keys[:-2])[target.keys[-2]]
    if target.shared and data == {"mcpServers": {}}:
        _delete(target.path)  # a .mcp.json that only ever held ours
    else:
        _write_text(target.path, _dump_json_like(data, text))
    return True


def mcp_entry(argv: Sequence[str]) -> dict[str, Any]:
    """Claude Code's stdio server entry (what ``claude mcp add`` writes)."""
    return {"type": "stdio", "command": argv[0], "args": list(argv[1:]), "env": {}}


def _dig(data: dict[str, Any], keys: Sequence[str], create: bool = False) -> Any:
    node: Any = data
    for key in keys:
        if not isinstance(node, dict):
            return None
        if key not in node:
            if not create:
                return None
            node[key] = {}
        node = node[key]
    return node


def _write_json_entry(target: McpTarget, argv: Sequence[str]) -> str:
    data, text = _read_json(target.path)
    holder = _dig(data, target.keys, create=True)
    if not isinstance(holder, dict):
        raise ConfigError(
            f"{target.path}: {'.'.join(target.keys)} is not a JSON object",
            hint="fix the file by hand, then run install again",
        )
    entry = mcp_entry(argv)
    before = holder.get(MCP_NAME)
    if before == entry:
        return "unchanged"
    holder[MCP_NAME] = entry
    _write_text(target.path, _dump_json_like(data, text))
    return "updated" if before is not None else "registered"


def _dump_json_like(data: Mapping[str, Any], like: str) -> str:
    """JSON in the file's own indentation, ending in a newline only when the file did."""
    out = json.dumps(data, indent=json_indent(like), ensure_ascii=False)
    return out + "\n" if like.endswith("\n") or not like else out


# ------------------------------------------------------------------ Codex's config.toml, as text

_TABLE_HEADER = re.compile(r"^[ \t]*\[\[?(?P<name>[^\]\n]+?)\]\]?[ \t]*(?:#[^\n]*)?$", re.MULTILINE)


def _toml_key_parts(name: str) -> list[str]:
    """``mcp_servers."reflect-git"`` -> ["mcp_servers", "reflect-git"] (bare and quoted keys)."""
    parts = re.findall(r'\s*(?:"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([A-Za-z0-9_-]+))\s*(?:\.|$)', name)
    return [a or b or c for a, b, c in parts]


def _our_table_span(text: str) -> tuple[int, int] | None:
    """Where ``[mcp_servers.reflect-git]`` and its sub-tables are in the text (start, end).

    The span ends before the next other table's header, less the comments and blank lines
    just above that header (they belong to it)."""
    start = None
    for m in _TABLE_HEADER.finditer(text):
        parts = _toml_key_parts(m.group("name"))
        ours = parts[:2] == ["mcp_servers", MCP_NAME]
        if start is None:
            if ours and len(parts) == 2:
                start = m.start()
            continue
        if not ours:
            lines = text[start : m.start()].rstrip(" \t\n").split("\n")
            while len(lines) > 1 and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
                lines.pop()
            kept = "\n".join(lines).rstrip(" \t\n") + "\n"
            return start, start + len(kept)
    return None if start is None else (start, len(text))


def _read_toml(path: Path) -> tuple[dict[str, Any], str]:
    text = _text(path)
    if text is None:
        return {}, ""
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path} is not valid TOML ({exc})", hint="fix the file by hand, then run install again"
        ) from None


def _parse_toml(text: str) -> dict[str, Any]:
    return tomllib.loads(text)


def codex_table(argv: Sequence[str]) -> str:
    args = ", ".join(toml_string(a) for a in argv[1:])
    return f"[mcp_servers.{MCP_NAME}]\ncommand = {toml_string(argv[0])}\nargs = [{args}]\n"


def _not_ours_to_edit(path: Path) -> ConfigError:
    return ConfigError(
        f"{path} defines mcp_servers.{MCP_NAME} in a form this installer does not rewrite "
        "(inline or dotted keys)",
        hint=f"give it its own [mcp_servers.{MCP_NAME}] table, or remove it, and run install again",
    )


def _write_toml(target: McpTarget, argv: Sequence[str]) -> str:
    data, text = _read_toml(target.path)
    servers = data.get("mcp_servers")
    if servers is not None and not isinstance(servers, dict):
        raise ConfigError(f"{target.path}: mcp_servers is not a table", hint="fix the file by hand")
    before = (servers or {}).get(MCP_NAME)
    wanted = {"command": argv[0], "args": list(argv[1:])}
    if before == wanted:
        return "unchanged"
    table = codex_table(argv)
    span = _our_table_span(text) if before is not None else None
    if before is not None and span is None:
        raise _not_ours_to_edit(target.path)
    if span is not None:
        new = text[: span[0]] + table + text[span[1] :]
    else:
        sep = "" if not text else "\n" if text.endswith("\n") else "\n\n"
        new = text + sep + table
    expected = json.loads(json.dumps(data, default=str))
    expected.setdefault("mcp_servers", {})[MCP_NAME] = wanted
    if json.loads(json.dumps(_parse_toml(new), default=str)) != expected:
        raise _not_ours_to_edit(target.path)  # never write what would read back otherwise
    _write_text(target.path, new)
    return "updated" if before is not None else "registered"


def _remove_toml(target: McpTarget) -> bool:
    data, text = _read_toml(target.path)
    servers = data.get("mcp_servers")
    if not isinstance(servers, dict) or MCP_NAME not in servers:
        return False
    span = _our_table_span(text)
    if span is None:
        raise _not_ours_to_edit(target.path)
    start, end = span
    if text[:start].endswith("\n\n"):
        start -= 1  # the blank line install put in front of the table
    new = text[:start] + text[end:]
    if not new.strip():
        _delete(target.path)  # the file only ever held our table
        return True
    expected = json.loads(json.dumps(data, default=str))
    del expected["mcp_servers"][MCP_NAME]
    if not expected["mcp_servers"] and "[mcp_servers]" not in new:
        del expected["mcp_servers"]
    if json.loads(json.dumps(_parse_toml(new), default=str)) != expected:
        raise _not_ours_to_edit(target.path)
    _write_text(target.path, new)
    return True


def mcp_status(*, home: Path, project: Path, env: Mapping[str, str]) -> list[dict[str, Any]]:
    """For each agent and scope: whether the MCP server is registered, and how."""
    rows = []
    for agent in MCP_AGENTS:
        for scope in SCOPES:
            for target in mcp_targets(agent, scope, home=home, project=project, env=env):
                try:
                    if target.toml:
                        data, _ = _read_toml(target.path)
                        holder = data.get("mcp_servers")
                    else:
                        data, _ = _read_json(target.path)
                        holder = _dig(data, target.keys)
                except ConfigError:
                    holder = None
                entry = holder.get(MCP_NAME) if isinstance(holder, dict) else None
                row: dict[str, Any] = {
                    "agent": agent,
                    "scope": scope,
                    "config": str(target.path),
                    "registered": isinstance(entry, dict),
                    "command": entry.get("command") if isinstance(entry, dict) else None,
                }
                if isinstance(entry, dict):
                    args = entry.get("args")
                    words = [str(a) for a in args] if isinstance(args, list) else []
                    row.update(reads_kb(kb_of_command(shlex.join(words)), project, env))
                rows.append(row)
    return rows
