"""A file's text as tokens (notes/tokens.py): comments, docstrings and layout left out by the
markers of the file's language, one thing written two ways read as one; each with the change it
must not hide."""

from __future__ import annotations

import pytest

from reflectgit.notes.codediff import renamed_only
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
        # a C-family definition binds its parameters, written ``Type name``, never the types
        (
            "include/argparse.hpp",
            "bool is_used(const std::string &name) const {\n return mUsed.count(name);\n}\n",
            {"name"},
        ),
        (
            "src/Money.java",
            "public Money plus(final Money other, Map<String, List<Long>> rates, long... rest) {}",
            {"other", "rates", "rest"},
        ),
        (
            "src/main.c",
            "int main(int argc, char **argv) {\n  run(argc, argv);\n}\n",
            {"argc", "argv"},
        ),
        (
            "src/Scan.cs",
            "public Scan(ILogger<Scan> logger, params object[] args) : base(logger) { }",
            {"logger", "args"},
        ),
        (
            "lib/args.dart",
            "void add(String name, {bool flag = false, this.help}) {}",
            {"name", "flag"},
        ),
        # a type after ``const`` and Rust's ``mut`` are not the names bound
        ("src/a.cpp", "const auto it = find(x);", {"it"}),
        ("src/a.cpp", "const std::string label = f(x);", {"label"}),
        ("src/a.rs", "let mut total = 0;", {"total"}),
        # not definitions: a call, a constructor called, a condition; Kotlin's ``name: Type``
        ("src/a.cpp", "x = f(a, b);\nif (ok) { go(x); }\n", {"x"}),
        ("src/A.java", "list.add(new Entry(key, value) {});", set()),
        ("src/a.kt", "fun plus(other: Money): Money {\n  return other\n}\n", set()),
    ],
)
def test_bound_names_of_a_definition_are_its_parameters_not_their_types(
    path: str, code: str, bound: set[str]
) -> None:
    assert bound_names(tokens(code, path)) == bound


def test_a_parameter_renamed_is_a_renaming_and_its_type_or_a_field_changed_is_not() -> None:
    head = "public Money plus(Money other) {\n  return add(other.amount);\n}\n"
    java = "src/Money.java"
    assert renamed_only(tokens(head, java), tokens(head.replace("other", "that"), java))
    # the parameter's type, a field read, a call's argument: names the block does not bind
    typed = head.replace("(Money other)", "(BigMoney other)")
    assert not renamed_only(tokens(head, java), tokens(typed, java))
    field = head.replace("other.amount", "other.value")
    assert not renamed_only(tokens(head, java), tokens(field, java))
    call = "void f(Money a) {\n  add(total);\n}\n"
    assert not renamed_only(tokens(call, java), tokens(call.replace("total", "a"), java))
