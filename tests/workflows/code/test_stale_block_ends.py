"""``reflect-git stale`` where an anchored symbol's block must end at its definition's end,
against real git histories: a declaration without a body ends at its ``;`` (a TypeScript
interface's method, over one line or several), a body opened and closed on its own line ends
with it, a Perl POD section before the next sub documents that sub, prose in a POD section
defines nothing, and braces the file never closes (Perl's ``s/x\\z//`` read as a ``//``
comment) leave the block to its indent. Each with the change that must still be flagged: the
symbol's own code, a nested definition really inside its body, code after a comment in it."""

from __future__ import annotations

from pathlib import Path

from tests.support.codeworld import World

QUEUE_TS = """export interface Queue {
\tsize(): number;
\treadonly pending: number
\tget isPaused(): boolean
}
"""

DISPATCHER_PHP = """<?php
interface Dispatcher
{
    public function dispatch(
        string $httpMethod,
        string $uri
    ): array;
    const NOT_FOUND = 0;
    const FOUND = 1;
}
"""

TINY_PM = """package Path::Tiny;

sub stringify { $_[0]->[PATH] }

=method lines

Returns a list of lines from the file.  If possible, lines() will read
the whole file at once.

=cut

sub lines {
    my ( $self, $args ) = @_;
    my $fh = $self->filehandle;
    if ( $args->{chomp} ) {
        my @lines = map { s/(?:\\x{0d}?\\x{0a}|\\x{0d})\\z//; $_ } <$fh>;
        return @lines;
    }
    return <$fh>;
}

=method visit

Visits each file and stops on a reference to a false value.

If possible, visit() will simply walk the tree. Otherwise, it

=cut

sub visit {
    my ( $self, $cb ) = @_;
    return $cb->($self);
}

1;
"""

RUNNER_JS = """function run(tasks) {
  /** Each task, in order. */
  const order = tasks.slice();
  function step(task) {
    return task();
  }
  return order.map(step);
}

function stop() {
  return null;
}
"""


def _stale(world: World) -> list[str]:
    """The notes whose anchored code changed: stale, or changed in nothing the note names."""
    doc = world.stale()
    return sorted(e["id"] for e in doc["stale"] + doc["changed"])


def test_an_interface_method_without_a_body_ends_at_its_semicolon(world: World) -> None:
    world.code.write("src/queue.ts", QUEUE_TS).commit("queue")
    size = world.note("size counts the waiting tasks only", "src/queue.ts:size")
    # the member after the declaration changed: the note's code did not
    nxt = QUEUE_TS.replace("readonly pending: number", "readonly pending: bigint")
    world.code.write("src/queue.ts", nxt).commit("bigger counters")
    assert _stale(world) == []
    world.code.write("src/queue.ts", nxt.replace("size(): number;", "size(): bigint;"))
    world.code.commit("size as a bigint")
    assert _stale(world) == [size]


def test_a_signature_over_several_lines_ends_at_its_semicolon(world: World) -> None:
    world.code.write("src/Dispatcher.php", DISPATCHER_PHP).commit("dispatcher")
    nid = world.note("dispatch returns an array", "src/Dispatcher.php:dispatch")
    world.code.write("src/Dispatcher.php", DISPATCHER_PHP.replace("FOUND = 1", "FOUND = 2"))
    world.code.commit("renumber FOUND")
    assert _stale(world) == []
    # the last line of the signature is its own: what it returns changed
    world.code.write("src/Dispatcher.php", DISPATCHER_PHP.replace("): array;", "): Result;"))
    world.code.commit("a result object")
    assert _stale(world) == [nid]


def test_a_perl_sub_ends_before_the_pod_of_the_next_one(world: World) -> None:
    world.code.write("lib/Path/Tiny.pm", TINY_PM).commit("tiny")
    stringify = world.note(
        "stringify returns the path as it is stored", "lib/Path/Tiny.pm:stringify"
    )
    lines = world.note("lines with chomp strips CR, LF and CRLF", "lib/Path/Tiny.pm:lines")
    # the POD of ``lines`` and of ``visit`` reworded, ``visit`` rewritten
    reworded = TINY_PM.replace("Returns a list", "Gives the list").replace(
        "Visits each file", "Walks every file"
    )
    reworded = reworded.replace("return $cb->($self);", "return $cb->($self, {});")
    world.code.write("lib/Path/Tiny.pm", reworded).commit("reword the docs, visit's state")
    assert _stale(world) == []
    # their own code changed: both stale
    changed = reworded.replace("$_[0]->[PATH] }", "'./' . $_[0]->[PATH] }").replace(
        "return <$fh>;", "return readline($fh);"
    )
    world.code.write("lib/Path/Tiny.pm", changed).commit("stringify, lines")
    assert _stale(world) == sorted([stringify, lines])


def test_prose_in_a_pod_section_defines_no_sub(world: World) -> None:
    world.code.write("lib/Path/Tiny.pm", TINY_PM).commit("tiny")
    visit = world.note("visit stops on a reference to a false value", "lib/Path/Tiny.pm:visit")
    # ``If possible, visit() will ...`` reads like a C signature of ``visit``: the sub is below
    reworded = TINY_PM.replace("will simply walk the tree", "walks the tree")
    world.code.write("lib/Path/Tiny.pm", reworded).commit("reword visit's doc")
    assert _stale(world) == []
    world.code.write("lib/Path/Tiny.pm", reworded.replace("$cb->($self)", "$cb->($self, 1)"))
    world.code.commit("visit passes a flag")
    assert _stale(world) == [visit]


def test_a_nested_definition_and_code_after_a_doc_comment_stay_in_the_body(world: World) -> None:
    world.code.write("src/run.js", RUNNER_JS).commit("runner")
    run = world.note("run calls each task in order", "src/run.js:run")
    world.code.write("src/run.js", RUNNER_JS.replace("return null;", "return undefined;"))
    world.code.commit("stop returns undefined")
    assert _stale(world) == []
    # the nested ``step`` is run's own code
    world.code.write("src/run.js", RUNNER_JS.replace("return task();", "return task(order);"))
    world.code.commit("tasks see the order")
    assert _stale(world) == [run]


def test_pr_notes_lists_no_sub_for_the_next_ones_pod(tmp_path: Path) -> None:

    world = World(tmp_path)
    world.code.write("lib/Path/Tiny.pm", TINY_PM).commit("tiny")
    nid = world.add(
        "lines with a negative count", "lines returns the last lines", "lib/Path/Tiny.pm:lines"
    )
    world.code.branch("docs")
    reworded = TINY_PM.replace("Visits each file", "Walks every file")
    world.code.write("lib/Path/Tiny.pm", reworded).commit("reword visit's POD")
    assert nid not in [n["id"] for n in world.pr()]
    # the sub's own code changed on the branch: listed
    world.code.write("lib/Path/Tiny.pm", reworded.replace("return <$fh>;", "return ($fh);"))
    world.code.commit("lines reads a list")
    assert nid in [n["id"] for n in world.pr()]
