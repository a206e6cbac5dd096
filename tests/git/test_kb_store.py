"""The store's objects and packs, and its recovery from writers killed at every step (for real,
with SIGKILL), checked with real git."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from reflectgit.errors import LockError
from reflectgit.git.change import write
from reflectgit.git.store import Store
from reflectgit.git.worktree import JOURNAL_NAME, WORK_INDEX, WRITER_NAME
from reflectgit.git.writelock import LOCK_NAME
from reflectgit.notes import messages
from tests.conftest import REPO_ROOT, git, run_cli_proc


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
    import hashlib

    from reflectgit.git.pack import write_pack

    def object_id(kind: bytes, raw: bytes) -> bytes:
        return hashlib.sha1(b"%s %d\x00" % (kind, len(raw)) + raw).digest()

    big = os.urandom(300_000)
    objs = [(b"blob", big, object_id(b"blob", big)), (b"blob", b"x", object_id(b"blob", b"x"))]
    name = write_pack(repo / ".git" / "objects" / "pack", [*objs, objs[1]])
    assert name
    out = git("cat-file", "--batch-check", cwd=repo, input=objs[0][2].hex() + "\n")
    assert out.split()[1:] == ["blob", "300000"]
    assert write_pack(repo / ".git" / "objects" / "pack", []) is None


def test_expect_refuses_a_path_that_moved_since_it_was_read(repo):
    from reflectgit.git.objects import blob_id
    from reflectgit.git.store import PathChanged

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


# --------------------------------------------------------------------------- killed writers


def test_a_dead_writers_ref_locks_and_temp_files_are_cleared_by_the_next_write(repo):
    st = Store.init(repo, env=dict(os.environ))
    first = st.commit([write("documents/a.md", b"A\n")], msg())
    assert first
    git_dir = repo / ".git"
    # What a writer killed inside the KB lock leaves: its marker, a ref lock, temp objects.
    (git_dir / WRITER_NAME).write_text("999999")
    (git_dir / "refs" / "heads" / "main.lock").write_text(first + "\n")
    tmp_obj = git_dir / "objects" / first[:2] / "tmp_obj_999999_abcdef"
    tmp_obj.write_bytes(b"junk")
    (git_dir / "objects" / "pack").mkdir(exist_ok=True)
    tmp_pack = git_dir / "objects" / "pack" / "tmp_pack_999999_abcdef"
    tmp_pack.write_bytes(b"PACK")
    second = Store.open(repo, env=dict(os.environ)).commit([write("documents/b.md", b"B\n")], msg())
    assert second and git("rev-parse", "HEAD", cwd=repo).strip() == second
    for gone in (
        git_dir / "refs" / "heads" / "main.lock",
        tmp_obj,
        tmp_pack,
        git_dir / WRITER_NAME,
    ):
        assert not gone.exists(), gone
    assert git("status", "--porcelain", cwd=repo) == ""
    assert "garbage" not in git("count-objects", "-v", cwd=repo).replace("garbage: 0", "")


def test_an_index_lock_we_cannot_prove_is_ours_is_never_removed(repo):
    st = Store.init(repo, env=dict(os.environ))
    first = st.commit([write("documents/a.md", b"A\n")], msg())
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"git's own, or nobody's we know")
    (repo / ".git" / WRITER_NAME).write_text("999999")  # even with a dead writer's marker
    with pytest.raises(LockError) as caught:
        Store.open(repo, env=dict(os.environ)).commit([write("documents/b.md", b"B\n")], msg())
    assert str(lock) in (caught.value.hint or "") and "remove it" in (caught.value.hint or "")
    assert lock.read_bytes() == b"git's own, or nobody's we know"
    assert git("rev-parse", "HEAD", cwd=repo).strip() == first
    assert not (repo / "documents" / "b.md").exists()
    assert not list((repo / ".git").glob(WORK_INDEX + "*"))
    assert not (repo / ".git" / JOURNAL_NAME).exists()


# A writer that kills itself with SIGKILL at a chosen step of Store.commit. The step is chosen
# by wrapping one of the store's own functions in this child process only (no test hooks in
# the product): the kill is as real as a user's `kill -9` at that instant.
KILLER = """
import os, signal, sys
from reflectgit.git import store as S, worktree as W
from reflectgit.git.change import delete, write
from reflectgit.git.store import Store
from reflectgit.errors import LockError
from reflectgit.notes import messages

path, step = sys.argv[1], sys.argv[2]

def die():
    os.kill(os.getpid(), signal.SIGKILL)

def before(owner, name):
    real = getattr(owner, name)
    def wrapped(*a, **k):
        die()
    setattr(owner, name, wrapped)

def after(owner, name, also=None):
    real = getattr(owner, name)
    def wrapped(*a, **k):
        out = real(*a, **k)
        if also:
            also()
        die()
    setattr(owner, name, wrapped)

def cut_a_new_file_short():
    full = os.path.join(path, "documents", "new.md")
    data = open(full, "rb").read()
    open(full, "wb").write(data[: len(data) // 2])

if step == "locked":
    before(S.Store, "_write_tree")
elif step == "objects":
    after(W.Held, "record")
elif step == "mid-checkout":
    after(W.WorkTree, "checkout", cut_a_new_file_short)
elif step == "checked-out":
    before(S.Store, "_move_ref")
elif step == "ref-moved":
    before(W.Held, "publish")
elif step == "index-renamed":
    def publish(self):
        os.replace(self.work, self.tree.index)
        die()
    W.Held.publish = publish
st = Store.open(path, env=dict(os.environ))
st.commit(
    [write("documents/a.md", b"a, edited\\n" * 50), write("documents/new.md", b"new\\n" * 400),
     delete("documents/old.md")],
    messages.build("feat(knowledge): killed [HIGH]", "add", ["killed"]),
)
print("not killed")
"""

STEPS = ["locked", "objects", "mid-checkout", "checked-out", "ref-moved", "index-renamed"]
OLD = {"documents/a.md": b"a\n", "documents/old.md": b"old\n", "documents/keep.md": b"keep\n"}


def _killed_writer(repo: Path, step: str) -> str:
    st = Store.init(repo, env=dict(os.environ))
    before = st.commit([write(p, d) for p, d in OLD.items()], msg())
    assert before
    proc = subprocess.run(
        [sys.executable, "-c", KILLER, str(repo), step],
        env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr
    return before


def _assert_consistent(repo: Path, before: str) -> str:
    """No lock, journal or copy of ours left; the index holds HEAD; every note whole."""
    git_dir = repo / ".git"
    assert not (git_dir / "index.lock").exists()
    assert not (git_dir / JOURNAL_NAME).exists()
    assert not list(git_dir.glob(WORK_INDEX + "*"))
    assert git("status", "--porcelain", cwd=repo) == ""
    assert git("write-tree", cwd=repo) == git("rev-parse", "HEAD^{tree}", cwd=repo)
    fsck = subprocess.run(
        ["git", "fsck", "--strict", "--no-dangling"], cwd=repo, capture_output=True, text=True
    )
    assert fsck.returncode == 0 and fsck.stdout + fsck.stderr == "", fsck.stdout + fsck.stderr
    now = git("rev-parse", "HEAD", cwd=repo).strip()
    if now == before:  # rolled back: the work tree is as it was
        assert sorted(git("ls-files", cwd=repo).split()) == sorted(OLD)
        for rel, data in OLD.items():
            assert (repo / rel).read_bytes() == data
        assert not (repo / "documents" / "new.md").exists()
        return "rolled back"
    assert git("rev-parse", "HEAD^", cwd=repo).strip() == before
    assert (repo / "documents" / "new.md").read_bytes() == b"new\n" * 400  # never cut short
    assert (repo / "documents" / "a.md").read_bytes() == b"a, edited\n" * 50
    assert not (repo / "documents" / "old.md").exists()
    return "finished"


@pytest.mark.parametrize("step", STEPS)
def test_a_writer_killed_at_each_step_is_finished_or_rolled_back_by_the_next_open(repo, step):
    before = _killed_writer(repo, step)
    if step != "locked" or (repo / ".git" / "index.lock").exists():
        # Meanwhile git itself refuses to commit from the index we had not finished writing.
        (repo / "documents" / "keep.md").write_bytes(b"keep, edited by hand\n")
        res = subprocess.run(
            ["git", "commit", "-qam", "mine"], cwd=repo, capture_output=True, text=True
        )
        assert res.returncode != 0 and "index.lock" in res.stderr
        (repo / "documents" / "keep.md").write_bytes(b"keep\n")
    Store.open(repo, env=dict(os.environ)).close()  # any command opens the KB this way
    outcome = _assert_consistent(repo, before)
    moved = step in ("ref-moved", "index-renamed")
    assert outcome == ("finished" if moved else "rolled back")


@pytest.mark.parametrize(
    ("step", "command"),
    [("mid-checkout", "list"), ("ref-moved", "status"), ("ref-moved", "search"),
     ("checked-out", "search"), ("index-renamed", "list")],
)  # fmt: skip
def test_every_command_path_recovers_first(repo, step, command):
    before = _killed_writer(repo, step)
    args = {"list": ["list"], "status": ["status"], "search": ["search", "anything"]}[command]
    proc = run_cli_proc("--kb", str(repo), *args)
    assert proc.returncode in (0, 1), proc.stderr  # search of a KB with no notes may find none
    assert "Traceback" not in proc.stderr
    _assert_consistent(repo, before)


@pytest.mark.parametrize("step", ["checked-out", "ref-moved"])
def test_recovery_leaves_a_users_edit_made_after_the_crash_alone(repo, step):
    before = _killed_writer(repo, step)
    # After the crash, before any reflect-git command, the user rewrites a path we were writing.
    (repo / "documents" / "a.md").write_bytes(b"the user's own words\n")
    Store.open(repo, env=dict(os.environ)).close()
    assert (repo / "documents" / "a.md").read_bytes() == b"the user's own words\n"
    assert git("rev-parse", "HEAD", cwd=repo).strip() == before
    assert not (repo / ".git" / "index.lock").exists()
    assert git("status", "--porcelain", cwd=repo) == " M documents/a.md\n"


def test_status_says_so_while_a_recovery_is_pending(repo):
    import fcntl

    before = _killed_writer(repo, "ref-moved")
    # While another process holds the KB lock, recovery waits for it; status says why.
    fd = os.open(repo / ".git" / LOCK_NAME, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        proc = run_cli_proc("--kb", str(repo), "status")
        assert proc.returncode == 0, proc.stderr
        assert "pending:  an interrupted reflect-git write" in proc.stdout
        proc = run_cli_proc("--kb", str(repo), "--json", "status")
        assert "interrupted" in json.loads(proc.stdout)["pending"]
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    proc = run_cli_proc("--kb", str(repo), "status")
    assert proc.returncode == 0 and "pending:" not in proc.stdout
    assert _assert_consistent(repo, before) == "finished"


@pytest.mark.parametrize("step", ["checked-out", "ref-moved"])
def test_a_lock_removed_by_hand_after_a_crash_is_still_settled(repo, step):
    before = _killed_writer(repo, step)
    (repo / ".git" / "index.lock").unlink()  # as git's own message suggests
    Store.open(repo, env=dict(os.environ)).close()
    outcome = _assert_consistent(repo, before)
    assert outcome == ("finished" if step == "ref-moved" else "rolled back")


@pytest.mark.parametrize("step", ["checked-out", "ref-moved"])
def test_recovery_in_a_sparse_checkout_keeps_skip_worktree_paths_away(repo, step):
    st = Store.init(repo, env=dict(os.environ))
    before = st.commit([write(p, d) for p, d in OLD.items()] + [write("other/o.md", b"o\n")], msg())
    git("sparse-checkout", "set", "--cone", "other", cwd=repo)
    assert not (repo / "documents").exists()
    proc = subprocess.run(
        [sys.executable, "-c", KILLER, str(repo), step],
        env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr
    Store.open(repo, env=dict(os.environ)).close()
    assert not (repo / ".git" / "index.lock").exists()
    assert not (repo / ".git" / JOURNAL_NAME).exists()
    assert git("status", "--porcelain", cwd=repo) == ""
    assert git("write-tree", cwd=repo) == git("rev-parse", "HEAD^{tree}", cwd=repo)
    assert not (repo / "documents").exists()  # committed or not, never checked out
    moved = git("rev-parse", "HEAD", cwd=repo).strip() != before
    assert moved == (step == "ref-moved")
    if moved:
        assert git("show", "HEAD:documents/new.md", cwd=repo) == "new\n" * 400
