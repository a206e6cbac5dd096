"""``reflect-git stale`` against a real git history, on types declared (issue 35, RETYPED,
``typehints.retyped``): code that only gained, changed or lost the types of its parameters,
returns and properties (PHP 8's ``string $ruleset``/``: array``, TypeScript's ``a: number``)
is listed under ``changed``, not stale; the same types beside a changed body, or a type
changed that the note names, are stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.workflows.code.test_stale import World

PROVIDER_PHP = """<?php
interface RuleProviderInterface
{
    public function getRules($ruleset);
}
"""
PROVIDER_TYPED_PHP = PROVIDER_PHP.replace("($ruleset);", "(string $ruleset): array;")
PROVIDER_MORE_PHP = PROVIDER_PHP.replace("($ruleset);", "(string $ruleset, $locale): array;")

FIND_PHP = """<?php
class Users
{
    private $cache = [];

    public function find(int $id)
    {
        return $this->cache[$id] ?? $this->load($id);
    }
}
"""
FIND_TYPED_PHP = FIND_PHP.replace("private $cache", "private array $cache").replace(
    "find(int $id)\n", "find(int $id): ?User\n"
)
STORE_PHP = """<?php
interface UserStore
{
    public function find(int $id);
}
"""
STORE_STRING_PHP = STORE_PHP.replace("find(int $id);", "find(string $id): ?User;")
FIND_CHANGED_PHP = FIND_TYPED_PHP.replace("?? $this->load($id)", "?? null")

QUEUE_TS = """export interface Queue {
  add(fn, options);
  readonly size;
}
"""
QUEUE_TYPED_TS = """export interface Queue {
  add(fn: Task, options: Options): Promise<void>;
  readonly size: number;
}
"""

CONTRACT = "A provider hands back the rules of the ruleset it is asked for, by its name."
LOOKUP = "`find` looks in the cache first and loads the user on a miss."
INTS = "`find` takes an int id: a numeric string is converted on the way in."
STORE = "A store finds a user by the id it was saved under."


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def test_types_only_added_are_changed_elsewhere_not_stale(world: World) -> None:
    world.code.write("src/RuleProviderInterface.php", PROVIDER_PHP)
    world.code.write("src/Users.php", FIND_PHP).write("src/queue.ts", QUEUE_TS).commit("code")
    contract = world.add(
        "Providers return rules", CONTRACT, "src/RuleProviderInterface.php:getRules"
    )
    lookup = world.add("Users are cached", LOOKUP, "src/Users.php")
    queue = world.add("Queue contract", "A queue runs what it is given.", "src/queue.ts:Queue")
    world.code.write("src/RuleProviderInterface.php", PROVIDER_TYPED_PHP)
    world.code.write("src/Users.php", FIND_TYPED_PHP).write("src/queue.ts", QUEUE_TYPED_TS)
    world.code.commit("PHP 8 and TypeScript types")
    doc = world.stale()
    assert doc["stale"] == []
    assert {e["id"] for e in doc["changed"]} == {contract, lookup, queue}


def test_types_beside_a_changed_body_are_stale(world: World) -> None:
    world.code.write("src/RuleProviderInterface.php", PROVIDER_PHP)
    world.code.write("src/Users.php", FIND_PHP).commit("code")
    contract = world.add(
        "Providers return rules", CONTRACT, "src/RuleProviderInterface.php:getRules"
    )
    lookup = world.add("Users are cached", LOOKUP, "src/Users.php")
    world.code.write("src/RuleProviderInterface.php", PROVIDER_MORE_PHP)
    world.code.write("src/Users.php", FIND_CHANGED_PHP).commit("types, and more")
    assert set(world.listed()) == {contract, lookup}


def test_a_type_changed_that_the_note_names_is_stale(world: World) -> None:
    world.code.write("src/UserStore.php", STORE_PHP).commit("code")
    ints = world.add("find takes an int", INTS, "src/UserStore.php:find")
    other = world.add("Users by id", STORE, "src/UserStore.php:find")
    world.code.write("src/UserStore.php", STORE_STRING_PHP).commit("string ids")
    doc = world.stale()
    assert [e["id"] for e in doc["stale"]] == [ints]
    assert doc["stale"][0]["anchors"][0]["names"] == ["int"]
    assert [e["id"] for e in doc["changed"]] == [other]
