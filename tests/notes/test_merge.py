"""The three-way merge of notes and sidecars, field by field (``notes/merge.py``), and git's
conflict markers found in a file (``notes/conflicts.py``)."""

from __future__ import annotations

import pytest

from reflectgit.errors import NoteError
from reflectgit.notes.conflicts import conflicts
from reflectgit.notes.merge import (
    changed_fields,
    merge_fields,
    merge_note,
    merge_sidecar,
    set_merge,
)
from reflectgit.notes.note import parse_note, parse_sidecar

BASE = b"""---
id: pool-timeout-a1b2c3
created: 2026-03-04T09:12:00Z
updated: 2026-03-04T09:12:00Z
confidence: medium
confidence_num: 0.6
title: "Pool timeout on cold start"
tags: ["postgres", "pooling"]
rule: "Prefill pools."  # kept
provenance:
  source_tool: claude
  source_memory_ids: [ep-1]
  proof_count: 1
---

## Problem
First requests time out.
"""


def no_body_merge(base: str, ours: str, theirs: str) -> tuple[str, bool]:
    raise AssertionError("the bodies differ on one side only: no text merge is needed")


def edit(data: bytes, *pairs: tuple[str, str]) -> bytes:
    text = data.decode()
    for old, new in pairs:
        assert old in text
        text = text.replace(old, new)
    return text.encode()


def test_different_fields_merge_and_updated_is_the_later() -> None:
    ours = edit(BASE, ("updated: 2026-03-04T09:12:00Z", "updated: 2026-03-06T08:00:00Z"),
                ("confidence: medium", "confidence: high"))  # fmt: skip
    theirs = edit(BASE, ("updated: 2026-03-04T09:12:00Z", "updated: 2026-03-05T08:00:00Z"),
                  ('"pooling"]', '"pooling", "startup"]'))  # fmt: skip
    merged = merge_note(BASE, ours, theirs, no_body_merge)
    assert merged.clean
    front = parse_note(merged.data).frontmatter
    assert front["confidence"] == "high"
    assert front["tags"] == ["postgres", "pooling", "startup"]
    assert str(front["updated"]).startswith("2026-03-06")
    # ours's bytes with theirs's one field spliced in (as `update` writes it): a one-line diff
    assert merged.data == edit(ours, ('"pooling"]', '"pooling", "startup"]'))


def test_same_scalar_changed_differently_is_a_conflict_in_that_field_alone() -> None:
    ours = edit(BASE, ("confidence: medium", "confidence: high"), ('"pooling"]', '"pooling", "a"]'))
    theirs = edit(BASE, ("confidence: medium", "confidence: low"), ('["postgres", ', '["b", '))
    merged = merge_note(BASE, ours, theirs, no_body_merge, marker_size=9)
    assert merged.conflicts == ("confidence",)
    text = merged.data.decode()
    assert (
        "<<<<<<<<< ours\nconfidence: high\n=========\nconfidence: low\n>>>>>>>>> theirs\n" in text
    )
    assert 'tags: ["pooling", "a", "b"]' in text  # the rest merged: postgres removed, a and b added
    assert [c.end - c.start for c in conflicts(text)] == [4]


def test_nested_conflict_marks_the_nested_lines_and_recounts_proofs() -> None:
    ours = edit(BASE, ("source_tool: claude", "source_tool: codex"),
                ("[ep-1]", "[ep-1, pr-2]"), ("proof_count: 1", "proof_count: 2"))  # fmt: skip
    theirs = edit(BASE, ("source_tool: claude", "source_tool: copilot"),
                  ("[ep-1]", "[ep-1, pr-3]"), ("proof_count: 1", "proof_count: 2"))  # fmt: skip
    merged = merge_note(BASE, ours, theirs, no_body_merge)
    assert merged.conflicts == ("provenance.source_tool",)
    text = merged.data.decode()
    assert (
        "<<<<<<< ours\n  source_tool: codex\n=======\n  source_tool: copilot\n>>>>>>> theirs\n"
        in text
    )
    assert "source_memory_ids: [ep-1, pr-2, pr-3]\n  proof_count: 3\n" in text


def test_the_same_change_on_both_sides_is_no_conflict() -> None:
    ours = edit(BASE, ("confidence: medium", "confidence: high"))
    assert merge_note(BASE, ours, ours, no_body_merge).data == ours


def test_a_removal_and_a_change_of_one_field_conflict_and_a_removal_alone_stands() -> None:
    gone = edit(BASE, ('rule: "Prefill pools."  # kept\n', ""))
    changed = edit(BASE, ('"Prefill pools."', '"Warm pools."'))
    merged = merge_note(BASE, gone, changed, no_body_merge)
    assert merged.conflicts == ("rule",)
    assert "<<<<<<< ours\n=======\nrule: Warm pools.\n>>>>>>> theirs\n" in merged.data.decode()
    other = edit(BASE, ("confidence: medium", "confidence: low"))
    assert "rule" not in parse_note(merge_note(BASE, gone, other, no_body_merge).data).frontmatter


def test_crlf_and_bom_of_ours_are_kept() -> None:
    ours = b"\xef\xbb\xbf" + edit(BASE, ("confidence: medium", "confidence: high")).replace(
        b"\n", b"\r\n"
    )
    theirs = edit(BASE, ('title: "Pool', 'title: "The pool'))
    merged = merge_note(BASE, ours, theirs, no_body_merge)
    assert merged.clean and merged.data.startswith(b"\xef\xbb\xbf---\r\n")
    assert merged.data.count(b"\n") == merged.data.count(b"\r\n")
    assert parse_note(merged.data).frontmatter["title"] == "The pool timeout on cold start"


def test_both_bodies_changed_go_to_the_body_merge() -> None:
    calls = []

    def body_merge(base: str, ours: str, theirs: str) -> tuple[str, bool]:
        calls.append((base, ours, theirs))
        return "merged body\n", False

    ours = edit(BASE, ("First requests", "The first requests"))
    theirs = edit(BASE, ("time out.", "time out after deploys."))
    merged = merge_note(BASE, ours, theirs, body_merge)
    assert merged.clean and parse_note(merged.data).body == "merged body\n"
    assert len(calls) == 1


def test_both_sides_added_the_note() -> None:
    theirs = edit(BASE, ("confidence: medium", "confidence: high"), ('"pooling"]', '"x"]'))
    merged = merge_note(None, BASE, theirs, no_body_merge)
    assert merged.conflicts == ("confidence",)
    assert 'tags: ["postgres", "pooling", "x"]' in merged.data.decode()


def test_a_side_that_does_not_parse_is_refused() -> None:
    with pytest.raises(NoteError):
        merge_note(BASE, b"---\ntitle: [\n---\n", BASE, no_body_merge)


def test_sets_keep_additions_and_removals_from_both_sides() -> None:
    assert set_merge(["a", "b", "c"], ["a", "c", "d"], ["b", "c", "e"]) == ["c", "d", "e"]
    assert set_merge([], ["x"], ["x"]) == ["x"]
    edge = {"source": "a", "target": "b", "type": "causes"}
    assert set_merge([edge], [edge, {**edge, "type": "enables"}], []) == [
        {**edge, "type": "enables"}
    ]


def test_field_rules_do_not_treat_other_lists_as_sets() -> None:
    # `symptoms` is a set; an unknown list changed on both sides is a conflict
    fields = merge_fields({"x": [1]}, {"x": [1, 2]}, {"x": [3]})
    assert fields.conflicts == ("x",)
    assert (
        merge_fields({"n": 1}, {"n": 1.0}, {"n": 1}).ours["n"] == 1.0
    )  # a type change is a change


def test_sidecar_entities_and_relationships_merge_as_sets() -> None:
    base = b"""document_id: x
entities:
  - name: "sqlalchemy"
    type: library
    description: ""
relationships:
  - source: a
    target: b
    type: causes
    description: ""
"""
    ours = base + b'  - source: c\n    target: d\n    type: uses\n    description: ""\n'
    theirs = edit(base, ('  - name: "sqlalchemy"', '  - name: "psycopg"\n    type: library\n'
                         '    description: ""\n  - name: "sqlalchemy"'))  # fmt: skip
    merged = merge_sidecar(base, ours, theirs)
    assert merged.clean
    data = parse_sidecar(merged.data).data
    assert [e["name"] for e in data["entities"]] == ["psycopg", "sqlalchemy"]
    assert [r["source"] for r in data["relationships"]] == ["a", "c"]


# --------------------------------------------------------------------------- markers


@pytest.mark.parametrize(
    "text",
    [
        "a\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\nb\n",
        "<<<<<<< HEAD\r\nx\r\n||||||| base\r\nw\r\n=======\r\ny\r\n>>>>>>> branch\r\n",
        "<<<<<<<<<\nx\n=========\n>>>>>>>>>\n",
    ],
)
def test_conflict_markers_are_found(text: str) -> None:
    assert len(conflicts(text)) == 1
    assert conflicts(text)[0].start == text.split("\n").index(text.split("\n")[0]) + (
        1 if text.startswith("<") else 2
    )


@pytest.mark.parametrize(
    "text",
    [
        "Title\n=======\n\ntext\n",  # a setext heading
        "```\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> theirs\n```\n",  # an example in a code block
        "<<<<<<< HEAD\nx\n>>>>>>> theirs\n",  # no middle
        "<<<<<<< HEAD\nx\n========\ny\n>>>>>>> theirs\n",  # sizes differ
        "  <<<<<<< HEAD\nx\n=======\ny\n>>>>>>> t\n",  # not at the start of a line
        "a <<<<<<< b ======= c >>>>>>> d\n",
    ],
)
def test_text_that_only_looks_like_markers_is_not_a_conflict(text: str) -> None:
    assert conflicts(text) == []


def test_a_sidecar_scalar_changed_on_both_sides_conflicts_there_alone() -> None:
    base = b'document_id: x\nextracted_at: "2026-03-04"\nentities: []\n'
    ours = base.replace(b"document_id: x", b"document_id: y")
    theirs = base.replace(b"document_id: x", b"document_id: z").replace(b"03-04", b"03-09")
    merged = merge_sidecar(base, ours, theirs)
    assert merged.conflicts == ("document_id",)
    text = merged.data.decode()
    assert text.startswith(
        "<<<<<<< ours\ndocument_id: y\n=======\ndocument_id: z\n>>>>>>> theirs\n"
    )
    assert 'extracted_at: "2026-03-09"' in text  # the later


def test_a_merge_that_does_not_validate_while_both_sides_do_is_a_conflict() -> None:
    from reflectgit.workflows.merging import merge_bytes

    base = BASE.replace(b"---\n\n##", b'enforce:\n  deny: ["Bash(rm -rf:*)"]\n  ask: ["Edit(.env)"]\n---\n\n##')  # fmt: skip
    ours = edit(base, ('  deny: ["Bash(rm -rf:*)"]\n', ""))
    theirs = edit(base, ('  ask: ["Edit(.env)"]\n', ""))
    result, data = merge_bytes(base, ours, theirs, "documents/pool-timeout-a1b2c3.md")
    assert not result.clean and result.conflicts == []
    assert result.problems and "enforce" in result.problems[0]
    assert parse_note(data).frontmatter["enforce"] == {}  # both removals, as merged
    fine, _ = merge_bytes(
        base, ours, edit(base, ("confidence: medium", "confidence: high")), "x.md"
    )
    assert fine.clean


def test_changed_fields_names_what_one_side_changed() -> None:
    side = BASE.replace(b"confidence: medium", b"confidence: high").replace(
        b"First requests time out.", b"Cold starts time out."
    )
    assert changed_fields(BASE, side) == ["confidence", "body"]
    dropped = BASE.replace(b'rule: "Prefill pools."  # kept\n', b"")
    assert changed_fields(BASE, dropped) == ["rule"]  # a removed field counts
    assert changed_fields(BASE, BASE) == []  # negative: nothing changed
    assert changed_fields(BASE, b"no front matter") == ["file"]
    assert changed_fields(BASE, None) == ["file"]
    assert "title" in changed_fields(None, BASE)  # added: every field is new


def test_anchors_merge_as_a_set() -> None:
    anchored = edit(BASE, ("tags:", "anchors:\n- {path: src/pool.py, commit: aaaaaaa}\ntags:"))
    ours = edit(anchored, ("commit: aaaaaaa}", "commit: bbbbbbb}"))  # re-anchored at HEAD
    theirs = edit(anchored, ("commit: aaaaaaa}", "commit: aaaaaaa}\n- {path: src/retry.py}"))
    merged = merge_note(anchored, ours, theirs, no_body_merge)
    assert merged.clean
    assert parse_note(merged.data).frontmatter["anchors"] == [
        {"path": "src/pool.py", "commit": "bbbbbbb"},
        {"path": "src/retry.py"},
    ]
