"""``reflect-git stale`` against a real git history, on an option gained (issue 35,
``codediff.option_gained``): a definition that gained a parameter its body reads ends what a
note says always happens ("every cell is escaped", "in every case"), in lines that name
nothing the note states; the same change beside a note that states no unconditional behaviour,
a parameter the body never reads or only passes on, or one renamed in its place, is not
stale."""

from __future__ import annotations

import pytest

from tests.support.codeworld import World

ROW_PY = """def render_row(cells):
    out = [escape(c) for c in cells]
    return "<tr>" + "".join(out) + "</tr>"
"""

RAW_PY = """def render_row(cells, unsafe=False):
    if unsafe:
        return "<tr>" + "".join(cells) + "</tr>"
    out = [escape(c) for c in cells]
    return "<tr>" + "".join(out) + "</tr>"
"""

UNUSED_PY = """def render_row(cells, context=None):
    out = [escape(c) for c in cells]
    return "<tr>" + "".join(out) + "</tr>"
"""

PASSED_PY = """def render_row(cells, style=None):
    out = [escape(c) for c in cells]
    return wrap("<tr>" + "".join(out) + "</tr>", style)
"""

RENAMED_PY = """def render_row(__cells):
    out = [escape(c) for c in __cells]
    return "<tr>" + "".join(out) + "</tr>"
"""

RANGE_JS = """const hyphen = ($0, from, to) => {
  from = `>=${from}`
  to = `<=${to}`
  return `${from} ${to}`.trim()
}
"""

RANGE_PRE_JS = """const hyphen = incPr => ($0, from, to) => {
  from = `>=${from}`
  if (incPr) from += '-0'
  to = `<=${to}`
  return `${from} ${to}`.trim()
}
"""

MATCH_GO = """package m

func (d *Decoder) match(name string, keys []string) string {
	for _, k := range keys {
		if strings.EqualFold(k, name) {
			return k
		}
	}
	return ""
}
"""

COUNTED_GO = MATCH_GO.replace("string {\n", "string {\n\td.calls++\n", 1)

ALWAYS = "`render_row` passes every cell through `escape`: there is no way to emit markup as it is."
EACH = "`render_row` passes each cell through `escape` before the row is joined."
FOLD = "`match` always compares with `strings.EqualFold`: no way to match case-sensitively."
WHATEVER = "`hyphen` calls `trim` on the range in every case: a prerelease fails."


def test_a_parameter_read_by_the_body_ends_an_unconditional_note(world: World) -> None:
    world.code.write("src/html.py", ROW_PY).write("src/range.js", RANGE_JS).commit("code")
    row = world.add("Cells are always escaped", ALWAYS, "src/html.py:render_row")
    bounds = world.add("Hyphen bounds ignore prereleases", WHATEVER, "src/range.js:hyphen")
    world.code.write("src/html.py", RAW_PY).write("src/range.js", RANGE_PRE_JS).commit("raw")
    listed = world.listed()
    assert set(listed) == {row, bounds}
    assert listed[row]["reason"] == "changed"
    assert listed[row]["anchors"][0]["names"] == ["unsafe"]
    assert listed[bounds]["anchors"][0]["names"] == ["incPr"]


def test_the_same_parameter_beside_a_note_stating_nothing_unconditional(world: World) -> None:
    world.code.write("src/html.py", ROW_PY).commit("code")
    nid = world.add("Cells are escaped", EACH, "src/html.py:render_row")
    world.code.write("src/html.py", RAW_PY).commit("raw")
    doc = world.stale()
    assert doc["stale"] == []
    assert [e["id"] for e in doc["changed"]] == [nid]  # changed elsewhere, as before


@pytest.mark.parametrize("changed", [UNUSED_PY, PASSED_PY, RENAMED_PY])
def test_a_parameter_unread_passed_on_or_renamed_is_not_stale(world: World, changed: str) -> None:
    world.code.write("src/html.py", ROW_PY).commit("code")
    world.add("Cells are always escaped", ALWAYS, "src/html.py:render_row")
    world.code.write("src/html.py", changed).commit("change")
    assert world.stale()["stale"] == []


def test_a_line_added_beside_a_receiver_it_always_had_is_not_an_option(world: World) -> None:
    world.code.write("m/match.go", MATCH_GO).commit("code")
    nid = world.add("Keys always match case-insensitively", FOLD, "m/match.go:match")
    world.code.write("m/match.go", COUNTED_GO).commit("count the calls")
    doc = world.stale()
    assert doc["stale"] == []
    assert [e["id"] for e in doc["changed"]] == [nid]
