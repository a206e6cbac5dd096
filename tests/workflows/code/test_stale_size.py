"""How much of a note's code changed: ``stale`` says it in each entry's label and, under
``--json``, as ``lines: {changed, of}`` beside the fields it always had."""

from __future__ import annotations

import os

import yaml

from reflectgit.workflows.code.labels import flagged_label
from tests.conftest import run_cli_proc
from tests.support.codeworld import World


def test_a_stale_entry_says_how_many_lines_of_its_code_changed(world: World) -> None:
    nid = world.note("Prefill the pool", "src/pool.py:prefill")
    pool = (world.code.path / "src/pool.py").read_text()
    # one line of the four changed; a comment and a blank line added are no lines of code
    changed = pool.replace("    return pool\n", "    # ready\n\n    return pool.ready()\n")
    world.code.write("src/pool.py", changed).commit("ready")
    doc = world.stale()
    [entry] = doc["stale"]
    assert entry["id"] == nid and entry["reason"] == "changed"
    assert set(entry) >= {"id", "reason", "commits"}  # the shape it always had
    assert entry["lines"] == {"changed": 1, "of": 4}
    assert entry["anchors"][0]["lines"] == {"changed": 1, "of": 4}
    assert entry["label"] == "stale: the code it names changed in 1 commit since (1 of 4 lines)"
    done = run_cli_proc("--kb", str(world.kb), "stale", cwd=world.code.path)
    assert f"{nid}  stale: the code it names changed in 1 commit since (1 of 4 lines)" in (
        done.stdout
    )


def test_lines_sum_over_a_notes_anchors_and_each_anchor_says_its_own(world: World) -> None:
    nid = world.note("Prefill and back off", "src/pool.py:prefill", "src/retry.py:backoff")
    pool = (world.code.path / "src/pool.py").read_text()
    world.code.write("src/pool.py", pool.replace("range(size)", "range(size * 2)"))
    world.code.write("src/retry.py", "def backoff(n):\n    return 3 ** n\n").commit("both")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid
    assert [a["lines"] for a in entry["anchors"]] == [
        {"changed": 1, "of": 4},
        {"changed": 1, "of": 2},
    ]
    assert entry["lines"] == {"changed": 2, "of": 6}
    done = run_cli_proc("--kb", str(world.kb), "stale", cwd=world.code.path)
    assert "    src/pool.py:prefill: changed, 1 of 4 lines" in done.stdout
    assert "    src/retry.py:backoff: changed, 1 of 2 lines" in done.stdout


def test_no_lines_where_no_code_was_compared(world: World) -> None:
    gone = world.note("Backoff doubles", "src/retry.py")
    moved = world.note("Pool prefill", "src/pool.py")
    world.code.delete("src/retry.py").commit("drop retries")
    world.code.move("src/pool.py", "lib/pool.py").commit("move the pool")
    doc = world.stale()
    [deleted] = doc["stale"]
    [renamed] = doc["moved"]
    assert (deleted["id"], renamed["id"]) == (gone, moved)
    for entry in (deleted, renamed):
        assert "lines" not in entry and "lines" not in entry["anchors"][0]
        assert " of " not in entry["label"].split("(")[-1]
    assert deleted["label"] == "stale: the file it names (src/retry.py) was deleted"


def test_a_proposal_carries_the_lines_and_its_label_says_them(world: World) -> None:
    nid = world.note("Prefill the pool", "src/pool.py:prefill")
    pool = (world.code.path / "src/pool.py").read_text()
    world.code.write("src/pool.py", pool.replace("return pool\n", "return pool.ready()\n"))
    world.code.commit("ready")
    [proposal] = world.stale("--propose")["proposed"]
    assert proposal["id"] == nid
    from reflectgit.config import resolve_state_dir

    [proposed] = (resolve_state_dir(world.kb, os.environ) / "stale-proposals").glob("*.md")
    front = yaml.safe_load(proposed.read_text().split("---\n")[1])
    assert front["stale"]["lines"] == {"changed": 1, "of": 4}
    assert flagged_label(front) == (
        "stale: the code it names changed in 1 commit since (1 of 4 lines)"
    )


def test_a_flag_without_lines_or_with_bad_ones_is_labelled_as_before() -> None:
    flag = {"reason": "changed", "head": "abc", "commits": ["a", "b"]}
    before = "stale: the code it names changed in 2 commits since"
    assert flagged_label({"stale": flag}) == before
    for bad in ({"changed": "3", "of": 4}, {"changed": 3}, [3, 4], True):
        assert flagged_label({"stale": {**flag, "lines": bad}}) == before
    assert flagged_label({"stale": {**flag, "lines": {"changed": 3, "of": 1}}}) == (
        "stale: the code it names changed in 2 commits since (3 of 1 line)"
    )
