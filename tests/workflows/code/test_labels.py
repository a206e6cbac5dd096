"""The stale label: recall, search, the MCP tools and the web UI say when the code a note
names moved on, only where a code repository is known; the verdicts are cached per HEAD."""

from __future__ import annotations

import json
import os
from pathlib import Path

from starlette.testclient import TestClient

from reflectgit.config import Config
from reflectgit.mcpserver.tools import Tools
from reflectgit.web.app import Settings, create_app
from reflectgit.web.security import COOKIE, Guard
from reflectgit.workflows.code.labels import CACHE
from tests.conftest import git, run_cli_proc
from tests.support.coderepo import POOL_PY, CodeRepo

LABEL = "stale: the code it names changed in 1 commit since (1 of 4 lines)"


def world(tmp_path: Path) -> tuple[CodeRepo, Path, str, str]:
    """A code repository, a KB with an anchored note that went stale and one that did not."""
    code = CodeRepo(tmp_path / "billing-api")
    code.write("src/pool.py", POOL_PY).write("src/retry.py", "def backoff(n):\n    return n\n")
    code.commit("first")
    kb = tmp_path / "kb"
    run_cli_proc("init", str(kb), "-q")
    ids = []
    for title, anchor in (("Prefill the pool", "src/pool.py:prefill"), ("Backoff", "src/retry.py")):
        args = ["--kb", str(kb), "--json", "add", "--title", title, "--insight",
                f"{title} insight about the pool", "--category", "perf", "--confidence",
                "high", "--anchor", anchor]  # fmt: skip
        ids.append(json.loads(run_cli_proc(*args, cwd=code.path).stdout)["id"])
    code.write("src/pool.py", POOL_PY.replace("return pool\n", "return pool.ready()\n"))
    code.commit("ready")
    return code, kb, ids[0], ids[1]


def test_search_labels_only_inside_the_code_repository(tmp_path: Path) -> None:
    code, kb, stale, fresh = world(tmp_path)
    inside = run_cli_proc("--kb", str(kb), "search", "pool", "--json", cwd=code.path)
    hits = {h["id"]: h for h in json.loads(inside.stdout)["hits"]}
    assert hits[stale]["stale"] == LABEL and hits[fresh]["stale"] is None
    text = run_cli_proc("--kb", str(kb), "search", "pool", cwd=code.path).stdout
    assert f"    ! {LABEL}" in text
    outside = run_cli_proc("--kb", str(kb), "search", "pool", "--json", cwd=tmp_path)
    assert all(h["stale"] is None for h in json.loads(outside.stdout)["hits"])


def test_recall_labels_the_stale_note_in_its_entry(tmp_path: Path) -> None:
    code, kb, stale, fresh = world(tmp_path)
    done = run_cli_proc("--kb", str(kb), "recall", "--json", cwd=code.path)
    notes = {n["id"]: n for n in json.loads(done.stdout)["notes"]}
    assert notes[stale]["stale"] == LABEL and notes[fresh]["stale"] is None
    assert (
        f"({stale})\n  Prefill the pool insight about the pool\n  ! {LABEL}"
        in (json.loads(done.stdout)["context"])
    )


def test_verdicts_are_cached_per_head_and_recomputed_when_it_moves(tmp_path: Path) -> None:
    code, kb, stale, _ = world(tmp_path)
    run_cli_proc("--kb", str(kb), "recall", cwd=code.path)
    cache_file = kb / ".git" / "reflect-git" / CACHE
    cache = json.loads(cache_file.read_text())
    [entry] = cache.values()
    assert entry["head"] == code.head()
    entry["notes"][stale][1] = "stale: cached verdict"  # the cache is what answers at this HEAD
    cache_file.write_text(json.dumps(cache))
    again = run_cli_proc("--kb", str(kb), "recall", "--json", cwd=code.path)
    assert "stale: cached verdict" in json.loads(again.stdout)["context"]
    code.write("README.md", "x\n").commit("unrelated")  # HEAD moved: judged again
    moved = run_cli_proc("--kb", str(kb), "recall", "--json", cwd=code.path)
    assert LABEL in json.loads(moved.stdout)["context"]


def test_mcp_search_labels_for_the_servers_project(tmp_path: Path) -> None:
    code, kb, stale, _ = world(tmp_path)
    cfg = Config.resolve(kb, dict(os.environ))
    reply = Tools(cfg, code.path).call("search", {"query": "pool"})
    hits = {h["id"]: h for h in reply.document["hits"]}
    assert hits[stale]["stale"] == LABEL
    plain = Tools(cfg, tmp_path).call("search", {"query": "pool"})
    assert all(h["stale"] is None for h in plain.document["hits"])


def test_the_web_ui_labels_the_note_and_its_row(tmp_path: Path) -> None:
    code, kb, stale, fresh = world(tmp_path)
    guard = Guard.for_server("tok", "127.0.0.1", 8484)
    cfg = Config.resolve(kb, dict(os.environ))
    client = TestClient(
        create_app(Settings(cfg, guard, code=code.path)), base_url="http://127.0.0.1:8484"
    )
    client.cookies.set(COOKIE, "tok")
    page = client.get(f"/notes/{stale}").text
    assert f'<span id="stale" class="tier low">{LABEL}</span>' in page
    assert 'id="stale"' not in client.get(f"/notes/{fresh}").text
    assert LABEL in client.get("/notes").text
    bare = TestClient(create_app(Settings(cfg, guard)), base_url="http://127.0.0.1:8484")
    bare.cookies.set(COOKIE, "tok")
    assert 'id="stale"' not in bare.get(f"/notes/{stale}").text


def test_a_note_flagged_stale_by_review_is_labelled_anywhere(tmp_path: Path) -> None:
    _code, kb, stale, _ = world(tmp_path)
    path = kb / "documents" / f"{stale}.md"
    text = path.read_text().replace(
        "anchors:", "stale:\n  reason: deleted\n  commits: [abc1234]\nanchors:", 1
    )
    path.write_text(text)
    git("commit", "-qam", "flagged", cwd=kb)
    done = run_cli_proc("--kb", str(kb), "search", "pool", "--json", cwd=tmp_path)
    hits = {h["id"]: h for h in json.loads(done.stdout)["hits"]}
    assert hits[stale]["stale"] == "stale: file deleted"


def test_the_index_knows_which_notes_name_code(tmp_path: Path) -> None:
    """Only a note with anchors (or a stale: flag) is read for a label: the index says which,
    so a search among notes that name no code asks git nothing more."""
    from reflectgit.workflows.search.index import open_fresh

    _code, kb, stale, fresh = world(tmp_path)
    plain = run_cli_proc(
        "--kb", str(kb), "--json", "add", "--title", "Pool sizes", "--insight",
        "Size the pool to the workers", "--category", "perf", "--confidence", "high",
    )  # fmt: skip
    plain_id = json.loads(plain.stdout)["id"]
    cfg = Config.resolve(kb=kb)
    index, _ = open_fresh(kb, cfg.state_dir, cfg.env, None)
    with index:
        paths = {h.id: h.path for h in index.search("pool", limit=10).hits}
        naming = index.naming_code(list(paths.values()))
    assert {paths[stale], paths[fresh]} <= naming
    assert paths[plain_id] not in naming  # negative: a note without anchors


def test_only_a_kb_with_anchored_notes_asks_the_code_repository(tmp_path: Path) -> None:
    from reflectgit.workflows.search.index import open_fresh

    _code, kb, _stale, _fresh = world(tmp_path)
    plain_kb = tmp_path / "plain"
    run_cli_proc("init", str(plain_kb), "-q")
    run_cli_proc(
        "--kb", str(plain_kb), "add", "--title", "Pool sizes", "--insight",
        "Size the pool to the workers", "--category", "perf", "--confidence", "high",
    )  # fmt: skip
    for where, expected in ((kb, True), (plain_kb, False)):
        cfg = Config.resolve(kb=where)
        index, _ = open_fresh(where, cfg.state_dir, cfg.env, None)
        with index:
            assert index.any_anchored() is expected
