"""A change to what a note says only in passing: ``stale``'s reading of a symbol's block whose
change touched nothing the note states as code. Pure.

``codediff.compare`` calls a block changed when the lines the change touched hold a name the
note states, and a plain word of the note's prose counts (``option``, ``header``, ``key``): a
note says which part of the code it is about in such words too. Over the forty tune histories
of ``bench/code_aware.py`` the kind of false alarm that recurs most is such a block rewritten
around a lesson that holds: the judges call it "changed-unrelated". Alone, "only prose words
touched" cannot tell it from a real change (it takes as many truly stale notes off the list as
false alarms). What the note states can, when all of it says the change is not about the note:

- every name of the note that the change touched is a word the note writes as prose (a plain
  lowercase word outside its code spans: ``codediff.code_names`` leaves it out), none a name it
  writes as code and no string it quotes;
- no name the change brought into the block (an identifier of the new version the old one did
  not hold: ``luaKeywords`` under a note on "keywords", ``negative_prefix`` under one on
  "negative" numbers) holds a word of the note;
- the messages of the commits that changed the block say something (a message of noise alone,
  "wip", "fix", "v2", is no evidence), and no word of the note ("Make ``styled`` fully
  nestable" under a note on nested styles; "Fix #221: Change exact time of expiration" under
  one on when entries expire, "expiration" is not "expires": that one is missed).

Words are read as ``pr-notes`` reads a change's description (``change_notes.words``: four
letters or more, identifiers split into theirs, not the commit messages' noise, the language's
words or the project's name), the anchor's own symbol and path words aside (a commit naming the
function it changes says nothing of which part). Such a block is ``changed-elsewhere``, still
listed under ``changed`` for a look, not stale.
"""

from __future__ import annotations

from collections.abc import Iterable

from reflectgit.notes.codediff import code_names
from reflectgit.notes.respell import respell
from reflectgit.notes.tokens import is_name, is_string, tokens
from reflectgit.workflows.code.change_notes import words


def prose_only(touched: Iterable[str], said: str) -> bool:
    """Are the names ``touched`` (those a change touched that the note states) all words the
    note's text ``said`` writes as prose, not as code?"""
    named = list(touched)
    coded = code_names(said)
    return bool(named) and not any(is_string(n) or n in coded for n in named)


def stated(said: str, own: str, project: str) -> set[str]:
    """The words of a note's text ``said`` (``words``), less those of its anchor ``own`` (the
    symbol and the path: a commit naming the function it changes says nothing of which part)."""
    return words(said, project) - words(own, project)


def brings_none(
    stated: set[str], old: str, new: str, path: str, project: str,
    before: str | None = None, around: str | None = None,
) -> bool:  # fmt: skip
    """Did the change from ``old`` to ``new`` (a block at ``path``, in files ``before`` and
    ``around``; both respelled first, as ``codediff.compare`` reads them) bring into the block
    no name holding a word of ``stated``?"""
    a, b = respell(old, new, path, before, around)
    gained = {t for t in set(tokens(b, path)) - set(tokens(a, path)) if is_name(t)}
    return not stated & words(" ".join(sorted(gained)), project)


def says_none(stated: set[str], messages: str, project: str) -> bool:
    """Do the commit ``messages`` say something, and no word of ``stated``? Messages that say
    nothing ("wip", "fix", "v2": no word ``words`` keeps) are no evidence either way: the
    block stays as ``codediff`` judged it."""
    told = words(messages, project)
    return bool(told) and not stated & told
