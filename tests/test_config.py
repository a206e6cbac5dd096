"""Settings are parsed once, in config.py: the settings classes, their precedence, their errors,
the page that lists them, and a walk over the package that keeps the environment out of it."""

from __future__ import annotations

import ast
import json
import os
import re
from dataclasses import Field
from pathlib import Path
from typing import Any

import pytest

from reflectgit import config as config_module
from reflectgit.config import (
    DOC_BEGIN,
    DOC_END,
    SETTINGS_CLASSES,
    CaptureSettings,
    Config,
    DrainSettings,
    QuotaSettings,
    RoutingSettings,
    SearchSettings,
    TeamSettings,
    WriterSettings,
    fields,
    load,
    settings_markdown,
    spec_of,
)
from reflectgit.errors import ConfigError
from reflectgit.workflows.drain.loop import Settings, run_drain
from tests.conftest import REPO_ROOT, git, needs_shared, run_cli_proc
from tests.support.capture import (
    kb_fixture,  # noqa: F401  (the kb fixture)
    queue_entries,
    replay,
    state_dir,
    transcripts_fixture,  # noqa: F401  (the transcripts fixture)
)
from tests.support.drain import Clock, copy_transcript, enqueue, stub_command

PACKAGE = REPO_ROOT / "reflectgit"
SETTINGS_PAGE = REPO_ROOT / "docs" / "settings.md"


def _specs(cls: type) -> list[tuple[Field, Any]]:
    return [(f, spec_of(f)) for f in fields(cls) if spec_of(f) is not None]


def _every_field() -> list[tuple[type, Field, Any]]:
    return [(cls, f, spec) for cls in SETTINGS_CLASSES for f, spec in _specs(cls)]


def _ids(rows: list[tuple[type, Field, Any]]) -> list[str]:
    return [f"{cls.__name__}.{f.name}" for cls, f, _ in rows]


# A value of each kind as the environment spells it, and what it parses to.
ENV_SAMPLES: dict[str, tuple[str, Any]] = {
    "int": ("7", 7),
    "float": ("0.5", 0.5),
    "bool": ("off", False),
    "str": (" opus ", "opus"),
    "path": ("/srv/where", Path("/srv/where")),
    "words": ("my-model --fast 'a b'", ("my-model", "--fast", "a b")),
    "present": ("sk-anything", True),
}
TOML_SAMPLES: dict[str, tuple[Any, Any]] = {
    "int": (9, 9),
    "float": (0.25, 0.25),
    "bool": (False, False),
    "str": ("haiku", "haiku"),
}


def _flip(kind: str, value: Any, default: Any) -> Any:
    """A sample that differs from the default, so an override can be seen."""
    if kind == "bool" and value == default:
        return not value
    return value


# --------------------------------------------------------------------------- every field


@pytest.mark.parametrize("cls", SETTINGS_CLASSES, ids=lambda c: c.__name__)
def test_defaults_with_nothing_set(cls: type) -> None:
    assert load(cls, {}, {}) == cls()
    assert _specs(cls), "a settings class without settings"


@pytest.mark.parametrize(
    ("cls", "f", "spec"),
    [r for r in _every_field() if r[2].env],
    ids=_ids([r for r in _every_field() if r[2].env]),
)
def test_each_variable_overrides_the_default(cls: type, f: Any, spec: Any) -> None:
    text, parsed = ENV_SAMPLES[spec.kind]
    if spec.kind == "bool" and parsed == f.default:
        text, parsed = "yes", True
    got = getattr(load(cls, {spec.env[-1]: text}), f.name)
    assert got == parsed and got != getattr(cls(), f.name)


@pytest.mark.parametrize(
    ("cls", "f", "spec"),
    [r for r in _every_field() if r[2].toml],
    ids=_ids([r for r in _every_field() if r[2].toml]),
)
def test_each_toml_key_overrides_the_default_and_the_environment_wins(
    cls: type, f: Any, spec: Any
) -> None:
    raw, parsed = TOML_SAMPLES[spec.kind]
    raw = parsed = _flip(spec.kind, raw, f.default)
    toml = {spec.section: {spec.key: raw}}
    assert getattr(load(cls, {}, toml), f.name) == parsed != getattr(cls(), f.name)
    if spec.env:
        text, from_env = ENV_SAMPLES[spec.kind]
        if from_env == parsed:
            text, from_env = ("on", True) if spec.kind == "bool" else ("11", 11)
        assert getattr(load(cls, {spec.env[0]: text}, toml), f.name) == from_env


@pytest.mark.parametrize(
    ("cls", "f", "spec"),
    [r for r in _every_field() if r[2].kind in ("int", "float", "bool") and r[2].env],
    ids=_ids([r for r in _every_field() if r[2].kind in ("int", "float", "bool") and r[2].env]),
)
def test_malformed_variables_are_an_error_or_a_logged_fallback(
    cls: type, f: Any, spec: Any
) -> None:
    name = spec.env[0]
    env = {name: "abc"}
    if getattr(cls, "LENIENT", False):
        warnings: list[str] = []
        assert getattr(load(cls, env, warnings=warnings), f.name) == getattr(cls(), f.name)
        assert len(warnings) == 1 and f"{name}='abc'" in warnings[0]
        assert warnings[0].endswith("using the default")
        return
    with pytest.raises(ConfigError) as err:
        load(cls, env)
    assert err.value.message.startswith(f"{name}='abc' is not a")
    assert err.value.hint and name in err.value.hint and "unset it" in err.value.hint


@pytest.mark.parametrize(
    ("cls", "f", "spec"),
    [r for r in _every_field() if r[2].toml],
    ids=_ids([r for r in _every_field() if r[2].toml]),
)
def test_a_toml_value_of_the_wrong_type_names_the_key(cls: type, f: Any, spec: Any) -> None:
    wrong = [1, 2] if spec.kind == "str" else "abc"
    toml = {spec.section: {spec.key: wrong}}
    if getattr(cls, "LENIENT", False):
        warnings: list[str] = []
        assert getattr(load(cls, {}, toml, warnings=warnings), f.name) == getattr(cls(), f.name)
        assert f"[{spec.section}] {spec.key}" in warnings[0]
        return
    with pytest.raises(ConfigError) as err:
        load(cls, {}, toml)
    assert err.value.message.startswith(f"[{spec.section}] {spec.key} = {wrong!r} in ")
    assert err.value.hint and ".reflect-git.toml" in err.value.hint


@pytest.mark.parametrize(
    ("cls", "f", "spec"),
    [r for r in _every_field() if r[2].minimum is not None and r[2].env],
    ids=_ids([r for r in _every_field() if r[2].minimum is not None and r[2].env]),
)
def test_negative_counts_are_refused(cls: type, f: Any, spec: Any) -> None:
    env = {spec.env[0]: "-1"}
    if getattr(cls, "LENIENT", False):
        warnings: list[str] = []
        assert getattr(load(cls, env, warnings=warnings), f.name) == getattr(cls(), f.name)
        assert "must be 0 or more" in warnings[0]
        return
    with pytest.raises(ConfigError, match="must be 0 or more"):
        load(cls, env)


# --------------------------------------------------------------------------- by concern


def test_drain_settings_precedence_flag_env_toml_default() -> None:
    toml = {"drain": {"max_per_run": 4, "cascade": False, "route": True}}
    assert load(DrainSettings, {}).max_per_run == 3
    assert load(DrainSettings, {}, toml).max_per_run == 4
    assert load(DrainSettings, {"REFLECT_DRAIN_MAX": "5"}, toml).max_per_run == 5
    flagged = load(DrainSettings, {"REFLECT_DRAIN_MAX": "5"}, toml, flags={"max_per_run": 6})
    assert flagged.max_per_run == 6 and flagged.cascade is False and flagged.route is True
    # a flag wins without the malformed variable under it ever being parsed
    assert load(DrainSettings, {"REFLECT_DRAIN_MAX": "abc"}, flags={"max_per_run": 1}).max_per_run
    # blank counts as unset
    assert load(DrainSettings, {"REFLECT_DRAIN_MAX": "  "}, toml).max_per_run == 4


def test_drain_max_per_run_abc_is_a_clear_error() -> None:
    with pytest.raises(ConfigError) as err:
        load(DrainSettings, {"REFLECT_DRAIN_MAX": "abc"})
    assert err.value.message == "REFLECT_DRAIN_MAX='abc' is not a whole number"
    assert err.value.hint == "set REFLECT_DRAIN_MAX to a whole number of 0 or more, or unset it"


def test_drain_cwd_falls_back_to_home_and_booleans_are_strict() -> None:
    assert load(DrainSettings, {"HOME": "/home/me"}).cwd == "/home/me"
    assert load(DrainSettings, {"HOME": "/h", "REFLECT_DRAIN_CWD": "/w"}).cwd == "/w"
    for text, value in [("1", True), ("TRUE", True), ("on", True), ("0", False), ("no", False)]:
        assert load(DrainSettings, {"REFLECT_DRAIN_CASCADE": text}).cascade is value
    with pytest.raises(ConfigError, match="REFLECT_DRAIN_CASCADE='maybe' is not a boolean"):
        load(DrainSettings, {"REFLECT_DRAIN_CASCADE": "maybe"})


def test_writer_settings_and_the_model_command() -> None:
    from reflectgit.workflows.drain import writer as wr

    assert wr.command_for(WriterSettings())[:2] == ["claude", "-p"]
    bin_ = load(WriterSettings, {"REFLECT_DRAIN_CLAUDE_BIN": "/opt/claude"})
    assert wr.command_for(bin_)[0] == "/opt/claude"
    with pytest.raises(ConfigError, match=r"REFLECT_DRAIN_CMD=.*is not valid shell words"):
        load(WriterSettings, {"REFLECT_DRAIN_CMD": "model 'unclosed"})
    # the model command never comes from the committed file
    assert not [s for _, s in _specs(WriterSettings) if s.toml and s.kind == "words"]


def test_quota_settings_threshold_exemption_and_the_quota_module_share_one_class() -> None:
    from reflectgit.workflows.drain import quota

    assert quota.QuotaSettings is QuotaSettings and quota.DEFAULT_TTL == 3600
    got = load(QuotaSettings, {"REFLECT_QUOTA_UTIL_THRESHOLD": "0.8", "ANTHROPIC_API_KEY": "k"})
    assert got.ceiling_override == 0.8 and got.exempt is True
    with pytest.raises(ConfigError, match="is not a finite number"):
        load(QuotaSettings, {"REFLECT_QUOTA_UTIL_THRESHOLD": "nan"})


def test_capture_settings_fall_back_and_keep_the_reason(tmp_path: Path) -> None:
    cfg = Config.resolve(
        tmp_path / "kb",
        {
            "HOME": str(tmp_path),
            "REFLECT_IDLE_THRESHOLD_SEC": "soon",
            "REFLECT_IDLE_MAX_PER_SWEEP": "2",
            "REFLECT_SESSION_ID": "sess-1",
        },
    )
    assert cfg.capture.idle_threshold_sec == 600 and cfg.capture.idle_max_per_sweep == 2
    assert cfg.capture.idle_projects_root == tmp_path / ".claude" / "projects"
    assert cfg.capture.codex_home == tmp_path / ".codex"
    assert cfg.capture.session_id == "sess-1"
    assert cfg.warnings == [
        "REFLECT_IDLE_THRESHOLD_SEC='soon' is not a whole number: using the default"
    ]
    claude_first = load(CaptureSettings, {"CLAUDE_SESSION_ID": "c", "REFLECT_SESSION_ID": "r"})
    assert claude_first.session_id == "c"


def test_general_settings_paths_and_switches(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "GLOBAL_LEARNINGS_PATH": str(tmp_path / "old")}
    assert Config.resolve(None, env).kb == tmp_path / "old"
    env["REFLECT_GIT_KB"] = str(tmp_path / "new")
    cfg = Config.resolve(None, env)
    assert cfg.kb == tmp_path / "new" and not cfg.state_dir_explicit
    assert cfg.state_dir == tmp_path / "new" / ".git" / "reflect-git"
    assert Config.resolve(tmp_path / "flag", env).kb == tmp_path / "flag"
    assert Config.resolve(None, {"HOME": str(tmp_path)}).kb == tmp_path / ".learnings"
    moved = Config.resolve(None, {**env, "REFLECT_STATE_DIR": str(tmp_path / "st")})
    assert moved.state_dir == tmp_path / "st" and moved.state_dir_explicit
    assert Config.resolve(None, {**env, "REFLECT_DISABLED": "1"}).disabled
    odd = Config.resolve(None, {**env, "REFLECT_DISABLED": "please"})
    assert odd.disabled is False and "REFLECT_DISABLED='please'" in odd.warnings[0]


def test_team_and_routing_settings_come_from_the_committed_file(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / ".reflect-git.toml").write_text(
        '[team]\nremote = "git@host:team/kb.git"\nbranch = "trunk"\n[routing]\nmax_attempts = 2\n'
    )
    cfg = Config.resolve(kb, {"HOME": str(tmp_path)})
    assert cfg.team == TeamSettings(remote="git@host:team/kb.git", branch="trunk")
    assert cfg.routing == RoutingSettings(max_attempts=2)
    (kb / ".reflect-git.toml").write_text("[team]\nremote = 5\n")
    with pytest.raises(
        ConfigError, match=r"\[team\] remote = 5 in .reflect-git.toml is not a string"
    ):
        _ = Config.resolve(kb, {"HOME": str(tmp_path)}).team
    (kb / ".reflect-git.toml").write_text("[routing]\nmax_attempts = 0\n")
    with pytest.raises(ConfigError, match="must be 1 or more"):
        _ = Config.resolve(kb, {}).routing


def test_search_settings_and_the_cli_helper(tmp_path: Path) -> None:
    from reflectgit.workflows.recall import DEFAULT_BUDGET

    assert SearchSettings().recall_budget == DEFAULT_BUDGET
    cfg = Config.resolve(tmp_path, {"REFLECT_RECALL_BUDGET": "900"})
    assert cfg.recall_budget() == 900 and cfg.recall_budget(50) == 50
    with pytest.raises(ConfigError, match="REFLECT_RECALL_BUDGET='lots'"):
        Config.resolve(tmp_path, {"REFLECT_RECALL_BUDGET": "lots"}).recall_budget()


def test_a_malformed_drain_setting_does_not_stop_other_settings(tmp_path: Path) -> None:
    cfg = Config.resolve(tmp_path, {"REFLECT_DRAIN_MAX": "abc"})
    assert cfg.capture.auto_reflect and cfg.search.recall_budget == 4000
    with pytest.raises(ConfigError):
        _ = cfg.drain


def test_unknown_flags_are_a_programming_error() -> None:
    with pytest.raises(TypeError, match="no setting bogus"):
        load(DrainSettings, {}, flags={"bogus": 1})


# --------------------------------------------------------------------------- through the drain


def _drain_env(**extra: str) -> dict[str, str]:
    return {
        "HOME": os.environ["HOME"],
        "PATH": os.environ.get("PATH", ""),
        "REFLECT_DRAIN_DEBOUNCE_SEC": "0",
        **extra,
    }


@needs_shared
def test_the_drain_obeys_toml_then_environment_then_flag(tmp_path: Path, repo: Path) -> None:
    stub = stub_command(tmp_path, "emit({'actions': []})")
    (repo / ".reflect-git.toml").write_text("[drain]\nmax_per_run = 1\n")
    cfg = Config.resolve(repo, _drain_env(REFLECT_DRAIN_CMD=str(stub)))
    for n in range(4):
        enqueue(cfg, copy_transcript(tmp_path, f"claude/correction-{n}.jsonl"))
    assert len(run_drain(cfg, clock=Clock()).rows) == 1, "[drain] max_per_run"
    env_cfg = Config.resolve(repo, _drain_env(REFLECT_DRAIN_CMD=str(stub), REFLECT_DRAIN_MAX="2"))
    assert len(run_drain(env_cfg, clock=Clock()).rows) == 2, "REFLECT_DRAIN_MAX beats the file"
    assert len(run_drain(env_cfg, clock=Clock(), max_entries=0).rows) == 0, "--max beats both"
    settings = Settings.from_config(env_cfg)
    assert settings.writer == "extract" and settings.command == (str(stub),)


@needs_shared
def test_drain_with_a_malformed_variable_fails_clearly_and_writes_nothing(
    tmp_path: Path, repo: Path
) -> None:
    git("commit", "-q", "--allow-empty", "-m", "init", cwd=repo)
    cfg = Config.resolve(repo, _drain_env())
    enqueue(cfg, copy_transcript(tmp_path, "claude/correction-0.jsonl"))
    before = sorted(p.name for p in cfg.state_dir.rglob("*"))
    proc = run_cli_proc(
        "--kb", str(repo), "drain", "--writer", "heuristic", env={"REFLECT_DRAIN_MAX": "abc"}
    )
    assert proc.returncode == 1, proc
    assert proc.stderr.splitlines() == [
        "error: REFLECT_DRAIN_MAX='abc' is not a whole number",
        "hint: set REFLECT_DRAIN_MAX to a whole number of 0 or more, or unset it",
    ]
    assert sorted(p.name for p in cfg.state_dir.rglob("*")) == before
    assert git("rev-list", "--count", "HEAD", cwd=repo).strip() == "1"
    flagged = run_cli_proc(
        "--kb", str(repo), "--json", "drain", "--dry-run", "--max", "0", "--writer", "heuristic",
        env={"REFLECT_DRAIN_MAX": "abc", "REFLECT_DRAIN_DEBOUNCE_SEC": "0"},
    )  # fmt: skip
    assert flagged.returncode == 0, flagged.stderr
    assert json.loads(flagged.stdout)["rows"] == []


# --------------------------------------------------------------------------- through a hook


@needs_shared
def test_a_hook_with_a_malformed_variable_still_exits_0_and_logs_the_fallback(
    kb: Path, transcripts: Path
) -> None:
    replay("compact.json", transcripts, env={"REFLECT_AUTO_REFLECT": "maybe"})
    assert [e["trigger"] for e in queue_entries(kb)] == ["auto"], "the default (on) was used"
    log = (state_dir(kb) / "logs" / "hooks.log").read_text()
    assert "config - fallback REFLECT_AUTO_REFLECT='maybe' is not a boolean" in log


# --------------------------------------------------------------------------- the settings page


def test_the_settings_page_is_generated_from_the_settings_classes() -> None:
    page = SETTINGS_PAGE.read_text(encoding="utf-8")
    start, end = page.index(DOC_BEGIN), page.index(DOC_END) + len(DOC_END) + 1
    assert page[start:end] == settings_markdown(), (
        "docs/settings.md is out of date: paste the output of "
        "`python -c 'from reflectgit.config import settings_markdown as m; print(m(), end=\"\")'`"
    )


@pytest.mark.parametrize(("cls", "f", "spec"), _every_field(), ids=_ids(_every_field()))
def test_the_settings_page_lists_every_field(cls: type, f: Any, spec: Any) -> None:
    rows = [line for line in SETTINGS_PAGE.read_text().splitlines() if line.startswith("| ")]
    names = [f"`{n}`" for n in spec.env] + ([f"`[{spec.section}] {spec.key}`"] if spec.toml else [])
    assert names and any(all(n in row for n in names) and spec.help in row for row in rows)


def test_the_readme_links_the_settings_page() -> None:
    assert "](docs/settings.md)" in (REPO_ROOT / "README.md").read_text()


# --------------------------------------------------------------------------- one reader


ENV_READS = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


def env_readers(source: str) -> list[str]:
    """What in a module reads the environment itself: ``os.environ`` and friends, and
    ``REFLECT_*`` variable names as string literals (the keys of an environment lookup; the
    head of an f-string such as ``f"REFLECT_LIVE_{kind}"`` is such a literal too)."""
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Attribute) and node.attr in ENV_READS:
            if isinstance(node.value, ast.Name) and node.value.id in {"os", "posix", "nt"}:
                found.append(f"{where}: os.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module in {"os", "posix"}:
            found += [
                f"{where}: from os import {a.name}" for a in node.names if a.name in ENV_READS
            ]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = node.value
            if _is_variable_name(name):
                found.append(f"{where}: {name!r}")
    return found


def _is_variable_name(text: str) -> bool:
    return text.startswith("REFLECT_") and all(c.isupper() or c.isdigit() or c == "_" for c in text)


def test_the_checker_sees_each_way_of_reading_the_environment() -> None:
    bad = (
        "import os\nfrom os import getenv\n"
        "a = os.environ.get('HOME')\nb = os.getenv('X')\nc = env.get('REFLECT_DRAIN_MAX')\n"
        "d = env[f'REFLECT_LIVE_{kind}']\n"
    )
    assert len(env_readers(bad)) == 5
    fine = (
        "msg = 'REFLECT_DISABLED=1: nothing to do'\n"
        "doc = '''set REFLECT_GIT_KB in the shim'''\nREFLECT_ON_REFLECT = 'reflect-on-reflect'\n"
        "env = dict(cfg.env)\nenv[INTERNAL_ENV] = '1'\n"
    )
    assert env_readers(fine) == []


def test_only_config_reads_the_environment() -> None:
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO_ROOT).as_posix()
        if rel in ("reflectgit/config.py", "reflectgit/location.py"):  # location: config's
            continue  # part every hook reads first (the KB named, the state dir, the switches)
        found = env_readers(path.read_text(encoding="utf-8"))
        if found:
            offenders[rel] = found
    assert offenders == {}, "read settings through reflectgit.config, not the environment"
    assert env_readers(Path(config_module.__file__).read_text()), "config.py is the one reader"


# Named in the package but not settings of ours: a Python constant (the gate's reason), the
# variable of the CI job that ``init --ci`` writes and the secret of the jobs ``code-ci`` writes.
NOT_SETTINGS = {"REFLECT_ON_REFLECT", "REFLECT_GIT_PIP", "REFLECT_KB_URL"}


def test_every_variable_the_package_names_is_declared() -> None:
    """A variable mentioned anywhere in reflectgit/ (code, shims, help) is a declared setting,
    so docs/settings.md lists it."""
    declared = {n for _, _, spec in _every_field() for n in spec.env}
    named: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        named |= set(
            re.findall(r"(?<![A-Za-z0-9_])REFLECT_[A-Z0-9_]*[A-Z0-9]\b(?!_)", path.read_text())
        )
    assert len(named) > 30, sorted(named)
    assert named - NOT_SETTINGS - declared == set()
    assert {config_module.INTERNAL_ENV, config_module.DRAIN_MODEL_ENV} <= declared


def test_settings_are_frozen_values_as_dataclasses_were() -> None:
    """The settings classes are plain classes (no ``dataclasses`` at start-up), with what
    ``@dataclass(frozen=True)`` gave them."""
    a, b = TeamSettings(remote="r", branch="trunk"), TeamSettings("r", "trunk")
    assert a == b and hash(a) == hash(b) and a != TeamSettings(remote="r")
    assert repr(a) == "TeamSettings(remote='r', branch='trunk', path=None)"
    assert [f.name for f in fields(TeamSettings)] == ["remote", "branch", "path"]
    assert TeamSettings.branch == "main"  # a default stays readable on the class
    with pytest.raises(AttributeError):
        a.branch = "other"  # type: ignore[misc]
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        TeamSettings(colour="red")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="multiple values"):
        TeamSettings("r", remote="s")
    # a default_factory runs per instance
    assert CaptureSettings().idle_projects_root == CaptureSettings().idle_projects_root
    cfg = Config(kb=Path("/k"), state_dir=Path("/s"), env={"A": "1"})
    assert cfg == Config(Path("/k"), Path("/s"), {"A": "1"}, warnings=["differs"])
    assert cfg != Config(kb=Path("/k"), state_dir=Path("/other"))
    with pytest.raises(AttributeError):
        cfg.kb = Path("/x")  # type: ignore[misc]
    assert cfg.team == TeamSettings()  # cached properties still work on the frozen config


# --------------------------------------------------------------------------- paths


@pytest.mark.parametrize(
    ("env", "kb", "state"),
    [
        ({}, "{home}/.learnings", "{home}/.learnings/.git/reflect-git"),
        ({"REFLECT_GIT_KB": "~/kb/"}, "{user}/kb", "{user}/kb/.git/reflect-git"),
        ({"REFLECT_GIT_KB": "  rel/./kb  "}, "{cwd}/rel/kb", "{cwd}/rel/kb/.git/reflect-git"),
        ({"GLOBAL_LEARNINGS_PATH": "//net/kb"}, "//net/kb", "//net/kb/.git/reflect-git"),
        ({"REFLECT_GIT_KB": "  ", "GLOBAL_LEARNINGS_PATH": "/x/kb"}, "/x/kb", None),
        ({"REFLECT_STATE_DIR": "~/st/./x/"}, "{home}/.learnings", "{user}/st/x"),
        ({"REFLECT_STATE_DIR": "  rel//state  "}, "{home}/.learnings", "{cwd}/rel/state"),
        ({"REFLECT_STATE_DIR": "/"}, "{home}/.learnings", "/"),
    ],
)
def test_the_kb_and_state_dir_are_resolved_as_absolute_paths(
    tmp_path: Path, env: dict, kb: str, state: str | None
) -> None:
    env = {"HOME": str(tmp_path), **env}
    # The default KB is under the given $HOME; a `~` the process expands, as the shell would.
    where = {"home": tmp_path, "user": Path("~").expanduser(), "cwd": Path.cwd()}
    found = config_module.resolve_kb(None, env, None).path
    assert found == Path(kb.format(**where))
    if state is not None:
        assert config_module.resolve_state_dir(found, env) == Path(state.format(**where))
    explicit = config_module.resolve_kb("~/given//kb/", env, None).path
    assert explicit == where["user"] / "given" / "kb"


def test_a_state_dir_under_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    for inside in ("a-file", "a-file/deeper/state/"):
        env = {"HOME": str(tmp_path), "REFLECT_STATE_DIR": str(tmp_path / inside)}
        with pytest.raises(ConfigError) as refused:
            config_module.resolve_state_dir(tmp_path, env)
        assert f"{tmp_path / 'a-file'} is a file" in str(refused.value)
    fine = {"HOME": str(tmp_path), "REFLECT_STATE_DIR": str(tmp_path / "new" / "state")}
    assert config_module.resolve_state_dir(tmp_path, fine) == tmp_path / "new" / "state"


def test_a_resolved_config_gives_paths(tmp_path: Path) -> None:
    (tmp_path / "kb").mkdir()
    git("init", "-q", cwd=tmp_path / "kb")
    worktree = tmp_path / "wt"
    (worktree).mkdir()
    (worktree / ".git").write_text(f"gitdir: {tmp_path / 'kb' / '.git'}\n")  # a .git file
    for kb in (tmp_path / "kb", worktree):
        cfg = Config.resolve(kb, {"HOME": str(tmp_path)})
        assert isinstance(cfg.kb, Path) and isinstance(cfg.state_dir, Path)
        assert cfg.state_dir == config_module.resolve_state_dir(kb, {"HOME": str(tmp_path)})
        assert cfg.home == tmp_path
    assert Config.resolve(worktree, {}).state_dir == tmp_path / "kb" / ".git" / "reflect-git"


@pytest.mark.parametrize(
    ("env", "disabled", "internal", "explicit"),
    [
        ({}, False, False, False),
        ({"REFLECT_DISABLED": "yes", "REFLECT_STATE_DIR": "/tmp/s"}, True, False, True),
        ({"REFLECT_GIT_INTERNAL": "1", "REFLECT_STATE_DIR": "  "}, False, True, False),
        ({"REFLECT_DISABLED": "maybe"}, False, False, False),  # malformed: the default, logged
    ],
)
def test_the_hook_switches_read_as_general_settings_do(
    tmp_path: Path, env: dict, disabled: bool, internal: bool, explicit: bool
) -> None:
    cfg = Config.resolve(tmp_path, env)
    assert (cfg.disabled, cfg.internal, cfg.state_dir_explicit) == (disabled, internal, explicit)
    general = cfg.general
    assert (general.disabled, general.internal) == (disabled, internal)
    assert (general.state_dir is not None) == explicit
    malformed = "REFLECT_DISABLED" in env and env["REFLECT_DISABLED"] == "maybe"
    assert len(cfg.warnings) == (1 if malformed else 0)  # kept once, not once a reading
