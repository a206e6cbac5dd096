"""``kill -9`` during a multi-file write (a 2,000-note import, a drain), and a full disk.

Each trial starts the real ``reflect-git`` command as a subprocess, kills it with SIGKILL at a
seeded random point (a delay after it starts, or after a real signal: its pack is written, its
branch moved, its stub model was called k times), then runs the NEXT reflect-git command a user
would run (``status``, the same command again, ``add``, ``list``) and checks with real git that
nothing is lost: nothing staged for deletion, no truncated note (``reflect-git validate``), the
index holds HEAD (``git write-tree``), no ``index.lock`` left, the work tree is clean, and the
user's next ``git add -A && git commit`` keeps every note HEAD has.

Trials are drawn from ``random.Random(SEED)``: a failing trial id reproduces with
``pytest tests/test_kill_trials.py -k '<id>'``.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.disk import remount, tmpfs
from tests.support.drain import TRANSCRIPTS, calls, enqueue, make_config, stub_command
from tests.support.gitconfig import (
    g,
    gitp,
    is_note_path,
    note_entries,
    tree_entries,
)

SEED = 20261201
RG = [sys.executable, "-m", "reflectgit"]


@dataclass(frozen=True)
class Trial:
    n: int
    kind: str  # import | drain
    size: int  # notes imported, or transcripts drained
    phase: str  # start: a delay after spawn; pack / lock / ref / calls: after that signal
    delay: float
    calls: int  # for drains killed after the stub model was called this many times
    then: str  # the next reflect-git command

    @property
    def id(self) -> str:
        return f"{self.kind}{self.size}-t{self.n:02d}-{self.phase}-then-{self.then}"


def _trials() -> list[Trial]:
    rng = random.Random(SEED)
    out = []
    n = 0
    for size, count in ((2000, 12), (300, 16)):
        for _ in range(count):
            phase = rng.choice(("start", "pack", "lock", "lock", "ref", "ref"))
            window = {  # seconds after the signal; small enough to land inside the write
                "start": 1.2 if size == 2000 else 0.6,
                "pack": 0.05,
                "lock": 0.25 if size == 2000 else 0.05,
                "ref": 0.1 if size == 2000 else 0.02,
            }[phase]
            then = rng.choice(("status", "import", "add", "list"))
            out.append(Trial(n, "import", size, phase, rng.uniform(0, window), 0, then))
            n += 1
    for _ in range(28):
        k = rng.randint(1, 7)
        then = rng.choice(("status", "drain", "add", "list"))
        out.append(Trial(n, "drain", 8, "calls", rng.uniform(0, 0.12), k, then))
        n += 1
    return out


TRIALS = _trials()
assert len(TRIALS) >= 50


# --------------------------------------------------------------------------- set-up

_SOURCES: dict[int, Path] = {}


def note_source(size: int, factory: pytest.TempPathFactory) -> Path:
    """A folder of ``size`` valid notes to import (built once per worker)."""
    if size not in _SOURCES:
        folder = factory.mktemp(f"import-{size}")
        for i in range(size):
            (folder / f"bulk-note-{i:04d}.md").write_text(
                f"---\ntitle: Bulk note {i}\ncreated: 2026-03-04\nconfidence: medium\n"
                f"key_insight: insight number {i}\ncategory: bulk\n---\n"
                + f"Body of note {i}. " * 20
                + "\n"
            )
        _SOURCES[size] = folder
    return _SOURCES[size]


def new_kb(tmp: Path, cli: Any) -> Path:
    kb = tmp / "kb"
    g("init", "-q", "-b", "main", str(kb), cwd=tmp)
    res = cli("-q", "--kb", str(kb), "init", "--no-pre-commit")
    assert res.code == 0, res
    return kb


SLOW_MODEL = """
time.sleep(0.05)
import hashlib
h = hashlib.sha1(prompt.encode()).hexdigest()[:8]
emit({'actions': [{'action': 'CREATE', 'title': 'Learning ' + h, 'rule': 'Rule ' + h,
      'key_insight': 'Insight ' + h + ' ' + 'x' * 400, 'confidence': 'high',
      'category': 'tools', 'tags': ['kill']}]})
"""


def drain_env(stub: Path) -> dict[str, str]:
    return {
        "REFLECT_DRAIN_CMD": str(stub),
        "REFLECT_DRAIN_DEBOUNCE_SEC": "0",
        "REFLECT_DRAIN_MAX": "50",
        "REFLECT_DRAIN_DAILY_MAX": "50",
    }


def queue_transcripts(kb: Path, tmp: Path, env: dict[str, str], count: int) -> None:
    cfg = make_config(kb, **env)
    names = sorted(p.name for p in (TRANSCRIPTS / "claude").glob("correction-*.jsonl"))
    names += sorted(p.name for p in (TRANSCRIPTS / "claude").glob("test-fix-*.jsonl"))
    for name in names[:count]:
        dst = tmp / "transcripts" / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(TRANSCRIPTS / "claude" / name, dst)
        enqueue(cfg, dst)


# --------------------------------------------------------------------------- killing


def _wait(cond: Any, proc: subprocess.Popen[bytes], limit: float = 60.0) -> bool:
    """Poll a real signal (a file the command writes) until it shows or the command ends."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if cond():
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.002)
    return False


def kill_during(
    trial: Trial, args: list[str], kb: Path, env: dict[str, str], stub: Path | None
) -> bool:
    """Run ``reflect-git ARGS`` and SIGKILL it at the trial's point; True if it was killed."""
    ref = kb / ".git" / "refs" / "heads" / "main"
    old_ref = ref.read_text() if ref.exists() else ""
    pack_dir = kb / ".git" / "objects" / "pack"
    packs = set(os.listdir(pack_dir))
    proc = subprocess.Popen(
        [*RG, "--kb", str(kb), *args],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        if trial.phase == "pack":
            # its objects are written (a new pack), or, if it writes no pack, its ref moved
            _wait(
                lambda: (
                    set(os.listdir(pack_dir)) != packs
                    or (ref.exists() and ref.read_text() != old_ref)
                ),
                proc,
            )
        elif trial.phase == "lock":  # git's index.lock appears: the index and work tree
            _wait(lambda: (kb / ".git" / "index.lock").exists(), proc)  # are being written
        elif trial.phase == "ref":
            _wait(lambda: ref.exists() and ref.read_text() != old_ref, proc)
        elif trial.phase == "calls":
            assert stub is not None
            _wait(lambda: calls(stub) >= trial.calls, proc)
        time.sleep(trial.delay)  # the seeded random kill point, after the signal
        killed = proc.poll() is None
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=120)
    return killed


# --------------------------------------------------------------------------- checks


def rg(kb: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*RG, "--kb", str(kb), *args],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def assert_nothing_lost(kb: Path, label: str) -> None:
    gd = kb / ".git"
    assert not (gd / "index.lock").exists(), f"{label}: index.lock left behind"
    ref_locks = sorted(str(p.relative_to(gd)) for p in gd.glob("**/*.lock") if p.is_file())
    ref_locks = [
        p for p in ref_locks if p.startswith("refs/") or p in ("HEAD.lock", "packed-refs.lock")
    ]
    assert not ref_locks, f"{label}: git ref lock(s) left behind: {ref_locks}"
    staged = g("diff", "--cached", "--name-status", "--no-renames", cwd=kb).splitlines()
    deleted = [line for line in staged if line.startswith("D") and is_note_path(line[2:])]
    assert not deleted, f"{label}: {len(deleted)} note(s) staged for deletion: {deleted[:5]}"
    status = gitp("status", "--porcelain", cwd=kb)
    assert status.returncode == 0 and "BUG" not in status.stderr, status.stderr
    lines = status.stdout.splitlines()
    gone = [ln for ln in lines if ln[:2] in (" D", "D ") and is_note_path(ln[3:])]
    assert not gone, f"{label}: git status shows {len(gone)} deleted note(s): {gone[:5]}"
    valid = rg(kb, "validate")
    assert valid.returncode == 0, (
        f"{label}: a note in the work tree is broken:\n{valid.stdout[-2000:]}{valid.stderr[-1000:]}"
    )
    written = gitp("write-tree", cwd=kb)
    assert written.returncode == 0, f"{label}: git write-tree: {written.stderr}"
    head_tree = g("rev-parse", "HEAD^{tree}", cwd=kb).strip()
    assert written.stdout.strip() == head_tree, (
        f"{label}: the index does not hold HEAD's tree (a commit the index does not hold)"
    )
    assert lines == [], (
        f"{label}: the interrupted write was neither finished nor rolled back: {lines[:8]}"
    )
    before = note_entries(tree_entries(kb, "HEAD"))
    add = gitp("add", "-A", cwd=kb)
    assert add.returncode == 0, f"{label}: git add -A: {add.stderr}"
    commit = gitp("commit", "-q", "--allow-empty", "-m", "x", cwd=kb)
    assert commit.returncode == 0, f"{label}: git commit: {commit.stderr}"
    after = note_entries(tree_entries(kb, "HEAD"))
    lost = sorted(set(before) - set(after))
    assert not lost and all(after[p] == before[p] for p in before), (
        f"{label}: the user's next commit deleted {len(lost)} note(s): {lost[:5]}"
    )
    fsck = gitp("fsck", "--strict", "--no-dangling", "--no-progress", cwd=kb)
    assert fsck.returncode == 0, f"{label}: git fsck: {fsck.stdout}{fsck.stderr}"


def then_command(trial: Trial, kb: Path, source: Path | None, env: dict[str, str]) -> None:
    """The user's next reflect-git command after the kill; it must simply work."""
    if trial.then in ("status", "list"):
        res = rg(kb, trial.then, env=env)
    elif trial.then == "import":
        assert source is not None
        res = rg(kb, "import", str(source), env=env)
    elif trial.then == "drain":
        res = rg(kb, "drain", env=env)
    else:
        res = rg(
            kb,
            "add",
            "--title",
            "After the kill",
            "--insight",
            "k",
            "--confidence",
            "high",
            env=env,
        )
    assert res.returncode == 0, (
        f"`reflect-git {trial.then}` after the kill: {res.returncode}\n{res.stdout[-1500:]}\n{res.stderr[-1500:]}"
    )


@pytest.mark.parametrize("trial", TRIALS, ids=[t.id for t in TRIALS])
def test_kill_9(
    trial: Trial, tmp_path: Path, cli: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    kb = new_kb(tmp_path, cli)
    env: dict[str, str] = {}
    stub = None
    source = None
    if trial.kind == "import":
        source = note_source(trial.size, tmp_path_factory)
        args = ["import", str(source)]
    else:
        stub = stub_command(tmp_path, SLOW_MODEL)
        env = drain_env(stub)
        queue_transcripts(kb, tmp_path, env, trial.size)
        args = ["drain"]
    killed = kill_during(trial, args, kb, env, stub)
    print(f"{trial.id}: {'killed' if killed else 'finished before the kill'}")
    then_command(trial, kb, source, env)
    label = f"{trial.id} ({'killed' if killed else 'not killed'}, then {trial.then})"
    if trial.then == "import":  # the import again finishes the job: every note is in HEAD
        names = {p for p in tree_entries(kb, "HEAD") if p.startswith("documents/bulk-note-")}
        assert len(names) == trial.size, f"{label}: HEAD holds {len(names)} of {trial.size}"
    assert_nothing_lost(kb, label)


# --------------------------------------------------------------------------- a full disk


@pytest.fixture
def small_disk(tmp_path: Path) -> Any:
    """A 2 MB tmpfs."""
    with tmpfs(tmp_path / "disk", "2m") as mnt:
        yield mnt


def _grow(mnt: Path) -> None:
    """Give the disk room again, to look at what the failed command left."""
    remount(mnt, "size=256m")


def _assert_failed_cleanly(res: subprocess.CompletedProcess[str], label: str) -> None:
    assert res.returncode == 1, (
        f"{label}: exit {res.returncode} (must be 1, never 3):\n"
        f"stdout: {res.stdout[-1500:]}\nstderr: {res.stderr[-1500:]}"
    )
    assert "error:" in res.stderr and "hint:" in res.stderr, f"{label}: {res.stderr}"


def _assert_branch_not_past_index(kb: Path, label: str) -> None:
    """The branch is not ahead of what the index and the work tree hold."""
    written = gitp("write-tree", cwd=kb)
    assert written.returncode == 0, written.stderr
    assert written.stdout.strip() == g("rev-parse", "HEAD^{tree}", cwd=kb).strip(), (
        f"{label}: the branch moved past what the index holds"
    )
    head_notes = [p for p in tree_entries(kb, "HEAD") if is_note_path(p)]
    missing = [p for p in head_notes if not (kb / p).exists()]
    assert not missing, (
        f"{label}: {len(missing)} note(s) of HEAD missing from the work tree: {missing[:5]}"
    )


class Problems:
    """Collect every failed check of one scenario, so one run reports all of them."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def check(self, fn: Any, *args: Any) -> None:
        try:
            fn(*args)
        except AssertionError as exc:
            self.found.append(str(exc).split("\nassert ")[0])

    def done(self) -> None:
        assert not self.found, "\n---\n".join(self.found)


def _next_command_works(kb: Path, env: dict[str, str], label: str) -> None:
    res = rg(kb, "status", env=env)
    assert res.returncode == 0, f"{label}: `reflect-git status` afterwards: {res.stderr}"


def _no_truncated_note(kb: Path, label: str) -> None:
    valid = rg(kb, "validate")
    assert valid.returncode == 0, f"{label}: truncated note left:\n{valid.stdout[-1500:]}"


def test_a_full_disk_during_import(
    small_disk: Path, cli: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    kb = new_kb(small_disk, cli)
    source = note_source(2000, tmp_path_factory)
    res = rg(kb, "import", str(source))
    label = "import on a full disk"
    problems = Problems()
    problems.check(_assert_failed_cleanly, res, label)
    _grow(small_disk)
    problems.check(_assert_branch_not_past_index, kb, label)
    problems.check(_no_truncated_note, kb, label)
    problems.check(_next_command_works, kb, {}, label)
    problems.check(assert_nothing_lost, kb, label)
    problems.done()


def test_a_full_disk_during_drain(small_disk: Path, cli: Any, tmp_path: Path) -> None:
    kb = new_kb(small_disk, cli)
    stub = stub_command(
        tmp_path, SLOW_MODEL.replace("time.sleep(0.05)", "").replace("* 400", "* 4000")
    )
    env = drain_env(stub)
    queue_transcripts(kb, tmp_path, env, 8)
    free = os.statvfs(small_disk)
    room = 24 * 1024  # leave a few pages: the drain's notes, objects and ledger do not fit
    filler = small_disk / "filler"
    filler.write_bytes(b"\0" * max(0, free.f_bavail * free.f_frsize - room))
    res = rg(kb, "drain", env=env)
    label = "drain on a full disk"
    problems = Problems()
    problems.check(_assert_failed_cleanly, res, label)
    filler.unlink()
    _grow(small_disk)
    problems.check(_assert_branch_not_past_index, kb, label)
    problems.check(_no_truncated_note, kb, label)
    problems.check(_next_command_works, kb, env, label)
    problems.check(assert_nothing_lost, kb, label)
    problems.done()
