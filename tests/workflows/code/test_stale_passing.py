"""``reflect-git stale`` against a real git history, on a change that touches a note's code only
in passing (issue 35, workflows/code/passing.py): the lines it rewrote hold a word the note uses
as prose, and neither the names it brought in nor its commit message say a word of the note.
Such a note is listed under ``changed``, not stale. The same block changed by a commit whose
message, or a new name, says what the note states, or on a name the note writes as code, stays
stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from reflectgit.workflows.code import passing
from tests.workflows.code.test_stale import World

TABLE_PY = '''def align_header(header, alignment, width):
    """Align a header cell."""
    lines = header.splitlines()
    if len(lines) > 1:
        return "\\n".join(pad(line, alignment, width) for line in lines)
    return pad(header, alignment, width)


def pad(text, alignment, width):
    return text.ljust(width) if alignment == "left" else text.rjust(width)
'''

# What the note states: its prose says "header" and "line"; its code is `align_header`.
SPLITS = (
    "`align_header` splits a multiline header on its breaks and pads each line on its own, "
    "so a header of two lines lines up with the cells under it."
)
# The same lesson, the padding call written as code.
PADS = "`align_header` calls `pad(header, alignment, width)` for a header of one line."

# The width now counts invisible characters: the multiline split the note is about holds.
WIDER = TABLE_PY.replace(
    "    return pad(header, alignment, width)\n",
    "    return pad(header, alignment, width + invisible(header))\n",
)


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def _ids(entries: list[dict[str, object]]) -> list[str]:
    return sorted(str(e["id"]) for e in entries)


def test_a_change_in_passing_is_listed_under_changed_not_stale(world: World) -> None:
    world.code.write("src/table.py", TABLE_PY).commit("tables")
    nid = world.add("Multiline headers are aligned line by line", SPLITS,
                    "src/table.py:align_header")  # fmt: skip
    world.code.write("src/table.py", WIDER).commit("Count invisible characters in the width")
    doc = world.stale()
    assert doc["stale"] == []
    assert _ids(doc["changed"]) == [nid]
    assert doc["changed"][0]["reason"] == "changed-elsewhere"


def test_a_commit_message_saying_what_the_note_states_keeps_it_stale(world: World) -> None:
    world.code.write("src/table.py", TABLE_PY).commit("tables")
    nid = world.add("Multiline headers are aligned line by line", SPLITS,
                    "src/table.py:align_header")  # fmt: skip
    world.code.write("src/table.py", WIDER).commit("Pad a multiline header as one block")
    assert _ids(world.stale()["stale"]) == [nid]


def test_a_new_name_holding_a_word_of_the_note_keeps_it_stale(world: World) -> None:
    world.code.write("src/table.py", TABLE_PY).commit("tables")
    nid = world.add("Multiline headers are aligned line by line", SPLITS,
                    "src/table.py:align_header")  # fmt: skip
    # (``hidden_cells``: the note says "cells")
    cells = WIDER.replace("invisible(header)", "hidden_cells(header)")
    world.code.write("src/table.py", cells).commit("Count invisible characters in the width")
    assert _ids(world.stale()["stale"]) == [nid]


def test_a_name_the_note_writes_as_code_keeps_it_stale(world: World) -> None:
    world.code.write("src/table.py", TABLE_PY).commit("tables")
    nid = world.add("One-line headers are padded once", PADS, "src/table.py:align_header")
    world.code.write("src/table.py", WIDER).commit("Count invisible characters in the width")
    assert _ids(world.stale()["stale"]) == [nid]


def test_prose_only_reads_code_spans_and_strings() -> None:
    said = "`align_header` pads each line of a header; it raises `'bad width'`"
    assert passing.prose_only(["header", "line"], said)
    assert not passing.prose_only(["header", "align_header"], said)
    assert not passing.prose_only(["'bad width'"], said)
    assert not passing.prose_only([], said)
