"""The store's own readers and writers against dulwich's and git's: a Store opened on a KB
reads refs and objects and writes a commit and its ref from the files, byte for byte as
dulwich would, and builds dulwich's ``Repo`` only for what needs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from dulwich.objects import Commit
from dulwich.repo import Repo

from reflectgit.git.change import write
from reflectgit.git.commit_object import commit_bytes
from reflectgit.git.place import locate
from reflectgit.git.refs import set_ref
from reflectgit.git.store import Store
from reflectgit.notes import messages
from tests.conftest import git

MSG = messages.build("feat(knowledge): t [HIGH]", "add", ("t",))


def _kb(repo: Path) -> Path:
    Store.init(repo, env=dict(os.environ)).commit([write("documents/a.md", b"A\n")], MSG)
    return repo


@pytest.mark.parametrize("offset", [0, 3600, -7 * 3600, 19800, -(3 * 3600 + 30 * 60)])
@pytest.mark.parametrize("parents", [0, 1, 2])
def test_commit_bytes_are_dulwichs(offset, parents):
    commit = Commit()
    commit.tree = b"4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    commit.parents = [bytes([48 + i]) * 40 for i in range(parents)]
    commit.author = b"A U Thor <a@example.com>"
    commit.committer = b"C O Mitter <c@example.com>"
    commit.author_time, commit.author_timezone = 1772615520, offset
    commit.commit_time, commit.commit_timezone = 1772615580, -offset
    commit.encoding = b"UTF-8"
    commit.message = "feat: é\n\nReflect-Op: add\n".encode()
    ours = commit_bytes(
        commit.tree,
        commit.parents,
        (commit.author, commit.author_time, offset),
        (commit.committer, commit.commit_time, -offset),
        commit.message,
    )
    assert ours == commit.as_raw_string()


def test_an_add_reads_and_writes_without_dulwichs_repo(repo):
    kb = _kb(repo)
    git("repack", "-a", "-d", "-q", cwd=kb)  # its objects packed, as after `git gc`
    git("pack-refs", "--all", cwd=kb)  # and its branch only in packed-refs
    store = Store.open(kb, env=dict(os.environ))
    old = store.tip("main")
    assert old == git("rev-parse", "main", cwd=kb).strip()
    assert store.current_branch() == "main" and store.head() == old
    assert store.read("documents/a.md") == b"A\n"
    sha = store.commit([write("documents/b.md", b"B\n")], MSG)
    assert store._repo is None, "dulwich's Repo was built"
    assert git("rev-parse", "main", cwd=kb).strip() == sha
    assert git("status", "--porcelain", cwd=kb) == ""
    assert git("fsck", "--strict", cwd=kb) == ""
    # the reflog line, as dulwich writes one: old new committer time +0000 TAB message
    line = (kb / ".git" / "logs" / "refs" / "heads" / "main").read_text().splitlines()[-1]
    head, _, message = line.partition("\t")
    assert head.split(" ")[:2] == [old, sha] and head.endswith(" +0000")
    assert message == "reflect-git: feat(knowledge): t [HIGH]"
    assert git("reflog", "-1", "--format=%H %gs", "main", cwd=kb).strip() == f"{sha} {message}"
    # ... and dulwich reads it all back the same
    with Repo(str(kb)) as dul:
        assert dul.refs[b"refs/heads/main"].decode() == sha
        assert dul[sha.encode()].as_raw_string() == store._read_object(sha.encode(), b"commit")
    store.close()


def test_the_ref_swap_refuses_a_moved_branch_and_a_held_lock(repo):
    kb = _kb(repo)
    store = Store.open(kb, env=dict(os.environ))
    tip = store.tip("main")
    assert tip is not None
    ref = b"refs/heads/main"
    other = git("commit-tree", "-m", "x", "HEAD^{tree}", cwd=kb).strip().encode()
    assert (
        set_ref(store.common_dir, ref, b"1" * 40, other, b"m", b"A <a@b>") is False
    )  # not the old value
    assert store.tip("main") == tip and not (kb / ".git" / "refs/heads/main.lock").exists()
    (kb / ".git" / "refs" / "heads" / "main.lock").write_text("")  # git holds it
    from reflectgit.git.refs import RefLockHeld

    with pytest.raises(RefLockHeld):
        set_ref(store.common_dir, ref, tip.encode(), other, b"m", b"A <a@b>")
    assert store.tip("main") == tip
    (kb / ".git" / "refs" / "heads" / "main.lock").unlink()
    assert set_ref(store.common_dir, ref, tip.encode(), other, b"m", b"A <a@b>") is True
    assert git("rev-parse", "main", cwd=kb).strip() == other.decode()
    # names git refuses are dulwich's to check (and refuse): never a path outside refs/heads
    for bad in (b"refs/heads/../../x", b"refs/heads/a..b", b"refs/heads/.hidden", b"HEAD",
                b"refs/heads/x.lock", b"refs/heads/a b", b"refs/tags/v1"):  # fmt: skip
        assert set_ref(store.common_dir, bad, None, other, b"m", b"A <a@b>") is None, bad
    assert not (kb / ".git" / "x").exists()
    assert set_ref(store.common_dir, b"refs/heads/knowledge/pool-x", None, other, b"m", b"A <a@b>")
    assert git("rev-parse", "knowledge/pool-x", cwd=kb).strip() == other.decode()
    # a symbolic branch is dulwich's to write
    git("symbolic-ref", "refs/heads/alias", "refs/heads/main", cwd=kb)
    assert set_ref(store.common_dir, b"refs/heads/alias", None, other, b"m", b"A <a@b>") is None


def test_locate_finds_what_dulwich_finds_and_leaves_it_the_odd_ones(repo, tmp_path):
    kb = _kb(repo)
    linked = tmp_path / "linked"
    git("worktree", "add", "-q", "-b", "side", str(linked), cwd=kb)
    bare = tmp_path / "bare.git"
    git("clone", "-q", "--bare", str(kb), str(bare), cwd=tmp_path)
    for path in (kb, linked, bare):
        place = locate(path)
        assert place is not None
        with Repo(str(path)) as dul:
            assert (place.git_dir, place.common_dir, place.bare) == (
                os.fsdecode(dul.controldir()), os.fsdecode(dul.commondir()), dul.bare,
            )  # fmt: skip
    store = Store.open(linked, env=dict(os.environ))
    assert store.current_branch() == "side"
    store.commit([write("documents/c.md", b"C\n")], MSG)
    assert git("status", "--porcelain", cwd=linked) == "" and store._repo is None
    assert git("rev-parse", "side", cwd=kb).strip() == store.tip("side")
    git("config", "core.sharedRepository", "group", cwd=kb)
    assert locate(kb) is None  # dulwich's Repo then (its shared permissions)
    with pytest.raises(FileNotFoundError):
        locate(tmp_path / "nowhere")


def test_an_add_imports_no_dulwich_repo(tmp_path):
    kb = _kb(tmp_path / "kb")
    probe = (
        "import sys, contextlib, io\n"
        "from reflectgit.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['--kb', {str(kb)!r}, 'add', '--title', 'T', '--insight', 'I',"
        " '--confidence', 'high'])\n"
        "print(code, sorted(m for m in sys.modules if m.startswith('dulwich')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True
    ).stdout.split(" ", 1)
    assert out[0] == "0"
    assert "dulwich.repo" not in out[1] and "dulwich.object_store" not in out[1]
    # No config file mentions core.fsync or an include: none is parsed, no dulwich at all ...
    assert "dulwich.config" not in out[1]
    # ... but one that may set it is read by dulwich's config reader, as before.
    git("config", "core.fsyncMethod", "fsync", cwd=kb)
    probe = probe.replace("'T'", "'Another'")
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True
    ).stdout.split(" ", 1)
    assert out[0] == "0" and "dulwich.config" in out[1]
