"""``Index.ranked``'s state and project filters apply before its cut, as tag and tier do: the
best matches of one project or state, not the project's share of everyone's best."""

from __future__ import annotations

from reflectgit.workflows.search.documents import document_from
from reflectgit.workflows.search.index import Index
from tests.support.search import note_text


def kb() -> Index:
    """Ten notes of project "alpha" and two of "beta" that say "retry", two archived notes
    that say it, thirty that do not."""
    index = Index.memory()
    docs = [
        document_from(
            f"documents/a{i}.md",
            note_text(f"a{i}", f"Retry {i}", "Retry once, then wait a while.", project="alpha"),
            None,
        )
        for i in range(10)
    ]
    docs += [
        document_from(
            f"documents/b{i}.md",
            note_text(f"b{i}", f"Retry retry {i}", "Retry, retry.", project="beta"),
            None,
        )
        for i in range(2)
    ]
    docs += [
        document_from(f"archived/z{i}.md", note_text(f"z{i}", f"Old {i}", "Retry once."), None)
        for i in range(2)
    ]
    docs += [
        document_from(f"documents/f{i}.md", note_text(f"f{i}", f"Golang {i}", "Go."), None)
        for i in range(30)
    ]
    index.add_documents(docs)
    return index


def test_a_project_gets_its_own_best_matches() -> None:
    with kb() as index:
        best = [h.id for h in index.ranked("retry", limit=3, cut=3)]
        assert sum(i.startswith("a") for i in best) < 3  # beta's two notes rank first
        got = [h.id for h in index.ranked("retry", limit=3, cut=3, project="alpha")]
        assert len(got) == 3 and all(i.startswith("a") for i in got)


def test_one_state_gets_its_own_best_matches() -> None:
    with kb() as index:
        got = {
            h.id for h in index.ranked("retry", limit=3, cut=3, include_all=True, state="archived")
        }
        assert got == {"z0", "z1"}
