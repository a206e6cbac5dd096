"""The synonym table read at run time (workflows/search/synonyms.py).

A KB's own synonyms.txt extends (and trims) the shipped table exactly as parsing both would;
the parsed table kept in the state directory is that same table; a changed file is seen; a
cache that is broken in any way is ignored and written again; no cache goes where no index is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from reflectgit.workflows.search import query
from reflectgit.workflows.search.query import Synonyms, shipped
from reflectgit.workflows.search.synonyms import cache_file, kb_synonyms
from tests.conftest import REPO_ROOT

TEXT = (REPO_ROOT / "reflectgit" / "workflows" / "search" / "synonyms.txt").read_text("utf-8")


def parsed_fresh(text: str) -> tuple[object, object]:
    """Groups and lookup as parsing and indexing every group from scratch gives them."""
    fresh = Synonyms(Synonyms.parse(text).groups)  # no lookup carried over: index every group
    return fresh.groups, fresh._lookup


def a_kb(tmp_path: Path, text: str | None) -> tuple[Path, Path]:
    """A KB folder with ``text`` as its synonyms.txt (none for None), and its state folder."""
    kb = tmp_path / "kb"
    state = kb / "state"
    state.mkdir(parents=True)
    if text is not None:
        (kb / "synonyms.txt").write_text(text, encoding="utf-8")
    return kb, state


def test_the_shipped_table_is_its_file_parsed() -> None:
    assert (shipped().groups, shipped()._lookup) == parsed_fresh(TEXT)
    assert ("wal", "write-ahead log", "write ahead log") in shipped().groups


@pytest.mark.parametrize(
    "kb_text",
    [
        None,  # no file: the shipped table
        "quokka, marsupial\n",
        "# ours\nquokka, marsupial\nwal, wombat log\n",  # a second group for a shipped term
        "quokka, marsupial\n-pr\n",  # a removal
        "-wal\n",
        "lonely\n\n# nothing\n",  # no group at all
        "time out, tmo\nall pages, every page\n",  # idioms (terms with stop words)
    ],
)
def test_a_kb_table_is_the_shipped_one_extended_parsed_or_cached(
    tmp_path: Path, kb_text: str | None
) -> None:
    kb, state = a_kb(tmp_path, kb_text)
    expected = parsed_fresh(TEXT + "\n" + (kb_text or ""))
    parsed = kb_synonyms(kb, "synonyms.txt")  # no state directory: no cache
    assert (parsed.groups, parsed._lookup) == expected
    assert not Path(cache_file(state, kb)).exists()
    first = kb_synonyms(kb, "synonyms.txt", state)  # parsed, and kept
    assert Path(cache_file(state, kb)).exists()
    again = kb_synonyms(kb, "synonyms.txt", state)  # read from the cache
    assert (first.groups, first._lookup) == (again.groups, again._lookup) == expected
    for group in again.groups:  # the answers, not only the data
        for term in group:
            key = query._key(term)
            assert again.terms(key) == parsed.terms(key)
            assert again.idiom(query.tokens_of(term)) == parsed.idiom(query.tokens_of(term))
    # Extending never changes the shipped table itself.
    assert (shipped().groups, shipped()._lookup) == parsed_fresh(TEXT)


def test_a_changed_kb_file_is_seen(tmp_path: Path) -> None:
    kb, state = a_kb(tmp_path, "quokka, marsupial\n")
    assert "marsupial" in kb_synonyms(kb, "synonyms.txt", state).terms(("quokka",))
    # The same size, written at once: the text, not the file's size or time, tells them apart.
    (kb / "synonyms.txt").write_text("quokka, wallabies\n", encoding="utf-8")
    changed = kb_synonyms(kb, "synonyms.txt", state)
    assert "wallabies" in changed.terms(("quokka",))
    assert "marsupial" not in changed.terms(("quokka",))
    kept = json.loads(Path(cache_file(state, kb)).read_text("utf-8"))
    assert ["quokka", "wallabies"] in kept["groups"]
    (kb / "synonyms.txt").unlink()
    assert kb_synonyms(kb, "synonyms.txt", state).terms(("quokka",)) == []
    assert kb_synonyms(kb, "synonyms.txt", state).groups == shipped().groups


def _out_of_range(doc: dict[str, object]) -> dict[str, object]:
    buckets = doc["buckets"]
    assert isinstance(buckets, dict)
    return {**doc, "buckets": {**buckets, "qu": [10**6]}}


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: b"\xff\xfe not json",
        lambda raw: raw[: len(raw) // 2],  # cut short
        lambda raw: b"[]",
        lambda raw: b"{}",
        lambda raw: b"[" * 100_000,  # nested past the parser's depth
        # The right source, the wrong shape: a group that is not a list, an index past the end.
        lambda raw: json.dumps({**json.loads(raw), "groups": "quokka"}).encode(),
        lambda raw: json.dumps(_out_of_range(json.loads(raw))).encode(),
        lambda raw: json.dumps({**json.loads(raw), "idioms": {"all pages": ["0"]}}).encode(),
    ],
    ids=["bytes", "cut", "list", "empty", "deep", "groups", "range", "index-type"],
)
def test_a_broken_cache_is_ignored_and_written_again(
    tmp_path: Path, damage: Callable[[bytes], bytes]
) -> None:
    kb, state = a_kb(tmp_path, "quokka, marsupial\n")
    expected = parsed_fresh(TEXT + "\nquokka, marsupial\n")
    kb_synonyms(kb, "synonyms.txt", state)
    cache = Path(cache_file(state, kb))
    good = cache.read_bytes()
    cache.write_bytes(damage(good))
    table = kb_synonyms(kb, "synonyms.txt", state)
    assert (table.groups, table._lookup) == expected
    assert "marsupial" in table.terms(("quokka",))
    assert cache.read_bytes() == good  # written again, as it was


def test_no_cache_goes_where_no_index_folder_is(tmp_path: Path) -> None:
    kb, _state = a_kb(tmp_path, "quokka, marsupial\n")
    shared = tmp_path / "shared-state"  # a state directory outside the KB: a folder per KB
    assert "marsupial" in kb_synonyms(kb, "synonyms.txt", shared).terms(("quokka",))
    assert not shared.exists()
    cache = Path(cache_file(shared, kb))
    assert cache.parent.parent == shared / "indexes"  # next to that KB's index
    cache.parent.mkdir(parents=True)  # as building the index makes it
    assert "marsupial" in kb_synonyms(kb, "synonyms.txt", shared).terms(("quokka",))
    assert cache.exists()
