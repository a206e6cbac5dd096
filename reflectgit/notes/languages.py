"""A file's language, told by its path's suffix. Pure.

What editors, linters and git attributes tell a file's language by: the part of its name after
the last dot (``src/pool.py``: ``py``), or the name itself when it has none (``Makefile``,
``.gitignore``). For a path, ``of`` says what the tokens (``tokens``), the respellings
(``respell``) and the comparison (``codediff``) read of its text by it: its comment markers,
whether a string may be written in either quote, whether it is prose, settings, JSON, Ruby,
Python, TypeScript, Lua or Go, whether ``let`` binds only a block's own variable (Rust), whether a braced block may lose its braces, a ``,`` before ``)``
may make a tuple, ``::Name`` names the outermost scope's ``Name``, ``a name b`` calls a method;
and which definition reader reads it, for a language whose definitions the
line forms of ``anchors`` do not read (``readers``): a Lisp's balanced forms (``lisp``), a
Haskell declaration group (``haskell``: a signature and its equations, whose names and
operators no definition word introduces), a Julia definition (``julia``: a body runs to the
``end`` that closes it, not to the next definition, and a short-form method ``name(args) =
expr`` has no definition word).

A script named without a suffix (``bin/run``, ``libexec/tool``, a git hook) is told by its first
line, a shebang (``#!/usr/bin/env bash``): it is code in the language its interpreter names,
read as a file of that language's suffix is (``read_as``: ``bin/run`` is read as
``bin/run.bash``). A file without a suffix and without a shebang (``Makefile``, ``LICENSE``)
is told by its name, as before.

A path whose suffix no table here names (a script named without one whose shebang names no
interpreter here, ``bin/run``; ``.hsc``, a template) is ``known`` to be none of them: only then, or without a path, is the language read
from the text's content (``readers``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType

from reflectgit.notes import haskell, julia, lisp
from reflectgit.notes.lazyre import Pattern

# Comment markers by file suffix: ``#`` to the line's end.
_HASH = frozenset({
    "py", "pyi", "sh", "bash", "zsh", "rb", "pl", "r", "yml", "yaml", "toml", "ini", "cfg",
    "conf", "mk", "makefile", "dockerfile", "gitignore", "nim", "cmake", "tf", "ex", "exs",
    "jl", "coffee", "ps1", "properties", "env", "txt", "in", "mod", "sum", "editorconfig",
    "rakefile", "gemfile", "gemspec", "rake", "ru",
})  # fmt: skip
# ``//`` to the line's end, and ``/* ... */``.
_SLASH = frozenset({
    "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "cs", "java", "kt", "kts", "scala", "go", "rs",
    "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "swift", "dart", "php", "groovy",
    "gradle", "proto", "zig", "v", "sol", "css", "scss", "less", "json5", "jsonc",
})  # fmt: skip
# ``;`` opening a line (a Lisp's, anywhere: ``_LISP``).
_SEMI = frozenset({"ini", "cfg", "asm", "s"})
# ``--`` to the line's end.
_DASH = frozenset({"sql", "lua", "hs", "elm", "ada"})
# Block comments that nest: ``(* ... *)`` (OCaml, Standard ML, Pascal), ``{- ... -}``
# (Haskell, Elm) and ``#= ... =#`` (Julia: read before its ``#`` line comment).
_NESTED = {
    **dict.fromkeys(("ml", "mli", "mll", "mly", "sml", "pas"), ("(*", "*)")),
    **dict.fromkeys(("hs", "lhs", "elm"), ("{-", "-}")),
    "jl": ("#=", "=#"),
}
# The Lisp family: their ``;`` comments start anywhere, ``'`` quotes a form (``lisp.code``).
_LISP = frozenset({
    "clj", "cljs", "cljc", "edn", "bb", "el", "lisp", "lsp", "cl", "asd", "scm", "ss", "sld",
    "rkt", "fnl", "hy",
})  # fmt: skip
# Languages where a string may be written in single or double quotes, the same string when it
# holds no escape or interpolation (``'x'`` and ``"x"``): a change of quote style is layout.
_QUOTES_ALIKE = frozenset({
    "py", "pyi", "rb", "rake", "rakefile", "gemfile", "gemspec", "ru", "js", "jsx", "mjs",
    "cjs", "ts", "tsx", "mts", "cts", "php", "lua", "sh", "bash", "zsh", "yml", "yaml",
    "coffee", "dart", "r",
})  # fmt: skip
# Of those, the languages whose two quotes read a string alike, escapes and interpolation
# included (Python, JavaScript and TypeScript, Dart, Lua): ``'$name\\n'`` is ``"$name\\n"``.
_QUOTES_SAME = frozenset({
    "py", "pyi", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "dart", "lua",
})  # fmt: skip
# Data written as JSON: its keys are strings.
_JSON = frozenset({"json", "json5", "jsonc"})
# ECMAScript's private names (``this.#queue``): ``#queue`` is one name, as ``_queue`` was.
_PRIVATE_NAMES = frozenset({"js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts"})
# Ruby writes a block ``do ... end`` or ``{ ... }``, and reads attributes by ``attr_reader``.
_RUBY = frozenset({"rb", "rake", "rakefile", "gemfile", "gemspec", "ru"})
# Prose: its words (and quoted code) are what it says, its punctuation is not.
_TEXT = frozenset({"md", "markdown", "rst", "txt", "adoc", "asciidoc", "org", "textile"})
# Settings, manifests and lock files: data, not code (read by paragraph, as prose is, when a
# note is on the whole file).
_SETTINGS = frozenset({
    "json", "json5", "yml", "yaml", "toml", "ini", "cfg", "conf", "properties", "xml", "gemspec",
    "lock",
})  # fmt: skip
# Python: a string alone on a line is a docstring; annotations, ``super()``, f-strings and
# ``typing.cast`` are its own ways of spelling the same code (``respell``).
_PYTHON = frozenset({"py", "pyi"})
# TypeScript: its casts (``x!``, ``x as T``) are erased before the code runs.
_TYPESCRIPT = frozenset({"ts", "tsx", "mts", "cts"})
# Languages where a braced block of one statement may be written without its braces.
_OPTIONAL_BRACES = frozenset({
    "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "cs", "java", "js", "jsx", "mjs", "cjs", "ts",
    "tsx", "mts", "cts", "php", "dart", "groovy", "kt", "kts", "scala",
})  # fmt: skip
# Languages where a ``,`` before ``)`` may make a tuple (``(x,)`` is not ``(x)``): Python, Rust.
_TUPLES = frozenset({"py", "pyi", "rs"})
# Languages where ``::Name`` names ``Name`` from the outermost scope: Ruby, C++ (and its
# headers, ``.h`` among them).
_ROOTED_NAMES = _RUBY | frozenset({"cc", "cpp", "cxx", "hpp", "hh", "h"})
# Languages where ``a name b`` calls the method ``name`` of ``a`` with ``b``: Scala, Kotlin (its
# ``infix`` functions).
_INFIX_CALLS = frozenset({"scala", "sc", "kt", "kts"})
# Lua: its string library's functions are the string's methods (``string.gsub(s, ...)`` is
# ``s:gsub(...)``).
_LUA = frozenset({"lua"})
# Go: ``any`` is ``interface{}``.
_GO = frozenset({"go"})
# The shells: ``local x=0`` gives a function a variable of its own, no definition of ``x``.
_SHELL = frozenset({"sh", "bash", "zsh"})
# Rust: ``let`` binds a variable of the block it is in (a function's own), never an item: a
# ``let x`` defines no ``x`` a note's anchor names (items are ``fn``, ``static``, ``const`` ...).
_LOCAL_LET = frozenset({"rs"})
# The definition readers (see the module's text), by suffix.
_READERS: dict[str, ModuleType] = {
    **dict.fromkeys(_LISP, lisp),
    **dict.fromkeys(("hs", "lhs"), haskell),
    "jl": julia,
}
# A script's interpreter, as its shebang names it, by the suffix whose files are read as it is:
# the shells, Python, Perl, Ruby, the JavaScript runtimes, Lua, R, Julia, PHP. (An interpreter
# no line names reads the script as today: by its name.)
_INTERPRETERS = {
    **dict.fromkeys(("sh", "dash", "ash", "ksh", "mksh"), "sh"),
    "bash": "bash",
    "zsh": "zsh",
    **dict.fromkeys(("python", "pypy"), "py"),
    "perl": "pl",
    "ruby": "rb",
    **dict.fromkeys(("node", "nodejs", "deno", "bun"), "js"),
    "lua": "lua",
    "rscript": "r",
    "julia": "jl",
    "php": "php",
}
# An interpreter's name without its version (``python3.12``: ``python``).
_VERSIONED = Pattern(r"([a-z]+?)[\d.]*")
# Every suffix the tables above name: the languages and formats read by it. (``_SETTINGS``
# adds ``xml`` and ``lock``, and ``_INFIX_CALLS`` Scala's ``sc``, which are left out: known,
# their content would no longer be read for definitions, a change of behaviour this table was
# not made for.)
_KNOWN = frozenset(
    _HASH | _SLASH | _SEMI | _DASH | _NESTED.keys() | _QUOTES_ALIKE | _JSON | _RUBY | _TEXT | _LISP
)


@dataclass(frozen=True)
class Language:
    """What a file's suffix tells of its text (``of``): where its comments are, how its
    strings and names are written, and which reader reads its definitions (None: the line
    forms of ``anchors``)."""

    hash_comments: bool  # ``#`` to the line's end
    slash_comments: bool  # ``//`` to the line's end, ``/* ... */``
    semicolon_comments: bool  # ``;`` opening a line
    dash_comments: bool  # ``--`` to the line's end
    nested_comments: tuple[str, str] | None  # a block comment that nests: its open and close
    lisp: bool  # a Lisp: ``lisp.code`` reads its comments, ``'`` quotes a form
    quotes_alike: bool  # ``'x'`` is ``"x"`` when it holds no escape or interpolation
    quotes_same: bool  # ``'x'`` is ``"x"``, escapes and interpolation included
    json: bool
    private_names: bool  # ``#queue`` is one name
    ruby: bool
    prose: bool
    settings: bool  # a settings, manifest or lock file: data, not code
    python: bool  # a string alone on a line is a docstring
    typescript: bool  # casts are erased
    optional_braces: bool  # a braced block of one statement may lose its braces
    tuples: bool  # ``(x,)`` is a tuple, not ``(x)``
    rooted_names: bool  # ``::Name`` is ``Name`` looked up from the outermost scope
    infix_calls: bool  # ``a name b`` is ``a.name(b)``
    lua: bool  # ``string.gsub(s, ...)`` is ``s:gsub(...)``
    go: bool  # ``any`` is ``interface{}``
    shell: bool  # ``local x=0`` is a function's own variable
    local_let: bool  # ``let x`` is a block's own variable, no definition
    reader: ModuleType | None


def suffix(path: str) -> str:
    """``path``'s suffix, lower-cased: the part of its name after the last dot, or the name
    itself when it has none (a leading dot aside: ``.gitignore`` is ``gitignore``)."""
    name = path.rsplit("/", 1)[-1].lower()
    return name.rsplit(".", 1)[-1] if "." in name.lstrip(".") else name.lstrip(".")


def read_as(path: str, text: str | None) -> str:
    """The path the file at ``path``, whose text is ``text``, is read by: ``path`` itself, but
    for a script without a suffix whose first line is a shebang naming an interpreter
    ``_INTERPRETERS`` knows, ``path`` with that language's suffix (``bin/run`` holding
    ``#!/usr/bin/env bash`` is read as ``bin/run.bash``). Only the whole file's text tells:
    a block of it has no shebang; without a text (None) the path alone tells."""
    name = path.rsplit("/", 1)[-1]
    if not text or not text.startswith("#!") or "." in name.lstrip("."):
        return path
    ext = _interpreted(text[2:].split("\n", 1)[0])
    return f"{path}.{ext}" if ext else path


def _interpreted(shebang: str) -> str | None:
    """The suffix of the language a shebang's command line (after ``#!``) runs: its program,
    or for ``env`` the first word after its options and variables (``/usr/bin/env -S python3
    -u``: ``python3``), by its name less a version (``python3.12``)."""
    words = [w.strip("'\"") for w in shebang.split()]  # (``env -S "python3 -u"``)
    if words and words[0].rsplit("/", 1)[-1] == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    if not words:
        return None
    found = _VERSIONED.compiled.fullmatch(words[0].rsplit("/", 1)[-1].lower())
    return _INTERPRETERS.get(found.group(1)) if found else None


def known(path: str) -> bool:
    """Does ``path``'s suffix tell its language or format (a table above names it)? A file
    without one (a script, ``bin/run``) or with another (``.hsc``, a template) is told by its
    content (``readers``)."""
    return suffix(path) in _KNOWN


def of(path: str) -> Language:
    """The language of the file at ``path``, by its suffix (an unknown one reads as a text
    without comments, strings of its own or a reader)."""
    return _by_suffix(suffix(path))


@lru_cache(maxsize=256)
def _by_suffix(ext: str) -> Language:
    return Language(
        hash_comments=ext in _HASH,
        slash_comments=ext in _SLASH,
        semicolon_comments=ext in _SEMI,
        dash_comments=ext in _DASH,
        nested_comments=_NESTED.get(ext),
        lisp=ext in _LISP,
        quotes_alike=ext in _QUOTES_ALIKE,
        quotes_same=ext in _QUOTES_SAME,
        json=ext in _JSON,
        private_names=ext in _PRIVATE_NAMES,
        ruby=ext in _RUBY,
        prose=ext in _TEXT,
        settings=ext in _SETTINGS,
        python=ext in _PYTHON,
        typescript=ext in _TYPESCRIPT,
        optional_braces=ext in _OPTIONAL_BRACES,
        tuples=ext in _TUPLES,
        rooted_names=ext in _ROOTED_NAMES,
        infix_calls=ext in _INFIX_CALLS,
        lua=ext in _LUA,
        go=ext in _GO,
        shell=ext in _SHELL,
        local_let=ext in _LOCAL_LET,
        reader=_READERS.get(ext),
    )


def readers(text: str, path: str | None) -> tuple[ModuleType, ...]:
    """The definition readers of ``text``, the file at ``path``: the one its suffix names,
    none when its suffix names another language (``known``: a Rust test that reads like Julia
    is Rust). Only without a path, or with a suffix no table knows (``.hsc``, a script named
    without one), is its language read from its content: a Lisp when a form of it defines the
    symbol, Haskell by a top-level signature or module header (``haskell.reads``), Julia by
    what only Julia writes (``julia.reads``)."""
    if path:
        path = read_as(path, text)
        reader = of(path).reader
        if reader is not None:
            return (reader,)
        if known(path):
            return ()
    return (lisp, *(reader for reader in (haskell, julia) if reader.reads(text)))
