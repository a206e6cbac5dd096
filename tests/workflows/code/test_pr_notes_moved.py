"""``reflect-git pr-notes`` on a symbol that moved out of its anchored file into one git does not
pair with it (issue 35, ``MOVED`` in ``workflows/code/change_notes.py``): the change that edits
it where it is now lists the note, whether or not it also edits the anchored file; a symbol its
anchored file still defines is not the one another file defines (``SAME_FILE``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git
from tests.support.codeworld import World

RUNNER = """#!/usr/bin/env bash
set -e

skip() {
  BATS_TEST_SKIPPED="${1:-1}"
  BATS_TEST_COMPLETED=1
  exit 0
}

run() {
  local origFlags="$-"
  set -f +eET
  output="$("$@" 2>&1)"
  status=$?
  set "-$origFlags"
}

main() {
  echo "running $1"
}

main "$@"
"""

FUNCTIONS = """#!/usr/bin/env bash

skip() {
  BATS_TEST_SKIPPED="${1:-1}"
  BATS_TEST_COMPLETED=1
  exit 0
}

run() {
  local origFlags="$-"
  set -f +eET
  output="$("$@" 2>&1)"
  status=$?
  set "-$origFlags"
}
"""

SOURCING = """#!/usr/bin/env bash
set -e

source "$BATS_ROOT/lib/functions.bash"

main() {
  echo "running $1"
}

main "$@"
"""


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    w.code.write("libexec/runner", RUNNER).commit("runner")
    w.skip = w.add(  # type: ignore[attr-defined]
        "skip ends the test with BATS_TEST_COMPLETED",
        "skip sets BATS_TEST_SKIPPED and BATS_TEST_COMPLETED, then exits 0",
        "libexec/runner:skip",
    )
    w.run = w.add(  # type: ignore[attr-defined]
        "run captures output without globbing",
        "run turns globbing off (set -f) while it captures output and status",
        "libexec/runner:run",
    )
    return w


def ids(notes: list[dict[str, Any]]) -> list[str]:
    return [n["id"] for n in notes]


def moved(world: Any) -> None:
    """The functions leave the runner for a library it sources, on main."""
    world.code.write("lib/functions.bash", FUNCTIONS)
    world.code.write("libexec/runner", SOURCING).commit("move the test functions to lib")


def test_a_symbol_moved_to_another_file_is_judged_where_the_change_touches_it(
    world: Any,
) -> None:
    moved(world)
    world.code.branch("incomplete")
    text = FUNCTIONS.replace("  BATS_TEST_COMPLETED=1\n", "", 1)  # in skip
    world.code.write("lib/functions.bash", text)
    world.code.write("libexec/runner", SOURCING.replace('echo "running', 'echo "run'))
    world.code.commit("a skipped test is not completed")  # and the runner's own main: both touched
    notes = world.pr()
    assert ids(notes) == [world.skip]
    assert notes[0]["why"].startswith(
        "anchored to libexec/runner:skip (now lib/functions.bash), which this change modifies"
    )
    # the change touches run's file elsewhere than run: its note is not listed
    assert world.run not in ids(notes)


def test_a_moved_symbol_is_judged_where_it_is_when_the_anchored_file_is_untouched(
    world: Any,
) -> None:
    moved(world)
    world.code.branch("noglob")
    world.code.write("lib/functions.bash", FUNCTIONS.replace("set -f +eET", "set +eET"))
    world.code.commit("stop turning globbing off")
    notes = world.pr()
    assert ids(notes) == [world.run]
    assert "(now lib/functions.bash)" in notes[0]["why"]


def test_a_symbol_its_anchored_file_still_defines_is_not_the_one_changed_elsewhere(
    world: Any,
) -> None:
    # a second definition of run, in a helper library; the runner keeps its own
    world.code.write("lib/functions.bash", FUNCTIONS).commit("a helper library")
    world.code.branch("helpers")
    world.code.write("lib/functions.bash", FUNCTIONS.replace("set -f +eET", "set +eET"))
    world.code.commit("stop turning globbing off in the helpers")
    assert world.pr() == []
    # nor when the change touches the runner too, elsewhere than its run
    git("checkout", "-q", "main", cwd=world.code.path)
    world.code.branch("both")
    world.code.write("lib/functions.bash", FUNCTIONS.replace("set -f +eET", "set +eET"))
    world.code.write("libexec/runner", RUNNER.replace('echo "running', 'echo "run'))
    world.code.commit("stop turning globbing off in the helpers; shorter banner")
    assert world.pr("--head", "both") == []


def test_a_definition_of_the_name_holding_little_of_the_moved_code_is_not_it(
    world: Any,
) -> None:
    moved(world)
    world.code.write("test/helper.bash", 'run() {\n  "$@"\n}\n').commit("a test stub")
    world.code.branch("stub")
    world.code.write("test/helper.bash", 'run() {\n  set -f\n  "$@"\n}\n')
    world.code.commit("the stub turns globbing off too")
    assert world.pr() == []  # the stub's run is not the runner's, moved to lib


def test_a_note_anchored_where_the_code_is_now_reads_it_not_the_one_on_where_it_was(
    world: Any,
) -> None:
    moved(world)
    now = world.add(
        "run captures output with globbing off",
        "run sets -f while it captures output and status",
        "lib/functions.bash:run",
    )
    world.code.branch("noglob")
    world.code.write("lib/functions.bash", FUNCTIONS.replace("set -f +eET", "set +eET"))
    world.code.commit("stop turning globbing off")
    assert ids(world.pr()) == [now]
