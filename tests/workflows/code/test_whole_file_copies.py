"""A note on a whole file (a CI workflow, a test file, a manifest), against real git histories:
a line a change added that repeats a line the file already holds, anywhere in it (a CI job
copied from another, a test case written like the others, a key copied into another section
of a manifest), touched only what it does not
share with that line, for ``pr-notes`` and ``stale`` alike; each with the change that must
still list the note (a new line that states its names, a stated value rewritten), and the
symbol's block, where a line copied from further away still counts whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.codeworld import World

CI_YML = """jobs:
  msrv:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Install toolchain
        run: rustup default 1.31.0
      - run: cargo build
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Install toolchain
        run: rustup default stable
      - run: cargo test
"""
# A third job, written like the others and put first: its lines repeat lines of the file
# (the toolchain step, the checkout), more than three lines away from where it goes, or vary
# one (``cargo doc`` beside ``cargo test``).
DOCS_JOB = """  docs:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Install toolchain
        run: rustup default stable
      - run: cargo doc
"""
MSRV = ("CI builds with toolchain 1.31.0", "The msrv job installs toolchain 1.31.0 first")


@pytest.fixture
def world(tmp_path: Path) -> Any:
    w = World(tmp_path)
    w.code.write(".github/workflows/ci.yml", CI_YML).commit("ci")
    return w


def test_a_job_copied_from_the_others_lists_no_note_on_the_file(world: Any) -> None:
    nid = world.add(*MSRV, ".github/workflows/ci.yml")
    world.code.branch("docs")
    docs = CI_YML.replace("jobs:\n", "jobs:\n" + DOCS_JOB)
    world.code.write(".github/workflows/ci.yml", docs).commit("check the docs")
    # "Install toolchain" is said again, in a new job: nothing the note states changed
    assert world.pr() == []
    # the msrv job's toolchain raised: the note's 1.31.0 is gone
    world.code.branch("msrv")
    world.code.write(".github/workflows/ci.yml", CI_YML.replace("1.31.0", "1.36.0"))
    world.code.commit("raise the msrv")
    assert [n["id"] for n in world.pr("--head", "msrv")] == [nid]


def test_a_new_line_that_states_the_notes_names_still_lists_it(world: Any) -> None:
    nid = world.add(*MSRV, ".github/workflows/ci.yml")
    world.code.branch("features")
    # a new step, not a copy of any line of the file, in the msrv job
    added = CI_YML.replace(
        "      - run: cargo build\n",
        "      - run: cargo build\n      - run: cargo check --features toolchain-1.31.0\n",
    )
    world.code.write(".github/workflows/ci.yml", added).commit("check features on the msrv")
    assert [n["id"] for n in world.pr()] == [nid]


TEST_PY = """from pool import Pool


def test_acquire_waits():
    pool = Pool(size=1)
    assert pool.acquire(timeout=1)


def test_release_returns():
    pool = Pool(size=1)
    pool.release(pool.acquire(timeout=1))
    assert pool.free == 1


def test_defaults():
    assert DEFAULTS["limit"] == 10
    assert DEFAULTS["wait"] == 5
    assert DEFAULTS["name"] == "pool"
"""
NEW_TEST = """

def test_release_twice():
    pool = Pool(size=1)
    pool.release(pool.acquire(timeout=1))
    assert pool.free == 1
"""


def test_stale_reads_a_test_written_like_the_others_as_no_change(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.code.write("tests/test_pool.py", TEST_PY).commit("tests")
    nid = world.add(
        "Every pool test builds its own Pool",
        "Tests build Pool(size=1) each, with an acquire timeout of 1",
        "tests/test_pool.py",
    )
    world.code.write("tests/test_pool.py", TEST_PY + NEW_TEST).commit("release twice")
    doc = world.stale()
    # the new test, after the defaults' test, repeats what the file says further up:
    # Pool(size=1), timeout=1
    assert doc["stale"] == []
    # a test that builds its pool another way states another size: stale
    other = NEW_TEST.replace("test_release_twice", "test_big").replace("size=1", "size=8")
    world.code.write("tests/test_pool.py", TEST_PY + NEW_TEST + other).commit("a big pool")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid


POOL_PY = """class Pool:
    def acquire(self, timeout):
        conn = self.free.pop()
        self.busy.add(conn)
        self.stats.count('acquire')
        self.stats.flush()
        return conn

    def release(self, conn):
        self.busy.remove(conn)
        self.free.append(conn)
"""


def test_a_line_copied_from_further_away_in_a_symbol_still_counts_whole(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.code.write("src/pool.py", POOL_PY).commit("pool")
    nid = world.add(
        "acquire pops from free",
        "Pool.acquire takes conn from self.free and marks it busy",
        "src/pool.py:acquire",
    )
    # the pop copied to the end of acquire, more than three lines from its twin: new code there
    world.code.write(
        "src/pool.py",
        POOL_PY.replace(
            "        return conn\n", "        conn = self.free.pop()\n        return conn\n"
        ),
    )
    world.code.commit("pop twice")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid


PACKAGE_JSON = """{
  "name": "p-pool",
  "version": "1.0.0",
  "files": [
    "dist/index.js",
    "dist/index.d.ts"
  ],
  "scripts": {
    "build": "tsc",
    "test": "ava"
  },
  "devDependencies": {
    "ava": "^2.0.0"
  }
}
"""


def test_a_key_copied_into_another_section_is_no_comment(world: Any) -> None:
    world.code.write("package.json", PACKAGE_JSON).commit("package")
    nid = world.add(
        "The package publishes its build only",
        'package.json "files" lists "dist/index.js" and "dist/index.d.ts"',
        "package.json",
    )
    world.code.branch("deps")
    ava = '  "ava": {\n    "files": [\n      "test/**"\n    ]\n  },\n  "devDependencies"'
    settings = PACKAGE_JSON.replace('"^2.0.0"', '"^3.0.0"').replace('  "devDependencies"', ava)
    world.code.write("package.json", settings).commit("upgrade dependencies")
    # "files" again, for the test runner: the list the note is about did not change
    assert world.pr() == []
    world.code.branch("build")
    world.code.write("package.json", PACKAGE_JSON.replace('"dist/index.js"', '"index.js"')).commit(
        "build/"
    )
    assert [n["id"] for n in world.pr("--head", "build")] == [nid]
