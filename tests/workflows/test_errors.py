"""``reflect-git errors`` and the errors line of ``status``, from real drains, hooks and index
repairs (each kind recorded where it happens)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from reflectgit.workflows.errors import drain_kind, tally
from tests.conftest import run_cli_proc
from tests.support.drain import copy_transcript, stub_command

UTC = dt.timezone.utc
VALID = {
    "actions": [
        {
            "action": "CREATE",
            "title": "Use uv pip sync for installs",
            "key_insight": "uv pip sync keeps the venv exact",
            "rule": "Use uv pip sync, not pip install, in CI",
            "confidence": "medium",
        }
    ]
}


@pytest.mark.parametrize(
    ("outcome", "kind"),
    [
        ("poison", "drain_poison"),
        ("poison_writer_drift", "drain_poison"),
        ("quarantine_oversized", "drain_oversized_input"),
        ("quota_deferred", "drain_quota_deferred"),
        ("fail_unknown_command", "drain_unknown_command"),
        ("fail_internal_error", "drain_internal_error"),
        ("fail_invalid_output", "drain_failure"),
        ("ok", None),
        ("stale", None),
        ("skip_no-signal", None),
        ("partial_max_turns", None),
    ],
)
def test_drain_outcomes_that_are_errors(outcome: str, kind: str | None) -> None:
    assert drain_kind(outcome) == kind


def test_tally_counts_since_and_keeps_the_last_message() -> None:
    t = dt.datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    events = [
        ("drain_poison", t - dt.timedelta(days=10), "too old"),
        ("drain_poison", t - dt.timedelta(hours=2), "second"),
        ("drain_poison", t - dt.timedelta(hours=5), "first"),
        ("hook_failure", None, "no time: not in a span"),
    ]
    report = tally(events, t - dt.timedelta(days=7))
    assert report.counts() == {"drain_poison": 2}
    assert report.kinds["drain_poison"].last_message == "second"
    assert tally(events, None).counts() == {"drain_poison": 3, "hook_failure": 1}


def _cli(kb: Path, *args: str, **env: str):  # type: ignore[no-untyped-def]
    return run_cli_proc("--kb", str(kb), *args, env=env or None)


def _drain_once(kb: Path, tmp_path: Path, body: str, name: str, transcript: str) -> str:
    stub = stub_command(tmp_path, body, name=name)
    path = copy_transcript(tmp_path, f"claude/{transcript}.jsonl", f"{name}.jsonl")
    assert _cli(kb, "queue", "add", str(path)).returncode == 0
    done = _cli(
        kb,
        "--json",
        "drain",
        REFLECT_DRAIN_CMD=str(stub),
        REFLECT_DRAIN_DEBOUNCE_SEC="0",
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    return str(rows[-1]["outcome"])


def test_errors_from_real_drains_hooks_and_index_repairs(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    assert _cli(kb, "init").returncode == 0
    state = kb / ".git" / "reflect-git"
    quiet = _cli(kb, "errors")
    assert quiet.returncode == 0 and quiet.stdout.startswith("no errors since")

    # The drain, for real: an ok run (no error), then one of each failure.
    assert _drain_once(kb, tmp_path, f"emit({VALID!r})", "ok-model", "correction-0") == "ok"
    oversized = "sys.stderr.write('Error: prompt is too long: 250000 tokens > 200000'); sys.exit(1)"
    assert (
        _drain_once(kb, tmp_path, oversized, "big-model", "correction-1") == "quarantine_oversized"
    )
    budget = f"emit({VALID!r}, usage={{'input_tokens': 2500000, 'output_tokens': 10}})"
    assert _drain_once(kb, tmp_path, budget, "costly-model", "correction-2") == "poison_budget"
    zero = "emit('', num_turns=0)"
    assert _drain_once(kb, tmp_path, zero, "unregistered", "correction-3") == "fail_unknown_command"
    limited = "sys.stderr.write('API Error: 429 rate_limit_error'); sys.exit(1)"
    assert _drain_once(kb, tmp_path, limited, "limited-model", "test-fix-0") == "quota_deferred"

    # A hook that swallowed an error: its capture folder is a file, so nothing can be saved.
    (state / "capture").write_text("not a folder\n")
    payload = {
        "session_id": "s-1",
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": "/tmp/x.py"},
        "cwd": str(tmp_path),
    }
    hook = run_cli_proc("--kb", str(kb), "hook", "PostToolUse", input=json.dumps(payload))
    assert hook.returncode == 0 and hook.stdout == ""  # the harness never sees it
    # the turn ends: the capture pass (in the foreground here) meets the error
    stop = {**payload, "hook_event_name": "Stop"}
    sync = {"REFLECT_GIT_HOOK_SYNC": "1"}
    hook = run_cli_proc("--kb", str(kb), "hook", "Stop", input=json.dumps(stop), env=sync)
    assert hook.returncode == 0 and hook.stdout == ""

    # A damaged search index: rebuilt from git, and counted.
    assert _cli(kb, "reindex").returncode == 0
    (state / "search.sqlite3").write_bytes(b"this is not sqlite" * 100)
    for suffix in ("-wal", "-shm"):
        (state / f"search.sqlite3{suffix}").unlink(missing_ok=True)
    assert _cli(kb, "search", "uv").returncode == 0

    doc = json.loads(_cli(kb, "--json", "errors").stdout)
    counts = {k["kind"]: k["count"] for k in doc["kinds"]}
    assert counts == {
        "drain_poison": 1,
        "drain_oversized_input": 1,
        "drain_quota_deferred": 1,
        "drain_unknown_command": 1,
        "hook_failure": 1,
        "index_repair": 1,
    }
    last = {k["kind"]: k["last_message"] for k in doc["kinds"]}
    assert last["drain_oversized_input"].startswith("quarantine_oversized")
    assert "PostToolUse" in last["hook_failure"]
    assert "rebuilt" in last["index_repair"]
    assert doc["total"] == 6

    text = _cli(kb, "errors").stdout
    assert text.splitlines()[0].startswith("6 errors since")
    assert "drain_poison" in text and "index_repair" in text

    status = _cli(kb, "status")
    assert "errors:   6 in the last 7 days (drain_poison 1," in status.stdout
    assert json.loads(_cli(kb, "--json", "status").stdout)["errors"] == counts

    assert json.loads(_cli(kb, "--json", "errors", "--since", "2999-01-01").stdout)["total"] == 0
    bad = _cli(kb, "errors", "--since", "last tuesday")
    assert bad.returncode == 2 and "error:" in bad.stderr and "hint:" in bad.stderr  # usage
