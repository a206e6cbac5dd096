"""Fixtures for the capture tests: a KB, transcripts named by session, hook-event replays."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DATA, git, shared_json

EVENTS = DATA / "hook-events"
TRANSCRIPTS = DATA / "transcripts"
MANIFEST = shared_json("transcripts", "MANIFEST.json")
LEAKS: list[str] = next((e["must_never_leak"] for e in MANIFEST if "must_never_leak" in e), [])


@pytest.fixture(name="kb")
def kb_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty KB repository (one commit), made the default KB through REFLECT_GIT_KB."""
    path = tmp_path / "kb"
    git("init", "-q", "-b", "main", str(path), cwd=tmp_path)
    (path / "README.md").write_text("team knowledge\n")
    git("add", "README.md", cwd=path)
    git("commit", "-qm", "init", cwd=path)
    (path / "documents").mkdir()  # the KB layout (an empty folder: git's tree is unchanged)
    monkeypatch.setenv("REFLECT_GIT_KB", str(path))
    return path


@pytest.fixture(name="transcripts")
def transcripts_fixture(tmp_path: Path) -> Path:
    """The Claude transcripts copied into tmp, named ``<session>.jsonl`` as hook events expect."""
    folder = tmp_path / "transcripts"
    folder.mkdir()
    for src in sorted((TRANSCRIPTS / "claude").glob("*.jsonl")):
        first = json.loads(src.read_text().splitlines()[0])
        shutil.copy(src, folder / f"{first['sessionId']}.jsonl")
    return folder


def state_dir(kb_path: Path) -> Path:
    return kb_path / ".git" / "reflect-git"


def load_events(name: str, transcripts_dir: Path) -> list[str]:
    """The payloads of a hook-events file, as the text a harness would write on stdin."""
    raw = (EVENTS / name).read_text()
    try:
        events = json.loads(raw)
    except ValueError:
        return [raw]
    return [json.dumps(e).replace("TRANSCRIPTS/", f"{transcripts_dir}/") for e in events]


def event_name(payload: str) -> str:
    try:
        name = json.loads(payload).get("hook_event_name")
    except (ValueError, AttributeError):
        return "PostToolUse"
    return name if isinstance(name, str) and name else "PostToolUse"


def run_hook(
    event: str, payload: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``reflect-git hook EVENT`` as the harness runs it: a real process, payload on stdin.
    The capture pass a Stop starts runs in the foreground unless ``env`` sets ``SYNC`` to 0."""
    full = dict(os.environ)
    full[SYNC] = "1"
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "reflectgit", "hook", event],
        input=payload,
        capture_output=True,
        text=True,
        env=full,
        check=False,
    )


def replay(
    name: str, transcripts_dir: Path, env: dict[str, str] | None = None, settle: bool = True
) -> list[Any]:
    """Deliver every payload of a hook-events file in order, each hook must exit 0; then
    (``settle``) run the capture pass over the events a Stop did not pass (the notes land)."""
    full = {SYNC: "1", **(env or {})}
    results = []
    for payload in load_events(name, transcripts_dir):
        proc = run_hook(event_name(payload), payload, full)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
        results.append(proc)
    if settle:
        run_pass(env=full)
    return results


SYNC = "REFLECT_GIT_HOOK_SYNC"


def run_pass(*args: str, env: dict[str, str] | None = None) -> None:
    """The capture pass in the foreground: ``pass SESSION``, or every session with events."""
    full = dict(os.environ)
    full.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "reflectgit.hooks.background", "pass", *args],
        capture_output=True,
        text=True,
        env=full,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


def event_log(kb_path: Path) -> dict[str, list[dict[str, Any]]]:
    """The events waiting in the state directory's event logs, by session."""
    out: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((state_dir(kb_path) / "events").glob("*.jsonl")):
        out[path.stem] = [json.loads(line) for line in path.read_text().splitlines() if line]
    return out


def inbox_events(kb_path: Path) -> list[dict[str, Any]]:
    """The events the hooks recorded that no pass has moved yet (the inbox), in order, each
    ``{"ts", "harness", "event", "payload"}`` with the payload parsed."""
    from reflectgit.state import inbox

    try:
        data = (state_dir(kb_path) / inbox.FOLDER / inbox.NAME).read_bytes()
    except FileNotFoundError:
        return []
    out = []
    for raw in data.splitlines(keepends=True):
        fields = inbox.fields(raw)
        assert fields is not None, raw
        ts, harness, event, payload = fields
        out.append({"ts": ts, "harness": harness, "event": event, "payload": json.loads(payload)})
    return out


def session_events(kb_path: Path) -> dict[str, list[dict[str, Any]]]:
    """The sessions' event records (what capture kept as events, not notes), by session."""
    out: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((state_dir(kb_path) / "sessions").glob("*/events.jsonl")):
        out[path.parent.name] = [json.loads(x) for x in path.read_text().splitlines() if x]
    return out


def event_kinds(kb_path: Path) -> list[str]:
    """The kinds of every session's recorded events, session by session, oldest first."""
    return [e["kind"] for events in session_events(kb_path).values() for e in events]


def notes(kb_path: Path) -> dict[str, str]:
    """Committed notes on main, by path, read with git."""
    names = git("ls-tree", "-r", "--name-only", "main", "--", "documents", cwd=kb_path).split()
    return {n: git("show", f"main:{n}", cwd=kb_path) for n in names}


def subjects(kb_path: Path) -> list[str]:
    return git("log", "--format=%s", "main", cwd=kb_path).splitlines()


def queue_entries(kb_path: Path) -> list[dict[str, Any]]:
    folder = state_dir(kb_path) / "queue"
    return [json.loads(p.read_text())["entry"] for p in sorted(folder.glob("*.json"))]


def wait_for(check: Callable[[], bool], what: str, deadline: float = 30.0) -> None:
    """Poll for a background result (a liveness bound, not a timing assertion)."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


def all_objects(kb_path: Path) -> str:
    """Every object in the KB's object store, as ``git cat-file --batch-all-objects`` prints it."""
    proc = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=kb_path,
        capture_output=True,
        check=True,
    )
    return proc.stdout.decode("utf-8", "replace")


def leaked(haystack: str, secret: str) -> bool:
    """Does ``secret`` occur in ``haystack``?

    A short all-digit secret (a PIN) also occurs by chance inside object ids, sizes and epoch
    timestamps, so it counts only as a token of its own (no hex digit on either side).
    """
    if secret.isdigit():
        return (
            re.search(rf"(?<![0-9a-fA-F]){re.escape(secret)}(?![0-9a-fA-F])", haystack) is not None
        )
    return secret in haystack


def every_state_file(kb_path: Path) -> str:
    """All text under the state directory (queue entries, logs, watchers, commits.jsonl)."""
    out = []
    for path in sorted(state_dir(kb_path).rglob("*")):
        if path.is_file():
            out.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(out)


def transcript_waits(state: Path) -> None:
    """A transcript in the queue (a name only): a session start starts the drain only when
    something waits for one (``state/backlog.py``)."""
    (state / "queue").mkdir(parents=True, exist_ok=True)
    (state / "queue" / "0123456789abcdef.json").write_text("{}")
