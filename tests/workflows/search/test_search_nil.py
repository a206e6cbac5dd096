"""Words in at least half the notes are not scored (``Index._nil``): bm25 gives them nothing
(a zero IDF, which FTS5 floors at 1e-6), and they are the costliest queries. The order of the
notes that matter stays; a query of nothing but such words still answers."""

from __future__ import annotations

from reflectgit.workflows.search.documents import document_from
from reflectgit.workflows.search.index import Index
from tests.support.search import note_text

CUT = 10  # the notes each alternative reads, as recall and search pass it


def kb(common: int, total: int) -> Index:
    """``total`` notes, the first ``common`` holding the word "python"; notes 0 and 1 also
    hold "celery", note 1 "prefetch" too."""
    index = Index.memory()
    docs = []
    for i in range(total):
        words = ["python"] if i < common else ["golang"]
        words += ["celery"] if i < 2 else []
        words += ["prefetch"] if i == 1 else []
        body = f"Note {i} about " + " and ".join(words) + "."
        docs.append(
            document_from(f"documents/n{i}.md", note_text(f"n{i}", f"Note {i}", body), None)
        )
    index.add_documents(docs)
    return index


def test_a_word_in_most_notes_is_not_scored_and_the_order_stays() -> None:
    with kb(common=30, total=40) as index:
        got = [h.id for h in index.ranked("python celery prefetch", limit=CUT, cut=CUT)]
        assert got == ["n1", "n0"]  # "python" alone (28 notes) earns nothing
        index._nil = lambda concepts, cut: set()  # type: ignore[method-assign]
        scored = [h.id for h in index.ranked("python celery prefetch", limit=CUT, cut=CUT)]
        assert scored[:2] == got and len(scored) > len(got)


def test_a_query_of_nothing_but_common_words_still_answers() -> None:
    with kb(common=30, total=40) as index:
        assert len(index.ranked("python", limit=CUT, cut=CUT)) == CUT


def test_a_small_kb_is_unchanged() -> None:
    # 15 of 20 notes hold "python", but no more than CUT can: it is scored as before.
    with kb(common=15, total=20) as index:
        assert len(index.ranked("python celery", limit=20, cut=20)) == 15
