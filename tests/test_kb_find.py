"""Which KB a command uses, as git finds a repository: ``--kb`` > ``REFLECT_GIT_KB`` > the KB the
current folder is in > the user's default KB (``config.toml``) > ``~/.learnings``. Real folders
and real git repositories; the negatives are the point (a code repository is not a KB)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflectgit.config import (
    Config,
    default_kb,
    kb_containing,
    resolve_kb,
    set_default_kb,
    user_config_path,
)
from reflectgit.errors import ConfigError
from tests.conftest import git


def make_kb(path: Path) -> Path:
    """A KB as `init` leaves it, for the finder's purpose: a repository with .reflect-git.toml."""
    git("init", "-q", "-b", "main", str(path), cwd=path.parent if path.parent.exists() else "/")
    (path / ".reflect-git.toml").write_text("# reflect-git\n")
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def env_of(home: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(home), **extra}


def test_the_order_flag_then_variable_then_folder_then_default_then_fallback(
    tmp_path: Path, home: Path
) -> None:
    inside = make_kb(tmp_path / "here-kb")
    (inside / "documents" / "deep").mkdir(parents=True)
    cwd = inside / "documents" / "deep"
    default = make_kb(tmp_path / "default-kb")
    set_default_kb(env_of(home), default)
    env = env_of(home, REFLECT_GIT_KB=str(tmp_path / "from-env"))

    flag = resolve_kb(tmp_path / "flag-kb", env, cwd)
    assert (flag.path, flag.source) == (tmp_path / "flag-kb", "flag")
    var = resolve_kb(None, env, cwd)
    assert (var.path, var.source, var.origin) == (tmp_path / "from-env", "env", "REFLECT_GIT_KB")
    here = resolve_kb(None, env_of(home), cwd)
    assert (here.path, here.source, here.origin) == (inside, "cwd", str(cwd))
    elsewhere = resolve_kb(None, env_of(home), tmp_path)
    assert (elsewhere.path, elsewhere.source) == (default, "default")
    assert elsewhere.origin == str(home / ".config" / "reflect-git" / "config.toml")
    set_default_kb(env_of(home), None)
    fallback = resolve_kb(None, env_of(home), tmp_path)
    assert (fallback.path, fallback.source) == (home / ".learnings", "fallback")


def test_reflect_git_kb_beats_the_kb_the_folder_is_in(tmp_path: Path, home: Path) -> None:
    inside = make_kb(tmp_path / "kb")
    other = tmp_path / "other"
    for name in ("REFLECT_GIT_KB", "GLOBAL_LEARNINGS_PATH"):
        found = resolve_kb(None, env_of(home, **{name: str(other)}), inside)
        assert (found.path, found.source, found.origin) == (other, "env", name)
    blank = resolve_kb(None, env_of(home, REFLECT_GIT_KB="  "), inside)
    assert (blank.path, blank.source) == (inside, "cwd")  # blank counts as unset


def test_a_plain_code_repository_is_not_a_kb(tmp_path: Path, home: Path) -> None:
    code = tmp_path / "app"
    git("init", "-q", "-b", "main", str(code), cwd=tmp_path)
    (code / "src").mkdir()
    assert kb_containing(code / "src") is None
    assert kb_containing(code) is None
    found = resolve_kb(None, env_of(home), code / "src")
    assert (found.path, found.source) == (home / ".learnings", "fallback")
    # A folder named like the settings file, or the file outside a repository, makes no KB.
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / ".reflect-git.toml").write_text("")
    assert kb_containing(loose) is None


def test_a_kb_inside_a_code_repository_is_found_from_inside_it_only(
    tmp_path: Path, home: Path
) -> None:
    code = tmp_path / "app"
    git("init", "-q", "-b", "main", str(code), cwd=tmp_path)
    kb = make_kb(code / "team-kb")
    (kb / "documents").mkdir()
    assert kb_containing(kb / "documents") == kb
    assert kb_containing(kb) == kb
    # From the code repository around it, the nearest repository is the code: not a KB, and
    # the walk stops there, as git's does.
    (code / "src").mkdir()
    assert kb_containing(code / "src") is None
    assert kb_containing(code) is None


def test_a_code_repository_inside_a_kb_hides_the_kb(tmp_path: Path) -> None:
    kb = make_kb(tmp_path / "kb")
    vendored = kb / "vendor" / "lib"
    vendored.mkdir(parents=True)
    git("init", "-q", "-b", "main", str(vendored), cwd=kb)
    assert kb_containing(vendored) is None
    assert kb_containing(kb / "vendor") == kb


def test_a_linked_worktree_of_a_kb_is_a_kb(tmp_path: Path) -> None:
    kb = make_kb(tmp_path / "kb")
    git("add", ".reflect-git.toml", cwd=kb)
    git("commit", "-qm", "init", cwd=kb)
    git("worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side", cwd=kb)
    assert (tmp_path / "wt" / ".git").is_file()
    assert kb_containing(tmp_path / "wt") == tmp_path / "wt"


def test_the_default_kb_lives_in_xdg_config_home(tmp_path: Path, home: Path) -> None:
    xdg = tmp_path / "xdg"
    env = env_of(home, XDG_CONFIG_HOME=str(xdg))
    assert user_config_path(env) == xdg / "reflect-git" / "config.toml"
    # A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
    assert user_config_path(env_of(home, XDG_CONFIG_HOME="rel")) == (
        home / ".config" / "reflect-git" / "config.toml"
    )
    assert default_kb(env) is None
    written = set_default_kb(env, tmp_path / "kb")
    assert written == xdg / "reflect-git" / "config.toml"
    assert default_kb(env) == tmp_path / "kb"
    assert default_kb(env_of(home)) is None  # not the other file


def test_setting_the_default_keeps_every_other_line(tmp_path: Path, home: Path) -> None:
    env = env_of(home)
    path = user_config_path(env)
    path.parent.mkdir(parents=True)
    original = '# mine\nother = 1\ndefault_kb = "/old"\n\n[future]\nkey = "v"\n'
    path.write_text(original)
    set_default_kb(env, tmp_path / 'we"ird\\kb')
    text = path.read_text()
    assert text.startswith("# mine\nother = 1\n")
    assert text.endswith('\n[future]\nkey = "v"\n')
    assert default_kb(env) == tmp_path / 'we"ird\\kb'
    again = path.read_text()
    set_default_kb(env, tmp_path / 'we"ird\\kb')
    assert path.read_text() == again  # idempotent: no blank line creeps in
    set_default_kb(env, None)
    assert default_kb(env) is None and "[future]" in path.read_text()


def test_a_broken_user_config_is_a_clear_error_and_is_never_rewritten(
    tmp_path: Path, home: Path
) -> None:
    env = env_of(home)
    path = user_config_path(env)
    path.parent.mkdir(parents=True)
    path.write_text("default_kb = [unclosed\n")
    with pytest.raises(ConfigError) as bad:
        resolve_kb(None, env, tmp_path)
    assert str(path) in bad.value.message and bad.value.hint
    with pytest.raises(ConfigError):
        set_default_kb(env, tmp_path / "kb")
    assert path.read_text() == "default_kb = [unclosed\n"
    path.write_text("default_kb = 3\n")
    with pytest.raises(ConfigError) as not_a_path:
        default_kb(env)
    assert "is not a path" in not_a_path.value.message


def test_config_resolve_looks_from_the_folder_it_is_given(tmp_path: Path, home: Path) -> None:
    kb = make_kb(tmp_path / "kb")
    cfg = Config.resolve(None, env_of(home), cwd=kb)
    assert cfg.kb == kb and cfg.kb_choice.source == "cwd"
    assert cfg.state_dir == kb / ".git" / "reflect-git"
    explicit = Config.resolve(tmp_path / "x", env_of(home), cwd=kb)
    assert explicit.kb == tmp_path / "x" and explicit.kb_choice.source == "flag"


# --------------------------------------------------------------------------- the CLI


def test_inside_the_kb_every_command_finds_it_without_kb(cli, tmp_path: Path, monkeypatch):
    """The issue: `reflect-git list` in the KB folder said "~/.learnings is not a git repository"."""
    kb = tmp_path / "team-kb"
    assert cli("init", str(kb)).code == 0
    (kb / "documents" / "sub").mkdir(exist_ok=True, parents=True)
    monkeypatch.chdir(kb / "documents" / "sub")
    monkeypatch.delenv("REFLECT_GIT_KB", raising=False)
    # No default KB either: the folder alone names it.
    assert cli("config", "default-kb", "--unset").code == 0
    added = cli("add", "--title", "Pin it", "--insight", "Pinned images", "--category", "ci",
                "--confidence", "high")  # fmt: skip
    assert added.code == 0, added.err
    listed = cli("list")
    assert listed.code == 0 and "Pin it" in listed.out, listed.err
    status = cli("--json", "status").json()
    assert status["kb"] == str(kb) and status["kb_source"] == "cwd"
    text = cli("status").out
    assert f"why:      the KB containing {kb / 'documents' / 'sub'}" in text


def test_status_says_which_kb_and_why(cli, tmp_path: Path, pinned_env: Path, monkeypatch):
    kb = tmp_path / "team-kb"
    assert cli("init", str(kb)).code == 0  # the first KB becomes the default
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = pinned_env / ".config" / "reflect-git" / "config.toml"
    assert f"why:      your default KB ({config})" in cli("status").out
    assert "why:      from --kb" in cli("--kb", str(kb), "status").out
    monkeypatch.setenv("REFLECT_GIT_KB", str(kb))
    assert "why:      from REFLECT_GIT_KB" in cli("status").out
    monkeypatch.delenv("REFLECT_GIT_KB")
    assert cli("config", "default-kb", "--unset").code == 0
    missing = cli("status")
    assert missing.code == 1
    assert f"no knowledge base at {pinned_env / '.learnings'} (the fallback ~/.learnings)" in (
        missing.err
    )
    assert "hint: run `reflect-git init PATH`" in missing.err


def test_init_sets_the_default_once_and_config_default_kb_shows_and_sets_it(
    cli, tmp_path: Path, pinned_env: Path
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    made = cli("init", str(first))
    assert made.code == 0 and f"default KB: {first}" in made.out
    again = cli("init", str(second))
    assert again.code == 0 and "default KB" not in again.out  # one was set: left alone
    shown = cli("--json", "config", "default-kb").json()
    assert shown == {
        "default_kb": str(first),
        "config": str(pinned_env / ".config" / "reflect-git" / "config.toml"),
        "action": "show",
        "exists": True,
    }
    changed = cli("config", "default-kb", str(second))
    assert changed.code == 0 and f"default KB set: {second}" in changed.out
    assert cli("--json", "config", "default-kb").json()["default_kb"] == str(second)
    nowhere = cli("config", "default-kb", str(tmp_path / "nothing"))
    assert nowhere.code == 0 and "no knowledge base at" in nowhere.err  # set, with a note
    both = cli("config", "default-kb", str(first), "--unset")
    assert both.code == 2
    assert json.loads(cli("--json", "config", "default-kb", "--unset").out)["action"] == "unset"
