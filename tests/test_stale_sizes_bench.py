"""bench/stale_sizes.py (issue 35, how much changed): each stale anchor of a note that names
nothing of its code is measured; a note stale through anything else is not."""

from __future__ import annotations

from typing import Any

import pytest

from bench import stale_sizes
from reflectgit.notes.anchors import Anchor
from reflectgit.notes.codediff import CodeChange
from reflectgit.workflows.code.staleness import StaleAnchor

OLD = "def f(a):\n    x = a\n    y = 2\n    return x + y\n"
NEW = OLD.replace("x = a\n", "x = a * 2\n")


def test_token_share_counts_the_longer_side_of_each_change() -> None:
    assert stale_sizes.token_share(OLD, OLD, "f.py") == 0
    assert stale_sizes.token_share(OLD, OLD + "# a comment\n", "f.py") == 0
    assert 0 < stale_sizes.token_share(OLD, NEW, "f.py") < 0.2


def _note(symbol: str | None, verdict: CodeChange) -> dict[str, Any]:
    found = StaleAnchor(Anchor("f.py", symbol, "abc"), "changed", "f.py", [])
    key = ("h", "at", "n", "f.py", symbol)
    stale_sizes.stale_kinds._SEEN[key] = ((OLD, NEW, "f.py"), verdict)
    return {"history": "h", "at": "at", "id": "n", "flagged": [("kind", found)]}


@pytest.fixture(autouse=True)
def _clean_seen() -> Any:
    yield
    stale_sizes.stale_kinds._SEEN.clear()


def test_only_the_notes_of_a_group_are_measured() -> None:
    unnamed = _note("f", CodeChange("changed", unnamed=True))
    [size] = stale_sizes.measured(unnamed, "unnamed") or []
    assert size["lines"] == (1, 4) and size["line_share"] == 0.25 and size["commits"] == 0
    assert stale_sizes.measured(unnamed, "whole files") is None
    named = _note("f", CodeChange("changed", ("x",)))  # stale for a name it states
    assert stale_sizes.measured(named, "unnamed") is None
    assert stale_sizes.measured(named, "whole files") is None  # a symbol's block, not a file
    whole = _note(None, CodeChange("changed", ("x",)))
    assert stale_sizes.measured(whole, "whole files")
    assert stale_sizes.measured(whole, "unnamed") is None
