"""Where things are and how they are set: KB path, state directory, every setting.

This is the only module that reads ``os.environ``, and the only one that parses a
``REFLECT_*`` variable or a value of ``.reflect-git.toml`` (with ``location.py``, the part of it
every agent hook reads before anything else: the KB named, the state directory, the switches). Entry points call
``Config.resolve`` (or ``environ``) once; everything else receives a ``Config`` or one of the
settings classes below from its caller.

Each setting is one field of a settings class declared with ``setting(...)``: its environment
variable(s), its ``.reflect-git.toml`` key where the KB may set it, its default, its kind and
one line of meaning. The settings classes share ``Settings``, a tiny frozen base (the keyword
and positional constructor, equality, hash and repr ``@dataclass(frozen=True)`` would give):
every agent hook reads them, and ``dataclasses`` (with ``inspect``) and a generated
``__init__`` per class cost a hook more than its whole work. ``docs/settings.md`` is generated from these declarations
(``settings_markdown``) and a test keeps the page and the fields in step.

Precedence, highest first: a command-line flag, the environment, ``.reflect-git.toml``, the
default. An empty (or all-blank) environment variable counts as unset. A malformed value is a
``ConfigError`` naming the variable (or key) and the value, with a hint; for the settings hooks
read (``GeneralSettings``, ``CaptureSettings``), it falls back to the default instead and the
reason is kept in ``Config.warnings`` for the hook's log, because a hook never fails its caller.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from reflectgit import location
from reflectgit.errors import ConfigError, NotFoundError
from reflectgit.location import INTERNAL_ENV

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar, TypeVar

    T = TypeVar("T", bound="Settings")  # a settings class


SETTINGS_FILE = ".reflect-git.toml"
DEFAULT_KB = "~/.learnings"

# Passed to the drain's model command, so a custom command (REFLECT_DRAIN_CMD) knows the model.
DRAIN_MODEL_ENV = "REFLECT_DRAIN_MODEL"
# What the CI jobs `init --ci` writes install; read by the CI job, never by reflect-git.
CI_INSTALL_ENV = "REFLECT_GIT_PIP"
# The secret the code repository's CI jobs (`code-ci`) clone the team KB from: a variable of
# those jobs, never read by reflect-git itself.
CI_KB_URL_ENV = "REFLECT_KB_URL"

# KB layout (DESIGN.md section 1).
DOCUMENTS = "documents"
ARCHIVED = "archived"
FORGOTTEN = ".forgotten"
REVIEW_QUEUE = "review-queue"


# What each kind of setting accepts, for error messages and docs/settings.md.
KINDS = {
    "int": "whole number",
    "float": "number",
    "bool": "boolean",
    "str": "string",
    "path": "path",
    "words": "shell words",
    "present": "set or unset",
}


environ = location.environ  # a snapshot of the process environment, for entry points to pass down


# ============================================================================ declarations


class Spec:
    """How one setting is read: where from, what it accepts, what it means."""

    __slots__ = ("default_doc", "env", "flag", "help", "kind", "minimum", "toml")

    def __init__(
        self,
        kind: str,
        help: str,
        env: tuple[str, ...] = (),  # first set variable wins
        toml: str | None = None,  # "section.key" in .reflect-git.toml
        flag: str | None = None,  # the command-line option that overrides it
        minimum: float | None = None,
        default_doc: str | None = None,  # the default as the docs show it, when not a literal
    ) -> None:
        self.kind, self.help, self.env, self.toml = kind, help, env, toml
        self.flag, self.minimum, self.default_doc = flag, minimum, default_doc

    @property
    def section(self) -> str:
        return self.toml.split(".", 1)[0] if self.toml else ""

    @property
    def key(self) -> str:
        return self.toml.split(".", 1)[1] if self.toml else ""


class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


_UNSET: Any = _Unset()  # no default given; no value found


class Field:
    """One field of a ``Settings`` class: its name, its default (or the factory of one) and
    its ``Spec``."""

    __slots__ = ("default", "default_factory", "name", "spec")

    def __init__(self, default: Any, default_factory: Callable[[], Any] | None, spec: Spec) -> None:
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.spec = spec

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name


def setting(
    default: Any = _UNSET,
    *,
    kind: str,
    help: str,
    env: str | tuple[str, ...] = (),
    toml: str | None = None,
    flag: str | None = None,
    minimum: float | None = None,
    default_doc: str | None = None,
    default_factory: Callable[[], Any] | None = None,
) -> Any:
    """A ``Settings`` field carrying its ``Spec``."""
    assert kind in KINDS, kind
    env = (env,) if isinstance(env, str) else tuple(env)
    spec = Spec(kind, help, env, toml, flag, minimum, default_doc)
    return Field(default, default_factory, spec)


class Settings:
    """The settings classes' tiny frozen base: fields in declaration order, set by position or
    keyword (a default, or a ``default_factory`` run per instance, for each one not given);
    frozen, equal and hashed by class and values, shown as ``Name(field=value, ...)``. A
    field's default stays readable on the class."""

    FIELDS: ClassVar[tuple[Field, ...]] = ()

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        own = tuple(v for v in vars(cls).values() if isinstance(v, Field))
        for f in own:
            if f.default_factory is None and f.default is not _UNSET:
                setattr(cls, f.name, f.default)
            else:
                delattr(cls, f.name)
        cls.FIELDS = (*cls.FIELDS, *own)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        name = type(self).__name__
        fields_ = type(self).FIELDS
        if len(args) > len(fields_):
            raise TypeError(
                f"{name}() takes {len(fields_)} positional arguments but {len(args)} were given"
            )
        values = {f.name: value for f, value in zip(fields_, args, strict=False)}
        for key, value in kwargs.items():
            if key in values:
                raise TypeError(f"{name}() got multiple values for argument {key!r}")
            values[key] = value
        unknown = set(values) - {f.name for f in fields_}
        if unknown:
            raise TypeError(f"{name}() got an unexpected keyword argument {min(unknown)!r}")
        own = self.__dict__
        for f in fields_:
            if f.name in values:
                own[f.name] = values[f.name]
            elif f.default_factory is not None:
                own[f.name] = f.default_factory()
            elif f.default is not _UNSET:
                own[f.name] = f.default
            else:
                raise TypeError(f"{name}() missing 1 required argument: {f.name!r}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(self.__dict__[f.name] for f in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((self.__class__, self._values()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={self.__dict__[f.name]!r}" for f in self.FIELDS)
        return f"{type(self).__name__}({shown})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: settings are frozen")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: settings are frozen")


def fields(cls: type[Settings] | Settings) -> tuple[Field, ...]:
    """The fields of a settings class, in declaration order."""
    return cls.FIELDS


def spec_of(f: Field) -> Spec:
    return f.spec


# ============================================================================ parsing


def _parse_text(spec: Spec, text: str, where: str) -> Any:
    """One environment value (already stripped, not empty) as the setting's kind."""
    value: Any
    if spec.kind == "int":
        try:
            value = int(text)
        except ValueError:
            raise _bad(spec, where, text, "is not a whole number") from None
    elif spec.kind == "float":
        try:
            value = float(text)
        except ValueError:
            raise _bad(spec, where, text, "is not a number") from None
        if not _finite(value):
            raise _bad(spec, where, text, "is not a finite number")
    elif spec.kind == "bool":
        value = location.boolean(text)
        if value is None:
            raise _bad(spec, where, text, "is not a boolean")
    elif spec.kind == "path":
        value = Path(os.path.expanduser(text))
    elif spec.kind == "words":
        import shlex  # only a "words" setting that is set pays for it

        try:
            value = tuple(shlex.split(text))
        except ValueError as exc:
            raise _bad(spec, where, text, f"is not valid shell words ({exc})") from None
    elif spec.kind == "present":
        value = True
    else:
        value = text
    return _check_range(spec, where, text, value)


def _finite(value: float) -> bool:
    return value - value == 0  # inf - inf and nan - nan are nan (no `math` import)


def _parse_toml(spec: Spec, raw: Any, where: str) -> Any:
    """One ``.reflect-git.toml`` value as the setting's kind (TOML types, no coercion)."""
    kind = spec.kind
    ok = {
        "int": isinstance(raw, int) and not isinstance(raw, bool),
        "float": isinstance(raw, (int, float)) and not isinstance(raw, bool),
        "bool": isinstance(raw, bool),
        "str": isinstance(raw, str),
        "path": isinstance(raw, str),
        "words": isinstance(raw, list) and all(isinstance(w, str) for w in raw),
        "present": isinstance(raw, bool),
    }[kind]
    if not ok:
        noun = "string (a path)" if kind == "path" else KINDS[kind]
        raise _bad(spec, where, raw, f"is not a {noun}")
    value: Any = raw
    if kind == "float":
        value = float(raw)
        if not _finite(value):
            raise _bad(spec, where, raw, "is not a finite number")
    elif kind == "path":
        value = Path(os.path.expanduser(raw))
    elif kind == "words":
        value = tuple(raw)
    return _check_range(spec, where, raw, value)


def _check_range(spec: Spec, where: str, raw: Any, value: Any) -> Any:
    if spec.minimum is not None and isinstance(value, (int, float)) and value < spec.minimum:
        raise _bad(spec, where, raw, f"must be {spec.minimum:g} or more")
    return value


def _bad(spec: Spec, where: str, raw: Any, problem: str) -> ConfigError:
    expect = KINDS[spec.kind]
    if spec.kind == "bool":
        expect = "1/true/yes/on or 0/false/no/off"
    elif spec.minimum is not None:
        expect = f"a {expect} of {spec.minimum:g} or more"
    else:
        expect = f"a {expect}"
    if where.startswith("["):  # a .reflect-git.toml key
        return ConfigError(
            f"{where} = {raw!r} in {SETTINGS_FILE} {problem}",
            hint=f"set {where} to {expect} in {SETTINGS_FILE}, or remove the line",
        )
    return ConfigError(f"{where}={raw!r} {problem}", hint=f"set {where} to {expect}, or unset it")


def load(
    cls: type[T],
    env: Mapping[str, str],
    toml: Mapping[str, Any] | None = None,
    *,
    flags: Mapping[str, Any] | None = None,
    defaults: Mapping[str, Any] | None = None,
    warnings: list[str] | None = None,
) -> T:
    """Build ``cls`` from its fields' specs: flag > environment > ``.reflect-git.toml`` > default.

    ``flags`` are command-line values (None means not given); ``defaults`` replace a field's
    default where it depends on the environment (``$HOME``). A malformed value raises
    ``ConfigError``, unless ``cls.LENIENT``: then the default is used and the reason appended to
    ``warnings``.
    """
    flags = dict(flags or {})
    lenient = bool(getattr(cls, "LENIENT", False))
    values: dict[str, Any] = {}
    for f in fields(cls):
        spec = f.spec
        given = flags.pop(f.name, None)
        if given is not None:
            values[f.name] = given
            continue
        try:
            value = _from_env(spec, env)
            if value is _UNSET:
                value = _from_toml(spec, toml or {})
        except ConfigError as exc:
            if not lenient:
                raise
            if warnings is not None:
                warnings.append(f"{exc.message}: using the default")
            value = _UNSET
        if value is _UNSET and defaults and f.name in defaults:
            value = defaults[f.name]
        if value is not _UNSET:
            values[f.name] = value
    if flags:
        raise TypeError(f"{cls.__name__} has no setting {', '.join(sorted(flags))}")
    return cls(**values)


def _from_env(spec: Spec, env: Mapping[str, str]) -> Any:
    for name in spec.env:
        raw = env.get(name)
        if raw is not None and raw.strip():
            return _parse_text(spec, raw.strip(), name)
    return _UNSET


def _from_toml(spec: Spec, toml: Mapping[str, Any]) -> Any:
    if not spec.toml:
        return _UNSET
    table = toml.get(spec.section)
    if not isinstance(table, Mapping) or spec.key not in table:
        return _UNSET
    return _parse_toml(spec, table[spec.key], f"[{spec.section}] {spec.key}")


# ============================================================================ settings


def _under_home(home: Path | None = None) -> dict[str, Path]:
    """The capture settings whose default lies in a home folder (default: the user's)."""
    if home is None:
        home = Path.home()
    return {"idle_projects_root": home / ".claude" / "projects", "codex_home": home / ".codex"}


class GeneralSettings(Settings):
    """Where the KB and the state live; the switches every entry point obeys."""

    LENIENT: ClassVar[bool] = True  # read by every hook
    TITLE: ClassVar[str] = "General"

    kb: Path | None = setting(
        None,
        kind="path",
        env=("REFLECT_GIT_KB", "GLOBAL_LEARNINGS_PATH"),  # KB_VARIABLES
        flag="--kb",
        default_doc="the KB around the current folder, else the default KB, else `~/.learnings`",
        help="the knowledge base (`GLOBAL_LEARNINGS_PATH` is the original tool's name for it); "
        "see *Which knowledge base* above",
    )
    state_dir: Path | None = setting(
        None,
        kind="path",
        env=location.STATE_ENV,
        default_doc="`<kb>/.git/reflect-git`",
        help="the state directory: queue, ledger, index, logs (never committed)",
    )
    disabled: bool = setting(
        False,
        kind="bool",
        env=location.DISABLED_ENV,
        help="`1`: the drain, the idle sweep and the agent hooks do nothing",
    )
    internal: bool = setting(
        False,
        kind="bool",
        env=INTERNAL_ENV,
        help="set by reflect-git on the processes it starts: our hooks stay out of our own work",
    )
    hook_sync: bool = setting(
        False,
        kind="bool",
        env=location.HOOK_SYNC_ENV,
        help="`1`: hooks do their background work in the foreground (tests, CI): the "
        "post-commit shim waits for the capture, Stop/SessionEnd/PreCompact run the capture "
        "pass, PreToolUse compiles stale rules before it answers",
    )


class CaptureSettings(Settings):
    """The capture hooks: commits, agent events, the idle sweep."""

    LENIENT: ClassVar[bool] = True  # hooks never fail their caller
    TITLE: ClassVar[str] = "Capture"

    auto_reflect: bool = setting(
        True,
        kind="bool",
        env="REFLECT_AUTO_REFLECT",
        toml="capture.auto_reflect",
        help="`0`: PreCompact does not queue the transcript",
    )
    slots: bool = setting(
        False,
        kind="bool",
        env="REFLECT_SLOTS",
        toml="capture.slots",
        help="`1`: at Stop, keep the session's memory slots (pending items, command and error "
        "counts, files touched) for `recall` to show at the next session start",
    )
    session_id: str | None = setting(
        None,
        kind="str",
        # What the harnesses really export to the commands they run: Claude Code
        # CLAUDE_CODE_SESSION_ID (CLAUDE_SESSION_ID in older builds), Codex CODEX_THREAD_ID.
        env=(
            "CLAUDE_CODE_SESSION_ID",
            "CLAUDE_SESSION_ID",
            "CODEX_THREAD_ID",
            "REFLECT_SESSION_ID",
        ),
        help="the agent session a commit belongs to (recorded in `commits.jsonl`; a revert "
        "demotes that session's notes)",
    )
    commits_max_bytes: int = setting(
        10 * 1024 * 1024,
        kind="int",
        env="REFLECT_COMMITS_MAX_BYTES",
        toml="capture.commits_max_bytes",
        minimum=0,
        help="`commits.jsonl` rotates to `commits.jsonl.1` past this",
    )
    idle_disabled: bool = setting(
        False,
        kind="bool",
        env="REFLECT_IDLE_DISABLED",
        toml="idle.disabled",
        help="`1`: the idle sweep does nothing",
    )
    idle_projects_root: Path = setting(
        kind="path",
        env="REFLECT_IDLE_PROJECTS_ROOT",
        default_factory=lambda: _under_home()["idle_projects_root"],
        default_doc="`$HOME/.claude/projects`",
        help="where the idle sweep looks for agent transcripts (`*.jsonl`)",
    )
    idle_threshold_sec: int = setting(
        600,
        kind="int",
        env="REFLECT_IDLE_THRESHOLD_SEC",
        toml="idle.threshold_sec",
        minimum=0,
        help="a transcript quiet this long (seconds) is queued by the idle sweep",
    )
    idle_max_age_sec: int = setting(
        86400,
        kind="int",
        env="REFLECT_IDLE_MAX_AGE_SEC",
        toml="idle.max_age_sec",
        minimum=0,
        help="older transcripts are left alone by the idle sweep (seconds)",
    )
    idle_max_per_sweep: int = setting(
        5,
        kind="int",
        env="REFLECT_IDLE_MAX_PER_SWEEP",
        toml="idle.max_per_sweep",
        minimum=0,
        help="at most this many transcripts queued per idle sweep",
    )
    codex_home: Path = setting(
        kind="path",
        env="CODEX_HOME",
        default_factory=lambda: _under_home()["codex_home"],
        default_doc="`$HOME/.codex`",
        help="where Codex keeps its sessions (the `notify` hook finds the rollout there)",
    )


class DrainSettings(Settings):
    """The drain's run and entry gates (the original drain's names and defaults)."""

    TITLE: ClassVar[str] = "Drain"

    max_per_run: int = setting(
        3,
        kind="int",
        env="REFLECT_DRAIN_MAX",
        toml="drain.max_per_run",
        flag="--max",
        minimum=0,
        help="entries per run",
    )
    daily_max: int = setting(
        20,
        kind="int",
        env="REFLECT_DRAIN_DAILY_MAX",
        toml="drain.daily_max",
        minimum=0,
        help="entries charged per UTC day, summed from the ledger",
    )
    debounce_sec: int = setting(
        600,
        kind="int",
        env="REFLECT_DRAIN_DEBOUNCE_SEC",
        toml="drain.debounce_sec",
        minimum=0,
        help="minimum gap between runs, seconds",
    )
    timeout: int = setting(
        300,
        kind="int",
        env="REFLECT_DRAIN_TIMEOUT",
        toml="drain.timeout",
        minimum=0,
        help="per-entry wall clock, seconds; the model gets this minus 90 (60 when <= 150)",
    )
    model_timeout: float = setting(
        0.0,
        kind="float",
        env="REFLECT_DRAIN_MODEL_TIMEOUT",
        toml="drain.model_timeout",
        minimum=0,
        help="override of the model call's share, seconds (0: the split above)",
    )
    timeout_retries: int = setting(
        1,
        kind="int",
        env="REFLECT_DRAIN_TIMEOUT_RETRIES",
        toml="drain.timeout_retries",
        minimum=0,
        help="no-output timeouts before the transcript is quarantined",
    )
    max_retries: int = setting(
        3,
        kind="int",
        env="REFLECT_DRAIN_MAX_RETRIES",
        toml="drain.max_retries",
        minimum=0,
        help="failed attempts before an entry is archived as `poison`",
    )
    invalid_threshold: int = setting(
        3,
        kind="int",
        env="REFLECT_DRAIN_INVALID_THRESHOLD",
        toml="drain.invalid_threshold",
        minimum=0,
        help="consecutive invalid writer answers before `poison_writer_drift`",
    )
    token_max: int = setting(
        2_000_000,
        kind="int",
        env="REFLECT_DRAIN_TOKEN_MAX",
        toml="drain.token_max",
        minimum=0,
        help="total tokens of one run above which the transcript is archived",
    )
    max_input_chars: int = setting(
        60_000,
        kind="int",
        env="REFLECT_DRAIN_MAX_INPUT_CHARS",
        toml="drain.max_input_chars",
        minimum=0,
        help="bound on the writer's input when there is no slice (compared with the file size)",
    )
    cascade: bool = setting(
        True,
        kind="bool",
        env="REFLECT_DRAIN_CASCADE",
        toml="drain.cascade",
        help="`0` disables gate, slice and revision block",
    )
    writer: str = setting(
        "",
        kind="str",
        env="REFLECT_DRAIN_WRITER",
        toml="drain.writer",
        flag="--writer",
        default_doc="auto",
        help="`extract` or `heuristic` (`agentic` means `extract`); auto: `extract` when a model "
        "command is configured or installed",
    )
    dry_run: bool = setting(
        False,
        kind="bool",
        env="REFLECT_DRAIN_DRY_RUN",
        flag="--dry-run",
        help="`1`: dry run (no model call, nothing durable written)",
    )
    cwd: str | None = setting(
        None,
        kind="str",
        env=("REFLECT_DRAIN_CWD", "HOME"),
        default_doc="`$HOME`",
        help="working directory of the model command",
    )
    stale_days: int = setting(
        0,
        kind="int",
        env="REFLECT_DRAIN_STALE_DAYS",
        toml="drain.stale_days",
        minimum=0,
        help="entries queued longer ago are `stale` (0: only a missing transcript is stale)",
    )
    log_max_bytes: int = setting(
        10 * 1024 * 1024,
        kind="int",
        env="REFLECT_DRAIN_LOG_MAX_BYTES",
        toml="drain.log_max_bytes",
        minimum=0,
        help="`drain.log` rotates to `drain.log.1` past this",
    )
    route: bool = setting(
        False,
        kind="bool",
        toml="drain.route",
        help="route new notes to the team KB after the commit",
    )


class WriterSettings(Settings):
    """The extract writer's model command (machine settings: never from the committed file)."""

    TITLE: ClassVar[str] = "Drain writer"

    command: tuple[str, ...] = setting(
        (),
        kind="words",
        env="REFLECT_DRAIN_CMD",
        default_doc="`claude -p ...`",
        help="the whole model command (shell words); prompt on stdin, answer on stdout",
    )
    model: str = setting(
        "sonnet",
        kind="str",
        env=DRAIN_MODEL_ENV,
        toml="drain.model",
        help="`--model` of the default command (also passed to a custom command's environment)",
    )
    claude_bin: str = setting(
        "claude",
        kind="str",
        env="REFLECT_DRAIN_CLAUDE_BIN",
        help="the binary of the default command",
    )


class QuotaSettings(Settings):
    """The drain's quota gate, fed by what the writer reports."""

    TITLE: ClassVar[str] = "Quota gate"

    enabled: bool = setting(
        True,
        kind="bool",
        env="REFLECT_QUOTA_GATE",
        toml="quota.enabled",
        help="`0` disables the quota gate",
    )
    ttl_sec: int = setting(
        3600,
        kind="int",
        env="REFLECT_QUOTA_TTL_SEC",
        toml="quota.ttl_sec",
        minimum=0,
        help="a quota snapshot older than this fails open, seconds",
    )
    ceiling_override: float | None = setting(
        None,
        kind="float",
        env="REFLECT_QUOTA_UTIL_THRESHOLD",
        toml="quota.util_threshold",
        minimum=0,
        default_doc="per window",
        help="one utilisation ceiling (0 to 1) for every window",
    )
    exempt: bool = setting(
        False,
        kind="present",
        env="ANTHROPIC_API_KEY",
        default_doc="unset",
        help="set: API-key auth, exempt from the quota gate",
    )


class SearchSettings(Settings):
    """What `recall` hands an agent at session start."""

    TITLE: ClassVar[str] = "Search and recall"

    recall_budget: int = setting(
        4000,
        kind="int",
        env="REFLECT_RECALL_BUDGET",
        toml="recall.budget",
        flag="--budget",
        minimum=0,
        help="at most this many characters of context from `recall`",
    )
    synonyms: str = setting(
        "synonyms.txt",
        kind="str",
        env="REFLECT_SEARCH_SYNONYMS",
        toml="search.synonyms",
        help="the KB's own synonym table (a path in the KB), added to the shipped one; "
        "empty: the shipped table alone",
    )
    expand_timeout: float = setting(
        30.0,
        kind="float",
        env="REFLECT_SEARCH_EXPAND_TIMEOUT",
        toml="search.expand_timeout",
        minimum=0,
        help="`search --expand`: seconds the model may take to suggest related terms",
    )
    recall_expand: bool = setting(
        False,
        kind="bool",
        env="REFLECT_RECALL_EXPAND",
        toml="recall.expand",
        help="`1`: `recall --format text` also asks the drain's model for related terms, as"
        " `search --expand` (cached; never in a hook's formats)",
    )


class CodeSettings(Settings):
    """`stale`: a configured model reads the notes the heuristics call stale for a change."""

    TITLE: ClassVar[str] = "Knowledge that knows the code"

    ask_model: bool = setting(
        False,
        kind="bool",
        env="REFLECT_STALE_ASK_MODEL",
        toml="code.ask_model",
        flag="--ask-model",
        help="`1`: `stale` asks the drain's model, once per note, whether the change to its"
        " anchored code makes it wrong (only the flag asks in `--json`)",
    )
    ask_max: int = setting(
        50,
        kind="int",
        env="REFLECT_STALE_ASK_MAX",
        toml="code.ask_max",
        minimum=0,
        help="`stale --ask-model`: at most this many model calls a run; the notes past it"
        " keep the heuristic verdict",
    )
    ask_timeout: float = setting(
        60.0,
        kind="float",
        env="REFLECT_STALE_ASK_TIMEOUT",
        toml="code.ask_timeout",
        minimum=0,
        help="`stale --ask-model`: seconds the model may take to read one note",
    )


class TeamSettings(Settings):
    """The team KB (`reflect-git team clone URL` writes these)."""

    TITLE: ClassVar[str] = "Team"

    remote: str | None = setting(
        None, kind="str", toml="team.remote", help="the team KB: a URL or a remote name"
    )
    branch: str = setting("main", kind="str", toml="team.branch", help="the team's branch")
    path: str | None = setting(
        None,
        kind="str",
        toml="team.path",
        help="the local clone of the team KB (relative to the KB, or absolute)",
    )


class RoutingSettings(Settings):
    """The `route` command."""

    TITLE: ClassVar[str] = "Routing"

    max_attempts: int = setting(
        10,
        kind="int",
        toml="routing.max_attempts",
        minimum=1,
        help="pushes to the team's main before a high route gives up (the main moved meanwhile)",
    )


class PolicySettings(Settings):
    """Enforced rules: what `hook PreToolUse` and `hook PermissionRequest` read."""

    LENIENT: ClassVar[bool] = True  # read by the PreToolUse hook
    TITLE: ClassVar[str] = "Policy"

    enabled: bool = setting(
        True,
        kind="bool",
        env=location.POLICY_ENV,  # the PreToolUse hook's quick path reads it too
        toml="policy.enabled",
        help="`0`: the PreToolUse and PermissionRequest hooks never block or add context",
    )
    file: Path | None = setting(
        None,
        kind="path",
        env=location.POLICY_FILE_ENV,  # read by location.policy_files (the hooks read it too)
        help="one more JSONL policy file, read before `~/.reflect/policy-rules.jsonl` and "
        "`~/.reflect/permission-policy.jsonl` (the original tool's files)",
    )


class ForgeAccessSettings(Settings):
    """Where a forge token goes, and which: environment or your config file, never committed.

    The environment, or ``[forge]`` in the user's own config file
    (``$XDG_CONFIG_HOME/reflect-git/config.toml``); ``forge_settings`` ignores these keys in a
    committed ``.reflect-git.toml``.
    """

    TITLE: ClassVar[str] = "Forge access"

    provider: str | None = setting(
        None,
        kind="str",
        env="REFLECT_FORGE_PROVIDER",
        help="github, gitlab, gitea, forgejo, gh or none (default: guessed from the team "
        "remote's host)",
    )
    api_url: str | None = setting(
        None,
        kind="str",
        env="REFLECT_FORGE_API_URL",
        help="the forge's API (default: from the team remote's host); https only, or http to "
        "loopback",
    )
    host: str | None = setting(
        None, kind="str", env="REFLECT_FORGE_HOST", help="the host `gh` is logged in to"
    )
    token_env: str | None = setting(
        None,
        kind="str",
        env="REFLECT_FORGE_TOKEN_ENV",
        help="one more variable to read the token from, before the forge's own",
    )


# The ``[forge]`` keys that choose where a credential is sent or which one: the forge kind, the
# API's URL, the host ``gh`` logs in to, the variable the token is read from. Only the user's
# own config file and environment may set them; a committed ``.reflect-git.toml`` (the KB's, or
# the team main's, which any teammate can push to) may not.
FORGE_TRUSTED = {f.name: f.spec.env[0] for f in fields(ForgeAccessSettings)}


SETTINGS_CLASSES: tuple[type[Settings], ...] = (
    GeneralSettings,
    CaptureSettings,
    DrainSettings,
    WriterSettings,
    QuotaSettings,
    SearchSettings,
    CodeSettings,
    TeamSettings,
    RoutingSettings,
    ForgeAccessSettings,
    PolicySettings,
)


# ============================================================================ paths

# Where a command's KB comes from, highest first (as git finds a repository).
KB_SOURCES = ("flag", "env", "cwd", "default", "fallback")
USER_CONFIG_DIR = "reflect-git"
USER_CONFIG_FILE = "config.toml"  # $XDG_CONFIG_HOME/reflect-git/config.toml
DEFAULT_KB_KEY = "default_kb"


class KbChoice:
    """The KB a command uses and why: ``source`` is one of ``KB_SOURCES``; ``origin`` is the
    variable (env), the folder looked from (cwd) or the user config file (default)."""

    __slots__ = ("origin", "path", "source")

    def __init__(self, path: Path, source: str, origin: str = "") -> None:
        self.path, self.source, self.origin = path, source, origin

    def __repr__(self) -> str:
        return f"KbChoice(path={self.path!r}, source={self.source!r}, origin={self.origin!r})"


def resolve_kb(
    explicit: str | os.PathLike[str] | None,
    env: Mapping[str, str],
    cwd: str | os.PathLike[str] | None,
) -> KbChoice:
    """``--kb`` > ``REFLECT_GIT_KB`` (``GLOBAL_LEARNINGS_PATH``) > the KB containing ``cwd`` >
    the user's default KB (``config.toml``) > ``~/.learnings``. ``cwd`` None: not looked at."""
    named = location.named_kb(os.fspath(explicit) if explicit else None, dict(env))
    if named is not None:
        path, source, origin = named
        return KbChoice(Path(path), source, origin)
    if cwd is not None:
        found = kb_containing(Path(cwd))
        if found is not None:
            return KbChoice(found, "cwd", str(Path(cwd).absolute()))
    default = default_kb(env)
    if default is not None:
        return KbChoice(default, "default", str(user_config_path(env)))
    return KbChoice((home_of(env) / DEFAULT_KB[2:]).absolute(), "fallback")


def kb_containing(folder: Path) -> Path | None:
    """The KB ``folder`` is in: the nearest repository above it (itself included), when its root
    holds ``.reflect-git.toml`` (the file ``init`` writes). A plain code repository is not a KB,
    and the walk stops there, as git stops at the first repository."""
    here = folder.absolute()
    for candidate in (here, *here.parents):
        if git_dir_of(candidate).is_dir():
            return candidate if os.path.isfile(candidate / SETTINGS_FILE) else None
    return None


def user_config_path(env: Mapping[str, str]) -> Path:
    """The user's own settings file, never committed, never cloned (the default KB, ``[forge]``):
    ``$XDG_CONFIG_HOME/reflect-git/config.toml`` (``~/.config/...`` when unset or relative, as
    the XDG spec says)."""
    xdg = (env.get("XDG_CONFIG_HOME") or "").strip()
    base = Path(xdg) if xdg and os.path.isabs(xdg) else home_of(env) / ".config"
    return base / USER_CONFIG_DIR / USER_CONFIG_FILE


def _read_user_config(path: Path) -> tuple[dict[str, Any], str]:
    """The user's config file as a table, and its text ({} and "" when there is none)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}, ""
    except OSError as exc:
        raise ConfigError(
            f"cannot read {path}: {exc.strerror or exc}",
            hint="fix or remove the file (`reflect-git config default-kb PATH` writes it)",
        ) from exc
    tomllib = _tomllib()
    try:
        text = raw.decode("utf-8")
        return tomllib.loads(text), text
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(
            f"{path} is not valid TOML: {exc}",
            hint="fix the file by hand, or remove it and run `reflect-git config default-kb PATH`",
        ) from exc


def default_kb(env: Mapping[str, str]) -> Path | None:
    """The user's default KB (``default_kb`` in ``config.toml``), or None when none is set."""
    path = user_config_path(env)
    data, _ = _read_user_config(path)
    value = data.get(DEFAULT_KB_KEY)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(
            f"{DEFAULT_KB_KEY} = {value!r} in {path} is not a path",
            hint="run `reflect-git config default-kb PATH`",
        )
    return Path(os.path.expanduser(value.strip())).absolute()


def set_default_kb(env: Mapping[str, str], kb: Path | None) -> Path:
    """Write (``kb`` None: remove) ``default_kb`` in the user config; every other line stays.
    Returns the file. Refuses a file it cannot read back as meant."""
    import re

    path = user_config_path(env)
    data, text = _read_user_config(path)
    line = re.compile(rf"^[ \t]*{DEFAULT_KB_KEY}[ \t]*=.*\n?", re.MULTILINE)
    first_table = re.search(r"^[ \t]*\[", text, re.MULTILINE)
    top, rest = (
        (text[: first_table.start()], text[first_table.start() :]) if first_table else (text, "")
    )
    top = line.sub("", top).rstrip()
    top = top + "\n" if top else ""
    if kb is not None:
        head = "" if text.strip() else "# reflect-git's settings for you (`reflect-git config`)\n"
        top = head + top + f"{DEFAULT_KB_KEY} = {toml_string(str(kb))}\n"
    new = top + ("\n" if top and rest else "") + rest
    expected = {k: v for k, v in data.items() if k != DEFAULT_KB_KEY}
    if kb is not None:
        expected[DEFAULT_KB_KEY] = str(kb)
    tomllib = _tomllib()
    try:
        readback = tomllib.loads(new)
    except tomllib.TOMLDecodeError:
        readback = None
    if readback != expected:
        raise ConfigError(
            f"{path} holds {DEFAULT_KB_KEY} in a form this command does not rewrite",
            hint=f"edit {path} by hand: {DEFAULT_KB_KEY} = {toml_string(str(kb or ''))}",
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(new, encoding="utf-8")
    os.replace(tmp, path)
    return path


def toml_string(value: str) -> str:
    """A TOML basic string (quotes, backslashes and control characters escaped)."""
    out = []
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def current_folder() -> Path | None:
    """The process's current folder (None when it was deleted under us)."""
    try:
        return Path(os.getcwd())
    except OSError:
        return None


def home_of(env: Mapping[str, str]) -> Path:
    """``$HOME`` of the given environment, else the user's home."""
    return Path(location.home(dict(env)))


def git_dir_of(work_tree: Path) -> Path:
    """The git directory of a work tree (follows a ``.git`` file as worktrees and submodules use)."""
    return Path(location.git_dir(os.fspath(work_tree)))


def resolve_state_dir(kb: Path, env: Mapping[str, str]) -> Path:
    """``REFLECT_STATE_DIR`` else ``<kb>/.git/reflect-git``: derived state is never committed."""
    override = location.state_override(dict(env))
    if override is not None:
        return _usable_state_dir(Path(override))
    return Path(location.state_dir(os.fspath(kb), dict(env)))


def _usable_state_dir(path: Path) -> Path:
    """``REFLECT_STATE_DIR`` as given, unless it (or the nearest part of it that exists) is not
    a folder: then a clear error now, not a crash at the first write."""
    existing = path
    while not os.path.exists(existing) and existing.parent != existing:
        existing = existing.parent
    if not os.path.isdir(existing):
        raise ConfigError(
            f"REFLECT_STATE_DIR={path} cannot be a folder: {existing} is a file",
            hint="point REFLECT_STATE_DIR at a folder (it is created when missing), or unset it",
        )
    return path


def _tomllib() -> Any:
    """The TOML parser, imported when a file is there to read."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    return tomllib


def load_settings(kb: Path | str) -> dict[str, Any]:
    """The committed KB settings (``.reflect-git.toml``); an absent file means defaults."""
    path = os.path.join(kb, SETTINGS_FILE)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
    # Only a KB with a settings file pays for the TOML parser (4 ms of every hook otherwise).
    tomllib = _tomllib()
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(
            f"{path} is not valid TOML: {exc}",
            hint=f"fix the file by hand, or delete it and run `reflect-git init {kb}` again",
        ) from exc


# ============================================================================ forge settings


def _user_forge_table(env: Mapping[str, str]) -> tuple[dict[str, Any], Path]:
    """``[forge]`` of the user's config file (``user_config_path``; {} when there is none)."""
    path = user_config_path(env)
    data, _ = _read_user_config(path)
    table = data.get("forge")
    return (dict(table) if isinstance(table, Mapping) else {}), path


class ForgeSettings:
    """The ``[forge]`` table a route or review uses, where each key came from, and the
    committed values that were ignored (each named in a warning)."""

    __slots__ = ("ignored", "sources", "values")

    def __init__(self, values: dict[str, Any], sources: dict[str, str], ignored: list[str]) -> None:
        self.values, self.sources, self.ignored = values, sources, ignored

    def describe(self) -> str:
        """One line: the forge settings and where each came from."""
        if not self.values:
            return "forge: from the team remote's host (no [forge] settings)"
        return "forge: " + ", ".join(
            f"{key} from {self.sources[key]}" for key in sorted(self.values)
        )


def forge_settings(
    env: Mapping[str, str], committed: Sequence[tuple[str, Mapping[str, Any]]] = ()
) -> ForgeSettings:
    """``[forge]`` from the committed tables (``(where, table)``, lowest precedence first),
    then the user's config file, then ``REFLECT_FORGE_*``; the keys of ``FORGE_TRUSTED`` only
    from the last two."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    ignored: list[str] = []
    for where, table in committed:
        if not isinstance(table, Mapping):
            continue
        for key, value in table.items():
            if key in FORGE_TRUSTED:
                ignored.append(
                    f"[forge] {key} in {where} is ignored: where a token is sent, and which, "
                    f"is set only in {user_config_path(env)} or {FORGE_TRUSTED[key]}"
                )
                continue
            values[key], sources[key] = value, where
    table, path = _user_forge_table(env)
    for key, value in table.items():
        values[key], sources[key] = value, str(path)
    given = load(ForgeAccessSettings, env)
    for key, name in FORGE_TRUSTED.items():
        value = getattr(given, key)
        if value is not None:
            values[key], sources[key] = value, name
    return ForgeSettings(values, sources, ignored)


# ============================================================================ Config


class Config:
    """Everything a workflow needs to know about where it runs, resolved once at the edge.

    ``env`` is the environment reflect-git's own child processes get (git, the model command);
    settings come from the properties (``capture``, ``drain`` ...), each parsed once, when
    first asked for: a malformed drain setting does not stop ``reflect-git list``. Frozen;
    equal when ``kb``, ``state_dir``, ``env`` and ``settings`` are (``warnings`` aside).
    """

    kb: Path
    state_dir: Path
    env: Mapping[str, str]
    settings: Mapping[str, Any]  # .reflect-git.toml as read
    warnings: list[str]  # lenient fallbacks
    kb_choice: KbChoice  # why this KB (`status` says it)

    def __init__(
        self,
        kb: str | os.PathLike[str],
        state_dir: str | os.PathLike[str],
        env: Mapping[str, str] | None = None,
        settings: Mapping[str, Any] | None = None,
        warnings: list[str] | None = None,
        kb_choice: KbChoice | None = None,
    ) -> None:
        own = self.__dict__
        own["kb"] = Path(kb)
        own["state_dir"] = Path(state_dir)
        own["env"] = {} if env is None else env
        own["settings"] = {} if settings is None else settings
        own["warnings"] = [] if warnings is None else warnings
        own["kb_choice"] = KbChoice(own["kb"], "flag") if kb_choice is None else kb_choice

    def _key(self) -> tuple[Any, ...]:
        return (self.kb, self.state_dir, self.env, self.settings)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # env and settings are mutable mappings

    def __repr__(self) -> str:
        return (
            f"Config(kb={self.kb!r}, state_dir={self.state_dir!r}, env={self.env!r}, "
            f"settings={self.settings!r}, warnings={self.warnings!r})"
        )

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: a Config is frozen")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: a Config is frozen")

    @classmethod
    def resolve(
        cls,
        kb: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> Config:
        """The configuration of one run: the KB as ``resolve_kb`` finds it (looking from ``cwd``,
        default the current folder: read here, once, for the whole run)."""
        env = environ() if env is None else dict(env)
        choice = resolve_kb(kb, env, cwd if cwd is not None else current_folder())
        return cls(
            kb=choice.path,
            state_dir=resolve_state_dir(choice.path, env),
            env=env,
            settings=load_settings(choice.path),
            kb_choice=choice,
        )

    # ------------------------------------------------------------------ settings

    def load(self, cls: type[T], **flags: Any) -> T:
        """``cls`` from this config, command-line ``flags`` first (None: not given)."""
        defaults = _under_home(self.home) if cls is CaptureSettings else {}
        return load(
            cls, self.env, self.settings, flags=flags, defaults=defaults, warnings=self.warnings
        )

    @cached_property
    def general(self) -> GeneralSettings:
        return self.load(GeneralSettings)

    @cached_property
    def capture(self) -> CaptureSettings:
        return self.load(CaptureSettings)

    @cached_property
    def drain(self) -> DrainSettings:
        return self.load(DrainSettings)

    @cached_property
    def writer(self) -> WriterSettings:
        return self.load(WriterSettings)

    @cached_property
    def quota(self) -> QuotaSettings:
        return self.load(QuotaSettings)

    @cached_property
    def search(self) -> SearchSettings:
        return self.load(SearchSettings)

    @cached_property
    def code(self) -> CodeSettings:
        return self.load(CodeSettings)

    @cached_property
    def team(self) -> TeamSettings:
        return self.load(TeamSettings)

    @cached_property
    def routing(self) -> RoutingSettings:
        return self.load(RoutingSettings)

    @cached_property
    def policy(self) -> PolicySettings:
        return self.load(PolicySettings)

    def forge(self, team: Mapping[str, Any] | None = None) -> ForgeSettings:
        """``[forge]``: the team main's table (``team``) under this KB's ``.reflect-git.toml``,
        under the user's config file and environment (``forge_settings``)."""
        committed: list[tuple[str, Mapping[str, Any]]] = []
        if isinstance(team, Mapping):
            committed.append((f"the team's {SETTINGS_FILE}", team))
        mine = self.settings.get("forge")
        if isinstance(mine, Mapping):
            committed.append((f"{self.kb / SETTINGS_FILE}", mine))
        return forge_settings(self.env, committed)

    def drain_settings(
        self,
        *,
        dry_run: bool | None = None,
        max_per_run: int | None = None,
        writer: str | None = None,
    ) -> DrainSettings:
        """The drain's settings with ``drain``'s flags (``--dry-run``, ``--max``, ``--writer``)."""
        given = _given(dry_run=dry_run, max_per_run=max_per_run, writer=writer or None)
        return self.load(DrainSettings, **given) if given else self.drain

    def recall_budget(self, flag: int | None = None) -> int:
        """``recall --budget N``, else ``REFLECT_RECALL_BUDGET``, else ``[recall] budget``, else 4000."""
        return flag if flag is not None else self.search.recall_budget

    # ------------------------------------------------------------------ paths and switches

    @property
    def home(self) -> Path:
        """``$HOME`` of this config's environment."""
        return home_of(self.env)

    @property
    def state_dir_explicit(self) -> bool:
        """The state directory was given (``REFLECT_STATE_DIR``), not derived from the KB."""
        return location.state_override(dict(self.env)) is not None

    def setting(self, section: str, key: str, default: Any = None) -> Any:
        """One raw value from ``.reflect-git.toml`` (``[section] key = ...``); prefer a settings class."""
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
        return self.general.internal

    @property
    def hook_sync(self) -> bool:
        """``REFLECT_GIT_HOOK_SYNC=1``: the hooks' background work runs in the foreground."""
        return self.general.hook_sync

    @property
    def disabled(self) -> bool:
        """``REFLECT_DISABLED=1``: drain, idle sweep and agent hooks do nothing."""
        return self.general.disabled


def _given(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


# ============================================================================ docs/settings.md

DOC_BEGIN = "<!-- settings:begin (generated by reflectgit.config.settings_markdown) -->"
DOC_END = "<!-- settings:end -->"


def _doc_default(f: Any, spec: Spec) -> str:
    if spec.default_doc is not None:
        return spec.default_doc
    value = f.default if f.default is not _UNSET else None
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    return f"`{value}`"


def settings_markdown() -> str:
    """The generated part of ``docs/settings.md``: one table per settings class."""
    out = [DOC_BEGIN]
    for cls in SETTINGS_CLASSES:
        title = getattr(cls, "TITLE", cls.__name__)
        doc = (cls.__doc__ or "").strip().splitlines()[0]
        lenient = (
            " Malformed values fall back to the default (logged)."
            if getattr(cls, "LENIENT", False)
            else ""
        )
        out += [
            "",
            f"### {title} (`{cls.__name__}`)",
            "",
            f"{doc}{lenient}",
            "",
            "| variable | `.reflect-git.toml` | flag | default | type | meaning |",
            "|---|---|---|---|---|---|",
        ]
        for f in fields(cls):
            spec = f.spec
            env = ", ".join(f"`{name}`" for name in spec.env) or "-"
            toml = f"`[{spec.section}] {spec.key}`" if spec.toml else "-"
            flag = f"`{spec.flag}`" if spec.flag else "-"
            kind = KINDS[spec.kind]
            if spec.minimum is not None:
                kind += f" >= {spec.minimum:g}"
            out.append(
                f"| {env} | {toml} | {flag} | {_doc_default(f, spec)} | {kind} | {spec.help} |"
            )
    out.append(DOC_END)
    return "\n".join(out) + "\n"
