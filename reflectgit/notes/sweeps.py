"""A sweeping mechanical edit: the same substitution made by one change in many places. Pure.

A commit that makes one edit everywhere (every regex's ``$`` become ``\\z``, every ``path(``
call become ``_path(``, ``'use strict'`` added to every file, a helper renamed across a file, a
lint or formatting fix) is a decision about the whole code base, not about any one block of it:
a block whose change is only that substitution keeps the lesson a note states about it, as a
block respelled does (``notes/respell.py``). ``stale`` reads such a change as a respelling and
``pr-notes`` counts it as no evidence for a note.

What counts as a sweep (``sweeps``): an edit, read as the tokens replaced (``old`` -> ``new``,
either side possibly empty), made in at least ``PLACES`` separate hunks of the one change, and
in at least half of its hunks (``SHARE``: the change is mostly that edit).
Hunks are places the author edited apart from each other (code left unchanged between them,
most often in different definitions or files): one definition with three lines edited alike
is one place, a real change to that code. A block is swept only (``swept_only``) when every
edit between its two versions is one of the change's sweeps, and the note states nothing the
sweep replaced or wrote (a name on either side, or a quoted fragment: a note about ``$`` or
about the helper renamed is about what the sweep changed). A sweep plus another edit in the
same block is a change as before: the other edit is read as any change is.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from difflib import SequenceMatcher

from reflectgit.notes.codediff import code_names, code_spans, holds
from reflectgit.notes.diffs import FileDiff

Edit = tuple[tuple[str, ...], tuple[str, ...]]

# Places (separate hunks) one change must make the same edit in to be a sweep. Three: two
# alike edits can be a fix and its twin (the same bug in a function and its copy), which a note
# on either should see; by three the edit is a policy applied wherever it fits (the judged
# sweeps of Path-Tiny and node-semver made theirs in 9 to 40 places).
PLACES = 3
# ... and in at least one hunk in SHARE of the change: a sweep is what a mechanical commit
# does (b90723d made its ``$`` to ``\\z`` edit in 15 of its 15 hunks, fe8583b its ``path`` to
# ``_path`` in 28 of 34). A large rewrite makes small edits alike by chance (Rainbow's b2bb769:
# ``UInt8`` to ``[UInt8]`` beside 70 hunks of new code, a ``]`` added in 9 of them; a helper
# renamed in 13): those are part of the rewrite, which is read as any change is.
SHARE = 2
# Words and single marks: a sweep's fragment is often a mark (``$`` to ``\z``), which a
# language's own tokens would hide inside a regex or string literal.
_TOKEN = re.compile(r"\w+|\S")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def edits(old: str, new: str) -> set[Edit]:
    """The edits turning ``old`` into ``new``, each as the tokens replaced (``difflib``)."""
    a, b = _tokens(old), _tokens(new)
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    return {
        (tuple(a[i1:i2]), tuple(b[j1:j2]))
        for op, i1, i2, j1, j2 in matcher.get_opcodes()
        if op != "equal"
    }


def sweeps(files: Iterable[FileDiff]) -> frozenset[Edit]:
    """The sweeps of a change: the edits its diff (``git diff -U0``, its ``files`` as
    ``notes/diffs.py`` reads them) makes in at least ``PLACES`` hunks."""
    places: dict[Edit, int] = defaultdict(int)
    hunks = 0
    for f in files:
        for hunk in f.hunks:
            if not hunk.gone and not hunk.came:
                continue
            hunks += 1
            for edit in edits("\n".join(hunk.gone), "\n".join(hunk.came)):
                places[edit] += 1
    return frozenset(
        e for e, n in places.items() if n >= PLACES and n * SHARE >= hunks and _worded(e)
    )


def _worded(edit: Edit) -> bool:
    """MARKS: an edit of marks alone (``+`` to ``*``, ``<`` to ``<=``, a ``]`` added) changes
    what the code computes, not how it is spelled: made everywhere, it is a fix every note on
    that code should see, never a sweep. An edit with a word in it (``$`` to ``\\z``, ``path``
    to ``_path``, ``'use strict'`` added) can be one. A lone ``_`` is a placeholder, not a word
    (Rust's ``<'_>`` added to every impl by a lint changes the types the impls are for: log's
    61bdfc0)."""
    return any(c.isalnum() for part in edit for t in part for c in t)


def swept_only(old: str, new: str, swept: frozenset[Edit], said: str = "") -> bool:
    """Whether ``new`` differs from ``old`` only by edits in ``swept`` that the note (its text
    ``said``) does not state."""
    if not swept:
        return False
    found = edits(old, new)
    if not found or not found <= swept:
        return False
    # the names the note states as code (a note on Path::Tiny says "path" throughout its prose,
    # not the helper a sweep renamed: ``code_names``), and the marks it quotes (``$``)
    quoted = [_tokens(q) for q in code_spans(said)]
    named = code_names(said)
    for gone, came in found:
        for part in (gone, came):
            if not part:
                continue
            if named & set(part):
                return False
            if any(holds(q, list(part)) for q in quoted):
                return False
    return True
