"""The entry names of one raw tree object, read in one pass with one regular expression.

A 10,000-note folder is one tree object of several hundred kilobytes; the id clash check on
every ``add`` needs only its names, so it scans the bytes (``Store.folder_object``) instead of
building every path through dulwich. Entries are ``<mode> <name>\\0<20-byte sha>``, back to
back, so the matches stay aligned.
"""

from __future__ import annotations

import re

_NAME = re.compile(rb"[0-7]+ ([^\x00]*)\x00.{20}", re.DOTALL)


def entry_names(raw: bytes) -> list[bytes]:
    """The names of the entries of a tree object (UTF-8 bytes, as git stores them)."""
    return _NAME.findall(raw)


def lowered(names: list[bytes]) -> list[bytes]:
    """``names`` with ASCII letters lowered, in the same order: one join, ``lower`` and split
    (a name never holds a NUL), not a second scan of the tree (2 ms at 10,000 notes)."""
    return b"\x00".join(names).lower().split(b"\x00") if names else []
