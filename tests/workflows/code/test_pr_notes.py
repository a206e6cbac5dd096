"""``reflect-git pr-notes`` on real branches: anchored notes first (a changed symbol, then a
changed file), then notes whose text names what changed; a symbol anchor whose file changed
elsewhere is not listed; nothing at all for a change nothing in the KB bears on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli_proc
from tests.support.coderepo import POOL_PY, CodeRepo
from tests.support.codeworld import World


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    w.symbol = w.add("Prefill before serving", "Cold pools time out", "src/pool.py:prefill")  # type: ignore[attr-defined]
    w.file = w.add("Retry budget", "Backoff must cap", "src/retry.py")  # type: ignore[attr-defined]
    w.elsewhere = w.add("Pool limit", "Ten is the ceiling", "src/pool.py:Pool")  # type: ignore[attr-defined]
    w.mention = w.add(  # type: ignore[attr-defined]
        "Call prefill once",
        "prefill on every request exhausts the pool: call prefill once at startup",
    )
    w.unrelated = w.add("Log rotation", "Rotate logs daily with logrotate")  # type: ignore[attr-defined]
    return w


def test_anchored_symbol_then_file_each_with_why_and_no_text_match_beside_them(
    world: Any,
) -> None:
    world.code.branch("feature")
    world.code.write("src/pool.py", POOL_PY.replace("range(size)", "range(size + 1)"))
    world.code.write("src/retry.py", "def backoff(n):\n    return min(2 ** n, 60)\n")
    world.code.commit("cap backoff and prefill one more")
    notes = world.pr()
    ids = [n["id"] for n in notes]
    assert ids == [world.symbol, world.file]
    # the mention note names prefill, which changed: beside anchored notes it is weak evidence
    assert world.mention not in ids
    # a symbol anchor is about its symbol: pool.py changed, Pool did not
    assert world.elsewhere not in ids
    assert world.unrelated not in ids
    why = {n["id"]: n["why"] for n in notes}
    assert why[world.symbol] == "anchored to src/pool.py:prefill, which this change modifies"
    assert why[world.file] == "anchored to src/retry.py, which this change modifies"


def test_text_matches_are_listed_when_no_anchor_is_hit(world: Any) -> None:
    world.code.branch("warm")
    world.code.write("src/prefill_once.py", "def warm(pool):\n    return pool\n")
    world.code.commit("warm the pool at startup")
    notes = world.pr()
    assert [n["id"] for n in notes] == [world.mention]
    assert "prefill (changed file)" in notes[0]["why"]


def test_a_note_anchored_to_an_unchanged_symbol_leaves_text_matches_listed(world: Any) -> None:
    # pool.py changes, but not Pool: the note anchored to Pool is not relevant, so it does not
    # silence the note whose text names the change
    world.code.branch("elsewhere")
    world.code.write("src/pool.py", POOL_PY + "\n\ndef prefill_once(pool):\n    return pool\n")
    world.code.commit("prefill once")
    ids = [n["id"] for n in world.pr()]
    assert world.elsewhere not in ids
    assert world.mention in ids


def test_a_change_nothing_bears_on_prints_nothing(world: Any) -> None:
    world.code.branch("docs")
    world.code.write("README.md", "# billing\n\nHow to deploy the dashboard.\n").commit("docs")
    assert world.pr() == []
    text = run_cli_proc("--kb", str(world.kb), "pr-notes", "--base", "main", cwd=world.code.path)
    assert text.returncode == 0 and text.stdout == ""


def test_a_renamed_and_a_deleted_anchor_are_relevant(world: Any) -> None:
    world.code.branch("moves")
    world.code.move("src/retry.py", "src/backoff.py").commit("move retry")
    world.code.delete("src/pool.py").commit("drop the pool")
    why = {n["id"]: n["why"] for n in world.pr()}
    assert (
        why[world.file] == "anchored to src/retry.py, which this change renames to src/backoff.py"
    )
    assert why[world.symbol] == "anchored to src/pool.py:prefill, which this change deletes"


def test_a_note_whose_anchored_file_the_change_deletes_ranks_first(world: Any) -> None:
    world.code.write("src/zones.py", "def zone():\n    return 'eu'\n").commit("zones")
    # (its id sorts after the others: ranked by id among equals, it would come last)
    gone = world.add("Zones default to eu", "zone() returns eu", "src/zones.py")
    calls = world.add(
        "Prefill calls open_connection", "prefill calls open_connection size times",
        "src/pool.py:prefill",
    )  # fmt: skip
    world.code.branch("drop-zones")
    world.code.write("src/pool.py", POOL_PY.replace("range(size)", "range(size + 1)"))
    world.code.delete("src/zones.py")
    world.code.move("src/retry.py", "src/backoff.py")
    world.code.commit("one more connection, no zones, retry is backoff")
    notes = world.pr()
    ids = [n["id"] for n in notes]
    # everything the zones note names is gone: it comes before the notes on modified code
    assert (
        ids[0] == gone and notes[0]["why"] == "anchored to src/zones.py, which this change deletes"
    )
    assert set(ids[1:3]) == {world.symbol, calls}
    # a renamed file is not a deleted one: its note keeps the rank of a changed file, last
    assert ids[3:] == [world.file]
    assert "renames to src/backoff.py" in notes[3]["why"]


def test_notes_of_another_project_are_left_out(world: Any, tmp_path: Path) -> None:
    other = CodeRepo(tmp_path / "other")
    other.write("src/pool.py", POOL_PY).commit("o")
    theirs = world.add(
        "Their prefill", "prefill the pool in other", "src/pool.py:prefill", cwd=other.path
    )
    world.code.branch("feature")
    world.code.write("src/pool.py", POOL_PY.replace("range(size)", "range(size + 1)")).commit("x")
    assert theirs not in [n["id"] for n in world.pr()]


def test_head_and_merge_base_are_those_of_a_pull_request(world: Any) -> None:
    world.code.branch("feature")
    world.code.write("src/retry.py", "def backoff(n):\n    return 1\n").commit("retry")
    from tests.conftest import git

    git("checkout", "-q", "main", cwd=world.code.path)
    # main moves on after the branch: its changes are not the pull request's
    world.code.write("src/pool.py", POOL_PY.replace("range(size)", "range(2)")).commit("main moves")
    ids = [n["id"] for n in world.pr("--head", "feature")]
    assert ids == [world.file]


def test_an_unknown_base_is_a_usage_error(world: Any) -> None:
    done = run_cli_proc("--kb", str(world.kb), "pr-notes", "--base", "nope", cwd=world.code.path)
    assert done.returncode == 2 and "'nope' names no commit" in done.stderr


CI_YML = """jobs:
  test:
    strategy:
      matrix:
        python: ["3.9", "3.10"]
    steps:
      - uses: actions/checkout@v3
      - uses: codecov/codecov-action@v3
"""


def test_an_anchor_whose_code_changed_in_nothing_the_note_names_is_not_listed(
    world: Any,
) -> None:
    world.code.write(".github/ci.yml", CI_YML).commit("ci")
    matrix = world.add("CI matrix", "The CI tests Python 3.9 and 3.10 only", ".github/ci.yml")
    world.code.branch("bump")
    world.code.write(".github/ci.yml", CI_YML.replace("codecov-action@v3", "codecov-action@v4"))
    world.code.write(
        "src/pool.py",
        POOL_PY.replace(
            "def prefill(pool, size):", 'def prefill(pool, size):\n    """Fill the pool."""  # docs'
        ),
    )
    world.code.commit("bump codecov, document prefill")
    ids = [n["id"] for n in world.pr()]
    assert matrix not in ids and world.symbol not in ids  # a docstring, an action's version
    world.code.write(".github/ci.yml", CI_YML.replace('"3.9", ', ""))
    world.code.commit("drop 3.9")
    why = {n["id"]: n["why"] for n in world.pr()}
    assert (
        why[matrix]
        == "anchored to .github/ci.yml, which this change modifies (the note names 3.10, 3.9)"
    )


def test_a_prose_file_names_no_changed_symbol(world: Any) -> None:
    world.code.branch("readme")
    world.code.write("README.md", "# billing\n\nprefill(pool, size) warms the pool.\n")
    world.code.commit("readme")
    assert world.mention not in [n["id"] for n in world.pr()]


def test_a_note_naming_a_changed_file_is_listed_and_one_naming_another_file_is_not(
    world: Any,
) -> None:
    world.code.write("setup.cfg", "[metadata]\nclassifiers = 3.9\n").commit("setup")
    together = world.add(
        "Versions live in two places",
        "When CI drops a Python version, drop its classifier in setup.cfg too",
    )
    other = world.add("Pin tooling", "Versions of tox plugins are pinned in tox.ini setup")
    world.code.branch("py310")
    world.code.write("setup.cfg", "[metadata]\nclassifiers = 3.10\n").commit("3.10 only")
    why = {n["id"]: n["why"] for n in world.pr()}
    assert "setup.cfg (changed file)" in why[together]
    assert other not in why  # a word of the file's name alone is not enough


def test_a_note_anchored_to_the_changed_file_is_judged_by_its_anchor_not_its_text(
    world: Any,
) -> None:
    world.code.write(".github/ci.yml", CI_YML).commit("ci")
    # its text names the file, and its anchor is that file: the anchor decides
    matrix = world.add(
        "CI matrix",
        "ci.yml tests Python 3.9 and 3.10; coverage uploads run for each",
        ".github/ci.yml",
    )
    world.code.branch("bump")
    world.code.write(".github/ci.yml", CI_YML.replace("codecov-action@v3", "codecov-action@v4"))
    world.code.commit("coverage uploads: v4 in ci.yml")
    assert matrix not in [n["id"] for n in world.pr()]


def test_an_anchor_whose_file_was_renamed_before_the_change_is_followed(world: Any) -> None:
    world.code.move("src/retry.py", "src/backoff.py").commit("retry.py is backoff.py")
    world.code.branch("cap")
    world.code.write("src/backoff.py", "def backoff(n):\n    return min(2 ** n, 60)\n")
    world.code.commit("cap the backoff")
    why = {n["id"]: n["why"] for n in world.pr()}
    assert why[world.file] == (
        "anchored to src/retry.py (now src/backoff.py), which this change modifies"
    )
    # a file of the same name elsewhere, never renamed from it, is not the anchored one
    from tests.conftest import git

    git("checkout", "-q", "main", cwd=world.code.path)
    world.code.branch("other")
    world.code.write("lib/retry.py", "LIMIT = 3\n").commit("another retry.py")
    assert world.file not in [n["id"] for n in world.pr()]


RETRY_PY = """import random


def backoff(n):
    return 2 ** n


def jitter(wait):
    return wait + random.random()


def attempts():
    return 5
"""


def test_every_note_anchored_to_a_renamed_file_at_one_commit_is_followed(world: Any) -> None:
    world.code.write("src/retry.py", RETRY_PY).commit("retry with jitter")
    # three notes anchored to one file at one commit, which is renamed before the change
    waits = world.add("Backoff doubles", "backoff waits 2 ** n seconds", "src/retry.py:backoff")
    jitter = world.add(
        "Jitter is random", "jitter adds random.random() to the wait", "src/retry.py:jitter"
    )
    tries = world.add("Five tries", "attempts allows 5 tries", "src/retry.py:attempts")
    world.code.move("src/retry.py", "src/backoff.py").commit("retry.py is backoff.py")
    world.code.branch("slower")
    slower = RETRY_PY.replace("2 ** n", "3 ** n").replace("random.random()", "random.uniform(0, 1)")
    world.code.write("src/backoff.py", slower).commit("wait longer, spread evenly")
    why = {n["id"]: n["why"] for n in world.pr()}
    assert why[waits].startswith("anchored to src/retry.py:backoff (now src/backoff.py)")
    assert why[jitter].startswith("anchored to src/retry.py:jitter (now src/backoff.py)")
    assert tries not in why  # followed too, and judged: its code is the same


# The return type on a line of its own (GNU style): a form the symbol rule does not read.
INI_C = """#define INI_MAX_LINE 200

static int
ini_parse(FILE* file)
{
    char line[INI_MAX_LINE];
    return fgets(line, INI_MAX_LINE, file) != NULL;
}
"""


def test_a_symbol_found_in_neither_version_is_judged_as_its_file(world: Any) -> None:
    world.code.write("src/ini.c", INI_C).commit("ini")
    nid = world.add("Short lines", "ini_parse reads at most INI_MAX_LINE bytes", "src/ini.c:ini_parse")  # fmt: skip
    world.code.branch("version")
    world.code.write("src/ini.c", INI_C + "\nint ini_version = 3;\n").commit("a version number")
    assert nid not in [n["id"] for n in world.pr()]  # the file changed in nothing it names
    world.code.branch("eighty")
    world.code.write("src/ini.c", INI_C.replace("fgets(line, INI_MAX_LINE", "fgets(line, 80"))
    world.code.commit("read 80 bytes")
    why = {n["id"]: n["why"] for n in world.pr()}
    assert why[nid] == (
        "anchored to src/ini.c:ini_parse, which this change modifies (the note names INI_MAX_LINE)"
    )


ITERABLE_KT = """package result

public fun <V, E> getAll(vararg results: Result<V, E>): List<V> {
    return results.asIterable().getAll()
}

public fun <V, E> Iterable<Result<V, E>>.getAll(): List<V> {
    return filterIsInstance<Ok<V>>().map { it.value }
}
"""


def test_a_change_to_the_second_overload_of_an_anchored_name_lists_its_note(world: Any) -> None:
    world.code.write("src/Iterable.kt", ITERABLE_KT).commit("iterable")
    nid = world.add(
        "getAll drops the errors",
        "getAll returns the values of the Oks with filterIsInstance and drops every Err",
        "src/Iterable.kt:getAll",
    )
    world.code.branch("filter")
    world.code.write(
        "src/Iterable.kt",
        ITERABLE_KT.replace(
            "return filterIsInstance<Ok<V>>().map { it.value }", "return filterValues()"
        ),
    )
    world.code.commit("getAll is filterValues")
    assert nid in [n["id"] for n in world.pr()]
