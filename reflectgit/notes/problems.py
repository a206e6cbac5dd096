"""A validation problem: where (file, line, column, field path) and what to do about it. Pure.

Its own module so the pre-commit hook's quick path, which imports neither PyYAML nor jsonschema,
can report an unreadable file and render the report.
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile each field's
# annotation from text (the pre-commit hook's only compile(), ~0.8 ms); builtins need none.
from typing import Any, NamedTuple


class Problem(NamedTuple):
    """One validation problem: where (file, line, column, field path) and what to do about it."""

    file: str
    line: int
    column: int
    field: str
    message: str
    severity: str = "error"

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.file, self.line, self.column, self.field)
