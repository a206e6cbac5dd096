"""``reflect-git stale`` compares what a note states with what the change touched, against
real git histories: the words of a message string are not names of the code (only a string
the note quotes, or one holding a single name or value, is), the anchored symbol's own name
says which code, not which part of it, and a value the note quotes counts as something it
states. Each with the change that must still be flagged."""

from __future__ import annotations

from tests.support.codeworld import World

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


STACK_RB = """class TimedStack
  def pop(timeout = 0.5)
    return fetch_connection if connection_stored?
    try_create
  end

  def empty?
    (@created - @que.length) >= @max
  end
end
"""


def test_the_members_a_title_names_are_what_the_note_is_about(world: World) -> None:
    world.code.write("lib/timed_stack.rb", STACK_RB).commit("stack")
    nid = world.add(
        "TimedStack#empty? means every allowed connection is checked out",
        "empty? is true when created less que.length reaches max; a fresh stack is not"
        " empty, because pop would create one",
        "lib/timed_stack.rb",
    )
    # pop, which the text names in passing, changed: not what the title is about
    world.code.write("lib/timed_stack.rb", STACK_RB.replace("0.5", "5")).commit("longer wait")
    doc = world.stale()
    assert doc["stale"] == [] and [e["id"] for e in doc["changed"]] == [nid]
    world.code.write("lib/timed_stack.rb", STACK_RB.replace(">= @max", "> @max")).commit("off")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


MARSHAL_GO = """package godotenv

func Marshal(envMap map[string]string) (string, error) {
	lines := make([]string, 0, len(envMap))
	for k, v := range envMap {
		lines = append(lines, fmt.Sprintf(`%s="%s"`, k, doubleQuoteEscape(v)))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\\n"), nil
}
"""


def test_a_line_added_as_a_variant_of_an_old_one_touches_what_differs(world: World) -> None:
    world.code.write("godotenv.go", MARSHAL_GO).commit("marshal")
    sorted_ = world.note(
        "Marshal appends one line per key and sort.Strings the lines", "godotenv.go:Marshal"
    )
    quoted = world.note("Marshal quotes every value with doubleQuoteEscape", "godotenv.go:Marshal")
    branch = MARSHAL_GO.replace(
        '\t\tlines = append(lines, fmt.Sprintf(`%s="%s"`, k, doubleQuoteEscape(v)))\n',
        "\t\tif isInt(v) {\n\t\t\tlines = append(lines, fmt.Sprintf(`%s=%s`, k, v))\n"
        "\t\t} else {\n"
        '\t\t\tlines = append(lines, fmt.Sprintf(`%s="%s"`, k, doubleQuoteEscape(v)))\n'
        "\t\t}\n",
    )
    assert branch != MARSHAL_GO
    world.code.write("godotenv.go", branch).commit("integers unquoted")
    doc = world.stale()
    # the new branch's append is the old one without doubleQuoteEscape: that note is stale;
    # the one about appending and sorting the lines is not
    assert [e["id"] for e in doc["stale"]] == [quoted]
    assert [e["id"] for e in doc["changed"]] == [sorted_]
    # a line added that is no variant of an old one counts whole
    world.code.write(
        "godotenv.go",
        branch.replace("\tsort.Strings(lines)\n", "\tsort.Strings(lines)\n\tlines = lines[:1]\n"),
    )
    world.code.commit("first only")
    assert {e["id"] for e in world.stale()["stale"]} == {quoted, sorted_}


PARSE_C = """static int parse(FILE* file, ini_handler handler, void* user)
{
    while (reader(line, file) != NULL) {
        if (*start == '[') {
            strncpy0(section, start + 1, sizeof(section));
            *prev_name = '\\0';
        }
        else if (*start) {
            value = split(start);
            name = rstrip(start);
            if (!handler(user, section, name, value) && !error)
                error = lineno;
        }
    }
    return error;
}
"""


def test_a_line_copied_from_far_away_puts_that_code_somewhere_new(world: World) -> None:
    world.code.write("ini.c", PARSE_C).commit("parser")
    nid = world.note(
        "A section with no keys never reaches the handler: handler sees section only with a name",
        "ini.c:parse",
    )
    # the handler call copied into the section branch, eight lines up: a new call there
    called = PARSE_C.replace(
        "            *prev_name = '\\0';\n",
        "            *prev_name = '\\0';\n"
        "            if (!handler(user, section, NULL, NULL) && !error)\n"
        "                error = lineno;\n",
    )
    assert called != PARSE_C
    world.code.write("ini.c", called).commit("call the handler on a new section")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and "section" in entry["anchors"][0]["names"]


MRU_PY = '''class MRUCache(Cache):
    """Most Recently Used (MRU) cache implementation."""

    def __init__(self, maxsize, getsizeof=None):
        Cache.__init__(self, maxsize, getsizeof)
        self.__order = collections.OrderedDict()
'''


def test_a_message_that_speaks_of_the_symbol_itself_is_a_change_to_it(world: World) -> None:
    world.code.write("src/cachetools/__init__.py", MRU_PY).commit("mru")
    nid = world.note(
        "MRUCache keeps a stable hit rate for cyclic scans larger than maxsize",
        "src/cachetools/__init__.py:MRUCache",
    )
    deprecated = MRU_PY.replace(
        "        Cache.__init__",
        '        warn("MRUCache is deprecated", DeprecationWarning)\n        Cache.__init__',
    )
    world.code.write("src/cachetools/__init__.py", deprecated).commit("deprecate")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and entry["anchors"][0]["names"] == ["MRUCache"]


COMPOSER_JSON = """{
  "name": "nikic/fast-route",
  "autoload": {
    "psr-4": {"FastRoute\\\\": "src/"},
    "files": ["src/functions.php"]
  },
  "require": {"php": ">=5.4.0"}
}
"""


def test_a_manifest_reflowed_and_bumped_elsewhere_is_not_what_its_note_states(
    world: World,
) -> None:
    world.code.write("composer.json", COMPOSER_JSON).commit("composer")
    nid = world.note(
        "Composer loads src/functions.php through autoload.files, as PSR-4 cannot",
        "composer.json",
    )
    # the list spread over three lines, PHP's version bumped and a package required: ``functions.php`` names a
    # file, not the ``php`` key
    reflowed = COMPOSER_JSON.replace(
        '"files": ["src/functions.php"]', '"files": [\n      "src/functions.php"\n    ]'
    ).replace('">=5.4.0"', '">=8.1.0", "psr/http-message": "^2.0"')
    world.code.write("composer.json", reflowed).commit("php 8.1")
    doc = world.stale()
    assert doc["stale"] == [] and [e["id"] for e in doc["changed"]] == [nid]
    world.code.write("composer.json", reflowed.replace("src/functions.php", "src/helpers.php"))
    world.code.commit("helpers")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid
