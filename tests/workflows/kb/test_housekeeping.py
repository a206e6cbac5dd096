"""Housekeeping as git does it: after the door's commits, git's automatic maintenance runs
(detached, as ``git commit`` runs ``git maintenance run --auto``), honouring ``gc.auto``.

git's ``gc --auto`` estimates the loose objects from one fan-out folder, ``objects/17``, and
packs once that folder holds more than ``gc.auto / 256`` of them. Sixty adds leave about 240
loose objects, so whether ``17/`` holds two of them is chance; the tests put two objects
whose ids start with 17 there (as ``git hash-object -w`` writes any blob) before the last
add, so git's own estimate says "pack" every time, and the only question left is whether
anything asks git.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from tests.conftest import git

ADDS = 60


def _objects(kb: Path) -> dict[str, int]:
    out = git("count-objects", "-v", cwd=kb)
    return {k: int(v) for k, v in (line.split(": ") for line in out.splitlines())}


def _seed_sample_folder(kb: Path) -> None:
    """Two blobs whose ids start with 17, written by git itself."""
    found = 0
    for i in range(100_000):
        data = f"seed {i}\n".encode()
        if hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest().startswith("17"):
            git("hash-object", "-w", "--stdin", cwd=kb, input=data.decode())
            found += 1
            if found == 2:
                return
    raise AssertionError("no seed found")


def _adds(cli, kb: Path) -> None:  # type: ignore[no-untyped-def]
    for i in range(ADDS):
        if i == ADDS - 1:
            _seed_sample_folder(kb)
        res = cli(
            "--kb", str(kb), "add", "--title", f"Housekeeping note {i}",
            "--insight", f"Insight number {i}.", "--confidence", "high",
        )  # fmt: skip
        assert res.code == 0, res


def _kb(cli, tmp_path: Path, gc_auto: int) -> Path:  # type: ignore[no-untyped-def]
    kb = tmp_path / "kb"
    res = cli("init", str(kb), "--no-pre-commit")
    assert res.code == 0, res
    git("config", "gc.auto", str(gc_auto), cwd=kb)
    return kb


def test_adds_leave_the_kb_packed_as_git_commit_would(cli, tmp_path: Path) -> None:
    kb = _kb(cli, tmp_path, 50)
    _adds(cli, kb)
    deadline = time.monotonic() + 90
    counts = _objects(kb)
    while time.monotonic() < deadline and not (
        counts["in-pack"] and not (kb / ".git" / "gc.pid").exists() and counts["count"] < 50
    ):
        time.sleep(0.2)  # the detached maintenance is still packing
        counts = _objects(kb)
    assert counts["in-pack"] >= 3 * ADDS, counts  # the adds' objects are packed
    # What is still loose is what git itself leaves: its own `gc --auto` finds nothing to do.
    git("gc", "--auto", "--quiet", cwd=kb)
    assert _objects(kb) == counts
    assert git("rev-list", "--count", "HEAD", cwd=kb).strip() == str(ADDS + 1)
    assert git("status", "--porcelain", cwd=kb) == ""
    git("fsck", "--strict", cwd=kb)


def test_gc_auto_zero_is_honoured(cli, tmp_path: Path) -> None:
    kb = _kb(cli, tmp_path, 0)
    _adds(cli, kb)
    counts = _objects(kb)
    assert counts["in-pack"] == 0, counts
    assert counts["count"] >= 4 * ADDS, counts
    git("fsck", "--strict", cwd=kb)
