"""``reflect-git stale`` against a real git history, on code spelled another way (issue 35,
notes/respell.py): annotations added, ``super()``, a call through a local alias of the same
function is no change to what a note states; the same history with a real change is."""

from __future__ import annotations

from tests.support.codeworld import World

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


PERCENT_PY = """def percentage(string):
    return float(string[:-1]) / 100.
"""
TIMEOUT_TS = """// setTimeout fires at once past a signed 32-bit delay
export const maxSafeTimeout = 2147483647;
"""


def test_a_number_respelled_by_a_formatter_is_not_stale_a_value_changed_is(world: World) -> None:
    world.code.write("src/parse.py", PERCENT_PY).write("src/constants.ts", TIMEOUT_TS)
    world.code.commit("code")
    percent = world.add(
        "percentage divides by a hundred",
        "`percentage` divides the number before `%` by `100`.",
        "src/parse.py:percentage",
    )
    timeout = world.add(
        "maxSafeTimeout is the largest delay",
        "`maxSafeTimeout` is 2147483647 ms, the largest delay `setTimeout` keeps.",
        "src/constants.ts:maxSafeTimeout",
    )
    world.code.write("src/parse.py", PERCENT_PY.replace("100.", "100.0"))
    world.code.write("src/constants.ts", TIMEOUT_TS.replace("2147483647", "2_147_483_647"))
    world.code.commit("black, numeric separators")
    doc = world.stale()
    assert doc["stale"] == [] and doc.get("changed", []) == []
    # the values changed, spelled the new way
    world.code.write("src/parse.py", PERCENT_PY.replace("100.", "1000.0"))
    world.code.write("src/constants.ts", TIMEOUT_TS.replace("2147483647", "2_147_483_648"))
    world.code.commit("change")
    assert sorted(e["id"] for e in world.stale()["stale"]) == sorted([percent, timeout])
