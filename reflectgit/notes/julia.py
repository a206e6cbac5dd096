"""Julia definitions: what of a Julia text is code, and where it defines a name. Pure.

Julia (the Julia manual, "Functions", "Methods", "Types", "Modules") defines a name with

- a long-form function or macro, ``function name(args) ... end``, ``macro name(args) ... end``
  (``function name end`` declares one with no method): its block runs to the ``end`` that
  closes it, the ends of the blocks inside it counted. The words that open a block an ``end``
  closes are ``function``, ``macro``, ``if``, ``for``, ``while``, ``let``, ``begin``,
  ``quote``, ``do``, ``try``, ``struct`` (``mutable struct``), ``module``, ``baremodule`` and
  ``abstract type``/``primitive type``; inside brackets they are none (``a[end]``,
  ``a[begin]``, a comprehension's ``for`` and ``if``), and neither is a field's name
  (``x.end``) or a symbol (``:end``);
- a short-form method, ``name(args) = expr``, ``name(args)::T where {T} = expr``, written at
  the start of its line, its expression continuing on the lines indented deeper after it (and
  through any bracket or block it leaves open);
- a type: ``struct``, ``mutable struct``, ``abstract type``, ``primitive type`` to its ``end``;
- a global: ``const NAME = ...``, ``NAME = ...``, as a short-form method continues.

A method of a function another module owns is written qualified (``Base.sort(args) = ...``,
``function Base.get(...)``): an anchor on ``sort`` or on ``Base.sort`` names it. Each method
of a name is one block (``anchors.anchored_blocks`` takes them all). A definition counts where
the file's own names are defined: at its top level, in a ``module``, a ``begin`` block or an
``if`` (``@static if VERSION >= ...``); one inside a function, a ``let``, a loop or a
``struct`` (an inner constructor, part of the struct's block) is a local. ``#`` line comments,
nested ``#= =#`` block comments, strings (``"..."``, ``\"\"\"...\"\"\"``, with their ``$(...)``
interpolations), commands in backticks and character literals are no code: a name or an
``end`` in them is nothing. A docstring before a definition documents it as a comment does
and is left out of its block.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache

from reflectgit.notes import masking
from reflectgit.notes.lazyre import Pattern

# The words that open a block an ``end`` closes (``type`` only after ``abstract`` or
# ``primitive``; ``mutable struct`` is a ``struct``).
_OPENERS = frozenset({
    "function", "macro", "if", "for", "while", "let", "begin", "quote", "do", "try", "struct",
    "module", "baremodule",
})  # fmt: skip
_TYPE_WORDS = frozenset({"abstract", "primitive"})
# The blocks a definition of the file's own names may stand in; inside any other (a function,
# a ``let``, a loop, a ``struct``, a ``quote``) a definition is a local.
_SCOPES = frozenset({"module", "baremodule", "begin", "if"})
_WORD = r"[^\W\d][\w!]*"
_TOKEN = Pattern(rf"{_WORD}|[()\[\]{{}}]")
# Macros that may stand before a definition on its line: ``@inline``, ``Base.@propagate_inbounds``
_MACROS = r"(?:(?:[A-Za-z_][\w.]*\.)?@[A-Za-z_][\w.]*[ \t]+)*"
# A name, qualified by the modules before it (``Base.sort``).
_QUALIFIED = rf"(?P<qualified>(?:[A-Za-z_]\w*\.)*)(?P<name>{_WORD})"
_LONG = Pattern(
    rf"^(?P<indent>[ \t]*){_MACROS}(?P<word>function|macro)[ \t]+{_QUALIFIED}"
    r"(?=[ \t]*(?:[({]|$|end\b))"
)
_TYPE = Pattern(
    rf"^(?P<indent>[ \t]*){_MACROS}(?:mutable[ \t]+)?(?P<word>struct|abstract[ \t]+type|"
    rf"primitive[ \t]+type)[ \t]+{_QUALIFIED}"
)
# The start of a short-form method or a global's assignment: the name, then its type
# parameters or its parameters (read on by ``_short_form``).
_SHORT = Pattern(rf"^(?P<indent>[ \t]*){_MACROS}(?:(?:const|global)[ \t]+)*{_QUALIFIED}")
# After a method's parameters: its return type, its ``where`` clauses, then ``=`` (not ``==``,
# ``=>``); after a global's name its type, then ``=``.
_AFTER_PARAMS = Pattern(r"\s*(?:::[^=]*?)?\s*(?:where\b[^=]*?)?\s*=(?![=>])")
_AFTER_NAME = Pattern(r"\s*(?:::[^=]*?)?=(?![=>])")
# A parameter typed with ``::`` (``(x::Int,``, ``(::Type{T})``, ``, ys::Vector{T}...)``): a name
# in lower case or none, a type, then the parameter's end (Rust's ``(sync::OnceCell::from(``
# and C++'s ``(ns::Type x)`` go on).
_TYPED = (
    r"\((?:[^\n]*?,)?[ \t]*(?:[a-z_]\w*)?::[ \t]*[A-Z][\w.]*(?:\{[^\n]*?\})?(?:\.\.\.)?"
    r"[ \t]*[,)=;]"
)
# A text its path does not tell the language of (``languages.readers``) is read as Julia when
# it holds what only Julia writes: a ``where`` clause after a
# signature (``) where {T}``, ``) where T<:Real``; Rust's and Swift's ``where T:`` are not), a
# declared type (``mutable struct``, ``abstract type``, ``primitive type``), or a method (long-
# or short-form) whose parameters are typed with ``::`` (``f(x::Int)``, ``f(::Type{T})``; C++'s
# and Ruby's ``A::B`` open no parameter). Not a ``#=``: the banner comments of Python, shell
# and Perl (``#=====``) open with it.
_JULIA = Pattern(
    r"(?m)\)[ \t]*where[ \t]*(?:\{|[A-Z]\w*[ \t]*(?:<:|=|$))"
    r"|^[ \t]*(?:mutable[ \t]+struct|abstract[ \t]+type|primitive[ \t]+type)[ \t]+[A-Z]"
    rf"|^[ \t]*function[ \t]+[\w.!]+(?:\{{[^{{}}\n]*\}})?{_TYPED}"
    rf"|^[ \t]*[\w.!]+(?:\{{[^{{}}\n]*\}})?{_TYPED}[^\n]*?(?<![=!<>])=(?![=>])"
)
_CHAR = Pattern(r"'(?:\\(?:'|[^'\n]{1,9})|[^'\\\n])'")


# Every definition is read here (``anchors``): a line the other languages' forms would read in
# Julia (a local function, a call) is no definition.
ALONE = True


@lru_cache(maxsize=16)  # asked at every lookup of an anchor in any file, as ``code`` is
def reads(text: str) -> bool:
    """Is ``text`` Julia: does it hold what only Julia writes (``_JULIA``)? Asked only of a
    text whose path does not tell its language (``languages.readers``)."""
    return ("::" in text or "where" in text or "type" in text) and (
        _JULIA.compiled.search(text) is not None
    )


def _string_end(text: str, pos: int, quote: str, interpolated: bool) -> int:
    """Where the string whose text starts at ``pos`` (after its opening ``quote``) ends: after
    its closing quote, its escapes and its ``$(...)`` interpolations (which may hold strings)
    read over."""
    size = len(text)
    while pos < size:
        if text.startswith(quote, pos):
            return pos + len(quote)
        if text[pos] == "\\":
            pos += 2
        elif interpolated and text.startswith("$(", pos):
            pos = _interpolation_end(text, pos + 1)
        else:
            pos += 1
    return size


def _interpolation_end(text: str, pos: int) -> int:
    """Where the ``(...)`` opening at ``pos`` inside a string ends (its strings read over)."""
    depth, size = 0, len(text)
    while pos < size:
        ch = text[pos]
        if ch == '"':
            quote = '"""' if text.startswith('"""', pos) else '"'
            pos = _string_end(text, pos + len(quote), quote, True)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return pos + 1
        pos += 1
    return size


@lru_cache(maxsize=16)
def code(text: str) -> str:
    """``text`` with its comments, strings, commands and character literals blanked (spaces,
    line breaks kept, so every position stays)."""
    out = list(text)
    pos, size = 0, len(text)

    def blank(start: int, end: int) -> None:
        masking.blank(out, text, start, end)

    while pos < size:
        ch = text[pos]
        if text.startswith("#=", pos):  # a block comment; they nest
            end = masking.nested_end(text, pos, ("#=", "=#"))
            blank(pos, end)
            pos = end
        elif ch == "#":
            end = text.find("\n", pos)
            end = size if end < 0 else end
            blank(pos, end)
            pos = end
        elif ch in '"`':
            quote = ch * 3 if text.startswith(ch * 3, pos) else ch
            # a string macro's text (``r"..."``, ``raw"..."``) interpolates nothing
            prefixed = pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] == "_")
            end = _string_end(text, pos + len(quote), quote, not prefixed)
            blank(pos, end)
            pos = end
        elif ch == "'" and not (pos and (text[pos - 1].isalnum() or text[pos - 1] in "_)]}'.!")):
            # a character literal; after a name or a bracket ``'`` is the adjoint operator
            found = _CHAR.compiled.match(text, pos)
            end = found.end() if found is not None else pos + 1
            blank(pos, end)
            pos = end
        else:
            pos += 1
    return "".join(out)


# An opener: its word (a bracket for a bracket), where it starts, where its closer ends.
_Opener = tuple[str, int, int]


@lru_cache(maxsize=16)
def _openers(text: str) -> tuple[_Opener, ...]:
    """Every block and bracket of ``text`` (``code``'s reading), in the order they open, each
    with where its ``end`` or closing bracket ends (the end of the text when none does)."""
    masked = code(text)
    size = len(masked)
    words: list[str] = []
    starts: list[int] = []
    closes: list[int] = []
    stack: list[int] = []  # the openers not closed yet, by their index
    brackets = 0  # brackets open: a block word inside them is none (``a[end]``)
    previous = ""
    for token in _TOKEN.compiled.finditer(masked):
        word, at = token.group(), token.start()
        if word in "([{":
            stack.append(len(words))
            words.append(word)
            starts.append(at)
            closes.append(size)
            brackets += 1
            continue
        if word in ")]}":
            if brackets:  # no block word opened since the last bracket: the top is one
                closes[stack.pop()] = token.end()
                brackets -= 1
            continue
        before = masked[at - 1] if at else "\n"
        # a field (``x.end``), a macro (``@time``), a symbol (``:end``; ``a ? b : c`` is spaced)
        quoted = before == ":" and not (
            at > 1 and (masked[at - 2].isalnum() or masked[at - 2] in "_)]}")
        )
        if not (brackets or before in ".@" or quoted):
            if word in _OPENERS or (word == "type" and previous in _TYPE_WORDS):
                stack.append(len(words))
                words.append(word)
                starts.append(at)
                closes.append(size)
            elif word == "end" and stack:
                closes[stack.pop()] = token.end()
        previous = word
    return tuple(zip(words, starts, closes, strict=True))


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _balanced(line: str, pos: int) -> int | None:
    """Where the bracket opening at ``pos`` of ``line`` closes (after it), None when it does
    not on this line."""
    depth = 0
    for at in range(pos, len(line)):
        if line[at] in "([{":
            depth += 1
        elif line[at] in ")]}":
            depth -= 1
            if depth == 0:
                return at + 1
    return None


def _short_form(line: str) -> tuple[str, str, int] | None:
    """The qualified name, the name and the indent of the short-form method or the global
    ``line`` (``code``'s reading) defines, or None."""
    found = _SHORT.compiled.match(line)
    if found is None:
        return None
    pos = found.end()
    if line[pos : pos + 1] == "{":  # type parameters: ``OrderedDict{K,V}(...) = ...``
        closed = _balanced(line, pos)
        if closed is None:
            return None
        pos = closed
    if line[pos : pos + 1] == "(":
        closed = _balanced(line, pos)
        if closed is None or not _AFTER_PARAMS.compiled.match(line, closed):
            return None
    # a global's name is its own: ``x.y = 1`` sets a field
    elif found.group("qualified") or not _AFTER_NAME.compiled.match(line, pos):
        return None
    return found.group("qualified"), found.group("name"), len(found.group("indent"))


def definitions(text: str, name: str) -> list[tuple[int, int, int]]:
    """Each definition of ``name`` (or of ``Module.name`` when ``name`` is so qualified) in
    ``text`` (read as Julia: its path or ``reads`` says so, see ``languages.readers``), in file
    order: the start of its first line, the end of that line and the end of its last line
    (after its line break)."""
    last = name.rpartition(".")[2]
    if not last or last not in text:
        return []
    masked = code(text)
    openers = _openers(text)
    starts = [o[1] for o in openers]
    out: list[tuple[int, int, int]] = []
    pos = 0
    while (at := masked.find(last, pos)) >= 0:
        start = masked.rfind("\n", 0, at) + 1
        end_of_line = _line_end(masked, at)
        pos = end_of_line + 1
        line = masked[start:end_of_line]
        block = _block(masked, openers, starts, start, line, name)
        if block is not None:
            out.append((start, end_of_line, block))
    return out


def _block(
    masked: str,
    openers: tuple[_Opener, ...],
    starts: list[int],
    start: int,
    line: str,
    name: str,
) -> int | None:
    """Where the definition of ``name`` on the line at ``start`` ends, None when the line
    defines no such name where the file's own names are defined."""
    found = _LONG.compiled.match(line) or _TYPE.compiled.match(line)
    short = None if found is not None else _short_form(line)
    if found is not None:
        qualified, defined = found.group("qualified"), found.group("name")
    elif short is not None:
        qualified, defined = short[0], short[1]
    else:
        return None
    if name not in (defined, qualified + defined):
        return None
    # the blocks and brackets open at the line: all must be scopes of the file's own names
    for word, _, closes in openers[: bisect_left(starts, start)]:
        if closes > start and word not in _SCOPES:
            return None
    if found is not None:  # to the ``end`` of its word (``type`` of ``abstract type``)
        opening = start + found.end("word") - len(found.group("word").split()[-1])
        index = bisect_left(starts, opening)
        if index < len(openers) and openers[index][1] == opening:
            return min(_line_end(masked, max(openers[index][2] - 1, opening)) + 1, len(masked))
        return min(_line_end(masked, start) + 1, len(masked))
    return _expression_end(masked, openers, starts, start, short[2] if short else 0)


def _expression_end(
    masked: str, openers: tuple[_Opener, ...], starts: list[int], start: int, indent: int
) -> int:
    """Where a short-form definition at ``start`` ends: after its line, the brackets and
    blocks it opens closed, and the lines indented deeper than ``indent`` right after it."""
    end = _line_end(masked, start)
    while True:
        # a bracket or block the expression opened and has not closed by ``end``
        first, stop = bisect_left(starts, start), bisect_left(starts, end)
        far = max((o[2] for o in openers[first:stop]), default=end)
        if far > end:
            end = _line_end(masked, far - 1)
            continue
        if end + 1 >= len(masked):
            return len(masked)
        after = _line_end(masked, end + 1)
        line = masked[end + 1 : after]
        if line.strip() and len(line) - len(line.lstrip(" \t")) > indent:
            end = after
            continue
        return end + 1
