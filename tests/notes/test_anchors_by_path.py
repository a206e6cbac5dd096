"""The symbol finder is told a file's language by its path (``languages.readers``): Haskell,
Julia and the Lisps by their suffixes, another language's suffix reads as none of them
whatever its content, and only a text without a path, or with a suffix no table knows, is
read by its content."""

from __future__ import annotations

import pytest

from reflectgit.notes import anchors

# A Rust file holding a Haskell program in a raw string: its lines read as Haskell's
# top-level signature and equation.
LIB_RS = """const SOURCE: &str = r#"
main :: IO ()
main = print 1
"#;

fn parse(src: &str) -> usize {
    src.len()
}
"""
PARSE_RS = "fn parse(src: &str) -> usize {\n    src.len()\n}\n"

# Julia with nothing only Julia writes (no ``::``, ``where``, declared type): the content
# alone does not tell it.
RUN_JL = """function run(x)
    if x > 0
        return x
    end
    x
end

helper(y) = y + 1

run(2)
"""
RUN = RUN_JL[: RUN_JL.index("\nhelper")]

# A shell script writing a Scheme file from a here-document.
INSTALL_SH = """cat > init.scm <<'END'
(define (greet name)
  (display name))
END

greet() {
  echo "$1"
}
"""


def test_another_languages_suffix_is_not_read_as_haskell() -> None:
    assert anchors.symbol_block(LIB_RS, "parse", "src/lib.rs") == PARSE_RS
    assert anchors.defines(LIB_RS, "parse", "src/lib.rs")
    # the same text at a Haskell path is read as Haskell: ``parse`` is no declaration there
    assert anchors.symbol_block(LIB_RS, "parse", "app/Main.hs") is None
    assert anchors.symbol_block(LIB_RS, "main", "app/Main.hs") == "main :: IO ()\nmain = print 1\n"
    # without a path its content says Haskell, as it did before paths were given
    assert anchors.symbol_block(LIB_RS, "parse") is None


def test_a_julia_suffix_is_read_as_julia_without_a_mark() -> None:
    path = "src/Run.jl"
    assert anchors.symbol_block(RUN_JL, "run", path) == RUN
    assert anchors.symbol_block(RUN_JL, "helper", path) == "helper(y) = y + 1\n"
    assert anchors.anchored_blocks(RUN_JL, "run", path) == [RUN]
    assert anchors.definitions(RUN_JL, "run", path) == [RUN]
    edited = RUN_JL.replace("y + 1", "y + 2")
    assert anchors.anchored_code(RUN_JL, edited, "run", path) == (RUN, RUN)
    # read without its path (or at another language's) the text is no Julia: the line forms
    # run ``run``'s block to the end of the file and find no ``helper``
    for other in (None, "src/run.py"):
        assert anchors.symbol_block(RUN_JL, "run", other) == RUN_JL
        assert anchors.symbol_block(RUN_JL, "helper", other) is None


@pytest.mark.parametrize("path", [None, "", "bin/run", "src/dict.jl.tmpl"])
def test_without_a_known_suffix_the_content_tells(path: str | None) -> None:
    # a typed parameter is what only Julia writes: the text is read as Julia
    typed = RUN_JL.replace("run(x)", "run(x::Int)")
    assert anchors.symbol_block(typed, "run", path) == RUN.replace("run(x)", "run(x::Int)")
    # a top-level signature: Haskell; a definition form: a Lisp
    assert anchors.symbol_block(LIB_RS, "parse", path) is None
    assert anchors.symbol_block(INSTALL_SH, "greet", path) == (
        "(define (greet name)\n  (display name))\n"
    )


def test_a_lisp_is_told_by_its_suffix() -> None:
    scheme = "(define (greet name)\n  (display name))\n"
    assert anchors.symbol_block(INSTALL_SH, "greet", "init.scm") == scheme
    # a shell script's here-document holds Scheme: the script's function is the symbol
    assert anchors.symbol_block(INSTALL_SH, "greet", "install.sh") == (
        'greet() {\n  echo "$1"\n}\n'
    )
