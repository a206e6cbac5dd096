"""`python -m reflectgit`: the command line, as the `reflect-git` console script runs it."""

from __future__ import annotations

from reflectgit.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
