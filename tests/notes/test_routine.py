"""Routine fixes (notes/routine): an error whose fix the tool that raised it names, against a
root cause worth a note. Each kind with fixes it must catch and lessons it must leave alone."""

from __future__ import annotations

import pytest

from reflectgit.notes import routine as r

ROUTINE = [
    # a linter's or formatter's warning, by the tool's name or in its own words
    ("Credo nesting depth (max 2, was 3)", "Extract `list_subdirectories/1` helper", r.LINT),
    ("ruff E501 in cli.py", "Wrap the long line", r.LINT),
    ("Credo warning about `length/1` in guard", "Match `[_ | _]` instead", r.LINT),
    ("eslint no-unused-vars in app.ts", "Remove the variable", r.LINT),
    ('Compiler "unused alias" in rescue blocks', "Use the full module path", r.LINT),
    ("Pre-commit format check failure", "Run `mix format` before re-committing", r.LINT),
    ("Cyclomatic complexity 10 > max 9", "Extract `subagent_classes/2`", r.LINT),
    ("flake8: line too long (99 > 88 characters)", "Split the call", r.LINT),
    # a typo
    ("NameError: name 'recieve' is not defined", "Fix the typo in `receive`", r.TYPO),
    ("KeyError: 'adress'", "Correct the misspelled key", r.TYPO),
    # a piece the session had not written yet
    ("Compile errors for missing AnnotationMessageRef", "Create the module file", r.MISSING),
    ("undefined function `transcript_row_classes/3`", "Add the function definition", r.MISSING),
    ("Cannot accept [:state]", "Add the `attribute :state, :atom` definition", r.MISSING),
    ("NameError: name 'json' is not defined", "Add the missing import", r.MISSING),
    # ... said of the problem, a test written first failing as expected
    ("Expected: the `InvoiceLine` module doesn't exist yet", "Create it now", r.MISSING),
    ("`parse_header/1` is not implemented yet", "Write it", r.MISSING),
    # a reference the session's own rename left behind
    (
        "Removed the alias after `load_transcript` was renamed, but it was still referenced",
        "Rename `load_transcript` to `load_session_data`",
        r.LEFTOVER,
    ),
    # a test's expectation brought in line
    ("test_total failed: 3 != 4", "Update the expected count in the test", r.EXPECTATION),
    ("snapshot mismatch in Header.test.tsx", "Update the snapshots", r.EXPECTATION),
    # the code brought in line with what a test expects, and nothing said of why they differ
    (
        'The test expects "## Original Reviewer Output" heading.',
        "Update the template to match",
        r.MATCHED,
    ),
    ("The spec now expects a 404 for a missing id", "Change the handler to match it", r.MATCHED),
]

LESSONS = [
    # a library's trap: the fix is not what the error names
    (
        "`:opentelemetry.set_text_map_propagators/1` doesn't exist",
        "Configure propagators via app environment",
    ),
    ("BadMapError with processor config format", "Use `traces_exporter: :stdout` instead"),
    ("with_span function vs do-block: tests failed", "Convert `with_span` to a `defmacro`"),
    # something missing that a framework needs: which one is the lesson
    ("LiveView test: missing lazy_html dependency", "Add `{:lazy_html, only: :test}` to deps"),
    ("LiveView test: missing secret_key_base", "Add endpoint config to `config/test.exs`"),
    ("Test JSONL idempotency failure", "Add stable uuid fields to test JSONL"),
    ("LiveView process can't access the sandbox", "Use `Sandbox.mode(Repo, {:shared, self()})`"),
    # something that does not exist, and not because the session has yet to write it
    ("`:otel.set_propagator/1` doesn't exist in this version", "Use the application env"),
    ("the `users.email` column does not exist on the replica", "Run the migration there too"),
    # a type checker's finding can be a real bug; the words "format" or "test" alone are none
    ("Dialyzer: the pattern can never match", "Match `span_ctx` itself, not `{:ok, ctx}`"),
    ("the date format differs on macOS", "Pass `--iso-8601` to date"),
    ("the test reused one tmp dir", "Use `tmp_path`"),
    # a linter named, but the trap is the setup, not a warning it raised
    (
        "black and isort disagreed on import wrapping and fought in CI",
        "Use `ruff format && ruff check --fix` instead of `black . && isort .`",
    ),
    ("ruff ignores the `per-file-ignores` of setup.cfg", "Move them to pyproject.toml"),
    # a test's expectation with why the code differs, or a fix that says what to change to
    ("The test expects UTC but the serializer emits local time", "Update the serializer to match"),
    ("The test expects a `## Summary` heading", "Switch the template to level-two headings"),
]


@pytest.mark.parametrize(("problem", "fix", "why"), ROUTINE)
def test_a_routine_fix_is_named_as_such(problem, fix, why):
    assert r.routine(problem, fix) == why


@pytest.mark.parametrize(("problem", "fix"), LESSONS)
def test_a_root_cause_worth_keeping_is_not_routine(problem, fix):
    assert r.routine(problem, fix) == ""


def test_a_test_fixed_by_editing_tests_only_after_an_assertion_is_its_expectation():
    error = "AssertionError: assert 3 == 4"
    assert r.expectation_only(error, ["tests/test_total.py"])
    assert r.expectation_only("expected 3 but was 4", ["src/TotalTest.java"])
    # the code changed, or the error is no assertion: it may be a lesson
    assert not r.expectation_only(error, ["tests/test_total.py", "billing/invoice.py"])
    assert not r.expectation_only("ImportError: cannot import name 'CENT'", ["tests/test_x.py"])
    assert not r.expectation_only(error, [])
