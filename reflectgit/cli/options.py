"""What every command shares: the global options' values, the configuration, input files,
CLI errors. (typer declares the global options: ``app.main_options``.)"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from reflectgit.errors import EXIT_USAGE, NotFoundError, ReflectGitError, UsageError

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, NoReturn

    from reflectgit.config import Config


class Globals:
    """Global options, shared by every command through the typer context."""

    def __init__(self, kb: str | None = None, json: bool = False, quiet: bool = False) -> None:
        self.kb = kb
        self.json = json
        self.quiet = quiet
        self._config: Config | None = None

    def __repr__(self) -> str:
        return f"Globals(kb={self.kb!r}, json={self.json!r}, quiet={self.quiet!r})"

    def config(self) -> Config:
        if self._config is None:
            from reflectgit.config import Config

            self._config = Config.resolve(self.kb)
        return self._config


def globals_of(ctx: Any) -> Globals:
    """The ``Globals`` on the root typer context (``app.run`` puts one there; made when not)."""
    root = ctx.find_root()
    obj = root.obj
    if not isinstance(obj, Globals):
        obj = Globals()
        root.obj = obj
    return obj


def want_json(ctx: Any, flag: bool) -> None:
    """A command's own ``--json`` (queue, drain, cost) means the global one."""
    if flag:
        globals_of(ctx).json = True


def fail(message: str, hint: str | None = None, code: int = 1) -> NoReturn:
    """Stop the command with an error (used for CLI-level checks)."""
    if code == EXIT_USAGE:
        raise UsageError(message, hint)
    raise ReflectGitError(message, hint)


def read_input(name: str, what: str) -> bytes:
    """The bytes of a file the user named, or stdin for ``-``."""
    if name == "-":
        return sys.stdin.buffer.read()
    from pathlib import Path

    try:
        return Path(name).read_bytes()
    except OSError as exc:
        fail(f"cannot read {what} {name}: {exc.strerror or exc}", hint="check the path")


def open_kb(ctx: Any, writes_only: bool = False) -> Any:
    """The KB the global options name, as a ``KnowledgeBase`` (a context manager); with
    ``writes_only``, the ``Mutations`` it is made of (add ... undo), which spares a command
    that only writes the import of reading, status and transfer."""
    cfg = globals_of(ctx).config()
    require_kb(cfg)
    if writes_only:
        from reflectgit.workflows.kb.mutations import Mutations

        return Mutations.open(cfg.kb, env=cfg.env, state_dir=cfg.state_dir)
    from reflectgit.workflows.kb import KnowledgeBase

    return KnowledgeBase.open(cfg.kb, env=cfg.env, state_dir=cfg.state_dir)


def require_kb(cfg: Config) -> None:
    """A clear error, saying why this KB was chosen, when there is no repository there."""
    from reflectgit.git.repo_info import is_repository

    if not is_repository(cfg.kb):
        from reflectgit.cli import render

        raise NotFoundError(
            f"no knowledge base at {cfg.kb} ({render.kb_reason(cfg.kb_choice)})",
            hint=render.no_kb_hint(),
        )


def kb_folder(ctx: Any) -> Path:
    """The KB folder; a clear error when there is none."""
    kb = globals_of(ctx).config().kb
    if not kb.is_dir():
        raise NotFoundError(
            f"no knowledge base at {kb}",
            hint="pass files or folders, point --kb at the KB, or run `reflect-git init`",
        )
    return kb
