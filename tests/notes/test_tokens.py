"""A file's text as tokens (notes/tokens.py): comments, docstrings and layout left out by the
markers of the file's language, one thing written two ways read as one; each with the change it
must not hide."""

from __future__ import annotations

import pytest

from reflectgit.notes.tokens import declared_names, spans, tokens


@pytest.mark.parametrize(
    ("path", "old", "new", "same"),
    [
        # both quotes read a string alike, escapes and interpolation included
        (
            "lib/usage.dart",
            "print('$message\\n\\n$usage');",
            'print("$message\\n\\n$usage");',
            True,
        ),
        ("src/a.py", "x = 'a\\tb'", 'x = "a\\tb"', True),
        ("src/a.ts", "throw new Error('bad\\n');", 'throw new Error("bad\\n");', True),
        # a quote inside, or a language whose single quotes neither escape nor interpolate
        ("src/a.py", "x = 'say \"hi\"'", "x = \"say 'hi'\"", False),
        ("lib/a.rb", "puts '#{name}'", 'puts "#{name}"', False),
        ("src/a.php", "echo '$name\\n';", 'echo "$name\\n";', False),
        ("run.sh", "echo '$HOME'", 'echo "$HOME"', False),
        # OCaml's (* *) and Haskell's {- -} comments, nested ones too, are no change
        (
            "src/fmt.ml",
            "(* Copyright (c) 2016 Daniel *)\nlet pp = ()\n",
            "(* Copyright (c) 2016 The fmt programmers (* ISC *) *)\nlet pp = ()\n",
            True,
        ),
        ("src/Lib.hs", "{- old -}\nf x = x\n", "{- new {- nested -} -}\nf x = x\n", True),
        # Julia's #= =# over several lines (its code after the first line is no code either)
        (
            "src/dict.jl",
            "#= old\nx = 1 =#\nf(x) = x\n",
            "#= new #= nested =#\ny = 2 =#\nf(x) = x\n",
            True,
        ),
        # code changed beside them, a multiplication, a marker inside a string: code
        ("src/fmt.ml", "(* c *)\nlet pp = ()\n", "(* c *)\nlet pp = 1\n", False),
        ("src/fmt.ml", "let y = (a * b)\n", "let y = (a * c)\n", False),
        ("src/fmt.ml", 'let s = "(* a *)"\n', 'let s = "(* b *)"\n', False),
        ("src/dict.jl", "#= c =#\nf(x) = x\n", "#= c =#\nf(x) = x + 1\n", False),
    ],
)
def test_layout_is_no_change_as_the_files_language_reads_it(path, old, new, same) -> None:
    """Quote styles where both quotes read a string alike; block comments, nested ones too."""
    assert (tokens(old, path) == tokens(new, path)) == same


def test_declared_names_reads_the_locals_and_parameters_of_typed_languages() -> None:
    def declared(text: str, path: str) -> set[str]:
        return declared_names([t for t, _, _ in spans(text, path)])

    assert declared("init(label name: String) {\n", "a.swift") >= {"label", "name"}
    assert declared("if let value = x, case let .some(y) = z {\n", "a.swift") >= {"value", "y"}
    assert declared("xs.map { a, b in a + b }\n", "a.swift") >= {"a", "b"}
    assert declared("void f(final List<String> names, int[] ns) {\n", "A.java") >= {"names", "ns"}
    assert declared("xs.forEach((x) -> use(x));\n", "A.java") >= {"x"}
    assert declared("} catch (e) {\n", "a.dart") >= {"e"}
    assert declared("for (x <- xs) yield x\n", "a.scala") >= {"x"}
    # an assignment, a condition, a call's argument, a statement word: no declaration
    for text, path in (
        ("object = newValue\n", "a.swift"),
        ("if (name == null) {\n", "A.java"),
        ("return count + size(total)\n", "a.kt"),
        ("let x = y\nobject = z\n", "a.swift"),
    ):
        assert not declared(text, path) & {"object", "name", "count", "total"}, text
