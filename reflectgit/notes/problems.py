"""A validation problem: where (file, line, column, field path) and what to do about it. Pure.

Its own module so the pre-commit hook's quick path, which imports neither PyYAML nor jsonschema,
can report an unreadable file and render the report.
"""

from __future__ import annotations

from collections import namedtuple

# ``typing`` (for ``NamedTuple``) costs the pre-commit hook about 3 ms of CPU of its 20: the
# record is ``collections.namedtuple``'s, its fields' types stated for the type checker in the
# class body (mypy reads ``TYPE_CHECKING = False`` as ``typing.TYPE_CHECKING``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Problem(
    namedtuple(
        "Problem", ["file", "line", "column", "field", "message", "severity"], defaults=("error",)
    )
):
    """One validation problem: where (file, line, column, field path) and what to do about it."""

    __slots__ = ()
    file: str
    line: int
    column: int
    field: str
    message: str
    severity: str  # "error" unless given

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.file, self.line, self.column, self.field)
