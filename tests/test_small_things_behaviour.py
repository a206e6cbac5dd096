"""Issue 18, the small things a user trips over: processes, files and objects left behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import needs_shared
from tests.support.drain import TRANSCRIPTS, enqueue, make_config, stub_command

RG = [sys.executable, "-m", "reflectgit"]


def g(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def new_kb(tmp: Path, cli: Any) -> Path:
    kb = tmp / "kb"
    g("init", "-q", "-b", "main", str(kb), cwd=tmp)
    res = cli("-q", "--kb", str(kb), "init", "--no-pre-commit")
    assert res.code == 0, res
    return kb


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _poll(cond: Any, limit: float) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


# --------------------------------------------------------------------------- kill -9 of a drain


@needs_shared
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal: Linux")
def test_kill_9_of_a_drain_takes_its_model_with_it(tmp_path: Path, cli: Any) -> None:
    kb = new_kb(tmp_path, cli)
    pidfile = tmp_path / "model.pid"
    stub = stub_command(
        tmp_path,
        f"import os\nopen({str(pidfile)!r}, 'w').write(str(os.getpid()))\ntime.sleep(300)\n",
    )
    env = {
        "REFLECT_DRAIN_CMD": str(stub),
        "REFLECT_DRAIN_DEBOUNCE_SEC": "0",
        "REFLECT_DRAIN_TIMEOUT": "600",
        "REFLECT_DRAIN_MODEL_TIMEOUT": "600",
    }
    name = sorted(p.name for p in (TRANSCRIPTS / "claude").glob("correction-*.jsonl"))[0]
    dst = tmp_path / "transcripts" / name
    dst.parent.mkdir()
    shutil.copyfile(TRANSCRIPTS / "claude" / name, dst)
    enqueue(make_config(kb, **env), dst)
    drain = subprocess.Popen(
        [*RG, "--kb", str(kb), "drain"],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    model = 0
    try:
        assert _poll(lambda: pidfile.exists() and pidfile.read_text().strip(), 60), (
            "the stub model never started"
        )
        model = int(pidfile.read_text())
        assert _alive(model)
        drain.send_signal(signal.SIGKILL)
        drain.wait(timeout=30)
        assert _poll(lambda: not _alive(model), 30), "the model outlived the drain"
    finally:
        if drain.poll() is None:
            drain.kill()
            drain.wait()
        if model and _alive(model):
            os.kill(model, signal.SIGKILL)


# --------------------------------------------------------------------------- commits.jsonl


def _code_repo(tmp: Path) -> tuple[Path, str]:
    code = tmp / "code"
    g("init", "-q", "-b", "main", str(code), cwd=tmp)
    (code / "f.txt").write_text("one\n")
    g("add", "f.txt", cwd=code)
    g("-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "Add f", cwd=code)
    return code, g("rev-parse", "HEAD", cwd=code).strip()


def _bytes_read() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs /proc/self/io")
def test_a_commit_capture_appends_without_reading_the_whole_file(tmp_path: Path, cli: Any) -> None:
    from reflectgit.workflows.capture.commits import Capture

    kb = new_kb(tmp_path, cli)
    code, sha = _code_repo(tmp_path)
    cap = Capture(make_config(kb, REFLECT_COMMITS_MAX_BYTES=str(1 << 30)))
    path = cap.state_dir / "commits.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    # 32 MB: an old record of this very sha far back, garbage, and a torn last line
    old = b'{"sha": "%s", "subject": "far back"}\n' % sha.encode()
    path.write_bytes(old + b"\xff\x00garbage " * (4 << 20) + b'{"sha": "torn')
    before = _bytes_read()
    record = cap.record_commit(code)
    read = _bytes_read() - before
    assert record is not None and record.sha == sha
    assert read < 4 << 20, f"the capture read {read} bytes of a 32 MB commits.jsonl"
    last = path.read_bytes().splitlines()[-1]
    assert json.loads(last)["sha"] == sha  # a line of its own, after the torn one
    # the same sha again, close behind: not recorded twice
    assert cap.record_commit(code) is None
    assert path.read_bytes().count(sha.encode()) == 2  # the far-back one and ours


def test_commits_jsonl_rotates_by_size(tmp_path: Path, cli: Any) -> None:
    from reflectgit.workflows.capture.commits import Capture

    kb = new_kb(tmp_path, cli)
    code, _sha = _code_repo(tmp_path)
    cap = Capture(make_config(kb, REFLECT_COMMITS_MAX_BYTES="1000"))
    path = cap.state_dir / "commits.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    small = b'{"sha": "0000", "subject": "small"}\n'
    path.write_bytes(small)
    assert cap.record_commit(code) is not None  # under the size: no rotation
    assert not path.with_name("commits.jsonl.1").exists()
    assert path.read_bytes().startswith(small)
    big = b'{"sha": "1111", "subject": "big"}\n' * 100  # past 1000 bytes
    path.write_bytes(big)
    (code / "f.txt").write_text("two\n")
    g("-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qam", "Two", cwd=code)
    second = cap.record_commit(code)
    assert second is not None
    assert path.with_name("commits.jsonl.1").read_bytes() == big
    assert [json.loads(x)["sha"] for x in path.read_bytes().splitlines()] == [second.sha]
    assert {r["sha"] for r in cap.commits()} == {"1111", second.sha}  # both files are read


# --------------------------------------------------------------------------- leftovers


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_the_queue_removes_what_a_dead_writer_left_and_status_counts_it(
    tmp_path: Path, cli: Any
) -> None:
    from reflectgit.state.queue import open_queue

    kb = new_kb(tmp_path, cli)
    cfg = make_config(kb)
    queue = open_queue(cfg)
    queue._ensure()
    dead, alive = _dead_pid(), os.getppid()
    old_dead = queue.dir / f".tmp.abc.json.{dead}.0badf00d"
    old_alive = queue.dir / f".tmp.abd.json.{alive}.0badf00d"  # a live writer: kept
    young_dead = queue.dir / f".tmp.abe.json.{dead}.0badf00e"  # too young: kept
    for path in (old_dead, old_alive, young_dead):
        path.write_bytes(b"half an entry")
    _age(old_dead, 7200)
    _age(old_alive, 7200)
    (queue.dir / "deadbeef0000.json").write_bytes(b"{torn")  # corrupt: moved aside on read
    git_dir = kb / ".git" / "objects"
    git_old = git_dir / "pack" / "tmp_pack_Ab12Cd"  # git's own, after a full disk
    git_young = git_dir / "pack" / "tmp_pack_Ef34Gh"
    git_old.write_bytes(b"PACK")
    git_young.write_bytes(b"PACK")
    _age(git_old, 7200)
    res = cli("--json", "--kb", str(kb), "status")
    assert res.code == 0, res
    doc = json.loads(res.out)
    assert doc["stale_files"] == 2  # old_dead and git_old; status itself removes nothing
    assert old_dead.exists() and git_old.exists()
    queue.list()  # the corrupt file is moved aside
    doc = json.loads(cli("--json", "--kb", str(kb), "status").out)
    assert doc["corrupt_files"] == 1
    # the next queue user and the next KB write clean up
    open_queue(cfg)
    assert not old_dead.exists() and old_alive.exists() and young_dead.exists()
    added = cli(
        "-q",
        "--kb",
        str(kb),
        "add",
        "--title",
        "Leftovers",
        "--insight",
        "Leftovers go",
        "--category",
        "ci",
        "--confidence",
        "high",
    )
    assert added.code == 0, added
    assert not git_old.exists() and git_young.exists()
    assert json.loads(cli("--json", "--kb", str(kb), "status").out)["stale_files"] == 0


def test_queueing_a_dead_letter_again_points_at_queue_retry(tmp_path: Path, cli: Any) -> None:
    from reflectgit.state.queue import open_queue

    kb = new_kb(tmp_path, cli)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"type": "user"}\n')
    queue = open_queue(make_config(kb))
    entry, _ = queue.add(str(transcript))
    queue.dead_letter(entry.id, "poisoned")
    res = cli("--kb", str(kb), "queue", "add", str(transcript))
    assert res.code == 1, res
    assert "dead letter" in res.err and f"queue retry {entry.id}" in res.err
    assert queue.list() == []  # no pending entry with the dead letter's id
    other = tmp_path / "u.jsonl"  # a transcript that is no dead letter is queued as ever
    other.write_text('{"type": "user"}\n')
    assert cli("-q", "--kb", str(kb), "queue", "add", str(other)).code == 0
    assert [e.transcript_path for e in queue.list()] == [str(other)]


# --------------------------------------------------------------------------- merge-tree


def _objects(repo: Path) -> set[str]:
    root = repo / ".git" / "objects"
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def _merge_repo(tmp: Path, conflict: bool) -> tuple[Path, list[str]]:
    repo = tmp / ("conflicted" if conflict else "clean")
    ident = ["-c", "user.name=T", "-c", "user.email=t@e"]
    g("init", "-q", "-b", "main", str(repo), cwd=tmp)
    (repo / "a.txt").write_text("base\n")
    g("add", "a.txt", cwd=repo)
    g(*ident, "commit", "-qm", "base", cwd=repo)
    g("checkout", "-qb", "side", cwd=repo)
    (repo / ("a.txt" if conflict else "b.txt")).write_text("side\n")
    g("add", "-A", cwd=repo)
    g(*ident, "commit", "-qm", "side", cwd=repo)
    g("checkout", "-q", "main", cwd=repo)
    (repo / "a.txt").write_text("main\n")
    g(*ident, "commit", "-qam", "main", cwd=repo)
    merged = subprocess.run(
        ["git", *ident, "merge", "-q", "--no-edit", "side"], cwd=repo, capture_output=True
    )
    assert (merged.returncode != 0) == conflict
    if conflict:
        (repo / "a.txt").write_text("resolved\n")
        g("add", "a.txt", cwd=repo)
        g(*ident, "commit", "-qm", "Merge side (resolved by hand)", cwd=repo)
    parents = g("rev-list", "--parents", "-n1", "HEAD", cwd=repo).split()[1:]
    g("gc", "-q", cwd=repo)
    return repo, parents


@pytest.mark.parametrize("conflict", [True, False], ids=["conflicted", "clean"])
def test_telling_a_merge_had_conflicts_writes_nothing_into_the_repository(
    tmp_path: Path, conflict: bool
) -> None:
    from reflectgit.git.repo_info import merge_had_conflicts

    repo, parents = _merge_repo(tmp_path, conflict)
    before = _objects(repo)
    assert merge_had_conflicts(repo, parents, "Merge side", dict(os.environ)) is conflict
    assert _objects(repo) == before
    fsck = subprocess.run(["git", "fsck", "--strict"], cwd=repo, capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr


# --------------------------------------------------------------------------- error types


def test_a_commit_on_a_moved_checked_out_branch_is_its_own_error_type(tmp_path: Path) -> None:
    from reflectgit.errors import BranchMovedError, ConflictError
    from reflectgit.git.change import write
    from reflectgit.git.store import Store
    from reflectgit.notes import messages

    repo = tmp_path / "repo"
    g("init", "-q", "-b", "main", str(repo), cwd=tmp_path)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@e",
    }
    st = Store.init(repo, env=env)
    msg = messages.build("feat(knowledge): t [HIGH]", "add", ("t",))
    base = st.commit([write("documents/a.md", b"A\n")], msg)
    tip = st.commit([write("documents/b.md", b"B\n")], msg)
    with pytest.raises(BranchMovedError):
        st.commit([write("documents/c.md", b"C\n")], msg, parent=base)
    # any other conflict is not this one (a detached HEAD)
    g("checkout", "-q", "--detach", tip, cwd=repo)
    with pytest.raises(ConflictError) as info:
        Store.open(repo, env=env).commit([write("documents/c.md", b"C\n")], msg)
    assert not isinstance(info.value, BranchMovedError)


def test_the_search_index_meta_of_an_index_not_built_yet(tmp_path: Path) -> None:
    import sqlite3

    from reflectgit.workflows.search.storage import meta_value

    conn = sqlite3.connect(tmp_path / "x.db")
    assert meta_value(conn, "version") is None  # no meta table yet
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('version', '3')")
    assert meta_value(conn, "version") == "3"
    assert meta_value(conn, "other") is None
    conn.close()


# --------------------------------------------------------------------------- the internal-error log


def test_the_internal_error_log_goes_to_the_state_directory_of_the_kb_given(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reflectgit.workflows.kb.status import Status

    kb = new_kb(tmp_path, cli)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("REFLECT_GIT_KB", "GLOBAL_LEARNINGS_PATH", "REFLECT_STATE_DIR"):
        monkeypatch.delenv(name, raising=False)

    def a_bug(self: Any) -> Any:
        raise RuntimeError("a bug in status")

    monkeypatch.setattr(Status, "status", a_bug)
    res = cli("--kb", str(kb), "status")
    assert res.code == 3, res
    log = kb / ".git" / "reflect-git" / "logs" / "error.log"
    assert log.exists(), res.err
    assert "RuntimeError: a bug in status" in log.read_text()
    assert str(log) in res.err
    assert not (home / ".cache" / "reflect-git" / "error.log").exists()


# --------------------------------------------------------------------------- fsync


@pytest.mark.parametrize(
    ("value", "names"),
    [
        (None, {"pack", "pack-metadata", "commit-graph"}),  # git's default
        ("none", set()),
        ("loose-object", {"loose-object", "pack", "pack-metadata", "commit-graph"}),
        ("none,index", {"index"}),
        ("-pack", {"commit-graph"}),  # a word names every component it starts: pack-metadata too
        # git computes (current & ~removed) | added: what a word adds stays, even if removed
        (
            "all,-pack",
            {"loose-object", "pack", "reference", "index", "pack-metadata", "commit-graph"},
        ),
        ("-pack,pack-metadata", {"pack-metadata", "commit-graph"}),
        ("committed", {"loose-object", "pack", "reference", "pack-metadata", "commit-graph"}),
        ("nonsense", {"pack", "pack-metadata", "commit-graph"}),  # unknown words: ignored
    ],
)
def test_core_fsync_is_read_as_git_reads_it(value: str | None, names: set[str]) -> None:
    from reflectgit.git.fsync import components

    assert components(value) == names


def _fsynced_paths(cmd: list[str], env: dict[str, str], tmp: Path) -> list[str]:
    trace = tmp / "strace.out"
    proc = subprocess.run(
        ["strace", "-f", "-qq", "-y", "-e", "trace=fsync,fdatasync", "-o", str(trace), *cmd],
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return [line for line in trace.read_text().splitlines() if "sync(" in line]


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
@pytest.mark.parametrize("setting", [None, "loose-object", "none"])
def test_loose_objects_are_flushed_as_core_fsync_says(
    tmp_path: Path, cli: Any, setting: str | None
) -> None:
    kb = new_kb(tmp_path, cli)
    if setting is not None:
        g("config", "core.fsync", setting, cwd=kb)
    probe = subprocess.run(["strace", "-qq", "-o", os.devnull, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("ptrace is not permitted here")
    add = [*RG, "-q", "--kb", str(kb), "add", "--title", "Flush it", "--insight", "Flushed"]
    add += ["--category", "ci", "--confidence", "high"]
    lines = _fsynced_paths(add, dict(os.environ), tmp_path)
    loose = [line for line in lines if "tmp_obj_" in line]
    journal = [line for line in lines if "journal" in line]
    if setting == "loose-object":
        assert loose, lines
    else:  # git's default flushes no loose object, and neither does "none"
        assert not loose, lines
    assert journal, lines  # our recovery journal is always flushed, like a queue entry
    fsck = subprocess.run(["git", "fsck", "--strict"], cwd=kb, capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr


# --------------------------------------------------------------------------- dead code


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("reflectgit.state.ranking:Ranking", "record_feedback"),
        ("reflectgit.state.ranking:Ranking", "set_scores"),
        ("reflectgit.git.store", "move"),
        ("reflectgit.git.store:Store", "branches"),
        ("reflectgit.git.store:Store", "set_ref"),
        ("reflectgit.workflows.drain.cascade", "transcript_size"),
        ("reflectgit.workflows.drain.loop", "dump_rows"),
        ("reflectgit.git.pack", "object_id"),
        ("reflectgit.notes.messages", "OPS"),
    ],
)
def test_code_no_command_reaches_is_gone(module: str, name: str) -> None:
    import importlib

    path, _, cls = module.partition(":")
    owner: Any = importlib.import_module(path)
    if cls:
        owner = getattr(owner, cls)
    assert not hasattr(owner, name)


def test_the_code_still_in_use_stays() -> None:  # the negative examples
    from reflectgit.forge.base import Forge
    from reflectgit.git.store import Store

    assert hasattr(Forge, "merge")  # review approve merges on the forge
    assert hasattr(Store, "commit")
