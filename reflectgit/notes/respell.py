"""The same code spelled another way, written one way. Pure.

A reviewer reading two versions of a block calls them the same code when one only respells the
other. ``respell`` rewrites both versions of a block in one spelling before they are compared
(``codediff.compare``), one rule per kind of respelling, each stated with its reason below:

- Python type annotations added or dropped (``def f(x)`` and ``def f(x: str) -> bytes``,
  ``x = 1`` and ``x: int = 1``): an annotation does not change what the code does. Only where
  one version has none, or both the same: an annotation changed (``x: int`` become
  ``x: str``) is a change of the type, and is kept for the comparison to see;
- Python's zero-argument ``super()`` and what it abbreviates: ``super(Foo, self)``, and the
  class's only base called by name with ``self`` (``Base.__init__(self, x)`` in
  ``class Foo(Base)``), are the same call;
- a name bound once in the file, at the top level, to a qualified name (``local gsub =
  string.gsub``, ``flr = math.floor``, ``const floor = Math.floor``) reads as that name: a
  call through the alias is a call of the function it names. An alias of another function is
  read as that other function, so it stays a change;
- Lua's string library called as a function or as a method of the string (``string.gsub(s,
  ...)`` and ``s:gsub(...)``): the same function, the string its first argument;
- a separator before a closing bracket (``{ 1, 2, }``, a trailing comma in a call) is layout,
  except before ``)`` in Python and Rust, where ``(x,)`` is a tuple;
- Go's ``interface{}`` and its alias ``any`` (Go 1.18);
- a number literal written another way with the same value, as a formatter or a minifier
  writes it (``2_147_483_647`` and ``2147483647``, ``0xFF`` and ``0xff``, ``0x80`` and
  ``128``, black's ``100.0`` for ``100.``), in code (not a settings file or prose, where a
  number may be a version). A value changed (``100`` become ``1000``, ``1.2`` become
  ``1.20``) is kept for the comparison to see;
- a constant named from the outermost scope (Ruby's and C++'s ``::Rails``) and the same
  name written plain: the name the note says, the scope it is looked up from made explicit
  (most often because a name of the same spelling came into the enclosing namespace);
- a block of one statement after ``if (...)``, ``for (...)``, ``while (...)`` or ``else``,
  written with its braces in one version and without in the other (``if (x) return y;`` and
  ``if (x) { return y; }``), in the languages where both mean the same;
- a Python f-string made only of names and text (``f"{a.b}{c}-_="``) and the concatenation
  of the same parts (``a.b + c + "-_="``);
- a method called infix in Scala and Kotlin (``a max b``, ``keyName(k) valueName (v)``,
  ``makeDef(...) required ()``) and the same call written with a dot (``a.max(b)``,
  ``keyName(k).valueName(v)``): the language reads the first as the second;
- casts that only tell the type checker (TypeScript's non-null ``x!`` and ``x as T``,
  Python's ``typing.cast(T, x)``) and the value they wrap: both are erased before the code
  runs. Only where one version's casts are among the other's (casts added or dropped): a
  cast to another type (``as Foo`` become ``as Bar``) is kept for the comparison to see;
- Python: an argument stored on the object as given in one version and through a conversion
  call in the other (``self.start = start`` and ``self.start = _utils.to_seconds(start)``):
  a constructor that now accepts more forms of a value (a ``timedelta`` for seconds, a string
  for a number) and normalises it on the way in; what the object does with the stored value is
  unchanged. Only that exact pair: the attribute named as the parameter, the call's one
  argument that parameter, the other version storing it bare. Any other wrapping (``return
  abs(x)``, ``max(0, x)``) is kept for the comparison to see. The same for a collection
  converted element by element (``self.stops = tuple(_compat.accept(s) for s in stops)``
  and ``self.stops = stops``, a compat layer removed): each element normalised on the way
  in, all of them kept, in order. Only a comprehension with no filter, over the parameter,
  whose element is the one argument of a (dotted) name's call, bare or in ``tuple(...)``,
  ``list(...)`` or ``[...]``; a filter (``if``), ``sorted``, ``set`` change which elements
  are stored or their order, and are kept;
- Python: a guard that only fails on ``None`` (``if x is None: raise E(...)`` on two lines, or
  ``assert x is not None``), in one version and not the other: the code without it failed on
  that ``None`` too, a line later (an ``AttributeError``, a ``TypeError``); the guard names
  the failure (most often for a type checker) and changes nothing of what the code does with
  a value. A guard that tests anything else (``if x < 0: raise``), or returns instead of
  raising, is kept for the comparison to see.
"""

from __future__ import annotations

from collections import Counter

from reflectgit.notes import languages
from reflectgit.notes.tokens import KEYWORDS, bound_names, is_name, number_spelling, spans

_Span = tuple[str, int, int]
_Edit = tuple[int, int, str]  # (start, end, replacement) in a text
# Where annotations stand: slot (a function's parameter or return, an assignment's target) ->
# (start, end, the annotation's tokens joined).
_Slots = dict[tuple[str, ...], tuple[int, int, str]]

# Python's words that a ``:`` follows at the start of a line (``else: x = 1`` annotates nothing).
_CLAUSES = frozenset({
    "else", "elif", "try", "except", "finally", "lambda", "case", "match", "with", "while",
    "for", "if", "class", "def", "return", "async",
})  # fmt: skip
_OPEN, _CLOSE = frozenset("([{"), frozenset(")]}")
# Words that a braced block may follow (after their bracketed condition, or alone).
_GUARDS = frozenset({"if", "for", "while"})
# Words that may open a top-level binding before its name (``local``, ``const``).
_DECLARE = frozenset({"local", "const", "let", "var"})
# The words of the languages where ``a name b`` calls a method (``languages``: ``infix_calls``)
# that stand between two expressions or names without being a method (``x match {``, ``class A
# extends B``, ``x in xs``, ``val x by lazy``).
# TypeScript's words after which ``!`` negates what follows (``return !x``) and that ``as``
# follows without casting (``import { a as b }``, ``export * as ns``).
_TS_WORDS = frozenset({
    "return", "typeof", "void", "await", "yield", "case", "in", "of", "throw", "new", "delete",
    "else", "do", "instanceof", "keyof",
})  # fmt: skip
_NOT_METHODS = frozenset({
    "abstract", "case", "catch", "class", "def", "do", "else", "extends", "final", "finally",
    "for", "forSome", "if", "implicit", "import", "lazy", "match", "new", "object", "override",
    "package", "private", "protected", "return", "sealed", "throw", "trait", "try", "type",
    "val", "var", "while", "with", "yield", "given", "using", "then", "enum", "export", "end",
    "derives", "extension", "as", "is", "in", "by", "where", "fun", "when", "interface",
    "typealias", "constructor", "init", "companion", "data", "inline", "suspend", "operator",
    "infix", "internal", "public", "open", "out", "get", "set", "const", "vararg", "noinline",
    "crossinline", "reified", "annotation", "inner", "value", "actual", "expect", "tailrec",
    "super", "this", "null", "true", "false",
})  # fmt: skip


def respell(
    old: str, new: str, path: str, before: str | None = None, around: str | None = None
) -> tuple[str, str]:
    """``old`` and ``new`` (two versions of a block at ``path``; ``before`` and ``around``: the
    whole file's old and new versions, where aliases are bound) rewritten in one spelling."""
    language = languages.of(path)
    old = _one_spelling(old, path, old if before is None else before)
    new = _one_spelling(new, path, new if around is None else around)
    if language.python:
        old, new = _annotations(old, new, path)
        old, new = _stored_conversions(old, new, path)
        old, new = _none_guards(old, new, path)
    # casts erased before the code runs (TypeScript's ``x!``, ``x as T``; Python's
    # ``typing.cast``), unlike Kotlin's ``!!`` or Dart's ``as``, which throw
    if language.typescript or language.python:
        old, new = _erased_casts(old, new, path)
    if language.optional_braces:
        toks_old, toks_new = _toks(old, path), _toks(new, path)
        old, new = (
            _apply(old, _single_statement_braces(toks_old, toks_new)),
            _apply(new, _single_statement_braces(toks_new, toks_old)),
        )
    return old, new


def _one_spelling(text: str, path: str, file: str) -> str:
    """The rules that read one version alone, each applied to the text the last one left."""
    language = languages.of(path)
    text = _apply(text, _aliased(_toks(text, path), _aliases(_toks(file, path), file)))
    if language.lua:
        text = _apply(text, _string_methods(_toks(text, path)))
    if language.python:
        text = _apply(text, _super_calls(_toks(text, path)))
        text = _apply(text, _fstrings(_toks(text, path)))
    if language.go:
        text = _apply(text, _empty_interfaces(_toks(text, path)))
    if language.rooted_names:
        text = _apply(text, _root_scopes(_toks(text, path)))
    if language.infix_calls:
        text = _apply(text, _infix_calls(_toks(text, path)))
    if not (language.settings or language.prose):
        text = _apply(text, _numbers(_toks(text, path)))
    return _apply(text, _trailing_commas(_toks(text, path), language.tuples))


def _numbers(toks: list[_Span]) -> list[_Edit]:
    """Each number literal written in one spelling of its value (``tokens.number_spelling``)."""
    out: list[_Edit] = []
    for t, start, end in toks:
        one = number_spelling(t)
        if one != t:
            out.append((start, end, one))
    return out


def _toks(text: str, path: str) -> list[_Span]:
    return list(spans(text, path))


def _apply(text: str, edits: list[_Edit]) -> str:
    """``text`` with each edit made (edits that overlap an earlier one are left out)."""
    out: list[str] = []
    pos = 0
    for start, end, replacement in sorted(edits):
        if start < pos:
            continue
        out += [text[pos:start], replacement]
        pos = end
    return "".join(out) + text[pos:]


def _close(toks: list[_Span], at: int) -> int:
    """The index of the bracket closing the one at ``at`` (or the last token)."""
    depth = 0
    for i in range(at, len(toks)):
        t = toks[i][0]
        depth += (t in _OPEN) - (t in _CLOSE)
        if depth == 0:
            return i
    return len(toks) - 1


# --------------------------------------------------------------------------- aliases


def _aliases(toks: list[_Span], text: str) -> dict[str, str]:
    """The names the file binds once, at the top level (from the line's first column), to a
    qualified name and nothing else (``local gsub = string.gsub``): name -> qualified name. A
    name bound anywhere else too (reassigned, a local of the same name) is no alias."""
    found: dict[str, list[str]] = {}
    bound: dict[str, int] = {}
    for line in _lines(toks):
        words = [t for t, _, _ in line]
        for i, t in enumerate(words[:-1]):
            if is_name(t) and words[i + 1] in ("=", ":=") and (i == 0 or words[i - 1] != "."):
                bound[t] = bound.get(t, 0) + 1
        head = 1 if words[:1] and words[0] in _DECLARE else 0
        rest = words[head:]
        if rest[-1:] == [";"]:
            rest = rest[:-1]
        start = line[0][1] if line else 0
        if (
            len(rest) >= 5
            and (start == 0 or text[start - 1] == "\n")
            and is_name(rest[0])
            and rest[1] == "="
            and len(rest[2:]) % 2 == 1
            and all(is_name(t) for t in rest[2::2])
            and all(t == "." for t in rest[3::2])
        ):
            found.setdefault(rest[0], []).append("".join(rest[2:]))
    return {
        name: targets[0]
        for name, targets in found.items()
        if len(targets) == 1 and bound.get(name) == 1
    }


def _lines(toks: list[_Span]) -> list[list[_Span]]:
    out: list[list[_Span]] = [[]]
    for span in toks:
        if span[0] == "\n":
            out.append([])
        else:
            out[-1].append(span)
    return [line for line in out if line]


def _statements(toks: list[_Span]) -> list[list[_Span]]:
    """Like ``_lines``, but a line ending inside brackets goes on with the next one: a
    statement written over several lines (``x = tuple(f(s)\n for s in xs)``) is one."""
    out: list[list[_Span]] = [[]]
    depth = 0
    for span in toks:
        if span[0] == "\n" and depth <= 0:
            out.append([])
        elif span[0] != "\n":
            depth += (span[0] in _OPEN) - (span[0] in _CLOSE)
            out[-1].append(span)
    return [line for line in out if line]


def _aliased(toks: list[_Span], aliases: dict[str, str]) -> list[_Edit]:
    """Each use of an alias in ``toks`` (not a member of something else, ``x.gsub``) written as
    the name it stands for; not where the block binds the name itself (a parameter, a local,
    the alias's own binding): there it is the block's."""
    if not aliases:
        return []
    words = [t for t, _, _ in toks]
    rebound = bound_names([t for t in words if t != "\n"])
    out: list[_Edit] = []
    for i, (t, start, end) in enumerate(toks):
        if t not in aliases or t in rebound:
            continue
        if i and words[i - 1] in (".", ":", "->", "::") and words[i - 2 : i] != [".", "."]:
            continue  # a member of something else (Lua's ``..`` joins strings: no member)
        out.append((start, end, aliases[t]))
    return out


def _string_methods(toks: list[_Span]) -> list[_Edit]:
    """Lua: ``string.f(s, ...)``, ``s`` a name, written as the method call ``s:f(...)``."""
    words = [t for t, _, _ in toks]
    out: list[_Edit] = []
    for i in range(len(words) - 5):
        if (
            words[i] == "string"
            and (i == 0 or words[i - 1] not in (".", ":") or words[i - 2 : i] == [".", "."])
            and words[i + 1] == "."
            and is_name(words[i + 2])
            and words[i + 3] == "("
            and is_name(words[i + 4])
            and words[i + 5] in (",", ")")
        ):
            method, subject = words[i + 2], words[i + 4]
            comma = words[i + 5] == "," and i + 6 < len(toks)
            sep_end = toks[i + 6][1] if comma else toks[i + 5][1]
            out.append((toks[i][1], sep_end, f"{subject}:{method}("))
    return out


# --------------------------------------------------------------------------- Python


def _super_calls(toks: list[_Span]) -> list[_Edit]:
    """``super(Foo, self)`` written ``super()``; in a class with one base, ``Base.m(self, ...)``
    written ``super().m(...)``."""
    words = [t for t, _, _ in toks]
    out: list[_Edit] = []
    base: str | None = None
    for i, t in enumerate(words):
        if t == "class" and i + 2 < len(words) and is_name(words[i + 1]):
            # ``class Foo(Base):``: one base named; anything else (none, several) no base
            one = words[i + 2 : i + 6]
            base = one[1] if one[:1] == ["("] and one[2:4] == [")", ":"] else None
        if (
            t == "super"
            and words[i + 1 : i + 2] == ["("]
            and is_name(words[i + 2] if i + 2 < len(words) else "")
            and words[i + 3 : i + 4] == [","]
            and words[i + 4 : i + 6] in (["self", ")"], ["cls", ")"])
        ):
            out.append((toks[i + 1][1], toks[i + 5][2], "()"))
        elif (
            base is not None
            and t == base
            and (i == 0 or words[i - 1] != ".")
            and words[i + 1 : i + 2] == ["."]
            and i + 4 < len(words)
            and is_name(words[i + 2])
            and words[i + 3] == "("
            and words[i + 4] == "self"
            and i + 5 < len(words)
            and words[i + 5] in (",", ")")
        ):
            cut = toks[i + 6][1] if words[i + 5] == "," and i + 6 < len(toks) else toks[i + 5][1]
            out.append((toks[i][1], cut, f"super().{words[i + 2]}("))
    return out


def _fstrings(toks: list[_Span]) -> list[_Edit]:
    """An f-string of names and plain text only written as the concatenation of its parts (in
    brackets when a method is called on it: ``f"{a}b".encode()``)."""
    out: list[_Edit] = []
    for i, (t, start, _) in enumerate(toks[:-1]):
        nxt, _, end = toks[i + 1]
        if t not in ("f", "F") or nxt[:1] not in ("'", '"') or toks[i + 1][1] != toks[i][2]:
            continue
        parts = _fstring_parts(nxt)
        if parts is None or len(parts) < 2:
            continue
        joined = " + ".join(parts)
        dotted = i + 2 < len(toks) and toks[i + 2][0] == "."
        out.append((start, end, f"({joined})" if dotted else joined))
    return out


def _fstring_parts(token: str) -> list[str] | None:
    """The parts of an f-string's body (``{a.b}`` as ``a.b``, text as a string in the same
    quotes), or None when it holds anything else (a format spec, a call, an escape)."""
    quote = token[0]
    if token.startswith(quote * 3) or "\\" in token:
        return None
    body = token[1:-1]
    parts: list[str] = []
    pos = 0
    while pos < len(body):
        if body[pos] == "{":
            close = body.find("}", pos)
            expr = body[pos + 1 : close] if close > 0 else ""
            names = expr.split(".")
            if not expr or not all(n.isidentifier() for n in names):
                return None
            parts.append(expr)
            pos = close + 1
        else:
            brace = body.find("{", pos)
            text = body[pos:] if brace < 0 else body[pos:brace]
            if "}" in text:
                return None
            parts.append(quote + text + quote)
            pos = len(body) if brace < 0 else brace
    return parts


def _annotations(old: str, new: str, path: str) -> tuple[str, str]:
    """Both versions without the annotations only one of them has, or both the same: of a
    function's parameters and its return (keyed by the function's name, which of that name
    it is and the parameter's name), and of an assignment (keyed by its target and which
    one). An annotation both versions have and that differs is kept: the type changed."""
    slots_old = _annotation_slots(_toks(old, path))
    slots_new = _annotation_slots(_toks(new, path))

    def edits(mine: _Slots, theirs: _Slots) -> list[_Edit]:
        out: list[_Edit] = []
        for key, (start, end, written) in mine.items():
            other = theirs.get(key)
            if other is None or other[2] == written:
                out.append((start, end, ""))
        return out

    old_edits, new_edits = edits(slots_old, slots_new), edits(slots_new, slots_old)
    return _apply(old, old_edits), _apply(new, new_edits)


def _none_guards(old: str, new: str, path: str) -> tuple[str, str]:
    """Both versions without the ``None`` guards only one of them holds."""

    def guards(toks: list[_Span]) -> dict[tuple[str, ...], tuple[int, int]]:
        found: dict[tuple[str, ...], tuple[int, int]] = {}
        lines = _lines(toks)
        for i, line in enumerate(lines):
            words = [t for t, _, _ in line]
            if words[:1] == ["assert"] and words[-3:] == ["is", "not", "None"]:
                found[tuple(words)] = (line[0][1], line[-1][2])
            elif (
                words[:1] == ["if"]
                and words[-3:] == ["is", "None", ":"]
                and len(words) > 4
                and i + 1 < len(lines)
                and lines[i + 1][0][0] == "raise"
            ):
                after = [t for t, _, _ in lines[i + 1]]
                found[tuple(words + after)] = (line[0][1], lines[i + 1][-1][2])
        return found

    in_old, in_new = guards(_toks(old, path)), guards(_toks(new, path))
    return (
        _apply(old, [(a, b, "") for key, (a, b) in in_old.items() if key not in in_new]),
        _apply(new, [(a, b, "") for key, (a, b) in in_new.items() if key not in in_old]),
    )


def _stored_conversions(old: str, new: str, path: str) -> tuple[str, str]:
    """Both versions with ``self.x = f(x)``, or each element of ``x`` converted (see
    ``_each_converted``), written ``self.x = x`` where the other version stores ``x`` bare
    (``f`` a name or a dotted name)."""

    def stores(toks: list[_Span]) -> tuple[set[str], dict[str, tuple[int, int, str]]]:
        bare: set[str] = set()
        wrapped: dict[str, tuple[int, int, str]] = {}
        for line in _statements(toks):
            words = [t for t, _, _ in line]
            if len(words) < 5 or words[:2] != ["self", "."] or words[3] != "=":
                continue
            if not is_name(words[2]):
                continue
            name, value = words[2], words[4:]
            if value == [name]:
                bare.add(name)
            elif _converted(value, name) or _each_converted(value, name):
                wrapped[name] = (line[4][1], line[-1][2], name)
        return bare, wrapped

    bare_old, wrapped_old = stores(_toks(old, path))
    bare_new, wrapped_new = stores(_toks(new, path))
    return (
        _apply(old, [e for n, e in wrapped_old.items() if n in bare_new]),
        _apply(new, [e for n, e in wrapped_new.items() if n in bare_old]),
    )


def _converted(value: list[str], name: str) -> bool:
    """``value`` is ``f(name)``, ``f`` a name or a dotted name (``_utils.to_seconds``)."""
    head = value[:-3]
    return (
        len(head) % 2 == 1
        and value[-3:] == ["(", name, ")"]
        and all(is_name(t) for t in head[::2])
        and all(t == "." for t in head[1::2])
    )


def _each_converted(value: list[str], name: str) -> bool:
    """``value`` converts each element of ``name`` and keeps them all, in order: ``[f(e) for
    e in name]``, or ``tuple(...)``/``list(...)`` of ``f(e) for e in name`` (``f`` as in
    ``_converted``). Not a filter (``if``), nor ``sorted``, ``set`` or any other container:
    those change which elements are stored, or their order."""
    if value[:2] in (["tuple", "("], ["list", "("]) and value[-1:] == [")"]:
        inner = value[2:-1]
    elif value[:1] == ["["] and value[-1:] == ["]"]:
        inner = value[1:-1]
    else:
        return False
    if len(inner) < 8 or inner[-4] != "for" or inner[-2:] != ["in", name]:
        return False  # ``f ( e ) for e in name``: a comprehension over the stored argument
    element = inner[-3]
    return is_name(element) and element != name and _converted(inner[:-4], element)


def _annotation_slots(toks: list[_Span]) -> _Slots:
    """Where each annotation stands: slot -> (start, end, its tokens joined). A slot with no
    annotation is absent."""
    words = [t for t, _, _ in toks]
    out: _Slots = {}
    seen: dict[str, int] = {}
    for i, t in enumerate(words):
        if t == "def" and i + 2 < len(words) and is_name(words[i + 1]) and words[i + 2] == "(":
            name = words[i + 1]
            nth = str(seen.setdefault("def " + name, 0))
            seen["def " + name] += 1
            close = _close(toks, i + 2)
            for param, span in _parameter_annotations(toks, i + 3, close):
                out["def", name, nth, param] = span
            if close + 1 < len(words) and words[close + 1] == "->":
                end = close + 2
                depth = 0
                while end < len(words) and not (depth == 0 and words[end] == ":"):
                    depth += (words[end] in _OPEN) - (words[end] in _CLOSE)
                    end += 1
                if end > close + 2:
                    out["return", name, nth] = _span(toks, close + 1, end)
        elif (i == 0 or words[i - 1] == "\n") and is_name(t) and t not in _CLAUSES:
            j = i + 1
            while j + 1 < len(words) and words[j] == "." and is_name(words[j + 1]):
                j += 2
            if j >= len(words) or words[j] != ":":
                continue
            k, depth = j + 1, 0
            while k < len(words) and not (depth == 0 and words[k] in ("=", "\n")):
                depth += (words[k] in _OPEN) - (words[k] in _CLOSE)
                k += 1
            if k < len(words) and words[k] == "=" and k > j + 1:
                target = "".join(words[i:j])
                nth = str(seen.setdefault("set " + target, 0))
                seen["set " + target] += 1
                out["set", target, nth] = _span(toks, j, k)
    return out


def _parameter_annotations(
    toks: list[_Span], start: int, close: int
) -> list[tuple[str, tuple[int, int, str]]]:
    """The annotated parameters between ``start`` and the closing bracket at ``close``."""
    out: list[tuple[str, tuple[int, int, str]]] = []
    depth, name, colon, valued = 0, "", -1, False
    for i in range(start, close + 1):
        t = toks[i][0]
        if t == "\n":
            continue
        at_end = i == close or (depth == 0 and t == ",")
        if at_end or (depth == 0 and t == "="):
            if colon >= 0 and name:
                out.append((name, _span(toks, colon, i)))
            colon = -1
            valued = not at_end  # (a default's own colons, ``lambda x: x``, annotate nothing)
            if at_end:
                name = ""
            continue
        if depth == 0 and not name and is_name(t):
            name = t
        elif depth == 0 and t == ":" and name and not valued:
            colon = i
        depth += (t in _OPEN) - (t in _CLOSE)
    return out


def _span(toks: list[_Span], start: int, end: int) -> tuple[int, int, str]:
    """Tokens ``start`` up to ``end`` (excluded) as where they stand and what they say."""
    body = [t for t, _, _ in toks[start:end] if t != "\n"]
    last = max(i for i in range(start, end) if toks[i][0] != "\n")
    return toks[start][1], toks[last][2], " ".join(body)


# --------------------------------------------------------------------------- any language


def _trailing_commas(toks: list[_Span], tuples: bool) -> list[_Edit]:
    """A ``,`` right before a closing bracket left out; in Python and Rust, before ``)`` only
    where it makes no tuple: in a call's or a definition's brackets (after a name that is no
    word of the language, or after a bracket), or after another ``,`` of the same brackets
    (``(a, b,)`` is ``(a, b)``, ``(a,)`` is not ``(a)``)."""
    words = [s[0] for s in toks]
    out: list[_Edit] = []
    for i, t in enumerate(words):
        if t not in _OPEN:
            continue
        close = _close(toks, i)
        if words[close] not in _CLOSE:
            continue
        last = close - 1
        while last > i and words[last] == "\n":
            last -= 1
        if last <= i or words[last] != ",":
            continue
        if t == "(" and tuples:
            before = words[i - 1] if i else ""
            called = (is_name(before) and before not in KEYWORDS) or before in (")", "]")
            depth, commas = 0, 0
            for w in words[i + 1 : last]:
                depth += (w in _OPEN) - (w in _CLOSE)
                commas += depth == 0 and w == ","
            if not called and not commas:
                continue
        out.append((toks[last][1], toks[last][2], ""))
    return out


def _empty_interfaces(toks: list[_Span]) -> list[_Edit]:
    """Go: ``interface{}`` written ``any``."""
    words = [t for t, _, _ in toks]
    return [
        (toks[i][1], toks[i + 2][2], "any")
        for i in range(len(words) - 2)
        if words[i] == "interface" and words[i + 1] == "{" and words[i + 2] == "}"
    ]


def _root_scopes(toks: list[_Span]) -> list[_Edit]:
    """``::Name`` at the start of a name (not ``A::Name``) written ``Name``."""
    words = [t for t, _, _ in toks]
    return [
        (toks[i][1], toks[i][2], "")
        for i in range(len(words) - 1)
        if words[i] == "::"
        and is_name(words[i + 1])
        and not (i and (is_name(words[i - 1]) or words[i - 1] in (")", "]", ">")))
    ]


def _single_statement_braces(toks: list[_Span], other: list[_Span]) -> list[_Edit]:
    """The braces around a block of one statement on one line (``{ return y; }``) after the
    condition of ``if``, ``for`` or ``while`` or after ``else`` left out, where the other
    version (``other``) writes the same guard and statement without them (a block that only
    one version has is new code, its braces and all)."""
    words = [t for t, _, _ in toks]
    theirs = [t for t, _, _ in other if t != "\n"]
    out: list[_Edit] = []
    for i, t in enumerate(words):
        if t != "{" or i == 0:
            continue
        j = i - 1
        while j > 0 and words[j] == "\n":
            j -= 1
        guarded, k = words[j] == "else", j
        if words[j] == ")":
            depth, k = 0, j
            while k >= 0:
                depth += (words[k] in _CLOSE) - (words[k] in _OPEN)
                if depth == 0:
                    break
                k -= 1
            k -= 1
            guarded = k >= 0 and words[k] in _GUARDS
        if not guarded:
            continue
        close = _close(toks, i)
        body = [w for w in words[i + 1 : close] if w != "\n"]
        inner = [at for at in range(i + 1, close) if words[at] != "\n"]
        if (
            words[close] != "}"
            or not body
            or any(w in ("{", "}") for w in body)
            or ";" in body[:-1]
            or "\n" in words[inner[0] : inner[-1] + 1]
        ):
            continue
        unbraced = [w for w in words[k : j + 1] if w != "\n"] + body
        if not any(theirs[m : m + len(unbraced)] == unbraced for m in range(len(theirs))):
            continue
        out += [(toks[i][1], toks[i][2], ""), (toks[close][1], toks[close][2], "")]
    return out


def _infix_calls(toks: list[_Span]) -> list[_Edit]:
    """Scala and Kotlin: a method called infix, ``a name (b)`` or ``a name b``, written
    ``a.name(b)``. Only where both operands stand on the method's line and each is plainly
    one: on the left a name, a literal or a closing bracket, on the right a bracketed argument
    list or one name or literal that nothing continues (``a name b.c`` is left as written:
    its argument is not one token)."""
    words = [t for t, _, _ in toks]
    out: list[_Edit] = []
    for i in range(1, len(words) - 1):
        name, left, right = words[i], words[i - 1], words[i + 1]
        if not is_name(name) or name in _NOT_METHODS or name[0].isdigit():
            continue
        if not (_operand(left) or left in (")", "]")) or left in _NOT_METHODS:
            continue
        if left == ")" and _opener(words, i - 1) in _NOT_METHODS:
            continue  # ``if (x) name(y)``: a condition, then a statement
        if right == "(":
            out.append((toks[i][1], toks[i][2], "." + name))
        elif (
            _operand(right)
            and right not in _NOT_METHODS
            and (i + 2 == len(words) or words[i + 2] not in (".", "(", "[", "{"))
        ):
            out += [
                (toks[i][1], toks[i][2], "." + name),
                (toks[i + 1][1], toks[i + 1][2], f"({right})"),
            ]
    return out


def _operand(token: str) -> bool:
    """A name, a number or a string: one token that is a whole expression."""
    return is_name(token) or token[:1].isdigit() or (token[:1] in "\"'" and len(token) > 1)


def _opener(words: list[str], close: int) -> str:
    """The word before the bracket that the one at ``close`` closes ("" when none)."""
    depth = 0
    for k in range(close, -1, -1):
        depth += (words[k] in _CLOSE) - (words[k] in _OPEN)
        if depth == 0:
            return words[k - 1] if k else ""
    return ""


# --------------------------------------------------------------------------- casts


def _erased_casts(old: str, new: str, path: str) -> tuple[str, str]:
    """Both versions without their casts, when one version's casts (by the type they name)
    are among the other's: casts were added or dropped, none changed its type."""
    found_old, found_new = _casts(_toks(old, path), path), _casts(_toks(new, path), path)
    if not found_old and not found_new:
        return old, new
    kinds_old = Counter(kind for _, kind in found_old)
    kinds_new = Counter(kind for _, kind in found_new)
    if not (kinds_old <= kinds_new or kinds_new <= kinds_old):
        return old, new
    return _apply(old, [e for e, _ in found_old]), _apply(new, [e for e, _ in found_new])


def _casts(toks: list[_Span], path: str) -> list[tuple[_Edit, str]]:
    """The erased casts of ``toks``: each as the edit that leaves its value alone, and the
    type it names (``!`` for a non-null assertion)."""
    words = [t for t, _, _ in toks]
    out: list[tuple[_Edit, str]] = []
    if languages.of(path).python:
        for i in range(len(words) - 1):
            if words[i] != "cast" or words[i + 1] != "(":
                continue
            start = i
            if i >= 2 and words[i - 1] == "." and words[i - 2] in ("t", "typing"):
                start = i - 2
            elif i and words[i - 1] == ".":
                continue  # another object's ``cast``
            close = _close(toks, i + 1)
            comma = _top_comma(words, i + 1, close)
            if comma is None or comma + 1 >= close:
                continue
            kind = "cast " + " ".join(words[i + 2 : comma])
            out.append(
                ((toks[start][1], toks[close][2], f" {_text_of(toks, comma + 1, close)} "), kind)
            )
        return out
    statement_as = _import_exports(words)
    for i in range(1, len(words)):
        before = words[i - 1]
        after_value = (is_name(before) and before not in _TS_WORDS) or before in (")", "]")
        if words[i] == "!" and after_value:
            out.append(((toks[i][1], toks[i][2], ""), "!"))
        elif words[i] == "as" and after_value and i not in statement_as:
            end = _type_end(words, i + 1)
            if end > i + 1:
                kind = "as " + " ".join(words[i + 1 : end])
                out.append(((toks[i][1], toks[end - 1][2], ""), kind))
    return out


def _text_of(toks: list[_Span], start: int, end: int) -> str:
    """The tokens from ``start`` up to ``end`` (not included), joined by spaces."""
    return " ".join(t for t, _, _ in toks[start:end] if t != "\n")


def _top_comma(words: list[str], open_at: int, close: int) -> int | None:
    """The first ``,`` directly inside the bracket at ``open_at``."""
    depth = 0
    for k in range(open_at, close):
        depth += (words[k] in _OPEN) - (words[k] in _CLOSE)
        if depth == 1 and words[k] == ",":
            return k
    return None


def _type_end(words: list[str], at: int) -> int:
    """Where a TypeScript type written from ``at`` ends: a name with its qualifiers, its
    type arguments (``Readonly<T>``) and array brackets (``T[]``), or ``const``."""
    k = at
    if k >= len(words) or not is_name(words[k]):
        return at
    k += 1
    while k + 1 < len(words) and words[k] == "." and is_name(words[k + 1]):
        k += 2
    if k < len(words) and words[k] == "<":
        depth = 0
        for j in range(k, len(words)):
            depth += words[j].count("<") - words[j].count(">")
            if depth <= 0:
                k = j + 1
                break
            if words[j] in (";", "{", "}", "\n"):
                return at
    while k + 1 < len(words) and words[k] == "[" and words[k + 1] == "]":
        k += 2
    return k


def _import_exports(words: list[str]) -> set[int]:
    """The ``as`` of import and export statements (``import { a as b }``, ``export * as ns``):
    they name, they do not cast."""
    out: set[int] = set()
    inside = False
    for k, w in enumerate(words):
        if w in ("import", "export") and (k == 0 or words[k - 1] in ("\n", ";")):
            inside = w == "import" or (k + 1 < len(words) and words[k + 1] in ("{", "*"))
        elif inside and (w == ";" or (w[:1] in "\"'`" and k and words[k - 1] == "from")):
            inside = False
        elif inside and w == "as":
            out.add(k)
    return out
