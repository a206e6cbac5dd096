"""`python -m reflectgit` and the `reflect-git` console script."""

from __future__ import annotations

from reflectgit.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
