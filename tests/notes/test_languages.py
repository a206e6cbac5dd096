"""A file's language by its path's suffix (``languages``): the comparison's markers and the
definition reader, one table; the content tells only a path no table knows."""

from __future__ import annotations

import pytest

from reflectgit.notes import codediff, haskell, julia, languages, lisp
from reflectgit.notes.tokens import tokens
from tests.notes.test_anchors_by_path import INSTALL_SH, LIB_RS, RUN_JL


def test_the_suffix_is_after_the_last_dot_or_the_name_itself() -> None:
    assert languages.suffix("src/Pool.PY") == "py"
    assert languages.suffix("src/dict.jl.tmpl") == "tmpl"
    assert languages.suffix("Makefile") == "makefile"
    assert languages.suffix("a.b/.gitignore") == "gitignore"


@pytest.mark.parametrize(
    ("path", "reader"),
    [("src/Main.hs", haskell), ("app/Lib.lhs", haskell), ("src/Run.jl", julia),
     ("core.clj", lisp), ("init.el", lisp), ("src/lib.rs", None), ("pool.py", None)],
)  # fmt: skip
def test_a_known_suffix_names_its_reader_whatever_the_content(path: str, reader: object) -> None:
    assert languages.known(path)
    assert languages.of(path).reader is reader
    # a Rust file holding Haskell in a string, a script holding Scheme, Julia without a mark:
    # the suffix decides, not the text
    for text in (LIB_RS, INSTALL_SH, RUN_JL):
        assert languages.readers(text, path) == (() if reader is None else (reader,))


def test_a_known_suffix_tells_the_comment_markers() -> None:
    haskell_file, julia_file = languages.of("Main.hs"), languages.of("src/Run.jl")
    assert haskell_file.dash_comments and haskell_file.nested_comments == ("{-", "-}")
    assert julia_file.hash_comments and julia_file.nested_comments == ("#=", "=#")
    assert not julia_file.dash_comments and not haskell_file.hash_comments
    assert languages.of("lib.rs").slash_comments and languages.of("core.clj").lisp
    # the tokens are read by them: ``--`` is a comment in Haskell, an operator in Python
    assert tokens("x = y -- z\n", "Main.hs") == ["x", "=", "y"]
    assert tokens("x = y -- z\n", "a.py") == ["x", "=", "y", "--", "z"]


def test_a_suffix_tells_python_typescript_optional_braces_and_settings() -> None:
    """What the tokens and the respellings read of a language beside its comments: Python (its
    docstrings), TypeScript (its erased casts), a braced block that may lose its braces, a
    settings file (read by paragraph); each false for a language it does not name."""
    python, stub, ts, java = (languages.of(p) for p in ("a.py", "a.pyi", "a.tsx", "A.java"))
    assert python.python and stub.python and not ts.python and not java.python
    assert ts.typescript and not python.typescript and not languages.of("a.js").typescript
    assert java.optional_braces and ts.optional_braces and not python.optional_braces
    assert not languages.of("main.go").optional_braces  # Go's braces are never optional
    assert languages.of("pyproject.toml").settings and languages.of("Cargo.lock").settings
    assert not python.settings and not languages.of("README.md").settings
    # a string alone on a line documents in Python only
    assert tokens('def f():\n    "doc"\n    return 1\n', "a.py") == [
        "def",
        "f",
        "(",
        ")",
        ":",
        "return",
        "1",
    ]
    assert '"doc"' in tokens('function f() {\n    "doc"\n    return 1\n}\n', "a.js")


@pytest.mark.parametrize(
    ("field", "named", "other"),
    [
        # ``(x,)`` a tuple: Python and Rust; JavaScript's ``f(x,)`` is ``f(x)``
        ("tuples", ("a.py", "a.pyi", "src/lib.rs"), "a.js"),
        # ``::Name`` from the outermost scope: Ruby and C++; Rust's ``::std`` is a crate path
        ("rooted_names", ("a.rb", "Rakefile", "a.gemspec", "a.cpp", "a.hpp", "a.h"), "a.rs"),
        # ``a max b`` a method call: Scala and Kotlin; Java has no infix calls
        ("infix_calls", ("A.scala", "a.sc", "A.kt", "build.gradle.kts"), "A.java"),
        ("lua", ("init.lua",), "a.py"),
        ("go", ("main.go",), "a.rs"),
    ],
)
def test_a_suffix_tells_what_respell_reads_of_a_language(
    field: str, named: tuple[str, ...], other: str
) -> None:
    """Each respelling of one language's own (``respell``) is read from the suffixes its field
    names, and not from another language's."""
    assert all(getattr(languages.of(path), field) for path in named)
    assert not getattr(languages.of(other), field)


@pytest.mark.parametrize("path", ["cbits/Foo.hsc", "src/dict.jl.tmpl"])
def test_an_unknown_suffix_falls_back_to_the_content(path: str) -> None:
    assert not languages.known(path)
    assert languages.of(path).reader is None
    # a top-level signature reads as Haskell, a typed parameter as Julia; a Lisp is always
    # tried (a form of it must define the symbol)
    assert languages.readers(LIB_RS, path) == (lisp, haskell)
    assert languages.readers(RUN_JL.replace("run(x)", "run(x::Int)"), path) == (lisp, julia)
    assert languages.readers(RUN_JL, path) == (lisp,)


@pytest.mark.parametrize("path", ["bin/run", "scripts/deploy", None, ""])
def test_a_path_without_a_suffix_is_read_by_its_content(path: str | None) -> None:
    if path:
        assert not languages.known(path)
        assert languages.of(path) == languages.of("x.unknown")
    assert languages.readers(LIB_RS, path) == (lisp, haskell)
    assert languages.readers(INSTALL_SH, path) == (lisp,)


def test_a_name_without_a_suffix_can_be_known() -> None:
    # build files are named, not suffixed: their name is the table's key
    assert languages.known("Makefile") and languages.of("Makefile").hash_comments
    assert languages.known("ruby/Gemfile") and languages.of("ruby/Gemfile").ruby
    assert languages.readers(LIB_RS, "Makefile") == ()


@pytest.mark.parametrize(
    ("first", "read"),
    [("#!/usr/bin/env bash", "bin/run.bash"), ("#!/bin/sh -e", "bin/run.sh"),
     ("#! /bin/zsh", "bin/run.zsh"), ("#!/usr/bin/env -S python3 -u", "bin/run.py"),
     ('#!/usr/bin/env -S "python3 -u"', "bin/run.py"), ("#!/usr/bin/python3.12", "bin/run.py"),
     ("#!/usr/bin/env LC_ALL=C perl -w", "bin/run.pl"), ("#!/usr/bin/ruby", "bin/run.rb"),
     ("#!/usr/bin/env node", "bin/run.js"), ("#!/usr/bin/env Rscript", "bin/run.r")],
)  # fmt: skip
def test_a_script_without_a_suffix_is_read_in_its_shebangs_language(first: str, read: str) -> None:
    assert languages.read_as("bin/run", f"{first}\necho hi\n") == read


def test_a_shebang_tells_nothing_of_a_named_file_an_unknown_interpreter_or_a_block() -> None:
    # a suffix tells the language itself; an interpreter no table names, no shebang (a
    # Makefile, a LICENSE) or no text at all (a block of the file, a path alone): the name
    assert languages.read_as("tool.py", "#!/usr/bin/env bash\n") == "tool.py"
    assert languages.read_as("test/run", "#!/usr/bin/env bats\n") == "test/run"
    assert languages.read_as("Makefile", "all:\n\tmake -C src\n") == "Makefile"
    assert languages.read_as("bin/run", "run() {\n  :\n}\n") == "bin/run"
    assert languages.read_as("bin/run", None) == "bin/run"


def test_a_shell_scripts_comments_are_comments_by_its_shebang() -> None:
    text = "#!/bin/sh\nrun() {\n  make  # the build\n}\n"
    assert "build" in tokens(text, "bin/run")
    assert "build" not in tokens(text, languages.read_as("bin/run", text))
    # not a settings file read by paragraph: a script is code
    assert codediff.prose_or_settings("bin/run")
    assert not codediff.prose_or_settings(languages.read_as("bin/run", text))


def test_a_script_in_a_language_with_a_reader_is_read_by_it() -> None:
    script = "#!/usr/bin/env julia\nfunction area(r)\n    pi * r^2\nend\n"
    assert languages.readers(script, "bin/area") == (julia,)
