"""``reflect-git stale`` on definitions the symbol finder read wrong before, against real git
histories: an Erlang function whose ``-spec`` alone changed, and an R S3 method (a name
holding a dot), a Clojure function (a balanced form); each with the change that must still be
flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.workflows.code.test_stale import World

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


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


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
