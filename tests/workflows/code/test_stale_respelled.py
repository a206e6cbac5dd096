"""``reflect-git stale`` against a real git history, on code spelled another way (issue 35,
notes/respell.py): annotations added, ``super()``, a call through a local alias of the same
function is no change to what a note states; the same history with a real change is."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.workflows.code.test_stale import World

EXC_PY = """class BadData(Exception):
    pass


class BadPayload(BadData):
    def __init__(self, message, original_error=None):
        BadData.__init__(self, message)
        self.original_error = original_error
"""

QUOTE_LUA = """local function smartQuote(str)
  if str:match('"') and not str:match("'") then
    return "'" .. str .. "'"
  end
  return '"' .. str:gsub('"', '\\\\"') .. '"'
end

return smartQuote
"""


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def test_code_respelled_is_not_stale_a_real_change_is(world: World) -> None:
    world.code.write("src/exc.py", EXC_PY).write("src/quote.lua", QUOTE_LUA).commit("code")
    payload = world.add(
        "BadPayload is no BadSignature",
        "`BadPayload` derives from `BadData` and keeps the serializer's `original_error`.",
        "src/exc.py:BadPayload",
    )
    quote = world.add(
        "smartQuote escapes with gsub",
        "`smartQuote` keeps apostrophes around a string with `\"` and no `'`; else it escapes "
        '`"` with a `gsub`.',
        "src/quote.lua:smartQuote",
    )
    typed = (
        EXC_PY.replace(
            "def __init__(self, message, original_error=None):",
            "def __init__(self, message: str, original_error: Exception | None = None):",
        )
        .replace("BadData.__init__(self, message)", "super().__init__(message)")
        .replace("self.original_error =", "self.original_error: Exception | None =")
    )
    aliased = "local match = string.match\nlocal gsub = string.gsub\n\n" + (
        QUOTE_LUA.replace("str:match('\"')", "match(str, '\"')")
        .replace('str:match("\'")', 'match(str, "\'")')
        .replace("str:gsub(", "gsub(str, ")
        .replace("\n  ", "\n   ")
    )
    world.code.write("src/exc.py", typed).write("src/quote.lua", aliased).commit("respell")
    doc = world.stale()
    assert doc["stale"] == [] and doc.get("changed", []) == []
    # the error no longer kept; the alias now stands for another function
    world.code.write("src/exc.py", typed.replace("= original_error", "= None"))
    world.code.write("src/quote.lua", aliased.replace("gsub = string.gsub", "gsub = string.rep"))
    world.code.commit("change")
    assert sorted(e["id"] for e in world.stale()["stale"]) == sorted([payload, quote])
