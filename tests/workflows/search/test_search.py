"""Search: ranking on the sample corpus, states, freshness against plain git, --at, --as-of."""
# ruff: noqa: F811 - pytest fixtures are imported by name and requested as parameters

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reflectgit.git.change import delete, write
from reflectgit.git.store import Store
from reflectgit.workflows.search.documents import edges_as_of
from reflectgit.workflows.search.index import Index, freshness, reindex, search
from reflectgit.workflows.search.ranking import fts_query
from reflectgit.workflows.search.storage import index_path
from tests.conftest import git
from tests.support.search import corpus_kb, corpus_notes, note_text  # noqa: F401

NOW = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc)


def state_of(kb: Path) -> Path:
    return kb / ".git" / "reflect-git"


def ids(kb: Path, query: str, **kwargs: object) -> list[str]:
    result = search(kb, state_of(kb), query, now=NOW, **kwargs)  # type: ignore[arg-type]
    return [h.id for h in result.hits]


def commit(kb: Path, changes: list, message: str = "test change") -> str:
    with Store.open(kb) as store:
        sha = store.commit(changes, message)
    assert sha
    return sha


# --------------------------------------------------------------------------- ranking


def test_each_sample_note_is_the_first_hit_for_its_own_title(corpus_kb: Path) -> None:
    wrong = {}
    for note_id, title in corpus_notes():
        first = ids(corpus_kb, title)[:1]
        if first != [note_id]:
            wrong[title] = first
    assert wrong == {}


def test_key_insight_phrases_rank_their_note_first(corpus_kb: Path) -> None:
    phrases = {
        "size the pool to peak concurrency": "gr-01-redis-pool-exhaustion",
        "force-with-lease": "lrn-use-git-for-git-workflows-7e2493",
        "git worktree prune": "ex-08-git-worktree-prune",
        "Floating runner images": "minimal-team-note",
    }
    for phrase, expected in phrases.items():
        assert ids(corpus_kb, phrase)[0] == expected, phrase


def test_confidence_and_proofs_break_ties_and_json_says_why(corpus_kb: Path, cli) -> None:
    same = "the quasar flux capacitor"
    commit(
        corpus_kb,
        [
            write("documents/weak.md", note_text("weak", "Quasar flux", same, confidence="low")),
            write(
                "documents/strong.md",
                note_text("strong", "Quasar flux", same, confidence="high", proof_count="7"),
            ),
        ],
    )
    res = cli("--kb", str(corpus_kb), "--json", "search", "quasar", "flux")
    assert res.code == 0, res
    doc = res.json()
    assert [h["id"] for h in doc["hits"]] == ["strong", "weak"]
    why = doc["hits"][0]["why"]
    assert why["bm25"] > 0
    assert why["confidence_weight"] > doc["hits"][1]["why"]["confidence_weight"]
    assert why["proof_weight"] > doc["hits"][1]["why"]["proof_weight"]
    assert "title" in why["matched_fields"] and "body" in why["matched_fields"]
    assert doc["hits"][0]["snippet"]


def test_text_output_shows_id_tier_title_and_snippet(corpus_kb: Path, cli) -> None:
    res = cli("--kb", str(corpus_kb), "search", "burst", "load")
    assert res.code == 0, res
    first, snippet = res.out.splitlines()[:2]
    assert first.startswith("gr-01-redis-pool-exhaustion  [high]  Redis connection pool")
    assert "[" in snippet and "]" in snippet


@pytest.mark.parametrize(
    "query",
    ["foo-bar", '"unbalanced', "key:value", "NEAR(a b)", "a AND OR NOT", "x*", "{title}: y", "ü-ß"],
)
def test_user_input_is_words_never_fts_syntax(corpus_kb: Path, cli, query: str) -> None:
    res = cli("--kb", str(corpus_kb), "search", query)
    assert res.code == 0, res


def test_punctuation_only_query_is_a_usage_error(corpus_kb: Path, cli) -> None:
    res = cli("--kb", str(corpus_kb), "search", ":: !!")
    assert res.code == 2
    assert "nothing to search for" in res.err


def test_fts_query_quotes_words_drops_stop_words_and_prefixes_a_long_last_word() -> None:
    assert fts_query('pool "x" foo-bar') == '"pool" """x""" "foo-bar"'
    assert fts_query("ab cd", mode="or") == '"ab" OR "cd"'
    assert fts_query("where did the pool go", mode="or") == '"pool" OR "go"'
    assert fts_query("pool conn", mode="or") == '"pool" OR "conn"*'
    assert fts_query("the a") == '"the" "a"'  # nothing but stop words: kept
    assert fts_query("!!") is None


def test_last_word_matches_as_a_prefix(corpus_kb: Path) -> None:
    assert ids(corpus_kb, "worktree prun")[0] == "ex-08-git-worktree-prune"


# --------------------------------------------------------------------------- filters and states


def test_tag_and_confidence_filters(corpus_kb: Path, cli) -> None:
    assert ids(corpus_kb, "pool", tag="redis")[0] == "gr-01-redis-pool-exhaustion"
    assert all(i != "gr-01-redis-pool-exhaustion" for i in ids(corpus_kb, "pool", tag="nginx"))
    low = cli("--kb", str(corpus_kb), "--json", "search", "use", "--confidence", "l")
    assert low.code == 0, low
    assert low.json()["hits"] and {h["tier"] for h in low.json()["hits"]} == {"low"}
    bad = cli("--kb", str(corpus_kb), "search", "pool", "--confidence", "sure")
    assert bad.code == 2 and "unknown confidence" in bad.err


def test_superseded_archived_forgotten_and_retired_notes_need_all(corpus_kb: Path, cli) -> None:
    commit(
        corpus_kb,
        [
            write(
                "documents/old.md",
                note_text("old", "Zebrafish superseded", superseded_by="new-one"),
            ),
            write("archived/arch.md", note_text("arch", "Zebrafish archived")),
            write(".forgotten/gone.md", note_text("gone", "Zebrafish forgotten")),
            write("documents/ret.md", note_text("ret", "Zebrafish retired", status="retired")),
            # A live copy of an id that also sits in archived/ is dropped too.
            write("documents/arch.md", note_text("arch", "Zebrafish archived twin")),
            write("documents/live.md", note_text("live", "Zebrafish live")),
        ],
    )
    assert ids(corpus_kb, "zebrafish") == ["live"]
    res = cli("--kb", str(corpus_kb), "--json", "search", "zebrafish", "--all")
    states = {(h["id"], h["state"]) for h in res.json()["hits"]}
    assert states == {
        ("live", "live"),
        ("old", "superseded"),
        ("arch", "archived"),
        ("arch", "live"),
        ("gone", "forgotten"),
        ("ret", "retired"),
    }
    text = cli("--kb", str(corpus_kb), "search", "zebrafish", "--all").out
    assert "(superseded)" in text and "(archived)" in text


def test_no_match_says_so(corpus_kb: Path, cli) -> None:
    res = cli("--kb", str(corpus_kb), "search", "xylophonist")
    assert res.code == 0
    assert "no notes match" in res.out


# --------------------------------------------------------------------------- freshness


def test_a_plain_git_edit_is_found_on_the_next_search(corpus_kb: Path) -> None:
    assert ids(corpus_kb, "cgroup peak")[0] == "gr-07-k8s-oomkill-debugging"
    path = corpus_kb / "documents" / "gr-07-k8s-oomkill-debugging.md"
    text = path.read_text(encoding="utf-8").replace("cgroup", "hyperdrive")
    path.write_text(text, encoding="utf-8")
    git("commit", "-qam", "edit by hand", cwd=corpus_kb)
    assert ids(corpus_kb, "hyperdrive")[0] == "gr-07-k8s-oomkill-debugging"
    assert "gr-07-k8s-oomkill-debugging" not in ids(corpus_kb, "cgroup")
    # Removing a note with plain git drops it as well.
    git("rm", "-q", "documents/gr-07-k8s-oomkill-debugging.md", cwd=corpus_kb)
    git("commit", "-qm", "remove by hand", cwd=corpus_kb)
    assert ids(corpus_kb, "hyperdrive") == []


def test_refresh_rereads_only_the_changed_note(corpus_kb: Path) -> None:
    reindex(corpus_kb, state_of(corpus_kb))
    commit(corpus_kb, [write("documents/extra.md", note_text("extra", "Marmalade extra"))])
    with Store.open(corpus_kb) as store, Index.open(index_path(state_of(corpus_kb))) as index:
        before = index.count()
        result = index.refresh(store)
        assert (result.changed, result.rebuilt) == (1, False)
        assert index.count() == before + 1
        assert index.refresh(store).changed == 0


def test_a_sidecar_change_reindexes_its_note(corpus_kb: Path) -> None:
    sidecar = (
        "document_id: gr-04-nginx-keepalive-upstream\n"
        "entities:\n  - name: flamingo-quokka\n    type: tool\n    description: ''\n"
    )
    commit(
        corpus_kb,
        [write("documents/gr-04-nginx-keepalive-upstream.entities.yaml", sidecar.encode())],
    )
    assert ids(corpus_kb, "flamingo-quokka") == ["gr-04-nginx-keepalive-upstream"]
    commit(corpus_kb, [delete("documents/gr-04-nginx-keepalive-upstream.entities.yaml")])
    assert ids(corpus_kb, "flamingo-quokka") == []


def test_deleting_or_corrupting_the_index_loses_nothing_but_time(corpus_kb: Path) -> None:
    expected = ids(corpus_kb, "pool")
    path = index_path(state_of(corpus_kb))
    assert path.exists()
    path.unlink()
    assert ids(corpus_kb, "pool") == expected
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    path.write_bytes(b"this is not a database" * 100)
    assert ids(corpus_kb, "pool") == expected


def test_freshness_and_reindex(corpus_kb: Path, cli) -> None:
    state = state_of(corpus_kb)
    assert freshness(corpus_kb, state) == "missing"
    res = cli("--kb", str(corpus_kb), "--json", "reindex")
    assert res.code == 0, res
    assert res.json()["rebuilt"] is True and res.json()["changed"] == 36
    assert freshness(corpus_kb, state) == "fresh"
    commit(corpus_kb, [write("documents/extra.md", note_text("extra", "Extra"))])
    assert freshness(corpus_kb, state) == "behind"
    res = cli("--kb", str(corpus_kb), "reindex")
    assert res.code == 0 and "index updated: 1 note re-read" in res.out
    assert freshness(corpus_kb, state) == "fresh"
    res = cli("--kb", str(corpus_kb), "--json", "reindex", "--force")
    assert res.json()["rebuilt"] is True and res.json()["changed"] == 37
    assert git("status", "--porcelain", cwd=corpus_kb) == ""


def test_a_packed_repository_is_read_through_git(corpus_kb: Path) -> None:
    git("gc", "-q", "--prune=now", cwd=corpus_kb)
    assert not list((corpus_kb / ".git" / "refs" / "heads").iterdir())
    assert ids(corpus_kb, "burst load")[0] == "gr-01-redis-pool-exhaustion"
    assert freshness(corpus_kb, state_of(corpus_kb)) == "fresh"


def test_not_a_repository_is_a_clear_error(tmp_path: Path, cli) -> None:
    res = cli("--kb", str(tmp_path / "nope"), "search", "pool")
    assert res.code == 1
    assert "not a git repository" in res.err and "hint:" in res.err


def test_an_unborn_kb_has_no_hits(repo: Path, cli) -> None:
    res = cli("--kb", str(repo), "--json", "search", "pool")
    assert res.code == 0, res
    assert res.json()["hits"] == []


def test_a_fresh_query_does_not_load_git_libraries(corpus_kb: Path) -> None:
    reindex(corpus_kb, state_of(corpus_kb))
    code = (
        "import sys; from pathlib import Path; from reflectgit.workflows.search.index import search; "
        f"r = search(Path({str(corpus_kb)!r}), Path({str(state_of(corpus_kb))!r}), 'pool'); "
        "assert r.hits and r.refresh is None; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dulwich', 'git', 'jsonschema')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


# --------------------------------------------------------------------------- the past


def test_at_a_past_revision_finds_the_old_text(corpus_kb: Path, cli) -> None:
    first = git("rev-parse", "HEAD", cwd=corpus_kb).strip()
    for name in ("ex-03-zsh-glob-nomatch.md", "ex-03-zsh-glob-nomatch.entities.yaml"):
        path = corpus_kb / "documents" / name
        path.write_text(path.read_text(encoding="utf-8").replace("unmatched", "kumquat"))
    git("commit", "-qam", "rename the option", cwd=corpus_kb)
    assert ids(corpus_kb, "unmatched") == []
    res = cli("--kb", str(corpus_kb), "--json", "search", "unmatched", "--at", first[:10])
    assert res.code == 0, res
    assert res.json()["at"] == first
    assert res.json()["hits"][0]["id"] == "ex-03-zsh-glob-nomatch"
    assert ids(corpus_kb, "kumquat", at="HEAD~1") == []
    assert ids(corpus_kb, "kumquat", at="HEAD")[0] == "ex-03-zsh-glob-nomatch"
    bad = cli("--kb", str(corpus_kb), "search", "x", "--at", "no-such-branch")
    assert bad.code == 1 and "unknown revision" in bad.err


def test_at_a_date_means_the_last_commit_at_or_before_it(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    git("init", "-q", "-b", "main", str(kb), cwd=tmp_path)
    (kb / "documents").mkdir()
    for day, word in (("2026-01-10", "alpaca"), ("2026-02-10", "bison"), ("2026-03-10", "camel")):
        (kb / "documents" / "n.md").write_bytes(note_text("n", word.capitalize()))
        git("add", "-A", cwd=kb)
        env_date = f"{day}T12:00:00Z"
        subprocess.run(
            ["git", "commit", "-qm", word],
            cwd=kb,
            check=True,
            env={
                **os.environ,
                "GIT_COMMITTER_DATE": env_date,
                "GIT_AUTHOR_DATE": env_date,
            },
        )
    assert ids(kb, "bison", at="2026-02-10") == ["n"]
    assert ids(kb, "bison", at="2026-02-28") == ["n"]
    assert ids(kb, "alpaca", at="2026-02-09") == ["n"]
    assert ids(kb, "camel") == ["n"]
    with pytest.raises(Exception, match="no commit at or before"):
        ids(kb, "alpaca", at="2025-12-31")


# --------------------------------------------------------------------------- bitemporal edges

SIDECAR = """document_id: pump
extracted_at: "2026-01-01T00:00:00Z"
entities:
  - name: pump
    type: tool
    description: ""
relationships:
  - source: pump
    target: valve
    type: causes
    description: "the marzipan leak"
    tvalid: "2026-01-10"
    tvalid_end: "2026-02-01"
  - source: pump
    target: valve
    type: uses
    description: "the nougat seal"
    tcommit: "2026-02-15T00:00:00Z"
  - source: pump
    target: valve
    type: relates_to
    description: "the praline gasket"
"""


def test_search_as_of_uses_only_edges_valid_then(corpus_kb: Path, cli) -> None:
    commit(
        corpus_kb,
        [
            write("documents/pump.md", note_text("pump", "Pump maintenance")),
            write("documents/pump.entities.yaml", SIDECAR.encode()),
        ],
    )
    assert ids(corpus_kb, "marzipan", as_of="2026-01-15") == ["pump"]
    assert ids(corpus_kb, "marzipan", as_of="2026-02-01") == ["pump"]  # the end day overlaps
    assert ids(corpus_kb, "marzipan", as_of="2026-03-01") == []
    assert ids(corpus_kb, "marzipan") == []  # default: valid now
    assert ids(corpus_kb, "nougat", as_of="2026-02-01") == []  # tvalid defaults to tcommit
    assert ids(corpus_kb, "nougat", as_of="2026-02-15") == ["pump"]
    assert ids(corpus_kb, "praline", as_of="2025-12-31") == []  # then to extracted_at
    assert ids(corpus_kb, "praline", as_of="2026-01-01T00:00:00Z") == ["pump"]
    res = cli("--kb", str(corpus_kb), "--json", "search", "marzipan", "--as-of", "2026-01-20")
    assert res.json()["hits"][0]["why"]["edge_match"] is True
    assert "edges" in res.json()["hits"][0]["why"]["matched_fields"]
    bad = cli("--kb", str(corpus_kb), "search", "marzipan", "--as-of", "last tuesday")
    assert bad.code == 2 and "not a date" in bad.err


def test_edges_as_of_for_show() -> None:
    from reflectgit.notes.note import parse_sidecar

    sidecar = parse_sidecar(SIDECAR.encode())
    described = [e["description"] for e in edges_as_of(sidecar, "2026-01-20")]
    assert described == ["the marzipan leak", "the praline gasket"]
    later = [e["description"] for e in edges_as_of(sidecar.data, dt.date(2026, 3, 1))]
    assert later == ["the nougat seal", "the praline gasket"]
    assert edges_as_of({}, "2026-01-01") == []


def test_json_is_one_document(corpus_kb: Path, cli) -> None:
    res = cli("--kb", str(corpus_kb), "--json", "search", "pool", "--limit", "2")
    doc = json.loads(res.out)
    assert set(doc) == {"query", "tree", "at", "refreshed", "understood", "hits"}
    assert len(doc["hits"]) == 2
    assert doc["understood"][0]["text"] == "pool" and doc["understood"][0]["exact"] == ['"pool"']


def test_a_git_dir_inherited_from_a_hook_is_ignored(
    corpus_kb: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git("gc", "-q", "--prune=now", cwd=corpus_kb)  # packed: HEAD's tree comes from git itself
    reindex(corpus_kb, state_of(corpus_kb))
    commit(corpus_kb, [write("documents/extra.md", note_text("extra", "Walrus extra"))])
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    assert ids(corpus_kb, "walrus") == ["extra"]


def test_a_note_that_does_not_parse_is_still_found_as_text(corpus_kb: Path) -> None:
    broken = b"---\ntitle: [unclosed\n---\nThe gnocchi incident.\n"
    commit(corpus_kb, [write("documents/broken-note.md", broken)])
    assert ids(corpus_kb, "gnocchi") == ["broken-note"]


def test_a_rebuild_reports_its_progress(corpus_kb: Path) -> None:
    from reflectgit.workflows.search.index import reindex

    seen: list[tuple[int, int]] = []
    state = corpus_kb / ".git" / "reflect-git"
    result = reindex(corpus_kb, state, force=True, progress=lambda d, t: seen.append((d, t)))
    assert result.rebuilt
    assert seen and seen[-1] == (result.changed, result.changed)
