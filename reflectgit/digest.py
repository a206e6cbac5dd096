"""SHA-1 and SHA-256 hex digests without importing OpenSSL for a few bytes.

``import hashlib`` loads OpenSSL's ``_hashlib`` (3 to 4.5 ms of a process on this machine),
while CPython's own ``_sha1`` and ``_sha256`` (``_sha2`` from 3.12) load in about half a
millisecond. A search hashes a few small files, a recall the name of its project, an ``add``
a note and a few trees. The built-in SHA-1 takes about 5.6 ms a megabyte, OpenSSL's 0.75:
its speed pays for its import only from about a megabyte on (a 20,000-entry tree, a pack),
so inputs that large go to ``hashlib``, smaller ones to the built-in code, unless the process
has imported ``hashlib`` already (then it is the faster one from ``SMALL_ENOUGH`` on). The
545 KB ``documents`` tree of a 10,000-note KB, which every ``add`` hashes once, costs 3.1 ms
built in against 4.9 ms with the import (docs/performance.md, "add, sixth pass: git"). Both
give the same digest; which one ran is never visible.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # no typing at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# From this size on OpenSSL's speed (about 7x the built-in SHA-1's) outweighs its import.
LARGE = 1024 * 1024
# With hashlib imported already, from this size on it is the faster one.
SMALL_ENOUGH = 16 * 1024

_SMALL: dict[str, Callable[[bytes | bytearray], Any]] = {}


def _builtin(name: str) -> Callable[[bytes | bytearray], Any]:
    found = _SMALL.get(name)
    if found is not None:
        return found
    module = None
    for candidate in ("_sha1",) if name == "sha1" else ("_sha256", "_sha2"):  # 3.12: _sha2
        try:
            module = __import__(candidate)
            break
        except ImportError:
            continue
    if module is None:  # a build without them: hashlib has every algorithm
        import hashlib

        module = hashlib
    found = getattr(module, name)
    _SMALL[name] = found
    return found


def _digest(name: str, data: bytes | bytearray) -> Any:
    if len(data) >= LARGE or (len(data) >= SMALL_ENOUGH and "hashlib" in sys.modules):
        import hashlib

        return hashlib.new(name, data)
    return _builtin(name)(data)


def sha1(data: bytes) -> str:
    """The hex SHA-1 of ``data`` (git's object ids)."""
    return str(_digest("sha1", data).hexdigest())


def sha1_bytes(data: bytes | bytearray) -> bytes:
    """The raw 20-byte SHA-1 of ``data`` (a pack's trailer)."""
    return bytes(_digest("sha1", data).digest())


def sha256(data: bytes) -> str:
    """The hex SHA-256 of ``data``."""
    return str(_digest("sha256", data).hexdigest())
