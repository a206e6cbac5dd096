"""The command line's conventions (CLI.md): one JSON document under --json, also for failures;
global options before or after the subcommand; shell completion; state and export paths that
are wrong are the user's to fix (exit 1 with a hint), never a crash; a shared state directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reflectgit.cli import main
from reflectgit.config import Config
from tests.conftest import needs_shared

# (arguments after `--kb KB`, exit code). {tmp} is the test's folder; every one must fail.
ERROR_CASES = [
    ("show nope", 1),
    ("show {id} --at nope-rev", 1),
    ("add {tmp}/missing.md", 1),
    ("add {tmp}/bad.md", 1),
    ("update nope --set title=x", 1),
    ("confirm nope --source s", 1),
    ("archive nope", 1),
    ("restore nope", 1),
    ("forget nope", 1),
    ("forget --sweep --now bogus", 2),
    ("supersede {id} --by nope", 1),
    ("list --bogus", 2),
    ("log --limit=abc", 2),
    ("search pool --limit 0", 2),
    ("search pool --confidence bogus", 2),
    ("search pool --as-of notadate", 2),
    ("recall --format bogus", 2),
    ("export {tmp}/missing/x.tar", 1),
    ("export {tmp}", 1),
    ("import {tmp}/missing", 1),
    ("queue retry nope", 1),
    ("queue purge nope", 1),
    ("queue add {tmp}/missing.jsonl", 1),
    ("cost --since bogus", 2),
    ("cost --by bogus", 2),
    ("drain --writer bogus", 2),
    ("hooks install --agent vim", 2),
    ("hooks install --agent claude --scope team", 2),
    ("validate {tmp}/missing.md", 2),
    ("check --base nope", 1),
    ("route nope --dry-run", 1),
    ("team status", 1),
    ("init {tmp}/a-file", 1),
    ("no-such-command", 2),
]


@pytest.fixture
def kb(tmp_path: Path, cli, pinned_env) -> Path:
    kb = tmp_path / "kb"
    assert cli("init", str(kb)).code == 0
    out = cli(
        "--kb", str(kb), "--json", "add", "--title", "Prefill connection pools at startup",
        "--insight", "cold pools time out", "--category", "performance", "--confidence", "high",
    )  # fmt: skip
    assert out.code == 0, out.err
    (tmp_path / "bad.md").write_text("---\ntitle: [unclosed\n")
    (tmp_path / "a-file").write_text("not a folder\n")
    return kb


def note_id(kb: Path) -> str:
    (doc,) = (kb / "documents").glob("*.md")
    return doc.stem


def expand(case: str, kb: Path) -> list[str]:
    return case.format(tmp=kb.parent, id=note_id(kb)).split()


def assert_one_error_document(out, code: int) -> dict:
    assert out.code == code, (out.code, out.err)
    doc = json.loads(out.out)  # exactly one JSON document: json.loads refuses trailing text
    assert set(doc) == {"error", "hint", "exit_code"}
    assert doc["exit_code"] == code and isinstance(doc["error"], str) and doc["error"]
    assert doc["hint"] is None or isinstance(doc["hint"], str)
    assert out.err.startswith(f"error: {doc['error'].splitlines()[0]}")  # the text stays on stderr
    return doc


@pytest.mark.parametrize(("case", "code"), ERROR_CASES, ids=[c for c, _ in ERROR_CASES])
@pytest.mark.parametrize("where", ["before", "after"])
def test_a_failure_under_json_prints_one_error_document(cli, kb, case, code, where):
    args = expand(case, kb)
    full = (
        ["--json", "--kb", str(kb), *args]
        if where == "before"
        else ["--kb", str(kb), *args, "--json"]
    )
    assert_one_error_document(cli(*full), code)


def test_a_command_whose_document_reports_the_failure_prints_only_that_one(capsys):
    # `route` prints its result (with `error`) and then fails: still one document on stdout.
    from reflectgit.cli import render

    render.begin()
    render.write_json({"route": "main", "pushed": False, "error": "push refused"})
    render.failure("push refused", "route again", 1, True)
    out = capsys.readouterr()
    assert json.loads(out.out) == {"route": "main", "pushed": False, "error": "push refused"}
    assert out.err == "error: push refused\nhint: route again\n"
    render.begin()  # the next command starts afresh: its failure gets the error document
    render.failure("push refused", "route again", 1, True)
    assert json.loads(capsys.readouterr().out)["exit_code"] == 1


def test_without_json_a_failure_prints_nothing_on_stdout(cli, kb):
    out = cli("--kb", str(kb), "show", "nope")
    assert out.code == 1 and out.out == "" and out.err.startswith("error: no note")
    assert "hint: " in out.err


def test_a_success_under_json_is_not_an_error_document(cli, kb):
    out = cli("--kb", str(kb), "list", "--json")
    assert out.code == 0 and isinstance(out.json(), list) and out.json()[0]["id"] == note_id(kb)


def test_an_internal_error_under_json_is_one_document_too(cli, kb, monkeypatch):
    from reflectgit.workflows.kb import KnowledgeBase

    def boom(self, *a, **k):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(KnowledgeBase, "list_notes", boom)
    doc = assert_one_error_document(cli("--kb", str(kb), "list", "--json"), 3)
    assert "simulated bug" in doc["error"]


# --------------------------------------------------------------------------- global options


def test_global_options_work_after_the_subcommand(cli, kb, tmp_path):
    before = cli("--json", "--kb", str(kb), "list")
    after = cli("list", "--json", "--kb", str(kb))
    assert after.code == 0, after.err
    assert after.out == before.out
    assert cli("list", f"--kb={kb}", "--json").out == before.out
    assert cli("list", "--kb", str(kb), "-q").out == ""
    assert cli("status", "--kb", str(kb), "--json").json()["kb"] == str(kb)
    # A group's subcommand, and a command's own --json (queue, drain, cost) is the global one.
    assert cli("queue", "list", "--kb", str(kb), "--json").json()["pending"] == []


def test_an_option_value_is_never_taken_for_a_global_option(cli, kb):
    out = cli(
        "--kb", str(kb), "add", "--title", "--json", "--insight", "a title that looks like a flag",
        "--category", "cli", "--confidence", "low",
    )  # fmt: skip
    assert out.code == 0, out.err
    assert not out.out.lstrip().startswith("{")  # no --json: the text line, not a document
    shown = cli("--kb", str(kb), "--json", "list").json()
    assert "--json" in [n["title"] for n in shown]


def test_a_missing_value_after_the_subcommand_is_a_usage_error(cli, kb):
    out = cli("list", "--json", "--kb")
    assert_one_error_document(out, 2)


def test_global_options_after_the_word_leave_the_command_its_own(kb, capsys):
    assert main(["--kb", str(kb), "reindex"]) == 0  # both searches below find a fresh index
    capsys.readouterr()
    assert main(["search", "pool", "--json", "--kb", str(kb), "--limit", "3"]) == 0
    after = capsys.readouterr().out
    assert json.loads(after)["hits"][0]["id"] == note_id(kb)
    assert main(["--json", "--kb", str(kb), "search", "pool", "--limit", "3"]) == 0
    assert capsys.readouterr().out == after
    # A search option's value stays the option's: a tag named --json, no JSON document.
    assert main(["--kb", str(kb), "search", "pool", "--tag", "--json"]) == 0
    assert not capsys.readouterr().out.lstrip().startswith("{")


def test_the_hook_command_takes_kb_after_the_event(kb):
    proc = subprocess.run(
        [sys.executable, "-m", "reflectgit", "hook", "Stop", "--harness", "codex", "--kb", str(kb)],
        input="not json",
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "REFLECT_GIT_KB"},
        timeout=60,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    log = Config.resolve(str(kb)).state_dir / "logs" / "hooks.log"
    assert "payload is not a JSON object" in log.read_text()  # the hook ran on this KB


def test_double_dash_ends_the_options(cli, kb):
    out = cli("--kb", str(kb), "list", "--", "--json")  # an argument, which list takes none of
    assert out.code == 2 and out.out == "" and "--json" in out.err
    assert cli("--kb", str(kb), "list", "-q", "--json").json()[0]["id"] == note_id(kb)


# --------------------------------------------------------------------------- completion


def run_real(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "reflectgit", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
    )


def test_shell_completion_script_and_answers(pinned_env):
    # As a user types it in bash (typer detects the shell it runs under). `; exit $?` keeps
    # bash as the parent: a lone command is exec'd in bash's place, and the shell detection
    # then sees whatever ran bash (make's sh, pytest), which it may not support.
    proc = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m reflectgit --show-completion; exit $?"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "_REFLECT_GIT_COMPLETE" in proc.stdout and "complete " in proc.stdout
    env = {
        "_REFLECT_GIT_COMPLETE": "complete_bash",
        "COMP_WORDS": "reflect-git hoo",
        "COMP_CWORD": "1",
    }
    proc = run_real(env=env)
    assert proc.returncode == 0 and proc.stdout.split() == ["hook", "hooks"]
    env = {**env, "COMP_WORDS": "reflect-git hooks install --ag", "COMP_CWORD": "3"}
    assert run_real(env=env).stdout.split() == ["--agent"]
    assert "--install-completion" in run_real("--help").stdout


# --------------------------------------------------------------------------- paths and state


def test_two_kbs_sharing_a_state_directory_keep_their_own_index(cli, kb, tmp_path, monkeypatch):
    other = tmp_path / "other"
    assert cli("init", str(other)).code == 0
    out = cli(
        "--kb", str(other), "add", "--title", "Pin the pool size per worker",
        "--insight", "pool per worker", "--category", "performance", "--confidence", "medium",
    )  # fmt: skip
    assert out.code == 0, out.err
    monkeypatch.setenv("REFLECT_STATE_DIR", str(tmp_path / "shared-state"))
    for _ in range(2):  # each search after the other KB's: no stale tree, no crash
        first = cli("--json", "--kb", str(kb), "search", "pool")
        assert first.code == 0, first.err
        assert [h["id"] for h in first.json()["hits"]] == [note_id(kb)]
        second = cli("--json", "--kb", str(other), "search", "pool")
        assert second.code == 0, second.err
        assert [h["id"] for h in second.json()["hits"]] == [note_id(other)]
    indexes = sorted((tmp_path / "shared-state" / "indexes").iterdir())
    assert len(indexes) == 2 and all((p / "search.sqlite3").is_file() for p in indexes)
    assert cli("--kb", str(other), "status", "--json").json()["index"] == "fresh"


def test_the_default_state_directory_keeps_its_index_where_it_was(cli, kb):
    assert cli("--kb", str(kb), "reindex").code == 0
    assert (kb / ".git" / "reflect-git" / "search.sqlite3").is_file()
    assert not (kb / ".git" / "reflect-git" / "indexes").exists()


@pytest.mark.parametrize("command", ["search pool", "reindex", "queue list", "drain", "recall"])
def test_a_state_dir_that_is_a_file_is_exit_1_with_a_hint(cli, kb, tmp_path, monkeypatch, command):
    blocker = tmp_path / "state-file"
    blocker.write_text("x")
    for value in (blocker, blocker / "below"):
        monkeypatch.setenv("REFLECT_STATE_DIR", str(value))
        doc = assert_one_error_document(cli("--json", "--kb", str(kb), *command.split()), 1)
        assert "REFLECT_STATE_DIR" in doc["error"] and doc["hint"]
    assert blocker.read_text() == "x"


def test_a_state_dir_that_does_not_exist_yet_is_fine(cli, kb, tmp_path, monkeypatch):
    monkeypatch.setenv("REFLECT_STATE_DIR", str(tmp_path / "new" / "state"))
    assert cli("--kb", str(kb), "search", "pool").code == 0


def test_export_to_a_missing_folder_writes_nothing(cli, kb, tmp_path):
    out = cli("--kb", str(kb), "export", str(tmp_path / "missing" / "kb.tar.gz"))
    assert out.code == 1 and "does not exist" in out.err and "hint: create it first" in out.err
    assert not (tmp_path / "missing").exists()
    ok = cli("--kb", str(kb), "export", str(tmp_path / "kb.tar.gz"))
    assert ok.code == 0 and (tmp_path / "kb.tar.gz").is_file()


# --------------------------------------------------------------------------- drain progress


def queued_kb(cli, kb: Path, tmp_path: Path, count: int) -> None:
    from tests.conftest import DATA

    for i in range(count):
        path = tmp_path / f"session-{i}.jsonl"
        path.write_bytes((DATA / "transcripts" / "claude" / f"correction-{i}.jsonl").read_bytes())
        assert cli("--kb", str(kb), "queue", "add", str(path)).code == 0


def drain_env(kb: Path) -> dict[str, str]:
    return {
        **os.environ,
        "REFLECT_GIT_KB": str(kb),
        "REFLECT_DRAIN_WRITER": "heuristic",
        "REFLECT_DRAIN_DEBOUNCE_SEC": "0",
    }


@needs_shared
def test_drain_draws_a_progress_bar_on_a_terminal(cli, kb, tmp_path):
    import pty

    queued_kb(cli, kb, tmp_path, 2)
    # A real terminal: the child's stdin, stdout and stderr are the pty's slave end.
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execve(sys.executable, [sys.executable, "-m", "reflectgit", "drain"], drain_env(kb))
    chunks = []
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    _, status = os.waitpid(pid, 0)
    screen = b"".join(chunks).decode("utf-8", "replace")
    assert os.WEXITSTATUS(status) == 0, screen
    assert "\rdraining [" in screen and "] 2/2" in screen
    assert "drain: ran" in screen


@needs_shared
def test_drain_draws_no_bar_when_piped(cli, kb, tmp_path):
    queued_kb(cli, kb, tmp_path, 2)
    proc = subprocess.run(
        [sys.executable, "-m", "reflectgit", "drain"],
        capture_output=True,
        text=True,
        env=drain_env(kb),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "draining [" not in proc.stderr and "\r" not in proc.stderr + proc.stdout
    assert proc.stdout.startswith("drain: ran")


def test_every_registered_word_builds_its_own_command_and_only_that() -> None:
    """A word imports its module and builds the command of that name alone: a command
    declared without its word as its name would be found by no word."""
    from reflectgit.cli.app import COMMANDS, root_command

    root = root_command()
    for word in COMMANDS:
        command = root.get_command(None, word)
        assert command is not None and command.name == word, word
