"""The symbol rule (notes/anchors.py) on definitions written without a definition word: a
JavaScript/TypeScript method by its name alone (``constructor(``, ``start(): this {``), a
method's overload signatures read with its body as one symbol, a Ruby attribute defined by
``attr_reader``; with the calls and statements that look like them and define nothing."""

from __future__ import annotations

from reflectgit.notes import anchors
from reflectgit.notes.tokens import lines

QUEUE_TS = """export default class PQueue extends EventEmitter {
\t#queue: Queue;

\tconstructor(options?: Options) {
\t\tsuper();
\t\tif (!(options.intervalCap >= 1)) {
\t\t\tthrow new TypeError('intervalCap');
\t\t}
\t}

\t/**
\tAdds a task.
\t*/
\tasync add<T>(function_: Task<T>, options?: Partial<AddOptions>): Promise<T>;
\tasync add<T>(function_: Task<T>, options: Partial<AddOptions> = {}): Promise<T> {
\t\treturn this.#run(function_, options);
\t}

\tasync addAll<T>(
\t\tfunctions: ReadonlyArray<Task<T>>,
\t\toptions?: Partial<AddOptions>,
\t): Promise<T[]> {
\t\treturn Promise.all(functions.map(async function_ => this.add(function_, options)));
\t}

\tstart(): this {
\t\tif (!this.#isPaused) {
\t\t\treturn this;
\t\t}
\t\treturn this;
\t}

\t#next(): void {
\t\tthis.#pending--;
\t}

\tget size(): number {
\t\treturn this.#queue.size;
\t}
}
"""


def test_a_class_constructor_is_a_symbol_with_its_body_only() -> None:
    block = anchors.symbol_block(QUEUE_TS, "constructor")
    assert block is not None and block.startswith("\tconstructor(options?: Options) {")
    assert "TypeError" in block and "add" not in block and block.endswith("\t}\n")
    assert anchors.symbol_block(QUEUE_TS, "PQueue.constructor") == block


def test_a_method_written_by_its_name_alone_is_a_symbol() -> None:
    assert anchors.symbol_block(QUEUE_TS, "start") == (
        "\tstart(): this {\n\t\tif (!this.#isPaused) {\n\t\t\treturn this;\n\t\t}\n"
        "\t\treturn this;\n\t}\n"
    )
    assert (
        anchors.symbol_block(QUEUE_TS, "next") == "\t#next(): void {\n\t\tthis.#pending--;\n\t}\n"
    )
    assert anchors.defined_name("\tstart(): this {") == "start"


def test_overload_signatures_and_the_body_are_one_symbol() -> None:
    block = anchors.symbol_block(QUEUE_TS, "add")
    assert block is not None
    assert block.count("async add<T>") == 2 and "this.#run(function_, options)" in block
    assert "addAll" not in block
    assert anchors.definitions(QUEUE_TS, "add") == [block]


def test_a_signature_over_several_lines_ends_with_its_body() -> None:
    block = anchors.symbol_block(QUEUE_TS, "addAll")
    assert block is not None and block.rstrip().endswith("\t}") and "start" not in block


def test_calls_and_statements_that_look_like_methods_define_nothing() -> None:
    for line in (
        "\tif (options.strict) {",
        "\twhile (this.#tryToStartAnother()) {}",
        "\tthis.emit('idle');",
        "\tfoo(bar);",
        "\tdescribe('queue', () => {",
        "\tit('works', function () {",
        "\tcatch (error) {",
        "\tswitch (kind) {",
    ):
        assert anchors.defined_name(line) is None, line
    # a call is no definition of the name it calls when a definition word defines it
    kotlin = (
        "fun main() {\n    runCatching(x) {\n        1\n    }\n}\n\nfun runCatching(x: Int) {\n}\n"
    )
    assert anchors.symbol_block(kotlin, "runCatching") == "fun runCatching(x: Int) {\n}\n"


def test_a_method_removed_is_gone_and_an_overload_is_part_of_it() -> None:
    assert anchors.symbol_block(QUEUE_TS.replace("start(): this", "begin(): this"), "start") is None
    one = QUEUE_TS.replace(
        "\tasync add<T>(function_: Task<T>, options?: Partial<AddOptions>): Promise<T>;\n", ""
    )
    assert anchors.symbol_block(one, "add") != anchors.symbol_block(QUEUE_TS, "add")


def test_a_body_less_declaration_is_not_joined_to_another_form_of_its_name() -> None:
    rust = "pub struct SetLoggerError(());\n\nimpl fmt::Display for SetLoggerError {\n}\n"
    assert anchors.symbol_block(rust, "SetLoggerError") == "pub struct SetLoggerError(());\n"


POOL_RB = """class ConnectionPool
  attr_reader :size, :timeout # both set once

  def available
    @available.length
  end
end
"""


def test_a_ruby_attribute_is_the_symbol_it_names() -> None:
    assert (
        anchors.symbol_block(POOL_RB, "size") == "  attr_reader :size, :timeout # both set once\n"
    )
    assert anchors.symbol_block(POOL_RB, "timeout") is not None
    available = anchors.symbol_block(POOL_RB, "available")
    assert available is not None and available.startswith("  def available\n")
    assert anchors.symbol_block(POOL_RB, "length") is None
    assert anchors.symbol_block(POOL_RB.replace(":size, ", ""), "size") is None


def test_a_reader_method_and_attr_reader_read_as_the_same_code() -> None:
    reader = lines("  def size\n    @size\n  end\n", "lib/pool.rb")
    assert lines("  attr_reader :size\n", "lib/pool.rb") == reader
    assert lines("  def size; @size; end\n", "lib/pool.rb") == reader
    assert lines("  attr_reader :size, :timeout\n", "a.rb") == [
        *reader,
        ["attr_reader", ":", "timeout"],
    ]
    # a method that returns something else is not the reader
    assert lines("  def size\n    @max\n  end\n", "lib/pool.rb") != reader


SELECTOR_CS = """public class LifetimeSelector : ILifetimeSelector, ISelector
{
    public IImplementationTypeSelector WithLifetime(ServiceLifetime lifetime)
    {
        return this;
    }

    void ISelector.Populate(IServiceCollection services, RegistrationStrategy? strategy)
    {
        Lifetime ??= ServiceLifetime.Transient;
    }
}
"""


def test_a_csharp_explicit_interface_implementation_is_its_method() -> None:
    assert anchors.symbol_block(SELECTOR_CS, "Populate") == (
        "    void ISelector.Populate(IServiceCollection services, RegistrationStrategy? strategy)\n"
        "    {\n        Lifetime ??= ServiceLifetime.Transient;\n    }\n"
    )
    # a call through a name is no definition, nor a statement that assigns one
    for line in (
        "        selector.Populate(services, strategy);",
        "        var x = a.Populate(s);",
    ):
        assert anchors.defined_name(line) != "Populate", line
    assert (
        anchors.symbol_block(
            SELECTOR_CS.replace("ISelector.Populate", "ISelector.Fill"), "Populate"
        )
        is None
    )


TWO_CLASSES_TS = """class Queue {
\tconstructor() {
\t\tthis.items = [];
\t}
}

export default class PQueue {
\tconstructor(options?: Options) {
\t\tthis.queue = new Queue();
\t}
}
"""


def test_class_dot_constructor_is_that_classs_constructor() -> None:
    assert anchors.symbol_block(TWO_CLASSES_TS, "PQueue.constructor") == (
        "\tconstructor(options?: Options) {\n\t\tthis.queue = new Queue();\n\t}\n"
    )
    assert anchors.symbol_block(TWO_CLASSES_TS, "Queue.constructor") == (
        "\tconstructor() {\n\t\tthis.items = [];\n\t}\n"
    )
    # an owner the file does not define: the first definition of the member
    assert anchors.symbol_block(TWO_CLASSES_TS, "Other.constructor") == anchors.symbol_block(
        TWO_CLASSES_TS, "constructor"
    )
    assert anchors.symbol_block(TWO_CLASSES_TS, "PQueue.start") is None


def test_a_declaration_repeating_the_implementations_signature_declares_nothing_more() -> None:
    impl = "\tasync addAll<T>(\n\t\tfunctions: Task<T>[],\n\t): Promise<T[]> {\n\t\treturn run(functions);\n\t}\n"
    repeated = "\tasync addAll<T>(\n\t\tfunctions: Task<T>[],\n\t): Promise<T[]>;\n" + impl
    assert anchors.symbol_block(f"class Q {{\n{repeated}}}\n", "addAll") == impl
    # an overload that declares another signature stays part of the symbol (with or without
    # the ``async`` of its implementation)
    other = "\taddAll<T>(functions: Task<T>): Promise<T>;\n" + repeated
    block = anchors.symbol_block(f"class Q {{\n{other}}}\n", "addAll")
    assert block == "\taddAll<T>(functions: Task<T>): Promise<T>;\n" + impl
    # C: a prototype right before its definition, and one that differs from it
    c = "int parse(const char* s);\nint parse(const char* s) {\n    return 0;\n}\n"
    assert anchors.symbol_block(c, "parse") == "int parse(const char* s) {\n    return 0;\n}\n"
    c2 = c.replace("int parse(const char* s);", "int parse(const char* s, int n);")
    assert anchors.symbol_block(c2, "parse") == c2


def test_a_constructor_with_its_parameters_on_the_lines_after_it() -> None:
    code = "class A {\n\tconstructor(\n\t\tprivate readonly http: Http,\n\t) {\n\t\tthis.x = 1;\n\t}\n\n\tget(): void {}\n}\n"
    assert anchors.symbol_block(code, "constructor") == (
        "\tconstructor(\n\t\tprivate readonly http: Http,\n\t) {\n\t\tthis.x = 1;\n\t}\n"
    )
    # a call over several lines defines nothing
    assert anchors.defined_name("\texpect(") is None


def test_overload_signatures_without_semicolons_run_on_to_the_body() -> None:
    # TypeScript written without semicolons: each overload signature ends with its line
    ts = (
        "export function pick(a: string): string\n"
        "export function pick(a: number): number\n"
        "export function pick(a: any): any {\n  return a\n}\n\n"
        "export function other() {\n  return 1\n}\n"
    )
    block = anchors.symbol_block(ts, "pick")
    assert block is not None and block.count("export function pick(") == 3
    assert "return a" in block and "other" not in block
    # Python's typing.overload stubs, then the implementation
    py = (
        "@overload\ndef f(a: int) -> int: ...\n@overload\ndef f(a: str) -> str: ...\n"
        "def f(a):\n    return a\n\n\ndef g():\n    return 2\n"
    )
    block = anchors.symbol_block(py, "f")
    assert block is not None and "return a" in block and "def g" not in block


def test_a_definition_with_a_body_is_no_signature_alone() -> None:
    # a Python getter and its setter: the getter's body ends it (its line ends with ":")
    prop = (
        "class A:\n    @property\n    def x(self):\n        return self._x\n\n"
        "    @x.setter\n    def x(self, v):\n        self._x = v\n"
    )
    assert anchors.symbol_block(prop, "x") == "    def x(self):\n        return self._x\n"
    # a signature alone followed by another name's definition stays alone
    ts = "export function pick(a: string): string\nexport function other(): void {\n}\n"
    assert anchors.symbol_block(ts, "pick") == "export function pick(a: string): string\n"
    # a one-line TypeScript body is a body: braces
    one = "export function pick(a: string): string { return a }\nexport function pick2() {}\n"
    assert anchors.symbol_block(one, "pick") == (
        "export function pick(a: string): string { return a }\n"
    )
