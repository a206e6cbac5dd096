"""Problems as text for people, JSON for scripts, or workflow commands for GitHub. Pure.

Shared by ``reflect-git validate``, ``reflect-git check`` and the pre-commit hooks, so every
entry point prints the same lines: ``path:line:col: field: message``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from reflectgit.notes.schema import Problem

FORMATS = ("text", "json", "github")


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


def render(problems: Sequence[Problem], fmt: str, checked: int, **extra: Any) -> list[str]:
    """Every output line for ``fmt`` (``json`` is one line holding the whole document)."""
    if fmt == "json":
        return [json.dumps(json_document(problems, checked, **extra), indent=2)]
    if fmt == "github":
        return [github_line(p) for p in problems]
    return [text_line(p) for p in problems]


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
