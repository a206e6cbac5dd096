"""The index's storage: a contentless full-text table (the text is in git), old words taken
out exactly on an incremental refresh, a rebuild when an old blob is gone, snippets from the
work tree, and a parallel build identical to a serial one. Real KBs, real git."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import reflectgit.workflows.search.build as build_mod
from reflectgit.git.change import delete, write
from reflectgit.git.store import Store
from reflectgit.workflows.search.index import Index, reindex, search
from tests.conftest import git
from tests.support.search import committed_kb, committed_notes, note_text


def vocabulary(path: Path) -> list[tuple[str, int, int]]:
    """(term, documents, occurrences) of the full-text table, as FTS5 itself counts them."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, fts, row)")
        return sorted(conn.execute("SELECT term, doc, cnt FROM temp.v"))
    finally:
        conn.close()


def doc_tags(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        sql = "SELECT t.tag, d.id FROM doc_tags t JOIN docs d ON d.rowid = t.doc ORDER BY 1, 2"
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def table_names(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    return committed_kb(
        tmp_path,
        {
            "documents/a.md": note_text(
                "a", "Pool warmup", "The quokka pool leaks.", tags="[Redis, pool]"
            ),
            "documents/b.md": note_text("b", "Cache stampede", "Wombat caches."),
            "documents/b.entities.yaml": b"document_id: b\nentities:\n- name: numbat\n  type: tool\n",
        },
    )


def test_the_text_is_not_copied_into_the_index(kb: Path) -> None:
    state = kb / ".git" / "reflect-git"
    reindex(kb, state)
    assert "fts_content" not in table_names(state / "search.sqlite3")
    assert search(kb, state, "quokka").hits[0].id == "a"


def test_an_edit_takes_the_old_words_out_exactly(kb: Path) -> None:
    state = kb / ".git" / "reflect-git"
    reindex(kb, state)
    with Store.open(kb) as store:
        store.commit(
            [
                write(
                    "documents/a.md",
                    note_text("a", "Pool warmup", "The platypus pool leaks.", tags="[pool, Kafka]"),
                ),
                write(
                    "documents/b.entities.yaml",
                    b"document_id: b\nentities:\n- name: echidna\n  type: tool\n",
                ),
            ],
            "edit",
        )
    result = reindex(kb, state)
    assert result.changed == 2 and not result.rebuilt
    assert search(kb, state, "quokka").hits == []
    assert search(kb, state, "numbat").hits == []
    assert [h.id for h in search(kb, state, "platypus").hits] == ["a"]
    assert [h.id for h in search(kb, state, "echidna").hits] == ["b"]
    incremental = vocabulary(state / "search.sqlite3")
    assert not any(term.startswith(("quokka", "numbat")) for term, _, _ in incremental)
    assert search(kb, state, "pool", tag="redis").hits == []
    assert [h.id for h in search(kb, state, "pool", tag="kafka").hits] == ["a"]
    tags = doc_tags(state / "search.sqlite3")
    reindex(kb, state, force=True)
    assert vocabulary(state / "search.sqlite3") == incremental  # same as built from scratch
    assert doc_tags(state / "search.sqlite3") == tags == [("kafka", "a"), ("pool", "a")]


def test_a_deleted_note_leaves_no_words_behind(kb: Path) -> None:
    state = kb / ".git" / "reflect-git"
    reindex(kb, state)
    with Store.open(kb) as store:
        store.commit([delete("documents/b.md")], "delete")
    reindex(kb, state)
    assert search(kb, state, "wombat").hits == []
    assert not any(t.startswith("wombat") for t, _, _ in vocabulary(state / "search.sqlite3"))


def test_an_old_blob_gone_from_git_rebuilds_instead(kb: Path) -> None:
    state = kb / ".git" / "reflect-git"
    reindex(kb, state)
    old_blob = git("rev-parse", "HEAD:documents/a.md", cwd=kb).strip()
    with Store.open(kb) as store:
        store.commit(
            [write("documents/a.md", note_text("a", "Pool warmup", "The platypus pool."))],
            "edit",
        )
    # As if history were rewritten and gc'd: the blob the index was built from is gone.
    git("checkout", "-q", "--orphan", "fresh", cwd=kb)
    git("-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "re", cwd=kb)
    git("branch", "-D", "main", cwd=kb)
    git("branch", "-m", "main", cwd=kb)
    git("reflog", "expire", "--expire=now", "--all", cwd=kb)
    git("gc", "-q", "--prune=now", cwd=kb)
    assert git("cat-file", "-t", old_blob, cwd=kb, check=False).strip() != "blob"
    result = reindex(kb, state)
    assert result.rebuilt
    assert [h.id for h in search(kb, state, "platypus").hits] == ["a"]
    assert search(kb, state, "quokka").hits == []


def test_snippets_come_from_the_work_tree_when_it_holds_the_indexed_note(tmp_path: Path) -> None:
    body = "Intro.\n\nThe bilby burrow explains the stampede."
    kb = committed_notes(tmp_path, {"c": note_text("c", "Cache", body, key_insight="Warm first.")})
    state = kb / ".git" / "reflect-git"
    hit = search(kb, state, "bilby").hits[0]
    assert "[bilby]" in hit.snippet and "stampede" in hit.snippet
    # An uncommitted edit: the file is no longer the indexed blob, so the summary stands in.
    (kb / "documents" / "c.md").write_text("---\nid: c\n---\nSomething else.\n")
    fallback = search(kb, state, "bilby").hits[0]
    assert fallback.id == "c" and fallback.snippet == "Warm first."


def test_a_parallel_build_is_the_serial_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = tmp_path / "kb"
    count = build_mod.PARALLEL_BUILD_MIN + 50
    with Store.init(kb) as store:
        store.commit(
            [
                write(f"documents/n{i:05d}.md", note_text(f"n{i:05d}", f"Note {i} w{i % 97}"))
                for i in range(count)
            ],
            "many",
        )
        parallel = Index.open(tmp_path / "parallel.sqlite3")
        with parallel:
            seen: list[tuple[int, int]] = []
            parallel.refresh(store, progress=lambda d, t: seen.append((d, t)))
            assert seen[-1] == (count, count)
        monkeypatch.setattr(build_mod, "PARALLEL_BUILD_MIN", 10**9)
        with Index.open(tmp_path / "serial.sqlite3") as serial:
            serial.refresh(store)
    assert vocabulary(tmp_path / "parallel.sqlite3") == vocabulary(tmp_path / "serial.sqlite3")
    rows = []
    for name in ("parallel", "serial"):
        conn = sqlite3.connect(tmp_path / f"{name}.sqlite3")
        rows.append(conn.execute("SELECT rowid, path, id, title, summary FROM docs").fetchall())
        conn.close()
    assert rows[0] == rows[1] and len(rows[0]) == count


def test_a_build_reads_the_committed_notes_not_the_work_tree_edits(tmp_path: Path) -> None:
    """A build takes a note from the work tree only when the file there is the committed blob:
    an uncommitted edit, a deleted file or a directory in its place is read from git instead,
    so the index is the one a build without any work-tree file makes."""
    kb = tmp_path / "kb"
    count = 80  # enough for the blobs the work tree cannot give to be read in one batch
    with Store.init(kb) as store:
        store.commit(
            [
                write(f"documents/n{i:03d}.md", note_text(f"n{i:03d}", f"Note {i} wombat{i}"))
                for i in range(count)
            ]
            + [write("documents/n001.entities.yaml", b"entities:\n- name: numbat\n")],
            "many",
        )
        docs = kb / "documents"
        (docs / "n000.md").write_text(note_text("n000", "Edited platypus").decode())
        (docs / "n001.entities.yaml").write_text("entities:\n- name: echidna\n")
        (docs / "n002.md").unlink()
        (docs / "n003.md").unlink()
        (docs / "n003.md").mkdir()
        with Index.open(tmp_path / "mixed.sqlite3") as mixed:
            mixed.refresh(store)
        for path in docs.iterdir():
            if path.is_dir():
                path.rmdir()
            else:
                path.unlink()
        with Index.open(tmp_path / "git.sqlite3") as from_git:
            from_git.refresh(store)
    words = {term for term, _docs, _count in vocabulary(tmp_path / "mixed.sqlite3")}
    assert {"wombat0", "wombat2", "wombat3", "numbat"} <= words
    assert not words & {"platypus", "echidna", "edited"}
    assert vocabulary(tmp_path / "mixed.sqlite3") == vocabulary(tmp_path / "git.sqlite3")
