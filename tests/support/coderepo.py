"""A code repository with a real history, for the anchor, stale and pr-notes tests."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git


class CodeRepo:
    """A git repository of source files: ``write``/``move``/``delete`` then ``commit``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        git("init", "-q", "-b", "main", str(path), cwd=path.parent)
        git("config", "user.name", "Dev", cwd=path)
        git("config", "user.email", "dev@example.com", cwd=path)

    def write(self, rel: str, text: str) -> CodeRepo:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        git("add", rel, cwd=self.path)
        return self

    def move(self, old: str, new: str) -> CodeRepo:
        (self.path / new).parent.mkdir(parents=True, exist_ok=True)
        git("mv", old, new, cwd=self.path)
        return self

    def delete(self, rel: str) -> CodeRepo:
        git("rm", "-q", rel, cwd=self.path)
        return self

    def commit(self, message: str) -> str:
        git("commit", "-q", "-m", message, cwd=self.path)
        return self.head()

    def head(self) -> str:
        return git("rev-parse", "HEAD", cwd=self.path).strip()

    def branch(self, name: str) -> CodeRepo:
        git("checkout", "-q", "-b", name, cwd=self.path)
        return self


POOL_PY = """import os


def prefill(pool, size):
    for _ in range(size):
        pool.add(open_connection())
    return pool


def open_connection():
    return os.environ.get("DSN")


class Pool:
    limit = 10

    def add(self, conn):
        self.items.append(conn)
"""
