"""Routine fixes: an error whose fix a teammate gets told anyway. Pure, regex only.

A fix note is worth keeping when its cause is not obvious: a trap of a library, a rule of the
codebase, a step the error does not name. A routine fix teaches nothing a teammate would not be
told by the tool that raised it, the next time, in the same words:

- a linter's, formatter's or compiler's style warning (an unused alias, a nesting depth, a
  format check): the tool names the fix itself;
- a typo;
- a definition, module file or import the session had not written yet (the compiler's
  "undefined" names what to add, or a test written first says it "doesn't exist yet"), and a
  reference left over by the session's own rename;
- a test's expected value brought in line with the code (the test changed, not the code), or
  the code brought in line with what a test expects, the cause saying nothing but what the
  test expects (the test states what the code is to do: doing it is the task).

``routine(problem, fix)`` says which of these a fix is (its reason, for the event record), or
``""`` when it may carry a lesson. It reads the problem and the fix as the writer stated them,
never a whole transcript.
"""

from __future__ import annotations

import re

# A linter's or formatter's warning: the tool named with its warning ("Credo warning about
# `length/1`", "ruff E501"), or the warning in the tool's own words. Naming a tool is not
# enough ("black and isort fought over import wrapping: use ruff format" is a trap of the
# setup, worth a note), and a type checker (mypy, Dialyzer, tsc) is none of them: what it
# finds can be a real bug.
_LINTER = (
    r"(?:credo|ruff|flake8|pylint|pycodestyle|pyflakes|eslint|tslint|stylelint|prettier|"
    r"rubocop|standardrb|golangci-lint|golint|clippy|ktlint|detekt|swiftlint|shellcheck|"
    r"markdownlint|yamllint|hadolint|checkstyle|biome|phpcs)"
)
_LINT = re.compile(
    rf"\b{_LINTER}\b[^.;:]{{0,20}}?\b(?:warn\w*|errors?|complain\w*|flag\w*|violations?|"
    r"nesting|complexity|[A-Z]{1,3}\d{3,4})\b"
    rf"|\b{_LINTER}:?\s+(?:[A-Z]{{1,3}}\d{{3,4}}|[a-z]+(?:[-/][a-z]+)+)\b"  # E501, no-unused-vars
    r"|\bunused (?:import|alias|variable|argument|parameter|require|function|local)s?\b"
    r"|\bline too long\b|\bnesting (?:depth|too deep)\b|\btoo deeply nested\b"
    r"|\b(?:cyclomatic|cognitive) complexity\b"
    r"|\btoo many (?:branches|arguments|statements|locals|lines|return statements)\b"
    r"|\btrailing whitespace\b|\bmissing (?:docstring|final newline)\b"
    r"|\bformat(?:ting)? check\b|\bnot (?:properly )?formatted\b|\bwould reformat\b"
    r"|\b(?:import order|unsorted imports)\b",
    re.IGNORECASE,
)
_TYPO = re.compile(r"\btypos?\b|\bmisspel\w*|\bspelling\b|\bmistyped\b", re.IGNORECASE)
# A fix that only writes the missing piece: "create the module file", "add the function
# definition", "add the missing import". A dependency or a setting is no such piece: which one
# a framework needs is what a teammate would not guess.
_WROTE_MISSING = re.compile(
    r"^(?:add(?:ed|ing)?|creat(?:e|ed|ing)|defin(?:e|ed|ing)|writ(?:e|ing)|wrote|declar(?:e|ed|ing)|"
    r"import(?:ed|ing)?)\b"
    r"(?!.{0,60}\b(?:dependenc(?:y|ies)|deps|config\w*|settings?|env\w*|option|flag)\b)"
    r".{0,60}?\b(?:(?:module|source|class) file|definition|stub|(?:missing )?imports?|"
    r"(?:missing )?alias|(?:missing )?require)\b",
    re.IGNORECASE,
)
# The same, said of the problem: what "doesn't exist yet" or is "not implemented yet" (a test
# written first, failing as expected) is written next, not learned.
_NOT_YET = re.compile(
    r"\b(?:does(?:n'?t| not)|do(?:n'?t| not)) exist yet\b"
    r"|\bnot (?:been )?(?:created|written|implemented|defined|added) yet\b"
    r"|\bnot yet (?:created|written|implemented|defined|added)\b",
    re.IGNORECASE,
)
# A reference the session's own change left behind: "... after it was renamed, but it was
# still referenced".
_LEFTOVER = re.compile(
    r"\bstill (?:referenced|used|called|imported)\b"
    r"|\bafter\b[^.;]{0,60}\b(?:was|were|been|got) (?:renamed|removed|moved|deleted)\b",
    re.IGNORECASE,
)
# A test's expectation brought in line: "update the expected value", "fix the assertion".
_EXPECTATION = re.compile(
    r"^(?:updat|chang|fix|adjust|correct|bump)\w*\b.{0,40}?\b(?:expected (?:value|count|"
    r"output|result|string|message)s?|assertions?|expectations?|snapshots?)\b",
    re.IGNORECASE,
)

# The code brought in line with a test: the cause says only what a test expects ("The test
# expects "## Original Reviewer Output" heading"), and the fix makes the code match ("update
# the template to match"). Where the test is written first, it states what the code is to
# do, and making the code do it is the task itself, not a trap of the codebase. A cause that
# says why the two differ ("the test expects UTC but the serializer emits local time", "...
# because the fixture is shared") is a finding, and is not this; nor is a fix that says what
# to change to ("switch the serializer to UTC").
_TEST_EXPECTS = re.compile(
    r"\b(?:tests?|specs?|assertions?)\s+(?:now\s+|still\s+)?(?:expects?|asserts?|wants?|"
    r"checks?\s+for|looks?\s+for)\b"
    # (in the same sentence: the failure's output read after it is not the cause's words)
    r"(?![^.;!?\n]*\b(?:but|because|since|while|whereas|although|though|instead|so|yet)\b)",
    re.IGNORECASE,
)
_TO_MATCH = re.compile(
    r"\bto match(?:\s+(?:it|that|this|them|the tests?|the specs?|the expectations?|"
    r"what (?:it|the tests?) expects?))?\W*$",
    re.IGNORECASE,
)

LINT = "a linter's or formatter's warning: the tool names its fix"
TYPO = "a typo"
MISSING = "a definition, file or import the session had not written yet"
LEFTOVER = "a reference left over by the session's own change"
EXPECTATION = "a test's expected value brought in line with the code"
MATCHED = "the code brought in line with what a test expects"


def routine(problem: str, fix: str) -> str:
    """Why a fix is routine (one of the reasons above), or ``""`` when it may be a lesson."""
    text = f"{problem} {fix}"
    if _LINT.search(text):
        return LINT
    if _TYPO.search(text):
        return TYPO
    how = fix.strip().lstrip("-*• ").strip()
    if _WROTE_MISSING.search(how) or _NOT_YET.search(problem):
        return MISSING
    if _LEFTOVER.search(problem):
        return LEFTOVER
    if _EXPECTATION.search(how):
        return EXPECTATION
    if _TEST_EXPECTS.search(problem) and _TO_MATCH.search(how):
        return MATCHED
    return ""


_TEST_FILE = re.compile(
    r"(?:^|/)(?:tests?|spec|__tests__)/|(?:^|/)test_[^/]+$|_test\.\w+$|\.(?:test|spec)\.\w+$"
    r"|_spec\.rb$|Tests?\.\w+$"
)


def is_test_file(path: str) -> bool:
    """Is this repository path a test file by its name (under ``tests/``, ``spec/``,
    ``__tests__/``; ``test_x.py``, ``x_test.go``, ``x.test.ts``, ``x_spec.rb``, ``XTest.java``)?"""
    return bool(_TEST_FILE.search(path))


_ASSERTION = re.compile(
    r"\bassert(?:ion)?\w*|\bexpected\b.{0,80}\b(?:got|received|but was)\b", re.IGNORECASE
)


def expectation_only(error: str, files: list[str]) -> bool:
    """A red run whose error is an assertion, made green by editing test files only: the
    test's expectation changed, the code did not."""
    return bool(files) and all(is_test_file(f) for f in files) and bool(_ASSERTION.search(error))
