"""`python -m reflectgit` and the `reflect-git` console script."""

from __future__ import annotations

from reflectgit.cli import main, script

__all__ = ["main"]

if __name__ == "__main__":
    script()  # sys.exit(main()), a fast add ending without the teardown (cli/fastpath.end_now)
