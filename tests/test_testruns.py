from __future__ import annotations

import pytest

from reflectgit.notes.testruns import failing_tests, failures_in, read_run, runner_of


@pytest.mark.parametrize(
    ("command", "runner"),
    [
        ("pytest -q", "pytest"),
        ("python -m pytest tests/", "pytest"),
        ("cd app && uv run pytest -x", "pytest"),
        ("npx vitest run", "vitest"),
        ("npx jest --ci", "jest"),
        ("cargo test --all", "cargo"),
        ("go test ./...", "go"),
        ("npm test", "npm"),
        ("ls -la", None),
    ],
)
def test_runner_of(command, runner):
    assert runner_of(command) == runner


@pytest.mark.parametrize(
    ("output", "failures"),
    [
        ("==== 3 failed, 41 passed in 1.84s ====", 3),
        ("==== 1 failed, 2 errors in 0.5s ====", 3),
        ("==== 44 passed in 1.62s ====", 0),
        ("==== no tests ran in 0.01s ====", 0),
        ("Tests:       2 failed, 10 passed, 12 total", 2),
        ("Tests:       12 passed, 12 total", 0),
        (" Tests  1 failed | 5 passed (6)", 1),
        ("test result: FAILED. 3 passed; 2 failed; 0 ignored", 2),
        ("test result: ok. 5 passed; 0 failed; 0 ignored", 0),
        ("--- FAIL: TestA (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL\tpkg\t0.1s", 3),
        ("ok  \tpkg\t0.1s", 0),
        ("Interrupted: 1 error during collection", None),
        ("command not found", None),
    ],
)
def test_failures_in(output, failures):
    assert failures_in(output) == failures


def test_read_run_needs_a_test_command_and_a_count():
    assert read_run("pytest", "==== 2 failed in 1s ====") == ("pytest", 2)
    assert read_run("ls", "==== 2 failed in 1s ====") is None
    assert read_run("pytest", "Killed") is None


def test_failing_test_names_are_collected():
    out = "FAILED tests/a.py::test_x - assert 1\nFAILED tests/b.py::test_y\n--- FAIL: TestZ (0s)"
    assert failing_tests(out) == ["tests/a.py::test_x", "tests/b.py::test_y", "TestZ"]
