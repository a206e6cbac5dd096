"""The code repository and KB most stale and pr-notes tests start from."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.codeworld import World


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)
