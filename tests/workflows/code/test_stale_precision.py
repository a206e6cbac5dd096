"""``reflect-git stale`` on the kinds of change that raised false alarms, against real git
histories, each with the change that must still be flagged: an argument swapped on a line
that holds a name the note states, a definition line inside a body still open (a C
``#define`` inside a function), and a line that only looks like a definition of the symbol
before its real one."""

from __future__ import annotations

from tests.support.codeworld import World

LIB_RS = """pub fn logger() -> &'static dyn Log {
    if STATE.load(Ordering::SeqCst) != INITIALIZED {
        static NOP: NopLogger = NopLogger;
        &NOP
    } else {
        unsafe { LOGGER }
    }
}

pub fn max_level() -> LevelFilter {
    LevelFilter::Info
}
"""

PARSE_C = """int ini_parse_stream(ini_reader reader, void* stream)
{
    int lineno = 0;
    char* start;

#define HANDLER(u, s, n, v) handler(u, s, n, v)

    while (reader(line, max_line, stream) != NULL) {
        lineno++;
        start = line;
        if (lineno == 1 && start[0] == '\\xEF') {
            start += 3;
        }
    }
    return 0;
}

int ini_parse_file(FILE* file)
{
    return ini_parse_stream(reader, file);
}
"""

INDEX_TS = """export function compile<P extends ParamData = ParamData>(path: Path) {
  return $compile<P>(parse(path));
}

export type ParamData = Partial<Record<string, string | string[]>>;

export function match(path: Path) {
  return parse(path);
}
"""


def test_a_name_swapped_for_another_touches_only_that_name(world: World) -> None:
    world.code.write("src/lib.rs", LIB_RS).commit("lib")
    nid = world.note("logger returns NopLogger until STATE is INITIALIZED", "src/lib.rs:logger")
    world.code.write("src/lib.rs", LIB_RS.replace("SeqCst", "Acquire")).commit("acquire")
    doc = world.stale()
    # the line holds STATE and INITIALIZED, but only the ordering changed on it
    assert doc["stale"] == [] and [e["id"] for e in doc["changed"]] == [nid]
    # a name the note states swapped: stale
    now = (world.code.path / "src/lib.rs").read_text()
    world.code.write("src/lib.rs", now.replace("!= INITIALIZED", "!= INITIALIZING")).commit("x")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and entry["anchors"][0]["names"] == ["INITIALIZED"]


def test_a_line_rewritten_beyond_a_swap_counts_as_a_whole(world: World) -> None:
    world.code.write("src/lib.rs", LIB_RS).commit("lib")
    nid = world.note("logger returns NopLogger until STATE is INITIALIZED", "src/lib.rs:logger")
    rewritten = LIB_RS.replace(
        "STATE.load(Ordering::SeqCst) != INITIALIZED", "!STATE.is(INITIALIZED, Ordering::SeqCst)"
    )
    world.code.write("src/lib.rs", rewritten).commit("rewrite the check")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and {"STATE", "INITIALIZED"} <= set(entry["anchors"][0]["names"])


def test_a_define_inside_a_function_does_not_end_its_block(world: World) -> None:
    world.code.write("src/ini.c", PARSE_C).commit("ini")
    nid = world.note(
        "ini_parse_stream skips the BOM only when lineno is 1", "src/ini.c:ini_parse_stream"
    )
    # after the #define, inside the same function: the note's code
    world.code.write("src/ini.c", PARSE_C.replace("lineno == 1 &&", "lineno <= 2 &&")).commit("b")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid


def test_the_function_after_the_closed_body_is_not_the_symbols(world: World) -> None:
    world.code.write("src/ini.c", PARSE_C).commit("ini")
    world.note("ini_parse_stream skips the BOM only when lineno is 1", "src/ini.c:ini_parse_stream")
    changed = PARSE_C.replace("return ini_parse_stream(reader, file);", "return lineno - 1;")
    world.code.write("src/ini.c", changed).commit("the next function")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []


def test_a_definition_word_outranks_a_line_that_only_looks_like_one(world: World) -> None:
    world.code.write("src/index.ts", INDEX_TS).commit("ts")
    nid = world.note("ParamData is a Partial Record of string values", "src/index.ts:ParamData")
    # compile's first line reads "ParamData = ParamData": not where ParamData is defined
    world.code.write("src/index.ts", INDEX_TS.replace("$compile<P>(parse(path))", "parse(path)"))
    world.code.commit("compile without $compile")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
    world.code.write("src/index.ts", INDEX_TS.replace("string | string[]", "string | number"))
    world.code.commit("numbers too")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid
