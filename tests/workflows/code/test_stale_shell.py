"""``reflect-git stale`` on shell functions the symbol finder did not read before, against real
git histories: a function whose body is on its line (``log() { echo "$*" >&2; }``), one whose
``{`` opens on the line after its name (``setup()`` then ``{``), and a ``local x=0``, which
gives a function a variable of its own and defines no ``x`` (a note on the script's global
``x`` is on the global). Each with the change that must still be flagged, and the look-alikes
that define nothing (a call, a name followed by no brace, Lua's ``local``)."""

from __future__ import annotations

import pytest

from reflectgit.notes import anchors
from tests.support.codeworld import World

TOOL = """#!/usr/bin/env bash
set -euo pipefail

log() { echo "tool: $*" >&2; }

setup()
{
  mkdir -p build
  log "ready"
}

emit() {
  local level=info
  log "$level: $*"
}

build() {
  setup
  make all
}

level=warn
"""


def _ids(entries: list[dict[str, object]]) -> list[str]:
    return [str(e["id"]) for e in entries]


@pytest.mark.parametrize(
    ("title", "insight", "symbol", "old", "new"),
    [
        # a one-line function: its own line changed what the note states
        (
            "log goes to stderr",
            "log writes to stderr (>&2), prefixed tool:",
            "log",
            " >&2; }",
            "; }",
        ),
        # a function whose brace opens on the next line
        (
            "setup makes build/",
            "setup creates the build folder with mkdir -p",
            "setup",
            "mkdir -p build",
            "mkdir -p out",
        ),
    ],
    ids=["one-line", "brace-on-next-line"],
)
def test_a_shell_function_is_its_own_code(
    world: World, title: str, insight: str, symbol: str, old: str, new: str
) -> None:
    world.code.write("bin/tool.sh", TOOL).commit("tool")
    nid = world.add(title, insight, f"bin/tool.sh:{symbol}")
    # another function changed: nothing of this one
    world.code.write("bin/tool.sh", TOOL.replace("make all", "make release")).commit("release")
    doc = world.stale()
    assert nid not in _ids(doc["stale"]) and nid not in _ids(doc["changed"])
    world.code.write("bin/tool.sh", TOOL.replace(old, new)).commit("changed")
    assert _ids(world.stale()["stale"]) == [nid]


def test_a_local_variable_is_not_the_global_of_its_name(world: World) -> None:
    world.code.write("bin/tool.sh", TOOL).commit("tool")
    nid = world.add("the default level is warn", "level is warn unless set", "bin/tool.sh:level")
    # the function's own ``local level`` changed: not the global the note is on
    world.code.write("bin/tool.sh", TOOL.replace("local level=info", "local level=debug")).commit(
        "debug"
    )
    doc = world.stale()
    assert nid not in _ids(doc["stale"]) and nid not in _ids(doc["changed"])
    world.code.write("bin/tool.sh", TOOL.replace("level=warn", "level=error")).commit("error")
    assert _ids(world.stale()["stale"]) == [nid]


def test_shell_look_alikes_define_nothing() -> None:
    # a call with nothing after it, a name whose next line opens no body, a call in a body
    script = 'main() {\n  run "$@"\n}\n\nmain()\necho done\nrun()\n'
    assert anchors.definitions(script, "main", "bin/x.sh") == ['main() {\n  run "$@"\n}\n']
    assert anchors.definitions(script, "run", "bin/x.sh") == []
    assert anchors.symbol_block('cleanup() { rm -rf "$tmp"; }\n', "cleanup", "x.sh") is not None
    # a body without a command's end before its ``}`` is no shell one-liner
    assert anchors.symbol_block("  render() { x }\n", "render", "x.sh") is None
    # Lua's ``local x = 0`` is a definition; a shell's only at the script's own level
    assert anchors.symbol_block("local limit = 3\nreturn limit\n", "limit", "m.lua") is not None
    assert anchors.symbol_block("f() {\n  local limit=3\n}\n", "limit", "x.sh") is None
    assert anchors.symbol_block("f() {\n  :\n}\nlimit=3\n", "limit", "x.sh") == "limit=3\n"
