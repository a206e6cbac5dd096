"""``reflect-git pr-notes`` weighs evidence as a reviewer would, against real git histories:
each kind of change that put a note on a list it did not belong on (a 0 or a 1 written in the
anchored code, a file moved with the symbol's code unchanged, a typo fixed in prose, a
symbol of the same name in another file), each with the change of the same
shape that must still list the note."""

from __future__ import annotations

from typing import Any

from tests.conftest import git

BACKOFF_PY = """def backoff(n):
    n = max(n, 0)
    return min(2 ** n, 60)
"""


def ids(notes: list[dict[str, Any]]) -> list[str]:
    return [n["id"] for n in notes]


def test_a_0_or_a_1_written_in_the_anchored_code_is_no_news_of_it(world: Any) -> None:
    world.code.write("src/backoff.py", BACKOFF_PY).commit("backoff")
    nid = world.add(
        "Backoff is capped at 60 seconds",
        "backoff waits 2 ** n seconds, at most 60; a negative n counts as 0",
        "src/backoff.py:backoff",
    )
    world.code.branch("clamp")
    world.code.write("src/backoff.py", BACKOFF_PY.replace("max(n, 0)", "n if n > 0 else 0"))
    world.code.commit("clamp without a call")
    # the changed line holds a 0 the note states, and nothing else it states
    assert nid not in ids(world.pr())
    world.code.branch("cap")
    world.code.write("src/backoff.py", BACKOFF_PY.replace("60", "120")).commit("wait longer")
    why = {n["id"]: n["why"] for n in world.pr("--head", "cap")}
    assert why[nid].endswith("(the note names 2, 60)")  # 60 is news of it; 2 stands beside


def test_a_symbol_whose_file_only_moved_is_not_listed_but_a_file_anchor_is(world: Any) -> None:
    on_symbol = world.add("Backoff doubles", "backoff returns 2 ** n", "src/retry.py:backoff")
    on_file = world.add("Retry module", "the retry module holds the backoff", "src/retry.py")
    world.code.branch("moves")
    world.code.move("src/retry.py", "src/backoff.py").commit("move retry")
    listed = ids(world.pr())
    assert on_file in listed  # the note names the path the change renames
    assert on_symbol not in listed  # its code is the same; `stale` reports the anchor moved
    world.code.branch("moves-and-caps")
    world.code.write("src/backoff.py", "def backoff(n):\n    return min(2 ** n, 60)\n")
    world.code.commit("cap")
    assert on_symbol in ids(world.pr("--head", "moves-and-caps"))


README = """# billing

Licence: Apache-2.0. Some benchmakrs come from the Poison library under CC0.
"""


def test_a_typo_fixed_in_prose_says_what_it_said(world: Any) -> None:
    world.code.write("README.md", README).commit("readme")
    nid = world.add(
        "README: benchmark data came from Poison under CC0",
        "The README says some benchmarks come from Poison under CC0",
        "README.md",
    )
    world.code.branch("typo")
    world.code.write("README.md", README.replace("benchmakrs", "benchmarks")).commit("typo")
    assert world.pr() == []
    world.code.branch("relicensed")
    world.code.write("README.md", README.replace("benchmakrs", "benchmarks").replace("CC0", "MIT"))
    world.code.commit("the benchmarks are MIT now")
    assert nid in ids(world.pr("--head", "relicensed"))


NODE_JS = """function useColors() {
  return process.stderr.isTTY;
}
"""
BROWSER_JS = """function useColors() {
  return typeof window !== 'undefined';
}
"""


def test_a_symbol_is_a_notes_subject_only_in_a_file_of_its_anchors_name(world: Any) -> None:
    world.code.write("src/node.js", NODE_JS).write("lib/browser.js", BROWSER_JS).commit("both")
    on_node = world.add(
        "Node colours need a TTY", "useColors is true when stderr is a TTY", "src/node.js:useColors"
    )
    on_browser = world.add(
        "Browser colours need a window",
        "useColors is true when there is a window",
        "lib/browser.js:useColors",
    )
    # the browser build is rewritten in src/: not a rename git follows, the anchor stays behind,
    # and none of its code is left to read it as moved there (MOVED)
    rewritten = "function useColors() {\n  return navigator.userAgent.includes('Chrome');\n}\n"
    world.code.delete("lib/browser.js")
    world.code.write("src/browser.js", rewritten)
    world.code.commit("rewrite the browser build")
    world.code.branch("firefox")
    firefox = rewritten.replace("'Chrome')", "'Chrome') || !!navigator.mozGetUserMedia")
    world.code.write("src/browser.js", firefox)
    world.code.commit("colours in firefox")
    why = {n["id"]: n["why"] for n in world.pr()}
    # lib/browser.js defines it no more: src/browser.js's is where it is now
    assert why[on_browser].startswith("mentions useColors (changed symbol)")
    assert on_node not in why  # node.js's useColors is another definition


def test_a_name_only_a_commit_message_says_is_the_subject_of_its_anchor_not_a_title(
    world: Any,
) -> None:
    world.code.write("src/warm.py", "def warm_pool(pool):\n    pool.fill()\n").commit("warm")
    titled = world.add(
        "The warm_pool setting prefills at startup",
        "warm_pool in the settings makes the server prefill before serving",
        "src/retry.py:backoff",
    )
    anchored = world.add(
        "Warming fills the pool first",
        "warm_pool fills every slot before the first request",
        "src/warm.py:warm_pool",
    )
    world.code.branch("worker")
    world.code.write("src/worker.py", "def run(jobs):\n    return [j() for j in jobs]\n")
    world.code.commit("Run jobs once warm_pool is done")
    why = {n["id"]: n["why"] for n in world.pr()}
    # the message names the anchored symbol: the change says it is about that code
    assert why[anchored].startswith("mentions warm_pool (named in a commit message)")
    # the title's setting of that name is what the note is about at large, not this change
    assert titled not in why


def test_a_titles_name_in_a_commit_message_counts_when_the_code_touched_an_anchored_symbol(
    world: Any,
) -> None:
    world.code.write("lib/store.js", "function load() {\n  return window.storage;\n}\n")
    world.code.commit("store")
    nid = world.add(
        "Namespaces come from localStorage_debug only",
        "load reads localStorage_debug and nothing else",
        "lib/store.js:load",
    )
    # rewritten in src/: not a rename git follows, the anchor stays behind
    world.code.delete("lib/store.js")
    world.code.write("src/store.js", "function load() {\n  return globalThis.storage;\n}\n")
    world.code.write("src/other.js", "function save() {\n  return 1;\n}\n")
    world.code.commit("rewrite the store")
    world.code.branch("near")
    world.code.write("src/other.js", "function save() {\n  return 2;\n}\n")
    world.code.commit("Read localStorage_debug later")
    assert world.pr() == []  # the message names the title's name; the code touched another
    git("checkout", "-q", "main", cwd=world.code.path)
    world.code.branch("fallback")
    world.code.write("src/store.js", "function load() {\n  return globalThis.storage || {};\n}\n")
    world.code.commit("Fall back when localStorage_debug is missing")
    why = {n["id"]: n["why"] for n in world.pr("--head", "fallback")}
    assert why[nid].startswith("mentions localStorage_debug (named in a commit message)")


PACKAGE_JSON = """{
  "name": "billing",
  "main": "./node.js",
  "browser": "./browser.js",
  "keywords": ["billing"]
}
"""
PACKAGE_NOTE = (
    "package.json points main and browser at the root files",
    "`main` is `./node.js` and `browser` is `./browser.js`: moving a source file means "
    "editing both",
    "package.json",
)
# prefill's note: the change below also passes a timeout in prefill, on what the note states
PREFILL = ("Prefill opens every connection", "prefill calls open_connection size times")


def _words_world(world: Any) -> tuple[str, str]:
    world.code.write("package.json", PACKAGE_JSON).commit("package")
    return world.add(*PACKAGE_NOTE), world.add(*PREFILL, "src/pool.py:prefill")


def _prefill_changed(world: Any) -> None:
    pool = (world.code.path / "src/pool.py").read_text()
    world.code.write("src/pool.py", pool.replace("open_connection()", "open_connection(5)"))


def test_a_whole_files_change_to_plain_words_it_states_is_weaker_than_a_named_change(
    world: Any,
) -> None:
    on_file, on_prefill = _words_world(world)
    world.code.branch("keywords")
    # the new keyword holds "browser", a plain word the note states; nothing else it states
    world.code.write("package.json", PACKAGE_JSON.replace('["billing"]', '["billing", "browser"]'))
    _prefill_changed(world)
    world.code.commit("keywords, and a timeout when prefilling")
    assert ids(world.pr()) == [on_prefill]  # WORDS_ONLY: beside a change to what a note names
    # alone, the word is all the evidence there is: the note is listed, and says why
    git("checkout", "-q", "main", cwd=world.code.path)
    world.code.branch("keywords-only")
    world.code.write("package.json", PACKAGE_JSON.replace('["billing"]', '["billing", "browser"]'))
    world.code.commit("keywords")
    notes = world.pr("--head", "keywords-only")
    assert ids(notes) == [on_file]
    assert notes[0]["why"] == (
        "anchored to package.json, which this change modifies (the note names browser)"
    )


def test_a_whole_files_change_to_a_string_it_quotes_is_named_evidence(world: Any) -> None:
    on_file, on_prefill = _words_world(world)
    world.code.branch("dist")
    # the browser entry moves: "./browser.js", which the note quotes, is gone
    world.code.write("package.json", PACKAGE_JSON.replace("./browser.js", "./dist/browser.js"))
    _prefill_changed(world)
    world.code.commit("browser build in dist, and a timeout when prefilling")
    assert set(ids(world.pr())) == {on_file, on_prefill}


README_MD = """# billing

Run it in the browser or under node.
"""


def test_a_prose_files_words_are_what_it_says(world: Any) -> None:
    world.code.write("README.md", README_MD).commit("readme")
    on_readme = world.add(
        "The README says it runs in the browser",
        "the README says billing runs in the browser",
        "README.md",
    )
    on_prefill = world.add(*PREFILL, "src/pool.py:prefill")
    world.code.branch("no-browser")
    world.code.write("README.md", README_MD.replace("in the browser or ", ""))
    _prefill_changed(world)
    world.code.commit("not in the browser any more, and a timeout when prefilling")
    # a plain word, but in prose: the sentence that said it is what changed
    assert set(ids(world.pr())) == {on_readme, on_prefill}


def test_a_whole_file_renamed_and_changed_on_plain_words_is_still_listed(world: Any) -> None:
    on_file, on_prefill = _words_world(world)
    world.code.branch("moved")
    world.code.move("package.json", "web/package.json")
    world.code.write(
        "web/package.json", PACKAGE_JSON.replace('["billing"]', '["billing", "browser"]')
    )
    _prefill_changed(world)
    world.code.commit("package in web/, and a timeout when prefilling")
    # the note names the path the change moves: the rename is news of it, whatever the words
    assert set(ids(world.pr())) == {on_file, on_prefill}
