"""How long this process waits for a lock: the caller's default, or the bound a hook set.

Hooks must return in bounded time whatever else is running, so ``hooks/`` wraps its work in
``bounded(seconds)``; every lock taken underneath (the KB write lock, the capture state locks)
then gives up after at most that long and raises ``LockError`` (the hook logs it and exits 0).
Outside a hook nothing changes: ``limit(default)`` is the default.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import time
from collections.abc import Iterator
from contextvars import ContextVar

from reflectgit.errors import LockError

_BOUND: ContextVar[float | None] = ContextVar("reflect_git_lock_bound", default=None)


@contextlib.contextmanager
def bounded(seconds: float) -> Iterator[None]:
    """Within the block, no lock wait lasts longer than ``seconds``."""
    token = _BOUND.set(seconds)
    try:
        yield
    finally:
        _BOUND.reset(token)


def limit(default: float | None) -> float | None:
    """The wait to use: ``default`` (None = forever), capped by the bound in force."""
    bound = _BOUND.get()
    if bound is None:
        return default
    return bound if default is None else min(default, bound)


def acquire(fd: int, timeout: float | None, what: str, hint: str | None = None) -> None:
    """``flock(fd, LOCK_EX)``, waiting at most ``timeout`` seconds (None: as long as it takes)."""
    if timeout is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    deadline = time.monotonic() + timeout
    delay = 0.002
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise
        if time.monotonic() >= deadline:
            raise LockError(
                f"another reflect-git process has held {what} for over {timeout:g}s",
                hint=hint or "it is released when that process finishes; nothing was changed",
            )
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
