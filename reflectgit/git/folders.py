"""The file names in one folder of a tree, read in one pass over the raw tree object.

``Store.list_tree`` builds every path of a folder through dulwich's parsed objects; a caller
that only needs the names in a 10,000-note folder (the id clash check on every ``add``) reads
them straight from the tree's bytes instead, with one regular expression (entries are
``<mode> <name>\\0<20-byte sha>``, back to back, so the matches stay aligned).
"""

from __future__ import annotations

import re

from reflectgit.git.store import Store

TREE_MODE = 0o040000
_NAME = re.compile(rb"[0-7]+ ([^\x00]*)\x00.{20}", re.DOTALL)


def entry_names(store: Store, tree: str | None, folder: str) -> tuple[list[bytes], bytes]:
    """The names of the entries directly in ``folder`` (UTF-8 bytes, as git stores them,
    subfolders included) and the tree object's bytes; nothing when there is no such folder."""
    if not tree:
        return [], b""
    try:
        mode, sha = store._lookup(tree.encode("ascii"), folder)
    except KeyError:
        return [], b""
    if mode != TREE_MODE:
        return [], b""
    raw = store._raw_tree(sha).raw
    return _NAME.findall(raw), raw


def lowered_names(raw: bytes) -> list[bytes]:
    """``entry_names`` of a tree object with ASCII letters lowered, in the same order (lowering
    leaves the entries' structure alone, so the matches stay aligned)."""
    return _NAME.findall(raw.lower())
