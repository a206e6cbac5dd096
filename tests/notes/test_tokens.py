"""A file's text as tokens (notes/tokens.py): comments, docstrings and layout left out by the
markers of the file's language, one thing written two ways read as one; each with the change it
must not hide."""

from __future__ import annotations

import pytest

from reflectgit.notes.tokens import bound_names, tokens


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


@pytest.mark.parametrize(
    ("path", "code", "bound"),
    [
        # Rust: ``mut`` stands between ``let`` and the name, and before a parameter
        ("src/a.rs", "let mut count: usize;", {"count"}),
        ("src/a.rs", "let mut count = 0;", {"count"}),
        ("src/a.rs", "fn push(mut self, mut item: Item) {}", {"push", "self", "item", "Item"}),
        # C++: ``auto`` (with its ``&``) stands between ``const`` and the name
        ("src/a.cpp", "for (const auto& item : items) {}", {"item"}),
        ("src/a.cpp", "const auto limit = 3;", {"limit"}),
        # the negatives: a name that starts like one is a name, and so is the word itself
        # when no name follows it (JavaScript may name a variable ``mut`` or ``auto``)
        ("src/a.rs", "let mutex = Mutex::new(0);", {"mutex"}),
        ("src/a.js", "const automobile = 3;", {"automobile"}),
        ("src/a.js", "let mut = 3;", {"mut"}),
        ("src/a.js", "const auto = makeCar();", {"auto"}),
    ],
)
def test_a_binding_modifier_is_not_a_bound_name_the_name_after_it_is(path, code, bound) -> None:
    assert bound_names(tokens(code, path)) == bound
