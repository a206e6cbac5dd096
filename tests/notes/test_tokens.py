"""A file's text as tokens (notes/tokens.py): comments, docstrings and layout left out by the
markers of the file's language, one thing written two ways read as one; each with the change it
must not hide."""

from __future__ import annotations

import pytest

from reflectgit.notes.tokens import tokens


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
