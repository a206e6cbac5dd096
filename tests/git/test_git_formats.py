"""The byte-level tree patcher and object readers agree with git itself; the index is git's."""

from __future__ import annotations

import hashlib
import os
import random

import pytest

from reflectgit.git.change import delete, write
from reflectgit.git.store import Store
from reflectgit.git.tree import DIR_MODE, RawTree
from reflectgit.notes import messages
from tests.conftest import git

NAMES = ["a", "a.b", "a-b", "a_b", "ab", "b", "a0", "z", "A", "é", "a b"]


def mktree(repo, entries):
    """git's own tree for entries [(name, mode, sha_hex)]."""
    lines = []
    for name, mode, sha in entries:
        kind = "tree" if mode == DIR_MODE else "blob"
        lines.append(f"{mode:06o} {kind} {sha}\t{name}")
    return git("mktree", cwd=repo, input="\n".join(lines) + ("\n" if lines else "")).strip()


@pytest.mark.parametrize("seed", range(25))
def test_raw_tree_edits_match_git_mktree(repo, seed):
    rng = random.Random(seed)
    blob = git("hash-object", "-w", "--stdin", cwd=repo, input="x").strip()
    sub = mktree(repo, [("f", 0o100644, blob)])
    start = {}
    for name in rng.sample(NAMES, rng.randint(0, len(NAMES))):
        start[name] = (DIR_MODE, sub) if rng.random() < 0.4 else (0o100644, blob)
    base_sha = mktree(repo, [(n, m, s) for n, (m, s) in start.items()])
    tree = RawTree(Store.open(repo)._raw_tree(base_sha.encode()).raw)
    expected = dict(start)
    for name in rng.sample(NAMES, rng.randint(1, 5)):
        if rng.random() < 0.3:
            tree.remove(name.encode())
            expected.pop(name, None)
        else:
            mode, sha = (DIR_MODE, sub) if rng.random() < 0.4 else (0o100644, blob)
            tree.set(name.encode(), mode, bytes.fromhex(sha))
            expected[name] = (mode, sha)
    want = mktree(repo, [(n, m, s) for n, (m, s) in expected.items()])
    data = tree.serialize()
    header = b"tree %d\x00" % len(data)
    assert hashlib.sha1(header + data).hexdigest() == want


def test_the_index_keeps_git_happy_with_cache_tree(repo):
    st = Store.init(repo, env=dict(os.environ))
    st.commit([write(f"documents/n{i}.md", b"%d\n" % i) for i in range(50)], "seed\n")
    (repo / "user.txt").write_text("u\n")
    git("add", "user.txt", cwd=repo)
    git("commit", "-qm", "user", cwd=repo)  # git writes a TREE extension here
    assert b"TREE" in (repo / ".git" / "index").read_bytes()
    st.commit([write("documents/n7.md", b"changed\n"), delete("documents/n3.md")], "edit\n")
    st.commit([write("documents/zz/new.md", b"new\n")], "add\n")
    assert git("status", "--porcelain", cwd=repo) == ""
    git("fsck", "--strict", cwd=repo)
    # git's own next commit must build the right tree from our patched index.
    (repo / "user2.txt").write_text("v\n")
    git("add", "user2.txt", cwd=repo)
    git("commit", "-qm", "user2", cwd=repo)
    assert git("diff", "HEAD~1", "HEAD", "--name-only", cwd=repo).split() == ["user2.txt"]
    assert git("show", "HEAD:documents/n7.md", cwd=repo) == "changed\n"
    assert "documents/n3.md" not in git("ls-files", cwd=repo)


def test_an_index_at_version_4_stays_at_version_4(repo):
    st = Store.init(repo, env=dict(os.environ))
    st.commit([write("a.md", b"a\n")], messages.build("s", "add", ["a"]))
    git("update-index", "--index-version", "4", cwd=repo)
    st.commit([write("b.md", b"b\n")], messages.build("s", "add", ["b"]))
    assert git("status", "--porcelain", cwd=repo) == ""
    assert git("ls-files", cwd=repo).split() == ["a.md", "b.md"]
    assert (repo / ".git" / "index").read_bytes()[4:8] == b"\x00\x00\x00\x04"
    assert git("write-tree", cwd=repo) == git("rev-parse", "HEAD^{tree}", cwd=repo)


def test_loose_objects_and_refs_read_like_git(repo):
    from reflectgit.git.objects import read_loose, read_ref

    blob = git("hash-object", "-w", "--stdin", cwd=repo, input="hello\n").strip()
    objects = repo / ".git" / "objects"
    assert read_loose(objects, blob, b"blob") == b"hello\n"
    assert read_loose(objects, blob, b"tree") is None  # another type: the caller falls back
    assert read_loose(objects, "0" * 40, b"blob") is None
    (repo / "a").write_text("a\n")
    git("add", "a", cwd=repo)
    git("commit", "-qm", "one", cwd=repo)
    head = git("rev-parse", "HEAD", cwd=repo).strip()
    assert read_ref(repo / ".git", "HEAD") == head  # symbolic, then loose
    git("pack-refs", "--all", cwd=repo)
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert read_ref(repo / ".git", "refs/heads/main") == head  # from packed-refs
    assert read_ref(repo / ".git", "refs/heads/missing") is None
