"""``reflect-git stale`` on definitions the symbol finder read wrong before, against real git
histories: an Erlang function whose ``-spec`` alone changed, and an R S3 method (a name
holding a dot), a Clojure function (a balanced form); each with the change that must still be
flagged."""

from __future__ import annotations

import json

from tests.conftest import run_cli_proc
from tests.notes.test_anchors_by_path import LIB_RS, RUN_JL
from tests.support.codeworld import World

JSX_ERL = """-module(jsx).

-spec decode(Source::json_text()) -> json_term().
-spec decode(Source::json_text(), Config::jsx_to_term:config()) -> json_term().

decode(Source) -> decode(Source, []).
decode(Source, Config) -> jsx_to_term:to_term(Source, Config).

format(Source) -> Source.
"""

FORMAT_R = """format.Date <- function(x, ...) {
  xx <- format.POSIXlt(as.POSIXlt(x), ...)
  names(xx) <- names(x)
  xx
}

print.Date <- function(x, ...) {
  print(format(x))
}
"""

GENERATE_CLJ = """(ns cheshire.generate)

(defn add-encoder
  "Adds an encoder for a class."
  [cls encoder]
  (.put encoders cls encoder))

(defn remove-encoder [cls]
  (.remove encoders cls))
"""


def test_an_erlang_spec_changed_alone_is_not_stale(world: World) -> None:
    world.code.write("src/jsx.erl", JSX_ERL).commit("jsx")
    nid = world.add(
        "decode/2 is to_term",
        "decode/2 only calls jsx_to_term:to_term(Source, Config): options are read there",
        "src/jsx.erl:decode/2",
    )
    typed = JSX_ERL.replace("jsx_to_term:config()", "jsx_config:options()")
    world.code.write("src/jsx.erl", typed).commit("options type")
    doc = world.stale()
    assert doc["stale"] == [] and [e["id"] for e in doc["changed"]] == [nid]
    # the clause the note states changed: stale
    world.code.write("src/jsx.erl", typed.replace("jsx_to_term:to_term", "jsx_decoder:run")).commit(
        "decoder"
    )
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


def test_an_r_s3_method_is_its_own_code(world: World) -> None:
    world.code.write("R/format.R", FORMAT_R).commit("format")
    nid = world.add(
        "format.Date keeps names",
        "format.Date copies names(x) onto the formatted result",
        "R/format.R:format.Date",
    )
    # print.Date changed: format.Date's code did not
    world.code.write("R/format.R", FORMAT_R.replace("print(format(x))", "cat(format(x))")).commit(
        "print"
    )
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
    # format.Date no longer copies the names: stale
    world.code.write("R/format.R", FORMAT_R.replace("  names(xx) <- names(x)\n", "")).commit(
        "no names"
    )
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


def test_a_clojure_function_is_its_own_form(world: World) -> None:
    world.code.write("src/cheshire/generate.clj", GENERATE_CLJ).commit("generate")
    nid = world.add(
        "add-encoder puts into encoders",
        "add-encoder calls `(.put encoders cls encoder)`: a second encoder for a class wins",
        "src/cheshire/generate.clj:add-encoder",
    )
    # remove-encoder changed, and a comment was added to add-encoder: its code did not change
    other = GENERATE_CLJ.replace("(.remove encoders cls)", "(.remove encoders cls) nil").replace(
        "  [cls encoder]\n", "  [cls encoder] ; one per class\n"
    )
    world.code.write("src/cheshire/generate.clj", other).commit("remove")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
    # add-encoder no longer puts into encoders: stale
    world.code.write(
        "src/cheshire/generate.clj", other.replace("(.put encoders", "(.putIfAbsent encoders")
    ).commit("put once")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


ITERABLE_KT = """package result

public fun <V, E> getAll(vararg results: Result<V, E>): List<V> {
    return results.asIterable().getAll()
}

public fun <V, E> Iterable<Result<V, E>>.getAll(): List<V> {
    return filterIsInstance<Ok<V>>().map { it.value }
}

public fun <V, E> getAllErrors(vararg results: Result<V, E>): List<E> {
    return results.asIterable().getAllErrors()
}
"""

POOL_CLASSES_PY = """class Pool:
    def release(self, conn):
        self.free.put(conn)


class Cache:
    def release(self, conn):
        self.slots.pop(conn)
"""


def test_pr_notes_reads_every_overload_stale_the_first(world: World) -> None:
    world.code.write("src/Iterable.kt", ITERABLE_KT).commit("iterable")
    nid = world.add(
        "getAll drops the errors",
        "getAll returns the values of the Oks (filterIsInstance) and silently drops every Err",
        "src/Iterable.kt:getAll",
    )
    # getAllErrors, another name, changed: no overload of getAll did
    other = ITERABLE_KT.replace(
        "return results.asIterable().getAllErrors()", "return results.toList().getAllErrors()"
    )
    world.code.write("src/Iterable.kt", other).commit("errors")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
    # the second definition of getAll (the extension the first delegates to) changed: pr-notes
    # lists the note for the change, stale keeps to the first definition, which did not change
    world.code.write(
        "src/Iterable.kt",
        other.replace("return filterIsInstance<Ok<V>>().map { it.value }", "return filterValues()"),
    ).commit("filterValues")
    listed = run_cli_proc(
        "--kb", str(world.kb), "--json", "pr-notes", "--repo", str(world.code.path),
        "--base", "HEAD^",
    )  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    assert [n["id"] for n in json.loads(listed.stdout)["notes"]] == [nid]
    assert world.stale()["stale"] == []
    # the first definition changed: stale
    world.code.write(
        "src/Iterable.kt",
        other.replace("results.asIterable().getAll()", "results.toList().getAll()"),
    ).commit("toList")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid


def test_a_method_of_the_same_name_in_another_class_is_not_the_anchored_one(world: World) -> None:
    world.code.write("src/classes.py", POOL_CLASSES_PY).commit("classes")
    nid = world.add(
        "release puts back on free",
        "release puts the connection back with self.free.put",
        "src/classes.py:release",
    )
    # Cache.release, another class's method, changed: not the anchored one
    world.code.write(
        "src/classes.py", POOL_CLASSES_PY.replace("self.slots.pop(conn)", "self.slots.remove(conn)")
    ).commit("cache")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
    world.code.write(
        "src/classes.py",
        POOL_CLASSES_PY.replace("self.free.put(conn)", "self.free.put_nowait(conn)"),
    ).commit("pool")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


def test_a_clojure_docstring_changed_alone_is_no_code_change(world: World) -> None:
    world.code.write("src/cheshire/generate.clj", GENERATE_CLJ).commit("generate")
    world.add(
        "add-encoder puts into encoders",
        "add-encoder calls `(.put encoders cls encoder)`: a second encoder for a class wins",
        "src/cheshire/generate.clj:add-encoder",
    )
    documented = GENERATE_CLJ.replace(
        '"Adds an encoder for a class."', '"Adds an encoder for a class: the encoders are put."'
    )
    world.code.write("src/cheshire/generate.clj", documented).commit("doc")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []


def test_a_ruby_predicate_is_its_own_method(world: World) -> None:
    user = (
        "class User\n  def valid?\n    errors.empty?\n  end\n\n  def valid\n    true\n  end\nend\n"
    )
    world.code.write("lib/user.rb", user).commit("user")
    nid = world.add("valid? is errors.empty?", "valid? asks errors.empty?", "lib/user.rb:valid?")
    world.code.write("lib/user.rb", user.replace("    true\n", "    false\n")).commit("valid")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
    world.code.write("lib/user.rb", user.replace("errors.empty?", "errors.none?")).commit("none")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


INCLUDE_HS = """module Path.Include (filename, parent) where

import qualified System.FilePath as FilePath

-- | The file name of a path.
filename :: Path b File -> Path Rel File
filename (Path l) =
  Path (FilePath.takeFileName l)

-- | The parent directory.
parent :: Path b t -> Path b Dir
parent (Path fp) = Path (FilePath.takeDirectory fp)
"""


def test_a_haskell_function_is_its_signature_and_equations(world: World) -> None:
    world.code.write("src/Path/Include.hs", INCLUDE_HS).commit("include")
    nid = world.add(
        "filename takes the file name",
        "filename calls `FilePath.takeFileName`: a trailing separator gives an empty name",
        "src/Path/Include.hs:filename",
    )
    # parent changed and filename's haddock was reworded: filename's code did not change
    other = INCLUDE_HS.replace("FilePath.takeDirectory fp", "FilePath.takeDirectory (strip fp)")
    other = other.replace("-- | The file name of a path.", "-- | The last part of a path.")
    world.code.write("src/Path/Include.hs", other).commit("parent strips")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
    # filename no longer calls takeFileName: stale
    world.code.write(
        "src/Path/Include.hs", other.replace("FilePath.takeFileName l", "last (splitPath l)")
    ).commit("filename by splitPath")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


ORDERED_JL = '''# get the index where a key is stored, or -1 if not present
function ht_keyindex(h::OrderedDict{K,V}, key, direct) where {K,V}
    slots = h.slots
    index = hashindex(key, length(slots))
    while true
        si = slots[index]
        si == 0 && break
        index = (index & (length(slots) - 1)) + 1
    end
    return -1
end

"""
    isordered(::Type)

`true` if the container type has a defined order.
"""
isordered(::Type{T}) where {T<:AbstractDict} = false
isordered(::Type{T}) where {T<:OrderedDict} = true

length(d::OrderedDict) = length(d.keys) - d.ndel
'''


def test_a_julia_function_is_its_body_to_its_end(world: World) -> None:
    world.code.write("src/ordered_dict.jl", ORDERED_JL).commit("ordered dict")
    keyindex = world.add(
        "ht_keyindex probes linearly",
        "ht_keyindex walks the slots one by one until an empty slot (si == 0) stops it",
        "src/ordered_dict.jl:ht_keyindex",
    )
    ordered = world.add(
        "isordered is a trait",
        "isordered is false for any AbstractDict and true for OrderedDict",
        "src/ordered_dict.jl:isordered",
    )
    # length and isordered's docstring changed: neither note's code did
    other = ORDERED_JL.replace("- d.ndel", "- d.deleted").replace("defined order", "known order")
    world.code.write("src/ordered_dict.jl", other).commit("length")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
    # ht_keyindex's body, lines below its first: stale (the block is no longer its first line)
    world.code.write(
        "src/ordered_dict.jl", other.replace("si == 0 && break", "si == 0 && return -1")
    ).commit("return early")
    assert [e["id"] for e in world.stale()["stale"]] == [keyindex]
    # isordered (a short form, no definition word) changed what the note names: stale too
    final = other.replace("si == 0 && break", "si == 0 && return -1")
    world.code.write(
        "src/ordered_dict.jl", final.replace("{T<:AbstractDict} = false", "{T<:Any} = false")
    ).commit("any type")
    assert sorted(e["id"] for e in world.stale()["stale"]) == sorted([keyindex, ordered])


def test_a_rust_file_holding_haskell_is_read_as_rust(world: World) -> None:
    """The file's suffix tells its language (``languages.readers``), not its content."""
    world.code.write("src/lib.rs", LIB_RS).commit("lib")
    nid = world.add(
        "parse counts bytes",
        "parse returns `src.len()`: the byte length, not the characters",
        "src/lib.rs:parse",
    )
    # the Haskell program in the string changed: parse's code did not
    other = LIB_RS.replace("print 1", "print 2")
    world.code.write("src/lib.rs", other).commit("source")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
    # parse no longer returns the byte length: stale
    world.code.write("src/lib.rs", other.replace("src.len()", "src.chars().count()")).commit(
        "chars"
    )
    assert [e["id"] for e in world.stale()["stale"]] == [nid]


def test_a_julia_file_is_read_as_julia_without_a_mark(world: World) -> None:
    world.code.write("src/Run.jl", RUN_JL).commit("run")
    nid = world.add(
        "run keeps a positive x",
        "run returns x when `x > 0`, and x again otherwise",
        "src/Run.jl:run",
    )
    # helper, after run's ``end``, changed: run's code did not
    other = RUN_JL.replace("y + 1", "y + 2")
    world.code.write("src/Run.jl", other).commit("helper")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
    # run's test changed: stale
    world.code.write("src/Run.jl", other.replace("x > 0", "x >= 0")).commit("zero")
    assert [e["id"] for e in world.stale()["stale"]] == [nid]
