"""Lisp forms: what of a Lisp-family text is code, and where it defines a name. Pure.

Clojure, Common Lisp, Emacs Lisp, Scheme and Racket define a name with a form that opens a
line: ``(defn name ...)``, ``(defun name ...)``, ``(define (name args) ...)``, metadata
(``^String``, ``^:dynamic``, ``^{...}``) allowed between the definition word and the name. The
definition's block is that form, balanced from its ``(`` to its ``)``: strings, ``;`` comments,
``#| ... |#`` block comments and character literals (Clojure's ``\\(``, Common Lisp's ``#\\(``,
Emacs Lisp's ``?\\(``) aside. A form commented out (``#_``, Scheme's ``#;``, Clojure's
``(comment ...)``) is no code: it defines nothing and a change to it changes no code.
"""

from __future__ import annotations

from reflectgit.notes import masking
from reflectgit.notes.lazyre import Pattern

# The words that define a name as the form's second element: Clojure's (a test is a var too:
# ``deftest``, test.check's ``defspec``), Common Lisp's and Emacs Lisp's, Scheme's and Racket's.
DEFINITION_WORDS = (
    "defn", "defn-", "def", "defmacro", "defprotocol", "defrecord", "deftype", "defmulti",
    "defmethod", "definline", "defonce", "definterface", "defstruct", "deftest", "defspec",
    "defun", "defvar", "defparameter", "defconstant", "defconst", "defcustom", "defsubst",
    "defgeneric", "defclass", "defalias",
    "define", "define-syntax", "define-record-type", "define-values",
)  # fmt: skip
_WORDS = "|".join(sorted((w.replace("-", r"\-") for w in DEFINITION_WORDS), key=len, reverse=True))
# A name of the family: anything up to white space, a bracket, a string, a quote or a comment
# (``add-encoder``, ``parse*``, ``*use-bigdecimals?*``, ``->Record``, ``set!``).
NAME = r"[^\s()\[\]{}\"';`,@^~\\]+"
# Metadata before the name: ``^String``, ``^:dynamic``, ``^{:doc "..."}`` (its strings masked).
_META = r"(?:\^(?:\{[^{}]*\}|[^\s()\[\]{}]+)\s+)*"
# ``(defn name``, ``(define (name args)``, ``(defmethod name dispatch``: the ``(`` first on its line.
_DEFINITION = Pattern(rf"(?m)^[ \t]*\((?:{_WORDS})(?=\s)\s+{_META}(?:\(\s*)?(?P<name>{NAME})")
_DEFINITION_LINE = Pattern(r"(?m)^[ \t]*\(def")
# Forms the reader or the language leaves out: ``#_ form``, ``#; form``, ``(comment ...)``.
_DROPPED = Pattern(r"#[_;]|\(comment(?=[\s)])")
_OPEN, _CLOSE = "([{", ")]}"


def code(text: str, literals: bool = True) -> str:
    """``text`` with what is no code blanked (spaces, its line breaks kept, so every position
    stays): comments and the forms commented out, and, unless ``literals`` is False (to
    compare code, not to read its brackets), strings and character literals."""
    full, kept = list(text), list(text)
    pos, size = 0, len(text)

    def blank(start: int, end: int, literal: bool = False) -> None:
        for i in range(start, min(end, size)):
            if text[i] != "\n":
                full[i] = " "
                if not literal:
                    kept[i] = " "

    while pos < size:
        ch = text[pos]
        if ch == '"':
            end = pos + 1
            while end < size and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            blank(pos, end + 1, literal=True)
            pos = end + 1
        elif ch == ";" and text[pos - 1 : pos] == "#":
            pos += 1  # Scheme's ``#;``: the form after it is commented out (below)
        elif ch == ";":
            end = text.find("\n", pos)
            end = size if end < 0 else end
            blank(pos, end)
            pos = end
        elif ch == "\\" or (ch == "?" and text[pos + 1 : pos + 2] == "\\"):
            # a character literal: ``\(``, ``#\(``, ``?\(`` (its name, ``\newline``, is a name)
            end = pos + (3 if ch == "?" else 2)
            blank(pos, end, literal=True)
            pos = end
        elif text.startswith("#|", pos):
            end = masking.nested_end(text, pos, ("#|", "|#"))
            blank(pos, end)
            pos = end
        else:
            pos += 1
    masked = "".join(full)
    pos = 0
    while (found := _DROPPED.compiled.search(masked, pos)) is not None:
        start = found.start()
        if masked[start] == "(":
            end = form_end(masked, start)
        else:  # the form after ``#_``: a bracketed one, or an atom
            at = found.end()
            while at < size and masked[at].isspace():
                at += 1
            if at < size and masked[at] in _OPEN:
                end = form_end(masked, at)
            else:
                end = at
                while end < size and not masked[end].isspace() and masked[end] not in _CLOSE:
                    end += 1
        blank(start, end)
        pos = max(end, start + 1)
    if not literals:
        for start, end in _docstrings(masked, text):
            blank(start, end)
    return "".join(full if literals else kept)


# Clojure's definitions that take a docstring right after the name: ``(defn name "doc" [x]
# ...)``, ``(def name "doc" value)``. Common Lisp's ``defvar`` and Emacs Lisp's ``defun`` put
# theirs elsewhere (after the value, after the parameters), where it cannot be told from a
# value or a body that returns a string: those are left as code.
_DOCUMENTED = Pattern(
    r"(?m)^[ \t]*\((?P<word>defn-?|defmacro|defmulti|def|defprotocol)\s+" + _META + NAME
)


def _docstrings(masked: str, text: str) -> list[tuple[int, int]]:
    """Where the docstrings of ``text``'s Clojure definitions are (``masked``: ``code``'s
    text): the string right after a definition's name when another form follows it in the
    definition (``(def name "text")`` is a value, no docstring). A docstring documents, as a
    comment does: a change to it alone changes no code."""
    out: list[tuple[int, int]] = []
    for found in _DOCUMENTED.compiled.finditer(masked):
        at = found.end()
        while at < len(text) and text[at].isspace():
            at += 1
        if masked[at : at + 1] == "[" and found.group("word") in ("defn", "defn-", "defmacro"):
            # a docstring written after the parameters (``(defn f [x] "doc" body)``, a common
            # slip): a string evaluated and dropped before the body, it runs nothing either
            at = form_end(masked, at)
            while at < len(text) and text[at].isspace():
                at += 1
        if text[at : at + 1] != '"':
            continue
        end = at + 1
        while end < len(text) and text[end] != '"':
            end += 2 if text[end] == "\\" else 1
        after = end + 1
        while after < len(masked) and masked[after].isspace():
            after += 1
        if after < len(masked) and masked[after] not in _CLOSE:
            out.append((at, after))
    return out


def form_end(masked: str, start: int) -> int:
    """Where the form opening with the bracket at ``start`` of ``masked`` (``code``'s text)
    ends: after its closing bracket (the end of the text when it never closes)."""
    depth = 0
    for at in range(start, len(masked)):
        ch = masked[at]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
            if depth == 0:
                return at + 1
    return len(masked)


# Not every definition is read here (``anchors``): a file of a Lisp whose definition no
# ``(def`` form makes is read by the line forms too.
ALONE = False


def definitions(text: str, name: str) -> list[tuple[int, int, int]]:
    """Each form of ``text`` that defines ``name``, in file order: the start of its line, the
    end of its first line and the end of the line its form closes on (after its line break)."""
    if name not in text or not _DEFINITION_LINE.compiled.search(text):
        return []  # no Lisp definition line: nothing to read (most files are no Lisp)
    masked = code(text)
    out: list[tuple[int, int, int]] = []
    for found in _DEFINITION.compiled.finditer(masked):
        if found.group("name") != name:
            continue
        start = found.start()
        opening = masked.index("(", start)
        first = masked.find("\n", start)
        first = len(text) if first < 0 else first
        last = masked.find("\n", form_end(masked, opening) - 1)
        out.append((start, first, len(text) if last < 0 else last + 1))
    return out
