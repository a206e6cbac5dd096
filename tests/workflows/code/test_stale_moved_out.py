"""``reflect-git stale`` against real git histories, on code moved out of the anchored block
into a definition the same commit added in another file (a parser module split out, a
function the block now hands its values to): what the note states stands there, the same
but for how its names are qualified, so the note is listed under ``changed``, not stale.
Each with the move that must still be flagged: the moved lines changed on the way, or the
block gained a line holding what the note states."""

from __future__ import annotations

from tests.support.codeworld import World

FLAGS_PY = """from errors import ParseError


def parse_flags(text):
    flags = []
    for part in text.split("|"):
        name = part.strip()
        if not name:
            raise ParseError.empty_flag()
        flags.append(name)
    return flags
"""

DELEGATING_PY = """import parser


def parse_flags(text):
    return parser.from_text(text, "|")
"""

PARSER_PY = """from errors import ParseError


def from_text(text, separator):
    flags = []
    for part in text.split(separator):
        name = part.strip()
        if not name:
            raise ParseError.empty_flag()
        flags.append(name)
    return flags
"""

NOTE = (
    "`parse_flags` raises `ParseError.empty_flag` for an empty segment (`a||b`) instead of "
    "skipping it: callers must trim their separators."
)
TITLE = "parse_flags refuses an empty segment"


def _moved(world: World, parser: str, block: str = DELEGATING_PY) -> str:
    world.code.write("src/flags.py", FLAGS_PY).commit("flags")
    nid = world.add(TITLE, NOTE, "src/flags.py:parse_flags")
    world.code.write("src/flags.py", block).write("src/parser.py", parser)
    world.code.commit("split the parser out")
    return nid


def test_code_moved_into_a_new_file_the_same_is_changed_elsewhere(world: World) -> None:
    nid = _moved(world, PARSER_PY)
    doc = world.stale()
    assert doc["stale"] == []
    assert [e["id"] for e in doc["changed"]] == [nid]


def test_code_moved_and_changed_in_what_the_note_states_is_stale(world: World) -> None:
    # the empty segment is skipped where the code went: what the note states did not move
    skipping = PARSER_PY.replace("raise ParseError.empty_flag()", "continue")
    nid = _moved(world, skipping)
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid


def test_a_block_that_gained_a_stated_line_beside_the_move_is_stale(world: World) -> None:
    # the moved code stands, but the block now raises the error itself for another input
    gained = DELEGATING_PY.replace(
        '    return parser.from_text(text, "|")',
        "    if text is None:\n        raise ParseError.empty_flag()\n"
        '    return parser.from_text(text, "|")',
    )
    nid = _moved(world, PARSER_PY, gained)
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


def test_code_moved_into_a_definition_an_older_commit_added_is_stale(world: World) -> None:
    # the parser existed before the change: the block's code was not moved into new code
    world.code.write("src/flags.py", FLAGS_PY).write("src/parser.py", PARSER_PY)
    world.code.commit("flags and parser")
    nid = world.add(TITLE, NOTE, "src/flags.py:parse_flags")
    world.code.write("src/flags.py", DELEGATING_PY).commit("use the parser")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


def test_code_moved_into_a_new_definition_the_block_does_not_call_is_stale(world: World) -> None:
    # the members of a type moved into another type: what the anchored one holds changed
    uncalled = DELEGATING_PY.replace('parser.from_text(text, "|")', "[]")
    nid = _moved(world, PARSER_PY, uncalled)
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


def test_a_new_definition_holding_more_of_what_the_note_states_is_stale(world: World) -> None:
    # the code moved, and where it went it raises the note's error for no input too
    more = PARSER_PY.replace(
        "    flags = []\n",
        '    flags = []\n    if not text:\n        raise ParseError.empty_flag("no input")\n',
    )
    nid = _moved(world, more)
    assert [e["id"] for e in world.stale()["stale"]] == [nid]
