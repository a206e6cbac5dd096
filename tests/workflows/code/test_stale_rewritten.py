"""``reflect-git stale`` against a real git history, on a body rewritten around a lesson that
holds (issue 35, notes/respell.py): an argument now converted on the way in, a guard added that
only fails on ``None``, are no change to what a note states; the same history with a real
change (a clamp removed, a comparison changed, a guard on something else) is."""

from __future__ import annotations

from tests.support.codeworld import World

WAIT_PY = """class wait_incrementing(wait_base):
    def __init__(self, start=0, increment=100, max=MAX_WAIT):
        self.start = start
        self.increment = increment
        self.max = max

    def __call__(self, retry_state):
        result = self.start + (self.increment * (retry_state.attempt_number - 1))
        return max(0, min(result, self.max))
"""

STOP_PY = """class stop_after_delay(stop_base):
    def __init__(self, max_delay):
        self.max_delay = max_delay

    def __call__(self, retry_state):
        return retry_state.seconds_since_start >= self.max_delay
"""

CLAMP = (
    "`wait_incrementing` returns `start + increment * (attempt_number - 1)` clamped with "
    "`max(0, min(result, max))`: a negative `increment` stops at 0."
)
DELAY = "`stop_after_delay` stops once `seconds_since_start >= max_delay`, so it overshoots."


def _rewritten() -> tuple[str, str]:
    wait = (
        WAIT_PY.replace("self.start = start", "self.start = _utils.to_seconds(start)")
        .replace("self.increment = increment", "self.increment = _utils.to_seconds(increment)")
        .replace("self.max = max", "self.max = _utils.to_seconds(max)")
    )
    stop = STOP_PY.replace(
        "        return retry_state",
        "        if retry_state.seconds_since_start is None:\n"
        '            raise RuntimeError("called before the first attempt")\n'
        "        return retry_state",
    ).replace("self.max_delay = max_delay", "self.max_delay = to_seconds(max_delay)")
    return wait, stop


def test_arguments_converted_and_none_guard_added_are_not_stale(world: World) -> None:
    world.code.write("src/wait.py", WAIT_PY).write("src/stop.py", STOP_PY).commit("code")
    world.add("wait_incrementing is clamped", CLAMP, "src/wait.py:wait_incrementing")
    world.add("stop_after_delay overshoots", DELAY, "src/stop.py:stop_after_delay")
    wait, stop = _rewritten()
    world.code.write("src/wait.py", wait).write("src/stop.py", stop).commit("timedeltas")
    doc = world.stale()
    assert doc["stale"] == []


def test_clamp_removed_comparison_changed_still_stale(world: World) -> None:
    world.code.write("src/wait.py", WAIT_PY).write("src/stop.py", STOP_PY).commit("code")
    clamp = world.add("wait_incrementing is clamped", CLAMP, "src/wait.py:wait_incrementing")
    delay = world.add("stop_after_delay overshoots", DELAY, "src/stop.py:stop_after_delay")
    wait, stop = _rewritten()
    wait = wait.replace("return max(0, min(result, self.max))", "return result")
    stop = stop.replace(">= self.max_delay", "> self.max_delay")
    world.code.write("src/wait.py", wait).write("src/stop.py", stop).commit("change")
    assert sorted(e["id"] for e in world.stale()["stale"]) == sorted([clamp, delay])


def test_stored_through_another_expression_or_guard_on_a_value_still_stale(world: World) -> None:
    world.code.write("src/wait.py", WAIT_PY).write("src/stop.py", STOP_PY).commit("code")
    clamp = world.add("wait_incrementing is clamped", CLAMP, "src/wait.py:wait_incrementing")
    delay = world.add("stop_after_delay overshoots", DELAY, "src/stop.py:stop_after_delay")
    # (a conversion with a second argument is no bare conversion; a guard on a value, not on
    # None, changes which values the code accepts)
    wait = WAIT_PY.replace("self.max = max", "self.max = min(max, 60)")
    stop = STOP_PY.replace(
        "        return retry_state",
        "        if retry_state.seconds_since_start < 0:\n"
        '            raise RuntimeError("clock went back")\n'
        "        return retry_state",
    )
    world.code.write("src/wait.py", wait).write("src/stop.py", stop).commit("change")
    assert sorted(e["id"] for e in world.stale()["stale"]) == sorted([clamp, delay])


STOP_ANY_PY = """class stop_any(stop_base):
    def __init__(self, *stops):
        self.stops = tuple(_compat.stop_func_accept_retry_state(stop_func)
                           for stop_func in stops)

    @_compat.stop_dunder_call_accept_old_params
    def __call__(self, retry_state):
        return any(x(retry_state) for x in self.stops)
"""
ANY = "`stop_any(*stops)` stops as soon as one of `stops` says so: `any` short-circuits."


def test_a_conversion_of_each_element_removed_is_not_stale_a_filter_added_is(
    world: World,
) -> None:
    world.code.write("src/stop.py", STOP_ANY_PY).commit("code")
    note = world.add("stop_any short-circuits", ANY, "src/stop.py:stop_any")
    # the compat layer removed: the stops are stored as given, the call unchanged
    plain = STOP_ANY_PY.replace(
        "tuple(_compat.stop_func_accept_retry_state(stop_func)\n"
        "                           for stop_func in stops)",
        "stops",
    ).replace("    @_compat.stop_dunder_call_accept_old_params\n", "")
    world.code.write("src/stop.py", plain).commit("no compat")
    assert world.stale()["stale"] == []
    # the stops filtered on the way in: which stops are asked changed
    filtered = plain.replace("= stops", "= tuple(s for s in stops if s is not None)")
    world.code.write("src/stop.py", filtered).commit("filter")
    assert [e["id"] for e in world.stale()["stale"]] == [note]


LEX_PY = """def escape(self, s):
    if not valid(s):
        self.panic("Escaped character '\\\\u%s' is not valid UTF-8." % s)
    return chr(int(s, 16))
"""
UTF8 = "A `\\u` escape of no valid character raises 'Escaped character ... is not valid UTF-8.'"


def test_a_stated_string_standing_in_a_rewritten_line_is_not_stale_one_changed_is(
    world: World,
) -> None:
    world.code.write("src/lex.py", LEX_PY).commit("code")
    note = world.add("Invalid escapes raise", UTF8, "src/lex.py:escape")
    # the error now raised through another helper, with the same message
    helper = LEX_PY.replace("self.panic(", "self.panic_item(item, ")
    world.code.write("src/lex.py", helper).commit("items")
    doc = world.stale()
    assert doc["stale"] == []
    assert [e["id"] for e in doc["changed"]] == [note]
    # the message now raised a second time, on another condition: the string stands twice
    twice = helper.replace(
        "    return",
        "    if s[0] == 'd':\n        self.panic_item(item, \"Escaped character "
        "'\\\\u%s' is not valid UTF-8.\" % s)\n    return",
    )
    world.code.write("src/lex.py", twice).commit("surrogates")
    assert [e["id"] for e in world.stale()["stale"]] == [note]
    # the stated message itself changed
    world.code.write("src/lex.py", helper.replace("valid UTF-8", "a character")).commit("msg")
    assert [e["id"] for e in world.stale()["stale"]] == [note]
