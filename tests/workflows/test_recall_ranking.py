"""Recall ranks the project's words with search's own ranking (issue 14): synonyms, stems,
two-letter abbreviations, and confidence that breaks ties instead of overturning the text.

Each test builds a small KB and asserts an order. All but the one that pins recall to
search's order fail on the plain OR query recall used before (no synonyms, no stems, words
under three letters dropped, the raw confidence weight as a multiplier).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reflectgit.workflows.recall import ProjectContext, rank, recall, text_scores
from reflectgit.workflows.search.index import open_fresh
from reflectgit.workflows.search.results import Hit
from tests.conftest import git
from tests.support.search import committed_notes, note_text


def ranked_ids(kb: Path, words: str) -> list[str]:
    """Recall's order for a project described by ``words`` (no branch, no files), every note
    pooled in, as ``recall --project WORDS --global`` ranks them."""
    index, _ = open_fresh(kb, kb / ".git" / "reflect-git")
    with index:
        scored, _total = rank(index, ProjectContext(name=words), everywhere=True)
    return [doc["id"] for _score, doc, _reasons in scored]


def test_a_synonym_and_a_plural_bring_the_note_back(tmp_path: Path) -> None:
    kb = committed_notes(
        tmp_path,
        {
            "kube": note_text(
                "kube-probe",
                "Pods restart when the liveness probe is too strict",
                "On kubernetes a probe with a one second timeout restarts busy pods.",
                confidence="low",
            ),
            "strong": note_text(
                "strong-other",
                "Pin the Terraform provider versions",
                "Unpinned providers changed the plan overnight.",
                confidence="high",
                proof_count="9",
            ),
        },
    )
    # "k8s" is the table's kubernetes; "probes" is the index's "probe". The plain OR query
    # matched neither, and the high note led on its weight alone.
    got = ranked_ids(kb, "k8s-probes")
    assert got[0] == "kube-probe"
    assert got.index("kube-probe") < got.index("strong-other")


def test_a_two_letter_abbreviation_counts(tmp_path: Path) -> None:
    kb = committed_notes(
        tmp_path,
        {
            "runner": note_text(
                "runner-image",
                "Name the exact hosted runner image",
                "The continuous integration jobs broke when ubuntu-latest moved.",
                confidence="medium",
            ),
            "cache": note_text(
                "cache-other",
                "Cache warm-up before a sale",
                "Warm the cache before traffic arrives.",
                confidence="high",
            ),
        },
    )
    # "ci" has two letters: recall used to drop every word under three.
    assert ranked_ids(kb, "ci")[0] == "runner-image"


def test_confidence_breaks_ties_and_does_not_overturn_the_text(tmp_path: Path) -> None:
    kb = committed_notes(
        tmp_path,
        {
            "both": note_text(
                "both-words",
                "Checkpoint the sqlite journal from the writer",
                "A long reader stops the sqlite journal checkpoint.",
                confidence="low",
            ),
            "one": note_text(
                "one-word",
                "Back up the sqlite journal nightly",
                "Copy the sqlite journal with the backup API.",
                confidence="high",
                proof_count="12",
            ),
        },
    )
    # The low note holds every word; the high one two of three. Multiplied by the raw
    # weight (1.4 against 0.8) the high note led; as a tie-breaker it cannot.
    got = ranked_ids(kb, "sqlite-journal-checkpoint")
    assert got.index("both-words") < got.index("one-word")


def test_recall_follows_search_order_for_the_same_words(tmp_path: Path) -> None:
    notes = {
        f"n{i}": note_text(f"note-{i}", title, body, confidence="medium")
        for i, (title, body) in enumerate(
            [
                ("Redis pool exhaustion under burst load", "Share one connection pool."),
                ("Redis keys expire early", "A TTL in seconds, not milliseconds."),
                ("Connection pool sizing for postgres", "Size the pool to the cores."),
                ("Burst load on the gateway", "Queue the burst at the edge."),
            ]
        )
    }
    kb = committed_notes(tmp_path, notes)
    words = "redis connection pool burst"
    index, _ = open_fresh(kb, kb / ".git" / "reflect-git")
    with index:
        searched = [h.id for h in index.search(words).hits]
    # Same confidence, no tags, no project: nothing but the text orders them.
    assert ranked_ids(kb, words) == searched


def test_a_tag_counts_as_text_once_not_again_as_a_bonus(tmp_path: Path) -> None:
    kb = committed_notes(
        tmp_path,
        {
            "tagged": note_text(
                "tagged",
                "Quokka cache keys",
                "The cache keys expire; pool them.",
                tags=["quokka", "pool", "burst"],
            ),
            "wide": note_text(
                "wide", "Quokka pool waits", "The quokka pool waits on its burst limit."
            ),
        },
    )
    words = "quokka pool burst"
    index, _ = open_fresh(kb, kb / ".git" / "reflect-git")
    with index:
        searched = [h.id for h in index.search(words).hits]
    # Tags are a field of search's ranking: recall keeps search's order, where a bonus per
    # tag that is a project word (three here) counted them again and put "tagged" first.
    assert ranked_ids(kb, words) == searched
    # Negative: the tags still count, as text: without "wide"'s words the tagged note leads.
    assert ranked_ids(kb, "quokka cache")[0] == "tagged"


def test_text_scores_never_rise_down_the_list() -> None:
    def hit(rowid: int, bm25: float) -> Hit:
        return Hit(f"n{rowid}", "t", "medium", "live", "p", "", bm25, bm25, 1.1, 1.0, rowid=rowid)

    # Fusion can put a note with the smaller bm25 sum first; the notes below it keep its
    # place by never scoring more than it.
    scores = text_scores([hit(1, 2.0), hit(2, 5.0), hit(3, 1.0)])
    assert scores == {1: 2.0, 2: 2.0, 3: 1.0}


def test_the_kbs_own_synonyms_count_in_recall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = committed_notes(
        tmp_path,
        {
            "ledger": note_text(
                "ledger-lag",
                "The billing database replica lags at month end",
                "Read invoices from the primary at month end.",
                confidence="low",
            ),
            "other": note_text("other", "Rotate the signing keys yearly", "Keys.", proof_count="5"),
        },
    )
    (kb / "synonyms.txt").write_text("ledger, billing database\n", "utf-8")
    project = tmp_path / "ledger"
    project.mkdir()
    monkeypatch.delenv("REFLECT_SEARCH_SYNONYMS", raising=False)
    result = recall(kb, kb / ".git" / "reflect-git", project, everywhere=True, record=False)
    assert result.notes[0].id == "ledger-lag"
    plain = recall(
        kb, kb / ".git" / "reflect-git", project, everywhere=True, record=False, synonyms_file=""
    )
    assert plain.notes[0].id == "other"


def test_what_the_project_says_outranks_its_files_words(tmp_path: Path) -> None:
    kb = committed_notes(
        tmp_path,
        {
            "wal": note_text(
                "wal-note",
                "Checkpoint the sqlite journal from the writer",
                "A long reader stops the checkpoint.",
                confidence="medium",
            ),
            "gql": note_text(
                "graphql-note",
                "Loop on the cursor for graphql pagination",
                "page info has the cursor; loop until the last page.",
                confidence="medium",
            ),
        },
    )
    repo = tmp_path / "work"
    git("init", "-q", "-b", "main", str(repo), cwd=tmp_path)
    (repo / "graphql").mkdir()
    for name in ("cursor_loop.py", "page_info.py", "pagination.py"):
        (repo / "graphql" / name).write_text("x = 1\n")
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "graphql paging", cwd=repo)
    # The files' words (graphql, cursor, loop, page, info, pagination) match the other note
    # better than the three words the caller gave match theirs; one ranking of all the words
    # put the files first.
    result = recall(
        kb,
        kb / ".git" / "reflect-git",
        repo,
        project="sqlite journal checkpoint",
        everywhere=True,
        record=False,
    )
    got = [n.id for n in result.notes]
    assert got.index("wal-note") < got.index("graphql-note")


def test_a_broken_kb_synonym_table_costs_the_session_hook_nothing(tmp_path: Path) -> None:
    # The SessionStart hook (recall --format claude) still hands over its notes, with the
    # shipped table, and says on stderr why; search and a plain recall refuse with a hint.
    from tests.conftest import run_cli_proc

    kb = committed_notes(
        tmp_path,
        {"wal": note_text("wal-note", "Checkpoint the sqlite journal", "A long reader.")},
    )
    (kb / "synonyms.txt").write_bytes(b"journal, \xff\xfe not utf-8\n")
    env = {"REFLECT_SEARCH_SYNONYMS": "synonyms.txt"}
    on = ("--kb", str(kb))
    hook = run_cli_proc(*on, "recall", "--format", "claude", "--global", cwd=tmp_path, env=env)
    assert hook.returncode == 0, hook.stderr
    assert "wal-note" in hook.stdout
    assert "cannot read the synonym table" in hook.stderr
    assert "the shipped table used" in hook.stderr
    for args in (("search", "journal"), ("recall", "--global")):
        refused = run_cli_proc(*on, *args, cwd=tmp_path, env=env)
        assert refused.returncode == 1, refused
        assert "error: cannot read the synonym table" in refused.stderr
        assert "hint:" in refused.stderr
        assert "wal-note" not in refused.stdout
