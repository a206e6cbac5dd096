"""``notes/enumerations.py``: the lists and tables a block enumerates, and the members one
gained beside a note that states two or more of its members."""

from __future__ import annotations

from reflectgit.notes.enumerations import enumerations, gained
from reflectgit.notes.tokens import lines

TABLE = """ESCAPES = {
    "\\\\b": "\\u0008",
    "\\\\t": "\\u0009",
    "\\\\n": "\\u000A",
}
"""
TABLE_E = TABLE.replace('    "\\\\n"', '    "\\\\e": "\\u001b",\n    "\\\\n"')
ESCAPED = "`ESCAPES` maps `\\b \\t \\n` and nothing else: `\\e` is invalid."

HOOKS = """func typed(h Hook) Hook {
	var f1 HookType
	var f2 HookKind
	potential := []any{f1, f2}
	return pick(h, potential)
}
"""
HOOKS_3 = HOOKS.replace("\tvar f2 HookKind\n", "\tvar f2 HookKind\n\tvar f3 HookValue\n").replace(
    "{f1, f2}", "{f1, f2, f3}"
)
TWO = "`typed` converts a hook to `HookType` or `HookKind`, nothing else."


def test_a_table_and_a_run_of_declarations_are_enumerations() -> None:
    found = list(enumerations(lines(TABLE, "esc.py")))
    assert [m[0] for m in found[0].members] == ['"\\\\b"', '"\\\\t"', '"\\\\n"']
    shapes = [e.members for e in enumerations(lines(HOOKS, "h.go"))]
    assert (("f1", "HookType"), ("f2", "HookKind")) in shapes
    assert (("f1",), ("f2",)) in shapes  # the one-line list


def test_a_member_gained_beside_a_note_that_enumerates_the_list() -> None:
    assert gained(TABLE, TABLE_E, "esc.py", ESCAPED) == ['"\\\\e"', '"\\u001b"']
    assert gained(HOOKS, HOOKS_3, "h.go", TWO) == ["f3", "HookValue"]


def test_no_gain_one_member_stated_or_a_member_the_block_held() -> None:
    one = "`ESCAPES` maps `\\b` to a backspace."
    assert gained(TABLE, TABLE_E, "esc.py", one) == []  # names a member, not the list
    assert gained(TABLE, TABLE, "esc.py", ESCAPED) == []
    lost = TABLE_E.replace('    "\\\\t": "\\u0009",\n', "")
    assert gained(TABLE, lost, "esc.py", ESCAPED) == []  # a stated member gone: no such list
    held = 'def kinds():\n    known = ["alpha", "beta"]\n    return known + ["gamma"]\n'
    moved = 'def kinds():\n    known = ["alpha", "beta", "gamma"]\n    return known\n'
    said = "`kinds` returns `alpha`, `beta` and `gamma`."
    assert gained(held, moved, "k.py", said) == []  # "gamma" was in the block: moved in
    assert gained(held, moved.replace("gamma", "delta"), "k.py", said) == ['"delta"']


FORMATTER = """type JSONFormatter struct {
	// TimestampFormat sets the format used for marshaling timestamps.
	TimestampFormat string

	// DisableTimestamp allows disabling automatic timestamps in output
	DisableTimestamp bool

	FieldMap FieldMap
}
"""
OPTIONS = "`JSONFormatter`'s options are `TimestampFormat`, `DisableTimestamp` and `FieldMap`."


def test_a_struct_field_gained_whose_type_other_fields_have_is_a_member_gained() -> None:
    # logrus: ``DataKey string`` and ``DisableHTMLEscape bool``, types the old fields had
    more = FORMATTER.replace(
        "\tFieldMap FieldMap\n",
        "\t// DisableHTMLEscape allows disabling html escaping\n\tDisableHTMLEscape bool\n\n"
        "\tDataKey string\n\n\tFieldMap FieldMap\n",
    )
    assert gained(FORMATTER, more, "json_formatter.go", OPTIONS) == ["DisableHTMLEscape", "DataKey"]


def test_a_field_whose_type_changed_or_a_key_whose_value_changed_gained_nothing() -> None:
    # the negatives: a member told by a key the old block held is no new member
    retyped = FORMATTER.replace("TimestampFormat string", "TimestampFormat Layout")
    assert gained(FORMATTER, retyped, "json_formatter.go", OPTIONS) == []
    revalued = TABLE.replace('"\\u0009"', '"\\x09"')
    assert gained(TABLE, revalued, "esc.py", ESCAPED) == []
    # and one stated member only: the note names a field, not the fields
    one = "`TimestampFormat` sets the format of the time."
    more = FORMATTER.replace("\tFieldMap FieldMap\n", "\tDataKey string\n\tFieldMap FieldMap\n")
    assert gained(FORMATTER, more, "json_formatter.go", one) == []
