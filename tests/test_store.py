"""The write path, checked with real git."""

from __future__ import annotations

import os
import stat

import pytest

from reflectgit.errors import ConflictError, NotFoundError
from reflectgit.git.store import Store, delete, move, write
from reflectgit.notes import messages
from tests.conftest import git


def open_store(path):
    return Store.init(path, env=dict(os.environ))


def msg(subject="feat(knowledge): t [HIGH]", op="add", ids=("t",)):
    return messages.build(subject, op, ids)


def test_commit_writes_one_commit_with_trailers_and_a_clean_tree(repo):
    st = open_store(repo)
    sha = st.commit([write("documents/a.md", b"A\n"), write("documents/b.md", b"B\n")], msg())
    assert git("rev-parse", "HEAD", cwd=repo).strip() == sha
    assert git("status", "--porcelain", cwd=repo) == ""
    assert git("fsck", "--strict", cwd=repo, check=True) == ""
    assert git("log", "--format=%(trailers:key=Reflect-Op,valueonly)", cwd=repo).strip() == "add"
    assert git("show", "HEAD:documents/a.md", cwd=repo) == "A\n"
    assert (repo / "documents" / "b.md").read_text() == "B\n"
    assert git("log", "--format=%an <%ae>", cwd=repo).strip() == "Test Author <author@example.com>"


def test_moves_and_deletes_touch_only_their_paths(repo):
    st = open_store(repo)
    st.commit([write("documents/a.md", b"A\n"), write("keep/x.txt", b"x\n")], msg())
    keep_tree = git("rev-parse", "HEAD:keep", cwd=repo).strip()
    st.commit(move("documents/a.md", "archived/a.md", b"A\n"), msg(op="archive"))
    assert git("ls-files", cwd=repo).split() == ["archived/a.md", "keep/x.txt"]
    assert not (repo / "documents").exists()  # emptied folders go, as git would leave them
    assert git("rev-parse", "HEAD:keep", cwd=repo).strip() == keep_tree
    st.commit([delete("archived/a.md")], msg(op="forget"))
    assert git("ls-files", cwd=repo).split() == ["keep/x.txt"]
    assert git("status", "--porcelain", cwd=repo) == ""
    assert len(git("rev-list", "HEAD", cwd=repo).split()) == 3


def test_no_change_makes_no_commit(repo):
    st = open_store(repo)
    first = st.commit([write("a", b"1")], msg())
    assert st.commit([write("a", b"1")], msg()) is None
    assert git("rev-parse", "HEAD", cwd=repo).strip() == first


@pytest.mark.parametrize("edit", ["worktree", "staged", "untracked", "deleted"])
def test_uncommitted_edits_are_never_clobbered(repo, edit):
    st = open_store(repo)
    st.commit([write("documents/a.md", b"A\n")], msg())
    head = git("rev-parse", "HEAD", cwd=repo).strip()
    target = "documents/new.md" if edit == "untracked" else "documents/a.md"
    if edit == "deleted":
        (repo / target).unlink()
    else:
        (repo / target).write_text("mine\n")
    if edit == "staged":
        git("add", target, cwd=repo)
    before = git("status", "--porcelain", cwd=repo)
    with pytest.raises(ConflictError, match="uncommitted changes"):
        st.commit([write(target, b"theirs\n")], msg())
    assert git("rev-parse", "HEAD", cwd=repo).strip() == head
    assert git("status", "--porcelain", cwd=repo) == before


def test_unrelated_staged_files_and_user_commits_are_left_alone(repo):
    st = open_store(repo)
    st.commit([write("documents/a.md", b"A\n")], msg())
    (repo / "notes.txt").write_text("user\n")
    git("add", "notes.txt", cwd=repo)
    git("commit", "-qm", "user commit", cwd=repo)
    (repo / "staged.txt").write_text("staged\n")
    git("add", "staged.txt", cwd=repo)
    st.commit([write("documents/b.md", b"B\n")], msg())
    assert git("status", "--porcelain", cwd=repo) == "A  staged.txt\n"
    assert "user commit" in git("log", "--format=%s", cwd=repo)
    assert "staged.txt" not in git("show", "--name-only", "--format=", "HEAD", cwd=repo)


def test_repository_hooks_do_not_run(repo):
    st = open_store(repo)
    hook = repo / ".git" / "hooks" / "post-commit"
    marker = repo.parent / "hook-ran"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    st.commit([write("a", b"1")], msg())
    assert not marker.exists()


def test_commit_on_another_branch_from_a_given_parent_leaves_the_work_tree(repo):
    st = open_store(repo)
    base = st.commit([write("documents/a.md", b"A\n")], msg())
    st.commit([write("documents/main-only.md", b"M\n")], msg())
    sha = st.commit([write("documents/k.md", b"K\n")], msg(), branch="knowledge/k", parent=base)
    assert git("rev-parse", "knowledge/k^", cwd=repo).strip() == base
    assert git("ls-tree", "-r", "--name-only", "knowledge/k", cwd=repo).split() == [
        "documents/a.md",
        "documents/k.md",
    ]
    assert not (repo / "documents" / "k.md").exists()
    assert git("status", "--porcelain", cwd=repo) == ""
    assert st.branches("knowledge/") == {"knowledge/k": sha}


def test_set_ref_is_compare_and_swap(repo):
    st = open_store(repo)
    a = st.commit([write("a", b"1")], msg())
    b = st.commit([write("a", b"2")], msg())
    with pytest.raises(ConflictError):
        st.set_ref("main", a, expected_old=a)
    st.set_ref("main", a, expected_old=b)
    assert git("rev-parse", "main", cwd=repo).strip() == a


def test_reads_resolve_revisions_and_diff(repo):
    st = open_store(repo)
    a = st.commit([write("documents/a.md", b"1")], msg())
    b = st.commit([write("documents/a.md", b"2"), write("documents/b.md", b"3")], msg())
    assert st.resolve("HEAD") == b
    assert st.resolve("main~1") == a == st.resolve(a[:8])
    assert st.read("documents/a.md", a) == b"1"
    assert st.read("documents/missing.md") is None
    assert sorted(st.list_files("documents")) == ["documents/a.md", "documents/b.md"]
    changed = {p for p, _old, _new in st.diff_trees(st.tree_id(a), st.tree_id(b))}
    assert changed == {"documents/a.md", "documents/b.md"}
    assert [c.sha for c in st.log()] == [b, a]
    with pytest.raises(NotFoundError):
        st.tree_id("no-such-branch")


def test_open_refuses_a_plain_folder(tmp_path):
    with pytest.raises(NotFoundError, match="not a git repository"):
        Store.open(tmp_path)


def test_init_refuses_a_stray_dot_git_folder(tmp_path):
    (tmp_path / "kb" / ".git" / "reflect-git").mkdir(parents=True)
    with pytest.raises(ConflictError, match="not a git repository"):
        Store.init(tmp_path / "kb")
