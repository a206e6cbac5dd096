"""How long this process waits for a lock: the caller's default, or the bound a hook set.

Hooks must return in bounded time whatever else is running, so ``hooks/`` wraps its work in
``bounded(seconds)``; every lock taken underneath (the KB write lock, the capture state locks)
then gives up after at most that long and raises ``LockError`` (the hook logs it and exits 0).
Outside a hook nothing changes: ``limit(default)`` is the default.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

from reflectgit import flock
from reflectgit.errors import LockError

if TYPE_CHECKING:
    from contextvars import Token
    from types import TracebackType

_BOUND: ContextVar[float | None] = ContextVar("reflect_git_lock_bound", default=None)


class bounded:  # used as a function: `with bounded(2.0):`
    """Within the block, no lock wait lasts longer than ``seconds``. (A class, not a
    ``contextlib.contextmanager``: the hooks import no ``contextlib``.)"""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._tokens: list[Token[float | None]] = []

    def __enter__(self) -> None:
        self._tokens.append(_BOUND.set(self.seconds))

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _BOUND.reset(self._tokens.pop())


def limit(default: float | None) -> float | None:
    """The wait to use: ``default`` (None = forever), capped by the bound in force."""
    bound = _BOUND.get()
    if bound is None:
        return default
    return bound if default is None else min(default, bound)


def acquire(fd: int, timeout: float | None, what: str, hint: str | None = None) -> None:
    """``flock(fd, LOCK_EX)``, waiting at most ``timeout`` seconds (None: as long as it takes)."""
    if not flock.hold(fd, timeout):
        raise LockError(
            f"another reflect-git process has held {what} for over {timeout:g}s",
            hint=hint or "it is released when that process finishes; nothing was changed",
        )


def take(fd: int, what: str) -> None:
    """``flock(fd, LOCK_EX)``, waiting as long as the bound in force allows (no bound: as long
    as it takes). What a lock in the state directory is taken with (``state/eventlog.py``)."""
    acquire(fd, limit(None), what)
