"""reflect-git: a team's engineering knowledge, kept in git."""

from __future__ import annotations

__version__ = "0.1.0"
