"""Git's conflict markers left in a file. Pure.

Where the merge driver does not run (a forge's merge button, a clone without the driver's git
config, ``merge=union`` set by hand), a note can reach a commit with git's markers in it. A
conflict is the three marker lines in order: ``<<<<<<<`` (then a label), ``=======``,
``>>>>>>>`` (then a label), each at least seven characters long and as long as the others, at
the start of a line; ``|||||||`` (diff3's base) may sit between the first two. Markers inside a
fenced code block (a note about resolving conflicts shows them) are text, not a conflict.
"""

from __future__ import annotations

from typing import NamedTuple

from reflectgit.notes.lazyre import Pattern

_MARKER = Pattern(r"(<{7,}|\|{7,}|={7,}|>{7,})(?:[ \t].*)?\r?")
_FENCE = Pattern(r"[ ]{0,3}(`{3,}|~{3,})")


class Conflict(NamedTuple):
    """One block of markers: the lines (1-based) of its ``<<<<<<<`` and ``>>>>>>>``."""

    start: int
    end: int


def conflicts(text: str) -> list[Conflict]:
    """Every conflict block in ``text``, outside fenced code blocks."""
    found: list[Conflict] = []
    fence: str | None = None
    start = size = 0
    middle = False
    for number, line in enumerate(text.split("\n"), 1):
        opened = _FENCE.match(line)
        if opened:
            mark = opened.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence):
                fence = None
            continue
        if fence is not None:
            continue
        marker = _MARKER.fullmatch(line)
        if marker is None:
            continue
        kind, length = marker.group(1)[0], len(marker.group(1))
        if kind == "<":
            start, size, middle = number, length, False
        elif start and length == size and kind == "=" and not middle:
            middle = True
        elif start and length == size and kind == ">" and middle:
            found.append(Conflict(start, number))
            start = 0
    return found
