"""Edits keep the file: a one-field update, confirm or archive of a hand-written note changes
only that field's lines, as `git diff` sees them (issue 11.6).

Notes are written by hand (comments, odd quoting, flow lists, CRLF, a BOM) and committed with
plain git, as a person would; the real CLI then edits them and git says what changed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reflectgit.notes import edit
from reflectgit.notes.inplace import rewrite_note, rewrite_sidecar
from reflectgit.notes.note import Note, parse_note, parse_sidecar, render_note
from tests.conftest import git, needs_shared
from tests.support.kb import COMPAT, VALID, assert_clean, kb, rg

__all__ = ["kb", "rg"]

BOM = b"\xef\xbb\xbf"

HAND = {
    "comments-and-quotes": (
        "---\n"
        "# Written by hand; keep this comment.\n"
        "title: 'Pin the runner image'   # the short title\n"
        'created: "2026-03-04"\n'
        "confidence: medium\n"
        "tags: [ci, 'runner']\n"
        "\n"
        "# why it matters\n"
        "key_insight: >-\n"
        "  Floating images broke\n"
        "  the build twice.\n"
        "provenance:\n"
        "    proof_count: 1\n"
        "    source_memory_ids:\n"
        "      - pr-1\n"
        "category: ci\n"
        "---\n"
        "Pin `ubuntu-24.04`.\n"
    ),
    "crlf-and-bom": None,  # the same note with CRLF line endings and a BOM (below)
    "odd-order": (
        "---\n"
        "confidence: medium\n"
        "category:    ci\n"
        'title: "Quoted \\u00e9 title"\n'
        "created: 2026-03-04\n"
        "---\n"
        "\n"
        "Body after a blank line.\n"
    ),
}


def _bytes(name: str) -> bytes:
    if name == "crlf-and-bom":
        return BOM + HAND["comments-and-quotes"].replace("\n", "\r\n").encode()  # type: ignore[union-attr]
    text = HAND[name]
    assert text is not None
    return text.encode()


def commit_by_hand(kb: Path, name: str, data: bytes) -> str:
    (kb / "documents").mkdir(parents=True, exist_ok=True)
    path = f"documents/{name}.md"
    (kb / path).write_bytes(data)
    git("add", path, cwd=kb)
    git("-c", "core.autocrlf=false", "commit", "-qm", f"hand-written {name}", cwd=kb)
    return path


_HEADER = re.compile(r"^(?:\+\+\+ |--- )(?:a/|b/|/dev/null)")


def diff_lines(kb: Path) -> list[str]:
    """The changed lines of the last commit (``git diff -U0``), headers left out."""
    out = git("diff", "-U0", "HEAD~1", "HEAD", cwd=kb)
    return [line for line in out.splitlines() if line[:1] in "+-" and not _HEADER.match(line)]


@pytest.mark.parametrize("name", sorted(HAND))
def test_update_of_one_field_changes_that_line_and_adds_updated(rg, kb, name):
    data = _bytes(name)
    path = commit_by_hand(kb, name, data)
    res = rg("update", name, "--set", "confidence=high")
    assert res.code == 0, res
    lines = diff_lines(kb)
    cr = ""  # git's text output (universal newlines); the bytes are checked below
    updated = [line for line in lines if line.startswith("+updated: ")]
    assert len(updated) == 1 and re.fullmatch(rf"\+updated: \S+{cr}", updated[0]), lines
    rest = sorted(line for line in lines if line not in updated)
    assert rest == [f"+confidence: high{cr}", f"-confidence: medium{cr}"], lines
    after = (kb / path).read_bytes()
    assert after.startswith(BOM) == data.startswith(BOM)
    assert (b"\r\n" in after) == (b"\r\n" in data)
    if b"\r\n" in data:
        assert b"\n" not in after.replace(b"\r\n", b"")  # every line still ends CRLF
    assert_clean(kb)


def test_updated_lands_after_created_and_a_second_update_changes_one_line(rg, kb):
    path = commit_by_hand(kb, "odd-order", _bytes("odd-order"))
    assert rg("update", "odd-order", "--set", "category=build").code == 0
    text = (kb / path).read_text()
    assert "created: 2026-03-04\nupdated: " in text
    assert "category: build\n" in text  # the edited line is emitted fresh
    assert 'title: "Quoted \\u00e9 title"\n' in text  # untouched lines keep their bytes
    assert rg("update", "odd-order", "--set", "title=Now pinned").code == 0
    lines = diff_lines(kb)
    # `updated` changes too, unless both updates fell in the same second.
    others = [line for line in lines if not line[1:].startswith("updated: ")]
    assert sorted(line[:7] for line in others) == ["+title:", "-title:"], lines
    # The old value was double-quoted: the new one is too.
    assert '+title: "Now pinned"' in lines


@pytest.mark.parametrize("name", ["comments-and-quotes", "crlf-and-bom"])
def test_confirm_changes_proof_count_and_adds_the_source_only(rg, kb, name):
    data = _bytes(name)
    commit_by_hand(kb, name, data)
    res = rg("confirm", name, "--source", "pr-2")
    assert res.code == 0, res
    cr = ""  # git's text output (universal newlines)
    lines = diff_lines(kb)
    assert sorted(lines) == sorted(
        [f"-    proof_count: 1{cr}", f"+    proof_count: 2{cr}", f"+      - pr-2{cr}"]
    ), lines


def test_confirm_of_a_note_without_provenance_only_adds_lines(rg, kb):
    commit_by_hand(kb, "odd-order", _bytes("odd-order"))
    assert rg("confirm", "odd-order", "--source", "pr-9").code == 0
    lines = diff_lines(kb)
    assert all(line.startswith("+") for line in lines), lines
    assert "+provenance:" in lines and "+  - pr-9" in lines


@pytest.mark.parametrize("name", sorted(HAND))
def test_archive_moves_the_bytes_unchanged(rg, kb, name):
    data = _bytes(name)
    commit_by_hand(kb, name, data)
    assert rg("archive", name).code == 0
    status = git("diff", "-M", "--name-status", "HEAD~1", "HEAD", cwd=kb).split()
    assert status == ["R100", f"documents/{name}.md", f"archived/{name}.md"]
    assert (kb / "archived" / f"{name}.md").read_bytes() == data


@needs_shared
@pytest.mark.parametrize("note", sorted(COMPAT.glob("*.md"))[:8], ids=lambda p: p.stem)
def test_compat_notes_keep_their_bytes_under_an_update(rg, kb, note):
    """The original tool's real notes: a tier change is a one-line change plus `updated`."""
    assert rg("import", str(note.parent)).code == 0
    before = parse_note(note.read_bytes()).frontmatter["confidence"]
    after = "low" if before != "low" else "high"
    assert rg("update", note.stem, "--set", f"confidence={after}").code == 0
    lines = diff_lines(kb)
    assert f"-confidence: {before}" in lines and f"+confidence: {after}" in lines
    assert len(lines) == 3, lines


# --------------------------------------------------------------------------- the splicer


def _all_corpus() -> list[Path]:
    return sorted(COMPAT.glob("*.md")) + sorted(VALID.glob("*.md"))


@needs_shared
@pytest.mark.parametrize("path", _all_corpus(), ids=lambda p: p.name)
def test_no_edit_gives_the_same_bytes_and_an_edit_reads_back(path):
    data = path.read_bytes()
    note = parse_note(data)
    assert rewrite_note(data, Note(dict(note.frontmatter), note.body)) == data
    confirmed = edit.confirm(note, "review-7")
    assert confirmed is not None
    out = rewrite_note(data, confirmed)
    again = parse_note(out)
    assert again.frontmatter == confirmed.frontmatter and again.body == note.body
    # Only lines were added or replaced near provenance: every old line but the changed
    # ones is still there, in order.
    old_lines = data.decode("utf-8-sig").splitlines()
    new_lines = out.decode("utf-8-sig").splitlines()
    kept = [line for line in old_lines if line in new_lines]
    # At most proof_count's old line and an empty flow list `source_memory_ids: []`.
    assert len(old_lines) - len(kept) <= 2


def test_a_removed_field_removes_its_lines_and_a_new_body_keeps_crlf():
    data = _bytes("crlf-and-bom")
    note = parse_note(data)
    front = dict(note.frontmatter)
    del front["tags"]
    out = rewrite_note(data, Note(front, "New body\nsecond line\n"))
    assert out.startswith(BOM)
    assert b"tags:" not in out
    assert out.endswith(b"---\r\nNew body\r\nsecond line\r\n")
    assert b"# Written by hand; keep this comment.\r\n" in out


def test_an_unsplicable_frontmatter_falls_back_to_the_canonical_rendering():
    data = b"---\n{title: Flow, created: '2026-03-04', confidence: low}\n---\nx\n"
    note = parse_note(data)
    front = {**note.frontmatter, "confidence": "high"}
    assert rewrite_note(data, Note(front, note.body)) == render_note(Note(front, note.body))


def test_injected_values_are_emitted_by_the_yaml_emitter():
    data = _bytes("comments-and-quotes")
    note = parse_note(data)
    evil = "x\nconfidence: high\n# y"
    out = rewrite_note(data, Note({**note.frontmatter, "category": evil}, note.body))
    assert parse_note(out).frontmatter["category"] == evil
    assert parse_note(out).frontmatter["confidence"] == "medium"


@needs_shared
def test_a_sidecar_edit_changes_only_its_lines():
    data = (COMPAT / "gr-03-circuit-breaker-rollout.entities.yaml").read_bytes()
    side = parse_sidecar(data).data
    side["document_id"] = "renamed"
    out = rewrite_sidecar(data, side)
    old, new = data.decode().splitlines(), out.decode().splitlines()
    assert [a for a, b in zip(old, new, strict=True) if a != b] == [old[0]]
    assert new[0] == "document_id: renamed"


def test_a_quoted_flow_list_keeps_its_quotes_when_an_item_is_added() -> None:
    from reflectgit.notes.inplace import rewrite_note
    from reflectgit.notes.note import Note, parse_note

    for old, new in (
        ('tags: ["a", "b"]', 'tags: ["a", "b", "c"]'),
        ("tags: ['a', 'b']", "tags: ['a', 'b', 'c']"),
        ("tags: [a, b]", "tags: [a, b, c]"),
        ('tags: ["a", b]', "tags: [a, b, c]"),  # mixed: the emitter's own style
    ):
        data = f"---\ntitle: t\n{old}\n---\nbody\n".encode()
        note = parse_note(data)
        edited = Note({**note.frontmatter, "tags": ["a", "b", "c"]}, note.body)
        assert rewrite_note(data, edited) == f"---\ntitle: t\n{new}\n---\nbody\n".encode()
