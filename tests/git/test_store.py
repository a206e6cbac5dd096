"""The write path, checked with real git."""

from __future__ import annotations

import os
import stat
import time

import pytest

from reflectgit.errors import ConflictError, LockError, NotFoundError
from reflectgit.git.change import delete, write
from reflectgit.git.store import Store
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
    st.commit([delete("documents/a.md"), write("archived/a.md", b"A\n")], msg(op="archive"))
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
    assert git("rev-parse", "knowledge/k", cwd=repo).strip() == sha


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


# --------------------------------------------------------------------------- git's index, git's rules


def assert_git_agrees(repo, status=""):
    """What every write must leave: the status the user had, an index holding HEAD, fsck clean."""
    assert git("status", "--porcelain", cwd=repo) == status
    assert git("write-tree", cwd=repo) == git("rev-parse", "HEAD^{tree}", cwd=repo)
    assert git("fsck", "--strict", cwd=repo) == ""
    assert not (repo / ".git" / "index.lock").exists()


def seeded(repo):
    st = open_store(repo)
    st.commit([write("documents/a.md", b"A\n"), write("other/o.md", b"O\n")], msg())
    return st


def test_a_held_index_lock_refuses_before_anything_is_written(repo):
    st = seeded(repo)
    head = git("rev-parse", "HEAD", cwd=repo).strip()
    objects = git("count-objects", "-v", cwd=repo)
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")
    with pytest.raises(LockError) as caught:
        st.commit([write("documents/b.md", b"B\n")], msg())
    assert caught.value.exit_code == 1
    assert str(lock) in (caught.value.hint or "") and "remove it" in (caught.value.hint or "")
    assert git("rev-parse", "HEAD", cwd=repo).strip() == head
    assert git("count-objects", "-v", cwd=repo) == objects
    assert not (repo / "documents" / "b.md").exists()
    lock.unlink()
    # The user's next ordinary commit keeps every note.
    (repo / "mine.txt").write_text("mine\n")
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "mine", cwd=repo)
    assert sorted(git("ls-files", cwd=repo).split()) == ["documents/a.md", "mine.txt", "other/o.md"]


def test_a_held_index_lock_is_exit_1_with_a_hint_from_the_cli(repo):
    from tests.conftest import run_cli_proc

    proc = run_cli_proc(
        "--kb", str(repo), "add", "--title", "First", "--insight", "i", "--confidence", "high"
    )
    assert proc.returncode == 0, proc.stderr
    head = git("rev-parse", "HEAD", cwd=repo).strip()
    (repo / ".git" / "index.lock").write_bytes(b"")
    proc = run_cli_proc(
        "--kb", str(repo), "add", "--title", "Second", "--insight", "i", "--confidence", "high"
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("error: ") and "hint:" in proc.stderr
    assert "index.lock" in proc.stderr
    assert git("rev-parse", "HEAD", cwd=repo).strip() == head
    (repo / ".git" / "index.lock").unlink()
    assert git("status", "--porcelain", cwd=repo) == ""


def test_an_edit_that_keeps_mtime_and_size_is_refused(repo):
    st = seeded(repo)
    note = repo / "documents" / "a.md"
    before = note.stat()
    time.sleep(0.01)
    note.write_bytes(b"Z\n")  # same size
    os.utime(note, ns=(before.st_atime_ns, before.st_mtime_ns))  # as `cp -p` or `rsync -t`
    assert git("status", "--porcelain", cwd=repo) == " M documents/a.md\n"
    head = git("rev-parse", "HEAD", cwd=repo).strip()
    with pytest.raises(ConflictError, match=r"uncommitted changes in documents/a\.md"):
        st.commit([write("documents/a.md", b"theirs\n")], msg())
    assert note.read_bytes() == b"Z\n"
    assert git("rev-parse", "HEAD", cwd=repo).strip() == head
    assert git("fsck", "--strict", cwd=repo) == ""  # not even a dangling object left


@pytest.mark.parametrize("how", ["autocrlf", "eol-crlf"])
def test_crlf_checkouts_get_crlf_files_and_a_touch_is_not_an_edit(repo, how):
    if how == "autocrlf":
        git("config", "core.autocrlf", "true", cwd=repo)
        st = seeded(repo)
    else:
        st = open_store(repo)
        st.commit([write(".gitattributes", b"* text eol=crlf\n")], msg())
        st.commit([write("documents/a.md", b"A\n"), write("other/o.md", b"O\n")], msg())
    assert (repo / "documents" / "a.md").read_bytes() == b"A\r\n"  # as git checks it out
    os.utime(repo / "documents" / "a.md")  # `touch`: git status stays clean
    assert git("status", "--porcelain", cwd=repo) == ""
    st.commit([write("documents/a.md", b"A2\nline\n"), write("documents/b.md", b"B\n")], msg())
    assert (repo / "documents" / "a.md").read_bytes() == b"A2\r\nline\r\n"
    assert (repo / "documents" / "b.md").read_bytes() == b"B\r\n"
    assert git("show", "HEAD:documents/a.md", cwd=repo) == "A2\nline\n"  # LF in the repository
    assert_git_agrees(repo)


def test_filemode_false_ignores_an_executable_bit(repo):
    git("config", "core.filemode", "false", cwd=repo)
    st = seeded(repo)
    (repo / "documents" / "a.md").chmod(0o755)
    assert git("status", "--porcelain", cwd=repo) == ""
    st.commit([write("documents/a.md", b"A2\n")], msg())
    assert_git_agrees(repo)


def test_split_index(repo):
    git("config", "core.splitIndex", "true", cwd=repo)
    st = seeded(repo)
    git("update-index", "--split-index", cwd=repo)
    st.commit([write("documents/b.md", b"B\n"), delete("other/o.md")], msg())
    st.commit([write("documents/c.md", b"C\n")], msg())
    assert b"link" in (repo / ".git" / "index").read_bytes()
    assert git("ls-files", cwd=repo).split() == [
        "documents/a.md",
        "documents/b.md",
        "documents/c.md",
    ]
    assert_git_agrees(repo)


def test_untracked_cache_still_sees_untracked_files(repo):
    git("config", "core.untrackedCache", "true", cwd=repo)
    st = seeded(repo)
    git("update-index", "--untracked-cache", cwd=repo)
    (repo / "documents" / "scratch.txt").write_text("mine\n")
    assert git("status", "--porcelain", cwd=repo) == "?? documents/scratch.txt\n"
    st.commit([write("documents/b.md", b"B\n")], msg())
    (repo / "documents" / "later.txt").write_text("mine too\n")
    assert_git_agrees(repo, "?? documents/later.txt\n?? documents/scratch.txt\n")


@pytest.mark.parametrize("sparse_index", [False, True])
def test_sparse_checkout_commits_outside_the_cone_without_materialising(repo, sparse_index):
    st = seeded(repo)
    args = ["sparse-checkout", "set", "--cone"] + (["--sparse-index"] if sparse_index else [])
    git(*args, "other", cwd=repo)
    assert not (repo / "documents").exists()
    st.commit([write("documents/b.md", b"B\n"), write("other/p.md", b"P\n")], msg())
    assert git("show", "HEAD:documents/b.md", cwd=repo) == "B\n"
    assert not (repo / "documents").exists()  # outside the cone: committed, not checked out
    assert (repo / "other" / "p.md").read_bytes() == b"P\n"
    tags = dict(line.split(" ", 1)[::-1] for line in git("ls-files", "-t", cwd=repo).splitlines())
    if not sparse_index:
        assert tags["documents/b.md"] == "S" and tags["other/p.md"] == "H"
    st.commit([delete("documents/a.md")], msg())
    assert_git_agrees(repo)
    assert "documents/a.md" not in git("ls-tree", "-r", "--name-only", "HEAD", cwd=repo)


FSMONITOR_HOOK = r"""#!/usr/bin/env python3
# A real fsmonitor hook (protocol 2): every path under the work tree whose mtime or ctime is
# newer than the token git gives us.
import os, sys, time
version, token = sys.argv[1], sys.argv[2]
now = time.time_ns()
since = int(token) if token.isdigit() else 0
root = os.getcwd()
out = [str(now)]
for folder, dirs, files in os.walk(root):
    if ".git" in dirs:
        dirs.remove(".git")
    for name in files:
        full = os.path.join(folder, name)
        st = os.lstat(full)
        if max(st.st_mtime_ns, st.st_ctime_ns) >= since - 2_000_000_000:
            out.append(os.path.relpath(full, root))
if since == 0:
    out = [str(now), "/"]
sys.stdout.write("\0".join(out) + "\0")
"""


def test_fsmonitor_with_a_real_hook_keeps_the_users_edit_visible(repo):
    hook = repo.parent / "fsmonitor-hook"
    hook.write_text(FSMONITOR_HOOK)
    hook.chmod(0o755)
    git("config", "core.fsmonitor", str(hook), cwd=repo)
    st = seeded(repo)
    git("status", cwd=repo)  # git writes its FSMN extension
    assert b"FSMN" in (repo / ".git" / "index").read_bytes()
    (repo / "other" / "o.md").write_text("the user's edit\n")
    st.commit([write("documents/b.md", b"B\n")], msg())
    assert_git_agrees(repo, " M other/o.md\n")
    git("commit", "-qam", "mine", cwd=repo)
    assert git("show", "HEAD:other/o.md", cwd=repo) == "the user's edit\n"
    assert "documents/b.md" in git("ls-files", cwd=repo)
    git("reset", "-q", "--hard", "HEAD~1", cwd=repo)  # every git command still works
    assert_git_agrees(repo)


def test_a_linked_worktree_writes_its_own_index(repo):
    st = seeded(repo)
    git("worktree", "add", "-q", "-b", "side", str(repo.parent / "side"), cwd=repo)
    side = Store.open(repo.parent / "side", env=dict(os.environ))
    side.commit([write("documents/s.md", b"S\n")], msg())
    assert_git_agrees(repo.parent / "side")
    assert_git_agrees(repo)
    assert (repo.parent / "side" / "documents" / "s.md").exists()
    assert not (repo / "documents" / "s.md").exists()
    st.commit([write("documents/m.md", b"M\n")], msg())
    assert_git_agrees(repo)


def test_an_empty_commit_leaves_no_copy_of_the_index_behind(repo):
    st = seeded(repo)
    index = (repo / ".git" / "index").read_bytes()
    assert st.commit([], msg(), allow_empty=True)
    assert (repo / ".git" / "index").read_bytes() == index
    assert sorted(p.name for p in (repo / ".git").iterdir() if "reflect-git-index" in p.name) == []
    assert_git_agrees(repo)


@pytest.mark.parametrize("what", ["file-above", "ignored", "folder-in-the-way"])
def test_what_git_would_not_overwrite_is_refused(repo, what):
    st = seeded(repo)
    head = git("rev-parse", "HEAD", cwd=repo).strip()
    target = "archived/x.md"
    if what == "file-above":
        (repo / "archived").write_text("an untracked file where a folder should be\n")
    elif what == "ignored":
        (repo / ".git" / "info" / "exclude").write_text("*.md\n")
        (repo / "archived").mkdir()
        (repo / target).write_text("ignored, but mine\n")
    else:
        (repo / target).mkdir(parents=True)
        (repo / target / "inside.txt").write_text("mine\n")
    before = git("status", "--porcelain", "--ignored", cwd=repo)
    with pytest.raises(ConflictError, match="uncommitted changes"):
        st.commit([write(target, b"ours\n")], msg())
    assert git("rev-parse", "HEAD", cwd=repo).strip() == head
    assert git("status", "--porcelain", "--ignored", cwd=repo) == before
    assert git("fsck", "--strict", cwd=repo) == ""


def test_a_file_system_without_hard_links_still_takes_the_lock(repo, monkeypatch):
    import errno as errno_

    st = seeded(repo)

    def no_links(src, dst, *a, **k):
        raise OSError(errno_.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)  # as on FAT or an SMB share
    st.commit([write("documents/b.md", b"B\n")], msg())
    assert_git_agrees(repo)
    (repo / ".git" / "index.lock").write_bytes(b"")
    with pytest.raises(LockError):
        st.commit([write("documents/c.md", b"C\n")], msg())
    assert (repo / ".git" / "index.lock").read_bytes() == b""


def test_a_file_becomes_a_folder_and_back(repo):
    st = seeded(repo)
    st.commit([write("notes", b"a file\n")], msg())
    st.commit([delete("notes"), write("notes/inside.md", b"now a folder\n")], msg())
    assert_git_agrees(repo)
    assert (repo / "notes" / "inside.md").read_bytes() == b"now a folder\n"
    st.commit([delete("notes/inside.md"), write("notes", b"a file again\n")], msg())
    assert_git_agrees(repo)
    assert (repo / "notes").read_bytes() == b"a file again\n"
    st.commit([write("documents/a.md", b"A2\n"), delete("other/o.md")], msg())
    assert_git_agrees(repo)
    assert sorted(git("ls-files", cwd=repo).split()) == ["documents/a.md", "notes"]
