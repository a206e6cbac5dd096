"""`python -m reflectgit` and the `reflect-git` console script."""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from reflectgit.cli import run

    return run(argv)


if __name__ == "__main__":
    raise SystemExit(main())
