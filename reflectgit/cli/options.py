"""What every command shares: the global options, the configuration, input files, CLI errors.

The global options are declared once, in ``GLOBAL_OPTIONS``: the typer callback (``app.py``) and
the argv peek that picks the command module and the fast paths (``fastpath.py``) both read it,
so the two can never disagree about what ``--kb`` or ``-q`` mean.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reflectgit.errors import EXIT_USAGE, NotFoundError, ReflectGitError, UsageError

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, NoReturn

    from reflectgit.config import Config

# flag -> (Globals field, takes a value). `--version` is eager: typer prints and exits.
GLOBAL_OPTIONS: dict[str, tuple[str, bool]] = {
    "--kb": ("kb", True),
    "--json": ("json", False),
    "-q": ("quiet", False),
    "--quiet": ("quiet", False),
}
VERSION_OPTION = "--version"
HELP_OPTIONS = ("-h", "--help")
# What `--help` says of each (the typer callback and the registry's help page both read it).
GLOBAL_HELP = {
    "kb": "The knowledge base (a git repository).",
    "json": "One JSON document on stdout.",
    "quiet": "Only errors.",
    "version": "Print the version.",
}

# The options of `search` that the fast path takes itself: flag -> (parameter, takes a value).
# cli/search.py declares the same flags to typer; tests/test_architecture.py checks they agree.
SEARCH_OPTIONS: dict[str, tuple[str, bool]] = {
    "--limit": ("limit", True),
    "-n": ("limit", True),
    "--tag": ("tag", True),
    "--confidence": ("confidence", True),
    "--as-of": ("as_of", True),
    "--all": ("include_all", False),
}
SEARCH_LIMIT = 10


@dataclass(frozen=True, slots=True)
class FastCommand:
    """A command the fast path parses itself, as its typer command declares it: each option's
    flag -> (parameter, kind), kind ``value`` (a string), ``int``, ``flag`` or ``multiple`` (a
    repeatable string); every parameter's default; the one optional argument, if any.
    tests/test_cli_registry.py parses every option both ways and checks the results are equal."""

    options: dict[str, tuple[str, str]]
    defaults: dict[str, Any]
    argument: str | None = None


# `add` (cli/kb.py) and `recall` (cli/search.py): the same flags, parameters and defaults.
ADD = FastCommand(
    options={
        "--entities": ("entities", "value"),
        "--title": ("title", "value"),
        "--insight": ("insight", "value"),
        "--category": ("category", "value"),
        "--confidence": ("confidence", "value"),
        "--tag": ("tag", "multiple"),
        "--force": ("force", "flag"),
        "--restore": ("restore", "flag"),
    },
    defaults={
        "file": None,
        "entities": None,
        "title": None,
        "insight": None,
        "category": None,
        "confidence": None,
        "tag": [],
        "force": False,
        "restore": False,
    },
    argument="file",
)
RECALL_LIMIT = 5
RECALL = FastCommand(
    options={
        "--project": ("project", "value"),
        "--limit": ("limit", "int"),
        "-n": ("limit", "int"),
        "--format": ("fmt", "value"),
        "--budget": ("budget", "int"),
        "--global": ("everywhere", "flag"),
        "--as-of": ("as_of", "value"),
        "--domain": ("domain", "value"),
        "--domain-hint": ("domain", "value"),
    },
    defaults={
        "project": None,
        "limit": RECALL_LIMIT,
        "fmt": "text",
        "budget": None,
        "everywhere": False,
        "as_of": None,
        "domain": None,
    },
)
FAST_COMMANDS = {"add": ADD, "recall": RECALL}


class Globals:
    """Global options, shared by every command through the typer context. (A plain class: a
    dataclass costs every hook process the import of ``dataclasses`` and ``inspect``.)"""

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
    """The ``Globals`` the root callback stored on the typer context."""
    root = ctx.find_root()
    obj = root.obj
    if not isinstance(obj, Globals):  # pragma: no cover - the callback always sets it
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
    if writes_only:
        from reflectgit.workflows.kb.mutations import Mutations

        return Mutations.open(cfg.kb, env=cfg.env, state_dir=cfg.state_dir)
    from reflectgit.workflows.kb import KnowledgeBase

    return KnowledgeBase.open(cfg.kb, env=cfg.env, state_dir=cfg.state_dir)


def kb_folder(ctx: Any) -> Path:
    """The KB folder; a clear error when there is none."""
    kb = globals_of(ctx).config().kb
    if not kb.is_dir():
        raise NotFoundError(
            f"no knowledge base at {kb}",
            hint="pass files or folders, point --kb at the KB, or run `reflect-git init`",
        )
    return kb
