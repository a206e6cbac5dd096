"""The symbol rule (notes/anchors.py) on the forms of C, C++, Rust, Ruby and Java: each with
what it must find and the look-alikes it must not take for a definition, and the block it
gives the definition (a ``#define`` its logical line, a ``typedef`` its statement, an
out-of-class C++ method its body)."""

from __future__ import annotations

import pytest

from reflectgit.notes import anchors

INI_H = """#ifndef INI_MAX_LINE
#define INI_MAX_LINE 200
#endif

/* Nonzero to allow a UTF-8 BOM */
#ifndef INI_ALLOW_BOM
#  define INI_ALLOW_BOM 1
#endif

#define INI_API(x) \\
    extern x

typedef int (*ini_handler)(void* user, const char* section,
                           const char* name, const char* value);

typedef struct {
    const char* ptr;
    size_t num_left;
} ini_parse_string_ctx;

int ini_parse(const char* filename, ini_handler handler, void* user);
static int ini_errors = 0;
"""

INI_READER_CPP = """#include "INIReader.h"

INIReader::INIReader(const string& filename)
{
    _error = ini_parse(filename.c_str(), ValueHandler, this);
}

long INIReader::GetInteger(const string& section, const string& name, long default_value) const
{
    string valstr = Get(section, name, "");
    long n = strtol(valstr.c_str(), &end, 0);
    return end > value ? n : default_value;
}

bool INIReader::GetBoolean(const string& section) const
{
    return false;
}
"""

DEFINED = [
    # C preprocessor and typedefs
    ("#define INI_MAX_LINE 200\n", "INI_MAX_LINE"),
    ("#  define INI_API(x) x\n", "INI_API"),
    ("typedef int (*ini_handler)(void* user, const char* section);\n", "ini_handler"),
    ("typedef struct {\n    int a;\n} ini_state;\n", "ini_state"),
    ("typedef struct\n{\n    int a;\n} ini_state, *ini_state_p;\n", "ini_state"),
    ("typedef struct node {\n    struct node* next;\n} node_t;\n", "node_t"),
    ("typedef unsigned long size_type;\n", "size_type"),
    ("typedef char line_t[200];\n", "line_t"),
    ("static const int MAX_SECTION = 50;\n", "MAX_SECTION"),
    ("extern int ini_errors;\n", "ini_errors"),
    ("static int ini_depth;  /* nesting */\n", "ini_depth"),
    ("CJSON_PUBLIC(char *) cJSON_Print(const cJSON *item)\n{\n}\n", "cJSON_Print"),
    ("PyAPI_FUNC(int) Py_Main(int argc, wchar_t **argv);\n", "Py_Main"),
    # C++ out-of-class definitions
    ("long INIReader::GetInteger(const std::string& s) const\n{\n}\n", "GetInteger"),
    ("long INIReader::GetInteger(const std::string& s) const\n{\n}\n", "INIReader::GetInteger"),
    ("std::string INIReader::Get(const std::string& s) const\n{\n}\n", "INIReader.Get"),
    ("void ns::Cache<K, V>::evict(int n) {\n}\n", "evict"),
    ("INIReader::INIReader(const string& filename)\n{\n}\n", "INIReader"),
    ("int INIReader::instances = 0;\n", "instances"),
    # Rust
    ("pub(crate) fn helper() {}\n", "helper"),
    ("pub(in crate::config) fn helper() {}\n", "helper"),
    ("impl<T> Display for Wrapper<T> {\n}\n", "Wrapper"),
    ("impl<T: Into<String>> From<T> for Name {\n}\n", "Name"),
    ("impl<T> Stack<T> {\n}\n", "Stack"),
    ("macro_rules! hashmap {\n}\n", "hashmap"),
    ('pub static GREETING: &str = "hi";\n', "GREETING"),
    ("static mut COUNTER: u32 = 0;\n", "COUNTER"),
    ('pub unsafe extern "C" fn callback(x: i32) {}\n', "callback"),
    ("pub mod config {\n}\n", "config"),
    # Ruby
    ("  def self.build(attrs)\n  end\n", "build"),
    ("class Admin::User < User\nend\n", "User"),
    # Java
    ("    private static final int MAX_RETRIES = 3;\n", "MAX_RETRIES"),
    ("    private final Map<String, Integer> counts = new HashMap<>();\n", "counts"),
    ("    public static <T> List<T> of(T... xs) {\n", "of"),
    # Kotlin: type parameters and a receiver type before the name
    ("fun unwrap(): V {\n}\n", "unwrap"),
    ("public inline infix fun <V, E, U> Result<V, E>.andThen(f: (V) -> U): U {\n}\n", "andThen"),
    ("suspend fun <V> Result<V, Throwable>?.orNull(): V? = null\n", "orNull"),
    ("private operator fun Point.plus(other: Point) = Point(x + other.x)\n", "plus"),
    # C#: a generic method
    ("    public static TEnum IsDefined<TEnum>(TEnum value) where TEnum : struct\n", "IsDefined"),
    # Scala: implicit and lazy values
    ("  implicit val durationRead: Read[Duration] = reads { Duration(_) }\n", "durationRead"),
    ("  private lazy val table = build()\n", "table"),
    # Dart: getters and setters
    ("  bool get hidden {\n    return true;\n  }\n", "hidden"),
    ("  Map<String, Command> get commands => _commands;\n", "commands"),
    ("  set usageLineLength(int value) {\n  }\n", "usageLineLength"),
    # Dart and C#: a nullable return type
    ("  Option? findByAbbreviation(String abbr) {\n    return null;\n  }\n", "findByAbbreviation"),
    ("    public List<string>? Names(int n)\n    {\n    }\n", "Names"),
    # Dart: a nullable type argument in the return type
    ("  Future<T?> runCommand(ArgResults topLevelResults) async {\n  }\n", "runCommand"),
    ("  Map<String, int?> counts(List<int?> xs) {\n  }\n", "counts"),
    ("mixin Logging on Base {\n}\n", "Logging"),
    # Lua: a method on a table (``:`` passes ``self``)
    ("function Inspector:getId(v)\n  return 1\nend\n", "getId"),
    # Scala: access modifiers qualified by their scope, case classes and objects
    (
        "  private[scopt] def renderUsage[C](\n      mode: RenderingMode): String = {\n",
        "renderUsage",
    ),
    ("private[scopt] object ORunner {\n}\n", "ORunner"),
    ("  protected[this] val cache = Map.empty[String, Int]\n", "cache"),
    ("final case class Config(verbose: Boolean = false)\n", "Config"),
    ("  case object Help extends Mode\n", "Help"),
    # Swift: protocols, extensions, actors, type aliases, its modifiers and attributes
    ("public protocol ModeCode {\n    var value: [UInt8] { get }\n}\n", "ModeCode"),
    ("extension String {\n    var bold: String { return self }\n}\n", "String"),
    ("public actor Store {\n}\n", "Store"),
    ("public typealias RGB = (UInt8, UInt8, UInt8)\n", "RGB"),
    ("    fileprivate func isConsoleStyle() -> Bool {\n    }\n", "isConsoleStyle"),
    ("    mutating func reset() {\n    }\n", "reset"),
    ("    @objc func didTap(_ sender: Any) {\n    }\n", "didTap"),
    ("    @discardableResult public func apply() -> Int {\n    }\n", "apply"),
    ("    @available(iOS 13, *) public convenience init(code: String) {\n", "init"),
    # Kotlin: value, inner and companion classes; Java: an annotation on the signature's line
    ("public value class Result<out V, out E> internal constructor(\n", "Result"),
    ("    companion object Factory {\n    }\n", "Factory"),
    ("    inner class Node(val next: Node?)\n", "Node"),
    ("    @Override public String toString() {\n    }\n", "toString"),
    # Ruby: a method defined by aliasing another, or by define_method
    ("  alias_method :overload, :overwrite\n", "overload"),
    ("  define_method(:reset) do\n    @x = 0\n  end\n", "reset"),
    # Swift: failable initialisers
    ("    init?(rawValue: UInt8) {\n    }\n", "init"),
    ("    public convenience init!(code: String) {\n    }\n", "init"),
    # R: an S3 method, its name holding a dot
    ("format.Date <- function(x, ...) {\n  x\n}\n", "format.Date"),
    ("print.myclass = function(x) {\n}\n", "print.myclass"),
    # Erlang: a clause whose guard starts on the line after its head
    ("foo(X)\n    when is_integer(X) ->\n    X + 1.\n", "foo"),
    # Zig: the function a field's type is built by; Rust: a static with its type
    ("fn Arguments(\n    comptime Id: type,\n) type {\n}\n", "Arguments"),
    ('static LOG_LEVEL_NAMES: [&str; 6] = ["OFF", "ERROR"];\n', "LOG_LEVEL_NAMES"),
    # Ruby: a predicate's ``?`` and a mutator's ``!`` belong to the method's name
    ("  def valid?\n    errors.empty?\n  end\n", "valid?"),
    ("  def save!(opts = {})\n    persist\n  end\n", "save!"),
    ("  def self.exists?(id) = find(id)\n", "exists?"),
    # TypeScript: optional members of an interface or class, and a typed member
    ("export interface Options {\n  timeout?: number;\n}\n", "timeout"),
    ("class Queue {\n  private readonly carryover?: boolean;\n}\n", "carryover"),
    ("interface Hooks {\n  onIdle?(): Promise<void>;\n}\n", "onIdle"),
    ("interface Hooks {\n  name: string;\n}\n", "name"),
]

NOT_DEFINED = [
    ("#undef INI_MAX\n#ifdef INI_MAX\n#if defined(INI_MAX)\n", "INI_MAX"),
    ("// #define INI_MAX 1\n/* #define INI_MAX 1 */\n", "INI_MAX"),
    ("#include <ini.h>\n", "ini"),
    ("    rc = ini_handler(user, s);\n    h = (ini_handler)f;\n", "ini_handler"),
    ("typedef struct ini_state ini_state_t;\n", "ini_state"),  # the alias, not the struct
    ("    struct {\n        int a;\n    } state;\n", "state"),  # a variable, no typedef
    ("    x = INIReader::GetInteger(a);\n    return INIReader::GetInteger(a);\n", "GetInteger"),
    ("    INIReader::GetInteger(a);\n", "GetInteger"),  # a call, not a constructor
    ("    CHECK(ok) && cJSON_Print(item);\n", "cJSON_Print"),
    ("    assert(x) or cJSON_Print(item)\n", "cJSON_Print"),
    ("    return ini_errors;\n    if (x == ini_errors) {\n", "ini_errors"),
    ("impl Display for Wrapper {\n}\n", "Display"),  # the trait is not defined here
    ("    hashmap!(a => 1);\n", "hashmap"),
    ("    let total = count + 1;\n", "count"),
    ("branch always names a complete commit; the index holds it\n", "commit"),  # prose
    ("    throw new IllegalStateException(msg);\n", "IllegalStateException"),
    ("    return result.andThen(transform)\n", "andThen"),  # Kotlin calls, not definitions
    ("    val fun_total = funOf(unwrap())\n", "unwrap"),
    ("fun interface Mapper {\n}\n", "interface"),
    # reading through a getter, calling a map's get, a Scala implicit parameter
    ("    if (command.hidden) return;\n    final x = cache.get(hidden);\n", "hidden"),
    ("    return map.get key {\n", "key"),
    ("  def run(implicit ev: Read[Duration]): Unit = ()\n", "ev"),
    # a conditional's ``?`` is no nullable type
    ("    var y = cond ? pick(a) : b;\n", "pick"),
    ("    cond ? pick(a) : b;\n", "pick"),
    ("    final x = cond ? runCommand(a) : null;\n", "runCommand"),
    ("    return runCommand(parse(args));\n", "runCommand"),
    # Lua: calling a method is no definition of it
    ("  self:getId(v)\n  local id = Inspector:getId(t)\n", "getId"),
    ("  puts(buf, 'function Inspector:getId(v)')\n", "getId"),  # a string holding the words
    # Scala: a ``case`` of a match defines nothing, nor a scope written as an index
    ("    case Some(x) if valid(x) => run(x)\n", "valid"),
    ("    case Help => renderUsage(mode)\n", "Help"),
    ("    private[scopt] val x = renderUsage(mode)\n", "renderUsage"),
    # Swift: a string holding the words, a value of a protocol's type
    ('    let s = "public protocol ModeCode"\n', "ModeCode"),
    # Ruby: the method an alias copies is not defined by it
    ("  alias_method :overload, :overwrite\n", "overwrite"),
    ("  send(:alias_method, name, :overload)\n", "overload"),
    # an attribute names no definition, and a decorator's call is not its function's name
    ("@app.route('/x')\ndef index():\n    pass\n", "route"),
    ("    @objc(didTap:)\n", "didTap"),
    # Swift: a call marked ``!`` or ``?`` is no initialiser; a comment holding the words
    ("    value!(x) {\n    }\n", "value"),
    ("    // init?(rawValue: UInt8) {\n", "init"),
    # R: calling an S3 method, a comment and a string holding its definition's words
    ("x <- format.Date(y)\nformat.Date(y)\n", "format.Date"),
    ("# format.Date <- function(x) {\n", "format.Date"),
    ('msg <- "format.Date <- function(x)"\n', "format.Date"),
    # Erlang: an indented call then a ``when`` line (a case arm's guard); an operator word
    # before a call in a body
    ("f(X) ->\n    case X of\n        g(Y)\n            when Y -> 1\n    end.\n", "g"),
    ('    orelse encode(float, 0.0001, #config{}) =:= ["1.0e-4"])},\n', "encode"),
    ("    andalso is_json(X, [])\n", "is_json"),
    # a field or key set by a call defines the field, not the function it calls
    ("        args: Arguments(Id, params, value_parsers, .slice),\n", "Arguments"),
    ("    const opts = {timeout: compute(5)};\n    timeout: compute(5),\n", "compute"),
    # Ruby: calling a predicate, a comment and a string holding its definition's words; the
    # method ``valid?`` does not define ``valid``, nor ``valid`` the predicate
    ("  return unless user.valid?\n  x = valid? ? 1 : 2\n", "valid?"),
    ("  # def valid?\n  s = 'def valid?'\n", "valid?"),
    ("  def valid?\n    true\n  end\n", "valid"),
    ("  def valid\n    true\n  end\n", "valid?"),
    ("  save! if dirty\n  record.save!(validate: false)\n", "save!"),
    # TypeScript: a conditional, an optional call and an optional parameter are no members
    ("const t = cond ? timeout : 3;\n", "timeout"),
    ("  queue.onIdle?.();\n  await this.onIdle?.();\n", "onIdle"),
    ("  // timeout?: number;\n  const s = 'timeout?: number;';\n", "timeout"),
]


@pytest.mark.parametrize(("text", "symbol"), DEFINED)
def test_language_forms_are_found(text: str, symbol: str) -> None:
    assert anchors.defines(text, symbol)


@pytest.mark.parametrize(("text", "symbol"), NOT_DEFINED)
def test_uses_of_those_forms_are_not_definitions(text: str, symbol: str) -> None:
    assert not anchors.defines(text, symbol)


def test_a_define_is_its_logical_line_and_a_typedef_its_statement() -> None:
    block = anchors.symbol_block
    assert block(INI_H, "INI_MAX_LINE") == "#define INI_MAX_LINE 200\n"
    assert block(INI_H, "INI_ALLOW_BOM") == "#  define INI_ALLOW_BOM 1\n"
    assert block(INI_H, "INI_API") == "#define INI_API(x) \\\n    extern x\n"
    assert block(INI_H, "ini_handler") == (
        "typedef int (*ini_handler)(void* user, const char* section,\n"
        "                           const char* name, const char* value);\n"
    )
    assert block(INI_H, "ini_parse_string_ctx") == (
        "typedef struct {\n    const char* ptr;\n    size_t num_left;\n} ini_parse_string_ctx;\n"
    )
    assert block(INI_H, "ini_parse") == (
        "int ini_parse(const char* filename, ini_handler handler, void* user);\n"
    )


KOTLIN_MAP = """/**
 * Maps this [Result<V, E>][Result] to [Result<U, E>][Result].
 */
public inline infix fun <V, E, U> Result<V, E>.map(transform: (V) -> U): Result<U, E> {
    return andThen { Ok(transform(it)) }
}

/**
 * - Scala: [Either.flatMap](https://example.org/Either.html#flatMap)
 */
public inline infix fun <V, E, U> Result<V, E>.flatMap(transform: (V) -> Result<U, E>): Result<U, E> {
    return andThen(transform)
}
"""


def test_a_kotlin_function_runs_to_the_next_one_its_kdoc_left_to_that_one() -> None:
    block = anchors.symbol_block(KOTLIN_MAP, "map")
    assert block == (
        "public inline infix fun <V, E, U> Result<V, E>.map(transform: (V) -> U): Result<U, E> {\n"
        "    return andThen { Ok(transform(it)) }\n}\n"
    )
    flat = anchors.symbol_block(KOTLIN_MAP, "flatMap")
    assert flat is not None and flat.endswith("return andThen(transform)\n}\n")


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

        public static TEnum IsDefined<TEnum>(TEnum value, string parameterName)
        {
            return value;
        }
    }
}
"""


def test_a_braced_body_ends_with_its_closing_brace() -> None:
    block = anchors.symbol_block(PRECONDITIONS_CS, "NotEmpty")
    assert block is not None
    assert block.endswith("            return value;\n        }\n") and "IsDefined" not in block
    # the class's block is its braces too; K&R style and an expression body as before
    cls = anchors.symbol_block(PRECONDITIONS_CS, "Preconditions")
    assert cls is not None and cls.rstrip().endswith("}\n    }")
    assert anchors.symbol_block("int f() {\n  return 1;\n}\nint g() {}\n", "f") == (
        "int f() {\n  return 1;\n}\n"
    )
    # a Python body is not braced: a dict literal in it does not end the block
    py = "def f():\n    d = {\n        1: 2,\n    }\n    return d\n\n\ndef g():\n    pass\n"
    assert (
        anchors.symbol_block(py, "f") == "def f():\n    d = {\n        1: 2,\n    }\n    return d\n"
    )


def test_an_out_of_class_method_runs_to_the_next_one() -> None:
    get = anchors.symbol_block(INI_READER_CPP, "INIReader::GetInteger")
    assert get is not None
    assert get.startswith("long INIReader::GetInteger(") and get.endswith("default_value;\n}\n")
    assert "GetBoolean" not in get
    ctor = anchors.symbol_block(INI_READER_CPP, "INIReader")
    assert ctor is not None and ctor.startswith("INIReader::INIReader(") and "long" not in ctor


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("#define INI_MAX_LINE 200", "INI_MAX_LINE"),
        ("long INIReader::GetInteger(const std::string& s) const", "GetInteger"),
        ("INIReader::INIReader(const string& filename)", "INIReader"),
        ("typedef int (*ini_handler)(void* user);", "ini_handler"),
        ("impl<T> Display for Wrapper<T> {", "Wrapper"),
        ("macro_rules! hashmap {", "hashmap"),
        ("    int total = 0;", None),  # a typed variable names no symbol, as x = 1 does not
        ("    INIReader::GetInteger(a);", None),
    ],
)
def test_defined_name_of_a_line(line: str, name: str | None) -> None:
    assert anchors.defined_name(line) == name


def test_a_qualified_cpp_symbol_keeps_its_double_colons_in_a_spec() -> None:
    spec = "src/INIReader.cpp:INIReader::GetInteger"
    assert anchors.parse_spec(spec) == ("src/INIReader.cpp", "INIReader::GetInteger")
    assert anchors.parse_spec("src/lib.rs:config::load") == ("src/lib.rs", "config::load")
    assert anchors.parse_spec("src/a.cpp::x") == ("src/a.cpp::x", None)


DECORATION_CS = """public static class ServiceCollectionExtensions
{
    public static IServiceCollection Decorate<TService, TDecorator>(this IServiceCollection services)
        where TDecorator : TService
    {
        return services.Decorate<TService, TDecorator>(out _);
    }

    /// <summary>Decorates, or does nothing.</summary>
    public static bool TryDecorate<TService, TDecorator>(this IServiceCollection services)
        where TDecorator : TService
    {
        return services.TryDecorate<TService, TDecorator>(out _);
    }

    public static IServiceCollection Decorate<TService, TDecorator>(this IServiceCollection services, out bool done)
        where TDecorator : TService
    {
        done = true;
        return services;
    }
}
"""


def test_a_generic_method_after_a_constraint_line_ends_the_one_before() -> None:
    # a ``where`` line between the signature and its brace: the block runs to the next
    # definition, and a generic one (``TryDecorate<TService, TDecorator>(``) is one
    block = anchors.symbol_block(DECORATION_CS, "Decorate")
    assert block is not None
    assert "TryDecorate<TService, TDecorator>(this" not in block and "(out _);" in block
    assert "public static class" not in (anchors.symbol_block(DECORATION_CS, "TryDecorate") or "")


def test_a_typescript_member_is_its_line_and_a_ruby_predicate_its_method() -> None:
    options = (
        "export interface Options {\n  timeout?: number;\n  onIdle?(): Promise<void>;\n"
        "  throwOnTimeout?: boolean;\n}\n"
    )
    assert anchors.symbol_block(options, "timeout") == "  timeout?: number;\n"
    # (a body-less method runs on over the members after it, as before: only its line is its own)
    assert (anchors.symbol_block(options, "onIdle") or "").startswith(
        "  onIdle?(): Promise<void>;\n"
    )
    user = "class User\n  def valid\n    1\n  end\n\n  def valid?\n    2\n  end\nend\n"
    assert anchors.symbol_block(user, "valid?") == "  def valid?\n    2\n  end\nend\n"
    assert anchors.symbol_block(user, "valid") == "  def valid\n    1\n  end\n"


def test_every_definition_of_an_overloaded_name() -> None:
    found = anchors.definitions(DECORATION_CS, "Decorate")
    assert [b.splitlines()[0].strip()[-20:] for b in found] == [
        "IServiceCollection services)"[-20:],
        "ices, out bool done)",
    ]
    assert "done = true;" in found[1] and "done = true;" not in found[0]
    assert anchors.definitions(DECORATION_CS, "Missing") == []


ENCODE_EX = """defmodule Jason.EncodeError do
  defexception [:message]

  def new({:duplicate_key, key}) do
    %__MODULE__{message: "duplicate key: #{key}"}
  end
end

defmodule Jason.Encode do
  def encode(value, opts) do
    do_encode(value, opts)
  end
end
"""


def test_a_dotted_module_name_is_its_module() -> None:
    # Elixir: ``Jason.EncodeError`` is the module the file defines as such, to the next module
    block = anchors.symbol_block(ENCODE_EX, "Jason.EncodeError")
    assert block is not None and "duplicate key" in block and "Jason.Encode do" not in block
    assert "def encode" in (anchors.symbol_block(ENCODE_EX, "Jason.Encode") or "")
    assert "def encode" in (anchors.symbol_block(ENCODE_EX, "encode") or "")
    # Lua: a function defined on a module table
    lua = "local M = {}\n\nfunction M.load(path)\n  return read(path)\nend\n\nreturn M\n"
    assert "read(path)" in (anchors.symbol_block(lua, "load") or "")


def test_the_first_part_of_a_dotted_name_is_not_defined_by_it() -> None:
    # ``defmodule Jason.Encode`` defines Jason.Encode, not a module ``Jason``
    assert anchors.symbol_block(ENCODE_EX, "Jason") is None
    assert anchors.symbol_block(ENCODE_EX, "Jason.Decoder") is None


INSPECT_LUA = """local Inspector = {}

function Inspector:getId(v)
  local id = self.ids[v]
  return id
end

function Inspector:putValue(v)
  self:puts(self:getId(v))
end
"""


def test_a_lua_method_is_its_function_to_its_end() -> None:
    block = anchors.symbol_block(INSPECT_LUA, "getId")
    assert block is not None and "self.ids[v]" in block and "putValue" not in block
    assert "self:puts" in (anchors.symbol_block(INSPECT_LUA, "putValue") or "")


def test_a_ruby_alias_is_its_line() -> None:
    code = "module Dotenv\n  alias_method :overload, :overwrite\n  def overwrite(*f)\n  end\nend\n"
    assert anchors.symbol_block(code, "overload") == "  alias_method :overload, :overwrite\n"
    assert "def overwrite" in (anchors.symbol_block(code, "overwrite") or "")


JSX_ERL = """-module(jsx).
-export([decode/1, decode/2, prettify/1, insert/2]).

-record(config, {strict = false :: boolean(), indent = 0}).
-define(is_space(S), S =:= 16#20; S =:= 16#09).
-type decoder() :: fun((binary()) -> any()).

-spec decode(Source::binary()) -> any().
-spec decode(Source::binary(), Config::list()) -> any().

decode(Source) -> decode(Source, []).
% the decoder's own config
decode(Source, Config) -> jsx_to_term:to_term(Source, Config).


-spec prettify(Source::binary()) -> binary().

prettify(Source) -> format(Source, [space, {indent, 2}]).

insert(Key, {object, Map}) ->
    case maps:is_key(Key, Map) of
        true -> error(badarg);
        false -> {object, maps:put(Key, 1, Map)}
    end;
insert(Key, {array, List}) when is_list(List) ->
    "a string ending with a dot.",
    [Key|List].

decoder(Handler, State,
        Config) ->
    jsx_decoder:decoder(Handler, State, Config).

format(Source, Config) -> prettify(Source) ++ Config.
"""


def test_an_erlang_function_is_all_its_clauses_and_its_specs() -> None:
    block = anchors.symbol_block(JSX_ERL, "decode")
    assert block is not None and block.startswith("-spec decode(Source::binary())")
    assert "jsx_to_term:to_term" in block and "prettify" not in block
    # the clauses of a multi-clause function, through a ``.`` inside a string of a clause
    insert = anchors.symbol_block(JSX_ERL, "insert")
    assert insert is not None and insert.startswith("insert(Key, {object")
    assert "[Key|List]." in insert and "decoder" not in insert
    # a head that runs over lines
    assert "jsx_decoder:decoder" in (anchors.symbol_block(JSX_ERL, "decoder") or "")


def test_an_erlang_arity_in_an_anchor_names_the_function() -> None:
    assert anchors.symbol_block(JSX_ERL, "prettify/1") == anchors.symbol_block(JSX_ERL, "prettify")
    assert "format(Source, [space" in (anchors.symbol_block(JSX_ERL, "prettify/1") or "")


def test_erlang_attributes_define_their_names_to_their_dot() -> None:
    assert anchors.symbol_block(JSX_ERL, "config") == (
        "-record(config, {strict = false :: boolean(), indent = 0}).\n"
    )
    assert anchors.symbol_block(JSX_ERL, "is_space") == (
        "-define(is_space(S), S =:= 16#20; S =:= 16#09).\n"
    )
    # a type yields to the function of its name (they are apart in Erlang); alone, it is found
    assert "jsx_decoder" in (anchors.symbol_block(JSX_ERL, "decoder") or "")
    only_type = "-type token() :: start_object\n    | end_object.\n\nf() -> ok.\n"
    assert anchors.symbol_block(only_type, "token") == (
        "-type token() :: start_object\n    | end_object.\n"
    )


def test_erlang_calls_and_case_arms_define_nothing() -> None:
    # ``prettify(Source)`` is called in ``format``'s body, ``maps:put`` in a case arm
    code = "f(X) ->\n    prettify(X),\n    maps:put(X, 1, #{}).\n"
    assert anchors.symbol_block(code, "prettify") is None
    assert anchors.symbol_block(code, "put") is None
    assert anchors.symbol_block(JSX_ERL, "true") is None
    assert anchors.symbol_block(JSX_ERL, "error") is None
    # a line-start call not followed by ``->`` is no clause
    assert anchors.symbol_block("main(X).\n", "main") is None


WITHR_R = """#' Set options
local_options <- function(.new = list(), ...,
                          .local_envir = parent.frame()) {
  old <- set_options(.new)
  defer(reset_options(old), envir = .local_envir)
  invisible(old)
}

reset_options = function(old_options) {
  options(old_options)
}

`local_path<-` <- function(x, value) {
  Sys.setenv(PATH = value)
  x
}

.cache <<- function(x) x
default_seed <- 42L
handlers <- lapply(hooks, function(h) h)
Map(function(x) x, 1:3)
"""


def test_an_r_function_is_its_assignment_and_its_braces() -> None:
    block = anchors.symbol_block(WITHR_R, "local_options")
    assert block is not None and "invisible(old)\n}" in block and "reset_options =" not in block
    assert "options(old_options)" in (anchors.symbol_block(WITHR_R, "reset_options") or "")
    replacement = anchors.symbol_block(WITHR_R, "local_path<-")
    assert replacement is not None and "Sys.setenv" in replacement and ".cache" not in replacement
    assert anchors.symbol_block(WITHR_R, ".cache") == ".cache <<- function(x) x\n"


def test_r_values_and_calls_taking_functions_are_not_functions() -> None:
    # ``x <- 1`` is an assignment at the line's start, read as other languages' ``X = 1``
    assert anchors.symbol_block(WITHR_R, "default_seed") == "default_seed <- 42L\n"
    assert anchors.defined_name("default_seed <- 42L") is None
    assert anchors.defined_name("local_options <- function(x) {") == "local_options"
    # a function passed to a call defines no name
    assert anchors.defined_name("handlers <- lapply(hooks, function(h) h)") is None
    assert anchors.defined_name("Map(function(x) x, 1:3)") is None
    assert anchors.symbol_block(WITHR_R, "Map") is None


def test_an_erlang_guard_on_the_next_line_is_the_head_of_its_clauses() -> None:
    code = (
        "foo(X)\n    when is_integer(X) ->\n    X + 1;\nfoo(X)\n    when is_list(X) ->\n"
        "    length(X).\n\nfoo(X, Y)\n    when X > Y ->\n    X.\n\nbar() -> ok.\n"
    )
    block = anchors.symbol_block(code, "foo")
    # both clauses, and the next arity written right after them, not ``bar``
    assert block is not None and "length(X)." in block and "X > Y" in block
    assert "bar" not in block


def test_an_erlang_operator_word_before_a_call_is_no_signature() -> None:
    code = (
        "encode(float, Float, _Config) ->\n    float_to_binary(Float).\n\n"
        "-ifdef(TEST).\nencode_test_() ->\n    [?_assert(true\n"
        '        orelse encode(float, 0.0001, #config{}) =:= ["1.0e-4"])].\n'
    )
    block = anchors.symbol_block(code, "encode")
    assert block is not None and block.startswith("encode(float, Float, _Config) ->")


def test_an_s3_method_is_its_whole_dotted_name() -> None:
    code = (
        "format.Date <- function(x, ...) {\n  x\n}\n\nprint.Date <- function(x) {\n"
        "  cat(format(x))\n}\n"
    )
    assert (
        anchors.symbol_block(code, "format.Date") == "format.Date <- function(x, ...) {\n  x\n}\n"
    )
    assert "cat(format(x))" in (anchors.symbol_block(code, "print.Date") or "")
    # ``Date`` alone is defined by neither; a Lua ``M.helper`` still names ``helper``
    assert anchors.symbol_block(code, "Date") is None
    lua = "local M = {}\nfunction M.helper(x)\n  return x\nend\n"
    assert "return x" in (anchors.symbol_block(lua, "M.helper") or "")


def test_a_single_colon_is_no_part_of_a_c_type() -> None:
    zig = (
        "pub fn parse(comptime Id: type) !Result(Id) {\n    return .{\n"
        "        args: Arguments(Id, params, value_parsers, .slice),\n    };\n}\n\n"
        "fn Arguments(\n    comptime Id: type,\n) type {\n    return struct {};\n}\n"
    )
    block = anchors.symbol_block(zig, "Arguments")
    assert block is not None and block.startswith("fn Arguments(")
    # C++'s ``::`` still is: a qualified return type
    assert anchors.defines("std::string Reader::Get(int a) {\n}\n", "Get")


def test_a_static_with_its_type_and_value_ends_the_block_before_it() -> None:
    rust = (
        'static LOG_LEVEL_NAMES: [&str; 6] = ["OFF", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"];\n'
        "\n"
        'static SET_LOGGER_ERROR: &str = "attempted to set a logger after the logging system \\\n'
        '                                 was already initialized";\n'
    )
    block = anchors.symbol_block(rust, "LOG_LEVEL_NAMES")
    assert block is not None and "SET_LOGGER_ERROR" not in block
    assert "already initialized" in (anchors.symbol_block(rust, "SET_LOGGER_ERROR") or "")
    # a key set to a value inside a literal ends nothing
    ts = "function start() {\n  run({\n  timeout: this.timeout,\n  });\n  return 1;\n}\n"
    assert "return 1" in (anchors.symbol_block(ts, "start") or "")


OVERLOADS_KT = """public fun <V, E> getAll(vararg results: Result<V, E>): List<V> {
    return results.asIterable().getAll()
}

public fun <V, E> getAllErrors(vararg results: Result<V, E>): List<E> {
    return results.asIterable().getAllErrors()
}

public fun <V, E> Iterable<Result<V, E>>.getAll(): List<V> {
    return filterIsInstance<Ok<V>>().map { it.value }
}
"""

TWO_CLASSES_PY = """class Pool:
    def release(self, conn):
        self.free.put(conn)

    @property
    def size(self):
        return self._size

    @size.setter
    def size(self, value):
        self._size = value


class Cache:
    def release(self, conn):
        self.slots.pop(conn)
"""

COMPANION_SCALA = """class OParser[A, C](head: OptionDef[A, C]) {
  def text(x: String) = x
}

object OParser {
  def builder[C] = new OParserBuilder[C]
}
"""


def test_an_anchor_means_every_definition_of_its_name_in_its_scope() -> None:
    blocks = anchors.anchored_blocks(OVERLOADS_KT, "getAll")
    assert [b.splitlines()[1].strip() for b in blocks] == [
        "return results.asIterable().getAll()",
        "return filterIsInstance<Ok<V>>().map { it.value }",
    ]
    assert anchors.anchored_code(OVERLOADS_KT, OVERLOADS_KT, "getAll") == ("".join(blocks),) * 2
    # a property's getter and its setter, in one class
    assert [
        b.splitlines()[-1].strip() for b in anchors.anchored_blocks(TWO_CLASSES_PY, "size")
    ] == [
        "return self._size",
        "self._size = value",
    ]


def test_an_anchor_does_not_take_in_another_scope_another_word_or_a_qualified_one() -> None:
    # a method of the same name in another class
    [release] = anchors.anchored_blocks(TWO_CLASSES_PY, "release")
    assert "self.free.put" in release and "slots" not in release
    # a Scala companion object beside its class: another definition word
    [parser] = anchors.anchored_blocks(COMPANION_SCALA, "OParser")
    assert parser.startswith("class OParser")
    # a name the file does not define, and a call of it: nothing
    assert anchors.anchored_blocks("x = getAll(a)\n", "getAll") == []
    assert anchors.anchored_code("x = getAll(a)\n", None, "getAll") == (None, None)
    # ``Class.member`` names one definition itself
    [cache] = anchors.anchored_blocks(TWO_CLASSES_PY, "Cache.release")
    assert "slots" in cache


def test_an_overload_added_or_removed_leaves_the_first_definition_compared() -> None:
    first = OVERLOADS_KT.split("\n\n")[0] + "\n"
    # the change added the second getAll: the note was written about the first alone
    before, after = anchors.anchored_pair(first, OVERLOADS_KT, "getAll")
    assert before == [first] and after == [first]
    before, after = anchors.anchored_pair(OVERLOADS_KT, first, "getAll")
    assert len(before) == 1 and after == [first]
    # both versions hold both: both compared
    changed = OVERLOADS_KT.replace("map { it.value }", "map { it.value!! }")
    before, after = anchors.anchored_pair(OVERLOADS_KT, changed, "getAll")
    assert len(before) == len(after) == 2 and before[1] != after[1]


def test_a_ruby_predicate_is_a_member_under_the_word_a_text_says() -> None:
    stack = (
        "class TimedStack\n  def empty?\n    @que.empty?\n  end\n\n  def empty\n    1\n  end\nend\n"
    )
    assert anchors.defined_name("  def empty?") == "empty"
    found = anchors.members(stack)
    assert list(found) == ["empty"] and "@que.empty?" in found["empty"]


# A Bash script named without a suffix, as bats-core's ``libexec/bats-core/bats-exec-test``:
# its functions written ``name() {`` and ``function name {`` / ``function name() {``.
BATS_EXEC_TEST = """#!/usr/bin/env bash
set -e

bats_teardown_trap() {
  trap - ERR EXIT
  local status=0
  teardown >>"$BATS_OUT" 2>&1 || status="$?"
}

function skip {
  BATS_TEST_SKIPPED="${1:-1}"
  BATS_TEST_COMPLETED=1
  exit 0
}

function bats_preprocess_source() {
  BATS_TEST_SOURCE="${BATS_TMPNAME}.src"
  bats-preprocess "$BATS_TEST_FILENAME" >"$BATS_TEST_SOURCE"
}

run() {
  local origFlags="$-"
  set +eET
  output="$("$@" 2>&1)"
  status="$?"
}
"""


@pytest.mark.parametrize(
    ("symbol", "first", "last"),
    [("bats_teardown_trap", "bats_teardown_trap() {", 'status="$?"'),
     ("skip", "function skip {", "exit 0"),
     ("bats_preprocess_source", "function bats_preprocess_source() {", '"$BATS_TEST_SOURCE"'),
     ("run", "run() {", 'status="$?"')],
)  # fmt: skip
def test_a_shell_scripts_functions_are_its_symbols(symbol: str, first: str, last: str) -> None:
    for path in ("libexec/bats-core/bats-exec-test", "lib/test_functions.bash"):
        block = anchors.symbol_block(BATS_EXEC_TEST, symbol, path)
        assert block is not None
        lines = block.strip().split("\n")
        assert lines[0] == first and lines[-2].strip().endswith(last) and lines[-1] == "}"
    # a command called by the name defines nothing
    assert anchors.symbol_block(BATS_EXEC_TEST, "teardown", "bin/bats") is None
    assert anchors.symbol_block(BATS_EXEC_TEST, "bats-preprocess", "bin/bats") is None


ERROR_RS = """impl Error {
    pub fn new<E>(error: E) -> Self {
        let backtrace = backtrace_if_absent!(error);
        Error::from_std(error, backtrace)
    }

    #[cfg(backtrace)]
    pub fn backtrace(&self) -> &Backtrace {
        self.inner.backtrace()
    }
}
"""


def test_a_rust_let_binds_a_local_not_the_symbol_a_later_fn_defines() -> None:
    # anyhow's ``backtrace``: a ``let backtrace`` inside ``new`` is ``new``'s own variable
    block = anchors.symbol_block(ERROR_RS, "backtrace", "src/error.rs")
    assert block is not None and block.startswith("    pub fn backtrace(&self)")
    # with no definition but the ``let``, the file defines no ``backtrace``
    alone = ERROR_RS.split("    #[cfg")[0] + "}\n"
    assert anchors.symbol_block(alone, "backtrace", "src/error.rs") is None


@pytest.mark.parametrize(
    ("path", "text"),
    [
        # the negatives: a module's ``let``/``const`` in JavaScript and TypeScript, and a
        # Swift property, define their names
        ("src/retry.js", "let backtrace = capture();\n\nfunction run() {\n  return 1;\n}\n"),
        ("src/retry.ts", "export const backtrace = capture();\n"),
        ("Sources/Error.swift", "struct Error {\n    let backtrace: String\n}\n"),
        # and a Rust ``static`` or ``const`` item
        ("src/lib.rs", 'static backtrace: &str = "off";\n'),
    ],
)
def test_a_let_where_it_defines_a_name_still_does(path: str, text: str) -> None:
    block = anchors.symbol_block(text, "backtrace", path)
    assert block is not None and "backtrace" in block.split("\n")[0]
