"""A validation problem: where (file, line, column, field path) and what to do about it. Pure.

Its own module so the pre-commit hook's quick path, which imports neither PyYAML nor jsonschema,
can report an unreadable file and render the report. A ``collections.namedtuple`` at run time
(``typing``, which ``NamedTuple`` needs, costs every commit's hook about 4 ms); mypy reads the
same fields as a ``typing.NamedTuple`` (a test holds the two to the same fields and defaults).
"""

from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, NamedTuple

    class _Fields(NamedTuple):
        file: str
        line: int
        column: int
        field: str
        message: str
        severity: str = "error"

else:
    _Fields = namedtuple(
        "Problem", ("file", "line", "column", "field", "message", "severity"), defaults=("error",)
    )


class Problem(_Fields):  # not a dataclass: the pre-commit hook imports no dataclasses
    """One validation problem: where (file, line, column, field path) and what to do about it."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.file, self.line, self.column, self.field)
