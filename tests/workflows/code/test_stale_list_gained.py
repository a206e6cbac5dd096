"""``reflect-git stale`` against a real git history, on a list gained a member (issue 35,
``enumerations.gained``): a table or a run of constructors that the note enumerates (states
two or more members of) gained one, in lines naming nothing the note states; the same change
beside a note naming one member, or a change that leaves the list as it was, is not stale."""

from __future__ import annotations

from tests.support.codeworld import World

ESCAPES_PY = """ESCAPES = MappingProxyType(
    {
        "\\\\b": "\\u0008",  # backspace
        "\\\\t": "\\u0009",  # tab
        "\\\\n": "\\u000A",  # linefeed
    }
)
"""
ESCAPES_E_PY = ESCAPES_PY.replace(
    '        "\\\\n"', '        "\\\\e": "\\u001b",  # escape\n        "\\\\n"'
)
ESCAPES_TYPED_PY = ESCAPES_PY.replace("ESCAPES =", "ESCAPES: Final =")

ERRORS_HS = """module Path.Include where

data PathException
  = InvalidAbsDir FilePath
  | InvalidRelDir FilePath
  | InvalidAbsFile FilePath
  | InvalidRelFile FilePath
  | HasNoExtension FilePath
  deriving (Show,Eq)
"""
ERRORS_MORE_HS = ERRORS_HS.replace(
    "  | HasNoExtension", "  | InvalidFile FilePath\n  | InvalidDir FilePath\n  | HasNoExtension"
)

# (each names ``MappingProxyType``: a note naming nothing of its block but the symbol is
# stale on any change already)
EXACTLY = "`ESCAPES`, a `MappingProxyType`, maps `\\b \\t \\n` and nothing else: `\\e` is invalid."
ONE = "`ESCAPES`, a `MappingProxyType`, maps `\\b` to a backspace."
PARSERS = (
    "The parsers throw `InvalidAbsDir`, `InvalidRelDir`, `InvalidAbsFile` and `InvalidRelFile`:"
    " a handler matching those four covers every parse failure."
)


def test_a_list_the_note_enumerates_gained_a_member(world: World) -> None:
    world.code.write("src/esc.py", ESCAPES_PY).write("src/Path/Include.hs", ERRORS_HS)
    world.code.commit("code")
    table = world.add("Exactly three escapes", EXACTLY, "src/esc.py:ESCAPES")
    errors = world.add("One exception per parser", PARSERS, "src/Path/Include.hs:PathException")
    world.code.write("src/esc.py", ESCAPES_E_PY).write("src/Path/Include.hs", ERRORS_MORE_HS)
    world.code.commit("more")
    listed = world.listed()
    assert set(listed) == {table, errors}
    assert listed[table]["reason"] == "changed"
    assert listed[table]["anchors"][0]["names"] == ['"\\\\e"', '"\\u001b"']
    assert listed[errors]["anchors"][0]["names"] == ["InvalidFile", "InvalidDir"]


def test_the_same_member_beside_a_note_naming_one_is_changed_elsewhere(world: World) -> None:
    world.code.write("src/esc.py", ESCAPES_PY).commit("code")
    nid = world.add("Backspace escape", ONE, "src/esc.py:ESCAPES")
    world.code.write("src/esc.py", ESCAPES_E_PY).commit("escape")
    doc = world.stale()
    assert doc["stale"] == []
    assert [e["id"] for e in doc["changed"]] == [nid]


def test_a_list_left_as_it_was_is_not_stale(world: World) -> None:
    world.code.write("src/esc.py", ESCAPES_PY).commit("code")
    world.add("Exactly three escapes", EXACTLY, "src/esc.py:ESCAPES")
    world.code.write("src/esc.py", ESCAPES_TYPED_PY).commit("annotate")
    assert world.stale()["stale"] == []
