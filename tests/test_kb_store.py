"""What the kb work added to store: direct loose-object reads, crash debris, sync recovery."""

from __future__ import annotations

import json
import os

from reflectgit import messages
from reflectgit.store import JOURNAL_NAME, WRITER_NAME, Store, write
from tests.conftest import git


def msg() -> messages.CommitMessage:
    return messages.build("feat(knowledge): t [HIGH]", "add", ["t"])


def test_reads_work_from_loose_and_packed_objects(repo):
    st = Store.init(repo, env=dict(os.environ))
    st.commit([write("documents/a.md", b"A\n"), write("documents/b.md", b"B\n")], msg())
    assert st.read("documents/a.md") == b"A\n"
    git("gc", "-q", "--prune=now", cwd=repo)
    fresh = Store.open(repo, env=dict(os.environ))
    assert fresh.read("documents/b.md") == b"B\n"
    assert sorted(fresh.list_files("documents")) == ["documents/a.md", "documents/b.md"]
    fresh.commit([write("documents/c.md", b"C\n")], msg())
    assert git("show", "HEAD:documents/c.md", cwd=repo) == "C\n"
    assert git("status", "--porcelain", cwd=repo) == ""
    assert git("fsck", "--strict", cwd=repo) == ""


def test_a_dead_writers_locks_and_temp_files_are_cleared_by_the_next_write(repo):
    st = Store.init(repo, env=dict(os.environ))
    first = st.commit([write("documents/a.md", b"A\n")], msg())
    assert first
    git_dir = repo / ".git"
    # What a writer killed inside the lock leaves: its marker, git lock files, a temp object.
    (git_dir / WRITER_NAME).write_text("999999")
    (git_dir / "index.lock").write_bytes(b"half an index")
    (git_dir / "refs" / "heads" / "main.lock").write_text(first + "\n")
    tmp_obj = git_dir / "objects" / first[:2] / "tmp_obj_999999_abcdef"
    tmp_obj.write_bytes(b"junk")
    (repo / "documents" / ".a.md.reflect-git-tmp").write_bytes(b"half")
    (git_dir / JOURNAL_NAME).write_text(
        json.dumps({"branch": "main", "old": None, "new": first, "paths": ["documents/a.md"]})
    )
    second = st.commit([write("documents/b.md", b"B\n")], msg())
    assert second and git("rev-parse", "HEAD", cwd=repo).strip() == second
    assert not (git_dir / "index.lock").exists()
    assert not (git_dir / "refs" / "heads" / "main.lock").exists()
    assert not tmp_obj.exists()
    assert not (git_dir / WRITER_NAME).exists()
    assert not (git_dir / JOURNAL_NAME).exists()
    assert git("status", "--porcelain", cwd=repo) == ""
    assert "garbage" not in git("count-objects", "-v", cwd=repo).replace("garbage: 0", "")


def test_recovery_finishes_a_sync_killed_between_the_file_and_the_index(repo):
    st = Store.init(repo, env=dict(os.environ))
    old = st.commit([write("documents/a.md", b"old\n")], msg())
    # Simulate a writer that moved the ref and replaced the file, then died before the index.
    new_sha = Store.open(repo, env=dict(os.environ)).commit(
        [write("documents/a.md", b"new\n")], msg(), sync_worktree=False
    )
    assert new_sha
    (repo / "documents" / "a.md").write_bytes(b"new\n")
    (repo / ".git" / JOURNAL_NAME).write_text(
        json.dumps({"branch": "main", "old": old, "new": new_sha, "paths": ["documents/a.md"]})
    )
    assert git("status", "--porcelain", cwd=repo) == "MM documents/a.md\n"
    st.commit([write("documents/b.md", b"B\n")], msg())
    assert git("status", "--porcelain", cwd=repo) == ""


def test_recovery_leaves_a_users_edit_made_after_the_crash_alone(repo):
    st = Store.init(repo, env=dict(os.environ))
    old = st.commit([write("documents/a.md", b"old\n")], msg())
    new_sha = Store.open(repo, env=dict(os.environ)).commit(
        [write("documents/a.md", b"new\n")], msg(), sync_worktree=False
    )
    (repo / "documents" / "a.md").write_bytes(b"the user's own words\n")
    (repo / ".git" / JOURNAL_NAME).write_text(
        json.dumps({"branch": "main", "old": old, "new": new_sha, "paths": ["documents/a.md"]})
    )
    st.commit([write("documents/b.md", b"B\n")], msg())
    assert (repo / "documents" / "a.md").read_bytes() == b"the user's own words\n"
