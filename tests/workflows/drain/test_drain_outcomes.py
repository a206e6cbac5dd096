"""Every outcome row of the drain, driven by stub model commands printing canned output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflectgit.notes.note import parse_note
from reflectgit.state import ledger
from reflectgit.state.queue import Queue
from reflectgit.workflows.drain import quota
from reflectgit.workflows.drain.loop import run_drain
from tests.conftest import git
from tests.support.drain import (
    Clock,
    calls,
    copy_transcript,
    create_action,
    enqueue,
    make_config,
    prompt_of,
    stub_command,
)


def _setup(
    tmp_path: Path, repo: Path, body: str, transcript: str = "claude/correction-0.jsonl", **env: str
):  # type: ignore[no-untyped-def]
    stub = stub_command(tmp_path, body)
    cfg = make_config(repo, REFLECT_DRAIN_CMD=str(stub), **env)
    path = copy_transcript(tmp_path, transcript)
    eid = enqueue(cfg, path)
    return cfg, stub, eid


def _only_row(report):  # type: ignore[no-untyped-def]
    assert len(report.rows) == 1, report.rows
    return report.rows[0]


def _ledger(cfg):  # type: ignore[no-untyped-def]
    return list(ledger.read_rows(cfg.state_dir))


def _commits(repo: Path) -> list[str]:
    out = git("log", "--format=%H", "--all", cwd=repo, check=False)
    return out.split()


VALID = {"actions": [create_action("Use uv pip sync for installs")]}


def test_ok_creates_notes_in_one_commit_with_accounting(tmp_path: Path, repo: Path) -> None:
    cfg, stub, _eid = _setup(tmp_path, repo, f"emit({VALID!r})")
    row = _only_row(run_drain(cfg, clock=Clock()))
    assert row["outcome"] == "ok" and row["entries"] == 1
    assert row["writer"] == "extract" and row["writer_class"] == "valid"
    assert row["tokens"] == 1500 and row["cost_usd"] == pytest.approx(0.0125)
    assert row["model"] == "claude-sonnet-4-5"
    [nid] = row["notes"]
    assert nid.startswith("lrn-use-uv-pip-sync-for-installs-") and len(nid.rsplit("-", 1)[1]) == 6
    assert calls(stub) == 1
    log = git("log", "--format=%B", cwd=repo)
    assert "Reflect-Source: drain:correction-0" in log
    assert f"Reflect-Id: {nid}" in log
    files = git("show", "--name-only", "--format=", "HEAD", cwd=repo).split()
    assert sorted(files) == [f"documents/{nid}.entities.yaml", f"documents/{nid}.md"]
    note = parse_note((repo / "documents" / f"{nid}.md").read_bytes())
    assert note.frontmatter["provenance"]["source_memory_ids"] == ["drain:correction-0"]
    side = (repo / "documents" / f"{nid}.entities.yaml").read_text()
    assert f"document_id: {nid}" in side
    assert git("status", "--porcelain", cwd=repo) == ""
    git("fsck", "--strict", cwd=repo)
    assert Queue(cfg.state_dir).list() == []
    assert [r["outcome"] for r in _ledger(cfg)] == ["ok"]
    # the prompt carried the slice, not the whole transcript, and the gate's drain marker
    prompt = prompt_of(stub)
    assert "<reflect-git:drain>" in prompt and "uv pip sync requirements.lock" in prompt


def test_fenced_answer_amid_prose_is_valid(tmp_path: Path, repo: Path) -> None:
    text = "Sure! Here you go:\n```json\n" + json.dumps(VALID) + "\n```\nHope that helps."
    cfg, _, _ = _setup(tmp_path, repo, f"emit({text!r})")
    row = _only_row(run_drain(cfg, clock=Clock()))
    assert row["outcome"] == "ok" and len(row["notes"]) == 1


def test_empty_actions_is_ok_without_a_commit(tmp_path: Path, repo: Path) -> None:
    cfg, _, _ = _setup(tmp_path, repo, "emit({'actions': []})")
    row = _only_row(run_drain(cfg, clock=Clock()))
    assert row["outcome"] == "ok" and row["entries"] == 1 and row["commit"] is None
    assert _commits(repo) == []
    assert Queue(cfg.state_dir).list() == []


@pytest.mark.parametrize(
    ("body", "outcome", "wclass"),
    [
        ("emit('I think you should use uv. Nothing else to add.')", "fail_invalid_output", "prose"),
        ('emit(\'{"actions": [ {"action": \')', "fail_invalid_output", "malformed"),
        ("print('partial answer'); sys.exit(1)", "fail_exit_1", "prose"),
        ("sys.exit(2)", "fail_no_output_exit_2", "idle"),
        ("emit('boom', is_error=True)", "fail_is_error", "prose"),
    ],
)
def test_retryable_failures_go_to_the_back_with_a_retry(
    tmp_path: Path, repo: Path, body: str, outcome: str, wclass: str
) -> None:
    cfg, _, eid = _setup(tmp_path, repo, body)
    other = enqueue(cfg, copy_transcript(tmp_path, "claude/correction-1.jsonl"))
    report = run_drain(cfg, clock=Clock(), max_entries=1)
    row = _only_row(report)
    assert row["outcome"] == outcome and row["entries"] == 1 and row["writer_class"] == wclass
    q = Queue(cfg.state_dir)
    assert [e.id for e in q.list()] == [other, eid], "moved behind the other entry"
    entry = q.list()[1]
    assert entry.retries == 1 and entry.not_before is not None
    assert entry.last_outcome == outcome
    assert _commits(repo) == []


def test_zero_turns_is_unknown_command_leaving_the_queue_untouched(
    tmp_path: Path, repo: Path
) -> None:
    cfg, stub, _eid = _setup(tmp_path, repo, "emit('', num_turns=0)")
    enqueue(cfg, copy_transcript(tmp_path, "claude/correction-1.jsonl"))
    before = {p.name: p.read_bytes() for p in (cfg.state_dir / "queue").glob("*.json")}
    report = run_drain(cfg, clock=Clock())
    row = _only_row(report)
    assert row["outcome"] == "fail_unknown_command"
    assert report.status == "aborted" and calls(stub) == 1, "the run stops at the first one"
    after = {p.name: p.read_bytes() for p in (cfg.state_dir / "queue").glob("*.json")}
    assert after == before, "no retry charged, nothing moved"


def test_empty_success_is_never_ok(tmp_path: Path, repo: Path) -> None:
    cfg, _, _ = _setup(tmp_path, repo, "pass")
    row = _only_row(run_drain(cfg, clock=Clock()))
    assert row["outcome"] == "fail_unknown_command"


def test_missing_model_command_is_unknown_command(tmp_path: Path, repo: Path) -> None:
    cfg = make_config(repo, REFLECT_DRAIN_CMD=str(tmp_path / "no-such-model"))
    enqueue(cfg, copy_transcript(tmp_path, "claude/correction-0.jsonl"))
    row = _only_row(run_drain(cfg, clock=Clock()))
    assert row["outcome"] == "fail_unknown_command" and row["entries"] == 0
    assert len(Queue(cfg.state_dir).list()) == 1


@pytest.mark.parametrize(
    ("body", "outcome", "entries"),
    [
        (
            "sys.stderr.write('Error: prompt is too long: 250000 tokens > 200000'); sys.exit(1)",
            "quarantine_oversized",
            0,
        ),
        (
            f"emit({VALID!r}, usage={{'input_tokens': 2500000, 'output_tokens': 10}})",
            "poison_budget",
            1,
        ),
    ],
)
def test_poison_outcomes_are_dead_lettered(
    tmp_path: Path, repo: Path, body: str, outcome: str, entries: int
) -> None:
    cfg, _, eid = _setup(tmp_path, repo, body)
    row = _only_row(run_drain(cfg, clock=Clock()))
    assert row["outcome"] == outcome and row["entries"] == entries
    q = Queue(cfg.state_dir)
    assert q.list() == []
    assert [(e.id, e.dead_reason) for e in q.failed()] == [(eid, outcome)]
    assert _commits(repo) == []


def test_retries_exhausted_is_poison_without_a_model_call(tmp_path: Path, repo: Path) -> None:
    cfg, stub, eid = _setup(tmp_path, repo, f"emit({VALID!r})")
    q = Queue(cfg.state_dir, clock=Clock(0))
    for _ in range(3):
        q.bump_retry(eid, "fail_exit_1")
    row = _only_row(run_drain(cfg, clock=Clock()))
    assert row["outcome"] == "poison" and row["entries"] == 0
    assert calls(stub) == 0
    assert [e.dead_reason for e in Queue(cfg.state_dir).failed()] == ["poison"]


def test_writer_drift_after_consecutive_invalid_outputs(tmp_path: Path, repo: Path) -> None:
    cfg, _, _eid = _setup(tmp_path, repo, "emit('just prose, no json')")
    clock = Clock()
    outcomes = []
    for _ in range(3):
        outcomes.append(_only_row(run_drain(cfg, clock=clock))["outcome"])
        clock.now += 10_000  # past any backoff
    assert outcomes == ["fail_invalid_output", "fail_invalid_output", "poison_writer_drift"]
    assert [e.dead_reason for e in Queue(cfg.state_dir).failed()] == ["poison_writer_drift"]


def test_timeout_kills_the_writer_then_quarantines(tmp_path: Path, repo: Path) -> None:
    cfg, _, _eid = _setup(tmp_path, repo, "time.sleep(60)", REFLECT_DRAIN_MODEL_TIMEOUT="0.5")
    clock = Clock()
    first = _only_row(run_drain(cfg, clock=clock))
    assert first["outcome"] == "fail_no_output_exit_124" and first["entries"] == 1
    assert Queue(cfg.state_dir).list()[0].counters == {"timeouts": 1}
    clock.now += 10_000
    second = _only_row(run_drain(cfg, clock=clock))
    assert second["outcome"] == "poison_timeout_exit_124" and second["entries"] == 1
    assert [e.dead_reason for e in Queue(cfg.state_dir).failed()] == ["poison_timeout_exit_124"]


def test_timeout_split_of_the_reference() -> None:
    from reflectgit.workflows.drain.writer import model_timeout

    assert model_timeout(300) == 210
    assert model_timeout(150) == 60
    assert model_timeout(100) == 60


def test_stale_entry_is_dropped(tmp_path: Path, repo: Path) -> None:
    cfg, stub, _ = _setup(tmp_path, repo, f"emit({VALID!r})")
    (tmp_path / "transcripts" / "correction-0.jsonl").unlink()
    row = _only_row(run_drain(cfg, clock=Clock()))
    assert row["outcome"] == "stale" and row["entries"] == 0 and calls(stub) == 0
    assert Queue(cfg.state_dir).list() == [] and Queue(cfg.state_dir).failed() == []


def test_rate_limit_defers_and_closes_the_quota_gate(tmp_path: Path, repo: Path) -> None:
    cfg, stub, _eid = _setup(
        tmp_path, repo, "sys.stderr.write('API Error: 429 rate_limit_error'); sys.exit(1)"
    )
    enqueue(cfg, copy_transcript(tmp_path, "claude/correction-1.jsonl"))
    clock = Clock()
    report = run_drain(cfg, clock=clock)
    row = _only_row(report)
    assert row["outcome"] == "quota_deferred" and row["entries"] == 0
    assert report.status == "quota_deferred" and calls(stub) == 1
    assert len(Queue(cfg.state_dir).list()) == 2
    assert Queue(cfg.state_dir).list()[0].retries == 0
    # Next run: the gate is closed before any model call.
    clock.now += 60
    report = run_drain(cfg, clock=clock)
    assert [r["outcome"] for r in report.rows] == ["quota_deferred"]
    assert calls(stub) == 1
    # A stale snapshot fails open.
    clock.now += 3601
    run_drain(cfg, clock=clock)
    assert calls(stub) == 2


def test_rate_limit_info_past_the_ceiling_defers_the_rest(tmp_path: Path, repo: Path) -> None:
    info = {"rateLimitType": "five_hour", "utilization": 0.97, "status": "allowed"}
    cfg, stub, _ = _setup(tmp_path, repo, f"emit({VALID!r}, rate_limit_info={info!r})")
    enqueue(cfg, copy_transcript(tmp_path, "claude/correction-1.jsonl"))
    report = run_drain(cfg, clock=Clock())
    assert [r["outcome"] for r in report.rows] == ["ok", "quota_deferred"]
    assert calls(stub) == 1
    assert "five_hour" in quota.load(quota.quota_path(cfg.state_dir))["windows"]


def test_quota_gate_can_be_disabled_and_api_key_is_exempt(tmp_path: Path) -> None:
    state = tmp_path / "s"
    quota.record(state, 100.0, info={"five_hour": {"utilization": 0.99}})
    assert quota.gate_closed(state, 200.0, quota.QuotaSettings())
    assert quota.gate_closed(state, 200.0, quota.QuotaSettings(enabled=False)) is None
    assert quota.gate_closed(state, 200.0, quota.QuotaSettings(exempt=True)) is None
    assert quota.gate_closed(state, 200.0, quota.QuotaSettings(ceiling_override=0.999)) is None
    other = tmp_path / "t"
    quota.record(other, 100.0, info={"seven_day_sonnet": {"utilization": 0.921}})
    assert "seven_day_sonnet" in (quota.gate_closed(other, 200.0, quota.QuotaSettings()) or "")
    quota.record(other, 100.0, info={"seven_day_sonnet": {"status": "rejected"}})
    assert "rejected" in (quota.gate_closed(other, 200.0, quota.QuotaSettings()) or "")


def test_create_cap_of_twelve(tmp_path: Path, repo: Path) -> None:
    many = {"actions": [create_action(f"Learning number {n}") for n in range(15)]}
    cfg, _, _ = _setup(tmp_path, repo, f"emit({many!r})")
    row = _only_row(run_drain(cfg, clock=Clock()))
    assert row["outcome"] == "ok" and len(row["notes"]) == 12
    assert sum("cap of 12" in d["reason"] for d in row["dropped"]) == 3
    assert len(git("show", "--name-only", "--format=", "HEAD", cwd=repo).split()) == 24
    assert len(_commits(repo)) == 1


def test_oversized_without_slice_gets_head_and_tail_bound(tmp_path: Path, repo: Path) -> None:
    body = (
        "emit({'actions': [{'action': 'UPDATE', 'id': 'lrn-anything-abcdef'}, "
        "{'action': 'CREATE', 'title': 'Never VACUUM FULL here', 'rule': 'use VACUUM (ANALYZE)'}]})"
    )
    cfg, stub, _ = _setup(
        tmp_path, repo, body, transcript="claude/big.jsonl", REFLECT_DRAIN_CASCADE="0"
    )
    row = _only_row(run_drain(cfg, clock=Clock()))
    prompt = prompt_of(stub)
    assert "HEAD AND TAIL OF THE SESSION" in prompt
    assert "VACUUM (ANALYZE)" in prompt, "the tail, where the signals are, is kept"
    assert len(prompt) < 60_000 + 5_000
    assert row["outcome"] == "ok" and row["bounded"] is True
    assert len(row["notes"]) == 1
    assert [d["action"] for d in row["dropped"]] == ["UPDATE"], "no revision block when bounded"


def test_size_rejection_with_cascade_on_is_quarantined(tmp_path: Path, repo: Path) -> None:
    cfg, _, _ = _setup(
        tmp_path,
        repo,
        "emit('Prompt is too long', is_error=True)",
        transcript="claude/big.jsonl",
    )
    row = _only_row(run_drain(cfg, clock=Clock()))
    assert row["outcome"] == "quarantine_oversized" and row["entries"] == 0
    charged, _, _ = ledger.entries_on(_ledger(cfg), __import__("datetime").date(2026, 11, 18))
    assert charged == 0, "a size rejection never eats the daily budget"


def test_an_invalid_note_is_dropped_with_its_reason_and_never_committed(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reflectgit.workflows.drain import actions

    def strict(draft: actions.Draft) -> list[str]:
        return ["title: refused by the schema"] if "Bad" in draft.title else []

    monkeypatch.setattr(actions, "_schema_problems", strict)
    answer = {"actions": [create_action("Bad note"), create_action("Good note")]}
    cfg, _, _ = _setup(tmp_path, repo, f"emit({answer!r})")
    row = _only_row(run_drain(cfg, clock=Clock()))
    assert row["outcome"] == "ok" and len(row["notes"]) == 1
    assert row["notes"][0].startswith("lrn-good-note-")
    [dropped] = row["dropped"]
    assert "refused by the schema" in dropped["reason"]
    assert [r["dropped"] for r in _ledger(cfg)] == [row["dropped"]]
    assert "bad-note" not in git("log", "--all", "--name-only", cwd=repo)


def test_a_session_that_grows_during_the_drain_stays_queued(tmp_path: Path, repo: Path) -> None:
    path = tmp_path / "transcripts" / "correction-0.jsonl"
    line = {"type": "user", "message": {"role": "user", "content": "Never run migrations by hand."}}
    body = f"""
import os
if not os.path.exists({str(path) + ".grown"!r}):
    open({str(path) + ".grown"!r}, "w").close()
    with open({str(path)!r}, "a") as fh:
        fh.write({json.dumps(line)!r} + "\\n")
emit({VALID!r})
"""
    cfg, stub, eid = _setup(tmp_path, repo, body)
    [row] = run_drain(cfg, clock=Clock()).rows
    assert row["outcome"] == "ok"
    [entry] = Queue(cfg.state_dir).list()
    assert entry.id == eid and entry.retries == 0 and "grew" in (entry.last_outcome or "")
    # Next run: the new part reaches the writer; the same answer makes no duplicate note.
    [again] = run_drain(cfg, clock=Clock()).rows
    assert "Never run migrations by hand." in prompt_of(stub)
    assert again["outcome"] == "ok" and again["notes"] == []
    assert len(list((repo / "documents").glob("*.md"))) == 1
    assert Queue(cfg.state_dir).list() == []


def test_a_bare_size_marker_answer_is_quarantined(tmp_path: Path, repo: Path) -> None:
    cfg, _, _ = _setup(tmp_path, repo, "emit('Prompt is too long')")
    row = _only_row(run_drain(cfg, clock=Clock()))
    assert row["outcome"] == "quarantine_oversized" and row["entries"] == 0


def test_the_writers_own_session_never_fires_our_capture(tmp_path: Path, repo: Path) -> None:
    """The model CLI runs our agent hooks like any session would: they must stay out."""
    import sys

    other = copy_transcript(tmp_path, "claude/correction-1.jsonl")
    stop = json.dumps(
        {"session_id": "writer-session", "transcript_path": str(other), "hook_event_name": "Stop"}
    )
    body = (
        "import subprocess\n"
        f"subprocess.run([{sys.executable!r}, '-m', 'reflectgit', '--kb', {str(repo)!r},"
        f" 'hook', 'Stop'], input={stop!r}, text=True, check=True)\n"
        f"emit({VALID!r})"
    )
    cfg, _stub, _eid = _setup(tmp_path, repo, body)
    assert _only_row(run_drain(cfg, clock=Clock()))["outcome"] == "ok"
    assert Queue(cfg.state_dir).list() == [], "the writer's session was queued by our own hook"


# --------------------------------------------------------------------------- issue 12: outcomes


@pytest.mark.parametrize(
    "body",
    [
        # what `claude -p --output-format json` prints when a subscription's window is spent
        "emit('Claude AI usage limit reached|1795003600', is_error=True)",
        'emit("You\'ve hit your limit · resets 3pm (Europe/Berlin)")',
        "emit('Credit balance is too low', is_error=True)",
        "sys.stderr.write('Invalid API key · Please run /login\\n'); sys.exit(1)",
    ],
)
def test_an_account_limit_closes_the_quota_gate_and_defers(
    tmp_path: Path, repo: Path, body: str
) -> None:
    cfg, stub, eid = _setup(tmp_path, repo, body)
    other = enqueue(cfg, copy_transcript(tmp_path, "claude/correction-1.jsonl"))
    before = {p.name: p.read_bytes() for p in (cfg.state_dir / "queue").glob("*.json")}
    clock = Clock()
    report = run_drain(cfg, clock=clock)
    row = _only_row(report)
    assert row["outcome"] == "quota_deferred" and row["entries"] == 0 and row["cost_usd"] == 0
    assert report.status == "quota_deferred" and calls(stub) == 1, "the rest is not tried"
    q = Queue(cfg.state_dir)
    assert q.failed() == [], "no dead letter"
    assert [e.id for e in q.list()] == [eid, other]
    after = {p.name: p.read_bytes() for p in (cfg.state_dir / "queue").glob("*.json")}
    assert after == before, "no retry charged, nothing moved"
    charged, _, _ = ledger.entries_on(_ledger(cfg), __import__("datetime").date(2026, 11, 18))
    assert charged == 0
    # the gate is closed now: the next run calls no model
    clock.now += 60
    assert [r["outcome"] for r in run_drain(cfg, clock=clock).rows] == ["quota_deferred"]
    assert calls(stub) == 1


def test_a_usage_limit_defers_until_its_reset_then_a_good_run_drains(
    tmp_path: Path, repo: Path
) -> None:
    flag = tmp_path / "limited"
    flag.write_text("")
    reset = int(Clock().now) + 7200  # two hours: longer than the snapshot's TTL
    body = f"""
import os
if os.path.exists({str(flag)!r}):
    emit('Claude AI usage limit reached|{reset}', is_error=True)
else:
    emit({VALID!r})
"""
    cfg, stub, _eid = _setup(tmp_path, repo, body)
    clock = Clock()
    assert _only_row(run_drain(cfg, clock=clock))["outcome"] == "quota_deferred"
    flag.unlink()
    clock.now += 3601  # past the TTL, before the reset the account named
    assert _only_row(run_drain(cfg, clock=clock))["outcome"] == "quota_deferred"
    assert calls(stub) == 1
    clock.now = reset + 1
    row = _only_row(run_drain(cfg, clock=clock))
    assert row["outcome"] == "ok" and len(row["notes"]) == 1 and calls(stub) == 2
    assert Queue(cfg.state_dir).list() == [] and Queue(cfg.state_dir).failed() == []


@pytest.mark.parametrize(
    "answer",
    [
        "I found nothing durable here; the context window of this excerpt was small.",
        "The session hit the usage limit of its CI runner; nothing to keep.",
    ],
)
def test_short_prose_about_limits_is_a_retryable_invalid_answer(
    tmp_path: Path, repo: Path, answer: str
) -> None:
    cfg, _, eid = _setup(tmp_path, repo, f"emit({answer!r})")
    row = _only_row(run_drain(cfg, clock=Clock()))
    assert row["outcome"] == "fail_invalid_output" and row["writer_class"] == "prose"
    q = Queue(cfg.state_dir)
    assert q.failed() == [] and [e.id for e in q.list()] == [eid]
    assert q.list()[0].retries == 1
    assert not quota.gate_closed(cfg.state_dir, Clock().now, quota.QuotaSettings())


def test_cascade_off_with_the_heuristic_writer_still_makes_notes(
    tmp_path: Path, repo: Path
) -> None:
    cfg = make_config(repo, REFLECT_DRAIN_WRITER="heuristic", REFLECT_DRAIN_CASCADE="0")
    path = copy_transcript(tmp_path, "claude/correction-0.jsonl")
    enqueue(cfg, path)
    row = _only_row(run_drain(cfg, clock=Clock()))
    assert row["outcome"] == "ok" and len(row["notes"]) == 1, row
    note = (repo / "documents" / f"{row['notes'][0]}.md").read_text()
    assert "uv pip sync requirements.lock" in note
    # a no-signal transcript is a skip, never an "ok" with nothing in it
    enqueue(cfg, copy_transcript(tmp_path, "claude/no-signal-0.jsonl"))
    assert _only_row(run_drain(cfg, clock=Clock()))["outcome"] == "skip_no-signal"


def _cli(repo: Path, *args: str, **env: str):  # type: ignore[no-untyped-def]
    from tests.conftest import run_cli_proc

    return run_cli_proc("--kb", str(repo), *args, env=env)


def test_queue_retry_resets_every_counter(tmp_path: Path, repo: Path) -> None:
    cfg, stub, eid = _setup(tmp_path, repo, "emit('just prose, no json')")
    clock = Clock()
    for _ in range(2):
        assert _only_row(run_drain(cfg, clock=clock))["outcome"] == "fail_invalid_output"
        clock.now += 10_000
    [entry] = Queue(cfg.state_dir).list()
    assert entry.counters == {"invalid": 2} and entry.retries == 2
    proc = _cli(repo, "--json", "queue", "retry", eid[:8])
    assert proc.returncode == 0, proc.stderr
    [entry] = Queue(cfg.state_dir).list()
    assert entry.counters == {} and entry.retries == 0 and entry.not_before is None
    assert entry.last_outcome is None and entry.last_error is None
    # one more bad answer is one strike, not the third
    assert _only_row(run_drain(cfg, clock=clock))["outcome"] == "fail_invalid_output"
    assert calls(stub) == 3 and Queue(cfg.state_dir).failed() == []


def test_a_timed_out_entry_retried_by_hand_gets_its_timeouts_back(
    tmp_path: Path, repo: Path
) -> None:
    cfg, _, eid = _setup(tmp_path, repo, "time.sleep(60)", REFLECT_DRAIN_MODEL_TIMEOUT="0.5")
    clock = Clock()
    assert _only_row(run_drain(cfg, clock=clock))["outcome"] == "fail_no_output_exit_124"
    Queue(cfg.state_dir).retry(eid)
    clock.now += 10_000
    second = _only_row(run_drain(cfg, clock=clock))
    assert second["outcome"] == "fail_no_output_exit_124", "not poisoned by the old count"


BAD_CMD = "my-model --flag 'unclosed"


def test_a_malformed_model_command_fails_the_extract_writer_only(
    tmp_path: Path, repo: Path
) -> None:
    git("commit", "-q", "--allow-empty", "-m", "init", cwd=repo)
    cfg = make_config(repo, REFLECT_DRAIN_CMD=BAD_CMD)
    enqueue(cfg, copy_transcript(tmp_path, "claude/correction-0.jsonl"))
    base = {"REFLECT_DRAIN_CMD": BAD_CMD, "REFLECT_DRAIN_DEBOUNCE_SEC": "0"}
    extract = _cli(repo, "drain", **base)
    assert extract.returncode == 1, extract
    err = extract.stderr.splitlines()
    assert err[0].startswith("error: REFLECT_DRAIN_CMD=") and "not valid shell words" in err[0]
    assert err[1].startswith("hint: ") and "--writer heuristic" in err[1]
    assert _ledger(cfg) == [] and len(Queue(cfg.state_dir).list()) == 1
    heuristic = _cli(repo, "--json", "drain", "--writer", "heuristic", **base)
    assert heuristic.returncode == 0, heuristic.stderr
    doc = json.loads(heuristic.stdout)
    assert doc["status"] == "ran" and [r["outcome"] for r in doc["rows"]] == ["ok"]


def test_a_background_heuristic_drain_ignores_a_malformed_model_command(
    tmp_path: Path, repo: Path
) -> None:
    from tests.support.capture import wait_for

    git("commit", "-q", "--allow-empty", "-m", "init", cwd=repo)
    cfg = make_config(repo)
    enqueue(cfg, copy_transcript(tmp_path, "claude/correction-0.jsonl"))
    env = {"REFLECT_DRAIN_CMD": BAD_CMD, "REFLECT_DRAIN_WRITER": "heuristic"}
    started = _cli(repo, "--json", "drain", "--background", REFLECT_DRAIN_DEBOUNCE_SEC="0", **env)
    assert started.returncode == 0 and json.loads(started.stdout)["background"] is True
    wait_for(lambda: bool(_ledger(cfg)), "the background drain's ledger row")
    assert [r["outcome"] for r in _ledger(cfg)] == ["ok"]
    log = (cfg.state_dir / "drain-background.log").read_text()
    assert "error" not in log


def test_drain_json_always_prints_the_run_status(tmp_path: Path, repo: Path) -> None:
    from reflectgit.workflows.drain.loop import drain_lock

    git("commit", "-q", "--allow-empty", "-m", "init", cwd=repo)
    cfg = make_config(repo)
    enqueue(cfg, copy_transcript(tmp_path, "claude/correction-0.jsonl"))
    env = {"REFLECT_DRAIN_WRITER": "heuristic", "REFLECT_DRAIN_DEBOUNCE_SEC": "600"}
    first = json.loads(_cli(repo, "--json", "drain", **env).stdout)
    assert first["status"] == "ran" and [r["outcome"] for r in first["rows"]] == ["ok"]
    enqueue(cfg, copy_transcript(tmp_path, "claude/correction-1.jsonl"))
    debounced = json.loads(_cli(repo, "--json", "drain", **env).stdout)
    assert debounced["status"] == "debounced" and debounced["rows"] == []
    assert "next in" in debounced["message"]
    with drain_lock(cfg.state_dir) as held:
        assert held
        locked = json.loads(_cli(repo, "--json", "drain", **env).stdout)
    assert locked["status"] == "locked" and locked["rows"] == []
    empty_cfg = make_config(repo)
    Queue(empty_cfg.state_dir).purge(Queue(empty_cfg.state_dir).list()[0].id)
    empty = json.loads(_cli(repo, "--json", "drain", **env).stdout)
    assert empty["status"] == "empty" and empty["rows"] == []
