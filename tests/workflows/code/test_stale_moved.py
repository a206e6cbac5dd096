"""``reflect-git stale`` against real git histories, on work moved into or out of another
function of the same file: a helper extracted (the block now calls it) or inlined (the block
no longer calls it, and does its work itself). Each with the move that must still be flagged:
the moved code changed on the way, or the work left the block for a function it does not
call."""

from __future__ import annotations

from tests.support.codeworld import World

SELECTOR_TS = """export class Selector {
  fromDependencies(assembly: Assembly): Selector {
    const names = assembly.references();
    const assemblies = [assembly];
    for (const name of names) {
      try {
        assemblies.push(load(name));
      } catch {
        // a reference that fails to load is skipped
      }
    }
    return this.fromAssemblies(assemblies);
  }
}
"""

EXTRACTED_TS = """export class Selector {
  fromDependencies(assembly: Assembly): Selector {
    const names = assembly.references();
    const assemblies = [assembly, ...loadAll(names)];
    return this.fromAssemblies(assemblies);
  }
}

function loadAll(names: string[]): Assembly[] {
  const loaded: Assembly[] = [];
  for (const name of names) {
    try {
      loaded.push(load(name));
    } catch {
      // a reference that fails to load is skipped
    }
  }
  return loaded;
}
"""

NOTE = (
    "`fromDependencies` pushes each reference it can `load` and skips one whose `load` throws "
    "(the `catch` is empty): a missing registration may be a load failure."
)


def test_a_helper_extracted_with_the_same_lines_is_changed_elsewhere(world: World) -> None:
    world.code.write("src/selector.ts", SELECTOR_TS).commit("selector")
    nid = world.add(
        "fromDependencies skips references that fail to load",
        NOTE,
        "src/selector.ts:fromDependencies",
    )
    world.code.write("src/selector.ts", EXTRACTED_TS).commit("extract loadAll")
    doc = world.stale()
    assert doc["stale"] == [] and [e["id"] for e in doc["changed"]] == [nid]
    # the helper now pushes what another function loads: the moved code changed on the way
    rethrows = EXTRACTED_TS.replace("loaded.push(load(name))", "loaded.push(loadOrThrow(name))")
    world.code.write("src/selector.ts", rethrows).commit("load or throw")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid


def test_work_moved_to_a_function_the_block_does_not_call_is_stale(world: World) -> None:
    world.code.write("src/selector.ts", SELECTOR_TS).commit("selector")
    nid = world.add(
        "fromDependencies skips references that fail to load",
        NOTE,
        "src/selector.ts:fromDependencies",
    )
    # the loop now stands in loadAll, which fromDependencies does not call
    uncalled = EXTRACTED_TS.replace("[assembly, ...loadAll(names)]", "[assembly, ...names]")
    world.code.write("src/selector.ts", uncalled).commit("references as they are")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


NAMED = "`fromDependencies` loads each reference through `loadAll`, which skips what fails."


def test_a_helper_inlined_with_the_same_lines_is_changed_elsewhere(world: World) -> None:
    world.code.write("src/selector.ts", EXTRACTED_TS).commit("selector")
    anchor = "src/selector.ts:fromDependencies"
    nid = world.add("fromDependencies skips references that fail to load", NOTE, anchor)
    named = world.add("fromDependencies loads through loadAll", NAMED, anchor)
    # loadAll's loop taken into fromDependencies, loadAll deleted: the note naming loadAll
    # names what is gone
    world.code.write("src/selector.ts", SELECTOR_TS).commit("inline loadAll")
    doc = world.stale()
    assert [e["id"] for e in doc["stale"]] == [named]
    assert [e["id"] for e in doc["changed"]] == [nid]


def test_a_call_dropped_with_nothing_taken_in_is_stale(world: World) -> None:
    world.code.write("src/selector.ts", EXTRACTED_TS).commit("selector")
    named = world.add(
        "fromDependencies loads through loadAll", NAMED, "src/selector.ts:fromDependencies"
    )
    dropped = EXTRACTED_TS.replace("[assembly, ...loadAll(names)]", "[assembly]")
    world.code.write("src/selector.ts", dropped).commit("no dependencies")
    assert [e["id"] for e in world.stale()["stale"]] == [named]
