"""The shipped synonym table compiled ahead (workflows/search/synonyms_table.py).

Regenerating gives the checked-in module; the compiled table (groups and lookup) equals the
parsed one; a KB's own synonyms.txt still extends (and trims) it exactly as parsing both would;
a stale compiled table is ignored.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reflectgit.workflows.search import query, synonyms_table
from reflectgit.workflows.search.index import kb_synonyms
from reflectgit.workflows.search.query import Synonyms, compiled_source, shipped
from tests.conftest import REPO_ROOT

SEARCH = REPO_ROOT / "reflectgit" / "workflows" / "search"
TEXT = (SEARCH / "synonyms.txt").read_text("utf-8")


def parsed_fresh(text: str, base: Synonyms | None = None) -> tuple[object, object]:
    """Groups and lookup as parsing and indexing every group from scratch gives them."""
    table = Synonyms.parse(text, base)
    fresh = Synonyms(table.groups)  # no lookup carried over: index every group
    return fresh.groups, fresh._lookup


def test_regenerating_gives_the_checked_in_module() -> None:
    assert (SEARCH / "synonyms_table.py").read_text("utf-8") == compiled_source(TEXT)


def test_the_compiled_table_is_the_parsed_one() -> None:
    table = shipped()
    assert "_lookup" in table.__dict__  # it came from the compiled module, not a parse
    assert table.groups == synonyms_table.GROUPS
    assert (table.groups, table._lookup) == parsed_fresh(TEXT)
    assert table == Synonyms.parse(TEXT)
    # The answers, not only the data: every term of every group finds the same groups.
    plain = Synonyms.parse(TEXT)
    for group in plain.groups:
        for term in group:
            key = query._key(term)
            assert table.terms(key) == plain.terms(key)
            toks = query.tokens_of(term)
            assert table.idiom(toks) == plain.idiom(toks)


@pytest.mark.parametrize(
    "kb_text",
    [
        "quokka, marsupial\n",
        "# ours\nquokka, marsupial\nwal, wombat log\n",  # a second group for a shipped term
        "quokka, marsupial\n-pr\n",  # a removal: the lookup is built afresh
        "-wal\n",
        "lonely\n\n# nothing\n",  # no group at all
        "time out, tmo\nall pages, every page\n",  # idioms (terms with stop words)
    ],
)
def test_a_kb_table_extends_the_compiled_one_as_parsing_both_would(
    tmp_path: Path, kb_text: str
) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "synonyms.txt").write_text(kb_text, encoding="utf-8")
    table = kb_synonyms(kb, "synonyms.txt")
    assert (table.groups, table._lookup) == parsed_fresh(TEXT + "\n" + kb_text)
    assert table.groups == Synonyms.parse(kb_text, Synonyms.parse(TEXT)).groups
    # Extending never changes the shipped table itself.
    assert shipped()._lookup == parsed_fresh(TEXT)[1]


def test_a_stale_compiled_table_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(synonyms_table, "SOURCE_SHA1", "0" * 40)
    monkeypatch.setattr(synonyms_table, "GROUPS", (("wrong", "table"),))
    shipped.cache_clear()
    try:
        table = shipped()
        assert table.groups == Synonyms.parse(TEXT).groups
        assert ("wrong", "table") not in table.groups
    finally:
        shipped.cache_clear()
