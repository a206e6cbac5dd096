"""What a note says is not there, and the definitions a change added that are it. Pure.

A note that states an absence or a limit of its code ("there is no `MarshalText`/`UnmarshalText`,
so levels do not round-trip", "the only public way to change the level is the package
`SetLevel`", "it has no HasValue/HasSection") is wrong once the file it anchors defines the
thing it names, even when the lines it anchors are untouched: the change added a method beside
them.

Read so, sentence by sentence (the title is a sentence of its own; a sentence ends at ``.``,
``;``, ``:``, ``!`` or ``?`` before a space, or at a line that is blank): a sentence whose prose
(outside its code spans) holds a word of absence (``no``, ``not``, ``never``, ``cannot``,
``only``, ``without``, ``none``, ``nothing``, a verb ending in ``n't``) states as missing the
names it writes as code (``codediff.code_names``: in a code span, or a name that is no plain
lowercase word). The change ended the absence when the anchored file defines one of those
names at HEAD (``anchors.defined_name``, line by line: a method, a function, a class) and did
not define it at all at the anchor's commit. A name stated in a sentence with no word of
absence, a name the old file defined already (the anchored symbol itself, one given an
overload), or an added definition the note's absence does not name, changes nothing.
"""

from __future__ import annotations

import re

from reflectgit.notes.anchors import defined_name
from reflectgit.notes.codediff import code_names, code_spans
from reflectgit.notes.lazyre import Pattern

# The words that state an absence or a limit: "there is no X", "X is not exported", "the only
# way is X", "X cannot be copied", "without X", "X doesn't".
_ABSENCE = Pattern(
    r"\b(?:no|not|never|cannot|can\s+not|only|without|none|nothing)\b|\w(?:n't|n’t)\b", re.I
)
# Where a sentence ends: ``.``, ``;``, ``:``, ``!`` or ``?`` before white space, or a blank line.
_SENTENCE_END = Pattern(r"(?<=[.;:!?])\s+|\n\s*\n")


def missing(title: str | None, said: str) -> set[str]:
    """The names of code the note (its ``title`` and text ``said``) states as missing: those
    written as code in a sentence that holds a word of absence in its prose (outside its code
    spans: ``?none`` is code, not a word)."""
    out: set[str] = set()
    for text in (title or "", said):
        for sentence in _SENTENCE_END.compiled.split(text):
            prose = sentence
            for span in code_spans(sentence):
                prose = prose.replace(f"`{span}`", " ")
            if _ABSENCE.compiled.search(prose):
                out |= code_names(sentence)
    return out


def defined(old: str, new: str, title: str | None, said: str) -> list[str]:
    """The names the note states as missing (``missing``) that ``new`` (the anchored file at
    HEAD) defines and ``old`` (the file at the anchor's commit) did not define at all: the
    absence the note states has ended. A name the old file defined already (the anchored
    symbol itself, a function given an overload) is no absence ended. ``[]`` when the note
    states none, or none was defined."""
    wanted = missing(title, said)
    if not wanted:
        return []
    before, after = _definitions(old, wanted), _definitions(new, wanted)
    return sorted(after - before)


def _definitions(text: str, wanted: set[str]) -> set[str]:
    """The names of ``wanted`` that ``text`` defines, line by line."""
    found: set[str] = set()
    for line in text.split("\n"):
        if not any(w in line for w in wanted):
            continue  # (most lines name none of them: no need to read them as definitions)
        name = defined_name(line)
        if name in wanted:
            found.add(name)
    return found
