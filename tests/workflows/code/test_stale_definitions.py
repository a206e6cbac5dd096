"""``reflect-git stale`` on definitions the symbol finder read wrong before, against real git
histories: a name a file defines twice (a Rust method added above the free function of the
same name the note is on), an Erlang function whose ``-spec`` alone changed, and an R S3
method (a name holding a dot); each with the change that must still be flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.workflows.code.test_stale import World

IMP_STD_RS = """use std::sync::atomic::AtomicUsize;

fn wait(state_and_queue: &AtomicUsize, mut current_state: usize) {
    loop {
        let node = Waiter { signaled: false };
        state_and_queue.compare_and_swap(current_state, me, Ordering::Release);
        while !node.signaled {
            thread::park();
        }
    }
}
"""

METHOD = """impl<T> OnceCell<T> {
    pub(crate) fn wait(&self) {
        if !self.is_initialized() {
            wait(&self.state_and_queue, self.state_and_queue.load(Ordering::Acquire));
        }
    }
}

"""

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


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def test_a_method_added_above_the_function_a_note_is_on_does_not_take_its_place(
    world: World,
) -> None:
    world.code.write("src/imp_std.rs", IMP_STD_RS).commit("wait")
    nid = world.add(
        "wait parks until signaled",
        "wait pushes a Waiter node with compare_and_swap, then parks until signaled",
        "src/imp_std.rs:wait",
    )
    # a method of the same name, first in the file: the free function is unchanged
    with_method = IMP_STD_RS.replace("\nfn wait(", "\n" + METHOD + "fn wait(", 1)
    world.code.write("src/imp_std.rs", with_method).commit("OnceCell::wait")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
    # the free function rewritten on the words the note states: stale
    rewritten = with_method.replace("compare_and_swap(current_state, me, ", "compare_exchange(")
    world.code.write("src/imp_std.rs", rewritten).commit("compare_exchange")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and "compare_and_swap" in entry["anchors"][0]["names"]


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
