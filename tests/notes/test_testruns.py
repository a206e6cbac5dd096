"""The test-run tables: every runner with outputs it really prints, and what must not count."""

from __future__ import annotations

import json

import pytest

from reflectgit.notes.testruns import (
    HEADERS,
    covers,
    failing_tests,
    failures_in,
    first_error,
    read_run,
    runner_of,
)
from tests.conftest import DATA, needs_shared

PYTEST_RED_RAILS = (
    "=========================== short test summary info ============================\n"
    "FAILED tests/test_invoice.py::test_tax - AssertionError\n"
    "========================= 3 failed, 41 passed in 1.84s ========================="
)
PYTEST_RED_Q = "FAILED test_a.py::test_bad - assert 1 == 2\n1 failed, 1 passed in 1.11s"
PYTEST_GREEN_Q = (
    "........                                                [100%]\n13 passed in 0.84s"
)
PYTEST_RED_QQ = ".F                                                     [100%]\n"
PYTEST_GREEN_QQ = ".                                                      [100%]\n"
JEST_RED = (
    "FAIL src/sum.test.js\n  ✕ adds (3 ms)\n\nTest Suites: 1 failed, 1 total\n"
    "Tests:       1 failed, 2 passed, 3 total\nSnapshots:   0 total\nTime:        0.5 s"
)
JEST_GREEN = "PASS src/sum.test.js\nTest Suites: 1 passed, 1 total\nTests:       3 passed, 3 total"
VITEST_RED = (
    " ❯ src/a.test.ts (16 tests | 1 failed | 15 skipped) 1316ms\n       × sets default\n\n"
    " Test Files  1 failed (1)\n      Tests  1 failed | 15 skipped (16)\n"
)
VITEST_GREEN = " Test Files  1 passed (1)\n      Tests  16 passed (16)\n"
CARGO_RED = (
    "running 2 tests\ntest tests::a ... ok\ntest tests::b ... FAILED\n\nfailures:\n\n"
    "---- tests::b stdout ----\nthread 'tests::b' panicked\n\n"
    "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s"
)
CARGO_GREEN = (
    "test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n"
    "   Doc-tests demo\n"
    "test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out"
)
NEXTEST_RED = (
    "        FAIL [   0.004s] demo tests::b\n"
    "     Summary [   0.012s] 5 tests run: 4 passed, 1 failed, 0 skipped\n"
    "error: test run failed"
)
NEXTEST_GREEN = "     Summary [   0.010s] 5 tests run: 5 passed, 0 skipped"
GO_RED = (
    "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1 want 2\n"
    "FAIL\nFAIL\texample.com/demo/parse\t0.003s\nok  \texample.com/demo/util\t0.002s\nFAIL"
)
GO_GREEN = "ok  \texample.com/demo/parse\t0.003s\nok  \texample.com/demo/util\t(cached)"
GO_SUBTESTS = (
    "--- FAIL: TestTable (0.00s)\n    --- FAIL: TestTable/one (0.00s)\n"
    "    --- FAIL: TestTable/two (0.00s)\nFAIL\nFAIL\tpkg\t0.1s\nFAIL"
)
GO_BUILD = (
    "# example.com/demo\n./a.go:3:1: syntax error\nFAIL\texample.com/demo [build failed]\nFAIL"
)
MOCHA_RED = "  3 passing (12ms)\n  2 failing\n\n  1) Array\n       #indexOf():\n"
MOCHA_GREEN = "  5 passing (9ms)\n  1 pending\n"
NODE_TAP_RED = "not ok 2 - bad\n1..2\n# tests 2\n# suites 0\n# pass 1\n# fail 1\n# cancelled 0"
NODE_SPEC_GREEN = "✔ ok (0.5ms)\nℹ tests 2\nℹ suites 0\nℹ pass 2\nℹ fail 0\nℹ cancelled 0"
MIX_RED = (
    "  1) test greets (HelloTest)\n     test/hello_test.exs:5\n\n"
    "Finished in 0.03 seconds (0.00s async, 0.03s sync)\n1 doctest, 11 tests, 2 failures"
)
MIX_GREEN = "Finished in 0.03 seconds (0.00s async, 0.03s sync)\n1 doctest, 11 tests, 0 failures"


# bun test's summary (a real run's tail)
BUN_GREEN = " 1274 pass\n 0 fail\n 2760 expect() calls\nRan 1274 tests across 56 files. [813.00ms]"
BUN_RED = "(fail) rounds half up [0.20ms]\n\n 12 pass\n 1 fail\n 30 expect() calls\nRan 13 tests across 2 files. [40.00ms]"


@pytest.mark.parametrize(
    ("command", "runner"),
    [
        ("pytest -q", "pytest"),
        ("python -m pytest tests/", "pytest"),
        ("python3.12 -m pytest -x", "pytest"),
        ("cd app && uv run pytest -x", "pytest"),
        ("uv run --frozen pytest -q 2>&1 | tail -20", "pytest"),
        ("PYTHONPATH=. poetry run pytest", "pytest"),
        ("tox -e py312", "tox"),
        ("npx vitest run", "vitest"),
        ("npx jest --ci", "jest"),
        ("pnpm exec mocha", "mocha"),
        ("cargo test --all", "cargo"),
        ("cargo +nightly test", "cargo"),
        ("cargo nextest run", "nextest"),
        ("go test ./...", "go"),
        ("node --test", "node"),
        ("node --experimental-test-coverage --test test/", "node"),
        ("mix test", "mix"),
        ("MIX_ENV=test mix test test/hello_test.exs", "mix"),
        ("npm test", "npm"),
        ("npm run test:unit", "npm"),
        ("make test", "make"),
        # mise's exec launches a runner with the project's toolchain
        ("mise exec -- go test ./internal/sem -run '^TestAnalyze' -count=1", "go"),
        ("mise x go@1.24 -- go test ./...", "go"),
        # negatives: commands that mention a runner without running tests
        ("ls -la", None),
        ("pip install pytest pytest-cov", None),
        ("uv add --dev pytest", None),
        ("cat pytest.ini", None),
        ("npm install --save-dev jest", None),
        ("go build ./...", None),
        ("cargo build --tests", None),
        ("git commit -m 'make pytest pass'", None),
        ("echo go test", None),
        ("mix deps.get", None),
        ("mise install", None),
        ("mise exec -- go build ./...", None),
        ("mise run build", None),
        ("node server.js --testing", None),
    ],
)
def test_runner_of(command, runner):
    assert runner_of(command) == runner


@pytest.mark.parametrize(
    ("command", "output", "expected"),
    [
        ("pytest", PYTEST_RED_RAILS, ("pytest", 3, 41)),
        ("pytest -q", PYTEST_RED_Q, ("pytest", 1, 1)),
        ("uv run pytest -q", PYTEST_GREEN_Q, ("pytest", 0, 13)),
        ("pytest -qq", PYTEST_RED_QQ, ("pytest", 1, 1)),
        ("pytest -qq", PYTEST_GREEN_QQ, ("pytest", 0, 1)),
        ("pytest -v", "==== 1 failed, 2 errors in 0.5s ====", ("pytest", 3, 0)),
        ("pytest", "=== 3 passed, 2 warnings in 61.20s (0:01:01) ===", ("pytest", 0, 3)),
        ("tox -e py", "py: commands[0]> pytest\n" + PYTEST_GREEN_Q, ("pytest", 0, 13)),
        ("mise exec -- go test ./internal/sem", "ok  \tgithub.com/x/sem\t1.163s\n", ("go", 0, 1)),
        ("npx jest", JEST_RED, ("jest", 1, 2)),
        ("npx jest", JEST_GREEN, ("jest", 0, 3)),
        ("npx vitest run", VITEST_RED, ("vitest", 1, 0)),
        ("npm test -- src/a.test.ts", VITEST_GREEN, ("vitest", 0, 16)),
        ("cargo test", CARGO_RED, ("cargo", 1, 1)),
        ("cargo test", CARGO_GREEN, ("cargo", 0, 6)),
        ("cargo nextest run", NEXTEST_RED, ("nextest", 1, 4)),
        ("cargo nextest run", NEXTEST_GREEN, ("nextest", 0, 5)),
        ("go test ./...", GO_RED, ("go", 1, 1)),  # `FAIL <pkg>` and bare `FAIL` do not count
        ("go test ./...", GO_GREEN, ("go", 0, 2)),
        ("go test ./...", GO_SUBTESTS, ("go", 1, 0)),  # one test with two failing subtests
        ("go test ./...", GO_BUILD, ("go", 1, 0)),  # a package that does not build
        ("npx mocha", MOCHA_RED, ("mocha", 2, 3)),
        ("npm test", MOCHA_GREEN, ("mocha", 0, 5)),
        ("node --test", NODE_TAP_RED, ("node", 1, 1)),
        ("node --test", NODE_SPEC_GREEN, ("node", 0, 2)),
        ("mix test", MIX_RED, ("mix", 2, 10)),
        ("mix test", MIX_GREEN, ("mix", 0, 12)),
        ("bun run test 2>&1 | tail -30", BUN_GREEN, ("bun", 0, 1274)),
        ("bun test", BUN_RED, ("bun", 1, 12)),
    ],
)
def test_read_run_counts(command, output, expected):
    run = read_run(command, output)
    assert run is not None
    assert (run.runner, run.failures, run.passed) == expected
    assert run.green == (expected[1] == 0)


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("pytest -q", "no tests ran in 0.75s"),
        (
            "pytest",
            "============================ no tests ran in 0.73s =============================",
        ),
        ("pytest -q -k nonexistent", "2 deselected in 0.74s"),
        ("pytest -q", "3 skipped in 0.02s"),
        ("npx jest", "Test Suites: 1 skipped, 1 total\nTests:       4 skipped, 4 total"),
        ("npx jest", "Test Suites: 0 total\nTests:       0 total"),
        ("npx vitest run", " Test Files  1 skipped (1)\n      Tests  3 skipped (3)\n"),
        ("cargo test", "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured"),
        ("go test ./...", "?   \texample.com/demo\t[no test files]"),
        ("mix test", "Finished in 0.0 seconds\n0 tests, 0 failures"),
        ("bun test", " 3 pass\n 0 fail\n"),  # no "Ran N tests across" line: not bun's summary
        ("bun run lint", BUN_GREEN),  # not a test command
        ("npm test", "ok"),  # a script that prints ok is not a test summary
        ("npm test", "> demo@1.0.0 test\n> echo ok\n\nok"),
        ("pytest", "Interrupted: 1 error during collection"),
        ("pytest", "Killed"),
        ("ls", "==== 2 failed in 1s ===="),  # not a test command
        ("pytest", JEST_RED),  # a direct runner reads only its own summary
        ("npx jest", "Tests  1 failed | 1 passed (2)"),  # vitest's line is not jest's
    ],
)
def test_runs_that_say_nothing_definite_are_not_runs(command, output):
    assert read_run(command, output) is None


def test_jest_output_on_stderr_reads_the_same():
    # Jest prints its summary on stderr; the hook joins stdout and stderr, either order.
    assert read_run("npx jest", "\n" + JEST_GREEN) == read_run("npx jest", JEST_GREEN)


@pytest.mark.parametrize(
    ("output", "failures"),
    [
        ("==== 3 failed, 41 passed in 1.84s ====", 3),
        ("13 passed in 0.84s", 0),
        ("Tests:       2 failed, 10 passed, 12 total", 2),
        ("test result: FAILED. 3 passed; 2 failed; 0 ignored", 2),
        (GO_RED, 1),
        ("==== no tests ran in 0.01s ====", None),
        ("command not found", None),
        ("ok", None),
    ],
)
def test_failures_in(output, failures):
    assert failures_in(output) == failures


@pytest.mark.parametrize(
    ("red", "green", "fix"),
    [
        ("pytest -q", "pytest -q", True),
        ("pytest tests/test_a.py", "pytest", True),  # wider
        ("pytest tests/test_a.py::test_x", "pytest tests/test_a.py", True),
        ("pytest tests/unit/test_a.py", "uv run pytest tests", True),
        ("go test ./pkg/parse", "go test ./...", True),
        ("pytest ./tests/test_a.py", "pytest tests/", True),
        ("go test ./pkg/...", "go test ./...", True),
        ("pytest", "pytest tests/test_b.py", False),  # narrower: another file
        ("pytest tests/test_a.py", "pytest tests/test_b.py", False),
        ("pytest", "pytest -k test_x", False),  # a name filter is narrower
        ("pytest -k slow", "pytest -k fast", False),
        ("go test ./...", "go test ./pkg/util", False),
    ],
)
def test_a_fix_is_the_same_runner_over_the_same_or_a_wider_target(red, green, fix):
    failing = read_run(red, "1 failed, 3 passed in 0.1s" if "pytest" in red else GO_RED)
    passing = read_run(green, "4 passed in 0.1s" if "pytest" in green else GO_GREEN)
    assert failing is not None and passing is not None
    assert covers(passing, failing) is fix


def test_another_runner_going_green_is_not_a_fix():
    failing = read_run("pytest -q", PYTEST_RED_Q)
    passing = read_run("npx jest", JEST_GREEN)
    assert failing is not None and passing is not None
    assert not covers(passing, failing)


def test_failing_test_names_are_collected():
    out = "FAILED tests/a.py::test_x - assert 1\nFAILED tests/b.py::test_y\n--- FAIL: TestZ (0s)"
    assert failing_tests(out) == ["tests/a.py::test_x", "tests/b.py::test_y", "TestZ"]
    assert failing_tests(NODE_TAP_RED) == ["bad"]
    assert failing_tests(PYTEST_GREEN_Q) == []


# --------------------------------------------------------------------------- the error line

PYTEST_HEADER = (
    "============================= test session starts ==============================\n"
    "platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0\n"
    "rootdir: /home/dev/src/billing\n"
    "configfile: pyproject.toml\n"
    "plugins: anyio-4.4.0\n"
    "collected 44 items\n\n"
    "tests/test_invoice.py ..F.F..F\n\n"
)
PYTEST_LONG = (
    PYTEST_HEADER
    + "=================================== FAILURES ===================================\n"
    "________________________________ test_rounding _________________________________\n\n"
    "    def test_rounding():\n"
    ">       assert total(Decimal('10.005')) == Decimal('10.01')\n"
    "E       AssertionError: assert Decimal('10.00') == Decimal('10.01')\n\n"
    "tests/test_invoice.py:12: AssertionError\n" + PYTEST_RED_RAILS
)
JEST_LONG = (
    "FAIL src/sum.test.js\n  ✕ adds (3 ms)\n\n  ● adds\n\n"
    "    expect(received).toBe(expected) // Object.is equality\n\n"
    "    Expected: 3\n    Received: 4\n\n"
    "Test Suites: 1 failed, 1 total\nTests:       1 failed, 2 passed, 3 total\n"
)
VITEST_LONG = (
    " ❯ src/a.test.ts (2 tests | 1 failed) 12ms\n   × sets default\n"
    "     → expected 'auto' to be 'manual' // Object.is equality\n\n"
    " Test Files  1 failed (1)\n      Tests  1 failed | 1 passed (2)\n"
)
GO_LONG = (
    "=== RUN   TestParse\n--- FAIL: TestParse (0.00s)\n"
    '    parse_test.go:14: Parse("1h") = 0, want 3600\n'
    "FAIL\nFAIL\texample.com/dur\t0.003s\n"
)
CARGO_LONG = (
    "running 1 test\ntest tests::adds ... FAILED\n\nfailures:\n\n"
    "---- tests::adds stdout ----\n"
    "thread 'tests::adds' panicked at src/lib.rs:9:9:\n"
    "assertion `left == right` failed\n  left: 4\n right: 3\n\n"
    "test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n"
)
MIX_LONG = (
    "  1) test post commit event (SpotterWeb.HooksControllerTest)\n"
    "     test/spotter_web/controllers/hooks_controller_test.exs:98\n"
    "     ** (FunctionClauseError) no function clause matching in OtelTraceHelpers.with_span/3\n"
    "\nFinished in 1.9 seconds (0.4s async, 1.5s sync)\n14 doctests, 297 tests, 1 failure\n"
)


@pytest.mark.parametrize(
    ("runner", "output", "error"),
    [
        ("pytest", PYTEST_LONG, "AssertionError: assert Decimal('10.00') == Decimal('10.01')"),
        ("pytest", PYTEST_RED_Q, "assert 1 == 2"),  # the FAILED line's reason (-q, no E lines)
        ("pytest", "Exit code 1\n" + PYTEST_HEADER + PYTEST_RED_RAILS, "AssertionError"),
        (
            "pytest",  # no E line, no reason: the first line of the failures section
            PYTEST_HEADER + "=== FAILURES ===\nCannot start a runtime from within a runtime\n",
            "Cannot start a runtime from within a runtime",
        ),
        ("jest", JEST_LONG, "expect(received).toBe(expected) // Object.is equality"),
        ("vitest", VITEST_LONG, "expected 'auto' to be 'manual' // Object.is equality"),
        ("go", GO_LONG, 'Parse("1h") = 0, want 3600'),
        ("cargo", CARGO_LONG, "assertion `left == right` failed"),
        (
            "mix",
            MIX_LONG,
            "** (FunctionClauseError) no function clause matching in OtelTraceHelpers.with_span/3",
        ),
        (
            "mocha",
            "  1) adds:\n     TypeError: sum is not a function\n",
            "TypeError: sum is not a function",
        ),
    ],
)
def test_first_error_is_the_line_that_says_what_went_wrong(runner, output, error):
    assert first_error(output, runner) == error


@pytest.mark.parametrize(
    ("runner", "output"),
    [
        # A runner's header and summary say nothing about the failure.
        ("pytest", PYTEST_HEADER + "========================= 3 failed, 41 passed in 1.84s ===="),
        ("jest", JEST_RED),
        ("vitest", VITEST_RED),
        ("go", "=== RUN   TestX\n--- FAIL: TestX (0.00s)\nFAIL\nFAIL\tpkg\t0.1s\n"),
        (
            "cargo",
            "running 2 tests\ntest a ... FAILED\nfailures:\ntest result: FAILED. 1 passed; 1 failed",
        ),
        (
            "mix",
            "Finished in 1.9 seconds (0.4s async, 1.5s sync)\n14 doctests, 297 tests, 11 failures",
        ),
        ("pytest", ""),
    ],
)
def test_a_runner_header_or_summary_is_never_the_error_line(runner, output):
    assert first_error(output, runner) == ""


def test_the_header_table_knows_each_runner_header():
    for line in (
        "rootdir: /home/dev/src/billing",
        "platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0",
        "collected 44 items",
        "============================= test session starts ==============================",
        "Test Suites: 1 failed, 1 total",
        "=== RUN   TestParse",
        "running 2 tests",
        "test result: FAILED. 1 passed; 1 failed",
        "Finished in 1.9 seconds (0.4s async, 1.5s sync)",
    ):
        assert HEADERS.match(line), line
    for line in ("AssertionError: assert 1 == 2", "Cannot start a runtime", "expect(x).toBe(y)"):
        assert not HEADERS.match(line), line


def _real_output(name: str, index: int) -> str:
    for folder in (DATA / "real" / "hook-events", DATA / "hook-events"):
        if (folder / name).exists():
            event = json.loads((folder / name).read_text())[index]
            response = event.get("tool_response") or {}
            if isinstance(response, str):  # Codex: a header, then the output
                return response
            return event.get("error") or response.get("stdout", "")
    raise AssertionError(name)


@needs_shared
@pytest.mark.parametrize(
    ("name", "index", "runner", "error"),
    [
        # PostToolUseFailure.error: Claude Code's "Exit code 1", pytest's header, an E line.
        (
            "doc-claude-pytest-red-green.json",
            2,
            "pytest",
            "AssertionError: assert Decimal('10.00') == Decimal('10.01')",
        ),
        ("test-fix.json", 1, "pytest", "Cannot start a runtime from within a runtime"),
        # A real `mix test | tail -30`: 11 failures, the error lines cut off above the tail.
        ("derived-spotter-ae4a77f8.json", 107, "mix", ""),
        # A real vitest run in Codex's string output: the failing test's name, no error line.
        ("codex-hooks.json", 3, "vitest", ""),
    ],
)
def test_first_error_on_real_runs(name, index, runner, error):
    output = _real_output(name, index)
    assert first_error(output, runner) == error
