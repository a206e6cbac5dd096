"""``reflect-git stale`` on the kinds of change that flagged nearly every fresh note of Ruby
and PHP histories, against real git histories, each with the change that must still be
flagged: a signature that only gained types, keyword arguments or a visibility word (a
parameter the note states, or the type a body-less declaration returns, still counts), a
change of quote style or of Ruby's ``do ... end`` to braces, and a change to another
paragraph of a whole file the note is anchored to (a README section, a changelog entry)."""

from __future__ import annotations

from tests.support.codeworld import World

COLLECTOR_PHP = """<?php
namespace FastRoute;

class RouteCollector
{
    public function addGroup($prefix, callable $callback)
    {
        $previousGroupPrefix = $this->currentGroupPrefix;
        $this->currentGroupPrefix = $previousGroupPrefix . $prefix;
        $callback($this);
        $this->currentGroupPrefix = $previousGroupPrefix;
    }

    public function getData()
    {
        return $this->dataGenerator->getData();
    }
}
"""

DISPATCHER_PHP = """<?php
namespace FastRoute;

interface Dispatcher
{
    const NOT_FOUND = 0;

    public function dispatch($httpMethod, $uri);
}
"""

POOL_RB = """class ConnectionPool
  def checkout(options = {})
    if ::Thread.current[@key]
      ::Thread.current[@key_count] += 1
      ::Thread.current[@key]
    else
      ::Thread.current[@key] = @available.pop(options[:timeout] || @timeout)
    end
  end

  def start_workers
    @threads = 2.times.map do |i|
      Thread.new do
        puts 'worker', i
      end
    end
  end
end
"""

README = """# pool

A generic connection pool for Ruby.

## Usage

Create a pool of Redis clients and check connections out with `with`.

## Notes

Don't ever use Timeout.timeout in code that uses the pool: it breaks connections.
"""


def test_a_signature_that_only_gained_types_is_not_stale(world: World) -> None:
    world.code.write("src/RouteCollector.php", COLLECTOR_PHP).commit("collector")
    nid = world.note(
        "addGroup appends $prefix and restores currentGroupPrefix without try/finally",
        "src/RouteCollector.php:addGroup",
    )
    typed = COLLECTOR_PHP.replace(
        "public function addGroup($prefix, callable $callback)",
        "public function addGroup(string $prefix, callable $callback): void",
    )
    world.code.write("src/RouteCollector.php", typed).commit("types")
    doc = world.stale()
    assert doc["stale"] == [] and [e["id"] for e in doc["changed"]] == [nid]
    # the parameter the note states is gone: stale
    dropped = typed.replace("string $prefix, callable", "callable").replace(" . $prefix", "")
    world.code.write("src/RouteCollector.php", dropped).commit("no prefix")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and "$prefix" in entry["anchors"][0]["names"]


def test_a_body_less_declaration_is_compared_as_any_code(world: World) -> None:
    world.code.write("src/Dispatcher.php", DISPATCHER_PHP).commit("dispatcher")
    nid = world.note(
        "dispatch returns an array whose first element is NOT_FOUND or FOUND",
        "src/Dispatcher.php:dispatch",
    )
    commented = DISPATCHER_PHP.replace(
        "    public function", "    /** Dispatches. */\n    public function"
    )
    world.code.write("src/Dispatcher.php", commented).commit("doc comment")
    assert world.stale()["stale"] == []
    # an interface's method is all signature: what it returns changed, and it is stale
    returns = commented.replace("$uri);", "$uri): Matched|NotMatched;")
    world.code.write("src/Dispatcher.php", returns).commit("result objects")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


def test_a_ruby_method_changed_only_in_its_keyword_arguments_is_not_stale(world: World) -> None:
    world.code.write("lib/connection_pool.rb", POOL_RB).commit("pool")
    nid = world.note(
        "checkout is reentrant: Thread.current[@key] holds the connection, @key_count counts",
        "lib/connection_pool.rb:checkout",
    )
    keywords = POOL_RB.replace("def checkout(options = {})", "def checkout(**)")
    world.code.write("lib/connection_pool.rb", keywords).commit("keywords")
    assert world.stale()["stale"] == []
    # the branch the note states changed: stale
    counted = keywords.replace("[@key_count] += 1", "[@key_count] += 2")
    world.code.write("lib/connection_pool.rb", counted).commit("count twice")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and "key_count" in entry["anchors"][0]["names"]


def test_quote_style_and_do_end_to_braces_are_no_change(world: World) -> None:
    world.code.write("lib/connection_pool.rb", POOL_RB).commit("pool")
    nid = world.note(
        "start_workers starts two Thread workers that print worker",
        "lib/connection_pool.rb:start_workers",
    )
    styled = POOL_RB.replace(
        "    @threads = 2.times.map do |i|\n      Thread.new do\n        puts 'worker', i\n"
        "      end\n    end\n",
        '    @threads = 2.times.map { |i|\n      Thread.new { puts "worker", i }\n    }\n',
    )
    assert styled != POOL_RB
    world.code.write("lib/connection_pool.rb", styled).commit("standardrb")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
    # what the string says changed: stale
    world.code.write("lib/connection_pool.rb", styled.replace('"worker"', '"thread"'))
    world.code.commit("rename the output")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


def test_a_change_to_another_paragraph_of_a_whole_file_is_not_stale(world: World) -> None:
    world.code.write("README.md", README).commit("readme")
    nid = world.note(
        "The README warns: never use Timeout.timeout with the pool, it breaks connections",
        "README.md",
    )
    usage = README.replace(
        "check connections out with `with`.",
        "check connections out with `with`; the pool hands them back after the block.",
    )
    world.code.write("README.md", usage).commit("usage")
    doc = world.stale()
    # the usage section holds "connections" and "pool" too, but it is not what the note states
    assert doc["stale"] == [] and [e["id"] for e in doc["changed"]] == [nid]
    warned = usage.replace("it breaks connections", "it can leave connections half-read")
    world.code.write("README.md", warned).commit("notes")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid


def test_a_string_swapped_touches_only_what_it_says(world: World) -> None:
    world.code.write("lib/version.rb", 'class ConnectionPool\n  VERSION = "2.2.0"\nend\n')
    world.code.commit("version")
    reopens = world.note("version.rb reopens class ConnectionPool to set VERSION", "lib/version.rb")
    pinned = world.note("VERSION is 2.2.0 in lib/version.rb", "lib/version.rb")
    world.code.write("lib/version.rb", 'class ConnectionPool\n  VERSION = "3.0.2"\nend\n')
    world.code.commit("bump")
    doc = world.stale()
    # the line holds VERSION, but only the string changed on it: the note that states it is stale
    assert [e["id"] for e in doc["stale"]] == [pinned]
    assert [e["id"] for e in doc["changed"]] == [reopens]


def test_a_keyword_label_put_before_an_argument_touches_only_the_label(world: World) -> None:
    test_rb = "def test_object_creation_fails\n  stack = TimedStack.new(2) { raise 'eek' }\nend\n"
    world.code.write("test/test_stack.rb", test_rb).commit("test")
    nid = world.note(
        "test_object_creation_fails: a stack of 2 whose block raises",
        "test/test_stack.rb:test_object_creation_fails",
    )
    world.code.write("test/test_stack.rb", test_rb.replace("new(2)", "new(size: 2)"))
    world.code.commit("keyword form")
    assert world.stale()["stale"] == []
    world.code.write("test/test_stack.rb", test_rb.replace("new(2)", "new(size: 3)"))
    world.code.commit("three")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


def test_punctuation_of_prose_is_no_change(world: World) -> None:
    world.code.write("README.md", README).commit("readme")
    nid = world.note("The README says Timeout.timeout breaks pool connections", "README.md")
    world.code.write("README.md", README.replace("uses the pool: it", "uses the pool; it"))
    world.code.commit("punctuation")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
    world.code.write(
        "README.md", README.replace("it breaks connections", "it may break connections")
    )
    world.code.commit("softer")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


NOTES_README = """# pool

A generic connection pool for Ruby.

## Notes

- Connections are lazily created as needed.
- There is no provision for repairing or checking the health of a connection;
  connections should be self-repairing. This is true of the Dalli and Redis
  clients.
- WARNING: Don't ever use Timeout.timeout in your Ruby code or you will see
  occasional silent corruption. The Timeout API cannot be used correctly, ever.
  Use the socket timeouts of Net::HTTP, Redis, Dalli.
"""


def test_prose_reworded_around_the_words_a_note_states_is_no_change(world: World) -> None:
    world.code.write("README.md", NOTES_README).commit("readme")
    warning = world.add(
        "Never wrap pool code in Timeout.timeout",
        "The README warns against Timeout.timeout: use the socket timeouts of Net::HTTP, Redis,"
        " Dalli.",
        "README.md",
    )
    health = world.add(
        "The pool does not check the health of a connection",
        "As the README says, there is no provision for checking or repairing a connection;"
        " use clients that reconnect (Redis, Dalli).",
        "README.md",
    )
    softer = NOTES_README.replace("Don't ever use", "Avoid").replace(
        "cannot be used correctly, ever", "is dangerous to use"
    )
    world.code.write("README.md", softer).commit("softer wording")
    # the warning's item was reworded in words neither note states
    doc = world.stale()
    assert doc["stale"] == []
    # the item the second note is about is removed: it is stale, the warning note is not
    gone = softer.replace(softer[softer.index("- There is") : softer.index("- WARNING")], "")
    world.code.write("README.md", gone).commit("drop the health note")
    assert [e["id"] for e in world.stale()["stale"]] == [health]
    # a word the warning note states taken out of its item: stale
    world.code.write("README.md", gone.replace("Net::HTTP, Redis, Dalli", "your client"))
    world.code.commit("no client names")
    assert {e["id"] for e in world.stale()["stale"]} == {health, warning}


LICENSE = """MIT License

Copyright (c) Sindre Sorhus <sindresorhus@gmail.com> (sindresorhus.com)

Permission is hereby granted, free of charge, to any person obtaining a copy of this software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.
"""


def test_a_licence_link_become_https_is_no_change_its_holder_is(world: World) -> None:
    world.code.write("license", LICENSE).commit("licence")
    nid = world.add(
        "p-queue is MIT licensed",
        "p-queue is under the MIT licence (Sindre Sorhus): we may vendor it.",
        "license",
    )
    https = LICENSE.replace("(sindresorhus.com)", "(https://sindresorhus.com)")
    world.code.write("license", https).commit("meta tweaks")
    doc = world.stale()
    assert doc["stale"] == [] and [e["id"] for e in doc["changed"]] == [nid]
    world.code.write("license", https.replace("Sindre Sorhus", "Jane Roe")).commit("new holder")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


def test_a_negation_the_note_states_removed_from_prose_is_a_change(world: World) -> None:
    readme = (
        "# pool\n\nUsage first.\n\n## Threads\n\nThe pool is not fork-safe: reopen it after fork.\n"
    )
    world.code.write("README.md", readme).commit("readme")
    nid = world.add(
        "The pool is not fork-safe",
        "The README says the pool is not fork-safe; reopen it after fork.",
        "README.md",
    )
    world.code.write("README.md", readme.replace("is not fork-safe", "is fork-safe"))
    world.code.commit("fork support")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


MAP_KT = """package result

/**
 * Maps this [Result] with [transform].
 */
public inline infix fun <V, E, U> Result<V, E>.map(transform: (V) -> U): Result<U, E> {
    return andThen { Ok(transform(it)) }
}

public inline infix fun <V, E, U> Result<V, E>.flatMap(transform: (V) -> Result<U, E>): Result<U, E> {
    return andThen(transform)
}

public fun <V, E> Result<V, E>.mapError(): Result<V, E> = this
"""


def test_a_kotlin_function_moved_within_its_file_is_compared_where_it_now_is(world: World) -> None:
    world.code.write("src/Map.kt", MAP_KT).commit("map")
    nid = world.note("flatMap just calls andThen(transform)", "src/Map.kt:flatMap")
    flat = MAP_KT[MAP_KT.index("public inline infix fun <V, E, U> Result<V, E>.flatMap") :]
    flat = flat[: flat.index("public fun")]
    moved = MAP_KT.replace(flat, "") + "\n/**\n * See [andThen] and [Either.flatMap].\n */\n" + flat
    world.code.write("src/Map.kt", moved).commit("move flatMap to the end, with a kdoc")
    assert world.stale()["stale"] == []
    # its body changed what the note states: stale
    world.code.write("src/Map.kt", moved.replace("andThen(transform)", "mapBoth(transform)"))
    world.code.commit("flatMap maps both")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid


PRECONDITIONS_CS = """namespace Scrutor
{
    internal static class Preconditions
    {
        public static string NotEmpty(string value, [NotNull] string parameterName)
        {
            if (value.Length == 0)
            {
                throw new ArgumentException("String value cannot be null.", parameterName);
            }

            return value;
        }

        public static TEnum IsDefined<TEnum>(TEnum value, [NotNull] string parameterName)
        {
            return value;
        }
    }
}
"""


def test_a_file_scoped_namespace_and_an_annotation_dropped_are_not_stale(world: World) -> None:
    world.code.write("src/Preconditions.cs", PRECONDITIONS_CS).commit("preconditions")
    nid = world.note(
        'NotEmpty throws ArgumentException("String value cannot be null.") for an empty value',
        "src/Preconditions.cs:NotEmpty",
    )
    body = PRECONDITIONS_CS.split("{\n", 1)[1].rsplit("}\n", 1)[0]
    scoped = "namespace Scrutor;\n\n" + "\n".join(
        line[4:] for line in body.replace("[NotNull] ", "").split("\n")
    )
    world.code.write("src/Preconditions.cs", scoped).commit("file-scoped namespace, no NotNull")
    assert world.stale()["stale"] == []
    # the message the note states changed: stale
    fixed = scoped.replace("cannot be null.", "cannot be empty.")
    world.code.write("src/Preconditions.cs", fixed).commit("message")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid


QUEUE_TS = """export default class PQueue {
\tconstructor(options?: Options) {
\t\tif (!(options.intervalCap >= 1)) {
\t\t\tthrow new TypeError('Expected intervalCap to be a number from 1 and up');
\t\t}
\t}

\tasync add<T>(function_: Task<T>, options?: AddOptions): Promise<T>;
\tasync add<T>(function_: Task<T>, options: AddOptions = {}): Promise<T> {
\t\treturn this.run(function_, options);
\t}

\tstart(): void {
\t\tthis.paused = false;
\t}
}
"""


def test_a_typescript_constructor_and_overloads_are_read_as_their_own_code(world: World) -> None:
    world.code.write("source/index.ts", QUEUE_TS).commit("queue")
    ctor = world.note(
        "The constructor throws a TypeError when intervalCap < 1", "source/index.ts:constructor"
    )
    add = world.note("add passes its options to run", "source/index.ts:add")
    # a method added after them and a change to start: neither note's code changed
    grown = QUEUE_TS.replace(
        "\tstart(): void {\n\t\tthis.paused = false;",
        "\tstart(): this {\n\t\tthis.paused = false;\n\t\treturn this;",
    )
    world.code.write("source/index.ts", grown).commit("chainable start")
    assert world.stale()["stale"] == []
    # an overload removed is a change to add; the constructor's check changed is a change to it
    one = grown.replace(
        "\tasync add<T>(function_: Task<T>, options?: AddOptions): Promise<T>;\n", ""
    )
    world.code.write("source/index.ts", one.replace(">= 1", ">= 0")).commit("one signature")
    assert {e["id"] for e in world.stale()["stale"]} == {ctor, add}
    # the method removed: its symbol is gone
    gone = one.replace("add<T>(function_", "enqueue<T>(function_")
    world.code.write("source/index.ts", gone).commit("renamed add")
    listed = world.listed()
    assert listed[add]["reason"] == "symbol-gone"


def test_a_ruby_reader_become_attr_reader_is_the_same_symbol(world: World) -> None:
    pool = "class ConnectionPool\n  def size\n    @size\n  end\n\n  def available\n    @available.length\n  end\nend\n"
    world.code.write("lib/connection_pool.rb", pool).commit("pool")
    nid = world.note(
        "size returns the size: the pool was built with", "lib/connection_pool.rb:size"
    )
    attr = pool.replace("  def size\n    @size\n  end\n", "  attr_reader :size\n")
    world.code.write("lib/connection_pool.rb", attr).commit("attr_reader")
    assert world.stale()["stale"] == [] and world.stale()["changed"] == []
    # the reader removed: the symbol is gone
    world.code.write("lib/connection_pool.rb", attr.replace("  attr_reader :size\n", "")).commit(
        "no size"
    )
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and entry["reason"] == "symbol-gone"


ADD_ALL_TS = """export default class PQueue {
\tasync addAll<T>(
\t\tfunctions: ReadonlyArray<Task<T>>,
\t\toptions?: AddOptions,
\t): Promise<T[]> {
\t\treturn Promise.all(functions.map(function_ => this.add(function_, options)));
\t}
}
"""


def test_an_overload_repeating_the_implementation_is_no_change_and_another_is(
    world: World,
) -> None:
    world.code.write("source/index.ts", ADD_ALL_TS).commit("queue")
    nid = world.note(
        "addAll is Promise.all over add with the same options", "source/index.ts:addAll"
    )
    head = "\tasync addAll<T>(\n\t\tfunctions: ReadonlyArray<Task<T>>,\n\t\toptions?: AddOptions,\n"
    repeated = ADD_ALL_TS.replace(head, head + "\t): Promise<T[]>;\n" + head)
    world.code.write("source/index.ts", repeated).commit("overload for callers")
    assert world.stale()["stale"] == []
    # an overload that takes something else is a change to what addAll accepts
    other = repeated.replace("\t): Promise<T[]>;\n", "\t\tlimit: number,\n\t): Promise<T[]>;\n", 1)
    world.code.write("source/index.ts", other).commit("limit")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


PICK_TS = """export function pick(key: string): string
export function pick(key: number): number
export function pick(key: any): any {
  return cache.get(key) ?? key
}

export function other() {
  return 1
}
"""


def test_overloads_without_semicolons_are_judged_with_their_body(world: World) -> None:
    """TypeScript without semicolons: the symbol is the overloads and the implementation, so
    a change in the body the note states is seen (not only the first signature's line)."""
    world.code.write("src/pick.ts", PICK_TS).commit("pick")
    nid = world.note("pick falls back to the key when the cache has no entry", "src/pick.ts:pick")
    world.code.write("src/pick.ts", PICK_TS.replace("?? key", "?? null")).commit("no fallback")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


def test_a_change_to_another_function_after_unterminated_signatures_is_not_stale(
    world: World,
) -> None:
    world.code.write("src/pick.ts", PICK_TS).commit("pick")
    world.note("pick falls back to the key when the cache has no entry", "src/pick.ts:pick")
    world.code.write("src/pick.ts", PICK_TS.replace("return 1", "return 2")).commit("other")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
