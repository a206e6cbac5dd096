"""``reflect-git stale`` compares what a note states with what the change touched, against
real git histories: the words of a message string are not names of the code (only a string
the note quotes, or one holding a single name or value, is), the anchored symbol's own name
says which code, not which part of it, and a value the note quotes counts as something it
states. Each with the change that must still be flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.workflows.code.test_stale import World

EXCEPTION_PHP = """<?php
namespace FastRoute;

class BadRouteException extends \\LogicException
{
}
"""

NAMED_PHP = """<?php
namespace FastRoute;

class BadRouteException extends \\LogicException
{
    public static function alreadyRegistered(string $route, string $method): self
    {
        return new self(sprintf('Cannot register two routes matching "%s" for "%s"', $route, $method));
    }
}
"""

COLLECTOR_PHP = """<?php
class RouteCollector
{
    public function addRoute($httpMethod, $route, $handler)
    {
        $routeDatas = $this->routeParser->parse($route);
        foreach ((array) $httpMethod as $method) {
            foreach ($routeDatas as $routeData) {
                $this->dataGenerator->addRoute($method, $routeData, $handler);
            }
        }
    }
}
"""

STD_PHP = """<?php
class Std
{
    const DEFAULT_DISPATCH_REGEX = '[^/]+';

    public function parse($route)
    {
        throw new BadRouteException('Optional segments can only occur at the end of a route');
    }
}
"""


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def test_the_words_of_a_message_string_are_not_what_a_note_states(world: World) -> None:
    world.code.write("src/BadRouteException.php", EXCEPTION_PHP).commit("exception")
    nid = world.note(
        "BadRouteException is a LogicException thrown while routes are collected",
        "src/BadRouteException.php:BadRouteException",
    )
    # a named constructor whose message says "routes": the note's word, in a message
    world.code.write("src/BadRouteException.php", NAMED_PHP).commit("named constructors")
    doc = world.stale()
    assert doc["stale"] == [] and [e["id"] for e in doc["changed"]] == [nid]
    # what the note states changed: stale
    world.code.write(
        "src/BadRouteException.php", NAMED_PHP.replace("\\LogicException", "\\RuntimeException")
    )
    world.code.commit("runtime")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and "LogicException" in entry["anchors"][0]["names"]


def test_a_message_the_note_quotes_is_what_it_states(world: World) -> None:
    world.code.write("src/Std.php", STD_PHP).commit("parser")
    nid = world.note(
        "parse throws 'Optional segments can only occur at the end of a route'",
        "src/Std.php:parse",
    )
    typed = STD_PHP.replace("parse($route)", "parse(string $route): array")
    world.code.write("src/Std.php", typed).commit("types")
    assert world.stale()["stale"] == []
    world.code.write("src/Std.php", typed.replace("can only occur", "must come"))
    world.code.commit("reword")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid


def test_a_value_the_note_quotes_counts_and_a_visibility_word_does_not(world: World) -> None:
    world.code.write("src/Std.php", STD_PHP).commit("parser")
    nid = world.note(
        "A placeholder uses DEFAULT_DISPATCH_REGEX `[^/]+`: never a slash",
        "src/Std.php:DEFAULT_DISPATCH_REGEX",
    )
    public = STD_PHP.replace("    const", "    public const")
    world.code.write("src/Std.php", public).commit("visibility")
    assert world.stale()["stale"] == []
    world.code.write("src/Std.php", public.replace("'[^/]+'", "'[^/]++'")).commit("possessive")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and entry["anchors"][0]["names"] == ['"[^/]+"']


def test_the_anchored_symbols_own_name_is_not_a_part_it_states(world: World) -> None:
    world.code.write("src/RouteCollector.php", COLLECTOR_PHP).commit("collector")
    nid = world.note(
        "addRoute casts $httpMethod with (array) and registers each method as given",
        "src/RouteCollector.php:addRoute",
    )
    # the call to the generator's addRoute gained an argument: not the cast the note states
    extra = COLLECTOR_PHP.replace("$routeData, $handler)", "$routeData, $handler, $extra)")
    world.code.write("src/RouteCollector.php", extra).commit("extra parameters")
    doc = world.stale()
    assert doc["stale"] == [] and [e["id"] for e in doc["changed"]] == [nid]
    upper = extra.replace("(array) $httpMethod", "array_map('strtoupper', (array) $httpMethod)")
    world.code.write("src/RouteCollector.php", upper).commit("upper case")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and "httpMethod" in str(entry["anchors"][0]["names"])
