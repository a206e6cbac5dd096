"""Where things are and how they are set: KB path, state directory, KB settings, environment.

This is the only module that reads ``os.environ``; everything else receives a ``Config`` (or
the few values it needs) from its caller.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflectgit.errors import ConfigError, NotFoundError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

SETTINGS_FILE = ".reflect-git.toml"
STATE_SUBDIR = "reflect-git"
DEFAULT_KB = "~/.learnings"

# Set on every process reflect-git starts itself (git fetch and push, the drain's model call):
# our own hooks see it and stay out, so reflect-git never captures its own work.
INTERNAL_ENV = "REFLECT_GIT_INTERNAL"

# KB layout (DESIGN.md section 1).
DOCUMENTS = "documents"
ARCHIVED = "archived"
FORGOTTEN = ".forgotten"
REVIEW_QUEUE = "review-queue"


def environ() -> dict[str, str]:
    """A snapshot of the process environment, for entry points to pass down."""
    return dict(os.environ)


def resolve_kb_path(explicit: str | os.PathLike[str] | None, env: Mapping[str, str]) -> Path:
    """``--kb`` else ``REFLECT_GIT_KB`` else ``GLOBAL_LEARNINGS_PATH`` else ``~/.learnings``."""
    for candidate in (explicit, env.get("REFLECT_GIT_KB"), env.get("GLOBAL_LEARNINGS_PATH")):
        if candidate:
            return Path(os.path.expanduser(os.fspath(candidate))).absolute()
    home = env.get("HOME")
    base = Path(home) if home else Path.home()
    return (base / DEFAULT_KB[2:]).absolute()


def git_dir_of(work_tree: Path) -> Path:
    """The git directory of a work tree (follows a ``.git`` file as worktrees and submodules use)."""
    dot_git = work_tree / ".git"
    if dot_git.is_file():
        text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            target = Path(text[len("gitdir:") :].strip())
            return target if target.is_absolute() else (work_tree / target).resolve()
    return dot_git


def resolve_state_dir(kb: Path, env: Mapping[str, str]) -> Path:
    """``REFLECT_STATE_DIR`` else ``<kb>/.git/reflect-git``: derived state is never committed."""
    override = env.get("REFLECT_STATE_DIR")
    if override:
        return Path(os.path.expanduser(override)).absolute()
    return git_dir_of(kb) / STATE_SUBDIR


def load_settings(kb: Path) -> dict[str, Any]:
    """The committed KB settings (``.reflect-git.toml``); an absent file means defaults."""
    path = kb / SETTINGS_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(
            f"{path} is not valid TOML: {exc}",
            hint=f"fix the file by hand, or delete it and run `reflect-git init {kb}` again",
        ) from exc


def env_flag(env: Mapping[str, str], name: str, default: bool = False) -> bool:
    """A boolean environment switch: 1/true/yes/on are true, 0/false/no/off are false."""
    value = env.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(env: Mapping[str, str], name: str, default: int) -> int:
    """An integer environment setting; a malformed value is a clear error, not a silent default."""
    value = env.get(name)
    if value is None or value.strip() == "":
        return default
    try:
        return int(value.strip())
    except ValueError as exc:
        raise ConfigError(
            f"{name}={value!r} is not a whole number", hint=f"set {name} to an integer or unset it"
        ) from exc


def env_float(env: Mapping[str, str], name: str, default: float) -> float:
    """A number from the environment; a malformed value is a clear error."""
    value = env.get(name)
    if value is None or value.strip() == "":
        return default
    try:
        return float(value.strip())
    except ValueError as exc:
        raise ConfigError(
            f"{name}={value!r} is not a number", hint=f"set {name} to a number or unset it"
        ) from exc


@dataclass(frozen=True)
class Config:
    """Everything a workflow needs to know about where it runs, resolved once at the edge."""

    kb: Path
    state_dir: Path
    env: Mapping[str, str] = field(default_factory=dict)
    settings: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def resolve(
        cls,
        kb: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Config:
        env = dict(os.environ) if env is None else dict(env)
        kb_path = resolve_kb_path(kb, env)
        return cls(
            kb=kb_path,
            state_dir=resolve_state_dir(kb_path, env),
            env=env,
            settings=load_settings(kb_path),
        )

    def setting(self, section: str, key: str, default: Any = None) -> Any:
        """One value from ``.reflect-git.toml`` (``[section] key = ...``)."""
        table = self.settings.get(section)
        if isinstance(table, Mapping):
            return table.get(key, default)
        return default

    def require_kb(self) -> None:
        """Refuse to put derived state inside a KB that does not exist.

        The default state directory lives in ``<kb>/.git``; creating it for a folder that is not
        a repository would leave a stray ``.git`` behind that later stops ``init``. A state
        directory elsewhere (``REFLECT_STATE_DIR``) may exist without a KB.
        """
        git_dir = git_dir_of(self.kb)
        if git_dir in self.state_dir.parents and not git_dir.is_dir():
            raise NotFoundError(
                f"{self.kb} is not a knowledge base (no git repository there)",
                hint=f"run `reflect-git init {self.kb}`, or pass --kb PATH",
            )

    @property
    def internal(self) -> bool:
        """Running inside a process reflect-git started: hooks must not capture it."""
        return env_flag(self.env, INTERNAL_ENV)

    @property
    def disabled(self) -> bool:
        """``REFLECT_DISABLED=1``: drain, idle sweep and agent hooks do nothing."""
        return env_flag(self.env, "REFLECT_DISABLED")
