"""Generate benchmark knowledge bases fast: notes as bytes, committed with `git fast-import`."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def env() -> dict[str, str]:
    out = dict(os.environ)
    out.update(GIT_ENV)
    out["GIT_CONFIG_GLOBAL"] = os.devnull
    return out


def note_bytes(i: int, tag: str = "n") -> tuple[str, bytes]:
    """A realistic small note (about 500 bytes): (id, bytes)."""
    ident = f"bench-{tag}-{i:06d}-a1b2c3"
    tier = ("high", "medium", "low")[i % 3]
    text = (
        "---\n"
        "type: learning\n"
        f"id: {ident}\n"
        "created: '2026-03-04T09:12:00Z'\n"
        f"confidence: {tier}\n"
        f"title: Benchmark note {tag} {i}\n"
        "tags:\n- bench\n- generated\n"
        f"key_insight: Insight number {i} about pools, caches and retries.\n"
        "category: debugging\n"
        "---\n"
        f"## Problem\n\nThe {i}th thing broke under load.\n\n"
        "## Solution\n\nPrefill the pool, cap the retries, and log the cause.\n"
    )
    return ident, text.encode("utf-8")


def fast_import_stream(files: list[tuple[str, bytes]], message: str = "bench notes") -> bytes:
    """A fast-import stream committing ``files`` (path, bytes) on refs/heads/main."""
    parts: list[bytes] = []
    for mark, (_path, data) in enumerate(files, 1):
        parts.append(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data))
    msg = message.encode()
    parts.append(
        b"commit refs/heads/main\n"
        b"committer Bench <bench@example.com> 1772615520 +0000\n"
        b"data %d\n%s\n" % (len(msg), msg)
    )
    for mark, (path, _data) in enumerate(files, 1):
        parts.append(b"M 100644 :%d %s\n" % (mark, path.encode()))
    parts.append(b"\n")
    return b"".join(parts)


def make_kb(path: Path, count: int, checkout: bool = True) -> float:
    """A KB of ``count`` notes at ``path`` (work tree and index populated). Returns seconds."""
    start = time.perf_counter()
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True, env=env())
    files = []
    for i in range(count):
        ident, data = note_bytes(i)
        files.append((f"documents/{ident}.md", data))
    subprocess.run(
        ["git", "fast-import", "--quiet"],
        cwd=path,
        input=fast_import_stream(files),
        check=True,
        env=env(),
    )
    if checkout:
        subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=path, check=True, env=env())
    return time.perf_counter() - start
