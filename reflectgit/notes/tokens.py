"""A file's text as tokens: what the comparison (``codediff``), its respellings (``respell``)
and the definition finder (``anchors``) read code by. Pure.

``spans`` splits a text into its tokens as written (a name, a number, a string, an operator, a
bracket, a line end), comments and white space left out by the markers of the file's language
(``languages.of``); ``lines`` groups them by line, docstring-only and blank lines left out and
one thing written two ways read as one (a string in either quote, Ruby's ``do ... end`` and
``{ ... }``, its ``attr_reader``); ``tokens`` is the same, the lines run together. What a token
is (``is_name``, ``is_name_or_number``, ``is_string``), one spelling of a number's value
(``number_spelling``), the words that are the language's, not the code's (``KEYWORDS``), and
the names a run of tokens binds (``bound_names``) are read here too: every reader of tokens
reads them one way.
"""

from __future__ import annotations

from collections.abc import Iterator

from reflectgit.notes import languages, lisp, masking
from reflectgit.notes.lazyre import Pattern

# What a file's suffix tells of its text (its comments, its strings, its names) is
# ``languages.of``'s.
# An ECMAScript private name (``this.#queue``, ``languages.Language.private_names``).
_PRIVATE = Pattern(r"#[A-Za-z_$][\w$]*")
# Ruby writes a block ``do ... end`` or ``{ ... }``: read as the same tokens.
_BLOCK_WORDS = {"do": "{", "end": "}"}
# Words that are the language's, not the code's: a note saying "if" or "return" names nothing.
KEYWORDS = frozenset({
    "if", "else", "elif", "for", "while", "do", "return", "in", "not", "and", "or", "is", "the",
    "of", "to", "a", "an", "it", "be", "on", "at", "by", "as", "with", "from", "import",
    "def", "class", "func", "function", "const", "let", "var", "type", "new", "this", "self",
    "true", "false", "none", "null", "nil", "undefined", "try", "catch", "except", "finally",
    "raise", "throw", "throws", "pass", "break", "continue", "case", "switch", "default",
    "public", "private", "static", "export", "async", "await", "yield", "lambda", "that",
    "then", "when", "so", "no", "any", "all", "can", "its", "has", "are", "was", "were", "but",
    "one", "each", "every", "use", "used", "uses", "only", "also", "which", "what", "into",
    "begin", "end", "ensure", "rescue", "unless", "elsif", "elseif", "until", "module",
    "foreach", "instanceof", "namespace", "extends", "implements", "protected", "abstract",
    "final", "interface", "package",
})  # fmt: skip
# A number literal is one value, whatever its base, separators, exponent or suffix (``0x7F``,
# ``0b1010``, ``10_000``, ``1e9``, ``1.5e-3``, ``3.14f``): never a ``0`` then a name. A hex
# literal takes no exponent sign (``0x1E-1`` is a subtraction).
_NUMBER = r"0[xX][\w.]*|\d[\w.]*(?:(?<=[0-9.][eE])[+-]\d\w*)?"
_TOKEN = Pattern(
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
    r"|`(?:\\.|[^`\\])*`|[A-Za-z_$][\w$]*|" + _NUMBER + r"|[<>!=+\-*/%&|^~?:]+|\n|\S"
)
_NAME = Pattern(r"[A-Za-z_$][\w$]*|\d[\w.]*")


def spans(text: str, path: str = "") -> Iterator[tuple[str, int, int]]:
    """``text``'s tokens as written, each with where it starts and ends, line ends (``"\\n"``)
    included; comments and white space left out (by the usual markers for ``path``'s suffix)."""
    language = languages.of(path)
    hash_ok, slash_ok = language.hash_comments, language.slash_comments
    semi_ok, dash_ok = language.semicolon_comments, language.dash_comments
    private = language.private_names
    nested = language.nested_comments
    # Lisp: ``;`` comments anywhere, ``#_`` and ``(comment ...)`` forms are comments (as ``#``
    # is in Python; blanked in place, see ``lisp.code``), and ``'`` quotes a form, no string
    quoting = language.lisp
    if quoting:
        text, semi_ok = lisp.code(text, literals=False), False
    at_start = True  # no token yet on this line (``;`` opens a comment only there)
    pos, size = 0, len(text)
    finder = _TOKEN.compiled
    while pos < size:
        ch = text[pos]
        two = text[pos : pos + 2]
        if nested is not None and two == nested[0]:
            pos = masking.nested_end(text, pos, nested)
            continue
        if (
            (hash_ok and ch == "#")
            or (slash_ok and two == "//")
            or (semi_ok and ch == ";" and at_start)
            or (dash_ok and two == "--")
        ):
            nl = text.find("\n", pos)
            pos = size if nl < 0 else nl
            continue
        if slash_ok and two == "/*":
            close = text.find("*/", pos + 2)
            pos = size if close < 0 else close + 2
            continue
        if quoting and ch == "'":
            pos, at_start = pos + 1, False
            yield ch, pos - 1, pos
            continue
        found = (private and ch == "#" and _PRIVATE.compiled.match(text, pos)) or finder.match(
            text, pos
        )
        if found is None:  # white space
            pos += 1
            continue
        pos = found.end()
        at_start = found.group() == "\n"
        yield found.group(), found.start(), pos


def lines(text: str, path: str = "") -> list[list[str]]:
    """``text``'s lines as tokens, comments, docstring-only lines, blank lines and white space
    left out (a string spanning lines counts on the line it starts)."""
    language = languages.of(path)
    docstrings = language.python
    quotes, ruby, prose = language.quotes_alike, language.ruby, language.prose
    out: list[list[str]] = []
    line: list[str] = []

    def end_line() -> None:
        # A Python line that is a string and nothing else is a docstring: it documents.
        if line and not (docstrings and len(line) == 1 and line[0][:1] in ("'", '"')):
            out.append(list(line))
        line.clear()

    for token, _, _ in spans(text, path):
        if token == "\n":
            end_line()
        elif quotes and token[:1] == "'" and _plain_string(token, language.quotes_same):
            line.append('"' + token[1:-1] + '"')
        elif ruby and token in _BLOCK_WORDS:
            line.append(_BLOCK_WORDS[token])
        elif prose and not (_NAME.compiled.fullmatch(token) or is_string(token)):
            continue  # punctuation of prose: a comma added is no change
        else:
            line.append(token)
    end_line()
    return _attributes(out) if ruby else out


def _attributes(code: list[list[str]]) -> list[list[str]]:
    """Ruby's ``attr_reader :a, :b`` is ``def a; @a; end`` and ``def b; @b; end``: each
    reader written as a method that returns its instance variable, on one line or three,
    reads as ``attr_reader :name``, and a list of them as one line per name."""
    out: list[list[str]] = []
    i = 0
    while i < len(code):
        line = code[i]
        name = line[1] if len(line) >= 2 and line[0] == "def" and is_name(line[1]) else None
        if name and line == ["def", name, ";", "@", name, ";", "}"]:
            out.append(["attr_reader", ":", name])
        elif name and len(line) == 2 and code[i + 1 : i + 3] == [["@", name], ["}"]]:
            out.append(["attr_reader", ":", name])
            i += 2
        elif line[:1] == ["attr_reader"] and len(line) > 4:
            names = line[2::3]
            if line[1:] == [t for n in names for t in (":", n, ",")][:-1]:
                out.extend(["attr_reader", ":", n] for n in names)
            else:
                out.append(line)
        else:
            out.append(line)
        i += 1
    return out


def _plain_string(token: str, same: bool = False) -> bool:
    """Is ``token`` a one-line string in single quotes that means the same in double quotes
    (no quote inside; and, unless the language reads both quotes ``same``, no escape and
    nothing a double-quoted string would interpolate)?"""
    inner = token[1:-1]
    kept = "\"'`" if same else "\\\"$`'"
    return (
        len(token) >= 2
        and token[-1:] == "'"
        and not token.startswith("'''")
        and not any(c in inner for c in kept)
        and (same or "#{" not in inner)
    )


def tokens(text: str, path: str = "") -> list[str]:
    """``text``'s tokens, comments, docstring-only lines and white space left out."""
    return [t for line in lines(text, path) for t in line]


def is_name(token: str) -> bool:
    """An identifier (an ECMAScript private name ``#queue`` too), not a number."""
    name = token[1:] if token[:1] == "#" and len(token) > 1 else token
    return bool(_NAME.compiled.fullmatch(name)) and not name[:1].isdigit()


def is_name_or_number(token: str) -> bool:
    """An identifier or a number: a name, as a note states one (``timeout``, ``3.8``)."""
    return bool(_NAME.compiled.fullmatch(token))


def is_string(token: str) -> bool:
    """A string literal, in double, single or back quotes (``"x"``, ``'x'``)."""
    return len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"`"


# A number literal whose value another spelling writes too: digits grouped with ``_``, a base's
# prefix and digits in either case (``0xFF``, ``0Xff``), an integer in another base (a minifier's
# ``128`` for ``0x80``), a float's point with no digit after it (``100.`` for ``100.0``).
_GROUPED = Pattern(r"(?:0[xXoObB])?[0-9A-Fa-f]+(?:_[0-9A-Fa-f]+)+\.?")
_BARE_POINT = Pattern(r"\d+\.")


def number_spelling(token: str) -> str:
    """One spelling of the number literal ``token``'s value: an integer (in any base, its
    digits grouped or not) as its decimal digits, ``100.`` as ``100.0``; any other token as
    written. A float's digits are kept as written (``1.20`` is not ``1.2``: in a version they
    differ), and so is a literal with a suffix (``10L``, ``3.14f``) or a leading zero (C's
    octal ``017``)."""
    if not token[:1].isdigit():
        return token
    if _GROUPED.compiled.fullmatch(token):
        token = token.replace("_", "")
    try:
        return str(int(token, 0))
    except ValueError:
        return token + "0" if _BARE_POINT.compiled.fullmatch(token) else token


# The words that define a name (``def``, ``let``, ``class``): the name after them is bound.
BINDERS = frozenset({"def", "func", "function", "fn", "let", "const", "var", "class", "val"})
# The words that may stand between a definition word and the name it binds, the name after
# them (Rust's ``let mut count``, C++'s ``const auto& name``): they bind nothing themselves.
# Followed by no name (``let mut = 3`` in JavaScript), the word is the name.
BINDING_MODIFIERS = frozenset({"mut", "auto"})


def bound_names(toks: list[str], members: bool = True) -> set[str]:
    """The names ``toks`` binds: after a definition word, the parameters in the brackets that
    follow it (``def get(self, key)``, ``func (r *Repo) Open(path string)``), before ``=`` or
    ``:=`` (and the other names of ``a, b :=``). ``members=False`` leaves out a member
    assigned (``this._paused = true``): the object's, which code elsewhere reads."""
    out: set[str] = set()
    for i, t in enumerate(toks):
        if not is_name(t):
            continue
        before = _binder_before(toks, i)
        after = toks[i + 1] if i + 1 < len(toks) else ""
        if before in BINDERS and _modifies(toks, i):
            continue  # (``let mut count``: ``count`` is bound, ``mut`` is not)
        if not members and before in (".", "->") and not (i >= 3 and toks[i - 3] in BINDERS):
            continue  # (``def self.wrap`` still defines ``wrap``)
        if before in BINDERS or after in ("=", ":=") or (after == "," and ":=" in toks[i : i + 8]):
            out.add(t)
        if t in BINDERS:
            out |= _parameters(toks, i + 1)
    return out


def _modifies(toks: list[str], at: int) -> bool:
    """Is ``toks[at]``, after a definition word, a ``BINDING_MODIFIERS`` word followed by the
    name it binds (``mut count``, ``auto& name``)?"""
    if toks[at] not in BINDING_MODIFIERS:
        return False
    following = toks[at + 1 : at + 3]
    if following[:1] in (["&"], ["*"]):
        following = following[1:]
    return bool(following) and is_name(following[0])


def _binder_before(toks: list[str], at: int) -> str:
    """The token before ``toks[at]``, or the definition word before the binding modifier
    (and its ``&`` or ``*``) that stands there: ``let`` for ``count`` in ``let mut count``."""
    j = at - 1
    if j >= 1 and toks[j] in ("&", "*") and toks[j - 1] in BINDING_MODIFIERS:
        j -= 1
    if j >= 1 and toks[j] in BINDING_MODIFIERS and toks[j - 1] in BINDERS and _modifies(toks, j):
        j -= 1
    return toks[j] if j >= 0 else ""


def _parameters(toks: list[str], at: int) -> set[str]:
    """The names in the bracketed groups right after a definition word (at most two groups, the
    name between them: a Go receiver, then the parameters), types included, binding modifiers
    not (``fn push(mut self, x: T)``)."""
    out: set[str] = set()
    groups, depth, i = 0, 0, at
    while i < len(toks) and groups < 2:
        t = toks[i]
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
            if depth == 0:
                groups += 1
                if i + 2 >= len(toks) or toks[i + 2] != "(":
                    break  # no second group (``func (r R) Name(``) follows
        elif depth == 0 and not is_name(t):
            break
        elif depth > 0 and is_name(t) and not _modifies(toks, i):
            out.add(t)
        i += 1
    return out
