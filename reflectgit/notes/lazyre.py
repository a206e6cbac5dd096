"""``Pattern``: a regular expression compiled when it is first used. Pure.

Compiling is most of what a table of regular expressions costs, and a process uses few of
them or none: a hook event whose text triggers no secret rule never compiles that rule, a
command that is no test run never compiles the test-run parsers. (The secret scanner's table
and the test-run parsers compiled at import or at the first scan cost a hook 7 to 20 ms.)
A ``Pattern`` answers what ``re.Pattern`` answers; ``compiled`` is the ``re.Pattern`` itself.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # ``typing`` is not imported on the pre-commit hook's path
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterator, Mapping
    from typing import Any


class Pattern:
    """``re.compile(pattern, flags)``, done on first use and kept."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    def __repr__(self) -> str:
        return f"Pattern({self.pattern!r}, {self.flags!r})"

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            import re  # on first use: a process that matches nothing never imports ``re``

            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    @property
    def groupindex(self) -> Mapping[str, int]:
        return self.compiled.groupindex

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit)
