"""A commit object: the bytes ``Store`` writes for one, and ``CommitInfo``, one as the
workflows read it."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dulwich.objects import Commit


@dataclass(frozen=True)
class CommitInfo:
    """A commit as the workflows see it."""

    sha: str
    parents: tuple[str, ...]
    message: str
    author: str
    committer: str
    author_time: datetime
    commit_time: datetime
    tree: str


def commit_info(commit: Commit) -> CommitInfo:
    def when(ts: int, offset: int) -> datetime:
        return datetime.fromtimestamp(ts, timezone(timedelta(seconds=offset)))

    return CommitInfo(
        sha=commit.id.decode("ascii"),
        parents=tuple(p.decode("ascii") for p in commit.parents),
        message=commit.message.decode("utf-8", "replace"),
        author=commit.author.decode("utf-8", "replace"),
        committer=commit.committer.decode("utf-8", "replace"),
        author_time=when(commit.author_time, commit.author_timezone),
        commit_time=when(commit.commit_time, commit.commit_timezone),
        tree=commit.tree.decode("ascii"),
    )


def _zone(offset: int) -> bytes:
    """``+hhmm`` / ``-hhmm``, as git (and dulwich) write a commit's time zone."""
    if offset % 60:
        raise ValueError("Unable to handle non-minute offset.")
    sign = b"-" if offset < 0 else b"+"
    offset = abs(offset)
    return b"%s%02d%02d" % (sign, offset // 3600, (offset // 60) % 60)


def commit_bytes(
    tree: bytes,
    parents: Sequence[bytes],
    author: tuple[bytes, int, int],
    committer: tuple[bytes, int, int],
    message: bytes,
) -> bytes:
    """A commit object's content (hex ids; (identity, time, zone offset) for each person),
    byte for byte what dulwich's ``Commit`` serializes for the same fields."""
    lines = [b"tree " + tree]
    lines += [b"parent " + p for p in parents]
    for role, (who, when, offset) in ((b"author", author), (b"committer", committer)):
        lines.append(b"%s %s %d %s" % (role, who, when, _zone(offset)))
    lines.append(b"encoding UTF-8")
    return b"\n".join(lines) + b"\n\n" + message


def local_offset(now: int) -> int:
    return time.localtime(now).tm_gmtoff


def env_date(value: str | None) -> tuple[int, int] | None:
    """``GIT_*_DATE`` in git's internal form (``<epoch> <+hhmm>``) or ISO 8601."""
    if not value:
        return None
    value = value.strip().lstrip("@")
    parts = value.split()
    if parts and parts[0].isdigit():
        offset = 0
        if len(parts) > 1 and len(parts[1]) == 5 and parts[1][0] in "+-":
            sign = -1 if parts[1][0] == "-" else 1
            offset = sign * (int(parts[1][1:3]) * 3600 + int(parts[1][3:5]) * 60)
        return int(parts[0]), offset
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    delta = parsed.utcoffset() or timedelta(0)
    return int(parsed.timestamp()), int(delta.total_seconds())
