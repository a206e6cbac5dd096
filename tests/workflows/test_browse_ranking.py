"""The notes listing of ``reflect-git serve`` ranks a text query with search's own ranking
(``Index.ranked``): synonyms, stems, notes holding some of the words, search's order, and the
filters, column sorts and pages over that ranked list.

Each test builds a small KB and asserts an order or a set. Each fails on the plain FTS5 AND
query the listing used before (``bm25 * weight``: no synonyms, no stems, every word required).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from reflectgit.config import Config
from reflectgit.errors import UsageError
from reflectgit.web.app import Settings, create_app
from reflectgit.web.security import COOKIE, Guard
from reflectgit.workflows.browse import MAX_MATCHES, browse
from tests.support.search import committed_kb, committed_notes, note_text

TOKEN = "browse-ranking-token"
PORT = 8485


@pytest.fixture(autouse=True)
def _shipped_synonyms_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default ``[search] synonyms`` (the KB's synonyms.txt), whatever the shell says."""
    monkeypatch.delenv("REFLECT_SEARCH_SYNONYMS", raising=False)


def config(kb: Path) -> Config:
    return Config.resolve(kb, dict(os.environ))


def listed(kb: Path, query: str, **kw: Any) -> list[str]:
    """The ids of one page of the listing, in its order."""
    return [r.id for r in browse(config(kb), query, **kw).rows]


def searched(cli: Any, kb: Path, words: str, *options: str) -> list[str]:
    """`reflect-git search`'s ids for the same words, in its order."""
    res = cli("--kb", str(kb), "--json", "search", words, "--limit", "500", *options)
    assert res.code == 0, res
    return [h["id"] for h in res.json()["hits"]]


def client(kb: Path) -> TestClient:
    guard = Guard.for_server(TOKEN, "127.0.0.1", PORT)
    app = create_app(Settings(config(kb), guard, read_only=True))
    web = TestClient(app, base_url=f"http://127.0.0.1:{PORT}")
    web.cookies.set(COOKIE, TOKEN)
    return web


def test_a_synonym_finds_the_note_in_other_words(tmp_path: Path) -> None:
    kb = committed_notes(
        tmp_path,
        {
            "kube": note_text(
                "kube-probe", "Pods restart under a strict check", "On kubernetes, busy pods."
            ),
            "other": note_text("other", "Pin the provider versions", "Plans changed overnight."),
        },
    )
    # "k8s" is in no note: the shipped synonym table reads it as kubernetes.
    assert listed(kb, "k8s") == ["kube-probe"]


def test_a_stem_variant_finds_the_singular(tmp_path: Path) -> None:
    kb = committed_notes(
        tmp_path,
        {
            "probe": note_text("liveness", "The liveness probe is too strict", "One second."),
            "other": note_text("other", "Pin the provider versions", "Plans changed overnight."),
        },
    )
    assert listed(kb, "probes") == ["liveness"]


def test_notes_holding_some_of_the_words_are_found_best_first(tmp_path: Path) -> None:
    kb = committed_notes(
        tmp_path,
        {
            "redis": note_text("redis-keys", "Redis keys expire early", "A TTL in seconds."),
            "both": note_text(
                "redis-postgres", "Redis in front of postgres", "Cache the postgres reads."
            ),
            "pg": note_text("pg-pool", "Postgres pool sizing", "Size the pool to the cores."),
            "other": note_text("other", "Pin the provider versions", "Plans changed overnight."),
        },
    )
    # No note says "redis", "postgres" and "vacuum": the AND query found nothing at all.
    got = listed(kb, "redis postgres vacuum")
    assert got[0] == "redis-postgres"
    assert set(got) == {"redis-postgres", "redis-keys", "pg-pool"}


CORPUS = [
    ("Redis pool exhaustion under burst load", "Share one connection pool.", "high", "3"),
    ("Redis keys expire early", "A TTL in seconds, not milliseconds.", "low", "1"),
    ("Connection pool sizing for postgres", "Size the pool to the cores.", "medium", "1"),
    ("Burst load on the gateway", "Queue the burst at the edge.", "high", "9"),
    ("Connection reset by the load balancer", "Idle connections are cut.", "low", "1"),
    ("Pooled connections leak in tests", "Close the connection pool per test.", "medium", "2"),
    ("Terraform provider pinning", "Pin the versions.", "high", "4"),
]


def corpus(tmp_path: Path) -> Path:
    notes = {
        f"n{i}": note_text(
            f"note-{i}",
            title,
            body,
            confidence=conf,
            proof_count=proofs,
            tags="[redis]" if "Redis" in title else "[infra]",
            project="gateway" if i % 2 else "billing",
        )
        for i, (title, body, conf, proofs) in enumerate(CORPUS)
    }
    return committed_notes(tmp_path, notes)


def test_the_web_listing_is_in_search_order(tmp_path: Path, cli: Any) -> None:
    kb = corpus(tmp_path)
    words = "redis connection pool burst"
    expected = searched(cli, kb, words)
    assert len(expected) == 6  # every note but the Terraform one holds one of the words
    doc = client(kb).get("/api/notes", params={"q": words}).json()
    assert doc["sort"] == "rank" and doc["total"] == 6 and not doc["capped"]
    assert [n["id"] for n in doc["notes"]] == expected
    page = client(kb).get("/notes", params={"q": words}).text
    titles = [title for title, *_ in CORPUS if "Terraform" not in title]
    places = [page.index(t) for t in sorted(titles, key=lambda t: expected.index(_id(t)))]
    assert places == sorted(places)


def _id(title: str) -> str:
    return next(f"note-{i}" for i, (t, *_) in enumerate(CORPUS) if t == title)


def test_filters_and_pages_keep_the_ranked_order(tmp_path: Path, cli: Any) -> None:
    kb = corpus(tmp_path)
    words = "connection pool burst"
    expected = searched(cli, kb, words)
    cfg = config(kb)
    pages = [browse(cfg, words, per_page=2, page=n) for n in (1, 2, 3, 4)]
    assert [p.total for p in pages] == [len(expected)] * 4 and pages[0].pages == 3
    assert [r.id for p in pages for r in p.rows] == expected  # page 4 is past the end: empty
    # A tag or a tier filter is search's own filter: search's order of what it lets through.
    assert listed(kb, words, tag="redis") == searched(cli, kb, words, "--tag", "redis")
    assert listed(kb, words, tier="medium") == searched(cli, kb, words, "--confidence", "medium")
    # A project keeps the ranked list's order among its notes.
    billing = [i for i in expected if int(i.split("-")[1]) % 2 == 0]
    assert listed(kb, words, project="billing") == billing
    assert browse(cfg, words, project="billing").total == len(billing)
    # Another sort orders the same matched set by its column.
    by_title = browse(cfg, words, sort="title")
    assert {r.id for r in by_title.rows} == set(expected) and by_title.total == len(expected)
    titles = [r.title for r in by_title.rows]
    assert titles == sorted(titles, key=str.lower)
    proofs = [r.proofs for r in browse(cfg, words, sort="-proofs").rows]
    assert proofs == sorted(proofs, reverse=True) and len(proofs) == len(expected)


def test_a_state_filter_ranks_among_that_states_notes(tmp_path: Path, cli: Any) -> None:
    kb = committed_kb(
        tmp_path,
        {
            "documents/live.md": note_text("live-cache", "Warm the cache", "Cache warming."),
            "archived/old.md": note_text("old-cache", "Cache warmers of old", "Caches."),
            "archived/older.md": note_text("older", "Cached pages of the old site", "Old."),
            "archived/none.md": note_text("none", "Rotate the keys", "Yearly."),
        },
    )
    words = "caches warming"
    assert listed(kb, words) == ["live-cache"]
    everywhere = searched(cli, kb, words, "--all")
    assert listed(kb, words, state="all") == everywhere and len(everywhere) == 3
    archived = [i for i in everywhere if i != "live-cache"]
    assert listed(kb, words, state="archived") == archived


def test_the_kbs_own_synonyms_count(tmp_path: Path) -> None:
    kb = committed_kb(
        tmp_path,
        {
            "documents/ledger.md": note_text(
                "ledger-lag", "The billing database replica lags", "Read from the primary."
            ),
            "documents/other.md": note_text("other", "Rotate the signing keys", "Keys."),
            "synonyms.txt": b"ledger, billing database\n",
        },
    )
    assert listed(kb, "ledger") == ["ledger-lag"]


def test_the_listing_stops_at_search_best_matches(tmp_path: Path, cli: Any) -> None:
    notes = {
        f"w{i:03}": note_text(
            f"widget-{i:03}", f"Widget {i}", "widget " * (1 + i % 7) + f"part {i}"
        )
        for i in range(MAX_MATCHES + 5)
    }
    kb = committed_notes(tmp_path, notes)
    first = browse(config(kb), "widget", per_page=200)
    assert first.total == MAX_MATCHES and first.capped and first.pages == 3
    listing = [
        r.id for n in (1, 2, 3) for r in browse(config(kb), "widget", per_page=200, page=n).rows
    ]
    assert listing == searched(cli, kb, "widget")
    assert "more may match" in client(kb).get("/notes", params={"q": "widget"}).text


def test_nothing_to_search_for_is_a_usage_error(tmp_path: Path) -> None:
    kb = committed_notes(tmp_path, {"a": note_text("a", "Warm the cache")})
    with pytest.raises(UsageError, match="nothing to search for"):
        browse(config(kb), "-- !!")
    assert listed(kb, "") == ["a"]  # no query: every live note, by title
