"""``reflect-git stale`` on a name renamed across its file (private fields become ECMAScript
private names: ``_paused`` to ``#isPaused``, ``this._queue`` to ``this.#queue``), against real
git histories: no note is flagged for the renaming alone; a renaming that is not consistent,
a note that states the old name, and a renaming beside a real change are still flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.codeworld import World

QUEUE_TS = """export default class PQueue {
\tprivate _queue: Queue;

\tprivate _paused: boolean;

\tprivate _pendingCount = 0;

\tconstructor() {
\t\tthis._queue = new Queue();
\t\tthis._paused = false;
\t}

\tstart(): void {
\t\tif (!this._paused) {
\t\t\treturn;
\t\t}

\t\tthis._paused = false;
\t}

\tpause(): void {
\t\tthis._paused = true;
\t}

\tget size(): number {
\t\treturn this._queue.size;
\t}

\tget pending(): number {
\t\treturn this._pendingCount;
\t}
}
"""

PRIVATE_TS = (
    QUEUE_TS.replace("private _queue", "#queue")
    .replace("private _paused", "#isPaused")
    .replace("private _pendingCount", "#pending")
    .replace("this._queue", "this.#queue")
    .replace("this._paused", "this.#isPaused")
    .replace("this._pendingCount", "this.#pending")
)


@pytest.fixture
def world(tmp_path: Path) -> World:
    world = World(tmp_path)
    world.code.write("source/index.ts", QUEUE_TS).commit("queue")
    return world


def _flagged(world: World) -> dict[str, str]:
    doc = world.stale()
    return {e["id"]: kind for kind in ("stale", "changed") for e in doc.get(kind, [])}


def test_fields_renamed_across_the_file_are_not_stale(world: World) -> None:
    pause = world.add(
        "pause() only stops new tasks from starting",
        "`pause()` sets a flag; running tasks are not interrupted, so `pending` can stay above 0.",
        "source/index.ts:pause",
    )
    size = world.add(
        "size counts waiting tasks",
        "`queue.size` is the number of tasks waiting; running ones are in `queue.pending`.",
        "source/index.ts:size",
    )
    world.code.write("source/index.ts", PRIVATE_TS).commit("use private fields")
    # (the ``private`` words dropped beside them are a change, in nothing the notes state)
    assert {pause, size}.isdisjoint(e["id"] for e in world.stale()["stale"])


def test_a_renaming_that_keeps_the_old_name_somewhere_is_a_change(world: World) -> None:
    nid = world.add(
        "pause() only stops new tasks from starting",
        "`pause()` sets a flag; running tasks are not interrupted, so `pending` can stay above 0.",
        "source/index.ts:pause",
    )
    # pause writes a new field while start still reads the old one: two fields, a real change
    half = QUEUE_TS.replace(
        "\tpause(): void {\n\t\tthis._paused = true;",
        "\tpause(): void {\n\t\tthis.#isPaused = true;",
    )
    world.code.write("source/index.ts", half).commit("half renamed")
    assert nid in _flagged(world)


def test_a_renamed_name_the_note_states_is_stale(world: World) -> None:
    nid = world.add(
        "pause() only sets _paused",
        "`pause()` sets `this._paused`; running tasks are not interrupted.",
        "source/index.ts:pause",
    )
    world.code.write("source/index.ts", PRIVATE_TS).commit("use private fields")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and "_paused" in entry["anchors"][0]["names"]


COUNTER_TS = """let _count = 0;

export function next(step: number): number {
\t_count += step;
\treturn _count;
}

export function reset(): void {
\t_count = 0;
}
"""


def test_a_renaming_beside_a_real_change_is_still_a_change(world: World) -> None:
    world.code.write("source/counter.ts", COUNTER_TS).commit("counter")
    nid = world.add(
        "next adds its step",
        "`next(step)` adds `step` to the total and returns the total.",
        "source/counter.ts:next",
    )
    renamed = COUNTER_TS.replace("_count", "total")
    world.code.write("source/counter.ts", renamed).commit("rename")
    assert nid not in _flagged(world)
    doubled = renamed.replace("total += step;", "total += step * 2;")
    world.code.write("source/counter.ts", doubled).commit("double")
    assert _flagged(world).get(nid) == "stale"
