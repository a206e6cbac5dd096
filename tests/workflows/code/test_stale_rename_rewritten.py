"""``reflect-git stale`` on a file git pairs as a rename while most of it was rewritten
(bats-core's ``bats-format-tap-stream`` deleted for a new ``bats-format-pretty``, paired at
53 %): code of it that changed is stale, even in lines the note does not name; a file moved
whole (git's score high) whose anchored code changed the same way is listed under ``changed``,
as before."""

from __future__ import annotations

from tests.support.coderepo import git
from tests.support.codeworld import World

SUMMARY = """import sys


def summary(count, failures):
    line = f"{count} tests, {failures} failures"
    print(line)
{flush}    return line
"""

STREAM = (
    SUMMARY.replace("{flush}", "")
    + """

def plan(total):
    print(f"1..{total}")


def passed(index, name):
    print(f"ok {index} {name}")


def failed(index, name):
    print(f"not ok {index} {name}")


def skipped(index, name, reason):
    print(f"ok {index} # skip ({reason}) {name}")
"""
)

# summary gained a line that names nothing the note states; failed and skipped gave way to one
# ``show``: git pairs the two files at 60 %
PRETTY = (
    SUMMARY.replace("{flush}", "    sys.stdout.flush()\n")
    + """

def plan(total):
    print(f"1..{total}")


def passed(index, name):
    print(f"ok {index} {name}")


def show(mark, name):
    sys.stdout.write(f" {mark} {name}\\n")
"""
)


def _note(world: World) -> str:
    world.code.write("src/stream.py", STREAM).commit("stream formatter")
    return world.add(
        "summary counts failures",
        "summary prints `count` tests and `failures`",
        "src/stream.py:summary",
    )


def test_a_file_rewritten_under_a_new_name_is_stale(world: World) -> None:
    nid = _note(world)
    world.code.delete("src/stream.py").write("src/pretty.py", PRETTY).commit("pretty formatter")
    shown = git("show", "-M", "--name-status", "--format=", "HEAD", cwd=world.code.path)
    assert shown.split()[0] == "R060"  # git pairs them, at 60 %
    doc = world.stale()
    assert [e["id"] for e in doc["stale"]] == [nid]
    assert doc["stale"][0]["anchors"][0]["reason"] == "changed"


def test_a_file_moved_whole_whose_code_changed_elsewhere_is_listed_under_changed(
    world: World,
) -> None:
    nid = _note(world)
    moved = STREAM.replace("    print(line)\n", "    print(line)\n    sys.stdout.flush()\n")
    world.code.delete("src/stream.py").write("src/tap.py", moved).commit("move")
    doc = world.stale()
    assert doc["stale"] == [] and [e["id"] for e in doc["changed"]] == [nid]
