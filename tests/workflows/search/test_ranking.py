"""Ranking: orderings on small KBs (never scores), each with its negative examples.

Stop words, code-like words and their parts, the light stemmer, the last word as a prefix and a
whole word inside the longer words it begins, the synonym table (shipped and the KB's own), and
confidence as a tie-breaker only.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

import reflectgit.workflows.search.query as query_module
import reflectgit.workflows.search.ranking as ranking_module
from reflectgit.git.change import write
from reflectgit.git.store import Store
from reflectgit.workflows.search.index import search
from reflectgit.workflows.search.query import (
    EXACT,
    LOOSE,
    PART,
    PREFIX,
    SYNONYM,
    Synonyms,
    light_stem,
    shipped,
    singular,
    understand,
)
from tests.support.search import note_text

NOW = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc)


def make_kb(tmp_path: Path, notes: dict[str, tuple[str, str, dict[str, str]]]) -> Path:
    """A KB holding ``{id: (title, body, extra frontmatter)}``, committed in one commit."""
    kb = tmp_path / "kb"
    with Store.init(kb) as store:
        store.commit(
            [
                write(f"documents/{nid}.md", note_text(nid, title, body, **extra))
                for nid, (title, body, extra) in notes.items()
            ],
            "notes",
        )
    return kb


def ids(kb: Path, query: str) -> list[str]:
    result = search(kb, kb / ".git" / "reflect-git", query, now=NOW)
    return [h.id for h in result.hits]


# --------------------------------------------------------------------------- stop words


def test_stop_words_earn_nothing_in_the_fallback(tmp_path: Path) -> None:
    kb = make_kb(
        tmp_path,
        {
            "chatty": ("Where did it go and what do we do", "Did you not see where it is?", {}),
            "pool": ("Redis pool drains", "The connection pool drains under load.", {}),
        },
    )
    # No note holds every word: the fallback must not match "where", "did", "not", "the".
    assert ids(kb, "where did the redis pool not drain") == ["pool"]
    # A query of nothing but stop words still searches for them.
    assert ids(kb, "where did") == ["chatty"]


# --------------------------------------------------------------------------- code-like words


def test_code_like_words_match_whole_first_and_by_their_parts(tmp_path: Path) -> None:
    kb = make_kb(
        tmp_path,
        {
            "whole": ("Pool errors", "redis.exceptions.ConnectionError: Too many connections", {}),
            "parts": ("Redis client errors", "A connection error from the redis client.", {}),
            "other": ("Nginx upstream", "proxy_http_version 1.1 for keepalive", {}),
        },
    )
    assert ids(kb, "redis.exceptions.ConnectionError:") == ["whole", "parts"]
    # camelCase halves: "ConnectionError" finds a note that writes "connection error".
    assert ids(kb, "ConnectionError")[:2] == ["whole", "parts"]
    assert "other" not in ids(kb, "ConnectionError")
    assert ids(kb, "HTTP/1.1") == ["other"]


def test_a_part_s_synonym_counts_no_more_than_the_part(tmp_path: Path) -> None:
    # "LaunchAgent": its own group (launchd) decides; a synonym of its part "launch" (start,
    # spawn) is as weak a guess as the part itself, so a note that keeps saying "spawn" stays
    # below the note of the word's own meaning.
    kb = make_kb(
        tmp_path,
        {
            "agent": (
                "launchd jobs lack PATH",
                "A launchd plist starts with a bare environment.",
                {},
            ),
            "spawn": ("Spawn spawn spawn", "Spawn the worker; spawn again on exit; spawn.", {}),
        },
    )
    (kb / "synonyms.txt").write_text("launchd, launchagent\nstart, launch, spawn\n", "utf-8")
    assert ids(kb, "LaunchAgent") == ["agent", "spawn"]
    words = understand("LaunchAgent", Synonyms.parse("launchd, launchagent\nlaunch, spawn"))
    assert '"spawn"' not in words.concepts[0].alternatives[SYNONYM]
    assert '"spawn"' in words.concepts[0].alternatives[query_module.PART_SYNONYM]


def test_a_note_s_camel_case_names_are_indexed_by_their_parts(tmp_path: Path) -> None:
    kb = make_kb(
        tmp_path,
        {
            "ipc": ("Preload bridge", "Expose ipcRenderer.invoke through contextBridge.", {}),
            "flat": ("Lowercase", "The ipcrenderer module and the contextbridge call.", {}),
            "title": ("Title Case Words", "Hello World from the Renderer.", {}),
        },
    )
    # "renderer" is a part of ipcRenderer, as `git grep -i renderer` finds it inside the name.
    assert ids(kb, "renderer bridge")[0] == "ipc"
    assert ids(kb, "ipcRenderer")[0] == "ipc"  # the whole name still matches as typed
    # Negative: a lowercase run has no parts to find, and a capitalised word is no code name.
    assert "flat" not in ids(kb, "renderer bridge")
    assert set(ids(kb, "renderer")) == {"ipc", "title"}
    from reflectgit.workflows.search.documents import indexed_text

    assert indexed_text("Call getHTTPServer now") == "Call getHTTPServer now\nget http server"
    assert indexed_text("Hello World, snake_case and URLs") == "Hello World, snake_case and URLs"


def test_a_code_like_word_with_no_known_part_finds_nothing(tmp_path: Path) -> None:
    kb = make_kb(tmp_path, {"n": ("Redis pool", "Pool drains.", {})})
    assert ids(kb, "flamingo-quokka.Narwhal") == []


# --------------------------------------------------------------------------- stemming


def test_the_light_stemmer_pairs_what_porter_misses_and_leaves_short_stems_alone() -> None:
    pairs = [("revoke", "revocation"), ("panicked", "panic"), ("readers", "read")]
    pairs += [("caches", "cache"), ("policies", "policy"), ("stopped", "stop")]
    for a, b in pairs:
        assert light_stem(a) == light_stem(b), (a, b)
    for a, b in [("setting", "set"), ("running", "run"), ("writing", "write"), ("status", "stat")]:
        assert light_stem(a) != light_stem(b), (a, b)
    # A short stem ending in "ck" keeps its k: docker is no doc(s), lock no loc(ation).
    for a, b in [("docker", "docs"), ("lock", "location")]:
        assert light_stem(a) != light_stem(b), (a, b)
    assert light_stem("locked") == light_stem("lock")


def test_singular_pairs_a_plural_with_its_word_and_leaves_singulars_ending_in_s_alone() -> None:
    # light_stem's first step, and the twin finder's pairing of an act's objects
    plurals = [("entries", "entry"), ("fixes", "fix"), ("branches", "branch"), ("prs", "pr")]
    plurals += [("classes", "class"), ("commits", "commit")]
    for plural, word in plurals:
        assert singular(plural) == word, plural
    for word in ["class", "status", "redis", "is", "fix", "entry"]:
        assert singular(word) == word


def test_a_doubled_letter_before_ing_or_er_goes_when_four_letters_are_left() -> None:
    pairs = [("debugging", "debug"), ("dropping", "dropped"), ("formatting", "formatter")]
    pairs += [("shipping", "shipped"), ("planning", "plan"), ("stopper", "stop")]
    for a, b in pairs:
        assert light_stem(a) == light_stem(b), (a, b)
    # Short stems stay apart, as before; an ll or ss stays: "missing" is no cache "miss".
    for a, b in [("running", "run"), ("setting", "set"), ("getting", "get"), ("runner", "run")]:
        assert light_stem(a) != light_stem(b), (a, b)
    for a, b in [("mapping", "map"), ("missing", "miss"), ("passing", "pass"), ("caller", "call")]:
        assert light_stem(a) != light_stem(b), (a, b)


def test_a_number_and_its_plural_are_one_word(tmp_path: Path) -> None:
    assert light_stem("504s") == light_stem("504") and light_stem("1990s") == "1990"
    assert light_stem("5045") != light_stem("504") and light_stem("v2s") == "v2s"
    kb = make_kb(
        tmp_path,
        {
            "gateway": ("Gateway timeouts under load", "The 504s were queued pool waits.", {}),
            "other": ("Port numbers", "Port 5045 is the metrics exporter.", {}),
        },
    )
    assert ids(kb, "504") == ["gateway"]
    assert ids(kb, "504s errors") == ["gateway"]


def test_a_debugging_query_finds_the_debug_note_and_missing_not_the_miss_note(
    tmp_path: Path,
) -> None:
    kb = make_kb(
        tmp_path,
        {
            "debug": ("Remote debug port", "Attach the debug adapter to port 5678.", {}),
            "miss": ("Cache miss storm", "Every miss goes to the origin.", {}),
            "other": ("Deploy window", "Deploys go out on Tuesdays.", {}),
        },
    )
    assert ids(kb, "debugging") == ["debug"]
    assert ids(kb, "missing") == []


def test_stemmer_pairs_match_and_non_pairs_do_not(tmp_path: Path) -> None:
    kb = make_kb(
        tmp_path,
        {
            "revocation": ("Token revocation lag", "Revocation takes a minute to spread.", {}),
            "panicked": ("The runtime panicked", "It panicked inside a nested call.", {}),
            "readers": ("Long readers", "Readers hold the snapshot.", {}),
            "set": ("Set the flag", "Always set it before the build.", {}),
            "setting": ("The timeout setting", "The setting is read at start.", {}),
            "runner": ("Run it twice", "Run the migration twice.", {}),
        },
    )
    assert ids(kb, "revoke") == ["revocation"]
    assert ids(kb, "panic") == ["panicked"]
    assert ids(kb, "reader")[0] == "readers"
    # Porter made these one word; here they stay apart.
    assert ids(kb, "setting") == ["setting"]
    assert "set" not in ids(kb, "setting")
    assert ids(kb, "running") == []


# --------------------------------------------------------------------------- prefixes


def test_only_a_last_word_of_four_letters_is_a_prefix_and_it_ranks_below_exact(
    tmp_path: Path,
) -> None:
    kb = make_kb(
        tmp_path,
        {
            "machine": ("Machine images", "Build the machine image weekly.", {}),
            "quasarium": ("Quasarium drift", "The quasarium drifts.", {}),
            "quasar": ("Quasar drift", "The quasar drifts.", {}),
        },
    )
    assert ids(kb, "mac") == []  # three letters: no prefix, "Mac" never matches "machine"
    assert ids(kb, "mach") == ["machine"]  # four: a query typed halfway
    assert ids(kb, "quasar") == ["quasar", "quasarium"]  # exact first, then the prefix
    assert ids(kb, "drift quas") == ["quasar", "quasarium"]  # ties on "drift": exact wins
    assert ids(kb, "quas machine") == ["machine"]  # four letters, not the last word: no prefix
    # Five letters, any word: the longer words it begins (below, the whole word's rule).
    assert ids(kb, "quasa machine")[0] == "machine"


def test_a_whole_word_finds_the_longer_words_it_begins_below_its_own_forms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = make_kb(
        tmp_path,
        {
            "cancellation": ("Swallowed cancellation", "A catch block swallows cancellation.", {}),
            "cancels": ("Sibling jobs", "One failing child cancels its siblings.", {}),
            "cancel": ("The button", "The cancel button does nothing.", {}),
            "database": ("Nightly vacuum", "Vacuum the database nightly.", {}),
        },
    )
    # "cancel" is not the last word: it finds "cancellation" as `git grep` would, below the
    # word itself and below its variant "cancels" (same light stem).
    assert ids(kb, "cancel zebra") == ["cancel", "cancels", "cancellation"]
    # Negative: a word of four letters is never read inside a longer one ("data": database).
    assert ids(kb, "data zebra") == []
    # Negative: without the rule the longer word is not found at all.
    monkeypatch.setattr(query_module, "EXTENSION_MIN", 99)
    assert ids(kb, "cancel zebra") == ["cancel", "cancels"]


def test_a_word_s_longer_words_are_found_when_its_stem_does_not_begin_it(tmp_path: Path) -> None:
    from reflectgit.workflows.search.index import open_fresh

    kb = make_kb(
        tmp_path,
        {
            "flies": ("Fruit", "Flies and a flieswatter, a fly and a flyer.", {}),
            "state": ("State", "A stateless state machine states its statement.", {}),
        },
    )
    index, _ = open_fresh(kb, kb / ".git" / "reflect-git")
    # "flies" has the stem "fly": the words its variants read do not all begin with "flies".
    assert index.extensions("flies", {}) == ["flieswatter"]
    # Its variants and the word itself are never among them.
    assert index.extensions("state", {}) == ["stateless", "statement"]
    assert index.extensions("statement", {}) == []


# --------------------------------------------------------------------------- synonyms


def test_shipped_synonyms_bridge_abbreviations_both_ways(tmp_path: Path) -> None:
    kb = make_kb(
        tmp_path,
        {
            # The same length in words, so only what matched tells them apart.
            "wal": ("Checkpoint the WAL often", "The WAL file grows without any checkpoints.", {}),
            "wal-long": ("Write-ahead log on NFS", "A write-ahead log on NFS corrupts.", {}),
            "log": ("Rotate the log", "The log fills the disk.", {}),
            "jwt": ("Rotate JWT keys", "JWT signing keys rotate monthly.", {}),
        },
    )
    assert set(ids(kb, "WAL")) == {"wal", "wal-long"}
    assert ids(kb, "WAL")[0] == "wal"  # the word typed ranks above its synonym
    found = ids(kb, "write-ahead log")
    assert found[0] == "wal-long" and "wal" in found
    # "log" alone is a part of the phrase: it counts, but below both real matches.
    assert found.index("log") > found.index("wal")
    assert ids(kb, "json web token") == ["jwt"]
    assert ids(kb, "checkpoint") == ["wal"]  # no synonym: no expansion
    # --json says how the query was read.
    read = search(kb, kb / ".git" / "reflect-git", "WAL", now=NOW).understood
    assert read[0]["text"] == "WAL" and '"write ahead log"' in read[0]["synonym"]


def test_a_synonym_term_with_stop_words_is_found_from_a_query(tmp_path: Path) -> None:
    # A KB's table has "connection pool, pool of connections, set of sockets": a query drops
    # its stop words before it looks for terms, so the term's stop words must not count.
    kb = make_kb(
        tmp_path,
        {
            "pool": ("Size the connection pool", "The connection pool was too small.", {}),
            "other": ("Sockets of the proxy", "Set the proxy buffer.", {}),
        },
    )
    (kb / "synonyms.txt").write_text(
        "connection pool, pool of connections, set of sockets\n", encoding="utf-8"
    )
    assert ids(kb, "a set of sockets")[0] == "pool"
    assert ids(kb, "the pool of connections")[0] == "pool"
    assert ids(kb, "set sockets")[0] == "pool"  # the same words, the same term
    assert ids(kb, "set") == ["other"]  # one word of the term is no term
    read = understand("a set of sockets", Synonyms.parse("connection pool, set of sockets"))
    assert [c.text for c in read.concepts] == ["set of sockets"]  # the term as typed
    assert '"set of sockets"' in read.concepts[0].alternatives[EXACT]


def test_a_term_of_several_words_is_never_one_of_its_words(tmp_path: Path) -> None:
    # The shipped table has "timeout, time out, ...", a KB's "concurrent, same time": without
    # their stop words both terms are "time", which must not make every "time" a timeout.
    kb = make_kb(
        tmp_path,
        {
            "clock": ("Clock skew", "The time on the host drifts.", {}),
            "writers": ("Concurrent writers", "Two writers collide.", {}),
            "deadline": ("Upstream timeout", "Requests hit the timeout.", {}),
        },
    )
    (kb / "synonyms.txt").write_text("concurrent, same time\n", encoding="utf-8")
    found = ids(kb, "time")
    assert found[0] == "clock" and "writers" not in found  # ("time"* finds the timeout too)
    assert ids(kb, "at the same time")[0] == "writers"  # the term typed with its stop words
    assert ids(kb, "requests time out")[0] == "deadline"
    assert "writers" not in ids(kb, "time drifts")
    read = understand(
        "it timed out at the same time", Synonyms.parse("timeout, timed out\nconcurrent, same time")
    )
    assert [c.text for c in read.concepts] == ["timed out", "same time"]


def test_everyday_words_count_less_than_the_words_of_a_topic(tmp_path: Path) -> None:
    # Both words are in one note each, in the same field; in a small KB both are rare, so bm25
    # alone would tie them (and the id would put "a-everyday" first).
    kb = make_kb(
        tmp_path,
        {
            "a-everyday": ("Desk notes", "Several were here.", {}),
            "b-topic": ("Desk notes", "Checkpoints were here.", {}),
        },
    )
    assert ids(kb, "several checkpoints") == ["b-topic", "a-everyday"]
    assert ids(kb, "several") == ["a-everyday"]  # an everyday word alone still finds its note
    read = understand("several checkpoints", Synonyms())
    assert [c.weight < 1 for c in read.concepts] == [True, False]


def test_a_kb_extends_and_trims_the_synonym_table(tmp_path: Path) -> None:
    kb = make_kb(
        tmp_path,
        {
            "quokka": ("Quokka retries", "The quokka service retries.", {}),
            "pr": ("Pull request size", "Keep each pull request small.", {}),
        },
    )
    assert ids(kb, "marsupial") == []
    assert ids(kb, "PR") == ["pr"]
    (kb / "synonyms.txt").write_text("# ours\nquokka, marsupial\n-pr\n", encoding="utf-8")
    assert ids(kb, "marsupial") == ["quokka"]
    assert ids(kb, "PR") == []


def test_a_word_no_note_holds_is_found_through_the_longer_terms_it_is_part_of(
    tmp_path: Path,
) -> None:
    kb = make_kb(
        tmp_path,
        {
            "quokka": ("Quokka retries", "The quokka service retries.", {}),
            "pouch": ("Marsupial pouch", "The marsupial pouch holds it.", {}),
        },
    )
    (kb / "synonyms.txt").write_text("quokka, marsupial mammal\n", encoding="utf-8")
    # No note says "mammal": the term "marsupial mammal" it is a word of leads to quokka.
    assert ids(kb, "mammal") == ["quokka"]
    # A word the KB holds means itself: "marsupial" is not read as the term's group.
    assert ids(kb, "marsupial") == ["pouch"]
    assert ids(kb, "wombat") == []  # in no note and no term: nothing
    read = understand("mammal", Synonyms.parse("quokka, marsupial mammal"), lambda tok: [])
    assert read.concepts[0].alternatives[LOOSE] == ['"quokka"', '"marsupial mammal"']
    held = understand("mammal", Synonyms.parse("quokka, marsupial mammal"), lambda t: [t])
    assert LOOSE not in held.concepts[0].alternatives  # a note holds it: no guess
    assert (
        LOOSE
        not in understand("mammal", Synonyms.parse("quokka, marsupial mammal"))
        .concepts[0]
        .alternatives
    )  # no index to ask: no guess
    # A word of the terms of many groups says too little to guess from.
    many = Synonyms.parse("quokka, marsupial mammal\nwhale, sea mammal\nbat, flying mammal")
    assert LOOSE not in understand("mammal", many, lambda tok: []).concepts[0].alternatives


def test_a_kb_word_beats_a_loose_guess(tmp_path: Path) -> None:
    kb = make_kb(
        tmp_path,
        {
            "quokka": ("Quokka retries", "The quokka service retries.", {}),
            "census": ("Mammal census", "Every mammal is counted.", {}),
        },
    )
    (kb / "synonyms.txt").write_text("quokka, marsupial mammal\n", encoding="utf-8")
    assert ids(kb, "mammal") == ["census"]


def test_a_synonym_table_that_cannot_be_read_is_a_clear_error(tmp_path: Path, cli) -> None:
    kb = make_kb(tmp_path, {"n": ("Quokka", "Body.", {})})
    (kb / "synonyms.txt").write_bytes(b"\xff\xfe not utf-8")
    res = cli("--kb", str(kb), "search", "quokka", "--limit", "3")
    assert res.code == 1
    assert "synonym table" in res.err and "hint:" in res.err


def test_understand_reads_concepts() -> None:
    table = Synonyms.parse("wal, write-ahead log\n")
    q = understand("where did the write-ahead log grow Mac", table)
    assert [c.text for c in q.concepts] == ["write-ahead log", "grow", "Mac"]
    wal = q.concepts[0].alternatives
    assert wal[EXACT] == ['"write ahead log"'] and wal[SYNONYM] == ['"wal"']
    assert '"log"' in wal[PART]
    assert PREFIX not in q.concepts[2].alternatives  # "Mac": three letters
    grow = understand("pool grow", table).concepts[1].alternatives
    assert grow[PREFIX] == ['"grow"*']
    code = understand("redis.exceptions.ConnectionError:", table).concepts[0].alternatives
    assert code[EXACT] == ['"redis exceptions connectionerror"']
    assert {'"redis"', '"connection"', '"error"'} <= set(code[PART])


# --------------------------------------------------------------------------- confidence


@pytest.mark.parametrize("proofs", ["1", "40"])
def test_confidence_breaks_ties_but_never_overturns_relevance(tmp_path: Path, proofs: str) -> None:
    kb = make_kb(
        tmp_path,
        {
            # The only note about all three words, but a low-confidence one.
            "exact": (
                "Zephyr cache eviction storms",
                "Zephyr evicts the whole cache at once.",
                {"confidence": "low"},
            ),
            # Strong notes that share one word each.
            "strong-1": (
                "Zephyr deploys",
                "Deploy with care.",
                {"confidence": "high", "proof_count": proofs},
            ),
            "strong-2": (
                "Cache headers",
                "Set cache headers.",
                {"confidence": "high", "proof_count": proofs},
            ),
            # Same text twice: only confidence tells them apart.
            "twin-low": ("Zephyr twin", "Twin body.", {"confidence": "low"}),
            "twin-high": ("Zephyr twin", "Twin body.", {"confidence": "high"}),
        },
    )
    assert ids(kb, "zephyr cache eviction")[0] == "exact"
    assert ids(kb, "zephyr twin")[:2] == ["twin-high", "twin-low"]


def test_the_shipped_table_holds_abbreviations_error_codes_and_what_tools_are(
    tmp_path: Path,
) -> None:
    # General knowledge only: an abbreviation, an error code's message, a tool and what it is.
    # Each is checked against a note that shares a word of the phrase but means something else.
    kb = make_kb(
        tmp_path,
        {
            "envvar": ("Quote it", "Export the env var before the build.", {}),
            "variable": ("Shadowing", "A local variable shadows the loop one.", {}),
            "enospc": ("Full runner", "The runner failed with ENOSPC while unpacking.", {}),
            "device": ("USB device", "The device was left on the desk.", {}),
            "celery": ("Worker acks", "Celery acknowledges late with acks_late.", {}),
            "queue": ("Print queue", "The printer queue jammed.", {}),
        },
    )
    assert ids(kb, "environment variable")[0] == "envvar"
    assert ids(kb, "variable")[0] == "variable"  # the word alone means itself
    assert ids(kb, "no space left on device")[0] == "enospc"
    assert ids(kb, "device")[0] == "device"
    assert ids(kb, "task queue acknowledgement")[0] == "celery"
    assert ids(kb, "queue jammed")[0] == "queue"
    read = understand("task queue", shipped())
    assert [c.text for c in read.concepts] == ["task queue"]
    assert '"celery"' in read.concepts[0].alternatives[SYNONYM]


def test_the_shipped_table_holds_no_everyday_equivalences() -> None:
    # Lines such as "worker, consumer" or "deploy, to production" pushed the notes that matched
    # them over the note a query meant (docs/search.md): words a team uses its own way go in
    # the KB's table.
    for word in ("worker", "deploy", "hang", "slow", "leak", "job", "error", "stale", "spike"):
        assert understand(word, shipped()).concepts[0].alternatives.get(SYNONYM) is None, word


# --------------------------------------------------------------------------- coverage


def _coverage_kb(tmp_path: Path) -> Path:
    """A note holding the rarest word of a query three times, one holding its other words."""
    notes: dict[str, tuple[str, str, dict[str, str]]] = {
        f"pet-{i:02d}": ("Pet note", f"The cat sleeps {i} hours.", {}) for i in range(12)
    }
    notes |= {
        f"boot-{i}": ("Boot note", f"The firmware flash step {i} runs at boot.", {})
        for i in range(4)
    }
    notes["deep"] = ("Board", "The quokkaboard resets; a quokkaboard reset; quokkaboard again.", {})
    notes["wide"] = ("Driver", "The firmware flash stalls the driver at boot.", {})
    return make_kb(tmp_path, notes)


def test_a_note_that_holds_more_of_the_query_ranks_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = _coverage_kb(tmp_path)
    # "wide" holds three of the four words (each in five notes), "deep" only the rarest, three
    # times over.
    got = ids(kb, "quokkaboard firmware flash boot")
    assert got.index("wide") < got.index("deep")
    # Negative: without coverage bm25's sum puts the note with the one rare word first.
    monkeypatch.setattr(ranking_module, "COVERAGE_POWER", 0.0)
    assert ids(kb, "quokkaboard firmware flash boot")[0] == "deep"


def test_coverage_never_flattens_notes_that_hold_the_same_words(tmp_path: Path) -> None:
    kb = _coverage_kb(tmp_path)
    # Negative: every boot note and "wide" hold both words; bm25 still orders them (the
    # shorter "wide" first), and the ids only break the boot notes' exact ties.
    assert ids(kb, "firmware flash")[:5] == ["wide", "boot-0", "boot-1", "boot-2", "boot-3"]
    assert ids(kb, "quokkaboard")[0] == "deep"


def test_coverage_counts_each_concept_by_its_weight_and_how_it_matched() -> None:
    from reflectgit.workflows.search.ranking import coverage

    assert coverage([1.0, 1.0], [1.0, 1.0]) == 1.0
    assert coverage([1.0, 0.0], [1.0, 1.0]) == 0.5
    assert coverage([0.0, 1.0], [1.0, 0.5]) == 0.5 / 1.5  # an everyday word counts half
    assert coverage([0.3, 0.0], [1.0, 1.0]) == 0.15  # a part of a code-like word, 0.3
    assert coverage([0.0], [0.0]) == 1.0  # nothing with any weight asked


# --------------------------------------------------------------------------- phrases in other words


def test_an_abbreviation_inside_a_phrase_still_finds_the_phrase() -> None:
    # "embedded db" is "embedded database" (db: database), a term of the sqlite group; a phrase
    # the table does not know is left as its words, and no other word is swapped in.
    words = understand(
        "embedded db grows", Synonyms.parse("db, database\nsqlite, embedded database")
    )
    assert words.concepts[0].text == "embedded db"
    assert '"sqlite"' in words.concepts[0].alternatives[SYNONYM]
    unknown = understand("embedded db", Synonyms.parse("db, database\nsqlite, file database"))
    assert [c.text for c in unknown.concepts] == ["embedded", "db"]


def test_an_abbreviated_phrase_ranks_the_note_of_its_long_form_first(tmp_path: Path) -> None:
    kb = make_kb(
        tmp_path,
        {
            "wal": ("Checkpoint SQLite", "A long reader keeps the file growing.", {}),
            "embedded": ("Embedded Linux boards", "The db on the board keeps growing.", {}),
        },
    )
    (kb / "synonyms.txt").write_text("db, database\nsqlite, embedded database\n", "utf-8")
    assert ids(kb, "embedded db keeps growing")[0] == "wal"
    # without the table's phrase, the note holding both typed words leads
    (kb / "synonyms.txt").write_text("-embedded database\n", "utf-8")
    assert ids(kb, "embedded db keeps growing")[0] == "embedded"


@pytest.mark.parametrize(
    ("word", "read_as"),
    [("db's", "db"), ("repo\u2019s", "repo"), ("users'", "users"), ("'s", "'s"), ("bus", "bus")],
)
def test_a_possessive_is_its_word(word: str, read_as: str) -> None:
    assert understand(word, Synonyms.parse("")).concepts[0].text == read_as
