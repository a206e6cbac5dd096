"""Is a session's dialogue in a language the signal readers read? A word count, pure.

The signal patterns (``notes/signals.py``) and the recoveries' readings are English words. A
session whose person writes in another language has no signal because nothing in it was read,
not because nothing happened: "no signal" is then no evidence that it holds nothing to learn
(issue 34: 22 lessons of the tune sets sat in Turkish, Japanese, Korean and Portuguese
sessions, every one skipped as ``no-signal``). The gates ask this only of a session with no
signal, to fail open for a model writer and to name the skip honestly for the heuristic one.

The measure: the share of the person's words that are common English function words
(``FUNCTION_WORDS``). Function words are the most frequent words of any English text whatever
its subject, so a person writing English, tersely and among code names, uses them often
(6.2 % to 44.4 % of the person's words over the tune sets' English sessions; 5.2 % in a test
session half of whose words are lorem ipsum), while a person writing another language uses
them only in a quoted name or a pasted English line (0 % to 2.9 % in the nine Turkish,
Japanese, Korean and Portuguese sessions). The share of letters outside ASCII was the other
candidate and reads worse: Portuguese and Turkish are mostly ASCII letters (1.6 % to 8.4 %
outside it in those sessions), and an English line naming a CJK file would count against its
own language. Only the person's words count: the corrections and rules the readers look for
are the person's, the assistant answers in the person's language anyway, and its lines carry
most of the code and tool names. Program text the person typed is no language of theirs and is
left out: a command run with Claude Code's ``!`` (``<bash-input>``, often a long English
commit message) and a fenced code block.
A file the person attaches is counted as theirs: held-apart-17's Korean session whose person
attaches an English CLAUDE.md reads 4.6 %, as English (it has signals, so no gate asks).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from reflectgit.notes.signals import DialogueLine
from reflectgit.notes.transcripts import PERSON

UNREAD_LANGUAGE = "unread-language"  # the gates' reason code for such a session

# Frequent English function words, less those spelled like a frequent word of another language
# written in Latin letters ("a", "no", "do", "as" in Portuguese and Spanish, "in", "so", "was",
# "will" in German, "on", "me" in French, "i" in Italian and in Turkish, where a suffix after
# an apostrophe, "API'yi", "dosya'i", reads as a word of its own): those would count a
# Portuguese sentence as English. ("i" alone raised a Turkish session from 1.2 % to 3.5 %,
# the nearest any other language came to the line; no English session moves by more than 0.1
# point without it.)
_FUNCTION_WORDS = """the and or but of to at for with from by is are were be been being it its
this that these those you we he she they my your our not does did have has had would can could
should if then there what which who when where how all any just also only than too very here"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split())
# Under one function word in about 22 of the person's words, the person writes another
# language (between the 2.9 % and the 5.2 % measured above, tune figures).
MIN_SHARE = 0.045
# Fewer words than this are too few to tell a language by: a person's "proceed", "yes go
# ahead", "commit" hold no function word in any language. Such a session counts as read.
MIN_WORDS = 10

_WORD = re.compile(r"[^\W\d_]+")  # a run of letters, in any script
_COMMAND = re.compile(r"<bash-input>.*?(?:</bash-input>|\Z)", re.S)
# A fenced block; an unclosed fence runs to the end of the turn, as markdown renders it.
_FENCE = re.compile(r"^\s*```.*?(?:^\s*```[^\n]*$|\Z)", re.S | re.M)


def english_words(lines: Sequence[DialogueLine]) -> tuple[int, int]:
    """``(function words, words)`` in the person's lines, commands and code blocks left out."""
    turns: dict[int, list[str]] = {}
    for line in lines:
        if line.speaker == PERSON:
            turns.setdefault(line.turn, []).append(line.text)
    hits = total = 0
    for said in turns.values():  # a command or a fence may span lines of one turn
        text = _FENCE.sub(" ", _COMMAND.sub(" ", "\n".join(said)))
        for word in _WORD.findall(text):
            total += 1
            hits += word.lower() in FUNCTION_WORDS
    return hits, total


def unread_language(lines: Sequence[DialogueLine]) -> bool:
    """Does the person write in a language the signal readers cannot read? False when they
    said too little to tell."""
    return unread(*english_words(lines))


def unread(hits: int, total: int) -> bool:
    """``unread_language`` of a count ``english_words`` already made."""
    return total >= MIN_WORDS and hits < MIN_SHARE * total
