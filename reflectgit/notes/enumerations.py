"""The lists and tables a piece of code enumerates, and the members one gained. Pure.

A note that enumerates what its code holds ("maps `\\b \\t \\n` and nothing else", "converts
to `DecodeHookFuncType` or `DecodeHookFuncKind`", "the four `Invalid...` constructors") is
wrong once the code's list holds one more, even when the lines it names are untouched: the
change names nothing the note states, yet ends what it says is all there is.

What counts as an enumeration of a block (its lines read as tokens, ``tokens.lines``):

- a run: two or more lines in a row written alike (the same tokens but for names, numbers and
  strings, ``_skeleton``: a table's entries ``"\\b": "\\u0008",``, an enum's constructors
  ``| InvalidAbsDir FilePath``, a group of declarations ``var f1 DecodeHookFuncType``); a
  line's members are its tokens where the lines of the run differ;
- a bracketed list on one line of two or more single names, numbers or strings
  (``{f1, f2}``, ``("kB", "MB")``); each element is a member.

The note enumerates one when it states two or more of its members (a name its text gives as
code, ``codediff.code_names``, or a string whose text, escapes read, a code span of the note
holds as a word: ```\\b \\t```); one stated member names a thing of the list, not the list.
The list gained a member when the new block holds an enumeration written the same way that
still holds every member the note states, and a member of it is told by a key the old block
did not hold at all: its first token of those that tell it from the others (a table entry's
key, a declaration's name). The rest of it may be old: a struct's new field ``DataKey string``
has a type the other fields have. A line only joining a run (``parent`` given a trailing
comma) gained nothing, nor an entry whose key stayed and whose value changed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from reflectgit.notes.codediff import code_names, code_spans
from reflectgit.notes.tokens import KEYWORDS, is_name_or_number, is_string, lines

_BRACKETS = {"(": ")", "[": "]", "{": "}"}


@dataclass(frozen=True)
class Enumeration:
    """Members of a block written alike: ``shape`` says how (a run's line with its names,
    numbers and strings as slots, or a list's opening bracket and its elements' kinds), each
    member is the tokens that tell it from the others."""

    shape: tuple[str, ...]
    members: tuple[tuple[str, ...], ...]


def gained(old: str, new: str, path: str, said: str) -> list[str]:
    """The members an enumeration of ``old`` the note's text ``said`` states two or more of
    gained in ``new`` (two versions of a block at ``path``): the tokens new to the block of each
    member whose key is, in the order they stand; ``[]`` when none did."""
    before = lines(old, path)
    seen = {t for line in before for t in line}
    found: list[str] = []
    news = list(enumerations(lines(new, path)))
    for was, stated in enumerated(before, said):
        for now in news:
            held = {t for m in now.members for t in m}
            if now.shape != was.shape or not stated <= held:
                continue
            for member in now.members:
                if member[0] not in seen:  # its key: the first token telling it apart
                    found += [t for t in member if t not in seen]
    return list(dict.fromkeys(found))


def enumerated(code: list[list[str]], said: str) -> list[tuple[Enumeration, set[str]]]:
    """The enumerations of ``code`` (lines of tokens) the note's text ``said`` states two or
    more members of, each with the tokens of them it states."""
    names, words = code_names(said), _span_words(said)

    def states(token: str) -> bool:
        if is_string(token):
            inner = token[1:-1]
            return inner in names or inner in words or inner.replace("\\\\", "\\") in words
        return token in names

    out: list[tuple[Enumeration, set[str]]] = []
    for found in enumerations(code):
        if sum(any(states(t) for t in m) for m in found.members) >= 2:
            out.append((found, {t for m in found.members for t in m if states(t)}))
    return out


def enumerations(code: list[list[str]]) -> Iterator[Enumeration]:
    """The runs and one-line lists of ``code`` (lines of tokens), in that order."""
    yield from _runs(code)
    for line in code:
        yield from _lists(line)


def _slot(token: str) -> str:
    if is_string(token):
        return "S"
    if is_name_or_number(token) and token.lower() not in KEYWORDS:
        return "N"
    return token


def _skeleton(line: list[str]) -> tuple[str, ...]:
    return tuple(_slot(t) for t in line)


def _runs(code: list[list[str]]) -> Iterator[Enumeration]:
    at = 0
    while at < len(code):
        shape = _skeleton(code[at])
        end = at + 1
        while end < len(code) and _skeleton(code[end]) == shape:
            end += 1
        group = code[at:end]
        differ = [i for i in range(len(shape)) if len({line[i] for line in group}) > 1]
        if len(group) >= 2 and differ:
            yield Enumeration(shape, tuple(tuple(line[i] for i in differ) for line in group))
        at = end


def _lists(line: list[str]) -> Iterator[Enumeration]:
    for at, token in enumerate(line):
        if token not in _BRACKETS:
            continue
        elements = _elements(line[at + 1 :])
        if elements is None or len(elements) < 2:
            continue
        if all(len(e) == 1 and _slot(e[0]) in ("N", "S") for e in elements):
            kinds = tuple(sorted({_slot(e[0]) for e in elements}))
            yield Enumeration((token, *kinds), tuple((e[0],) for e in elements))


def _elements(rest: list[str]) -> list[list[str]] | None:
    """The comma-separated elements of the brackets opened just before ``rest``; None when
    they do not close on this line."""
    depth = 0
    out: list[list[str]] = []
    element: list[str] = []
    for token in rest:
        if token in _BRACKETS.values() and depth == 0:
            out.append(element)
            return [e for e in out if e]
        if token in _BRACKETS:
            depth += 1
        elif token in _BRACKETS.values():
            depth -= 1
        if token == "," and depth == 0:
            out.append(element)
            element = []
        else:
            element.append(token)
    return None


def _span_words(said: str) -> set[str]:
    """Each code span of ``said`` and each of its words: ```\\b \\t \\n``` states ``\\b``."""
    out: set[str] = set()
    for span in code_spans(said):
        out.add(span)
        out.update(span.split())
    return out
