"""Haskell declarations: what of a Haskell text is code, and where it defines a name. Pure.

A Haskell module's top-level declarations (the Haskell 2010 report, chapter 4) start at its
first column, what continues one is indented (the layout rule). A name is defined by its type
signature (``name :: T``, over as many lines as it runs; ``(op) :: T`` for an operator; ``a, b
:: T`` for several) and the equations after it (``name args = ...``, ``name args | guard =
...``, an operator's ``(Path a) </> (Path b) = ...`` or ``(</>) a b = ...``); a ``data``,
``newtype``, ``type`` or ``class`` declaration defines its type's or class's name. A
definition's block runs from its first line to the next top-level line that is neither an
equation nor a signature of the same name: a ``where`` clause's local of the same name, a
class body's method signatures, a use of the name in another body are indented or no
definition. A comment or pragma before the next declaration documents that one and is left
out, as the comments before any definition are (``anchors.symbol_block``); a fixity
declaration (``infixr 5 </>``) defines nothing; an ``instance`` is a block of its own that
names nothing. ``--`` line comments, nested ``{- -}`` block comments, strings and character
literals are no code: a name in them defines nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from reflectgit.notes import masking
from reflectgit.notes.lazyre import Pattern

_SYMBOL = "!#$%&*+./<=>?@\\^|~:-"
_SYMBOLS = "[" + re.escape(_SYMBOL) + "]"
# A variable (``filename``, ``foldl'``) or an operator in parentheses (``(</>)``).
_VAR = r"[a-z_][\w']*"
_NAMES = rf"(?:{_VAR}|\([^\w\s()]+\))"
# ``name :: T``, ``(op) :: T``, ``a, b :: T`` at a line's start: a type signature.
_SIGNATURE = Pattern(rf"^(?P<names>{_NAMES}(?:\s*,\s*{_NAMES})*)\s*::(?!{_SYMBOLS})")
# ``data Name``, ``newtype Name``, ``type Name``, ``type family Name``, ``class (C a) => Name a``,
# ``data (Ctx) => Name``: the type or class the declaration names.
_TYPE = Pattern(
    r"^(?:data|newtype|type|class)(?:\s+(?:family|instance))?\s+(?:.*=>\s*)?"
    r"(?:\(\s*)?(?P<name>[A-Z][\w']*|\([^\w\s()]+\))"
)
# Top-level lines that declare no value name (a module header, imports, fixity, instances,
# deriving, defaults, foreign imports, Template Haskell's splices in ``$(...)``).
_OTHER = Pattern(
    r"^(?:module|import|infix[lr]?|instance|deriving|default|foreign|pattern|type\s+role)\b|^\$\("
)
# A text its path does not tell the language of (``languages.readers``) is read as Haskell
# when it has a top-level signature or a module header (its export
# list or its ``where`` after the name: Ruby's ``module Foo`` has neither).
_HASKELL = Pattern(
    rf"(?m)^(?:module\s+[A-Z][\w.']*\s*(?:\(|where\b)|{_NAMES}(?:\s*,\s*{_NAMES})*\s*::\s)"
)
# Tokens of an equation's left-hand side.
_TOKEN = Pattern(rf"`[^`\n]*`|[A-Za-z_][\w'.]*|{_SYMBOLS}+|\S")
# Symbols reserved as patterns or syntax: never the operator an equation defines.
_RESERVED = frozenset({"=", "|", "@", "~", "\\", "->", "<-", "=>", "::", "..", "!"})


# A file's definitions are looked up several times (its block, its span, each anchor on it):
# its masking is computed once.
@lru_cache(maxsize=16)
def code(text: str) -> str:
    """``text`` with its comments, strings and character literals blanked (spaces, line
    breaks kept, so every position stays)."""
    out = list(text)
    pos, size = 0, len(text)

    def blank(start: int, end: int) -> None:
        masking.blank(out, text, start, end)

    while pos < size:
        ch = text[pos]
        if text.startswith("{-", pos):
            end = masking.nested_end(text, pos, ("{-", "-}"))
            blank(pos, end)
            pos = end
        elif text.startswith("--", pos) and (pos == 0 or text[pos - 1] not in _SYMBOL):
            # ``--`` and more dashes open a comment unless another symbol follows (``-->``)
            end = pos
            while end < size and text[end] == "-":
                end += 1
            if end < size and text[end] in _SYMBOL:
                pos = end
                continue
            nl = text.find("\n", pos)
            nl = size if nl < 0 else nl
            blank(pos, nl)
            pos = nl
        elif ch == '"':
            end = pos + 1
            while end < size and text[end] not in '"\n':
                end += 2 if text[end] == "\\" else 1
            blank(pos + 1, end)
            pos = end + 1
        elif ch == "'" and (pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] in "_'")):
            found = _CHAR.match(text, pos)
            if found is not None:
                blank(pos + 1, found.end() - 1)
                pos = found.end()
            else:
                pos += 1
        else:
            pos += 1
    return "".join(out)


_CHAR = Pattern(r"'(?:[^'\\\n]|\\[^'\n]{1,6})'")


def _bare(name: str) -> str:
    """``(</>)`` is the operator ``</>``."""
    return name[1:-1].strip() if name.startswith("(") else name


def declared(line: str) -> tuple[str, tuple[str, ...]] | None:
    """What the top-level ``line`` (comments and strings blanked) declares: its kind
    (``signature``, ``equation``, ``type``, ``other``) and the names it defines; None for a
    line that is no declaration's start (indented, blank, a preprocessor line)."""
    if not line or line[0] in " \t#" or not line.strip():
        return None
    found = _SIGNATURE.match(line)
    if found is not None:
        names = tuple(_bare(n.strip()) for n in found.group("names").split(","))
        return "signature", names
    found = _TYPE.match(line)
    if found is not None:
        return "type", (_bare(found.group("name")),)
    if _OTHER.match(line):
        return "other", ()
    return "equation", tuple(n for n in (_equation_name(line),) if n)


def _equation_name(line: str) -> str | None:
    """The name an equation defines: its operator when its left-hand side applies one infix at
    its top level (``(Path a) </> (Path b) =``, ``x `op` y =``), else its first variable
    (``name args =``, ``(</>) a b =``)."""
    tokens = _TOKEN.findall(line)
    depth, first = 0, None
    for at, token in enumerate(tokens):
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
        elif token in ("=", "|"):
            break
        elif depth == 0 and token.startswith("`") and at > 0:
            return token.strip("`")
        elif depth == 0 and token[0] in _SYMBOL and token not in _RESERVED and at > 0:
            return token
    if tokens[:1] == ["("] and len(tokens) > 2 and tokens[2] == ")" and tokens[1][0] in _SYMBOL:
        first = tokens[1]
    elif tokens and (tokens[0][0].islower() or tokens[0][0] == "_") and "." not in tokens[0]:
        first = tokens[0]
    return first


# Every definition is read here (``anchors``): Haskell defines at its top level only, and an
# indented line the other languages' forms would read is a local's.
ALONE = True


@lru_cache(maxsize=16)  # asked at every lookup of an anchor in the file, as ``code`` is
def reads(text: str) -> bool:
    """Is ``text`` Haskell: has it a top-level type signature or a module header? (Another
    language's top-level line seldom opens with a name and `` :: ``.) Asked only of a text
    whose path does not tell its language (``languages.readers``)."""
    return ("::" in text or "module" in text) and _HASKELL.compiled.search(text) is not None


def definitions(text: str, name: str) -> list[tuple[int, int, int]]:
    """Each top-level declaration group of ``text`` (read as Haskell: its path or ``reads``
    says so, see ``languages.readers``) that defines ``name``, in file order: the start of its
    first line, the end of that line and the end of its last line of code (after its line
    break)."""
    if name not in text:
        return []
    masked = code(text)
    out: list[tuple[int, int, int]] = []
    start: int | None = None
    first = last = 0
    pos = 0
    while pos <= len(text):
        nxt = masked.find("\n", pos)
        nxt = len(text) if nxt < 0 else nxt
        line = masked[pos:nxt]
        kind = declared(line)
        if kind is not None:
            ours = name in kind[1] and kind[0] in ("signature", "equation", "type")
            if start is not None and not (ours and kind[0] != "type"):
                out.append((start, first, min(last + 1, len(text))))
                start = None
            if ours and start is None:
                start, first = pos, nxt
        if start is not None and line.strip():
            last = nxt
        pos = nxt + 1
    if start is not None:
        out.append((start, first, min(last + 1, len(text))))
    return out
