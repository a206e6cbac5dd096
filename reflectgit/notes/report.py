"""Problems as text for people, JSON for scripts, workflow commands for GitHub, or the reports
GitLab's merge-request widgets read (Code Quality, JUnit XML). Pure.

Shared by ``reflect-git validate``, ``reflect-git check`` and the pre-commit hooks, so every
entry point prints the same lines: ``path:line:col: field: message``.
"""

from __future__ import annotations

from collections.abc import Sequence

from reflectgit.notes.problems import Problem

TYPE_CHECKING = False  # ``typing`` is not imported on the pre-commit hook's path
if TYPE_CHECKING:
    from typing import Any

FORMATS = ("text", "json", "github", "codequality", "junit")


def text_line(problem: Problem) -> str:
    """``path:line:col: field: message`` (no field part when the whole file is at fault)."""
    where = f"{problem.file}:{problem.line}:{problem.column}:"
    field = f" {problem.field}:" if problem.field else ""
    return f"{where}{field} {problem.message}"


def github_line(problem: Problem) -> str:
    """A GitHub Actions ``::error`` workflow command, so the problem annotates the diff."""
    level = "warning" if problem.severity == "warning" else "error"
    props = ",".join(
        (
            f"file={_escape_property(problem.file)}",
            f"line={problem.line}",
            f"col={problem.column}",
        )
    )
    message = f"{problem.field}: {problem.message}" if problem.field else problem.message
    return f"::{level} {props}::{_escape_data(message)}"


def json_document(problems: Sequence[Problem], checked: int, **extra: Any) -> dict[str, Any]:
    """The ``--format json`` document: a verdict, counts, and every problem."""
    failed = len({p.file for p in problems if p.severity == "error"})
    return {
        "ok": failed == 0,
        "checked": checked,
        "failed": failed,
        **extra,
        "problems": [p.to_dict() for p in problems],
    }


def render(
    problems: Sequence[Problem],
    fmt: str,
    checked: int,
    suite: str = "reflect-git",
    **extra: Any,
) -> list[str]:
    """Every output line for ``fmt`` (``json``, ``codequality`` and ``junit`` are one line
    holding the whole document). ``suite`` names the run in the reports (``reflect-git check``)."""
    if fmt == "json":
        import json  # the text report (every commit's) needs neither json nor its regexes

        return [json.dumps(json_document(problems, checked, **extra), indent=2)]
    if fmt == "github":
        return [github_line(p) for p in problems]
    if fmt == "codequality":
        import json

        return [json.dumps(code_quality(problems, suite), indent=2)]
    if fmt == "junit":
        return [junit_xml(problems, checked, suite)]
    return [text_line(p) for p in problems]


# GitLab Code Quality severities: info, minor, major, critical, blocker.
CODE_QUALITY_SEVERITY = {"error": "major", "warning": "minor"}


def code_quality(problems: Sequence[Problem], suite: str = "reflect-git") -> list[dict[str, Any]]:
    """The Code Climate issue list GitLab shows in a merge request's Code Quality widget.

    A fingerprint leaves the line out, so a problem that only moves down the file stays the
    same issue between the target branch's report and the merge request's.
    """
    import hashlib  # only this format fingerprints
    import re

    issues = []
    seen: dict[str, int] = {}
    for p in problems:
        rule = re.sub(r"\[\d+\]", "", p.field) or "file"
        basis = "\0".join((suite, p.file, p.field, p.message))
        nth = seen.get(basis, 0)
        seen[basis] = nth + 1
        fingerprint = hashlib.sha256(f"{basis}\0{nth}".encode()).hexdigest()[:32]
        description = f"{p.field}: {p.message}" if p.field else p.message
        issues.append(
            {
                "type": "issue",
                "check_name": f"{suite}/{rule}",
                "description": description,
                "categories": ["Style"],
                "severity": CODE_QUALITY_SEVERITY.get(p.severity, "major"),
                "fingerprint": fingerprint,
                "location": {"path": p.file, "lines": {"begin": p.line}},
            }
        )
    return issues


def junit_xml(problems: Sequence[Problem], checked: int, suite: str = "reflect-git") -> str:
    """A JUnit XML report: one failing test case per file with problems (every problem in its
    failure text), one passing case for the files that had none."""
    # xml.sax.saxutils pulls in urllib.request, http.client and ssl: 25 ms, only for JUnit.
    from xml.sax.saxutils import escape, quoteattr

    by_file: dict[str, list[Problem]] = {}
    for p in problems:
        by_file.setdefault(p.file, []).append(p)
    cases = []
    failures = 0
    for file, found in by_file.items():
        lines = escape("\n".join(text_line(p) for p in found))
        errors = [p for p in found if p.severity == "error"]
        head = (
            f"<testcase classname={quoteattr(suite)} name={quoteattr(file)} file={quoteattr(file)}>"
        )
        if errors:
            failures += 1
            count = f"{len(errors)} problem{'' if len(errors) == 1 else 's'}"
            body = f'<failure type="error" message={quoteattr(count)}>{lines}</failure>'
        else:
            body = f"<system-out>{lines}</system-out>"
        cases.append(f"    {head}{body}</testcase>")
    clean = max(checked - len(by_file), 0)
    if clean or not cases:
        name = f"{clean} other file{'' if clean == 1 else 's'}: no problems"
        cases.append(f"    <testcase classname={quoteattr(suite)} name={quoteattr(name)}/>")
    tests = len(cases)
    counts = f'tests="{tests}" failures="{failures}" errors="0" skipped="0"'
    return "\n".join(
        [
            '<?xml version="1.0" encoding="UTF-8"?>',
            f"<testsuites name={quoteattr(suite)} {counts}>",
            f"  <testsuite name={quoteattr(suite)} {counts}>",
            *cases,
            "  </testsuite>",
            "</testsuites>",
        ]
    )


def summary(
    problems: Sequence[Problem], checked: int, noun: str = "file", clean: str = "all valid"
) -> str:
    """One line for people: how many files were checked and how many failed."""
    failed = len({p.file for p in problems if p.severity == "error"})
    files = f"{checked} {noun}{'' if checked == 1 else 's'}"
    if not problems:
        return f"{files} checked: {clean}"
    count = len(problems)
    return f"{files} checked: {failed} failed with {count} problem{'' if count == 1 else 's'}"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
