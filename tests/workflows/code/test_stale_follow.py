"""``reflect-git stale`` and ``pr-notes`` follow a file commit by commit, as ``git log --follow``
does: a file moved and later rewritten (which a single ``git diff -M`` of the whole range reads
as deleted) is judged at its path at HEAD; a file truly deleted, or deleted and replaced by
another, is still ``deleted``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import git, run_cli_proc
from tests.support.codeworld import World

# ``prefill`` and eleven helpers: rewriting the helpers takes the file below git's rename
# similarity while ``prefill`` stays as it was.
PREFILL = (
    "def prefill(pool, size):\n    for _ in range(size):\n        pool.add(size)\n    return pool\n"
)
HELPERS = "".join(f"\n\ndef helper_{i}(x):\n    return x + {i}\n" for i in range(11))
POOL = PREFILL + HELPERS
REWRITTEN = PREFILL + HELPERS.replace("return x + ", "return x * ").replace("(x)", "(value)")


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    w.code.write("pool.py", POOL).commit("the pool at the top")
    return w


def whole_range_status(world: World, since: str, path: str) -> str:
    out = git("diff", "--name-status", "-M", since, "HEAD", cwd=world.code.path)
    return next(line.split("\t")[0] for line in out.splitlines() if path in line.split("\t")[1:2])


def pr_notes(world: World) -> dict[str, str]:
    """``pr-notes --base main`` on the code repository's branch: each listed note's why."""
    done = run_cli_proc(
        "--kb", str(world.kb), "--json", "pr-notes", "--repo", str(world.code.path),
        "--base", "main",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return {n["id"]: n["why"] for n in json.loads(done.stdout)["notes"]}


def test_a_file_moved_then_rewritten_elsewhere_than_its_symbol_is_moved(world: World) -> None:
    nid = world.note("Prefill the pool", "pool.py:prefill")
    start = world.code.head()
    moved = world.code.move("pool.py", "lib/pool.py").commit("move into lib")
    world.code.write("lib/pool.py", REWRITTEN).commit("rewrite the helpers")
    assert whole_range_status(world, start, "pool.py") == "D"  # what one diff says
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
    [entry] = doc["moved"]
    assert entry["id"] == nid and entry["reason"] == "renamed"
    assert entry["anchors"][0]["now"] == "lib/pool.py"
    assert entry["commits"] == [moved]  # the commit that renamed it, not the rewrite


def test_a_file_moved_then_rewritten_is_changed_at_its_new_path(world: World) -> None:
    nid = world.note("Pool helpers", "pool.py")
    world.code.move("pool.py", "lib/pool.py").commit("move into lib")
    rewrite = world.code.write("lib/pool.py", REWRITTEN).commit("rewrite the helpers")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and entry["reason"] == "changed"
    assert entry["anchors"][0]["now"] == "lib/pool.py"
    assert rewrite in entry["commits"]


def test_a_symbol_gone_after_a_move_and_a_rewrite_is_symbol_gone(world: World) -> None:
    nid = world.note("Prefill the pool", "pool.py:prefill")
    world.code.move("pool.py", "lib/pool.py").commit("move into lib")
    gone = world.code.write("lib/pool.py", REWRITTEN.replace("def prefill(", "def warm(")).commit(
        "prefill is warm"
    )
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and entry["reason"] == "symbol-gone"
    assert entry["anchors"][0]["now"] == "lib/pool.py" and entry["commits"] == [gone]


def test_a_file_moved_twice_names_both_renaming_commits(world: World) -> None:
    nid = world.note("Prefill the pool", "pool.py:prefill")
    first = world.code.move("pool.py", "lib/pool.py").commit("into lib")
    world.code.write("lib/pool.py", REWRITTEN).commit("rewrite the helpers")
    second = world.code.move("lib/pool.py", "lib/billing/pool.py").commit("into the package")
    [entry] = world.stale()["moved"]
    assert entry["id"] == nid and entry["anchors"][0]["now"] == "lib/billing/pool.py"
    assert entry["commits"] == [second, first]  # newest first, as every list of commits


def test_a_deleted_file_is_deleted_and_so_is_one_replaced_by_another(world: World) -> None:
    nid = world.note("Prefill the pool", "pool.py:prefill")
    gone = world.code.delete("pool.py").commit("no pool")
    world.code.write("src/warm.py", "def warm():\n    return 'other code'\n").commit("warm")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and entry["reason"] == "deleted" and entry["commits"] == [gone]


def test_a_moved_file_deleted_then_added_again_under_that_name_is_deleted(world: World) -> None:
    nid = world.note("Pool helpers", "pool.py")
    world.code.move("pool.py", "lib/pool.py").commit("move into lib")
    gone = world.code.delete("lib/pool.py").commit("no pool")
    world.code.write("lib/pool.py", REWRITTEN).commit("a new pool, the same name")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and entry["reason"] == "deleted" and entry["commits"] == [gone]


def test_renamed_back_to_its_path_is_judged_there(world: World) -> None:
    nid = world.note("Prefill the pool", "pool.py:prefill")
    world.code.move("pool.py", "old/pool.py").commit("away")
    world.code.move("old/pool.py", "pool.py").commit("and back")
    assert nid not in {s["id"] for s in world.stale()["moved"] + world.stale()["stale"]}


def test_a_rename_merged_from_a_side_branch_is_followed(world: World) -> None:
    nid = world.note("Prefill the pool", "pool.py:prefill")
    world.code.branch("layout")
    world.code.move("pool.py", "lib/pool.py").commit("move into lib")
    git("checkout", "-q", "main", cwd=world.code.path)
    world.code.write("README.md", "# billing, the api\n").commit("meanwhile")
    git("merge", "-q", "--no-ff", "-m", "merge layout", "layout", cwd=world.code.path)
    merge = world.code.head()
    world.code.write("lib/pool.py", REWRITTEN).commit("rewrite the helpers")
    [entry] = world.stale()["moved"]
    assert entry["id"] == nid and entry["anchors"][0]["now"] == "lib/pool.py"
    assert entry["commits"] == [merge]  # on main, the merge is what renamed it


def test_a_path_with_a_space_is_followed(world: World) -> None:
    world.code.move("pool.py", "my pool.py").commit("a space")
    nid = world.note("Prefill the pool", "my pool.py:prefill")
    world.code.move("my pool.py", "src/the pool.py").commit("into lib")
    world.code.write("src/the pool.py", REWRITTEN).commit("rewrite the helpers")
    [entry] = world.stale()["moved"]
    assert entry["id"] == nid and entry["anchors"][0]["now"] == "src/the pool.py"


def test_pr_notes_finds_a_note_on_a_file_moved_and_rewritten_before_the_change(
    world: World,
) -> None:
    nid = world.add("Prefill size", "prefill adds size connections", "pool.py:prefill")
    world.code.move("pool.py", "lib/pool.py").commit("move into lib")
    world.code.write("lib/pool.py", REWRITTEN).commit("rewrite the helpers")
    world.code.branch("more")
    world.code.write("lib/pool.py", REWRITTEN.replace("range(size)", "range(size + 1)"))
    world.code.commit("prefill one more")
    assert pr_notes(world)[nid] == (
        "anchored to pool.py:prefill (now lib/pool.py), which this change modifies"
        " (the note names size)"
    )


def test_pr_notes_follows_a_deleted_files_code_into_the_file_that_took_it(
    world: World,
) -> None:
    # The file is deleted and its ``prefill`` added, as it was, to another file a commit later:
    # ``stale`` says the anchor's file is deleted (the anchor names a path that is gone), and
    # ``pr-notes`` judges the note where its code is now (MOVED: the code kept most of itself).
    nid = world.add("Prefill size", "prefill adds size connections", "pool.py:prefill")
    world.code.delete("pool.py").commit("no pool")
    world.code.write("lib/pool.py", REWRITTEN).commit("another pool")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and entry["reason"] == "deleted"
    world.code.branch("more")
    world.code.write("lib/pool.py", REWRITTEN.replace("range(size)", "range(size + 1)"))
    world.code.commit("prefill one more")
    assert pr_notes(world)[nid] == (
        "anchored to pool.py:prefill (now lib/pool.py), which this change modifies"
        " (the note names size)"
    )
