"""Reliability of the write path: concurrent writers, writers killed mid-write, users' edits,
and invalid input. Everything is checked with real git."""

from __future__ import annotations

import fcntl
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reflectgit.git.writelock import LOCK_NAME
from reflectgit.notes.note import parse_note
from reflectgit.workflows.kb import KnowledgeBase
from reflectgit.workflows.kb.base import check_note
from tests.conftest import REPO_ROOT, git
from tests.support.disk import tmpfs
from tests.support.kb import INVALID, VALID, assert_clean, head, kb, ls, rg

__all__ = ["kb", "rg"]

WRITER = """
import sys
from reflectgit.workflows.kb import KnowledgeBase
kb_path, worker, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with KnowledgeBase.open(kb_path) as kb:
    for i in range(count):
        kb.add(fields={"title": f"Worker {worker} note {i}", "key_insight": f"insight {worker}/{i}",
                       "category": "load", "confidence": "high"})
"""


def test_eight_concurrent_writers_make_400_commits_in_a_line(kb):
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(kb), str(w), "50"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for w in range(8)
    ]
    for proc in procs:
        _out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()
    notes = [p for p in ls(kb) if p.startswith("documents/")]
    assert len(notes) == 400
    assert git("rev-list", "--count", "HEAD", cwd=kb).strip() == "400"
    assert git("rev-list", "--min-parents=2", "HEAD", cwd=kb).strip() == ""  # linear
    assert git("fsck", "--strict", cwd=kb).strip() == ""
    assert git("status", "--porcelain", cwd=kb) == ""


CONFIRMER = """
import sys
from reflectgit.workflows.kb import KnowledgeBase
kb_path, note_id, worker = sys.argv[1], sys.argv[2], sys.argv[3]
with KnowledgeBase.open(kb_path) as kb:
    for i in range(5):
        kb.confirm(note_id, f"source-{worker}-{i}")
"""


def test_concurrent_confirms_never_lose_an_update(kb):
    with KnowledgeBase.open(kb) as base:
        ident = base.add(
            fields={"title": "Confirmed a lot", "key_insight": "k", "confidence": "high"}
        ).id
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CONFIRMER, str(kb), ident, str(w)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for w in range(4)
    ]
    for proc in procs:
        _out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()
    with KnowledgeBase.open(kb) as base:
        prov = base.show(ident).frontmatter["provenance"]
    assert prov["proof_count"] == 1 + 4 * 5
    assert len(prov["source_memory_ids"]) == 20
    assert git("rev-list", "--count", "HEAD", cwd=kb).strip() == "21"
    assert git("status", "--porcelain", cwd=kb) == ""


# --------------------------------------------------------------------------- crash safety

CRASH_OPS = ("add", "update", "archive", "import")
TRIALS = 104
PARALLEL = 8


def _seed(path: Path) -> str:
    git("init", "-q", "-b", "main", str(path), cwd=path.parent)
    with KnowledgeBase.open(path) as base:
        side = (VALID / "use-docker-for-docker-workflows-66dab4.entities.yaml").read_bytes()
        first = base.add((VALID / "use-docker-for-docker-workflows-66dab4.md").read_bytes(),
                         sidecar=side)  # fmt: skip
        base.add((VALID / "minimal-team-note.md").read_bytes())
    return first.id


def _writer_loop(path: Path, op: str, seed_id: str, scratch: Path) -> None:
    """The child: write in a loop until it is killed."""
    with KnowledgeBase.open(path) as base:
        i = 0
        while True:
            i += 1
            if op == "add":
                base.add(
                    fields={
                        "title": f"Crash note {i}",
                        "key_insight": "x" * 300,
                        "category": "crash",
                        "confidence": "medium",
                    }
                )
            elif op == "update":
                base.update(seed_id, [f"category=c{i}"], body=f"line {i}\n" * 40)
            elif op == "archive":
                base.archive(seed_id)
                base.restore(seed_id)
            else:
                folder = scratch / f"import-{i}"
                folder.mkdir(parents=True)
                for n in range(40):  # enough objects for a pack
                    (folder / f"imp-{i}-{n}.md").write_text(
                        f"---\ntitle: Imported {i} {n}\ncreated: 2026-03-04\n"
                        f"confidence: low\n---\nBody {i} {n}\n"
                    )
                base.import_notes(folder)


def _check_after_crash(path: Path) -> None:
    fsck = subprocess.run(
        ["git", "fsck", "--strict", "--no-dangling"], cwd=path, capture_output=True, text=True
    )
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    assert "error" not in fsck.stdout + fsck.stderr
    # Every note on the branch is whole and valid.
    with KnowledgeBase.open(path) as base:
        for rel, blob in base.store.list_files().items():
            if rel.endswith(".md"):
                check_note(parse_note(base.store.read_blob(blob), rel), rel)
    # The KB lock is free.
    fd = os.open(Path(path) / ".git" / LOCK_NAME, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
    # The next command works and leaves a clean status.
    with KnowledgeBase.open(path) as base:
        result = base.add(
            fields={"title": "After the crash", "key_insight": "k", "confidence": "high"}
        )
    assert result.commit is not None
    assert git("status", "--porcelain", cwd=path) == ""
    assert not list((Path(path) / ".git").glob("**/*.lock")) or [
        p for p in (Path(path) / ".git").glob("**/*.lock") if p.name == LOCK_NAME
    ] == list((Path(path) / ".git").glob("**/*.lock"))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_writers_killed_at_random_points_never_break_the_kb(tmp_path):
    rng = random.Random(20261129)
    trials = [(n, CRASH_OPS[n % len(CRASH_OPS)], rng.uniform(0.02, 0.3)) for n in range(TRIALS)]
    template = tmp_path / "template"
    template.mkdir()
    seed_id = _seed(template)
    for start in range(0, TRIALS, PARALLEL):
        batch = trials[start : start + PARALLEL]
        running = []
        for n, op, delay in batch:
            path = tmp_path / f"t{n}"
            shutil.copytree(template, path)
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child never returns
                try:
                    _writer_loop(path, op, seed_id, tmp_path / f"scratch{n}")
                finally:
                    os._exit(0)
            running.append((n, op, path, pid, time.monotonic() + delay))
        for _n, _op, _path, pid, kill_at in sorted(running, key=lambda r: r[4]):
            time.sleep(max(0.0, kill_at - time.monotonic()))
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        for n, op, path, _pid, _kill_at in running:
            try:
                _check_after_crash(path)
            except AssertionError as exc:
                raise AssertionError(f"trial {n} ({op}): {exc}") from exc
            shutil.rmtree(path)  # keep pytest's temp folder small (it is swept at start-up)
            shutil.rmtree(tmp_path / f"scratch{n}", ignore_errors=True)


# --------------------------------------------------------------------------- users' work


def _add(rg, title: str) -> dict:
    res = rg("--json", "add", "--title", title, "--insight", "i", "--confidence", "high")
    assert res.code == 0, res
    return res.json()


@pytest.mark.parametrize("command", ["update", "archive", "forget", "confirm"])
def test_a_users_uncommitted_edit_is_never_overwritten(rg, kb, command):
    doc = _add(rg, "Edited by hand")
    note = kb / doc["path"]
    edited = note.read_text() + "\nMy unsaved thought.\n"
    note.write_text(edited)
    before = head(kb)
    args = {
        "update": ["update", doc["id"], "--set", "category=x"],
        "archive": ["archive", doc["id"]],
        "forget": ["forget", doc["id"]],
        "confirm": ["confirm", doc["id"], "--source", "s"],
    }[command]
    res = rg(*args)
    assert res.code == 1
    assert "uncommitted changes" in res.err and "hint:" in res.err
    assert note.read_text() == edited
    assert head(kb) == before
    assert git("status", "--porcelain", cwd=kb) == f" M {doc['path']}\n"


def test_a_staged_edit_is_never_overwritten(rg, kb):
    doc = _add(rg, "Staged by hand")
    note = kb / doc["path"]
    note.write_text(note.read_text() + "staged\n")
    git("add", doc["path"], cwd=kb)
    before = head(kb)
    assert rg("update", doc["id"], "--set", "category=x").code == 1
    assert head(kb) == before
    assert git("diff", "--cached", "--name-only", cwd=kb).split() == [doc["path"]]


def test_unrelated_commits_and_staged_files_are_left_alone(rg, kb):
    _add(rg, "First")
    (kb / "mine.txt").write_text("my commit\n")
    git("add", "mine.txt", cwd=kb)
    git("commit", "-q", "-m", "chore: my own commit", cwd=kb)
    mine = head(kb)
    (kb / "staged.txt").write_text("staged, not committed\n")
    git("add", "staged.txt", cwd=kb)
    (kb / "scratch.txt").write_text("untracked\n")
    second = _add(rg, "Second")
    assert git("rev-parse", "HEAD~1", cwd=kb).strip() == mine
    changed = git("show", "--name-only", "--format=", "HEAD", cwd=kb).split()
    assert changed == [second["path"]]
    assert git("status", "--porcelain", cwd=kb) == "A  staged.txt\n?? scratch.txt\n"
    assert (kb / "staged.txt").read_text() == "staged, not committed\n"
    # Undo reverts only our commit, and leaves the staged file staged.
    assert rg("undo").code == 0
    assert git("rev-parse", "HEAD~1", cwd=kb).strip() == second["commit"]
    assert git("status", "--porcelain", cwd=kb) == "A  staged.txt\n?? scratch.txt\n"
    assert "mine.txt" in ls(kb)


# --------------------------------------------------------------------------- invalid input


# Invalid in a file (validate names the alias), but add normalises a confidence alias and
# writes the tier (tests/test_invariants.py holds add to that).
ALIAS_ONLY = {"uppercase-confidence.md"}


@pytest.mark.parametrize(
    "name", sorted(p.name for p in INVALID.iterdir() if p.name not in ALIAS_ONLY)
)
def test_every_invalid_file_is_refused_by_add(rg, kb, name):
    _add(rg, "Already here")
    before = head(kb)
    res = rg("add", str(INVALID / name))
    assert res.code == 1, res
    assert res.err.startswith("error: ")
    assert res.out == ""
    assert head(kb) == before
    assert git("status", "--porcelain", cwd=kb) == ""
    if name.endswith(".entities.yaml"):
        res = rg("add", str(VALID / "minimal-team-note.md"), "--entities", str(INVALID / name))
        assert res.code == 1, res
        assert "invalid sidecar" in res.err
        assert head(kb) == before


def test_invalid_notes_are_refused_by_the_real_cli(kb):
    from tests.conftest import run_cli_proc

    before = None
    for name in ("missing-title.md", "ranking-field-s9.md", "python-tag-injection.md"):
        proc = run_cli_proc("--kb", str(kb), "add", str(INVALID / name))
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr.startswith("error: ")
        assert name in proc.stderr
        assert git("rev-parse", "--verify", "-q", "HEAD", cwd=kb, check=False).strip() == (
            before or ""
        )
    assert_clean_or_empty(kb)


def assert_clean_or_empty(path: Path) -> None:
    if git("rev-parse", "--verify", "-q", "HEAD", cwd=path, check=False).strip():
        assert_clean(path)
    else:
        assert git("status", "--porcelain", cwd=path) == ""


# --------------------------------------------------------------------------- full and read-only disks


@pytest.fixture
def small_disk(tmp_path):
    """A real 3 MB tmpfs."""
    with tmpfs(tmp_path / "disk", "3m") as where:
        yield where


def _fill(disk: Path, leave: int) -> Path:
    """Fill the disk until only about ``leave`` bytes are free."""
    filler = disk / "filler"
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    with open(filler, "wb") as fh:
        fh.write(b"\0" * max(0, free - leave))
    return filler


def _note_of(size: int, seed: int) -> bytes:
    body = random.Random(seed).randbytes(size).hex()[:size]  # incompressible text
    return (
        f"---\ntitle: Big note {seed}\nconfidence: high\ncategory: disk\n"
        f"key_insight: big\n---\n{body}\n"
    ).encode()


def test_a_full_disk_fails_cleanly_at_every_point_of_the_write(small_disk):
    from reflectgit.git.change import write
    from reflectgit.git.store import Store
    from reflectgit.git.worktree import JOURNAL_NAME, StorageError
    from reflectgit.notes import messages

    path = small_disk / "kb"
    git("init", "-q", "-b", "main", str(path), cwd=small_disk)
    seed = Store.init(path, env=dict(os.environ))
    seed.commit([write("documents/seed.md", _note_of(2000, 0))], messages.build("s", "add", ["s"]))
    outcomes = set()
    for step, leave in enumerate(range(0, 400_000, 24_000)):
        filler = _fill(small_disk, leave)
        before = head(path)
        index = (path / ".git" / "index").read_bytes()
        rel = f"documents/big-{step}.md"
        try:
            Store.open(path, env=dict(os.environ)).commit(
                [write(rel, _note_of(150_000, step + 1))], messages.build("s", "add", ["b"])
            )
            outcomes.add("committed")
        except StorageError as exc:
            outcomes.add("refused")
            assert exc.exit_code == 1 and exc.hint and "space" in exc.hint
            if (path / ".git" / JOURNAL_NAME).exists():
                outcomes.add("left for recovery")  # the roll-back itself found no space
            else:
                assert head(path) == before
                assert (path / ".git" / "index").read_bytes() == index
                assert not (path / rel).exists()  # never a truncated note
                assert not (path / ".git" / "index.lock").exists()
        filler.unlink()
        Store.open(path, env=dict(os.environ)).close()  # with space again, the next command
        assert not (path / ".git" / JOURNAL_NAME).exists()
        assert not (path / ".git" / "index.lock").exists()
        assert git("status", "--porcelain", cwd=path) == ""
        assert git("write-tree", cwd=path) == git("rev-parse", "HEAD^{tree}", cwd=path)
        fsck = git("fsck", "--strict", "--no-dangling", cwd=path)
        assert "error" not in fsck and "missing" not in fsck
        for rel_path, blob in Store.open(path).list_files("documents").items():
            assert (path / rel_path).read_bytes() == Store.open(path).read_blob(blob)
    assert {"committed", "refused"} <= outcomes


def test_a_full_disk_is_exit_1_from_the_cli(small_disk):
    from tests.conftest import run_cli_proc

    path = small_disk / "kb"
    git("init", "-q", "-b", "main", str(path), cwd=small_disk)
    first = run_cli_proc(
        "--kb", str(path), "add", "--title", "t", "--insight", "i", "--confidence", "high"
    )
    assert first.returncode == 0, first.stderr
    before = head(path)
    big = small_disk.parent / "big.md"
    big.write_bytes(_note_of(600_000, 9))
    filler = _fill(small_disk, 64_000)
    proc = run_cli_proc("--kb", str(path), "add", str(big))
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("error: ") and "hint:" in proc.stderr
    assert head(path) == before
    filler.unlink()
    assert git("status", "--porcelain", cwd=path) == ""


def test_a_read_only_kb_refuses_writes_with_exit_1_and_still_reads(small_disk):
    from tests.conftest import run_cli_proc

    path = small_disk / "kb"
    git("init", "-q", "-b", "main", str(path), cwd=small_disk)
    first = run_cli_proc(
        "--kb", str(path), "add", "--title", "Readable", "--insight", "i", "--confidence", "high"
    )
    assert first.returncode == 0, first.stderr
    before = head(path)
    remount = subprocess.run(
        ["mount", "-o", "remount,ro", str(small_disk)], capture_output=True, text=True
    )
    if remount.returncode != 0:
        pytest.skip(f"cannot remount read-only: {remount.stderr.strip()}")
    try:
        proc = run_cli_proc(
            "--kb", str(path), "add", "--title", "Second", "--insight", "i", "--confidence", "high"
        )
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr.startswith("error: ") and "read-only" in proc.stderr.lower()
        assert "hint:" in proc.stderr
        assert head(path) == before
        listed = run_cli_proc("--kb", str(path), "list")
        assert listed.returncode == 0, listed.stderr
        assert "Readable" in listed.stdout
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_disk)], capture_output=True)
    assert git("status", "--porcelain", cwd=path) == ""


IMPORTER = """
import sys
from reflectgit.workflows.kb import KnowledgeBase
with KnowledgeBase.open(sys.argv[1]) as kb:
    kb.import_notes(sys.argv[2])
"""


@pytest.mark.parametrize("delay", [0.0, 0.03, 0.1, 0.3])
def test_an_import_of_2000_notes_killed_midway_is_settled_by_the_next_import(tmp_path, delay):
    from reflectgit.git.worktree import JOURNAL_NAME

    path = tmp_path / "kb"
    _seed_plain(path)
    folder = tmp_path / "import"
    folder.mkdir()
    for n in range(2000):
        (folder / f"imp-{n}.md").write_text(
            f"---\ntitle: Imported note {n}\ncreated: 2026-03-04\nconfidence: low\n---\nBody {n}\n"
        )
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    proc = subprocess.Popen([sys.executable, "-c", IMPORTER, str(path), str(folder)], env=env)
    # Kill it inside the write: once its journal exists (the notes are vetted), plus a delay.
    journal = path / ".git" / JOURNAL_NAME
    deadline = time.monotonic() + 120
    while not journal.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with KnowledgeBase.open(path) as base:  # the next command, an import again
        result = base.import_notes(folder)
    assert len(result.imported) + len(result.skipped) == 2000
    assert not (path / ".git" / "index.lock").exists()
    assert git("status", "--porcelain", cwd=path) == ""
    assert git("write-tree", cwd=path) == git("rev-parse", "HEAD^{tree}", cwd=path)
    # The user's next ordinary commit keeps every note: nothing is staged for deletion.
    (path / "mine.txt").write_text("mine\n")
    git("add", "-A", cwd=path)
    git("commit", "-qm", "mine", cwd=path)
    notes = [p for p in ls(path) if p.startswith("documents/")]
    assert len(notes) == 2000 + 1
    fsck = git("fsck", "--strict", "--no-dangling", cwd=path)
    assert "error" not in fsck and "missing" not in fsck


def _seed_plain(path: Path) -> None:
    git("init", "-q", "-b", "main", str(path), cwd=path.parent)
    with KnowledgeBase.open(path) as base:
        base.add((VALID / "minimal-team-note.md").read_bytes())
