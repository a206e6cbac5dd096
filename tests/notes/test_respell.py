"""The same code spelled another way (notes/respell.py, through codediff.compare): each kind
of respelling read as no change, with the change of that kind that must still count."""

from __future__ import annotations

from reflectgit.notes import codediff
from reflectgit.notes.respell import respell
from reflectgit.notes.tokens import tokens

WANT_BYTES = """def want_bytes(s, encoding="utf-8", errors="strict"):
    if isinstance(s, str):
        s = s.encode(encoding, errors)
    return s
"""
WANT_NOTE = "`want_bytes` encodes text with UTF-8 and `errors` strict; bytes pass through."


def test_python_annotations_added_are_no_change_a_changed_type_is() -> None:
    typed = """def want_bytes(
    s: str | bytes, encoding: str = "utf-8", errors: str = "strict"
) -> bytes:
    if isinstance(s, str):
        s = s.encode(encoding, errors)
    return s
"""
    assert codediff.compare(WANT_BYTES, typed, "enc.py", WANT_NOTE, "want_bytes").kind == "same"
    field = "class E(Exception):\n    def __init__(self, original_error=None):\n"
    field += "        self.original_error = original_error\n"
    annotated = field.replace("self.original_error =", "self.original_error: Exception | None =")
    assert codediff.compare(field, annotated, "exc.py", "`original_error` is kept").kind == "same"
    # a type both versions annotate, changed: the type the note speaks of changed
    retyped = typed.replace(") -> bytes:", ") -> str:")
    verdict = codediff.compare(typed, retyped, "enc.py", "`want_bytes` returns bytes", "want_bytes")
    assert verdict.stale and "bytes" in verdict.names
    # an annotation added beside a changed default: the default is a change
    strict = typed.replace('errors: str = "strict"', 'errors: str = "replace"')
    verdict = codediff.compare(WANT_BYTES, strict, "enc.py", WANT_NOTE, "want_bytes")
    assert verdict.stale and "strict" in " ".join(verdict.names)


def test_annotations_are_read_per_parameter_and_not_inside_a_default() -> None:
    old = "def key(k, default=lambda x: x):\n    return default(k)\n"
    new = "def key(k: str, default=lambda x: x):\n    return default(k)\n"
    assert respell(old, new, "k.py") == (old, old)
    # a clause's colon (``else: x = 1``) is no annotation: dropping ``x`` would change the code
    branch = "def f(a):\n    if a: y = 1\n    else: x = 1\n"
    other = "def f(a):\n    if a: y = 1\n    else: z = 1\n"
    assert codediff.compare(branch, other, "f.py").kind != "same"


def test_super_and_the_only_base_called_by_name_are_the_same_call() -> None:
    old = (
        "class BadPayload(BadData):\n    def __init__(self, message, original_error=None):\n"
        "        BadData.__init__(self, message)\n        super(BadPayload, self).close()\n"
    )
    new = (
        "class BadPayload(BadData):\n    def __init__(self, message, original_error=None):\n"
        "        super().__init__(message)\n        super().close()\n"
    )
    note = "`BadPayload` derives from `BadData` and keeps `original_error`."
    assert codediff.compare(old, new, "exc.py", note, "BadPayload").kind == "same"
    # another class's method is another call
    other = old.replace("BadData.__init__(self, message)", "BadSignature.__init__(self, message)")
    not_signature = note + " It is no `BadSignature`."
    assert codediff.compare(other, new, "exc.py", not_signature, "BadPayload").stale
    # with two bases ``super()`` follows the MRO: not the first base by name
    two = old.replace("(BadData):", "(BadData, Mixin):")
    assert codediff.compare(two, new.replace("(BadData):", "(BadData, Mixin):"), "exc.py").stale


ISKEY = """local function isSequenceKey(k, length)
  return type(k) == 'number' and math.floor(k) == k and 1 <= k and k <= length
end
"""
ISKEY_NOTE = "`isSequenceKey` checks `math.floor(k) == k`: float keys are not in the array part."


def test_a_call_through_an_alias_the_file_binds_is_a_call_of_what_it_names() -> None:
    new = ISKEY.replace("math.floor(k)", "flr(k)")
    around = "local flr = math.floor\n\n" + new
    verdict = codediff.compare(ISKEY, new, "inspect.lua", ISKEY_NOTE, "isSequenceKey", None,
                               around, ISKEY)  # fmt: skip
    assert verdict.kind == "same"
    # an alias of another function is that function: a change
    ceil = "local flr = math.ceil\n\n" + new
    verdict = codediff.compare(ISKEY, new, "inspect.lua", ISKEY_NOTE, "isSequenceKey", None,
                               ceil, ISKEY)  # fmt: skip
    assert verdict.stale
    # a name bound twice (reassigned) stands for no one function
    twice = around + "flr = function(x) return x end\n"
    verdict = codediff.compare(ISKEY, new, "inspect.lua", ISKEY_NOTE, "isSequenceKey", None,
                               twice, ISKEY)  # fmt: skip
    assert verdict.stale
    # a parameter of the same name is the function's own
    own = ISKEY.replace("(k, length)", "(k, length, flr)")
    verdict = codediff.compare(own, own.replace("math.floor(k)", "flr(k)"), "inspect.lua",
                               ISKEY_NOTE, "isSequenceKey", None, "local flr = math.floor\n" + own,
                               own)  # fmt: skip
    assert verdict.stale
    # bound inside a function, not at the top level: no alias of the file
    nested = "local function f()\n  local flr = math.floor\nend\n" + new
    verdict = codediff.compare(ISKEY, new, "inspect.lua", ISKEY_NOTE, "isSequenceKey", None,
                               nested, ISKEY)  # fmt: skip
    assert verdict.stale


QUOTE = """local function smartQuote(str)
  if str:match('"') and not str:match("'") then
    return "'" .. str .. "'"
  end
  return '"' .. str:gsub('"', '\\\\"') .. '"'
end
"""
QUOTE_NOTE = "`smartQuote` escapes `\"` with a `gsub` unless the string has no `'`."


def test_lua_string_functions_called_as_methods_or_through_aliases_are_the_same() -> None:
    new = (
        QUOTE.replace("str:match('\"')", "match(str, '\"')")
        .replace('str:match("\'")', 'match(str, "\'")')
        .replace("str:gsub(", "gsub(str, ")
    )
    around = "local match = string.match\nlocal gsub = string.gsub\n" + new
    verdict = codediff.compare(QUOTE, new, "i.lua", QUOTE_NOTE, "smartQuote", None, around, QUOTE)
    assert verdict.kind == "same"
    assert respell("x = string.gsub(s, 'a', 'b')\n", "", "i.lua")[0] == "x = s:gsub('a', 'b')\n"
    # an alias of another string function is that function
    find = around.replace("gsub = string.gsub", "gsub = string.find")
    verdict = codediff.compare(QUOTE, new, "i.lua", QUOTE_NOTE, "smartQuote", None, find, QUOTE)
    assert verdict.stale and verdict.names == ("gsub",)
    # a method of another library (``table.concat``) is no string method
    assert respell("x = table.concat(t, ',')\n", "", "i.lua")[0] == "x = table.concat(t, ',')\n"


def test_a_trailing_separator_is_layout_but_a_one_element_tuple_is_not() -> None:
    table = "local ranks = {\n  ['number'] = 1, ['string'] = 3\n}\n"
    trailing = "local ranks = {\n   ['number'] = 1, ['string'] = 3,\n}\n"
    assert codediff.compare(table, trailing, "i.lua").kind == "same"
    call = "def f():\n    return g(a, b)\n"
    assert (
        codediff.compare(
            call, "def f():\n    return g(\n        a,\n        b,\n    )\n", "f.py"
        ).kind
        == "same"
    )
    # ``(x,)`` is a tuple, ``(x)`` is x
    assert codediff.compare("T = (x)\n", "T = (x,)\n", "t.py").stale
    assert codediff.compare("T = [x]\n", "T = [x, y,]\n", "t.py").stale


def test_go_empty_interface_is_any_a_method_set_is_not() -> None:
    old = "func Unmarshal(p []byte, v interface{}) error {\n\treturn decode(p, v)\n}\n"
    new = old.replace("interface{}", "any")
    assert codediff.compare(old, new, "decode.go").kind == "same"
    closer = old.replace("interface{}", "interface{ Close() error }")
    assert codediff.compare(old, closer, "decode.go").stale


def test_an_fstring_of_the_same_parts_is_the_concatenation() -> None:
    old = '_alphabet = (string.ascii_letters + string.digits + "-_=").encode("ascii")\n'
    new = '_alphabet = f"{string.ascii_letters}{string.digits}-_=".encode("ascii")\n'
    note = "`_alphabet` is ASCII letters, digits and `-_=`."
    assert codediff.compare(old, new, "enc.py", note, "_alphabet").kind == "same"
    assert codediff.compare('x = a + "-"\n', 'x = f"{a}-"\n', "x.py").kind == "same"
    # other parts, or a format spec (padding), are other text
    dropped = '_alphabet = f"{string.ascii_letters}-_=".encode("ascii")\n'
    assert codediff.compare(old, dropped, "enc.py", note, "_alphabet").stale
    assert codediff.compare('x = a + "-"\n', 'x = f"{a:>8}-"\n', "x.py").stale


def test_a_constant_named_from_the_outermost_scope_is_the_same_constant() -> None:
    old = 'def root\n  Rails.root || Pathname.new(ENV["RAILS_ROOT"] || Dir.pwd)\nend\n'
    note = "`root` falls back from `Rails.root` to `RAILS_ROOT`, then `Dir.pwd`."
    rooted = old.replace("Rails.root", "::Rails.root")
    assert codediff.compare(old, rooted, "rails.rb", note, "root").kind == "same"
    # another namespace's constant is another constant
    other = old.replace("Rails.root", "Dotenv::Rails.root")
    assert codediff.compare(old, other, "rails.rb", note, "root").stale


def test_braces_around_one_statement_are_layout_around_two_they_are_not() -> None:
    old = "function coerce(val) {\n  if (val instanceof Error) return val.stack || val.message;\n"
    old += "  return val;\n}\n"
    braced = "function coerce(val) {\n\tif (val instanceof Error) {\n"
    braced += "\t\treturn val.stack || val.message;\n\t}\n\n\treturn val;\n}\n"
    note = "`coerce` replaces an Error by `err.stack` or its `message`."
    assert codediff.compare(old, braced, "debug.js", note, "coerce").kind == "same"
    assert codediff.compare("else x = 1;\n", "else { x = 1; }\n", "a.c").kind == "same"
    # braces that take in a second statement change what the condition guards
    two = "if (x) a(); b();\n"
    assert codediff.compare(two, "if (x) { a(); b(); }\n", "a.js").stale
    # a guarded block only one version has is new code: its braces are kept
    added = "if (x) {\n  a();\n}\n"
    assert respell("", added, "a.js") == ("", added)
    # a function's own braces, or an object literal's, are no guarded block
    assert codediff.compare("f = () => { go(); };\n", "f = () => go();\n", "a.js").stale


def test_a_method_called_infix_is_the_same_call_written_with_a_dot() -> None:
    old = "  def keyValueName(k: String, v: String): OptionDef[A, C] =\n"
    old += "    keyName(k) valueName (v)\n"
    dotted = old.replace("keyName(k) valueName (v)", "keyName(k).valueName(v)")
    note = "`keyValueName(k, v)` is `keyName(k)` then `valueName(v)`."
    assert codediff.compare(old, dotted, "Def.scala", note, "keyValueName").kind == "same"
    arg = "  def arg(name: String): Def = makeDef(Arg, name) required ()\n"
    assert codediff.compare(arg, arg.replace(" required ()", ".required()"), "P.scala").kind == (
        "same"
    )
    assert codediff.compare("val m = a max b\n", "val m = a.max(b)\n", "M.kt").kind == "same"
    # another method, or another argument, is another call
    other = old.replace("keyName(k) valueName (v)", "keyName(k).unbounded(v)")
    assert codediff.compare(old, other, "Def.scala", note, "keyValueName").stale
    assert codediff.compare("val m = a max b\n", "val m = a.max(c)\n", "M.scala").stale
    # an argument that goes on (``b.c``) is not one token: left as written
    assert respell("a max b.c\n", "a.max(b.c)\n", "M.scala")[0] == "a max b.c\n"
    # a condition and the statement it guards, language words between two names: no call
    assert respell("if (x) foo(y)\n", "", "M.scala")[0] == "if (x) foo(y)\n"
    assert respell("x match {\n", "", "M.scala")[0] == "x match {\n"
    assert respell("class A extends B with C\n", "", "M.scala")[0] == "class A extends B with C\n"
    # other languages read ``a name b`` otherwise
    assert respell("a max b\n", "", "m.py")[0] == "a max b\n"


def test_erased_casts_added_or_dropped_are_no_change_a_cast_retyped_is() -> None:
    old = "\t\tif (comparator(array[it], value) <= 0) {\n\t\t\tfirst = ++it;\n\t\t}\n"
    asserted = old.replace("array[it],", "array[it]!,")
    note = "`lowerBound` advances while `comparator(array[it], value) <= 0`."
    assert codediff.compare(old, asserted, "lower-bound.ts", note).kind == "same"
    cast = "const q = new queueClass();\n"
    assert codediff.compare(cast, "const q = new queueClass() as Q<T>[];\n", "a.ts").kind == (
        "same"
    )
    raised = "    for s in signers:\n        pass\n    raise last_exception\n"
    typed = raised.replace("raise last_exception", "raise t.cast(BadSignature, last_exception)")
    assert codediff.compare(raised, typed, "ser.py", "`loads` raises the last error").kind == (
        "same"
    )
    # a cast to another type both versions write is a change of the type
    assert codediff.compare("x = y as Foo;\n", "x = y as Bar;\n", "a.ts").stale
    # a negation is no assertion; a value that changed inside a cast is a change
    assert codediff.compare("return !x;\n", "return x;\n", "a.ts").stale
    assert codediff.compare("raise e\n", "raise t.cast(E, other)\n", "x.py").stale
    # an import's ``as`` renames: it is kept
    imported = 'import { a as b } from "x";\n'
    assert respell(imported, 'import { a } from "x";\n', "a.ts")[0] == imported
    # Kotlin's ``!!`` and Dart's ``as`` throw: not erased
    assert codediff.compare("val v = x\n", "val v = x!!\n", "a.kt").stale
    assert codediff.compare("var v = x;\n", "var v = x as Foo;\n", "a.dart").stale


def test_an_argument_stored_through_a_conversion_is_the_argument_stored() -> None:
    plain = "class W:\n    def __init__(self, start, step):\n        self.start = start\n"
    plain += "        self.step = step\n"
    converted = plain.replace("= start", "= _utils.to_seconds(start)")
    old, new = respell(plain, converted, "w.py")
    assert tokens(old, "w.py") == tokens(new, "w.py")
    # another value stored (the conversion of another name, a second argument): kept
    for other in ("= _utils.to_seconds(step)", "= to_seconds(start, 60)", "= -start"):
        old, new = respell(plain, plain.replace("= start", other), "w.py")
        assert tokens(old, "w.py") != tokens(new, "w.py")


def test_each_element_stored_through_a_conversion_is_the_argument_stored() -> None:
    bare = "class S:\n    def __init__(self, *stops):\n        self.stops = stops\n"
    for each in (
        "tuple(_compat.accept_state(stop)\n                           for stop in stops)",
        "[accept_state(stop) for stop in stops]",
        "list(accept_state(stop) for stop in stops)",
    ):
        old, new = respell(bare.replace("= stops", "= " + each), bare, "s.py")
        assert tokens(old, "s.py") == tokens(new, "s.py"), each
    # elements filtered, reordered or made unique, another call's shape, another argument
    # converted: what is stored changed, kept for the comparison to see
    for other in (
        "tuple(accept_state(stop) for stop in stops if stop)",
        "sorted(accept_state(stop) for stop in stops)",
        "set(accept_state(stop) for stop in stops)",
        "tuple(stop.accept() for stop in stops)",
        "[accept_state(stop, 1) for stop in stops]",
        "[accept_state(stop) for stop in others]",
    ):
        old, new = respell(bare.replace("= stops", "= " + other), bare, "s.py")
        assert tokens(old, "s.py") != tokens(new, "s.py"), other


def test_a_guard_failing_only_on_none_is_no_change_a_guard_on_a_value_is() -> None:
    body = "def f(state):\n    return state.elapsed >= 5\n"
    guard = "    if state.elapsed is None:\n        raise RuntimeError('no attempt yet')\n"
    guarded = body.replace("    return", guard + "    return")
    old, new = respell(body, guarded, "s.py")
    assert tokens(old, "s.py") == tokens(new, "s.py")
    asserted = body.replace("    return", "    assert state.elapsed is not None\n    return")
    old, new = respell(body, asserted, "s.py")
    assert tokens(old, "s.py") == tokens(new, "s.py")
    # a guard on a value, or one that returns instead of raising, changes what f does
    for other in (guard.replace("is None", "< 0"), guard.replace("raise", "return False  #")):
        old, new = respell(body, body.replace("    return", other + "    return"), "s.py")
        assert tokens(old, "s.py") != tokens(new, "s.py")


def test_a_number_written_another_way_is_no_change_a_value_changed_is() -> None:
    percent = "def percentage(string):\n    return float(string[:-1]) / 100.\n"
    note = "`percentage` divides the number before `%` by `100`."
    black = percent.replace("100.", "100.0")
    assert codediff.compare(percent, black, "parse.py", note, "percentage").kind == "same"
    timeout = "export const maxSafeTimeout = 2147483647;\n"
    grouped = "export const maxSafeTimeout = 2_147_483_647;\n"
    said = "`maxSafeTimeout` is 2147483647 ms, the largest `setTimeout` delay."
    assert codediff.compare(timeout, grouped, "c.ts", said, "maxSafeTimeout").kind == "same"
    # a minifier's decimal for a hex literal, and a hex literal's digits in the other case
    mask = "function f(c) {\n  return c & 0x3F | 0x80;\n}\n"
    assert codediff.compare(mask, mask.replace("0x80", "128"), "u.js").kind == "same"
    assert codediff.compare(mask, mask.replace("0x3F", "0x3f"), "u.js").kind == "same"
    # the value changed: a change, whatever its spelling
    for was, now in (("100.", "1000."), ("100.", "100.5"), ("100.", "100")):
        verdict = codediff.compare(
            percent, percent.replace(was, now), "parse.py", note, "percentage"
        )
        assert verdict.stale, (was, now)
    verdict = codediff.compare(
        timeout, timeout.replace("2147483647", "2_147_483_648"), "c.ts", said
    )
    assert verdict.stale
    top = "const TOP = 100;\n"
    assert codediff.compare(top, "const TOP = 100_000;\n", "b.js", "the `TOP` 100 sites").stale
    # a float's digits are kept as written (``1.2`` and ``1.20`` differ as versions), and a
    # settings file's numbers are its data: no respelling there
    assert codediff.compare("V = 1.2\n", "V = 1.20\n", "v.py").kind != "same"
    assert codediff.compare("max = 0x80\n", "max = 128\n", "c.toml").kind != "same"
    # a string's text changed and an argument added stay changes beside a number respelled
    quoted = "def f(x):\n    return g(x, 'a', 100.)\n"
    for now in ("return g(x, 'b', 100.0)", "return g(x, 'a', 100.0, 1)"):
        assert codediff.compare(quoted, quoted.replace("return g(x, 'a', 100.)", now), "f.py").stale
