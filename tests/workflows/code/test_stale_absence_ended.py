"""``reflect-git stale`` against a real git history, on an absence ended (issue 35,
``absences.defined``): a note saying its code has no ``MarshalText`` (or that the only way to
do something is another function) is stale once the anchored file defines that name, even
though the anchored method did not change; the same file gaining a method the note's absence
does not name, or the named method beside a note that states no absence, stays as it was."""

from __future__ import annotations

from tests.support.codeworld import World

LEVEL_GO = """package log

type Level uint32

func (level Level) String() string {
	switch level {
	case WarnLevel:
		return "warning"
	}
	return "unknown"
}
"""

MARSHAL_GO = (
    LEVEL_GO
    + """
func (level Level) MarshalText() ([]byte, error) {
	return []byte(level.String()), nil
}
"""
)

UNRELATED_GO = (
    LEVEL_GO
    + """
func (level Level) Short() string {
	return level.String()[:4]
}
"""
)

ABSENT = (
    '`Level.String` spells `WarnLevel` as "warning". There is no `MarshalText`, so levels do'
    " not round-trip through config files by themselves."
)
PRESENT = '`Level.String` spells `WarnLevel` as "warning"; `MarshalText` writes the same word.'


def test_a_method_the_note_says_is_missing_makes_it_stale(world: World) -> None:
    world.code.write("log/level.go", LEVEL_GO).commit("levels")
    nid = world.add("Levels print as words", ABSENT, "log/level.go:String")
    world.code.write("log/level.go", MARSHAL_GO).commit("marshal levels")
    listed = world.listed()
    assert set(listed) == {nid}
    assert listed[nid]["reason"] == "changed"
    assert listed[nid]["anchors"][0]["names"] == ["MarshalText"]
    assert [c["subject"] for c in listed[nid]["anchors"][0]["commits"]] == ["marshal levels"]


def test_an_unrelated_method_added_beside_an_absence_note_is_not_stale(world: World) -> None:
    world.code.write("log/level.go", LEVEL_GO).commit("levels")
    world.add("Levels print as words", ABSENT, "log/level.go:String")
    world.code.write("log/level.go", UNRELATED_GO).commit("short names")
    doc = world.stale()
    assert doc["stale"] == []
    assert doc["changed"] == []  # the anchored method is untouched: not listed, as before


def test_the_named_method_beside_a_note_stating_no_absence_is_not_stale(world: World) -> None:
    world.code.write("log/level.go", LEVEL_GO).commit("levels")
    world.add("Levels print as words", PRESENT, "log/level.go:String")
    world.code.write("log/level.go", MARSHAL_GO).commit("marshal levels")
    assert world.stale()["stale"] == []


def test_an_overload_of_the_anchored_symbol_itself_is_not_an_absence_ended(world: World) -> None:
    world.code.write("src/fire.py", "def fire(trigger):\n    return run(trigger)\n").commit("code")
    world.add(
        "Fire takes no arguments", "`fire` is the only entry: no arguments.", "src/fire.py:fire"
    )
    world.code.write(
        "src/fire.py",
        "def fire(trigger):\n    return run(trigger)\n\n\ndef fire(trigger, *args):\n    return run(trigger, args)\n",
    ).commit("overload")
    assert world.stale()["stale"] == []
