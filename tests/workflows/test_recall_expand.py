"""`[recall] expand`: recall asks the drain's model for related terms, as `search --expand` does
(a stub executable here): only when enabled, only in the text format (never for a hook), cached,
bounded, and never required."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflectgit.state.expansions import CACHE_NAME
from tests.conftest import git
from tests.support.drain import calls, prompt_of, stub_command
from tests.support.search import committed_notes, note_text


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    pouch = "The marsupial pouch holds one joey."
    return committed_notes(
        tmp_path,
        {
            "pouch": note_text("pouch", "Marsupial pouch sizes", pouch, confidence="low"),
            "quokka": note_text("quokka", "Quokka images", "Pin them."),
            "wombat": note_text("wombat", "Wombat burrows", "Dig deep."),
        },
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A code repository named ``kangaroo-tracker``: no word of it is in any note."""
    root = tmp_path / "kangaroo-tracker"
    git("init", "-q", "-b", "main", str(root), cwd=tmp_path)
    (root / "hop.py").write_text("print('hop')\n")
    git("add", "-A", cwd=root)
    git("commit", "-qm", "start", cwd=root)
    return root


def recall_json(cli, kb: Path, *args: str) -> dict:
    res = cli("--kb", str(kb), "--json", "recall", "--limit", "3", *args)
    assert res.code == 0, res
    return res.json()


def test_recall_expands_only_when_enabled_and_the_cache_answers_after(
    kb: Path, project: Path, tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = stub_command(tmp_path, 'emit(\'["marsupial", "joey"]\')')
    monkeypatch.setenv("REFLECT_DRAIN_CMD", str(stub))
    monkeypatch.chdir(project)
    plain = recall_json(cli, kb)
    assert "expansion" not in plain and calls(stub) == 0  # off by default: no model asked
    assert plain["notes"][0]["id"] != "pouch"  # the low note has no word of the project
    monkeypatch.setenv("REFLECT_RECALL_EXPAND", "1")
    doc = recall_json(cli, kb)
    assert doc["expansion"] == {"terms": ["marsupial", "joey"], "cached": False, "error": None}
    assert doc["notes"][0]["id"] == "pouch"
    assert any(r.startswith("text match") for r in doc["notes"][0]["reasons"])
    assert calls(stub) == 1 and "kangaroo" in prompt_of(stub)
    again = cli("--kb", str(kb), "recall", "--limit", "3")
    assert again.code == 0, again
    assert again.out.splitlines()[0] == "(expanded, cached: marsupial, joey)"
    assert "(pouch)" in again.out.splitlines()[2]  # the first note, after the header
    assert calls(stub) == 1
    cache = json.loads((kb / ".git" / "reflect-git" / CACHE_NAME).read_text())
    assert list(cache.values()) == [["marsupial", "joey"]]


def test_a_hook_format_never_expands(
    kb: Path, project: Path, tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = stub_command(tmp_path, "emit('[\"marsupial\"]')")
    monkeypatch.setenv("REFLECT_DRAIN_CMD", str(stub))
    monkeypatch.setenv("REFLECT_RECALL_EXPAND", "1")
    monkeypatch.chdir(project)
    for fmt in ("claude", "codex", "copilot"):
        res = cli("--kb", str(kb), "recall", "--format", fmt)
        assert res.code == 0, res
        assert "expanded" not in res.out
    assert calls(stub) == 0
    assert not (kb / ".git" / "reflect-git" / CACHE_NAME).exists()


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("import time; time.sleep(30)", "no answer within 1 s"),
        ("sys.exit(3)", "failed (exit 3)"),
    ],
)
def test_a_failing_model_leaves_recall_as_it_was(
    kb: Path,
    project: Path,
    tmp_path: Path,
    cli,
    monkeypatch: pytest.MonkeyPatch,
    body: str,
    error: str,
) -> None:
    monkeypatch.chdir(project)
    plain = [n["id"] for n in recall_json(cli, kb)["notes"]]
    stub = stub_command(tmp_path, body)
    monkeypatch.setenv("REFLECT_DRAIN_CMD", str(stub))
    monkeypatch.setenv("REFLECT_RECALL_EXPAND", "1")
    monkeypatch.setenv("REFLECT_SEARCH_EXPAND_TIMEOUT", "1")
    doc = recall_json(cli, kb)
    assert [n["id"] for n in doc["notes"]] == plain
    assert doc["expansion"]["terms"] == [] and error in doc["expansion"]["error"]
    assert not (kb / ".git" / "reflect-git" / CACHE_NAME).exists()  # a failure is not cached


def test_without_a_model_command_recall_still_answers(
    kb: Path, project: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REFLECT_DRAIN_CMD", raising=False)
    monkeypatch.setenv("REFLECT_DRAIN_CLAUDE_BIN", "no-such-model-binary")
    monkeypatch.setenv("REFLECT_RECALL_EXPAND", "1")
    monkeypatch.chdir(project)
    res = cli("--kb", str(kb), "recall")
    assert res.code == 0, res
    first = res.out.splitlines()[0]
    assert first.startswith("(not expanded: ") and "model command" in first
    assert "reflect-git: " in res.out  # the notes follow
