"""Recognise test runs in shell commands and read their outcome from the output. Pure.

Covers pytest, jest, vitest, cargo test and go test (and the package-manager wrappers that run
them). The outcome is a failure count, or None when the output says nothing countable (the run
was interrupted, or the command was not a test run after all).
"""

from __future__ import annotations

import re
from typing import NamedTuple

_RUNNERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("pytest", re.compile(r"(?:^|[\s;&|/(])(?:py\.test|pytest|python3?\s+-m\s+pytest)\b")),
    ("vitest", re.compile(r"(?:^|[\s;&|/(])vitest\b")),
    ("jest", re.compile(r"(?:^|[\s;&|/(])jest\b")),
    ("cargo", re.compile(r"\bcargo\s+(?:\+\S+\s+)?(?:test|nextest)\b")),
    ("go", re.compile(r"\bgo\s+test\b")),
    ("npm", re.compile(r"\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test\b")),
    ("make", re.compile(r"\bmake\s+(?:\S+\s+)*?(?:test|check)\b")),
    ("tox", re.compile(r"\b(?:tox|nox)\b")),
)

_PYTEST_FAILED = re.compile(r"(\d+) (?:failed|errors?)\b")
_PYTEST_SUMMARY = re.compile(
    r"=+ .*?\b(?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected))\b.*? in [\d.]+s"
)
_PYTEST_NONE = re.compile(r"=+ no tests ran\b")
_JEST_TESTS = re.compile(r"^\s*Tests:\s+(.*)$", re.MULTILINE)
_VITEST_TESTS = re.compile(r"^\s*Tests\s+(.*)$", re.MULTILINE)
_COUNT_FAILED = re.compile(r"(\d+) failed")
_CARGO_RESULT = re.compile(r"test result: (?:ok|FAILED)\. \d+ passed; (\d+) failed")
_GO_FAIL = re.compile(r"^(?:--- FAIL:|FAIL\s)", re.MULTILINE)
_GO_OK = re.compile(r"^(?:ok|PASS)\b", re.MULTILINE)


class TestRun(NamedTuple):
    """A recognised test run: which runner, and how many tests failed."""

    runner: str
    failures: int


def runner_of(command: str) -> str | None:
    """The test runner a shell command invokes, or None."""
    for name, pattern in _RUNNERS:
        if pattern.search(command):
            return name
    return None


def failures_in(output: str) -> int | None:
    """Failures reported in test output (any supported runner), or None if it reports none."""
    total: int | None = None
    summary = _PYTEST_SUMMARY.findall(output)
    if summary:
        last = summary[-1]
        return sum(int(n) for n in _PYTEST_FAILED.findall(last))
    if _PYTEST_NONE.search(output):
        return 0
    for pattern in (_JEST_TESTS, _VITEST_TESTS):
        lines = pattern.findall(output)
        if lines:
            m = _COUNT_FAILED.search(lines[-1])
            return int(m.group(1)) if m else 0
    cargo = _CARGO_RESULT.findall(output)
    if cargo:
        return sum(int(n) for n in cargo)
    fails = len(_GO_FAIL.findall(output))
    if fails:
        total = fails
    elif _GO_OK.search(output):
        total = 0
    return total


def read_run(command: str, output: str) -> TestRun | None:
    """The run's runner and failure count, when the command is a test run that reported one."""
    runner = runner_of(command)
    if runner is None:
        return None
    failures = failures_in(output)
    if failures is None:
        return None
    return TestRun(runner, failures)


def failing_tests(output: str, limit: int = 10) -> list[str]:
    """Names of failing tests as the runner printed them (evidence for a note)."""
    names: list[str] = []
    for pattern in (
        re.compile(r"^FAILED (\S+)", re.MULTILINE),  # pytest
        re.compile(r"^\s*[✕×]\s+(.+?)(?:\s+\(\d+\s*ms\))?$", re.MULTILINE),  # jest/vitest
        re.compile(r"^---- (\S+) stdout ----", re.MULTILINE),  # cargo
        re.compile(r"^--- FAIL: (\S+)", re.MULTILINE),  # go
    ):
        for name in pattern.findall(output):
            if name not in names:
                names.append(name)
            if len(names) >= limit:
                return names
    return names
