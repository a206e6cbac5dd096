"""The search's word rules, without ``re``. Pure.

A search against a fresh index needs a handful of character rules on a short query and on the
ten notes it shows; importing ``re`` for them (with ``enum``, the parser and the compiler, then
compiling each pattern) cost more than the whole query (docs/performance.md, "search, sixth
pass"). Each rule here is the ``re`` pattern named in its docstring, character for character:
Python's ``\\w`` in a ``str`` pattern is ``str.isalnum()`` or ``_`` and its ``\\d`` is
``str.isdecimal()``; tests/test_search_tokens.py holds each one to its pattern over every code
point and over random text.
"""

from __future__ import annotations


def alnum_runs(text: str) -> list[str]:
    """``re.findall(r"[^\\W_]+", text)``: the runs of letters and digits."""
    if text.isalnum():
        return [text]
    out: list[str] = []
    start = -1
    for i, char in enumerate(text):
        if char.isalnum():
            if start < 0:
                start = i
        elif start >= 0:
            out.append(text[start:i])
            start = -1
    if start >= 0:
        out.append(text[start:])
    return out


def has_alnum(text: str) -> bool:
    """``re.search(r"[^\\W_]", text) is not None``: a letter or digit anywhere."""
    return any(char.isalnum() for char in text)


def _run(text: str, i: int, low: str, high: str) -> int:
    """Where the run of ``low``..``high`` characters from ``i`` ends."""
    n = len(text)
    while i < n and low <= text[i] <= high:
        i += 1
    return i


def camel_runs(token: str) -> list[str]:
    """``re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\\d+", token)``: ``HTTPServer2`` ->
    HTTP, Server, 2 (the alternatives tried in order at each place, as ``re`` does)."""
    out: list[str] = []
    i, n = 0, len(token)
    while i < n:
        char = token[i]
        if "A" <= char <= "Z":
            if i + 1 < n and "a" <= token[i + 1] <= "z":
                end = _run(token, i + 2, "a", "z")  # [A-Z]?[a-z]+
            else:
                end = _run(token, i + 1, "A", "Z")  # [A-Z]+(?![a-z]): the last one starts a word
                if end < n and "a" <= token[end] <= "z":
                    end -= 1
        elif "a" <= char <= "z":
            end = _run(token, i + 1, "a", "z")
        elif char.isdecimal():
            end = i + 1
            while end < n and token[end].isdecimal():
                end += 1
        else:
            i += 1
            continue
        out.append(token[i:end])
        i = end
    return out


def closing_fence(text: str) -> int | None:
    """``re.search(r"^---[ \\t]*\\r?$", text, re.MULTILINE).end()``: where the first line that
    is ``---`` (then only blanks and tabs, and a carriage return) ends; None when none is
    (``notes/frontmatter.py``'s ``_CLOSE``)."""
    i = 0 if text.startswith("---") else _next_dashes(text, 0)
    while i >= 0:
        line_end = text.find("\n", i)
        if line_end < 0:
            line_end = len(text)
        rest = text[i + 3 : line_end]
        if rest.endswith("\r"):
            rest = rest[:-1]
        if not rest.strip(" \t"):
            return line_end
        i = _next_dashes(text, i)
    return None


def _next_dashes(text: str, start: int) -> int:
    """Where the next line after ``start`` that opens with ``---`` starts; -1 when none does."""
    found = text.find("\n---", start)
    return found + 1 if found >= 0 else -1


def dashed(text: str, keep: str) -> str:
    """Each run of characters not in ``keep`` as one ``-`` (``re.sub("[^...]+", "-", text)``
    with ``keep`` listed in the class)."""
    out: list[str] = []
    other = False
    for char in text:
        if char in keep:
            out.append(char)
            other = False
        elif not other:
            out.append("-")
            other = True
    return "".join(out)
