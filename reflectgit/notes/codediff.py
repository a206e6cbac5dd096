"""What a change to a piece of anchored code did, read as tokens. Pure.

``stale`` asks whether the code a note names changed in a way that could make the note wrong.
The text differing is not enough: a reviewer would not call a note stale because

- only comments, doc comments or docstrings changed, or white space and line breaks (the code's
  tokens are the same once comments and docstring-only lines are dropped);
- the code was only spelled another way (annotations added, a call through an alias of the
  same function, ``super()``, a trailing comma): both versions are written one way first
  (``notes/respell.py``);
- names were changed consistently and nothing else (a private helper ``__update`` renamed
  ``__touch`` everywhere in the block: the token sequences match under one renaming), or
  across the file (``_paused`` become ``#isPaused``: see ``renaming``), unless the note states
  the old name;
- the code changed only in parts the note does not speak about: when the anchored block holds
  definitions of its own (a class's methods) and the note names some of them, only those are
  compared (``focus``); else, no line the change added or removed holds a name the note's
  text says (``named``); a line rewritten only in its names (``Ordering::SeqCst`` to
  ``Ordering::Acquire``, an export macro put before a declaration) touched those names, not
  the rest of it;
- work moved into or out of another function of the file: lines the block lost that stand in
  a function it now calls (a helper extracted, an overload it delegates to), or lines it
  gained that stood in a function it called and no longer calls (a helper inlined), touched
  only what differs from their line there, the function's own parameters and locals named
  one for one after the block's (``_Callees``); what that function does beside them is what
  the change touched.

The first three make a change ``cosmetic`` (not reported); the last two make it ``elsewhere``
(reported at a lower level than stale: the code changed, in nothing the note names). The rules
are language-agnostic: the code is read as tokens (``tokens``: comments recognised by the usual
markers for the file's suffix, ``languages``), and a "name" is any identifier or number.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from reflectgit.notes import languages
from reflectgit.notes.anchors import defined_name, definitions, members
from reflectgit.notes.lazyre import Pattern
from reflectgit.notes.respell import respell
from reflectgit.notes.tokens import (
    BINDERS,
    KEYWORDS,
    bound_names,
    is_name,
    is_name_or_number,
    is_string,
    lines,
    tokens,
)

_BLANK = Pattern(r"\n[ \t]*\n")
_CODE_SPAN = Pattern(r"`([^`\n]+)`")
_PLAIN_WORD = Pattern(r"[a-z]+")
# A name with its qualifiers (``os.Setenv``, ``self.__touch``), or a number (``3.8``).
# An ECMAScript private name (``this.#queue``) is its own name: ``#queue``, not ``queue``.
_QUALIFIED = Pattern(
    r"(?<![\w$.])(?:#?[A-Za-z_$][\w$]*(?:\.#?[A-Za-z_$][\w$]*)*|0[xX]\w*|"
    r"\d\w*(?:\.\d\w*)*(?:(?<=[0-9.][eE])[+-]\d\w*)?)"
)


@dataclass(frozen=True)
class CodeChange:
    """How two versions of a block differ: ``kind`` is ``same`` (token for token, comments
    and layout aside), ``renamed`` (names changed consistently, nothing else), ``elsewhere``
    (changed, in nothing the note names) or ``changed``; ``names`` are the names the change
    added or removed that the note says (for ``changed``). ``unnamed``: ``changed`` because
    the note names nothing of the code beyond its symbol (or, for a whole file, its path), so
    any change counts."""

    kind: str
    names: tuple[str, ...] = ()
    unnamed: bool = False

    @property
    def stale(self) -> bool:
        return self.kind == "changed"


# The fields whose words say what a note states (not its keys, dates, ids, anchors or tags:
# a tag names a topic, often the project's own name, not a part of the code).
SAID_FIELDS = ("title", "key_insight", "problem", "root_cause", "fix", "rule", "symptoms")


def said(front: Mapping[str, Any], body: str = "", fields: tuple[str, ...] = SAID_FIELDS) -> str:
    """What a note says: its body and the ``fields`` that say what it is about."""
    parts: list[object] = [body]
    for key in fields:
        value = front.get(key)
        parts.extend(value if isinstance(value, list) else [value])
    return " ".join(p for p in parts if isinstance(p, str))


def renamed_only(old: list[str], new: list[str]) -> bool:
    """Do ``old`` and ``new`` differ only by a consistent renaming (one to one) of names the
    block itself binds (a method it defines, a variable it assigns)? Calling another function,
    or writing another field (``this._paused`` become ``this.#isPaused`` in one method), is no
    renaming: only a name the block owns can be renamed without changing what it does."""
    if len(old) != len(new) or old == new:
        return False
    own = bound_names(old, members=False)
    forward: dict[str, str] = {}
    backward: dict[str, str] = {}
    kept: set[str] = set()
    for a, b in zip(old, new, strict=True):
        if a == b:
            kept.add(a)
            continue
        if not (is_name(a) and is_name(b)) or a not in own:
            return False
        if forward.setdefault(a, b) != b or backward.setdefault(b, a) != a:
            return False
    # a name kept somewhere and renamed elsewhere, or a new name that was already there
    return not (kept & set(forward)) and not (kept & set(backward))


def _renamable(token: str) -> bool:
    """A name of the code (``_queue``, ``#queue``), not a word of the language."""
    return is_name(token) and token.lstrip("#").lower() not in KEYWORDS


def renaming(
    old: list[str], new: list[str], before: list[list[str]], after: list[list[str]]
) -> dict[str, str]:
    """The names ``old`` and ``new`` (two versions of a block) show renamed across their file
    (``before`` and ``after``, its two versions as tokens): where the two differ by one name
    put for another, each old name always by the same new one, gone from the new file, the new
    one absent from the old file and given for no other name (``_paused`` to ``#isPaused``
    everywhere). Where the block was also rewritten (some places of the name lie in lines
    changed beyond it), the two names must share a word (``_pendingCount`` to ``#pending``):
    a name put for another by chance in a rewrite shares none. A name kept anywhere, or
    replaced by two names, is no renaming."""
    forward: dict[str, str] = {}
    mixed: set[str] = set()
    seen: dict[tuple[str, str], int] = {}
    for op, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op != "replace" or i2 - i1 != j2 - j1:
            continue
        for a, b in zip(old[i1:i2], new[j1:j2], strict=True):
            if a != b and _renamable(a) and _renamable(b):
                if forward.setdefault(a, b) != b:
                    mixed.add(a)
                seen[a, b] = seen.get((a, b), 0) + 1
    was, now = set(_flat(before)), set(_flat(after))
    # only a name the file declares can be renamed (another function called, or another
    # constant of a library's, is another thing)
    owned_old, owned_new = _declared(before), _declared(after)
    pairs = {
        a: b
        for a, b in forward.items()
        if a not in mixed
        and a in owned_old
        and b in owned_new
        and a not in now
        and b not in was
        # every place of the block that held the old name holds the new one, and no other;
        # or, where rewritten code hides some places, the new name keeps a word of the old
        and (old.count(a) == seen[a, b] == new.count(b) or _name_words(a) & _name_words(b))
    }
    # a name made private (``next`` to ``#next``) needs no place to line up: its spelling says it
    for a in set(old) - now - set(pairs):
        private = f"#{a}"
        if _renamable(a) and a in owned_old and private in owned_new and private not in was:
            pairs[a] = private
    targets = list(pairs.values())
    return {a: b for a, b in pairs.items() if targets.count(b) == 1}


# Words that may stand before a declared name (``private readonly _queue: Queue;``).
_MODIFIERS = frozenset({
    "private", "public", "protected", "readonly", "static", "async", "get", "set", "override",
    "abstract", "declare", "export", "default", "final", "internal", "open",
})  # fmt: skip
# What follows a declared name at the start of its line: a type, a value, a method's
# parameters (when the line opens a body), the end of a bare field.
_DECLARING = frozenset({":", "=", ";", "?", "!", "?:", "!:", "<"})


def _declared(code: list[list[str]]) -> set[str]:
    """The names ``code`` declares: those it binds (``let _count = 0``, ``def get``), and
    fields and methods at the start of a line (``private _paused: boolean;``, ``#next():
    void {``)."""
    out = bound_names(_flat(code))
    for line in code:
        i = 0
        while i < len(line) - 1 and line[i] in _MODIFIERS:
            i += 1
        if i + 1 >= len(line) or not is_name(line[i]):
            continue
        after = line[i + 1]
        if after in _DECLARING or (after == "(" and line[-1] == "{"):
            out.add(line[i])
    return out


_NAME_WORD = Pattern(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _name_words(name: str) -> set[str]:
    """The words a name is made of (``_pendingCount``: ``pending``, ``count``), lower-cased,
    the short ones left out."""
    return {w.lower() for w in _NAME_WORD.compiled.findall(name) if len(w) > 2}


def _apply_renaming(text: str, names: Mapping[str, str]) -> str:
    """``text`` with each name of ``names`` written as its new name (whole names only)."""
    if not names:
        return text
    either = "|".join(re.escape(a) for a in sorted(names, key=len, reverse=True))
    return re.sub(rf"(?<![\w$#])(?:{either})(?![\w$])", lambda m: names[m.group()], text)


def words_touched(old: str, new: str, path: str, said: str) -> tuple[str, ...]:
    """The words of a note (``said``, its title and text) that the lines a change from ``old``
    to ``new`` removed or added hold, as ``names_in`` reads them (comments and layout aside):
    what a change judged elsewhere than the note states shares with it (``stale_label``)."""
    touched = [line for gone, came, _ in _rewrites(old, new, path) for line in gone + came]
    found = names_in(" ".join(_joined(line) for line in touched))
    return tuple(sorted(found & names_in(said, qualifiers=False)))


def size(old: str, new: str, path: str = "") -> tuple[int, int]:
    """How much of a block a change from ``old`` to ``new`` touched, in lines of code
    (comments, blank lines and layout aside): the lines it removed, rewrote or added (a group
    of lines rewritten counts its longer side), and the lines of the longer version."""
    touched = sum(max(len(gone), len(came)) for gone, came, _ in _rewrites(old, new, path))
    return touched, max(len(lines(old, path)), len(lines(new, path)))


def changed_lines(old: str, new: str, path: str = "") -> list[list[str]]:
    """The lines (as tokens) a change removed or added, comments and layout aside; of lines
    rewritten only in their names (an argument swapped, ``SeqCst`` to ``Acquire``; a name
    put before a declaration), those names alone: the others on those lines were not
    touched."""
    return _changed(lines(old, path), lines(new, path))


def _changed(
    a: list[list[str]],
    b: list[list[str]],
    only: set[int] | None = None,
    anywhere: Callable[[list[str]], bool] | None = None,
    callees: _Callees | None = None,
) -> list[list[str]]:
    """What the change from ``a`` to ``b`` touched, line by line (``only``: the old lines near
    what a note quotes). ``anywhere``: the added lines that may repeat a line from anywhere in
    ``a`` (a whole file's, see ``compare``), not only from the lines around them. ``callees``:
    the code of the functions the block began or stopped calling; a line that moved into or
    out of one of them touched only what it does not share with its line there (see
    ``_Callees``)."""
    out: list[list[str]] = []
    renamed: list[tuple[str, str]] = []  # (a callee's own name, the block's name for it)
    used: set[int] = set()  # the callees' lines a line of the block moved to or from
    for at, gone, came, swapped in _line_ops(a, b):
        if only is not None and not only & set(range(at - 1, at + len(gone) + 1)):
            continue  # far from the code the note quotes
        if callees is not None:
            gone, left = _moved(gone, callees.out, callees.own, renamed, used)
            came, right = _moved(came, callees.into, callees.own, renamed, used)
            out += [line for line in left + right if line]
            if not gone and not came:
                continue
            if left or right:
                swapped = _swapped(gone, came) if gone and came else None
        if swapped is not None:
            out.append(swapped)
        elif gone:
            out += _restated(gone, came)
        else:
            near = a[max(0, at - _NEAR) : at + _NEAR]
            out += [_added(line, a if anywhere and anywhere(line) else near) for line in came]
    if callees is not None:
        out += _left_behind(callees.out, used) + _left_behind(callees.into, used)
    return out + _unrenamed(renamed)


# The words a branch that takes every other case is written with (``else ->``, ``default:``,
# ``_ =>``), and what follows a branch's condition.
_DEFAULT = frozenset({"else", "default", "_"})
_ARROWS = frozenset({"->", "=>", ":"})


def _restated(gone: list[list[str]], came: list[list[str]]) -> list[list[str]]:
    """What lines rewritten as ``came`` in place of ``gone`` touched: all of them, but for a
    line restated in another spelling of the same test (``is Ok ->`` into ``isOk ->``: the
    same words joined) or whose branch became the one taking every other case (``is Err ->
    null`` into ``else -> null``), the tokens it changed beside that (``this`` into
    ``this.asErr()``: ``. asErr ( )``)."""
    if len(gone) * len(came) > _RESTATE_PAIRS:
        return gone + came  # a rewrite that large is read as one
    out: list[list[str]] = []
    used: set[int] = set()
    for line in gone:
        best, pick, rest = 0.0, -1, []
        for j, other in enumerate(came):
            if j in used:
                continue
            same, left, kinds = 0, [], 0
            for op, i1, i2, j1, j2 in SequenceMatcher(None, line, other, False).get_opcodes():
                was, now = line[i1:i2], other[j1:j2]
                if op == "equal":
                    same += 2 * len(was)
                elif _respelled(was, now) or _defaulted(was, now, other[j2 : j2 + 1]):
                    same += len(was) + len(now)
                    kinds += 1
                else:
                    left += was + now
            ratio = same / (len(line) + len(other))
            if kinds and ratio > best:
                best, pick, rest = ratio, j, left
        if pick >= 0 and best >= _RESTATED:
            used.add(pick)
            out.append(rest)
        else:
            out.append(line)
    return out + [c for j, c in enumerate(came) if j not in used]


_RESTATE_PAIRS = 400  # the most line pairs of one rewrite tried for restatements
_RESTATED = 0.5  # how much of a line its restatement keeps, the restated tokens counted


def _respelled(was: list[str], now: list[str]) -> bool:
    """The same words, joined or split (``is Ok`` and ``isOk``): names only."""
    return (
        len(was) != len(now)
        and all(is_name(t) for t in was + now)
        and "".join(was).lower() == "".join(now).lower()
    )


def _defaulted(was: list[str], now: list[str], after: list[str]) -> bool:
    """A branch's condition (names and words only) become the default branch's word."""
    return (
        len(now) == 1
        and now[0] in _DEFAULT
        and bool(after)
        and after[0] in _ARROWS
        and bool(was)
        and all(is_name(t) for t in was)
    )


_NEAR = 3  # how many old lines either side of an insertion a line added may copy


def _added(line: list[str], old: list[list[str]]) -> list[str]:
    """What a line added beside the old code (no line removed there) touched: when it is a
    variant of one of the old lines around it (``old``: another ``parse("x.ini")`` call after
    the others, the ``append`` of a new branch copied from the line now in its ``else``, most
    of its tokens the same), the tokens it does not share with that line; else all of it. (A
    copy of a line from elsewhere in the block puts that code somewhere new: all of it; for a
    note on a whole file ``old`` is the whole file, see ``compare``.)"""
    twin = _twin(line, old)
    if twin is None:
        return line
    return changed_tokens(twin, line)


_TWIN = 0.75  # how much of a line a variant of it shares (difflib's ratio)


def _twin(line: list[str], others: list[list[str]]) -> list[str] | None:
    """The line of ``others`` most like ``line`` (difflib's ratio), when it shares at least
    ``_TWIN`` of it: the line ``line`` is a variant of; else None."""
    best, twin = 0.0, None
    matcher = SequenceMatcher(None, [], line, autojunk=False)
    for other in others:
        matcher.set_seq1(other)
        if matcher.real_quick_ratio() > best and matcher.quick_ratio() > best:
            ratio = matcher.ratio()
            if ratio > best:
                best, twin = ratio, other
    return twin if best >= _TWIN else None


def names_changed(old: str, new: str, path: str = "") -> set[str] | None:
    """When ``new`` differs from ``old`` only in comments, layout and names (every rewritten
    line rewritten only in its names, no line added or removed), the names that changed (none:
    the same code); else None."""
    out: set[str] = set()
    for _, _, swapped in _rewrites(old, new, path):
        if swapped is None:
            return None
        out.update(swapped)
    return out


def _rewrites(
    old: str, new: str, path: str
) -> list[tuple[list[list[str]], list[list[str]], list[str] | None]]:
    """The line groups a change removed and added (as tokens, comments and layout aside), each
    with the names it swapped when it rewrote lines only in their names (else None)."""
    return _line_rewrites(lines(old, path), lines(new, path))


def _line_rewrites(
    a: list[list[str]], b: list[list[str]]
) -> list[tuple[list[list[str]], list[list[str]], list[str] | None]]:
    return [(gone, came, swapped) for _, gone, came, swapped in _line_ops(a, b)]


def _line_ops(
    a: list[list[str]], b: list[list[str]]
) -> list[tuple[int, list[list[str]], list[list[str]], list[str] | None]]:
    """``_line_rewrites``, each group with where it starts in ``a``."""
    out: list[tuple[int, list[list[str]], list[list[str]], list[str] | None]] = []
    matcher = SequenceMatcher(None, [" ".join(x) for x in a], [" ".join(x) for x in b], False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "replace" and _flat(a[i1:i2]) == _flat(b[j1:j2]):
            continue  # the same tokens on other lines (``["x"]`` spread over three): layout
        if op != "equal":
            swapped = _swapped(a[i1:i2], b[j1:j2]) if op == "replace" else None
            out.append((i1, a[i1:i2], b[j1:j2], swapped))
    return out


def _flat(block: list[list[str]]) -> list[str]:
    return [t for line in block for t in line]


def _swapped(old: list[list[str]], new: list[list[str]]) -> list[str] | None:
    """When lines were rewritten only in their names and strings (one name put in place of
    another, ``SeqCst`` by ``Acquire``; a name added or dropped, ``INI_API bool HasValue(``;
    a version string bumped; a keyword label or a type put before a value, ``new(size: 2)``;
    a call put around a value or taken off it, ``str(path)`` into ``path``), no operator,
    other bracket or number touched, the names and strings that changed; else None (the
    lines changed as a whole)."""
    a, b = _flat(old), _flat(new)
    touched: list[str] = []
    # a call put around a value or taken off it (``str(path)``, ``path``): the call's name,
    # its ``(`` and its ``)``, on one side
    brackets = {"a": [0, 0, 0], "b": [0, 0, 0]}  # ``(``, ``)``, names touched that call
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        for side, full, at, end in (("a", a, i1, i2), ("b", b, j1, j2)):
            for k in range(at, end):
                t = full[k]
                if t in ("(", ")"):
                    brackets[side][t == ")"] += 1
                elif is_name(t) or t == ":" or is_string(t):
                    touched.append(t)
                    brackets[side][2] += full[k + 1 : k + 2] == ["("]
                else:
                    return None
    if not touched or any(o != c or o > calls for o, c, calls in brackets.values()):
        return None
    return [t for t in touched if t != ":"]


def changed_tokens(old: list[str], new: list[str]) -> list[str]:
    """The tokens a change removed from ``old`` or added to ``new`` (a token diff)."""
    out: list[str] = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op != "equal":
            out += old[i1:i2] + new[j1:j2]
    return out


# The suffixes that make a dotted name a file's name (``composer.json``, ``functions.php``).
# Not a fact of a language (``languages``) but of how a note's prose writes file names: the
# suffixes a note names files by, seen in notes, not every suffix a language owns (``os.sum``,
# ``self.env`` are names, not files).
_FILE_SUFFIXES = frozenset({
    "py", "rb", "go", "rs", "js", "mjs", "cjs", "ts", "mts", "tsx", "jsx", "php", "java", "c",
    "h", "cc", "cpp", "hpp", "cs", "kt", "swift", "sh", "json", "toml", "yml", "yaml", "ini",
    "cfg", "md", "rst", "txt", "lock", "gemspec", "xml",
})  # fmt: skip


def code_spans(said: str) -> list[str]:
    """What a note's text ``said`` writes as code: the inside of each of its code spans."""
    return _CODE_SPAN.compiled.findall(said)


def code_names(said: str) -> set[str]:
    """The names a note's text ``said`` states as names of code: each name in a code span
    (```path```), and any name that is not a plain lowercase word (``_path``, ``parseId``,
    ``MAX``, ``IS_WINDOWS``) wherever it stands. A plain lowercase word of the prose ("path",
    "error") is a word of the prose, not the helper or the local of that name."""
    spans = " ".join(code_spans(said))
    plain = {n for n in names_in(said, qualifiers=False) if not _PLAIN_WORD.compiled.fullmatch(n)}
    return plain | names_in(spans, qualifiers=False)


def names_in(text: str, qualifiers: bool = True) -> set[str]:
    """The names ``text`` says: its identifiers and numbers, less the language's words and
    one-letter identifiers. ``qualifiers=False`` leaves out what only qualifies a name (the
    ``os`` of ``os.Environ``: a note naming ``os.Environ`` is not about every ``os.`` call)."""
    out: set[str] = set()
    for found in _QUALIFIED.compiled.finditer(text):
        text_found = found.group()
        if text_found[0].isdigit():
            out.add(text_found)  # a number (``3.10``) is one name
            continue
        parts = text_found.split(".")
        if not qualifiers and len(parts) > 1 and parts[-1] in _FILE_SUFFIXES:
            parts = parts[:-1]  # a file's name (``functions.php``) names its stem, not ``php``
        for name in parts if qualifiers else parts[-1:]:
            bare = name.lstrip("#")
            if (len(bare) > 1 or bare.isdigit()) and bare.lower() not in KEYWORDS:
                out.add(name)
    return out


class _Stating:
    """What of a piece of code a note states: the names its text says (``named``, less the
    anchored symbol's own name ``own``: the anchor already says the note is about it, not
    which part), and the strings it quotes. A string's words are a message, not names of the
    code: a string counts as the name it holds (``"timeout"``, ``"2.2.0"``), as itself when
    the note quotes it (its text, or three words of it in a row: ``'Static route ... is
    shadowed by previously defined variable route'``), as the symbol's own name when it says
    it (``"MRUCache is deprecated"``: the code now speaks of the symbol); else not at all
    (``'Cannot register two routes'`` states nothing a note about routes says). Prose is read
    by its words, quoted or not."""

    def __init__(self, named: set[str], said: str, path: str, own: str | None) -> None:
        self.named, self.own = named, own
        self.prose = languages.of(path).prose
        self.said = " ".join(said.split())
        words = _WORD.compiled.findall(self.said.lower())
        self.runs = {tuple(words[i : i + 3]) for i in range(len(words) - 2)}

    def of(self, code: list[list[str]], values: bool = True) -> set[str]:
        """The names and quoted strings of ``code`` (lines of tokens) the note states
        (``values=False``: not the strings that hold one name, ``"group"``: a word that is
        also a value the code compares with does not say which part a note is about)."""
        out: set[str] = set()
        for line in code:
            plain: list[str] = []
            for token in line:
                if not is_string(token) or self.prose:
                    plain.append(token)
                    continue
                inner = " ".join(token.strip("'\"`").split())
                if is_name_or_number(inner):
                    if values:
                        plain.append(inner)
                elif self.quoted(inner):
                    out.add(token)
                elif values and self.own and self.own in names_in(inner):
                    out.add(self.own)
            out |= names_in(_joined(plain)) & self.named
        return out

    def quoted(self, inner: str) -> bool:
        if len(inner) >= 2 and inner in self.said:
            return True
        return bool(self.runs_of(inner))

    def runs_of(self, inner: str) -> frozenset[tuple[str, ...]]:
        """The runs of three words of the note's text that the string ``inner`` holds."""
        words = _WORD.compiled.findall(inner.lower())
        return frozenset(
            run for i in range(len(words) - 2) if (run := tuple(words[i : i + 3])) in self.runs
        )

    def rewritten(self, found: set[str]) -> set[str]:
        """Of the strings in ``found`` (a change's stated names and strings), those the note
        quotes only in part, rewritten elsewhere than in that part: two or more holding the
        same runs of the note's words (``"Could not find ... '{GetFriendlyName(t)}'."`` become
        ``"... '{t.ToFriendlyName()}'."``, the note saying "could not find"): what the note
        quotes of them stands."""
        keyed: dict[frozenset[tuple[str, ...]], list[str]] = {}
        for token in found:
            inner = " ".join(token.strip("'\"`").split())
            if is_string(token) and inner not in self.said:
                runs = self.runs_of(inner)
                if runs:
                    keyed.setdefault(runs, []).append(token)
        return {t for same in keyed.values() if len(same) > 1 for t in same}


_WORD = Pattern(r"[a-z0-9_]+")
# Punctuation that changes what code computes (a comparison, arithmetic, a negation), unlike
# brackets, separators and a plain assignment.
_OPERATORS = frozenset("<>!+-*/%&|^~?")


def compare(
    old: str,
    new: str,
    path: str = "",
    said: str | None = None,
    symbol: str | None = None,
    title: str | None = None,
    around: str | None = None,
    before: str | None = None,
    reshaping: bool = False,
) -> CodeChange:
    """How ``new`` differs from ``old`` (two versions of the block of ``symbol``, or of the
    whole file, at ``path``), for a note whose text is ``said`` (None: the code alone) and
    whose title is ``title``. Given the whole file's two versions (``before`` and ``around``),
    names renamed across the file are read as renamed (see ``renaming``): a change in nothing
    else is ``renamed``, unless the note states an old name (the name it says is gone).
    ``reshaping``: a change that only reshaped the code (``reshaped_only``) is ``elsewhere``,
    in the block and in each part of it compared (a member, a paragraph)."""
    a, b = tokens(old, path), tokens(new, path)
    if a == b:
        return CodeChange("same")
    # The same code spelled another way (annotations added, an alias called for the function
    # it names, ``super()``): both versions written one way first (``respell``).
    old, new = respell(old, new, path, before, around)
    a, b = tokens(old, path), tokens(new, path)
    if a == b:
        return CodeChange("same")
    named = names_in(said, qualifiers=False) if said else set()
    if renamed_only(a, b):
        # a name the note states as a name, renamed, is a name the note says that is gone (as
        # for a renaming across the file below); a plain word of its prose ("returns the
        # error") is not the local ``error`` renamed ``err``
        stated = sorted({x for x, y in zip(a, b, strict=True) if x != y} & code_names(said or ""))
        return CodeChange("changed", tuple(stated)) if stated else CodeChange("renamed")
    if before is not None and around is not None:
        names = renaming(a, b, lines(before, path), lines(around, path))
        if names:
            # (a name made private, ``next`` to ``#next``, is still the name the note says)
            stated = sorted(n for n, m in names.items() if n in named and m != f"#{n}")
            if stated:
                return CodeChange("changed", tuple(stated))
            # (the old file renamed too, for the code the block called: see ``_callees``; its
            # names are then those of the new file, and no renaming is found twice)
            rest = compare(
                _apply_renaming(old, names),
                new,
                path,
                said,
                symbol,
                title,
                around,
                _apply_renaming(before, names),
                reshaping,
            )
            return CodeChange("renamed") if rest.kind == "same" else rest
    if reshaping and not _is_prose(path) and reshaped_only(a, b, said):
        return CodeChange("elsewhere")  # in prose a word added or dropped is what it says
    own = symbol.rsplit(".", 1)[-1] if symbol else None
    la, lb = lines(old, path), lines(new, path)
    # Work moved into a function the block now calls, or in from one it no longer calls,
    # stands where it went: the block does it still (see ``_Callees``).
    callees = _callees(la, lb, before, around, path, own) if own else None
    # (code the note quotes, moved into a function the block now calls, is not gone)
    extracted = [line for body in callees.out for line in body] if callees else []
    quoted = _quotes_lost(said or "", a, b + _flat(extracted), path)
    if quoted:
        return CodeChange("changed", tuple(sorted(quoted)))
    if own and _contract_only(la, lb, own):
        return CodeChange("elsewhere")
    head_a, head_b = _signature(la, own), _signature(lb, own)
    lost: set[str] = set()
    if head_a and head_b and _has_body(la[head_a:]) and _has_body(lb[head_b:]):
        # The definition's own line(s), when a body follows them: what they gained (types,
        # keyword arguments, a visibility word, a return type) annotates the same code; a name
        # they lost that the note states (a parameter it talks about) is a change. (A
        # declaration without a body, an interface's method or a constant, is compared as any
        # code: it is all signature.)
        was = names_in(" ".join(t for line in la[:head_a] for t in line), qualifiers=False)
        kept = names_in(" ".join(t for line in lb[:head_b] for t in line), qualifiers=False)
        lost = (was - kept) & named - {own}
        la, lb = la[head_a:], lb[head_b:]
        if [t for x in la for t in x] == [t for x in lb for t in x]:
            return CodeChange("changed", tuple(sorted(lost))) if lost else CodeChange("elsewhere")
    stating = _Stating(named - {own}, said or "", path, own if own in named else None)
    # A note that names nothing of its code (beyond the symbol itself) cannot say which part
    # it is about: any change is judged a change.
    # (the code a block took in from a function it no longer calls was its code before too)
    taken = [line for body in callees.into for line in body] if callees else []
    inlined = [line for line in lb if taken and _twin(line, taken)]
    # (in a JSON document every key is a string: there its strings are the names it holds)
    if not stating.of(lines(old, path) + inlined, values=languages.of(path).json):
        return CodeChange("changed", unnamed=True)
    if symbol is None and prose_or_settings(path):
        part = _paragraph_change(old, new, path, said or "", named, reshaping)
        if part is not None:
            return part
    parts = members(old, path)
    focus = [m for m in parts if m in named and m != own]
    # The members the title names are what the note is about; those its text names beside
    # them are context ("``empty?`` is true when ..., because ``pop`` would create one").
    headline = names_in(title or "", qualifiers=False)
    focus = [m for m in focus if m in headline] or focus
    if focus:
        now = members(new, path)
        moved = [m for m in focus if m not in now]
        if moved:
            return CodeChange("changed", tuple(moved))
        inner = [
            compare(parts[m], now[m], path, said, m, title, reshaping=reshaping) for m in focus
        ]
        hit = sorted(
            {n for c in inner if c.stale for n in c.names}
            | {m for m, c in zip(focus, inner, strict=True) if c.stale and not c.names}
        )
        return CodeChange("changed", tuple(hit)) if hit else CodeChange("elsewhere")
    # A note on a whole file: a line the change added that repeats a line the file already
    # holds, anywhere in it (a test case written like the others, a CI step copied from
    # another job, a key copied into another section), touched only what it does not share
    # with that line: the file said those names already, it is no news of what the note
    # states. (In a symbol's block a line copied from further away puts that code somewhere
    # new, ``_NEAR``.) Only lines holding what the note states are looked up.
    anywhere = None if symbol else (lambda line: bool(stating.of([line])))
    changed = _changed(la, lb, _quoted_lines(said or "", la, lb, path), anywhere, callees)
    found = stating.of(changed) | lost
    found -= stating.rewritten(found)
    found -= _standing(found, la, lb)
    if found:
        # the symbol's own name on those lines says nothing of which part, but it is named:
        # reported with the rest (pull requests rank by what the change touched)
        if own and own in named and own in names_in("\n".join(map(_joined, changed))):
            found.add(own)
        return CodeChange("changed", tuple(sorted(found)))
    touched = changed_tokens([t for x in la for t in x], [t for x in lb for t in x])
    if not names_in(" ".join(touched)) and any(c in _OPERATORS for t in touched for c in t):
        return CodeChange("changed")  # an operator changed, with no name around: judge it so
    return CodeChange("elsewhere")


def moved_out(
    old: str,
    new: str,
    path: str,
    names: Sequence[str],
    added: Sequence[tuple[str, str]],
    own: str | None = None,
) -> bool:
    """Did the change from ``old`` to ``new`` (two versions of a block at ``path``) take the
    lines holding ``names`` (what a note states that the change touched) out of the block
    into code added elsewhere (``added``: ``(path, code)`` of the definitions the same commits
    added, as they stand now), where they stand the same, a name's qualifiers aside
    (``$crate::parser::ParseError`` for ``ParseError``, ``Self::empty`` for ``empty``)? Every
    old line holding one of them that the new block lacks stands in one of ``added``; each
    definition such a line went to is one the new block calls and holds no line with one of
    them that the old block lacked; and the new block holds no such line but those calling
    one of ``added`` (handing it the values): the code moved, what it states kept. (Members
    of a type moved into another type the block does not call change what the type holds.)
    The definitions' own lines (``own``'s signature, theirs) are left aside: a move rewrites
    them."""
    stated = set(names)
    if not stated or not added:
        return False

    def holding(block: list[list[str]]) -> list[tuple[str, ...]]:
        return [_unqualified(line) for line in block if names_in(_joined(line)) & stated]

    whole = lines(new, path)
    was, now = lines(old, path), whole
    was, now = was[_signature(was, own) :], now[_signature(now, own) :]
    before = {_unqualified(line) for line in was}
    after = {_unqualified(line) for line in now}
    # each added definition, read once: its name, its lines, and what of the note its body holds
    targets = []
    for where, code in added:
        block = lines(code, where)
        name = defined_name(code.split("\n", 1)[0])
        body = block[_signature(block, defined_name(_joined(block[0])) if block else None) :]
        targets.append((name, {_unqualified(line) for line in block}, holding(body)))
    called = {name for name, _, _ in targets}
    handing = [line for line in now if not _calls([line]) & called]
    if any(line not in before for line in holding(handing)):
        return False
    left = {line for line in holding(was) if line not in after}
    if not left:
        return False
    # each definition a line went to: one the block now calls, holding nothing of the note
    # the block did not
    calling = _calls(whole, own)
    for name, there, stating in targets:
        if left & there and (name not in calling or any(x not in before for x in stating)):
            return False
    return all(any(line in there for _, there, _ in targets) for line in left)


def _unqualified(line: list[str]) -> tuple[str, ...]:
    """A line's tokens with each name's path qualifiers dropped (``a :: b :: c`` as ``c``,
    ``$crate`` and ``Self`` too): how code moved into another module or macro spells the same
    names."""
    out: list[str] = []
    for i, token in enumerate(line):
        if token == "::" or (i + 1 < len(line) and line[i + 1] == "::"):
            continue
        out.append(token)
    return tuple(out)


def _standing(found: set[str], old: list[list[str]], new: list[list[str]]) -> set[str]:
    """Of the strings in ``found`` (a change's stated names and strings), those the new code
    holds as often as the old: the lines around a stated string changed (``s =
    s.replace("\\r\\n", "\\n")`` become ``src = __s.replace("\\r\\n", "\\n")``,
    ``p.panicf(msg, s)`` become ``p.panicItemf(it, msg, s)``), the string did not. What else
    those lines changed still counts by the names the note states on them."""
    flat_old, flat_new = _flat(old), _flat(new)
    return {t for t in found if is_string(t) and flat_old.count(t) == flat_new.count(t)}


def reshaped_only(a: list[str], b: list[str], said: str | None = None) -> bool:
    """Did the change from the tokens ``a`` to ``b`` only reshape the code, for a note whose
    text is ``said``: it added or removed brackets, ``;`` and ``:`` (a namespace made
    file-scoped: ``{`` become ``;``), and names the note does not say where no name stood
    before (a constant annotated ``: Final``, a CI step's name shortened from ``Install Rust
    (rustup)``); never a value (a string, a number, ``None``), an operator, a separator of
    arguments or qualifiers (``,``, ``.``), a word of the language (``return``, ``not``,
    ``self``), a name the note says, nor one name put in place of another (a call to
    ``__touch`` where ``__update`` was)? Such a change leaves what the note states as it was,
    wherever the lines it touched stand. (Code and settings only: ``compare`` never asks it of
    prose, where a word added is content.)"""
    named = {n.lower() for n in names_in(said, qualifiers=False)} if said else set()
    touched = False
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        touched = True
        gone, came = a[i1:i2], b[j1:j2]
        names = [t for t in gone + came if is_name(t)]
        if names and gone and came:
            return False  # a name put in place of another
        for token in names:
            if token in KEYWORDS or token in _VALUES or token.lstrip("#").lower() in named:
                return False
        if any(not is_name(t) and t not in _SHAPE for t in gone + came):
            return False  # a value, an operator, a separator
    return touched


# What reshapes code without changing what it does: brackets, a statement's end, the colon
# before an annotation; and the names that are values.
_SHAPE = frozenset({"(", ")", "[", "]", "{", "}", ";", ":"})
_VALUES = frozenset({"True", "False", "None"})


_QUOTE = Pattern(r"`([^`\n]+)`")


def _quotes_lost(said: str, old: list[str], new: list[str], path: str) -> set[str]:
    """The names of the code the note quotes (`` `Result<V, E>.and(result: Result<V, E>)` ``,
    `` `Load(filenames...)` ``: two names or more) that the old block holds, token for
    token, and the new one no longer does: what the note quotes is gone."""
    out: set[str] = set()
    for found in _QUOTE.compiled.finditer(said):
        quote = tokens(found.group(1), path)
        names = names_in(found.group(1), qualifiers=False)
        if len(names) >= 2 and holds(old, quote) and not holds(new, quote):
            out |= names
    return out


def _quoted_lines(
    said: str, old: list[list[str]], new: list[list[str]], path: str
) -> set[int] | None:
    """When the note quotes code of the block (two names or more) that both versions hold,
    the old lines holding what it quotes of the block (any code beyond a lone name: ``#if
    INI_ALLOW_REALLOC`` too) and the line either side: the part of a long block the note is
    about (``lineno == 1`` in a parser of 300 lines); else None (the whole block)."""
    flat_old, flat_new = _flat(old), _flat(new)
    line_of = [i for i, line in enumerate(old) for _ in line]  # token -> its line
    near: set[int] = set()
    anchored = False
    for found in _QUOTE.compiled.finditer(said):
        quote = tokens(found.group(1), path)
        n = len(quote)
        names = names_in(found.group(1), qualifiers=False)
        if n < 2 or not names:
            continue  # a lone name says no place: it may be used anywhere
        for i in range(len(flat_old) - n + 1):
            if flat_old[i : i + n] == quote:
                near.update(range(line_of[i] - 1, line_of[i + n - 1] + 2))
                anchored = anchored or (len(names) >= 2 and holds(flat_new, quote))
    return near if anchored else None


def holds(code: list[str], part: list[str]) -> bool:
    n = len(part)
    return n > 0 and any(code[i : i + n] == part for i in range(len(code) - n + 1))


def prose_or_settings(path: str) -> bool:
    """A README, changelog, manifest or build file (``README.md``, ``CHANGES``, ``tox.ini``,
    ``composer.json``, ``Rakefile``, ``Makefile``): a known suffix, or none at all."""
    name = path.rsplit("/", 1)[-1]
    language = languages.of(path)
    return language.prose or language.settings or "." not in name.lstrip(".")


def _paragraphs(text: str, prose: bool = False) -> list[str]:
    """``text``'s blocks between blank lines; in prose each item of a list too (a README's
    notes are one list, each item a statement of its own)."""
    out = [p for p in _BLANK.compiled.split(text) if p.strip()]
    if prose:
        out = [item for p in out for item in _ITEM.compiled.split(p) if item.strip()]
    return out


# Where a list item starts: a line opening with ``-``, ``*``, ``+`` or a number and ``.``.
_ITEM = Pattern(r"\n(?=[ \t]*(?:[-*+]|\d+[.)])[ \t])")
# Prose files named without a suffix (``LICENSE``, ``COPYING``, ``CHANGES``), by how the name
# starts.
_PROSE_NAMES = (
    "licen", "copying", "notice", "readme", "authors", "changes", "changelog", "history",
    "contributing",
)  # fmt: skip
# Words that turn a statement round: counted as stated when the note says them.
_NEGATIONS = frozenset({"not", "no", "never", "nor", "cannot", "without"})


def _is_prose(path: str) -> bool:
    """A file of prose (``README.md``, ``LICENSE``, ``CHANGES``), not code or settings."""
    name = path.rsplit("/", 1)[-1].lower()
    if languages.of(path).prose:
        return True
    return "." not in name.lstrip(".") and name.startswith(_PROSE_NAMES)


def _stated_words(text: str, stated: set[str]) -> Counter[str]:
    """How often ``text`` says each word of ``stated`` (lower-cased words)."""
    return Counter(w for w in _WORD.compiled.findall(text.lower()) if w in stated)


def _paragraph_change(
    old: str, new: str, path: str, said: str, named: set[str], reshaping: bool = False
) -> CodeChange | None:
    """For a note on a whole file: the change to the paragraphs (blocks between blank lines:
    a README section, a changelog entry, a task of a Rakefile; in prose, a list's items too)
    that state the most of the note's names (at least two, and more than half as many as the
    paragraph stating the most), each compared with the paragraph of the new version most
    like it; None when no paragraph stands out (one paragraph, or too few names).

    Prose is compared by its words, not its lines (a line of prose is where it was wrapped):
    a paragraph changed for the note when it says a word the note states more or fewer times
    (a negation the note says counts as stated); other words reworded around them (``Don't
    ever use`` into ``Avoid``, a link become ``https``) are no change to what the note says."""
    prose = _is_prose(path)
    before = _paragraphs(old, prose)
    if len(before) < 2:
        return None
    # (prose and configuration capitalise as they please: ``CPython``, ``cpython``)
    said_lower = {n.lower() for n in named}
    scores = [len({n.lower() for n in names_in(p, qualifiers=False)} & said_lower) for p in before]
    least = max(2, max(scores) // 2 + 1)
    if max(scores) < least:
        return None
    news = _paragraphs(new, prose)
    after = [tokens(p, path) for p in news]
    if not after:
        return None
    stated = said_lower | (_NEGATIONS & set(_WORD.compiled.findall(said.lower())))
    hit: set[str] = set()
    for paragraph, score in zip(before, scores, strict=True):
        if score < least:
            continue
        mine = tokens(paragraph, path)
        if mine in after:
            continue
        matcher = SequenceMatcher(None, [], mine, autojunk=False)
        ratios = []
        for other in after:
            matcher.set_seq1(other)
            ratios.append(matcher.ratio())
        twin = news[ratios.index(max(ratios))]
        if prose:
            was, now = _stated_words(paragraph, stated), _stated_words(twin, stated)
            hit.update((was - now) + (now - was))
            continue
        verdict = compare(paragraph, twin, path, said, reshaping=reshaping)
        if verdict.stale:
            hit.update(verdict.names or ["*"])
    if not hit:
        return CodeChange("elsewhere")
    return CodeChange("changed", tuple(sorted(hit - {"*"})))


def _signature(block: list[list[str]], own: str | None) -> int:
    """How many of ``block``'s first lines are the definition of ``own`` (its line, and the
    lines its open parenthesis spans: ``def get(self, key)``, ``public function addRoute(``
    ... ``): void {``); 0 when the block does not start with it."""
    if not own or not block or own not in block[0]:
        return 0
    depth = 0
    for i, line in enumerate(block):
        depth += line.count("(") - line.count(")")
        if depth <= 0:
            return i + 1
    return 0


def _contract_only(old: list[list[str]], new: list[list[str]], own: str) -> bool:
    """Did only the type signatures written apart from ``own``'s code change (``_separate``),
    its clauses the same code? An Erlang ``-spec`` or ``-callback`` (as a Haskell ``name ::``
    line or an OCaml ``val``, were those read) gives types to the clauses that follow it and
    runs nothing: every parameter it names is named again by the clause heads, which are
    compared as code. A note's lesson is about what the code does, so types restated,
    narrowed or moved beside another arity change nothing it states (a note quoting the spec
    is judged before this, ``_quotes_lost``). A TypeScript overload is not one of these: it
    adds or takes away a way to call the function (what it accepts), and is compared as code."""
    name = own.split("/", 1)[0]  # an Erlang arity in the anchor names the function
    said_old, code_old = _separate(old, name)
    said_new, code_new = _separate(new, name)
    return said_old != said_new and _has_body(code_old) and _flat(code_old) == _flat(code_new)


def _separate(block: list[list[str]], own: str) -> tuple[list[list[str]], list[list[str]]]:
    """``block``'s type signatures of ``own`` written apart (each Erlang ``-spec`` or
    ``-callback`` of it, to the line ending with its ``.``, wherever it stands) and the rest."""
    said: list[list[str]] = []
    code: list[list[str]] = []
    at = 0
    while at < len(block):
        line = block[at]
        if line[:2] in (["-", "spec"], ["-", "callback"]) and own in line[2:4]:
            stop = at
            while stop < len(block) - 1 and block[stop][-1:] != ["."]:
                stop += 1
            said += block[at : stop + 1]
            at = stop + 1
        else:
            code.append(line)
            at += 1
    return said, code


def _has_body(block: list[list[str]]) -> bool:
    """Does ``block`` (what follows a definition's signature) hold more than closing brackets?"""
    return any(t not in ("}", ")", "]", ";") for line in block for t in line)


def _joined(line: list[str]) -> str:
    """A line's tokens as text, a ``.`` between names kept tight (``os.Setenv``)."""
    return " ".join(line).replace(" . ", ".")


def _calls(block: list[list[str]], own: str | None = None) -> set[str]:
    """The names ``block`` calls: a name before ``(``, or before a ``<`` that opens type
    arguments closed just before a ``(`` (``Decorate<TService, TDecorator>(``); not a name it
    declares there (``_declaring``: a method of a class, an overload's signature of ``own``)."""
    out: set[str] = set()
    for line in block:
        for i, t in enumerate(line[:-1]):
            if not is_name(t) or _declaring(line[:i], t == own):
                continue
            after = line[i + 1]
            if after == "(":
                out.add(t.lstrip("#"))
            elif after == "<":
                close = next((j for j in range(i + 2, len(line)) if line[j] in (">", ">(")), None)
                if close is not None and (
                    line[close] == ">(" or line[close + 1 : close + 2] == ["("]
                ):
                    out.add(t.lstrip("#"))
    return out


def _declaring(before: list[str], own: bool) -> bool:
    """Do the tokens ``before`` a name on its line make it a declaration, not a call: only
    words, none of them one a call follows (``return``, ``await``, ``new``): a definition word
    or modifiers (``def``, ``public static``), a type (``int``, ``ILifetimeSelector``). A
    symbol's own name with nothing before it heads its definition too (a TypeScript method or
    overload signature, ``addAll<T>(``): a call of itself is written after something
    (``return``, ``this.``)."""
    if not before:
        return own
    return all(
        is_name(t) and (t in _MODIFIERS or t in BINDERS or t.lower() not in KEYWORDS)
        for t in before
    )


@dataclass(frozen=True)
class _Callees:
    """Where code a block lost or gained may now stand, or have stood, in its own file: a
    helper extracted (lines leave the block and stand in a function it now calls) or inlined
    (lines come in from a function it called and no longer calls). ``out``: the bodies of the
    functions of the new file the new block calls and the old one did not (an overload of the
    symbol it now delegates to too); ``into``: those of the functions of the old file the old
    block called and the new one does not; each body without its signature. ``own``: the
    names those functions bind (parameters, locals), which a move may name after the
    block's."""

    out: list[list[list[str]]]
    into: list[list[list[str]]]
    own: frozenset[str]


def _callees(
    old: list[list[str]],
    new: list[list[str]],
    before: str | None,
    around: str | None,
    path: str,
    own: str,
) -> _Callees | None:
    """The code the lines of ``old`` (the block's old version) may have moved into, and those
    of ``new`` come from (see ``_Callees``); None when there is none."""
    old, new = old[_signature(old, own) :], new[_signature(new, own) :]
    was, now = _calls(old, own), _calls(new, own)
    bound: set[str] = set()

    def bodies(text: str | None, names: set[str], block: list[list[str]]) -> list[list[list[str]]]:
        code: list[list[list[str]]] = []
        for name in sorted(names):
            for definition in definitions(text or "", name, path):
                body = lines(definition, path)
                head = _signature(body, name)
                if holds(_flat(block), _flat(body[head:])):
                    continue  # the block's own code (itself, a closure it defines)
                signature = _flat(body[:head])
                params = signature[signature.index(name) + 1 :] if name in signature else []
                # its parameters, the names it binds, and its loop variables (``for each in``)
                loops = {x[1] for x in body if x[:1] == ["for"] and len(x) > 1}
                bound.update(
                    bound_names(_flat(body)) | {t for t in params + list(loops) if is_name(t)}
                )
                code.append(body[head:])
        return code

    # (the symbol's own name: an overload it now delegates to, or one it delegated to)
    out = bodies(around, now - (was - {own}), new) if around is not None else []
    into = bodies(before, was - (now - {own}), old) if before is not None else []
    if not out and not into:
        return None
    return _Callees(out, into, frozenset(bound))


def _moved(
    block: list[list[str]],
    bodies: list[list[list[str]]],
    own: frozenset[str],
    renamed: list[tuple[str, str]],
    used: set[int],
) -> tuple[list[list[str]], list[list[str]]]:
    """Of ``block`` (lines a change removed or added), those that stand in one of ``bodies``
    (the functions the block began or stopped calling), the same or a variant of a line there
    (``_twin``) that differs in no word of the language (a ``return`` become an assignment is
    a change) and no operator (``>=`` become ``>``): the lines that did not move, and for
    each that did, what it does not share with its line there (whose ``id`` goes in
    ``used``). A name of the function's own (``own``, a parameter or local) in place of the
    block's is put in ``renamed`` (``_unrenamed`` judges it)."""
    code = [line for body in bodies for line in body]
    if not code:
        return block, []
    kept: list[list[str]] = []
    moved: list[list[str]] = []
    for line in block:
        twin = _renamed_twin(line, code, own) or _twin(line, code)
        if twin is None:
            kept.append(line)
            continue
        rest: list[str] = []
        pairs: list[tuple[str, str]] = []
        for op, i1, i2, j1, j2 in SequenceMatcher(None, twin, line, autojunk=False).get_opcodes():
            theirs, ours = twin[i1:i2], line[j1:j2]
            if op == "equal":
                continue
            if op == "replace" and len(theirs) == len(ours):
                for x, y in zip(theirs, ours, strict=True):
                    if x in own and _renamable(y):
                        pairs.append((x, y))
                    elif x != y:
                        rest += [x, y]
            else:
                rest += theirs + ours
        if KEYWORDS & set(rest) or any(_operator(t) for t in rest):
            kept.append(line)  # changed on the way: judged as any line the block lost or gained
        else:
            renamed += pairs
            moved.append(rest)
            used.add(id(twin))
    return kept, moved


def _renamed_twin(line: list[str], code: list[list[str]], own: frozenset[str]) -> list[str] | None:
    """The first line of ``code`` that is ``line`` but for names of the function's own
    (``own``) where ``line`` has other names (``for each in wanted:`` for ``for name in
    names:``): short lines so renamed share too little for ``_twin``."""
    for other in code:
        if len(other) == len(line) and all(
            x == y or (x in own and _renamable(y)) for x, y in zip(other, line, strict=True)
        ):
            return other
    return None


def _left_behind(bodies: list[list[list[str]]], used: set[int]) -> list[list[str]]:
    """The lines of the functions some of whose lines moved (``used``: those lines' ``id``)
    that no line of the block matched: code the block now runs through a helper that it did
    not run before, or ran through a helper and runs no more (an ``except`` clause the helper
    had that did not come in with the rest). All of each is what the change touched."""
    out: list[list[str]] = []
    for body in bodies:
        if any(id(line) in used for line in body):
            out += [line for line in body if id(line) not in used]
    return out


def _operator(token: str) -> bool:
    """A token that computes (``>=``, ``!``, ``+``), not a name, a string or a separator."""
    return not (is_name(token) or is_string(token)) and any(c in _OPERATORS for c in token)


def _unrenamed(renamed: list[tuple[str, str]]) -> list[list[str]]:
    """Of the names of moved lines put for a function's own names (``(theirs, ours)``), those
    not renamed one to one (a parameter called ``names`` in the helper where the block said
    ``dependencyNames``, everywhere): each pair as what the move touched."""
    theirs: dict[str, set[str]] = {}
    ours: dict[str, set[str]] = {}
    for x, y in renamed:
        theirs.setdefault(x, set()).add(y)
        ours.setdefault(y, set()).add(x)
    return [[x, y] for x, y in dict.fromkeys(renamed) if len(theirs[x]) > 1 or len(ours[y]) > 1]


# What a note says always holds of its code, with no way around it: "always escaped", "every
# cell", "cannot give parse another argument list", "there is no option to ...", "regardless
# of".
_UNCONDITIONAL = Pattern(
    r"\b(?:always|every|never|cannot|can(?:'|’)t|can not|no way|no option|nothing else|"
    r"regardless|unconditionally)\b",
    re.I,
)


def option_gained(old: str, new: str, path: str, said: str, symbol: str) -> list[str]:
    """The parameters ``symbol``'s definition gained from ``old`` to ``new`` (two versions of
    its block, at ``path``) that its new body reads, when the note's text ``said`` states an
    unconditional behaviour of it ("always escaped", "cannot be given another list"): an
    option that can end what the note says always happens (tabulate's ``unsafe`` beside "every cell is escaped", zig-clap's ``arguments`` beside
    "parse cannot be given another argument list"), in lines that name nothing it states. A
    parameter is gained when the old block holds no such name and no parameter of the old
    signature stood where it stands and is gone (``s`` renamed ``__s``); a type the signature
    gained (``-> TypeGuard[str]``) is no parameter. ``[]`` when nothing was gained or the note
    states no such behaviour."""
    if not _UNCONDITIONAL.compiled.search(said):
        return []
    own = symbol.rsplit(".", 1)[-1]
    la, lb = lines(old, path), lines(new, path)
    head_a, head_b = _signature(la, own), _signature(lb, own)
    if not head_a or not head_b or not _has_body(lb[head_b:]):
        return []
    was, now = _parameters(_flat(la[:head_a]), own), _parameters(_flat(lb[:head_b]), own)
    # (a one-letter name, a Go receiver ``d``, is a token of the old block, not among its names)
    old_names = set(_flat(la)) | names_in(" ".join(_flat(la)))
    body = _flat(lb[head_b:])
    gained = [
        name
        for at, name in enumerate(now)
        if name not in old_names
        and _decides(name, body)
        and not (at < len(was) and was[at] not in now)  # a parameter renamed in its place
    ]
    return sorted(gained)


def _decides(name: str, body: list[str]) -> bool:
    """Does ``body`` (a definition's tokens after its signature) read the parameter ``name``
    other than by passing it on as it is (``helper(x, name)``, ``name=name``, ``aliases:
    aliases``: the keyword before it is no reading either): tested (``if unsafe:``), called
    on (``arguments.iterateAllocator``), or written into a string (``${incPr ? '-0' : ''}``)?
    A parameter only passed on is threaded through to code the note does not anchor (on the
    tune histories, an argument passed on was a false alarm more often than news)."""
    for at, token in enumerate(body):
        if is_string(token) and name in names_in(token.strip("'\"`")):
            return True
        if token != name:
            continue
        before = body[at - 1] if at else ""
        after = body[at + 1] if at + 1 < len(body) else ""
        # (an opening parenthesis after a word of the language, ``if (incPr)``, is a test)
        called = before != "(" or (at > 1 and _callee(body[at - 2]))
        passed = called and before in ("(", ",", ":", "=") and after in (")", ",")
        label = called and before in ("(", ",") and after in (":", "=")  # its keyword
        if not passed and not label:
            return True
    return False


# Tokens a parameter's name stands between: after an opening or a separator (``(unsafe``,
# ``, rowalign``), or before a default, a type or the list's end (``incPr =>``, ``arguments:``).
_BEFORE_PARAMETER = frozenset({"(", ",", "{", "*", "**", "...", "&"})
_AFTER_PARAMETER = frozenset({",", ")", "=", ":", "=>", "?", "}"})
_BEFORE_TYPE = frozenset({":", "->", "[", "<", "|", ".", "?", "::"})


def _parameters(signature: list[str], own: str) -> list[str]:
    """The names of ``signature``'s (a definition's tokens) parameters, in order: names that
    stand where a parameter's name does, not where a type does (after ``:``, ``->``, ``[``)."""
    out: list[str] = []
    for at, token in enumerate(signature):
        if token == own or not is_name(token) or token.lower() in KEYWORDS or token in out:
            continue
        before = signature[at - 1] if at else ""
        after = signature[at + 1] if at + 1 < len(signature) else ""
        if before in _BEFORE_TYPE:
            continue
        if before in _BEFORE_PARAMETER or after in _AFTER_PARAMETER:
            out.append(token)
    return out


def _callee(token: str) -> bool:
    """Can ``token``, before an opening parenthesis, be what is called: a name, not a word
    of the language such as ``if`` or ``while``?"""
    return is_name(token) and token.lower() not in KEYWORDS
