"""Blanking what is not code in a source text, every position kept.

The language readers (``haskell``, ``julia``, ``lisp``) and the comparison (``codediff``) read
code with its comments and literals out of the way; each knows its own markers, and they share
how a nested block comment (``{- -}``, ``#= =#``, ``#| |#``) is skipped and how a span is
blanked.
"""

from __future__ import annotations


def nested_end(text: str, pos: int, marks: tuple[str, str]) -> int:
    """Where the block comment opening at ``pos`` ends, the comments inside it counted (an
    unclosed one runs to the end of the text)."""
    opening, closing = marks
    depth, size = 0, len(text)
    while pos < size:
        if text.startswith(opening, pos):
            depth, pos = depth + 1, pos + len(opening)
        elif text.startswith(closing, pos):
            depth, pos = depth - 1, pos + len(closing)
            if depth == 0:
                return pos
        else:
            pos += 1
    return size


def blank(out: list[str], text: str, start: int, end: int) -> None:
    """Blank ``text[start:end]`` in ``out`` (a list of ``text``'s characters): spaces, its line
    breaks kept, so every position after it stays."""
    for i in range(start, min(end, len(text))):
        if text[i] != "\n":
            out[i] = " "
