"""What the kb work added to store: direct loose-object reads, crash debris, sync recovery."""

from __future__ import annotations

import json
import os

from reflectgit.git.store import JOURNAL_NAME, WRITER_NAME, Store, write
from reflectgit.notes import messages
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
    (git_dir / "objects" / "pack").mkdir(exist_ok=True)
    tmp_pack = git_dir / "objects" / "pack" / "tmp_pack_999999_abcdef"
    tmp_pack.write_bytes(b"PACK")
    (repo / "documents" / ".a.md.reflect-git-tmp").write_bytes(b"half")
    (git_dir / JOURNAL_NAME).write_text(
        json.dumps({"branch": "main", "old": None, "new": first, "paths": ["documents/a.md"]})
    )
    second = st.commit([write("documents/b.md", b"B\n")], msg())
    assert second and git("rev-parse", "HEAD", cwd=repo).strip() == second
    assert not (git_dir / "index.lock").exists()
    assert not (git_dir / "refs" / "heads" / "main.lock").exists()
    assert not tmp_obj.exists()
    assert not tmp_pack.exists()
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


def test_a_big_commit_writes_one_pack_that_git_reads(repo):
    st = Store.init(repo, env=dict(os.environ))
    changes = [write(f"documents/n{i:03d}.md", b"note %d\n" % i) for i in range(200)]
    sha = st.commit(changes, msg())
    assert sha
    packs = list((repo / ".git" / "objects" / "pack").glob("pack-*.pack"))
    assert len(packs) == 1
    verify = git("verify-pack", "-v", str(packs[0].with_suffix(".idx")), cwd=repo)
    assert "blob" in verify and "tree" in verify
    assert git("fsck", "--strict", cwd=repo) == ""
    assert git("show", "HEAD:documents/n123.md", cwd=repo) == "note 123\n"
    assert git("status", "--porcelain", cwd=repo) == ""
    # The same process (dulwich's pack cache) and a new one both read what the pack holds.
    assert st.read("documents/n007.md") == b"note 7\n"
    assert Store.open(repo).read("documents/n199.md") == b"note 199\n"
    st.commit([write("documents/n000.md", b"changed\n")], msg())
    assert git("status", "--porcelain", cwd=repo) == ""


def test_write_pack_handles_large_entries_and_duplicates(tmp_path, repo):
    from reflectgit.git.pack import object_id, write_pack

    big = os.urandom(300_000)
    objs = [(b"blob", big, object_id(b"blob", big)), (b"blob", b"x", object_id(b"blob", b"x"))]
    name = write_pack(repo / ".git" / "objects" / "pack", [*objs, objs[1]])
    assert name
    out = git("cat-file", "--batch-check", cwd=repo, input=objs[0][2].hex() + "\n")
    assert out.split()[1:] == ["blob", "300000"]
    assert write_pack(repo / ".git" / "objects" / "pack", []) is None


def test_recovery_finishes_a_new_file_cut_short(repo):
    st = Store.init(repo, env=dict(os.environ))
    old = st.commit([write("documents/a.md", b"A\n")], msg())
    new_sha = Store.open(repo, env=dict(os.environ)).commit(
        [write("documents/new.md", b"a whole new note\n")], msg(), sync_worktree=False
    )
    (repo / "documents" / "new.md").write_bytes(b"a whole")  # killed mid-write
    (repo / ".git" / JOURNAL_NAME).write_text(
        json.dumps({"branch": "main", "old": old, "new": new_sha, "paths": ["documents/new.md"]})
    )
    st.commit([write("documents/b.md", b"B\n")], msg())
    assert (repo / "documents" / "new.md").read_bytes() == b"a whole new note\n"
    assert git("status", "--porcelain", cwd=repo) == ""


def test_expect_refuses_a_path_that_moved_since_it_was_read(repo):
    from reflectgit.git.store import PathChanged, blob_id

    st = Store.init(repo, env=dict(os.environ))
    st.commit([write("documents/a.md", b"one\n")], msg())
    before = git("rev-parse", "HEAD", cwd=repo).strip()
    try:
        st.commit(
            [write("documents/a.md", b"three\n")], msg(), expect={"documents/a.md": blob_id(b"2")}
        )
    except PathChanged as exc:
        assert "documents/a.md changed" in exc.message
    else:
        raise AssertionError("expected PathChanged")
    assert git("rev-parse", "HEAD", cwd=repo).strip() == before
    ok = st.commit(
        [write("documents/a.md", b"two\n"), write("documents/b.md", b"b\n")],
        msg(),
        expect={"documents/a.md": blob_id(b"one\n"), "documents/b.md": None},
    )
    assert ok and git("show", "HEAD:documents/a.md", cwd=repo) == "two\n"
    assert git("status", "--porcelain", cwd=repo) == ""
