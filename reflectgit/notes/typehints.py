"""The type declarations of a piece of code, and the code without them. Pure.

A change that only adds, changes or drops the types a definition declares (PHP 8's ``string
$ruleset`` and ``: array``, Python's ``x: int`` and ``-> str``, TypeScript's ``a?: string``
and ``): Promise<void>``) tells the type checker what the code already did: it is a respelling
of the code, unless the note names a type it touched (a note on a function "accepting ints"
whose parameter became ``str``). ``retyped`` says when two versions of a block differ in
nothing but those declarations, and which type names the change took away and put in.

The declarations read, by how the language writes them (``languages``: ``declared_types``):

- ``after`` the name (Python, TypeScript, Kotlin, Swift): a parameter's ``: T`` (``?: T``) up
  to its default, the next parameter or the list's end; a return's ``-> T`` (Python, Swift) or
  ``: T`` (TypeScript, Kotlin) after the parameters, up to the body; a variable's or field's
  ``: T`` at the start of its line before an ``=`` (``let x: T = ...``, ``private n: number =
  0;``; TypeScript's ``name: T;``);
- ``before`` the name (PHP): what stands between a parameter's modifiers and its ``$name``
  (``?array``, ``string|int``), the return's ``: T`` after the parameters, and a property's
  type after its modifiers (``private ?string $x``).

The parameters are those of a definition (``def``, ``function``, ``fun``, ``func``, a
method's ``name(...) {`` at the start of its line, an arrow's ``(...) =>``), never a call's:
a call's ``f(x: 1)`` passes a keyword argument.
"""

from __future__ import annotations

from collections import Counter

from reflectgit.notes import languages
from reflectgit.notes.tokens import KEYWORDS, is_name, lines

# The words that open a definition whose parameters follow its name (or follow the word
# itself: an anonymous ``function (``).
_DEFINES = frozenset({"def", "function", "fun", "func", "fn", "init", "constructor"})
# Words that may stand before a declared name or type (``private readonly``, ``static``).
_MODIFIERS = frozenset({
    "public", "private", "protected", "readonly", "static", "final", "abstract", "override",
    "declare", "export", "async", "var", "let", "const", "val", "internal", "open", "lateinit",
    "weak", "lazy", "mutating", "nonmutating", "fileprivate", "required", "convenience",
})  # fmt: skip
# Where a type written after a name ends: its default, the next parameter, the list's end,
# the body, a statement's end, an arrow's body.
_TYPE_ENDS = frozenset({"=", ",", ")", "{", ";", "=>", "where"})
_OPEN = {"(": ")", "[": "]", "{": "}", "<": ">"}
_CLOSE = frozenset(_OPEN.values())


def retyped(old: str, new: str, path: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """When ``new`` differs from ``old`` (two versions of a block at ``path``) only in the
    types its declarations state (added, changed or dropped; comments and layout aside), the
    names of the types the change took away and those it put in (``int $id`` become ``string
    $id``: ``int``, then ``string``); else None (the same code, a language whose declarations
    are not read, or any other change)."""
    style = languages.of(path).declared_types
    if style is None:
        return None
    a, a_types = _untyped(lines(old, path), style)
    b, b_types = _untyped(lines(new, path), style)
    if a != b or a_types == b_types:
        return None
    was, now = Counter(a_types), Counter(b_types)
    return _names(was - now), _names(now - was)


def _names(types: Counter[str]) -> tuple[str, ...]:
    return tuple(sorted(t for t in types if is_name(t)))


def _untyped(code: list[list[str]], style: str) -> tuple[list[str], list[str]]:
    """``code``'s tokens without its type declarations, and the tokens of those declarations."""
    out: list[str] = []
    types: list[str] = []
    for line in code:
        kept, dropped = (_before if style == "before" else _after)(line)
        out += kept
        types += dropped
    # (a parameter list spanning lines is read again as one: ``_lists``)
    return _lists(out, types, style)


def _lists(flat: list[str], types: list[str], style: str) -> tuple[list[str], list[str]]:
    """The parameter lists of ``flat`` (the code's tokens, each line's field types already
    taken out) without their types, and the types taken out of them added to ``types``."""
    out: list[str] = []
    i = 0
    while i < len(flat):
        if flat[i] == "(" and _defines(flat, i):
            close = _close(flat, i)
            params, dropped = _parameters(flat[i + 1 : close], style)
            out += ["(", *params, ")"]
            types += dropped
            end = _return_end(flat, close + 1, style)
            types += flat[close + 2 : end] if end > close + 1 else []
            i = end if end > close + 1 else close + 1
            continue
        out.append(flat[i])
        i += 1
    return out, types


def _defines(flat: list[str], at: int) -> bool:
    """Does the ``(`` at ``at`` open a definition's parameters: after a definition word and its
    name (``def f(``, ``function (``), or followed, after its ``)``, by an arrow (``(a:
    number) =>``) or a return type and body?"""
    before = flat[at - 1] if at else ""
    if before in _DEFINES or (at > 1 and flat[at - 2] in _DEFINES and is_name(before)):
        return True
    close = _close(flat, at)
    after = flat[close + 1] if close + 1 < len(flat) else ""
    if after == "=>" or (after == ":" and "=>" in flat[close + 1 : close + 20]):
        return True
    if not is_name(before) or before in ("if", "for", "while", "switch", "catch", "return"):
        return False
    # a method: ``name(...) {`` or ``name(...): T {`` standing where a statement starts
    start = at - 1
    while start > 0 and flat[start - 1] in _MODIFIERS:
        start -= 1
    opens = start == 0 or flat[start - 1] in ("{", "}", ";")
    # (an interface's or an abstract method's declaration ends with ``;``)
    if after in ("{", ";"):
        return opens
    return opens and after == ":" and any(t in ("{", ";") for t in flat[close + 1 : close + 40])


def _close(flat: list[str], at: int) -> int:
    depth = 0
    for i in range(at, len(flat)):
        depth += (flat[i] in "([{") - (flat[i] in ")]}")
        if depth == 0:
            return i
    return len(flat) - 1


def _return_end(flat: list[str], at: int, style: str) -> int:
    """Where the return type that starts at ``at`` (right after a parameter list) ends: the
    index of the body's first token (``{``, ``:`` in Python, ``=>``, ``;``, ``=``); ``at``
    when no return type is written there."""
    if at >= len(flat) or flat[at] != ("->" if style == "arrow" else ":"):
        return at
    depth = 0
    for i in range(at + 1, len(flat)):
        t = flat[i]
        if depth == 0 and t in ("{", "=>", ";", "=", "where", ":"):
            return i if i > at + 1 else at
        depth += (t in _OPEN) - (t in _CLOSE)
        if depth < 0:
            return at
    return at


def _parameters(params: list[str], style: str) -> tuple[list[str], list[str]]:
    """A parameter list's tokens (inside its brackets) without their types, and the types."""
    out: list[str] = []
    types: list[str] = []
    for part in _split(params):
        if style == "before":
            at = next((i for i, t in enumerate(part) if t.startswith("$")), None)
            if at is None:
                out += [*part, ","]
                continue
            head = 0
            while head < at and part[head] in _MODIFIERS:
                head += 1
            rest = part[head:at]
            marks = [t for t in rest if t in ("&", "...")]
            types += [t for t in rest if t not in ("&", "...")]
            out += part[:head] + marks + part[at:]
        else:
            colon = _colon(part)
            if colon is None:
                out += [*part, ","]
                continue
            stop = next((i for i in range(colon + 1, len(part)) if part[i] == "="), len(part))
            types += part[colon + 1 : stop]
            out += part[:colon] + part[stop:]
        out.append(",")
    if out and out[-1] == ",":
        out.pop()
    return out, types


def _colon(part: list[str]) -> int | None:
    """Where a parameter's type starts after its name (``name: T``, ``name?: T``, ``...rest:
    T``, ``*args: T``, Swift's ``_ x: T``): the ``:`` after the parameter's first names; None
    when there is none (an object's ``{a: 1}``, a condition's ``a ? b : c``)."""
    for i, t in enumerate(part[:4]):
        if t in (":", "?:"):
            return i if i > 0 and is_name(part[i - 1]) else None
        if not (is_name(t) or t in ("...", "*", "**")):
            return None
    return None


def _split(params: list[str]) -> list[list[str]]:
    """A parameter list's tokens split at its top-level commas (``Map<K, V>`` is one type)."""
    parts: list[list[str]] = [[]]
    depth = 0
    for t in params:
        if t == "," and depth == 0:
            parts.append([])
            continue
        depth += (t in _OPEN) - (t in _CLOSE)
        depth = max(depth, 0)
        parts[-1].append(t)
    return [p for p in parts if p]


def _after(line: list[str]) -> tuple[list[str], list[str]]:
    """A line without the type of the variable or field it declares at its start (``let x:
    T = ...``, ``count: int = 0``, ``private n: number;``), and that type."""
    i = 0
    while i < len(line) and line[i] in _MODIFIERS:
        i += 1
    if i + 1 >= len(line) or not is_name(line[i]) or line[i + 1] not in (":", "?:", "!:"):
        return line, []
    if line[i].lower() in KEYWORDS:
        return line, []  # ``else: x = 1``, ``case x:``
    depth = 0
    for j in range(i + 2, len(line)):
        t = line[j]
        if depth == 0 and t in ("=", ";"):
            if j == i + 2:
                return line, []
            return line[: i + 1] + line[j:], line[i + 2 : j]
        depth += (t in _OPEN) - (t in _CLOSE)
        if depth < 0:
            return line, []
    return line, []


def _before(line: list[str]) -> tuple[list[str], list[str]]:
    """A line without the type of the property it declares (``private ?string $x = ...;``,
    PHP), and that type."""
    i = 0
    while i < len(line) and line[i] in _MODIFIERS:
        i += 1
    if i == 0:
        return line, []
    at = next((j for j in range(i, len(line)) if line[j].startswith("$")), None)
    if at is None or at == i or any(t in ("(", "=", "function") for t in line[i:at]):
        return line, []
    return line[:i] + line[at:], line[i:at]
