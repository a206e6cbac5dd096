"""``reflect-git stale`` against real git histories, on code rewritten without changing what a
note states: a test respelled (``is Ok ->`` into ``isOk ->``) or its last branch become the
default one (``is Err -> x`` into ``else -> x``), a body delegated to an overload of the same
file that holds the stated line; and code the note quotes, gone from the new version. Each
with the change that must still be flagged."""

from __future__ import annotations

from tests.support.codeworld import World

GET_KT = """package result

public infix fun <V, E> Result<V, E>.getOr(default: V): V {
    return when (this) {
        is Ok -> value
        is Err -> default
    }
}

public fun <V, E> Result<V, E>.unwrapError(): E {
    return when (this) {
        is Ok -> throw UnwrapException("called Result.unwrapError on an Ok value $value")
        is Err -> error
    }
}
"""

VALUE_CLASS_KT = """package result

public infix fun <V, E> Result<V, E>.getOr(default: V): V {
    return when {
        isOk -> value
        else -> default
    }
}

public fun <V, E> Result<V, E>.unwrapError(): E {
    return when {
        isErr -> error
        else -> throw UnwrapException("called Result.unwrapError on an Ok value $value")
    }
}
"""


def test_a_test_respelled_or_become_the_default_branch_states_the_same(world: World) -> None:
    world.code.write("src/Get.kt", GET_KT).commit("get")
    eager = world.add(
        "getOr evaluates its default eagerly",
        "`getOr(default)` returns the value of an `Ok`, else the `default`, computed before "
        "the call even for an `Ok`: use getOrElse for costly defaults.",
        "src/Get.kt:getOr",
    )
    message = world.add(
        "unwrapError's message holds the Ok value",
        '`unwrapError()` on an `Ok` throws `UnwrapException("called Result.unwrapError on '
        'an Ok value $value")`: the value ends up in logs.',
        "src/Get.kt:unwrapError",
    )
    # ``is Ok`` respelled ``isOk``, ``is Err`` become ``else`` (and put last, as it must be)
    world.code.write("src/Get.kt", VALUE_CLASS_KT).commit("value class")
    doc = world.stale()
    assert doc["stale"] == []
    assert sorted(e["id"] for e in doc["changed"]) == sorted([eager, message])
    # the branches now give what the other gave: stale
    swapped = VALUE_CLASS_KT.replace("isOk -> value\n        else -> default", "isOk -> default")
    world.code.write("src/Get.kt", swapped).commit("default first")
    assert [e["id"] for e in world.stale()["stale"]] == [eager]


def test_a_test_respelled_into_another_name_is_a_change(world: World) -> None:
    world.code.write("src/Get.kt", GET_KT).commit("get")
    nid = world.add(
        "getOr returns the default for an Err",
        "`getOr(default)` returns the value of an `Ok` and the `default` for an `Err`.",
        "src/Get.kt:getOr",
    )
    # not a respelling of ``is Ok``: another test (``isEmpty``) in its place
    world.code.write("src/Get.kt", GET_KT.replace("is Ok -> value", "isEmpty -> value"))
    world.code.commit("empty")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


AND_KT = """package result

public infix fun <V, E> Result<V, E>.and(result: Result<V, E>): Result<V, E> {
    return when (this) {
        is Ok -> result
        is Err -> this
    }
}
"""


def test_code_the_note_quotes_gone_from_the_new_version_is_a_change(world: World) -> None:
    world.code.write("src/And.kt", AND_KT).commit("and")
    nid = world.add(
        "and() keeps the receiver's value type",
        "`a and b` is typed `Result<V, E>.and(result: Result<V, E>)`: both sides share one "
        "value type.",
        "src/And.kt:and",
    )
    # the body only respelled: the quoted signature stands
    restated = AND_KT.replace("when (this)", "when").replace("is Ok", "isOk")
    world.code.write("src/And.kt", restated.replace("is Err", "else")).commit("value class")
    assert world.stale()["stale"] == []
    # the signature the note quotes is gone (a second value type): stale, though a
    # signature's types alone are no change
    generic = restated.replace("is Err", "else").replace(
        "<V, E> Result<V, E>.and(result: Result<V, E>): Result<V, E>",
        "<V, E, U> Result<V, E>.and(result: Result<U, E>): Result<U, E>",
    )
    world.code.write("src/And.kt", generic).commit("any value type")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and "result" in entry["anchors"][0]["names"]


SELECTOR_CS = """namespace Scrutor
{
    public class ServiceTypeSelector
    {
        public ILifetimeSelector AsSelfWithInterfaces()
        {
            return AddSelector(
                Types.Select(t => new TypeMap(t, new[] { t })),
                Types.Select(t => new TypeFactoryMap(x => x.GetRequiredService(t), Interfaces(t))));
        }
    }
}
"""

DELEGATED_CS = """namespace Scrutor;

public class ServiceTypeSelector
{
    public ILifetimeSelector AsSelfWithInterfaces()
    {
        return AsSelfWithInterfaces(_ => true);
    }

    public ILifetimeSelector AsSelfWithInterfaces(Func<Type, bool> predicate)
    {
        Preconditions.NotNull(predicate, nameof(predicate));

        return AddSelector(
            Types.Select(t => new TypeMap(t, [t])),
            Types.Select(t => new TypeFactoryMap(x => x.GetRequiredService(t), Interfaces(t, predicate))));
    }
}
"""


def test_a_body_delegated_to_an_overload_holding_the_stated_line_is_not_a_change(
    world: World,
) -> None:
    world.code.write("src/ServiceTypeSelector.cs", SELECTOR_CS).commit("selector")
    nid = world.add(
        "AsSelfWithInterfaces forwards interfaces to one registration",
        "`AsSelfWithInterfaces()` registers each interface as a factory calling "
        "`GetRequiredService(class)`: one instance for all of them.",
        "src/ServiceTypeSelector.cs:AsSelfWithInterfaces",
    )
    world.code.write("src/ServiceTypeSelector.cs", DELEGATED_CS).commit("predicate overload")
    doc = world.stale()
    assert doc["stale"] == [] and [e["id"] for e in doc["changed"]] == [nid]
    # the overload no longer calls what the note states: stale
    world.code.write(
        "src/ServiceTypeSelector.cs",
        DELEGATED_CS.replace("x.GetRequiredService(t)", "x.GetService(t)"),
    ).commit("optional")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and "GetRequiredService" in entry["anchors"][0]["names"]


COLLECTOR_PHP = """<?php
class RouteCollector
{
    public function getData()
    {
        return $this->dataGenerator->getData();
    }
}
"""

HELPER_PHP = """<?php
class RouteCollector
{
    public function processedRoutes(): array
    {
        $data = $this->dataGenerator->getData();
        $data[] = $this->namedRoutes;

        return $data;
    }

    public function getData(): array
    {
        return $this->processedRoutes();
    }
}
"""


def test_a_returned_value_become_a_helpers_variable_is_a_change(world: World) -> None:
    world.code.write("src/RouteCollector.php", COLLECTOR_PHP).commit("collector")
    nid = world.add(
        "getData returns the data generator's data unchanged",
        "getData returns `$this->dataGenerator->getData()` as is.",
        "src/RouteCollector.php:getData",
    )
    # the stated call moved into a helper, which no longer returns it as is
    world.code.write("src/RouteCollector.php", HELPER_PHP).commit("named routes")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


PARSE_C = """static int ini_parse_stream(ini_reader reader, void* stream, ini_handler handler)
{
    char line[INI_MAX_LINE];
    int lineno = 0;
    int error = 0;
    char* start;

    while (reader(line, INI_MAX_LINE, stream) != NULL) {
        lineno++;

        start = line;
#if INI_ALLOW_BOM
        if (lineno == 1 && (unsigned char)start[0] == 0xEF) {
            start += 3;
        }
#endif
        start = lskip(rstrip(start));

        if (*start == ';' || *start == '#') {
            /* a comment */
        }
        else if (*start == '[') {
            handler(user, section, NULL, NULL);
        }
        else if (*start) {
            error = lineno;
        }
    }
    return error;
}
"""


def test_a_long_block_is_judged_around_the_code_its_note_quotes(world: World) -> None:
    world.code.write("ini.c", PARSE_C).commit("parser")
    nid = world.add(
        "The BOM is skipped only on the first line",
        "ini_parse_stream skips 0xEF only when `lineno == 1`, so a BOM later in the file "
        "becomes part of a section name or an error line.",
        "ini.c:ini_parse_stream",
    )
    # far from the quoted check, lines naming ``section``, ``error`` and ``lineno`` changed
    elsewhere = PARSE_C.replace(
        "            error = lineno;\n",
        "            if (!error)\n                error = lineno;\n",
    ).replace("handler(user, section, NULL, NULL);", "if (!handler(user, section, NULL, NULL))")
    world.code.write("ini.c", elsewhere).commit("first error, handler result")
    doc = world.stale()
    assert doc["stale"] == [] and [e["id"] for e in doc["changed"]] == [nid]
    # the quoted check's own line changed (the byte it compares): stale
    world.code.write("ini.c", elsewhere.replace("== 0xEF", "== 0xBB")).commit("byte")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid
    # and without a quote, the same change far away is judged as before: stale
    other = world.add(
        "Errors keep the line number",
        "ini_parse_stream returns the lineno of an error line.",
        "ini.c:ini_parse_stream",
    )
    world.code.write("ini.c", elsewhere.replace("error = lineno;", "error = -1;")).commit("-1")
    assert other in [e["id"] for e in world.stale()["stale"]]


CONF_PY = """def get_version():
    import configparser
    import pathlib

    cp = configparser.ConfigParser()
    cp.read(str(pathlib.Path(__file__).parent.parent / "setup.cfg"))
    return cp["metadata"]["version"]
"""


def test_a_call_taken_off_a_value_touched_that_call_alone(world: World) -> None:
    world.code.write("docs/conf.py", CONF_PY).commit("conf")
    nid = world.add(
        "The docs read the version from setup.cfg",
        "docs/conf.py get_version parses setup.cfg with ConfigParser: the version is written once.",
        "docs/conf.py:get_version",
    )
    # ``str(...)`` taken off the path: the line still reads "setup.cfg"
    unwrapped = CONF_PY.replace(
        'str(pathlib.Path(__file__).parent.parent / "setup.cfg")',
        ('pathlib.Path(__file__).parent.parent / "setup.cfg"'),
    )
    world.code.write("docs/conf.py", unwrapped).commit("no str()")
    doc = world.stale()
    assert doc["stale"] == [] and [e["id"] for e in doc["changed"]] == [nid]
    # the file it reads is another: stale
    world.code.write("docs/conf.py", unwrapped.replace('"setup.cfg"', '"pyproject.toml"'))
    world.code.commit("pyproject")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and entry["anchors"][0]["names"] == ['"setup.cfg"']
