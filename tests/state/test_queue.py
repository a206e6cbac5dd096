from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reflectgit.errors import NotFoundError, UsageError
from reflectgit.state.queue import (
    Backoff,
    Entry,
    Queue,
    decode_entry,
    encode_entry,
    entry_id,
)


class FakeClock:
    def __init__(self, now: float = 1_780_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def q(tmp_path: Path, clock: FakeClock) -> Queue:
    return Queue(tmp_path / "state", clock=clock, rng=random.Random(7))


def test_add_writes_one_checksummed_file_per_entry(q: Queue, tmp_path: Path) -> None:
    entry, created = q.add("/t/a.jsonl", "stop", "s-a", cwd="/repo", harness="claude")
    assert created
    files = sorted(p.name for p in q.dir.glob("*.json"))
    assert files == [f"{entry.id}.json"]
    doc = json.loads((q.dir / files[0]).read_text())
    assert doc["entry"]["transcript_path"] == "/t/a.jsonl"
    assert doc["entry"]["harness"] == "claude"
    assert len(doc["sha256"]) == 64
    assert not list(q.dir.glob(".tmp.*")), "no temp file left behind"


def test_ids_are_content_addressed_and_adding_twice_is_a_noop(q: Queue) -> None:
    first, created = q.add("/t/a.jsonl", "precompact", "s")
    again, created_again = q.add("/t/./a.jsonl", "stop", "s")
    assert created and not created_again
    assert again.id == first.id == entry_id("/t/a.jsonl")
    assert again.trigger == "precompact"
    assert len(q.list()) == 1
    other, _ = q.add("/t/b.jsonl")
    assert other.id != first.id


def test_order_is_fifo_and_a_failure_goes_to_the_back(q: Queue, clock: FakeClock) -> None:
    ids = [q.add(f"/t/{n}.jsonl")[0].id for n in "abc"]
    assert [e.id for e in q.list()] == ids
    bumped = q.bump_retry(ids[0], "fail_exit_1", "boom")
    assert bumped is not None and bumped.retries == 1
    assert [e.id for e in q.list()] == [ids[1], ids[2], ids[0]]
    # Backing off: not ready until its time has come.
    assert [e.id for e in q.ready()] == [ids[1], ids[2]]
    clock.now += 3600 * 2
    assert [e.id for e in q.ready()] == [ids[1], ids[2], ids[0]]


def test_backoff_is_exponential_capped_with_seeded_jitter() -> None:
    b = Backoff(initial=10, multiplier=2, max_delay=100, jitter=0.2)
    rng = random.Random(1)
    delays = [b.delay(n, rng) for n in (1, 2, 3, 4, 5, 6)]
    bases = [10, 20, 40, 80, 100, 100]
    for delay, base in zip(delays, bases, strict=True):
        assert base * 0.8 <= delay <= base * 1.2
    # Same seed, same schedule: deterministic.
    again = [b.delay(n, random.Random(1)) for n in (1,)]
    assert again[0] == delays[0]
    # Jitter really varies the delay.
    spread = {round(b.delay(3, rng), 6) for _ in range(20)}
    assert len(spread) > 1


def test_bump_retry_records_backoff_from_injected_clock(q: Queue, clock: FakeClock) -> None:
    e, _ = q.add("/t/a.jsonl")
    bumped = q.bump_retry(e.id, "fail_is_error", "x")
    assert bumped is not None and bumped.not_before is not None
    assert clock.now + 48 <= bumped.not_before <= clock.now + 72
    bumped = q.bump_retry(e.id, "fail_is_error", "x")
    assert bumped is not None and bumped.not_before is not None
    assert clock.now + 96 <= bumped.not_before <= clock.now + 144
    assert q.list()[0].retries == 2
    assert q.list()[0].last_outcome == "fail_is_error"


def test_torn_and_edited_entries_are_moved_aside_not_deleted(q: Queue) -> None:
    good, _ = q.add("/t/good.jsonl")
    torn, _ = q.add("/t/torn.jsonl")
    edited, _ = q.add("/t/edited.jsonl")
    torn_path = q.dir / f"{torn.id}.json"
    data = torn_path.read_bytes()
    torn_path.write_bytes(data[: len(data) // 2])
    edited_path = q.dir / f"{edited.id}.json"
    doc = json.loads(edited_path.read_text())
    doc["entry"]["transcript_path"] = "/etc/passwd"
    edited_path.write_text(json.dumps(doc))
    assert [e.id for e in q.list()] == [good.id]
    corrupt = q.corrupt()
    assert len(corrupt) == 2
    reasons = " ".join(c.reason for c in corrupt)
    assert "checksum mismatch" in reasons and "JSON" in reasons
    # The bytes are kept for forensics.
    kept = {c.path.read_bytes() for c in corrupt}
    assert data[: len(data) // 2] in kept


def test_a_file_whose_name_does_not_match_its_id_is_corrupt(q: Queue) -> None:
    e, _ = q.add("/t/a.jsonl")
    os.replace(q.dir / f"{e.id}.json", q.dir / "0000000000000000.json")
    assert q.list() == []
    assert "does not match" in q.corrupt()[0].reason


def test_encode_decode_round_trip(q: Queue) -> None:
    e, _ = q.add("/t/ü.jsonl", "idle", "s", extra={"agent_id": "x"})
    assert decode_entry(encode_entry(e)) == e
    with pytest.raises(ValueError):
        decode_entry(b"\xff\xfe")


def test_dead_letters_retry_and_purge(q: Queue) -> None:
    a, _ = q.add("/t/a.jsonl")
    b, _ = q.add("/t/b.jsonl")
    q.bump_retry(a.id, "fail_exit_1")
    dead = q.dead_letter(a.id, "poison", "retries exhausted")
    assert dead is not None
    assert [e.id for e in q.list()] == [b.id]
    failed = q.failed()
    assert [e.id for e in failed] == [a.id]
    assert failed[0].dead_reason == "poison" and failed[0].retries == 1
    back = q.retry(a.id[:6])
    assert back.retries == 0 and back.not_before is None and back.dead_reason is None
    assert q.failed() == []
    assert [e.id for e in q.list()] == [b.id, a.id]
    q.dead_letter(a.id, "poison")
    purged, was_dead = q.purge(a.id)
    assert was_dead and purged.id == a.id
    assert q.failed() == [] and [e.id for e in q.list()] == [b.id]
    with pytest.raises(NotFoundError):
        q.purge(a.id)


def test_ambiguous_prefix_is_a_usage_error(q: Queue) -> None:
    for n in range(40):
        q.add(f"/t/{n}.jsonl")
    with pytest.raises(UsageError):
        q.get("")
    first_chars = [e.id[0] for e in q.list()]
    common = max(set(first_chars), key=first_chars.count)
    with pytest.raises(UsageError):
        q.get(common)


def test_add_refuses_an_empty_path(q: Queue) -> None:
    with pytest.raises(UsageError):
        q.add("  ")
    assert not q.dir.exists() or not list(q.dir.glob("*.json"))


def _legacy_file(path: Path) -> None:
    lines = [
        {
            "ts": "2026-03-04T09:12:00Z",
            "session_id": "9f1c",
            "transcript_path": "/x/session.jsonl",
            "trigger": "stop",
            "cwd": "/repo",
        },
        {
            "ts": "2026-03-04T09:13:00Z",
            "session_id": "sub",
            "transcript_path": "/x/sub.jsonl",
            "trigger": "subagent_stop",
            "cwd": "/repo",
            "harness": "claude",
            "scope": "session",
            "agent_id": "a1",
        },
    ]
    text = "\n".join(json.dumps(line) for line in lines)
    path.write_text(text + '\nnot json\n{"no": "path"}\n' + json.dumps(lines[0]) + "\n")


def test_legacy_pending_file_is_imported_once(q: Queue, tmp_path: Path) -> None:
    legacy = tmp_path / "home" / ".reflect" / "pending_reflections.jsonl"
    legacy.parent.mkdir(parents=True)
    _legacy_file(legacy)
    before = legacy.read_bytes()
    assert q.import_all_legacy(str(tmp_path / "home")) == 2
    entries = q.list()
    assert [e.transcript_path for e in entries] == ["/x/session.jsonl", "/x/sub.jsonl"]
    assert entries[0].queued_at == "2026-03-04T09:12:00Z"
    assert entries[0].session_id == "9f1c" and entries[0].trigger == "stop"
    assert entries[1].harness == "claude" and entries[1].scope == "session"
    assert entries[1].extra["agent_id"] == "a1"
    assert legacy.read_bytes() == before, "the original tool's file is never modified"
    # Drained since: a second open must not bring them back.
    for e in entries:
        q.remove(e.id)
    assert q.import_all_legacy(str(tmp_path / "home")) == 0
    assert q.list() == []


def test_open_queue_imports_from_state_dir(tmp_path: Path) -> None:
    from reflectgit.config import Config
    from reflectgit.state.queue import open_queue

    state = tmp_path / "state"
    state.mkdir()
    _legacy_file(state / "pending_reflections.jsonl")
    cfg = Config(kb=tmp_path / "kb", state_dir=state, env={"HOME": str(tmp_path / "nohome")})
    assert len(open_queue(cfg).list()) == 2
    assert len(open_queue(cfg, import_legacy=False).list()) == 2


WRITER = """
import sys, random
from pathlib import Path
from reflectgit.state.queue import Queue
q = Queue(Path(sys.argv[1]))
i = 0
print("ready", flush=True)
while True:
    e, _ = q.add(f"/t/{sys.argv[2]}-{i}.jsonl", "stop", "s")
    q.bump_retry(e.id, "fail_exit_1", "x" * 4000)
    i += 1
"""


def test_kill_9_during_writes_leaves_every_file_whole(tmp_path: Path) -> None:
    state = tmp_path / "state"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(state), str(n)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    for p in procs:
        assert p.stdout is not None
        assert p.stdout.readline().strip() == "ready"
    q = Queue(state)
    deadline = time.monotonic() + 20
    while len(list(q.dir.glob("*.json"))) < 30 and time.monotonic() < deadline:
        time.sleep(0.02)
    for p in procs:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
    entries = q.list()
    assert len(entries) >= 30
    assert q.corrupt() == [], "no torn entry after kill -9"
    assert all(e.retries in (0, 1) for e in entries)
    assert len({e.seq for e in entries}) >= len(entries) - 2


def test_cli_queue_commands(cli, tmp_path: Path, repo: Path) -> None:  # type: ignore[no-untyped-def]
    transcript = tmp_path / "sess-1.jsonl"
    transcript.write_text('{"type":"user","message":{"content":"hi"}}\n')
    r = cli("--kb", str(repo), "queue", "add", str(transcript), "--trigger", "stop", "--json")
    assert r.code == 0, r
    doc = r.json()
    assert doc["created"] is True and doc["entry"]["session_id"] == "sess-1"
    entry_id_ = doc["id"]
    r = cli("--kb", str(repo), "queue", "add", str(transcript))
    assert r.code == 0 and "already queued" in r.out
    r = cli("--kb", str(repo), "queue", "list", "--json")
    assert [e["id"] for e in r.json()["pending"]] == [entry_id_]
    assert (repo / ".git" / "reflect-git" / "queue" / f"{entry_id_}.json").exists()
    r = cli("--kb", str(repo), "queue", "add", str(tmp_path / "missing.jsonl"))
    assert r.code == 1 and "no transcript" in r.err
    Queue(repo / ".git" / "reflect-git").dead_letter(entry_id_, "poison", "retries exhausted")
    r = cli("--kb", str(repo), "queue", "failed")
    assert r.code == 0 and entry_id_ in r.out and "poison" in r.out
    r = cli("--kb", str(repo), "queue", "failed", "--json")
    assert r.json()[0]["dead_reason"] == "poison"
    r = cli("--kb", str(repo), "queue", "retry", entry_id_[:8], "--json")
    assert r.code == 0 and r.json()["id"] == entry_id_
    r = cli("--kb", str(repo), "queue", "purge", entry_id_, "--json")
    assert r.code == 0 and r.json() == {"id": entry_id_, "purged": "pending_entry"}
    r = cli("--kb", str(repo), "queue", "retry", "ffff")
    assert r.code == 1 and "hint:" in r.err


def test_queue_commands_refuse_a_folder_that_is_not_a_kb(cli, tmp_path):
    """Derived state never creates a stray .git in a folder that is not a KB."""
    target = tmp_path / "not-a-kb"
    for args in (["queue", "list"], ["queue", "retry", "x"], ["search", "foo"], ["reindex"]):
        result = cli("--kb", str(target), *args)
        assert result.code == 1, (args, result)
        assert "hint:" in result.err
    assert not target.exists()


# --------------------------------------------------------------------------- the order file


def test_the_order_skips_stale_lines_moves_its_head_and_compacts(
    q: Queue, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reflectgit.state import queue as queue_module

    monkeypatch.setattr(queue_module, "COMPACT_MIN", 200)  # bytes, instead of a megabyte
    ids = [q.add(f"/t/{i}.jsonl")[0].id for i in range(40)]
    for ident in ids[:30]:
        q.remove(ident)  # 30 stale lines at the front
    q.bump_retry(ids[30], "fail_x")  # to the back, backing off: its old line goes stale
    assert [e.id for e in q.ready(limit=3)] == ids[31:34]
    lines = (q.dir / "order").read_bytes().splitlines()
    assert lines[0].split()[1].decode() == ids[31], "the stale front was compacted away"
    assert [line.split()[1].decode() for line in lines] == [*ids[31:], ids[30]]
    assert [e.id for e in q.list()] == [*ids[31:], ids[30]]
    assert [e.id for e in q.ready()] == ids[31:]  # the backed-off one waits
    q.remove(ids[31])
    assert [e.id for e in q.ready(limit=2)] == ids[32:34]  # from the head on


def test_an_entry_no_line_names_is_ordered_when_the_walk_reaches_the_end(q: Queue) -> None:
    first, _ = q.add("/t/first.jsonl")
    # An entry as an older version wrote it: a file, no line in the order.
    older = Entry(id=entry_id("/t/older.jsonl"), transcript_path="/t/older.jsonl", seq=1)
    (q.dir / f"{older.id}.json").write_bytes(encode_entry(older))
    assert [e.id for e in q.ready(limit=1)] == [first.id]  # not read: the limit came first
    assert [e.id for e in q.ready()] == [first.id, older.id]  # found, given a place
    assert [e.id for e in q.ready(limit=5)] == [first.id, older.id]
    (q.dir / "order").unlink()  # lost: rebuilt from the entry files
    assert [e.id for e in q.ready()] == [first.id, older.id]
    again, created = q.add("/t/third.jsonl")
    assert created and again.seq > max(e.seq for e in q.list() if e.id != again.id)
