"""``reflect-git pr-notes`` on the kinds of change that touched what a note is about and listed
nothing (issue 35), against real git histories, each with the change of the same shape that
must still list nothing: an attribute or decorator put on the anchored symbol (``HEADER``), and
the value of a settings key the note names changed (``SETTING``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git
from tests.support.codeworld import World

DELAY_PY = """import functools

LIMIT = 60

def delay(attempt):
    return min(2 ** attempt, LIMIT)
"""

CI_YML = """name: CI
on:
  push:
  schedule:
    - cron: '0 0 * * *'
jobs:
  build-wheels:
    runs-on: ubuntu-latest
  allgood:
    needs:
    - build-wheels
    runs-on: ubuntu-latest
"""

DESCRIPTION = """Package: billing
Version: 1.0.0
Depends:
    R (>= 3.5.0)
Imports:
    graphics
"""


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    w.code.write("src/delay.py", DELAY_PY).commit("delay")
    return w


def ids(notes: list[dict[str, Any]]) -> list[str]:
    return [n["id"] for n in notes]


def fresh(world: Any, branch: str) -> None:
    git("checkout", "-q", "main", cwd=world.code.path)
    world.code.branch(branch)


def test_a_decorator_put_on_the_anchored_symbol_lists_its_note_when_described(
    world: Any,
) -> None:
    nid = world.add(
        "Retry delays are recomputed", "delay recomputes the retry wait", "src/delay.py:delay"
    )
    world.code.branch("cached")
    cached = DELAY_PY.replace("def delay", "@functools.cache\ndef delay")
    world.code.write("src/delay.py", cached).commit("Compute each retry delay once")
    notes = world.pr()
    assert ids(notes) == [nid]  # "retry", "delay": what the note says, on its symbol's decorator
    assert "not what the note states" in notes[0]["why"]
    # the same decorator, described in words the note does not state: nothing listed
    fresh(world, "plain")
    world.code.write("src/delay.py", cached).commit("Speed up the hot path")
    assert world.pr("--head", "plain") == []


def test_what_stands_above_a_symbol_but_is_not_its_code_lists_nothing(world: Any) -> None:
    world.add("Retry delays are capped", "delay caps the retry wait at LIMIT", "src/delay.py:delay")
    # a comment above the definition: no code of the symbol changed
    world.code.branch("comment")
    commented = DELAY_PY.replace("def delay", "# the retry delay, capped\ndef delay")
    world.code.write("src/delay.py", commented).commit("Say how the retry delay is capped")
    assert world.pr("--head", "comment") == []
    # the code before the definition (an assignment with no blank line after it) is not its
    # header: the symbol's code is the same, LIMIT's own line changed
    fresh(world, "before")
    world.code.write("src/delay.py", DELAY_PY.replace("LIMIT = 60\n\n", "LIMIT = 60\nSTEP = 2\n"))
    world.code.commit("Name the retry delay step")
    assert world.pr("--head", "before") == []


def test_a_settings_key_the_note_names_changed_in_its_value_lists_the_note(world: Any) -> None:
    world.code.write(".github/workflows/ci.yml", CI_YML).write("DESCRIPTION", DESCRIPTION)
    world.code.commit("ci")
    daily = world.add(
        "CI runs every day", "the workflow runs every day by cron", ".github/workflows/ci.yml"
    )
    floor = world.add(
        "Billing supports R 3.5 and later", "DESCRIPTION says Depends: R 3.5", "DESCRIPTION"
    )
    world.code.branch("weekly")
    world.code.write(".github/workflows/ci.yml", CI_YML.replace("* * *'", "* * 0'"))
    world.code.commit("Run once a week")
    notes = world.pr("--head", "weekly")
    assert ids(notes) == [daily]
    assert "the note names cron" in notes[0]["why"]
    # a value on a line of its own under the key (a list item, a continuation)
    fresh(world, "floor")
    world.code.write("DESCRIPTION", DESCRIPTION.replace("3.5.0", "3.6.0")).commit("Raise the floor")
    assert ids(world.pr("--head", "floor")) == [floor]


def test_a_settings_change_to_keys_the_note_does_not_name_lists_nothing(world: Any) -> None:
    world.code.write(".github/workflows/ci.yml", CI_YML).commit("ci")
    world.add(
        "Releases wait for every job",
        "allgood needs every job, and publishing needs allgood; the schedule runs by cron",
        ".github/workflows/ci.yml",
    )
    # another key's value: the workflow's name
    world.code.branch("named")
    world.code.write(".github/workflows/ci.yml", CI_YML.replace("name: CI", "name: Tests"))
    world.code.commit("Rename the workflow")
    assert world.pr("--head", "named") == []
    # a job renamed where it is defined and where allgood needs it: a rename, no value changed
    fresh(world, "renamed")
    world.code.write(".github/workflows/ci.yml", CI_YML.replace("build-wheels", "wheels"))
    world.code.commit("Shorter job name")
    assert world.pr("--head", "renamed") == []
    # a job added with its own needs: a new key however named, not the one the note names
    fresh(world, "added")
    docs = "  docs:\n    needs:\n    - build-wheels\n    runs-on: ubuntu-latest\n"
    world.code.write(".github/workflows/ci.yml", CI_YML + docs).commit("Build the docs")
    assert world.pr("--head", "added") == []
