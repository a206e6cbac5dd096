"""Where a learning applies: the project it was learned in, and ``global`` only when said. Pure.

Every note a machine writes (the drain, capture) carries ``project:``, the name of the
repository the session worked in, and ``scope: project``. ``scope: global`` is set only when
the note's own text says the rule holds beyond this project ("in every repo", "regardless of
the project", "not just in this repo"), or when a person writes it. Recall serves a note in
project X when its scope is global, when it was learned in X, or when nobody knows where it
was learned (hand-written and older notes).

The detector is a table of patterns with positive and negative examples in
``tests/test_scope.py``: the bare word "global" is no evidence (``git config --global``,
``npm i -g``, "a global lock", "installed globally").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

GLOBAL = "global"
PROJECT = "project"

_WHERE = r"(?:repo|repos|repository|repositories|project|projects|codebase|codebases)"
_NOT_HERE = r"(?!\s+(?:in|of|inside|within)\s+(?:this|the|our|my)\s+(?:monorepo|workspace|repo))"
GLOBAL_PATTERNS: tuple[str, ...] = (
    # "in every repo", "across all projects", "for any of our repositories"
    rf"\b(?:in|for|across|to|on)\s+(?:every|all|any)\s+(?:(?:of\s+)?(?:my|our|the|your)\s+)?"
    rf"{_WHERE}\b{_NOT_HERE}",
    # "every project we touch", "all repos I work in"
    rf"\b(?:every|all|any)\s+{_WHERE}\s+(?:I|we|you)\s+(?:work|touch|maintain|own)\b",
    # "regardless of the repo", "whatever the project"
    rf"\b(?:regardless\s+of|whatever|no\s+matter)\s+(?:the\s+|which\s+)?{_WHERE}\b",
    # "not just in this repo", "not only for this project"
    rf"\bnot\s+(?:just|only)\s+(?:in|for)\s+this\s+{_WHERE}\b",
    # "this applies globally", "holds everywhere"
    r"\b(?:applies|holds|is\s+true|rule\s+is)\s+(?:globally|everywhere)\b",
    # "machine-wide", "on every machine", "system-wide rule"
    r"\b(?:machine|system|user)-wide\b",
)


@functools.cache
def _global_patterns() -> tuple[re.Pattern[str], ...]:
    """Compiled on first use: recall (``served_in``) never needs them, and they cost 3-8 ms."""
    return tuple(re.compile(p, re.IGNORECASE) for p in GLOBAL_PATTERNS)


def says_global(text: str) -> bool:
    """Does the text say the rule holds beyond the project it was learned in?"""
    return any(p.search(text) for p in _global_patterns())


def scope_fields(project: str | None, text: str) -> dict[str, Any]:
    """The ``scope``/``project`` fields for a machine-written note learned in ``project``
    (None: unknown) whose text is ``text``."""
    out: dict[str, Any] = {}
    if project:
        out["project"] = project
    if says_global(text):
        out["scope"] = GLOBAL
    elif project:
        out["scope"] = PROJECT
    return out


def note_text(front: Mapping[str, Any], body: str = "") -> str:
    """The words of a note the scope detector reads: title, rule fields and body."""
    parts = [
        str(front.get(k) or "")
        for k in ("title", "key_insight", "rule", "fix", "problem", "root_cause")
    ]
    return "\n".join([*parts, body])


def served_in(project: str, scope: str | None, learned_in: str | None) -> bool:
    """Is a note (``scope``, learned in ``learned_in``) for a session in ``project``? Global
    notes and notes of unknown origin are served everywhere; a note learned in another
    project is not."""
    if (scope or "").strip().lower() == GLOBAL:
        return True
    if not learned_in:
        return True
    return learned_in.strip().lower() == project.strip().lower()
