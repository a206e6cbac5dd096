"""Durable writes in the state directory: one helper each (the queue, the ledger, the event
log, the compiled rules, the slots and the timers all write through these).

Light on purpose (``os`` alone at import): the agent hooks append through ``write_all`` and
``fsync_dir`` inside every tool call.
"""

from __future__ import annotations

import os


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (``os.write`` may write fewer)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def append_lines(fd: int, data: bytes, sync: bool = True) -> None:
    """Append whole lines to the locked file ``fd`` (opened ``O_APPEND``): in one write,
    starting a new line when the last one is torn (a killed writer), then fsync (unless not
    ``sync``: soft state, which a crash may lose)."""
    size = os.fstat(fd).st_size
    if size and os.pread(fd, 1, size - 1) != b"\n":
        data = b"\n" + data  # a torn last line: ours starts anew
    write_all(fd, data)
    if sync:
        os.fsync(fd)


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """Make a rename or a new file durable: fsync the directory that holds it."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: str | os.PathLike[str], data: bytes) -> None:
    """Temp file in the same folder, fsync, rename over ``path``, fsync the folder."""
    target = os.fspath(path)
    folder, name = os.path.split(target)
    tmp = os.path.join(folder, f".tmp.{name}.{os.getpid()}.{os.urandom(4).hex()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        try:  # noqa: SIM105  (contextlib costs a hook its import)
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and exc.filename is None:
            exc.filename = target  # a full disk says which file it refused
        raise
    fsync_dir(folder or ".")
