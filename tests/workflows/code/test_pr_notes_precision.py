"""``reflect-git pr-notes`` on the kinds of change that listed notes a reviewer did not need,
against real git histories, each with the change that must still list them: a file changed
only in its comments brings no terms, and a symbol removed before the change (the file
defined it at the note's commit) is not judged as its whole file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git
from tests.support.codeworld import World

PARSER_C = """/* parser -- reads the config; tested by hand */
#include <stdio.h>

int parse_config(FILE* file)
{
    return read_lines(file, 200);
}

int parse_args(int argc)
{
    return argc > 1;
}
"""


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    w.code.write("src/parser.c", PARSER_C).commit("parser")
    return w


def test_a_file_changed_only_in_comments_brings_no_terms(world: Any) -> None:
    nid = world.add("The parser reads the config", "parser.c reads 200 lines of the config")
    world.code.branch("comments")
    world.code.write("src/parser.c", PARSER_C.replace("tested by hand", "tested by CI"))
    world.code.commit("comment tweak")
    assert world.pr() == []  # the file's name and the hunk's symbol say nothing: no comment
    world.code.branch("code")
    world.code.write("src/parser.c", PARSER_C.replace("read_lines(file, 200)", "read_all(file)"))
    world.code.commit("read everything")
    assert nid in [n["id"] for n in world.pr("--head", "code")]


def test_a_symbol_gone_before_the_change_is_not_judged_as_its_file(world: Any) -> None:
    nid = world.add(
        "parse_args needs two arguments",
        "parse_args is true for argc > 1",
        "src/parser.c:parse_args",
    )
    gone = PARSER_C.split("int parse_args")[0]
    world.code.write("src/parser.c", gone).commit("drop parse_args")  # on main, before the PR
    world.code.branch("args")
    world.code.write("src/parser.c", gone.replace("200", "argc > 1 ? 400 : 200"))
    world.code.commit("longer reads")
    # the file changed in a name the note states (argc), but parse_args was gone already
    assert nid not in [n["id"] for n in world.pr()]


def test_a_symbol_the_rule_cannot_read_is_still_judged_as_its_file(world: Any) -> None:
    # parse_config's return type stands on the line before it: the finder never read it
    gnu = PARSER_C.replace("int parse_config(FILE* file)", "int\nparse_config(FILE* file)")
    world.code.write("src/parser.c", gnu).commit("GNU style")
    nid = world.add(
        "parse_config reads 200 lines", "parse_config stops after 200", "src/parser.c:parse_config"
    )
    world.code.branch("longer")
    world.code.write("src/parser.c", gnu.replace("200", "400")).commit("400 lines")
    assert nid in [n["id"] for n in world.pr()]


LOOP_C = """int parse_stream(FILE* file)
{
    int lineno = 0;
    while (read_line(line, MAX_LINE, file)) {
        lineno++;
        if (lineno == 1 && skip_bom(line))
            continue;
        handle(line);
    }
    return 0;
}
"""


def test_notes_on_one_symbol_rank_by_the_identifiers_the_change_touched(world: Any) -> None:
    world.code.write("src/loop.c", LOOP_C).commit("loop")
    # "a-" sorts first: without the identifier it would come first among equals
    plain = world.add(
        "a-lines", "parse_stream hands every line to handle", "src/loop.c:parse_stream"
    )
    exact = world.add(
        "b-long", "parse_stream reads at most MAX_LINE bytes", "src/loop.c:parse_stream"
    )
    world.code.branch("longer")
    world.code.write("src/loop.c", LOOP_C.replace("read_line(line, MAX_LINE, file)", "read_line(line, 2 * MAX_LINE, file)"))  # fmt: skip
    world.code.commit("longer lines")
    ids = [n["id"] for n in world.pr()]
    assert ids == [exact, plain]  # both touched; MAX_LINE is where the code is, "line" is a word
    # a change touching only plain words keeps the order of equals (by id)
    git("checkout", "-q", "main", cwd=world.code.path)
    world.code.branch("handle")
    world.code.write("src/loop.c", LOOP_C.replace("handle(line);", "handle(line + 1);"))
    world.code.commit("skip a byte")
    assert [n["id"] for n in world.pr("--head", "handle")] == [plain]


def test_a_symbol_changed_only_in_other_names_is_not_a_changed_symbol(world: Any) -> None:
    nid = world.add("parse_config reads 200 lines", "parse_config stops after 200 lines")
    world.code.branch("export")
    exported = PARSER_C.replace("int parse_config(", "API int parse_config(")
    world.code.write("src/parser.c", exported).commit("export the parser")
    # the hunk names parse_config, but only API came before its declaration: nothing to say
    assert world.pr() == []
    git("checkout", "-q", "main", cwd=world.code.path)
    world.code.branch("body")
    world.code.write("src/parser.c", PARSER_C.replace("read_lines(file, 200)", "read_lines(file)"))
    world.code.commit("read them all")
    why = {n["id"]: n["why"] for n in world.pr("--head", "body")}
    assert "parse_config (changed symbol)" in why[nid]


def test_the_words_of_the_projects_own_name_are_no_match(world: Any) -> None:
    # the repository is billing-api: "billing" is in its name, so in what every change is about
    nid = world.add("The billing ledger is append-only", "Never rewrite a billing ledger row")
    world.code.branch("feature")
    world.code.write("src/billing_ledger.py", "def rows():\n    return []\n")
    world.code.commit("ledger rows")
    # "ledger" alone (a word of a changed file's name) is not enough, "billing" does not count
    assert world.pr() == []
    # a symbol of the change the note states is
    world.code.write("src/billing_ledger.py", "def append_row():\n    return []\n")
    world.code.commit("append_row")
    world.add("Use append_row", "append_row is the only way to write the billing ledger")
    assert [n["id"] for n in world.pr()] != [] and nid not in [n["id"] for n in world.pr()]


def test_notes_on_the_same_code_are_told_apart_by_the_changes_description(world: Any) -> None:
    world.code.write("src/loop.c", LOOP_C).commit("loop")
    anchor = "src/loop.c:parse_stream"
    bom = world.add("A BOM is skipped on the first line only", "parse_stream: lineno == 1", anchor)
    bytes_ = world.add("Lines are cut at MAX_LINE", "parse_stream drops the tail of a line", anchor)
    other = world.add(
        "Arguments need two", "parse_args is true for argc > 1", "src/parser.c:parse_args"
    )
    world.code.branch("bom")
    world.code.write(
        "src/loop.c", LOOP_C.replace("lineno++;", "lineno += 1;\n        line[0] = 0;")
    )
    world.code.write("src/parser.c", PARSER_C.replace("argc > 1", "argc > 2"))
    world.code.commit("A BOM is skipped on any line, not only where lineno is 1")
    ids = [n["id"] for n in world.pr()]
    # both notes state the loop's words; the description says "skipped", "line", "lineno":
    # of the two notes on parse_stream only that one is listed; parse_args stands on its own
    assert bom in ids and bytes_ not in ids
    assert other in ids


def test_a_description_that_says_little_leaves_notes_on_the_same_code_alone(world: Any) -> None:
    world.code.write("src/loop.c", LOOP_C).commit("loop")
    anchor = "src/loop.c:parse_stream"
    bom = world.add("A BOM is skipped on the first line only", "parse_stream: lineno == 1", anchor)
    bytes_ = world.add("Lines are cut at MAX_LINE", "parse_stream drops the tail of a line", anchor)
    world.code.branch("tweak")
    world.code.write(
        "src/loop.c", LOOP_C.replace("lineno++;", "lineno += 1;\n        line[0] = 0;")
    )
    world.code.commit("Clear the tail")  # one word of one note: chance, not a description
    ids = [n["id"] for n in world.pr()]
    assert bom in ids and bytes_ in ids


def test_code_changed_beside_what_a_note_states_is_listed_when_the_description_says_it(
    world: Any,
) -> None:
    world.code.write("src/loop.c", LOOP_C).commit("loop")
    nid = world.add(
        "Long lines are cut", "parse_stream drops the tail of a line", "src/loop.c:parse_stream"
    )
    twice = LOOP_C.replace("lineno++;", "lineno += 2;")  # nothing the note states
    world.code.branch("described")
    world.code.write("src/loop.c", twice).commit("Keep the tail of long lines")
    notes = world.pr()
    assert [n["id"] for n in notes] == [nid]  # "tail", "long", "lines": what the note is about
    assert "not what the note states; it says lines, long, tail" in notes[0]["why"]
    # the same code, described in words the note does not state (or in one): not listed
    git("checkout", "-q", "main", cwd=world.code.path)
    world.code.branch("counted")
    world.code.write("src/loop.c", twice).commit("Count the lines twice")
    assert world.pr("--head", "counted") == []
    # the description does not bring back a note whose code did not change (a comment only)
    git("checkout", "-q", "main", cwd=world.code.path)
    world.code.branch("comment")
    commented = LOOP_C.replace("lineno++;", "lineno++;  /* the tail of long lines */")
    world.code.write("src/loop.c", commented).commit("Say where the tail of long lines goes")
    assert world.pr("--head", "comment") == []


def test_a_note_listed_on_the_description_gives_way_to_notes_whose_stated_code_changed(
    world: Any,
) -> None:
    world.code.write("src/loop.c", LOOP_C).commit("loop")
    anchor = "src/loop.c:parse_stream"
    tail = world.add("Long lines are cut", "parse_stream drops the tail of a line", anchor)
    args = world.add(
        "Arguments need two", "parse_args is true for argc > 1", "src/parser.c:parse_args"
    )
    world.code.branch("both")
    world.code.write("src/loop.c", LOOP_C.replace("lineno++;", "lineno += 2;"))
    world.code.write("src/parser.c", PARSER_C.replace("argc > 1", "argc > 2"))
    world.code.commit("Keep the tail of long lines")
    # parse_args changed in what its note states; the note on parse_stream has only the words
    assert [n["id"] for n in world.pr()] == [args]
    # on its own code it outdoes a note whose stated name changed but which says none of them
    counter = world.add("The counter starts at zero", "parse_stream counts lineno from 0", anchor)
    git("checkout", "-q", "main", cwd=world.code.path)
    world.code.branch("loop-only")
    world.code.write("src/loop.c", LOOP_C.replace("lineno++;", "lineno += 2;"))
    world.code.commit("Keep the tail of long lines")
    assert [n["id"] for n in world.pr("--head", "loop-only")] == [tail]
    # described in none of the notes' words, the note whose stated code changed is the one
    git("checkout", "-q", "main", cwd=world.code.path)
    world.code.branch("plain")
    world.code.write("src/loop.c", LOOP_C.replace("lineno++;", "lineno += 2;"))
    world.code.commit("Count by two")
    assert [n["id"] for n in world.pr("--head", "plain")] == [counter]


def test_a_note_anchored_to_code_is_listed_on_its_text_only_for_its_own_subject(
    world: Any,
) -> None:
    # anchored elsewhere, naming the changed function in passing: not what it is about
    passing = world.add(
        "Arguments first", "parse_args runs before parse_config reads the file",
        "src/parser.c:parse_args",
    )  # fmt: skip
    # anchored to a function of that name (the code moved to a new file), or naming it in its
    # title: it is about what the change touched
    own = world.add(
        "Config is read once", "parse_config reads the file once", "src/parser.c:parse_config"
    )
    titled = world.add(
        "parse_config failures are retried", "backoff doubles the wait", "src/retry.py:backoff"
    )
    # a note without anchors states no subject: its whole text is read
    plain = world.add("Reading the config", "parse_config stops at 200 lines")
    # parser.c defines parse_config no more: the change's is where it is now (SAME_FILE)
    world.code.write(
        "src/parser.c", "int parse_args(int argc)" + PARSER_C.split("int parse_args(int argc)")[1]
    )
    world.code.commit("parse_config leaves parser.c")
    world.code.branch("moved")
    world.code.write("src/config.c", "int parse_config(FILE* file)\n{\n    return 0;\n}\n")
    world.code.commit("a new reader")
    ids = [n["id"] for n in world.pr()]
    assert passing not in ids
    assert {own, titled, plain} <= set(ids)


def test_a_word_of_a_changed_files_name_is_no_anchored_notes_subject(world: Any) -> None:
    world.code.write("src/registration.py", "def register(x):\n    return x\n").commit("reg")
    # the words of the new file's name, registration and scanning, are said by the note's text
    # and title, but it is anchored to other code and names neither name
    other = world.add(
        "Registration scanning appends",
        "Scanning the registration twice registers it twice",
        "src/registration.py:register",
    )
    world.code.branch("scan")
    world.code.write("src/scanning_registration.py", "def scan_all(x):\n    return x\n")
    world.code.commit("scan everything")
    assert other not in [n["id"] for n in world.pr()]
    # without anchors, the same text is listed on those words (the rule is for anchored notes)
    loose = world.add("Registration scanning appends", "Scanning the registration twice")
    assert loose in [n["id"] for n in world.pr()]


STRATEGY_CS = """using System;

namespace Billing
{
    public abstract class RegistrationStrategy
    {
        public static readonly RegistrationStrategy Skip = new SkipStrategy(3);
    }
}
"""


def test_a_change_that_only_reshaped_the_anchored_code_gets_no_comment(world: Any) -> None:
    world.code.write("src/Strategy.cs", STRATEGY_CS).commit("strategies")
    nid = world.add(
        "RegistrationStrategy offers Skip", "Skip never fails on a duplicate", "src/Strategy.cs"
    )
    world.code.branch("scoped")
    scoped = STRATEGY_CS.replace("namespace Billing\n{", "namespace Billing;").rstrip()[:-1]
    scoped = "\n".join(line.removeprefix("    ") for line in scoped.split("\n"))
    world.code.write("src/Strategy.cs", scoped).commit("Switch to file-scoped namespaces")
    assert world.pr("--head", "scoped") == []  # brackets only: nothing the note states
    # the same reshaping with a value changed beside it is a change to what the note states
    world.code.write("src/Strategy.cs", scoped.replace("(3)", "(4)")).commit("four")
    assert [n["id"] for n in world.pr("--head", "scoped")] == [nid]
