"""The command registry (``app.GROUPS``) and the fast paths against the real typer commands.

- the root help page printed from the registry is, byte for byte, the page typer prints;
- the registry names every command typer has, with typer's summary, and nothing more;
- every command and every option parses the same way through the fast path (``peek``,
  ``search_args``, ``command_args`` for add and recall, the hook's ``parse_args``) as through
  typer (``hoist_globals`` and click);
- the fast add and recall print, write and fail exactly as the typer commands do.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reflectgit.cli import usage
from reflectgit.cli.app import GROUPS, PROG, ROOT_HELP, hoist_globals, root_command, run, summaries
from reflectgit.cli.fastpath import command_args, peek, search_args, try_fast, validate_args
from reflectgit.cli.options import FAST_COMMANDS
from reflectgit.hooks.agent import parse_args as hook_args

ROOT: Any = root_command(None)
GLOBAL_FIELDS = {"kb": "kb", "json_out": "json", "quiet": "quiet"}


def _leaves(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    subs = getattr(command, "commands", None)
    if isinstance(subs, dict) and subs:
        for name, sub in subs.items():
            yield from _leaves(sub, (*path, name))
    elif path:
        yield path, command


LEAVES = list(_leaves(ROOT))


# --------------------------------------------------------------------------- the help page


@pytest.mark.parametrize("columns", ["", "40", "60", "80", "132"])
@pytest.mark.parametrize("args", [[], ["--help"], ["-h"], ["--version"]], ids=repr)
def test_the_registry_page_is_the_page_typer_prints(args, columns, monkeypatch, capsys):
    if columns:
        monkeypatch.setenv("COLUMNS", columns)
    else:
        monkeypatch.delenv("COLUMNS", raising=False)
    assert try_fast(args) == 0
    fast = capsys.readouterr()
    assert run(list(args)) == 0  # the typer CLI, every command module mounted
    full = capsys.readouterr()
    assert fast.out == full.out
    assert fast.err == full.err == ""
    assert "Commands:" in fast.out or args == ["--version"]


def test_the_registry_names_every_command_with_typers_summary():
    listed = summaries()
    assert set(listed) == set(ROOT.commands), "GROUPS and the command modules disagree"
    for word, command in ROOT.commands.items():
        first = " ".join((command.help or "").partition("\n\n")[0].split())
        assert listed[word] == (command.short_help or first), word


def test_every_registry_line_names_its_own_module():
    for module, words in GROUPS.items():
        mounted = root_command(next(iter(words)))
        assert set(words) == set(mounted.commands), module


def test_a_command_without_a_summary_leaves_the_page_to_typer(capsys):
    assert usage.page(PROG, ROOT_HELP, {"add": "Add a note.", "serve": ""}) is None
    page = usage.page(PROG, ROOT_HELP, {"add": "Add a note.", "serve": "Serve it."})
    assert page is not None and "  serve  Serve it." in page


def _imported_by(code: str, tmp_path: Path) -> list[str]:
    probe = (
        "import contextlib, io, json, sys\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    {code}\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    modules: list[str] = json.loads(out.stdout)
    return modules


def test_the_help_page_imports_no_typer_and_no_command_module(tmp_path):
    modules = _imported_by("from reflectgit.cli import main; main(['--help'])", tmp_path)
    assert not [
        m for m in modules if m.split(".")[0] in {"typer", "click", "rich", "dulwich", "yaml"}
    ]
    cli = {m for m in modules if m.startswith("reflectgit.cli.")}
    assert cli == {
        "reflectgit.cli.app",
        "reflectgit.cli.fastpath",
        "reflectgit.cli.options",
        "reflectgit.cli.render",
        "reflectgit.cli.usage",
    }
    # ... while a command's own help mounts that command's module (the negative case)
    modules = _imported_by("from reflectgit.cli import main; main(['add', '--help'])", tmp_path)
    assert "reflectgit.cli.kb" in modules and "typer" in modules


# --------------------------------------------------------------------------- parsing


def _value(param: Any) -> list[str]:
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return []
    kind = type(param.type).__name__  # typer may parse with its own copy of click
    if kind == "Choice":
        one = str(param.type.choices[0])
    elif kind in ("IntParamType", "IntRange"):
        one = "3"
    elif kind in ("FloatParamType", "FloatRange"):
        one = "0.5"
    elif kind == "BoolParamType":
        one = "true"
    else:
        one = "v1"
    return [one] * max(1, param.nargs if param.nargs > 0 else 1)


def _arguments(command: Any) -> list[str]:
    args: list[str] = []
    for param in command.params:  # every argument, optional ones too (hook's payload)
        if param.param_type_name == "argument":
            args += _value(param)
    return args


def _cases() -> Iterator[tuple[str, list[str]]]:
    for path, command in LEAVES:
        required = _arguments(command)
        base = [*path, *required]
        yield " ".join(path), base
        yield " ".join(path) + " globals", ["--kb", "K", *base, "-q", "--json"]
        for param in command.params:
            if param.param_type_name != "option" or param.hidden:
                continue
            for flag in param.opts + param.secondary_opts:
                value = _value(param)
                name = f"{' '.join(path)} {flag}"
                yield name, [*base, flag, *value]
                yield name + " globals", ["--json", *base, flag, *value, "--kb", "K2"]
                if value and type(param.type).__name__ == "StringParamType":
                    # a value that looks like a global option is still the option's value
                    yield name + " --json-as-value", [*base, flag, "--json"]


CASES = list(_cases())


def _rest(ctx: Any) -> list[str]:
    """What a group's context left for its subcommand (click keeps the word apart)."""
    return [*getattr(ctx, "_protected_args", []), *ctx.args]


def _typer_parse(args: list[str]) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
    """(root params, command path, the command's params) as the typer CLI parses ``args``."""
    hoisted = hoist_globals(args, ROOT)
    ctx = ROOT.make_context(PROG, list(hoisted), resilient_parsing=True)
    root_params = {GLOBAL_FIELDS[k]: v for k, v in ctx.params.items() if k in GLOBAL_FIELDS}
    command, rest, path = ROOT, _rest(ctx), []
    while isinstance(getattr(command, "commands", None), dict) and rest:
        name = rest[0]
        command = command.commands[name]
        path.append(name)
        sub = command.make_context(name, rest[1:], parent=ctx, resilient_parsing=True)
        rest, ctx = _rest(sub), sub
    return root_params, path, dict(ctx.params)


@pytest.mark.parametrize(("name", "args"), CASES, ids=[c[0] for c in CASES])
def test_every_command_and_option_parses_the_same_both_ways(name, args):
    root_params, path, params = _typer_parse(args)
    seen = peek(args)
    assert seen is not None and seen.word == path[0]
    # the global options: the peek of what hoist_globals hands typer reads what typer reads
    front = peek(hoist_globals(args, ROOT))
    assert front is not None
    assert {"kb": front.options.kb, "json": front.options.json, "quiet": front.options.quiet} == (
        root_params
    )
    fast_words = ("search", "hook", "capture", "validate", *FAST_COMMANDS)
    if seen.word in fast_words:  # the peek reads them itself, before and after the word
        mine = {"kb": seen.options.kb, "json": seen.options.json, "quiet": seen.options.quiet}
        assert mine == root_params
    if path == ["search"]:
        fast = search_args(seen.rest)
        # --at and --expand are left to the full CLI (the fast path answers None for them)
        full_only = ("--at", "--expand")
        if not any(flag in args for flag in full_only):
            assert fast is not None, args
            typer_view = {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}
            assert fast == {k: typer_view[k] for k in fast}
    elif path == ["validate"]:
        fast = validate_args(seen.rest)
        assert fast is not None, args
        assert fast == {**params, "paths": list(params["paths"] or [])}
    elif len(path) == 1 and path[0] in FAST_COMMANDS:
        fast = command_args(seen.rest, FAST_COMMANDS[path[0]])
        assert fast is not None, args
        assert fast == {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}
    elif path == ["hook"]:
        typer_call = [params["event"]]
        typer_call += ["--harness", params["harness"]] if params["harness"] else []
        typer_call += [params["payload"]] if params["payload"] else []
        assert hook_args(seen.rest) == hook_args(typer_call)
    elif path == ["capture", "commit"]:
        assert seen.rest[1:3] == [params["sha"], params["branch"]][: len(seen.rest) - 1]


def test_the_cases_cover_every_command_and_the_fast_paths():
    names = {" ".join(path) for path, _ in LEAVES}
    assert {"add", "search", "hook", "capture commit", "hooks install"} <= names
    assert len(names) >= 30
    covered = {name.split(" --")[0].removesuffix(" globals") for name, _ in CASES}
    assert covered >= names


def test_a_value_that_looks_like_a_global_option_stays_a_value():
    """The peek reads no global options after a word whose options it does not know."""
    args = ["add", "--title", "--json"]
    seen = peek(args)
    assert seen is not None and seen.options.json is False and seen.rest == ["--title", "--json"]
    _, path, params = _typer_parse(args)
    assert path == ["add"] and params["title"] == "--json"
    # ... while after `search` it knows which options take a value
    seen = peek(["search", "x", "--tag", "t", "--json"])
    assert seen is not None and seen.options.json is True and seen.rest == ["x", "--tag", "t"]


# --------------------------------------------------------------------------- the fast validate


def _valid_and_invalid() -> tuple[Path, Path]:
    from tests.conftest import DATA

    valid = sorted((DATA / "notes" / "valid").glob("*.md"))[0]
    invalid = sorted((DATA / "notes" / "invalid").glob("*.md"))[0]
    return valid, invalid


@pytest.mark.parametrize(
    "extra",
    [[], ["--format", "json"], ["--format", "github"], ["--format", "junit"], ["--strict"],
     ["--json"], ["-q"], ["--format", "nope"], ["--format=json"]],
    ids=repr,
)  # fmt: skip
@pytest.mark.parametrize("which", ["valid", "invalid", "both", "missing"])
def test_the_fast_validate_prints_what_typer_prints(which, extra, tmp_path, capsys):
    valid, invalid = _valid_and_invalid()
    paths = {
        "valid": [str(valid)],
        "invalid": [str(invalid)],
        "both": [str(valid), str(invalid)],
        "missing": [str(tmp_path / "nowhere.md")],
    }[which]
    args = ["validate", *paths, *extra]
    fast_code = try_fast(args)
    fast = capsys.readouterr()
    typer_code = run(args)
    full = capsys.readouterr()
    if fast_code is None:  # stepped aside: it printed nothing, typer explains
        assert fast.out == fast.err == ""
        assert extra in (["--format", "nope"], ["--format=json"]) or which == "missing"
        return
    assert (fast_code, fast.out, fast.err) == (typer_code, full.out, full.err)
    assert fast_code == (0 if which == "valid" else 1)


# --------------------------------------------------------------------------- the fast add, recall


def test_the_fast_tables_name_exactly_typers_options():
    for word, spec in FAST_COMMANDS.items():
        command = ROOT.commands[word]
        typer_options = {
            flag: (param.name, "flag" if param.is_flag else "multiple" if param.multiple else
                   "int" if type(param.type).__name__ == "IntParamType" else "value")
            for param in command.params if param.param_type_name == "option"
            for flag in param.opts
        }  # fmt: skip
        assert spec.options == typer_options, word
        arguments = [p.name for p in command.params if p.param_type_name == "argument"]
        assert arguments == ([spec.argument] if spec.argument else []), word
        assert spec.defaults == {
            p.name: list(p.default) if isinstance(p.default, (list, tuple)) else p.default
            for p in command.params
        }, word


@pytest.mark.parametrize(
    "rest",
    [["--limit=3"], ["--limit", "x"], ["--limit", "-1"], ["extra"], ["--", "x"], ["--nope"],
     ["--limit"], ["-n", "²"]],
    ids=repr,
)  # fmt: skip
def test_the_fast_parse_steps_aside_where_typer_must_explain(rest):
    """Each of these is a usage error (or a form the fast path does not read) for typer."""
    assert command_args(rest, FAST_COMMANDS["recall"]) is None
    assert try_fast(["recall", *rest]) is None
    assert command_args(["a.md", "b.md"], FAST_COMMANDS["add"]) is None
    assert command_args(["a.md", "--tag", "x", "--tag", "y"], FAST_COMMANDS["add"]) == {
        **FAST_COMMANDS["add"].defaults, "file": "a.md", "tag": ["x", "y"],
    }  # fmt: skip
    assert FAST_COMMANDS["add"].defaults["tag"] == []  # the default list is never shared


def _kb(tmp_path: Path, name: str) -> Path:
    from reflectgit.workflows.kb.layout import InitOptions, init

    kb = tmp_path / name
    init(kb, InitOptions(pre_commit=False), env={})
    return kb


def _git(kb: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=kb, capture_output=True, text=True, check=True)
    return out.stdout


def _normal(text: str) -> str:
    """Without what the clock decides (the created time, the id's hash, commit shas)."""
    text = re.sub(r"created: .*", "created: T", text)
    return re.sub(r"\b[0-9a-f]{40}\b|\b[0-9a-f]{12}\b|-[0-9a-f]{6}\b", "X", text)


NOTE = "---\nid: pool-warm-up\ntitle: Pool warm-up\ncreated: 2026-03-04\nconfidence: high\n"
NOTE += "key_insight: Prefill it.\ncategory: debugging\n---\nPrefill the pool.\n"


@pytest.mark.parametrize(
    "extra",
    [["--title", "Pool warm-up", "--insight", "Prefill it.", "--confidence", "high"],
     ["--title", "Pool warm-up", "--insight", "Prefill it.", "--confidence", "high", "--json"],
     ["--title", "Pool warm-up", "--insight", "Prefill it.", "--confidence", "high", "-q",
      "--tag", "pool", "--tag", "db", "--category", "debugging"],
     ["note.md"], ["note.md", "--json", "--tag", "x"], ["note.md", "--entities", "none.yaml"],
     ["--title", "Pool", "--insight", "x", "--confidence", "sure"],
     ["--title", "Pool", "--insight", "x", "--confidence", "sure", "--json"],
     ["--insight", "no title"], ["--insight", "no title", "--json"], ["missing.md"]],
    ids=repr,
)  # fmt: skip
def test_the_fast_add_writes_and_prints_what_typer_does(extra, tmp_path, capsys, monkeypatch):
    """Two identical KBs, one add through each path: the same exit code, output and note
    (but for what the clock decides), both KBs clean."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "note.md").write_text(NOTE, encoding="utf-8")
    fast_kb, typer_kb = _kb(tmp_path, "fast"), _kb(tmp_path, "typer")
    fast_code = try_fast(["--kb", str(fast_kb), "add", *extra])
    fast = capsys.readouterr()
    typer_code = run(["--kb", str(typer_kb), "add", *extra])
    full = capsys.readouterr()
    assert fast_code is not None, "the fast path took the add"
    assert fast_code == typer_code
    assert _normal(fast.out) == _normal(full.out)
    assert _normal(fast.err) == _normal(full.err)
    assert _git(fast_kb, "status", "--porcelain") == _git(typer_kb, "status", "--porcelain") == ""
    written = [_git(kb, "show", "--format=", "--name-only", "HEAD") for kb in (fast_kb, typer_kb)]
    assert _normal(written[0]) == _normal(written[1])
    if fast_code == 0:
        path = written[0].strip()
        assert path.startswith("documents/") and "pool" in path
        notes = [_normal(_git(kb, "show", f"HEAD:{p.strip()}")) for kb, p in
                 zip((fast_kb, typer_kb), written, strict=True)]  # fmt: skip
        assert notes[0] == notes[1]
    failing = "sure" in extra or "missing.md" in extra or "none.yaml" in extra
    assert fast_code == (2 if extra[0] == "--insight" else 1 if failing else 0)


@pytest.mark.parametrize(
    "extra",
    [[], ["--format", "claude"], ["--format", "codex", "--json"], ["--format", "nope"],
     ["-n", "1", "--global", "--project", "p"], ["--format", "claude", "-q"]],
    ids=repr,
)  # fmt: skip
def test_the_fast_recall_prints_what_typer_prints(extra, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "note.md").write_text(NOTE, encoding="utf-8")
    kb = _kb(tmp_path, "kb")
    assert run(["--kb", str(kb), "-q", "add", "note.md"]) == 0
    capsys.readouterr()
    args = ["--kb", str(kb), "recall", *extra]
    fast_code = try_fast(args)
    fast = capsys.readouterr()
    typer_code = run(args)
    full = capsys.readouterr()
    assert fast_code is not None
    assert (fast_code, fast.out, fast.err) == (typer_code, full.out, full.err)
    assert fast_code == (2 if "nope" in extra else 0)
    assert ("pool-warm-up" in fast.out) == ("nope" not in extra)
