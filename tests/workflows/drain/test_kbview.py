from __future__ import annotations

from pathlib import Path

import pytest

from reflectgit.git.change import delete, write
from reflectgit.git.store import Store
from reflectgit.notes.messages import build
from reflectgit.notes.note import Note, render_note
from reflectgit.workflows.drain import kbview


def _note(nid: str, title: str, digest: str = "") -> bytes:
    front = {"id": nid, "title": title, "created": "2026-01-01", "confidence": "low"}
    if digest:
        front["provenance"] = {"content_hash": digest}
    return render_note(Note(front, "\n"))


def test_summaries_are_cached_by_blob(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    st = Store.open(repo)
    st.commit(
        [write(f"documents/n{i}.md", _note(f"n{i}", f"Title {i}", f"h{i}")) for i in range(3)]
        + [write("archived/old.md", _note("old", "Old"))],
        build("seed", "add", []),
    )
    view = kbview.KbView(st, tmp_path)
    assert view.by_signal_hash("h1") == "n1"
    assert view.exists("old") and not view.exists("nope")
    assert (tmp_path / kbview.CACHE_FILE).exists()
    parsed: list[str] = []
    real = kbview.parse_note

    def counting(data: bytes, source: str = "<note>") -> Note:
        parsed.append(source)
        return real(data, source)

    monkeypatch.setattr(kbview, "parse_note", counting)
    again = kbview.KbView(st, tmp_path)
    assert sorted(c[0] for c in again.candidates()) == ["n0", "n1", "n2"]
    assert parsed == [], "nothing re-parsed"
    st.commit([write("documents/n2.md", _note("n2", "Changed")), delete("documents/n0.md")], "edit")
    third = kbview.KbView(st, tmp_path)
    assert sorted(c[1] for c in third.candidates()) == ["Changed", "Title 1"]
    assert parsed == ["documents/n2.md"]
    known = third.get("n1")
    assert known is not None and known.note.title == "Title 1"


def test_no_cache_is_written_when_told_not_to(repo: Path, tmp_path: Path) -> None:
    st = Store.open(repo)
    st.commit([write("documents/a.md", _note("a", "A"))], "seed")
    assert kbview.KbView(st, tmp_path, save=False).exists("a")
    assert not (tmp_path / kbview.CACHE_FILE).exists()
