"""Where a KB's state directory is, and the switches every entry point obeys, read with ``os``.

The agent hooks ask this on every tool call, before anything else is imported, so it reads
nothing but the environment and the ``.git`` entry of the KB: no settings file, no ``pathlib``.
``config.py`` builds its ``Config`` on the same functions (one reading of ``--kb``,
``REFLECT_GIT_KB``, ``REFLECT_STATE_DIR`` and the switches), and owns everything else: the KB
found from the current folder or the user's default, and every other setting.
"""

from __future__ import annotations

import os

STATE_SUBDIR = "reflect-git"
STATE_ENV = "REFLECT_STATE_DIR"
KB_VARIABLES = ("REFLECT_GIT_KB", "GLOBAL_LEARNINGS_PATH")
DISABLED_ENV = "REFLECT_DISABLED"
# Set on every process reflect-git starts itself (git fetch and push, the drain's model call):
# our own hooks see it and stay out, so reflect-git never captures its own work.
INTERNAL_ENV = "REFLECT_GIT_INTERNAL"
POLICY_FILE_ENV = "REFLECT_POLICY_FILE"
POLICY_ENV = "REFLECT_POLICY"  # 0: the enforced rules never answer (read by the hooks too)
HOOK_SYNC_ENV = "REFLECT_GIT_HOOK_SYNC"  # 1: the hooks' background work in the foreground
# The original tool's policy files, under the home folder: read after REFLECT_POLICY_FILE.
ORIGINAL_POLICY_FILES = (".reflect/policy-rules.jsonl", ".reflect/permission-policy.jsonl")

TRUE = frozenset({"1", "true", "yes", "on"})
FALSE = frozenset({"0", "false", "no", "off"})


def environ() -> dict[str, str]:
    """A snapshot of the process environment, for entry points to pass down."""
    return dict(os.environ)


def boolean(text: str) -> bool | None:
    """A boolean setting's value (``1``/``true``/``yes``/``on`` and their opposites, any
    case), or None when ``text`` is neither."""
    lowered = text.strip().lower()
    if lowered in TRUE:
        return True
    if lowered in FALSE:
        return False
    return None


def given(text: str | None) -> str | None:
    """A path setting as given: stripped, ``~`` expanded; None when unset or blank."""
    text = (text or "").strip()
    return os.path.expanduser(text) if text else None


def absolute(path: str) -> str:
    """``path`` made absolute against the current folder, not normalised (as
    ``Path.absolute``)."""
    return path if os.path.isabs(path) else os.path.join(os.getcwd(), path)


def named_kb(flag: str | None, env: dict[str, str]) -> tuple[str, str, str] | None:
    """``(path, source, origin)`` of the KB named by ``--kb`` or the environment, else None
    (the KB is then found from the current folder or the user's default: ``config.resolve_kb``)."""
    if flag:
        return absolute(os.path.expanduser(flag)), "flag", "--kb"
    for name in KB_VARIABLES:
        path = given(env.get(name))
        if path is not None:
            return absolute(path), "env", name
    return None


def git_dir(work_tree: str) -> str:
    """The git directory of a work tree (follows a ``.git`` file as worktrees and submodules
    use)."""
    dot_git = os.path.join(work_tree, ".git")
    if os.path.isfile(dot_git):
        with open(dot_git, encoding="utf-8", errors="replace") as fh:
            text = fh.read().strip()
        if text.startswith("gitdir:"):
            target = text[len("gitdir:") :].strip()
            return (
                target
                if os.path.isabs(target)
                else os.path.realpath(os.path.join(work_tree, target))
            )
    return dot_git


def state_override(env: dict[str, str]) -> str | None:
    """``REFLECT_STATE_DIR``, absolute, or None when unset."""
    path = given(env.get(STATE_ENV))
    return absolute(path) if path is not None else None


def state_dir(kb: str, env: dict[str, str]) -> str:
    """``REFLECT_STATE_DIR`` else ``<kb's git dir>/reflect-git``: derived state is never
    committed."""
    return state_override(env) or os.path.join(git_dir(kb), STATE_SUBDIR)


def switched_on(env: dict[str, str], name: str) -> bool | None:
    """A boolean switch of the environment: False when unset or blank, None when malformed."""
    text = (env.get(name) or "").strip()
    return boolean(text) if text else False


def home(env: dict[str, str]) -> str:
    """``$HOME`` of the given environment, else the user's home."""
    return env.get("HOME") or os.path.expanduser("~")


def policy_files(env: dict[str, str]) -> list[str]:
    """The JSONL policy files, in the order they are read (absent ones included)."""
    own = given(env.get(POLICY_FILE_ENV))
    first = [own] if own is not None else []
    return first + [os.path.join(home(env), name) for name in ORIGINAL_POLICY_FILES]
