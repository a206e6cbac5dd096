"""`search --expand`: the drain's model asked once per query (a stub executable here), cached in
the state directory, bounded by a timeout, never required and never on a hook path."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from reflectgit.state.expansions import CACHE_NAME
from reflectgit.workflows.search.expand import MAX_TERMS, parse_terms
from tests.conftest import REPO_ROOT
from tests.support.drain import calls, prompt_of, stub_command
from tests.support.search import committed_notes, note_text

ROOT = REPO_ROOT / "reflectgit"


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    retries = "The marsupial service retries."
    return committed_notes(
        tmp_path,
        {
            "marsupial": note_text("marsupial", "Marsupial retries", retries),
            "other": note_text("other", "Quokka images", "Pin the images."),
        },
    )


def search_json(cli, kb: Path, *args: str) -> dict:
    res = cli("--kb", str(kb), "--json", "search", *args)
    assert res.code == 0, res
    return res.json()


def test_expand_asks_the_model_once_and_the_cache_answers_after(
    kb: Path, tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = stub_command(tmp_path, 'emit(\'Here: ["Marsupial", "pouch", "marsupial"]\')')
    monkeypatch.setenv("REFLECT_DRAIN_CMD", str(stub))
    plain = search_json(cli, kb, "kangaroo", "retries")
    assert [h["id"] for h in plain["hits"]] == ["marsupial"]  # "retries" alone
    assert "expansion" not in plain and calls(stub) == 0  # a plain search never asks
    assert search_json(cli, kb, "kangaroo")["hits"] == []
    doc = search_json(cli, kb, "kangaroo", "--expand")
    assert doc["expansion"] == {"terms": ["marsupial", "pouch"], "cached": False, "error": None}
    assert [h["id"] for h in doc["hits"]] == ["marsupial"]
    assert calls(stub) == 1 and "Query: kangaroo" in prompt_of(stub)
    again = cli("--kb", str(kb), "search", "Kangaroo ", "--expand")
    assert again.code == 0, again
    assert again.out.splitlines()[0] == "(expanded, cached: marsupial, pouch)"
    assert "marsupial" in again.out
    assert calls(stub) == 1  # the cache answered; case and spacing do not matter
    cache = json.loads((kb / ".git" / "reflect-git" / CACHE_NAME).read_text())
    assert list(cache.values()) == [["marsupial", "pouch"]]


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("import time; time.sleep(30)", "no answer within 1 s"),
        ("emit('I would suggest looking at pouches.')", "no JSON array"),
        ("sys.exit(3)", "failed (exit 3)"),
    ],
)
def test_a_failing_model_leaves_the_search_as_it_was(
    kb: Path, tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch, body: str, error: str
) -> None:
    stub = stub_command(tmp_path, body)
    monkeypatch.setenv("REFLECT_DRAIN_CMD", str(stub))
    monkeypatch.setenv("REFLECT_SEARCH_EXPAND_TIMEOUT", "1")
    doc = search_json(cli, kb, "quokka", "--expand")
    assert [h["id"] for h in doc["hits"]] == ["other"]
    assert doc["expansion"]["terms"] == [] and error in doc["expansion"]["error"]
    assert not (kb / ".git" / "reflect-git" / CACHE_NAME).exists()  # a failure is not cached
    search_json(cli, kb, "quokka", "--expand")
    assert calls(stub) == 2


def test_expand_without_a_model_command_is_a_clear_error(
    kb: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REFLECT_DRAIN_CMD", raising=False)
    monkeypatch.setenv("REFLECT_DRAIN_CLAUDE_BIN", "no-such-model-binary")
    res = cli("--kb", str(kb), "search", "quokka", "--expand")
    assert res.code == 1
    assert "needs the drain's model command" in res.err and "hint:" in res.err
    assert not (kb / ".git" / "reflect-git" / CACHE_NAME).exists()
    plain = cli("--kb", str(kb), "search", "quokka")  # never required
    assert plain.code == 0 and plain.out.startswith("other")


def test_parse_terms_takes_the_first_array_of_strings() -> None:
    assert parse_terms('```json\n["WAL", " write-ahead   log ", 3, "wal"]\n```') == [
        "wal",
        "write-ahead log",
    ]
    assert parse_terms('see [1] and then ["x"]') == []  # the first array decides
    assert parse_terms("no array here") == []
    assert parse_terms("[" + ", ".join(f'"t{i}"' for i in range(40)) + "]") == [
        f"t{i}" for i in range(MAX_TERMS)
    ]
    assert parse_terms('["' + "x" * 200 + '", "ok"]') == ["ok"]


def test_no_hook_and_no_plain_search_path_imports_the_expansion() -> None:
    paths = [*sorted((ROOT / "hooks").glob("*.py"))]
    paths += [ROOT / "workflows" / "recall.py", ROOT / "workflows" / "search" / "index.py"]
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
            a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
        }
        assert not any("expand" in name for name in names), path
