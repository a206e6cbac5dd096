"""Recognise test runs in shell commands and read their outcome from the output. Pure.

Two tables drive it. ``COMMANDS``: which shell commands run tests, and which summary parsers
may read their output (a direct runner such as ``pytest`` only its own; a wrapper such as
``npm test``, ``make test`` or ``tox`` any of them). ``SUMMARIES``: one parser per runner, each
reading the summary line(s) that runner prints (with or without pytest's ``=====`` rails, on
stdout or stderr, whatever the verbosity).

A run is counted only when its summary says something definite: failures (a failing run) or
passed tests and no failures (a green run). "No tests ran", deselected-only and skipped-only
runs, and output without a summary (``npm test`` printing ``ok``), are not runs at all: they
neither fix nor break anything. ``covers`` tells whether a green run re-ran what a failing run
ran: the same runner over the same or a wider target.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from typing import NamedTuple

from reflectgit.notes.lazyre import Pattern


class TestRun(NamedTuple):
    """A recognised test run: runner, failures, passed tests and what it ran."""

    runner: str
    failures: int
    passed: int = 0
    target: tuple[str, ...] = ()  # paths/packages given on the command line; () = everything
    filters: tuple[str, ...] = ()  # name filters (-k, -t, -run, --grep ...): a narrower run

    @property
    def green(self) -> bool:
        return self.failures == 0 and self.passed > 0


class Counts(NamedTuple):
    failures: int
    passed: int


# --------------------------------------------------------------------------- summaries

_PYTEST_WORDS = r"(?:failed|passed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun)"
# "13 passed in 0.84s", "==== 3 failed, 41 passed, 2 warnings in 1.84s ====", "... in 61.2s (0:01:01)"
_PYTEST_LINE = Pattern(
    rf"^[=\s]*((?:\d+ {_PYTEST_WORDS}(?:, )?)+) in \d+(?:\.\d+)?s\b", re.MULTILINE
)
_PYTEST_NONE = Pattern(r"^[=\s]*no tests ran\b", re.MULTILINE)
# -qq prints no count line: the progress lines (".F.s   [100%]") are all there is.
_PYTEST_PROGRESS = Pattern(r"^(?:\S+\.py )?([.FEsxX]+)\s+\[\s*\d+%\]\s*$", re.MULTILINE)
_PAIR = Pattern(r"(\d+) (\w+)")
_JEST_TESTS = Pattern(r"^\s*Tests:\s+(.*\d+ total.*)$", re.MULTILINE)
_JEST_SUITES = Pattern(r"^\s*Test Suites:\s+(.*\d+ total.*)$", re.MULTILINE)
_VITEST_TESTS = Pattern(r"^\s*Tests\s{2,}(.*\(\d+\).*)$", re.MULTILINE)
_VITEST_FILES = Pattern(r"^\s*Test Files\s{2,}(.*\(\d+\).*)$", re.MULTILINE)
_COUNT = Pattern(r"(\d+) (failed|passed|skipped|todo|pending|total)")
_CARGO = Pattern(r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed", re.MULTILINE)
# nextest: "Summary [ 0.012s] 5 tests run: 4 passed, 1 failed, 0 skipped"
_NEXTEST = Pattern(r"^\s*Summary \[[^\]]*\]\s+\d+ tests? run: (.*)$", re.MULTILINE)
_GO_TEST_FAIL = Pattern(r"^--- FAIL: ", re.MULTILINE)  # top-level tests only, not subtests
_GO_TEST_PASS = Pattern(r"^--- PASS: ", re.MULTILINE)
_GO_PKG_FAIL = Pattern(r"^FAIL\s+\S+\s+(?:[\d.]+s|\[[^\]]*\])", re.MULTILINE)
_GO_PKG_OK = Pattern(r"^ok\s+\S+\s+(?:[\d.]+s|\(cached\))", re.MULTILINE)
_MOCHA_PASS = Pattern(r"^\s*(\d+) passing \(", re.MULTILINE)
_MOCHA_FAIL = Pattern(r"^\s*(\d+) failing\s*$", re.MULTILINE)
_NODE = Pattern(r"^[#ℹ] (tests|pass|fail|cancelled) (\d+)\s*$", re.MULTILINE)
# "11 tests, 0 failures", "1 doctest, 11 tests, 2 failures, 1 excluded"
_MIX = Pattern(
    r"^(?:\d+ (?:doctests?|propert(?:y|ies)), )*(\d+) tests?, (\d+) failures?\b", re.MULTILINE
)
_MIX_DOCTESTS = Pattern(r"^(\d+) doctests?, ", re.MULTILINE)
# bun test: " 12 pass", " 1 fail", then "Ran 13 tests across 2 files. [40.00ms]"
_BUN_RAN = Pattern(r"^Ran \d+ tests? across \d+ files?\.", re.MULTILINE)
_BUN = Pattern(r"^\s*(\d+) (pass|fail)\s*$", re.MULTILINE)


def _pytest(output: str) -> Counts | None:
    lines = _PYTEST_LINE.findall(output)
    if not lines:
        if _PYTEST_NONE.search(output):
            return Counts(0, 0)
        progress = "".join(_PYTEST_PROGRESS.findall(output))
        if not progress:
            return None
        return Counts(progress.count("F") + progress.count("E"), progress.count("."))
    counts = {word: int(n) for n, word in _PAIR.findall(lines[-1])}
    failed = counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0)
    return Counts(failed, counts.get("passed", 0) + counts.get("xpassed", 0))


def _counts(line: str) -> dict[str, int]:
    return {word: int(n) for n, word in _COUNT.findall(line)}


def _jest(output: str) -> Counts | None:
    tests = _JEST_TESTS.findall(output)
    suites = _JEST_SUITES.findall(output)
    if not tests and not suites:
        return None
    t = _counts(tests[-1]) if tests else {}
    s = _counts(suites[-1]) if suites else {}
    failed = t.get("failed", 0) or s.get("failed", 0)  # a suite that failed to run has no tests
    return Counts(failed, t.get("passed", 0))


def _vitest(output: str) -> Counts | None:
    tests = _VITEST_TESTS.findall(output)
    files = _VITEST_FILES.findall(output)
    if not tests and not files:
        return None
    t = _counts(tests[-1]) if tests else {}
    f = _counts(files[-1]) if files else {}
    return Counts(t.get("failed", 0) or f.get("failed", 0), t.get("passed", 0))


def _cargo(output: str) -> Counts | None:
    rows = _CARGO.findall(output)
    if not rows:
        return None
    return Counts(sum(int(f) for _p, f in rows), sum(int(p) for p, _f in rows))


def _nextest(output: str) -> Counts | None:
    rows = _NEXTEST.findall(output)
    if not rows:
        return None
    c = _counts(rows[-1])
    return Counts(c.get("failed", 0), c.get("passed", 0))


def _go(output: str) -> Counts | None:
    tests = len(_GO_TEST_FAIL.findall(output))
    packages = len(_GO_PKG_FAIL.findall(output))
    ok = len(_GO_PKG_OK.findall(output))
    if not (tests or packages or ok):
        return None
    # `--- FAIL: TestX` is the failing test; `FAIL <package> 0.1s` and the bare `FAIL` line
    # only repeat it. A package FAIL with no failing test (build failed, panic) counts once.
    failures = tests if tests else packages
    passed = len(_GO_TEST_PASS.findall(output)) or ok
    return Counts(failures, passed)


def _mocha(output: str) -> Counts | None:
    passing = _MOCHA_PASS.findall(output)
    failing = _MOCHA_FAIL.findall(output)
    if not passing and not failing:
        return None
    return Counts(int(failing[-1]) if failing else 0, int(passing[-1]) if passing else 0)


def _node(output: str) -> Counts | None:
    found: dict[str, int] = {}
    for key, n in _NODE.findall(output):
        found[key] = int(n)  # the last summary wins
    if "tests" not in found or ("pass" not in found and "fail" not in found):
        return None
    return Counts(found.get("fail", 0) + found.get("cancelled", 0), found.get("pass", 0))


def _bun(output: str) -> Counts | None:
    if not _BUN_RAN.search(output):
        return None
    found = {word: int(n) for n, word in _BUN.findall(output)}  # the last summary wins
    if not found:
        return None
    return Counts(found.get("fail", 0), found.get("pass", 0))


def _mix(output: str) -> Counts | None:
    rows = _MIX.findall(output)
    if not rows:
        return None
    tests, failures = (int(n) for n in rows[-1])
    docs = _MIX_DOCTESTS.findall(output)
    total = tests + (int(docs[-1]) if docs else 0)
    return Counts(failures, max(0, total - failures))


# runner -> parser. Order matters only for wrappers (the first parser that reads a summary
# wins): the specific formats first, go's loose "ok <pkg>" lines last.
SUMMARIES: tuple[tuple[str, Callable[[str], Counts | None]], ...] = (
    ("pytest", _pytest),
    ("jest", _jest),
    ("vitest", _vitest),
    ("nextest", _nextest),
    ("cargo", _cargo),
    ("mocha", _mocha),
    ("node", _node),
    ("mix", _mix),
    ("bun", _bun),
    ("go", _go),
)
_PARSERS = dict(SUMMARIES)
WRAPPER = "*"

# --------------------------------------------------------------------------- commands

# The words a shell segment starts with -> the runner (or WRAPPER: any runner's summary).
# Matched against the segment after env assignments and launchers (uv run, python -m, npx ...).
COMMANDS: tuple[tuple[str, Pattern], ...] = (
    ("pytest", Pattern(r"^(?:py\.test|pytest)(?:\s|$)")),
    ("vitest", Pattern(r"^vitest(?:\s|$)")),
    ("jest", Pattern(r"^jest(?:\s|$)")),
    ("mocha", Pattern(r"^mocha(?:\s|$)")),
    ("nextest", Pattern(r"^cargo\s+(?:\+\S+\s+)?nextest\s+run(?:\s|$)")),
    ("cargo", Pattern(r"^cargo\s+(?:\+\S+\s+)?test(?:\s|$)")),
    ("go", Pattern(r"^go\s+test(?:\s|$)")),
    ("node", Pattern(r"^(?:node|bun)\s+(?:\S+\s+)*?--test(?:\s|$)")),
    ("mix", Pattern(r"^mix\s+test(?:\s|$)")),
    (WRAPPER, Pattern(r"^(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test(?::\S+)?(?:\s|$)")),
    (WRAPPER, Pattern(r"^(?:make|just|task)\s+(?:\S+\s+)*?(?:test|tests|check)(?:\s|$)")),
    (WRAPPER, Pattern(r"^(?:tox|nox)(?:\s|$)")),
    (WRAPPER, Pattern(r"^hatch\s+(?:run\s+\S*)?test")),
)
_SEGMENTS = Pattern(r"\s*(?:&&|\|\||;|\||\n)\s*")
_ENV = Pattern(r"^[A-Za-z_][A-Za-z0-9_]*=\S*\s+")
_LAUNCHERS = Pattern(
    r"^(?:(?:uv|poetry|pdm|hatch|rye|pipenv)\s+run\s+(?:--\S+\s+)*"
    r"|python(?:3(?:\.\d+)?)?\s+-m\s+"
    r"|(?:npx|bunx|pnpx)\s+(?:--\S+\s+)*|(?:pnpm|yarn)\s+(?:exec|dlx)\s+"
    r"|mise\s+(?:exec|x)\s+(?:\S+\s+)*?--\s+"
    r"|(?:time|nice|env|command|exec)\s+|timeout\s+\S+\s+|sudo\s+(?:-\S+\s+)*)"
)
_CD = Pattern(r"^(?:cd|pushd)\s")
# Options whose next word is a value, not a target (per runner family; shared is fine).
_VALUE_OPTIONS = {
    "-k", "-m", "-p", "-c", "-n", "-o", "-W", "--maxfail", "--rootdir", "--ignore", "--deselect",
    "-t", "--testNamePattern", "--grep", "-g", "-run", "-bench", "-count", "-timeout",
    "--config", "--reporter", "-r", "--project", "-e", "--exclude", "--features", "-j",
    "--only", "--include", "--seed", "-P", "--package", "--test-threads", "--tag",
}  # fmt: skip
_FILTER_OPTIONS = {"-k", "-m", "-t", "--testNamePattern", "--grep", "-g", "-run", "--only"}


def _unwrap(segment: str) -> str:
    text = segment.strip().lstrip("(").strip()
    for _ in range(6):
        before = text
        text = _ENV.sub("", text)
        text = _LAUNCHERS.sub("", text)
        if text == before:
            break
    return text


def _test_segment(command: str) -> tuple[str, str] | None:
    """(runner or WRAPPER, the segment's words) for the first segment that runs tests."""
    for segment in _SEGMENTS.split(command):
        text = _unwrap(segment)
        if not text or _CD.match(text):
            continue
        for name, pattern in COMMANDS:
            if pattern.match(text):
                return name, text
    return None


def runner_of(command: str) -> str | None:
    """The test runner a shell command invokes ("npm", "make", "tox" for wrappers), or None."""
    found = _test_segment(command)
    if found is None:
        return None
    name, text = found
    return name if name != WRAPPER else text.split()[0]


def _target(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    paths: list[str] = []
    filters: list[str] = []
    skip_next = False
    head = 2 if len(words) > 1 and words[1] in ("test", "nextest", "run", "--test") else 1
    for i, word in enumerate(words[head:], start=head):
        if skip_next:
            skip_next = False
            if words[i - 1] in _FILTER_OPTIONS:
                filters.append(f"{words[i - 1]} {word}")
            continue
        if word in (">", "2>", "2>&1", "1>&2") or word.startswith(("2>", ">", "<")):
            break
        if word == "--" or (word == "run" and i == head):
            continue
        if word.startswith("-"):
            name, eq, value = word.partition("=")
            if eq:
                if name in _FILTER_OPTIONS:
                    filters.append(f"{name} {value}")
            elif word in _VALUE_OPTIONS:
                skip_next = True
            continue
        if word.startswith("./") and word != "./...":
            word = word[2:]  # ./tests and tests are one target
        paths.append(word.rstrip("/") or ".")
    return tuple(sorted(set(paths))), tuple(sorted(set(filters)))


def read_run(command: str, output: str) -> TestRun | None:
    """The run, when the command runs tests and the output says something definite.

    None for commands that are not test runs, and for runs that neither failed nor passed a
    test ("no tests ran", deselected-only, skipped-only, no summary at all).
    """
    found = _test_segment(command)
    if found is None:
        return None
    name, text = found
    candidates = SUMMARIES if name == WRAPPER else ((name, _PARSERS[name]),)
    for runner, parse in candidates:
        counts = parse(output)
        if counts is None:
            continue
        if counts.failures == 0 and counts.passed == 0:
            return None  # nothing ran: not green, not red
        target, filters = _target(text) if name != WRAPPER else _wrapper_target(text)
        return TestRun(runner, counts.failures, counts.passed, target, filters)
    return None


def _wrapper_target(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``npm test -- path``: what follows ``--`` is the target; otherwise the whole suite."""
    _, sep, rest = text.partition(" -- ")
    return _target("x " + rest) if sep else ((), ())


def failures_in(output: str) -> int | None:
    """Failures the first summary any runner prints reports; None without a definite summary."""
    for _runner, parse in SUMMARIES:
        counts = parse(output)
        if counts is not None:
            if counts.failures == 0 and counts.passed == 0:
                return None
            return counts.failures
    return None


def _covers_path(wide: str, narrow: str) -> bool:
    if wide in (".", "./...", "..."):
        return True
    if wide.endswith("/..."):
        wide = wide[: -len("/...")]
    narrow = narrow.removesuffix("/...")
    return narrow == wide or narrow.startswith((wide + "/", wide + "::"))


def covers(green: TestRun, failing: TestRun) -> bool:
    """Did the green run re-run what failed: the same runner, the same or a wider target?"""
    if green.runner != failing.runner:
        return False
    if green.filters and green.filters != failing.filters:
        return False
    if not green.target:
        return True
    if not failing.target:
        return False  # the failing run ran everything; the green one only part of it
    return all(any(_covers_path(w, n) for w in green.target) for n in failing.target)


def failing_tests(output: str, limit: int = 10) -> list[str]:
    """Names of failing tests as the runner printed them (evidence for a note)."""
    names: list[str] = []
    for pattern in (
        re.compile(r"^FAILED (\S+)", re.MULTILINE),  # pytest
        re.compile(r"^\s*[✕×]\s+(.+?)(?:\s+\(?\d+\s*ms\)?)?$", re.MULTILINE),  # jest/vitest
        re.compile(r"^---- (\S+) stdout ----", re.MULTILINE),  # cargo
        re.compile(r"^\s+FAIL \[[^\]]*\] (.+)$", re.MULTILINE),  # nextest
        re.compile(r"^--- FAIL: (\S+)", re.MULTILINE),  # go
        re.compile(r"^\s+\d+\) (.+)$", re.MULTILINE),  # mocha, mix
        re.compile(r"^not ok \d+ - (.+)$", re.MULTILINE),  # node --test (TAP)
    ):
        for name in pattern.findall(output):
            name = name.strip()
            if name and name not in names:
                names.append(name)
            if len(names) >= limit:
                return names
    return names


# --------------------------------------------------------------------------- the error line

# A line a runner prints around every run, failing or not: never the error a note quotes.
HEADERS = Pattern(
    r"^(?:=+ ?test session starts ?=+|platform \S+ -- Python|rootdir:|cachedir:|configfile:"
    r"|testpaths:|plugins:|collect(?:ed|ing) \d+ items?|=+ (?:FAILURES|ERRORS) =+"
    r"|=+ short test summary info =+|Exit code -?\d+$"  # pytest; Claude Code's error prefix
    r"|(?:PASS|FAIL|RUNS) \S|Test Suites:|Tests:|Snapshots:|Time:|Ran all test suites"  # jest
    r"|Test Files |Duration |Start at |RUN v\d|❯ |[✓×✕] "  # vitest
    r"|=== (?:RUN|PAUSE|CONT|NAME)\b|--- (?:FAIL|PASS|SKIP):|FAIL\s*$|FAIL\s+\S+\s|ok\s+\S+\s"  # go
    r"|running \d+ tests?|test \S+ \.\.\. |failures:|test result:|Compiling |Finished |Running "
    r"|error: test failed|---- \S+ stdout ----"  # cargo
    r"|Finished in \d|\d+ (?:doctests?|tests?), \d+ failures?|Randomized with seed"  # mix
    r"|\d+ (?:passing|failing|pending)\b)"  # mocha
)
# The line that says what went wrong, per runner (the first match in the output wins), then
# for every runner. Each group 1 is the text quoted.
ERRORS: tuple[tuple[str, Pattern], ...] = (
    ("pytest", Pattern(r"^E\s+(\S.*)$", re.MULTILINE)),
    ("pytest", Pattern(r"^(?:FAILED|ERROR) \S+ - (\S.*)$", re.MULTILINE)),
    # No E line (``--tb=no``, a crash): the first unindented line of the failures section.
    (
        "pytest",
        Pattern(r"^=+ (?:FAILURES|ERRORS) =+$\n(?:(?:_{3,}.*|[ \t>].*|)\n)*([^\s>_=].*)$", re.M),
    ),
    ("jest", Pattern(r"^\s*(expect\(.+)$", re.MULTILINE)),
    ("vitest", Pattern(r"^\s*(?:→|⎯+ FAIL) (\S.*)$", re.MULTILINE)),
    ("go", Pattern(r"^\s+\S+_test\.go:\d+: (\S.*)$", re.MULTILINE)),
    ("cargo", Pattern(r"^(assertion .* failed.*)$", re.MULTILINE)),
    ("cargo", Pattern(r"^thread '.*' panicked at (\S.*)$", re.MULTILINE)),
    ("nextest", Pattern(r"^(assertion .* failed.*)$", re.MULTILINE)),
    ("mix", Pattern(r"^\s*(\*\* \(\S+\) \S.*)$", re.MULTILINE)),
    ("mix", Pattern(r"^\s*(Assertion with \S+ failed.*)$", re.MULTILINE)),
    ("node", Pattern(r"^\s*error: '?(\S.*?)'?$", re.MULTILINE)),
    (
        WRAPPER,
        Pattern(
            r"^\s*((?:[\w.]*(?:Error|Exception)(?: \[\w+\])?|panic|error(?:\[E\d+\])?): \S.*)$",
            re.MULTILINE,
        ),
    ),
)
ERROR_CAP = 200


def first_error(output: str, runner: str | None = None) -> str:
    """The first line of a failing run's output that says what went wrong: the runner's own
    error line, else any ``SomethingError: ...`` line; never a runner's header (``HEADERS``).
    "" when the output holds none (a summary alone says nothing about the failure)."""
    best: tuple[int, str] | None = None
    for name, pattern in ERRORS:
        if name not in (runner, WRAPPER):
            continue
        for m in pattern.finditer(output):
            line = m.group(1).strip()
            if not line or HEADERS.match(line):
                continue
            if name != WRAPPER:
                return line[:ERROR_CAP]
            if best is None or m.start() < best[0]:
                best = (m.start(), line)
            break
    return best[1][:ERROR_CAP] if best else ""
