"""Real small disks for full-disk and read-only tests: a tmpfs mounted for the test.

Mounting needs root and CAP_SYS_ADMIN (CI runs as root); without them the test is skipped
and says why.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def tmpfs(where: Path, size: str) -> Iterator[Path]:
    """Mount a tmpfs of ``size`` (``2m``, ``256k``) at ``where`` for the duration."""
    where.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        pytest.skip(
            f"cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN): {proc.stderr.strip()}"
        )
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


def remount(where: Path, options: str) -> None:
    """Remount ``where`` with ``options`` (``ro``, ``rw``, ``size=256m``)."""
    subprocess.run(["mount", "-o", f"remount,{options}", str(where)], check=True)
