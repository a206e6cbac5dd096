"""bench/stale_moves.py's ``why`` (issue 35): the check that left an anchor unflagged, read on a
real git history: another overload of the name changed while the first did not; the file not
touched at all; a note flagged says so."""

from __future__ import annotations

from pathlib import Path

from bench import stale_moves
from reflectgit.git import codebase
from reflectgit.workflows.code import staleness
from reflectgit.workflows.code.notes import anchored_notes
from tests.support.codeworld import World

BUILDER_JAVA = """package demo;

public final class Builder {
  public Builder addConstant(String name) {
    return addConstant(name, Spec.anonymous());
  }

  public Builder addConstant(String name, Spec spec) {
    checkArgument(isValid(name), "not a valid name: %s", name);
    constants.put(name, spec);
    return this;
  }

  public Builder addField(String field) {
    fields.add(field);
    return this;
  }
}
"""
# the second overload of addConstant no longer checks the name; the first is unchanged
UNCHECKED = BUILDER_JAVA.replace(
    '    checkArgument(isValid(name), "not a valid name: %s", name);\n', ""
)


def _checks(world: World) -> dict[str, str]:
    root = world.code.path
    judge = staleness._Judge(root, codebase.resolve(root, "HEAD") or "", None)
    return {
        n.id: stale_moves._check(judge, n.anchors[0], n)
        for n in anchored_notes(world.kb, project=root.name)
    }


def test_why_names_the_overload_untouched_and_flagged(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.code.write("src/Builder.java", BUILDER_JAVA).commit("builder")
    overload = world.add(
        "addConstant checks the name",
        "`addConstant(name, spec)` calls `checkArgument` on the name at once.",
        "src/Builder.java:addConstant",
    )
    field = world.add(
        "addField appends", "addField appends to `fields`", "src/Builder.java:addField"
    )
    untouched = world.add("backoff doubles", "backoff returns `2 ** n`", "src/retry.py:backoff")
    world.code.write(
        "src/Builder.java",
        UNCHECKED.replace("fields.add(field);", "fields.add(field.strip());"),
    ).commit("check names in build()")
    checks = _checks(world)
    assert checks[overload] == "overload"
    assert checks[untouched] == "untouched"
    assert checks[field] == "flagged changed"
