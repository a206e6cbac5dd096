"""git/objects.py reads packed objects as git does: every object of real packs (offset and ref
deltas, long chains), compared with `git cat-file`; a damaged index gives no answer."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from reflectgit.git.objects import has_packed, read_object, read_packed
from reflectgit.git.repo_info import head_tree

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "T",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "T",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", *args], cwd=repo, env=ENV, input=data, capture_output=True, check=True
    ).stdout


def _repo(tmp_path: Path, *repack: str, offsets: bool = True) -> Path:
    """Notes edited over 30 commits (so trees and blobs delta against each other), packed."""
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    (repo / "documents").mkdir()
    for i in range(30):
        for j in range(6):
            text = "".join(f"line {k} of note {j}\n" for k in range(40)) + f"edit {i}\n"
            (repo / "documents" / f"note-{j}.md").write_text(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"commit {i}\n\n" + "body\n" * i)
    config = [] if offsets else ["-c", "repack.useDeltaBaseOffset=false"]  # REF_DELTA entries
    git(repo, *config, "repack", "-a", "-d", "-q", *repack)
    git(repo, "prune-packed")
    return repo


def _objects(repo: Path) -> list[tuple[str, str]]:
    out = git(repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")
    return [tuple(line.split()) for line in out.decode().splitlines()]  # type: ignore[misc]


@pytest.mark.parametrize(
    ("repack", "offsets"),
    [([], True), (["--depth=50", "--window=50", "-f"], True), (["-f"], False)],
    ids=["ofs-deltas", "deep-chains", "ref-deltas"],
)
def test_every_packed_object_reads_as_git_cat_file_shows_it(tmp_path, repack, offsets):
    repo = _repo(tmp_path, *repack, offsets=offsets)
    objects_dir = repo / ".git" / "objects"
    assert not [p for p in objects_dir.glob("??/*")], "all packed"
    deltas = git(repo, "verify-pack", "-v", *map(str, (objects_dir / "pack").glob("*.idx")))
    assert b" 1 " in deltas or b"chain length = 1" in deltas  # there are deltas to resolve
    listed = _objects(repo)
    assert len(listed) > 100
    for sha, kind in listed:
        expected = git(repo, "cat-file", kind, sha)
        assert read_packed(objects_dir, bytes.fromhex(sha)) == (kind.encode(), expected), sha
        assert read_object(objects_dir, sha, kind.encode()) == expected
        assert has_packed(objects_dir, bytes.fromhex(sha)) is True
    # the negative cases: another type, an object no pack holds
    sha, kind = listed[0]
    other = b"blob" if kind != "blob" else b"tree"
    assert read_object(objects_dir, sha, other) is None
    absent = bytes.fromhex("ff" * 20)
    assert read_packed(objects_dir, absent) is None
    assert has_packed(objects_dir, absent) is False
    assert head_tree(repo) == git(repo, "rev-parse", "HEAD^{tree}").decode().strip()


def test_a_damaged_index_is_no_answer_not_a_wrong_one(tmp_path):
    repo = _repo(tmp_path)
    objects_dir = repo / ".git" / "objects"
    sha, kind = _objects(repo)[0]
    idx = next((objects_dir / "pack").glob("*.idx"))
    data = bytearray(idx.read_bytes())
    data[4:8] = b"\x00\x00\x00\x03"  # an index version this reader does not know
    os.chmod(idx, 0o644)
    idx.write_bytes(bytes(data))
    assert read_packed(objects_dir, bytes.fromhex(sha)) is None
    assert has_packed(objects_dir, bytes.fromhex(sha)) is None
    assert read_object(objects_dir, sha, kind.encode()) is None
