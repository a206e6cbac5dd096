"""A report that gives each cause a section of its own, the cause in the section's heading
(issue 34, recall): "### Bug 2 (HIGH): Missing `exec` import in load-test.js", its evidence,
then "**Fix**: ...". Once the person accepts the findings ("Yes", "fix all the bugs"), each
headed cause is a note with its own section's fix; a fix offered as options, a section that
labels its cause again, or a line inside another cause's section adds none."""

from __future__ import annotations

import pytest

from reflectgit.workflows.drain.heuristic import causes, wording
from tests.workflows.drain.test_heuristic import _actions

REPORT = (
    "assistant",
    "## Audit: Findings\n"
    "### Bug 1 (HIGH): `startDate` is hardcoded to today in `Onboarding.vue`\n"
    "**File**: `src/pages/Onboarding.vue` line 62\n"
    "The onboarding never asks how long the user has been sober.\n"
    "**Fix**: Ask for the duration and compute `startDate` from it.\n"
    "---\n"
    "### Bug 2 (MEDIUM): `isFirstTime` uses `||` instead of `&&` (Secondary)\n"
    "**File**: `src/services/orchestrator.ts` line 190\n"
    "A returning user whose last session was not saved gets the introduction again.\n"
    "---\n"
    "### Bug 3 (LOW): the AppArmor profile breaks `docker compose up` on macOS\n"
    "**Fix**: Either (a) document a workaround, or (b) make the profile conditional.\n"
    "---\n"
    "Shall I fix the bugs now?",
)


def _titles(tmp_path, reply: str) -> list[str]:
    turns = [("user", "audit the onboarding against the plan"), REPORT, ("user", reply)]
    return [a["title"] for a in _actions(tmp_path, turns)]


@pytest.mark.parametrize("reply", ["Yes", "fix all the bugs, ask questions as necessary"])
def test_each_headed_cause_the_person_accepts_is_a_note_with_its_sections_fix(tmp_path, reply):
    actions = _actions(
        tmp_path, [("user", "audit the onboarding against the plan"), REPORT, ("user", reply)]
    )
    by_title = {a["title"]: a for a in actions}
    first = "`startDate` is hardcoded to today in `Onboarding.vue`: ask for the duration and"
    assert any(t.startswith(first) for t in by_title), by_title
    assert "`isFirstTime` uses `||` instead of `&&`" in by_title, "rank and label left out"
    second = by_title["`isFirstTime` uses `||` instead of `&&`"]
    assert second["fix"] == "", "no fix in its section: the first section's is not borrowed"
    assert reply[:20] in second["body"], "confirmed by the person's word"
    # a fix offered as options is a choice still open: no note
    assert not any("AppArmor" in t for t in by_title)
    # the report's own heading is no cause
    assert not any("Findings" in t for t in by_title)


@pytest.mark.parametrize("reply", ["hmm, check the logs first", "no, the onboarding is fine"])
def test_headed_causes_nobody_accepted_are_no_note(tmp_path, reply):
    assert _titles(tmp_path, reply) == []


def test_a_section_that_labels_its_cause_again_gives_one_note_not_two(tmp_path):
    report = (
        "assistant",
        "### Bug 1 (HIGH): Incorrect seccomp paths in docker-compose.yml\n"
        "Both resolve to `docker/docker/seccomp.json`, which does not exist.\n"
        "**Root cause**: the plan wrote `seccomp:./docker/seccomp.json`, relative to the "
        "repository instead of the compose file's directory.\n"
        "**Fix**: Change it to `./seccomp.json`.\n"
        "---\n"
        "Shall I fix it?",
    )
    turns = [("user", "audit the compose file"), report, ("user", "yes")]
    [action] = _actions(tmp_path, turns)
    assert action["title"].startswith("The plan wrote `seccomp:./docker/seccomp.json`")
    assert action["fix"] == "Change it to `./seccomp.json`."


def test_a_diagnosis_inside_a_headed_section_is_not_a_note_of_its_own(tmp_path):
    report = (
        "assistant",
        "### Bug 2 (HIGH): Missing `exec` import makes `load-test.js` fail\n"
        "This will throw `ReferenceError: exec is not defined` at run time.\n"
        "---\n"
        "Shall I fix it?",
    )
    turns = [("user", "audit the load test"), report, ("user", "fix them")]
    titles = [a["title"] for a in _actions(tmp_path, turns)]
    assert not any(t.startswith("This will throw") for t in titles), titles


@pytest.mark.parametrize(
    ("line", "cause"),
    [
        (
            "### Bug 2 (HIGH): Missing `exec` import in load-test.js",
            "Missing `exec` import in load-test.js",
        ),
        ("### Root Cause 1: `x` is hardcoded to today (Primary)", "`x` is hardcoded to today"),
        ("#### **Issue 3:** the cache never expires", "the cache never expires"),
        ("## Root Cause Analysis Complete", ""),
        ("### Why the user sees Day 1", ""),
        ("Bug 2: the cache never expires", ""),  # a label, not a heading: _LABELLED_CAUSE's
    ],
)
def test_headed_cause(line, cause):
    assert causes.headed_cause(line) == cause


def test_a_sections_fix_is_read_to_the_next_heading_only():
    section = ["**File**: `a.py`", "```", "x = 1", "```", "**Fix**: Set `x` to 2."]
    assert causes.section_fix(section) == "Set `x` to 2."
    assert causes.section_fix(["The cause.", "---", "**Fix**: Another section's fix."]) == ""
    assert causes.section_fix(["The cause.", "### Bug 2: next", "**Fix**: its fix."]) == ""


@pytest.mark.parametrize(
    ("reply", "confirms"),
    [
        ("fix all the bugs, ask questions as necessary", True),
        ("ok, go ahead and fix them", True),
        ("Fix the linting issues:", False),  # a new task, its problem pasted after the colon
        ("fix the login page next", False),
    ],
)
def test_asking_for_the_fix_of_what_was_found_confirms_it(reply, confirms):
    assert bool(wording._CONFIRMED.match(reply)) is confirms
