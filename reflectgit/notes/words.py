"""Counts in words: ``1 note``, ``2 notes`` (the one plural rule every message uses)."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """``count`` and its noun, singular for exactly one (``many``: an irregular plural)."""
    if count == 1:
        return f"{count} {word}"
    if many is None:
        if word.endswith("y") and word[-2:-1] not in "aeiou":
            many = word[:-1] + "ies"
        elif word.endswith(("s", "x", "ch", "sh")):
            many = word + "es"
        else:
            many = word + "s"
    return f"{count} {many}"
