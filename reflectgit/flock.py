"""An exclusive ``flock``, waited for within a bound: the one wait every lock of ours takes.

``git/lockwait.py`` turns a wait that ran out into a ``LockError`` for the commands and
workflows; the agent hooks' inbox (``state/inbox.py``) calls it directly, because a hook imports
nothing it can spare. ``os``-level only: ``errno``, ``fcntl`` and ``time``.
"""

from __future__ import annotations

import errno
import fcntl
import time


def hold(fd: int, timeout: float | None) -> bool:
    """``flock(fd, LOCK_EX)``, waiting at most ``timeout`` seconds (None: as long as it takes);
    False when the wait ran out, True once held."""
    if timeout is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return True
    deadline = time.monotonic() + timeout
    delay = 0.002
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
