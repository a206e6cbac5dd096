"""The sessions pages of `reflect-git serve`: a session's events (what capture kept as events,
not notes) and the note a test fix gave, reached from the activity page too."""

from __future__ import annotations

import os
from pathlib import Path

from starlette.testclient import TestClient

from reflectgit.config import Config
from reflectgit.web.app import Settings, create_app
from reflectgit.web.security import COOKIE, Guard
from reflectgit.workflows.capture.commits import Capture
from reflectgit.workflows.capture.events import AgentEvents
from tests.support.capture import kb_fixture  # noqa: F401  (the kb fixture)

SID = "9c1d-web-session"
CWD = "/home/dev/src/billing"
TOKEN_VALUE = "test-token-sessions"


def _client(kb: Path) -> TestClient:
    guard = Guard.for_server(TOKEN_VALUE, "127.0.0.1", 8484)
    cfg = Config.resolve(kb, dict(os.environ))
    client = TestClient(create_app(Settings(cfg, guard)), base_url="http://127.0.0.1:8484")
    client.cookies.set(COOKIE, TOKEN_VALUE)
    return client


def _session(kb: Path) -> None:
    """A real capture: a todo finished, then pytest red, an Edit, pytest green."""
    events = AgentEvents(Capture(Config.resolve(str(kb))))
    base = {"session_id": SID, "cwd": CWD}
    todo = base | {"tool_name": "TodoWrite"}
    for status in ("in_progress", "completed"):
        item = {"content": "Fix the invoice rounding", "status": status}
        events.handle("PostToolUse", todo | {"tool_input": {"todos": [item]}})
    bash = base | {"tool_name": "Bash", "tool_input": {"command": "pytest -q"}}
    red = "E   AssertionError: assert Decimal('10.00') == Decimal('10.01')\n1 failed, 3 passed in 0.1s"
    events.handle("PostToolUseFailure", bash | {"error": red})
    edit = {"file_path": f"{CWD}/billing/invoice.py"}
    events.handle("PostToolUse", base | {"tool_name": "Edit", "tool_input": edit})
    events.handle("PostToolUse", bash | {"tool_response": {"stdout": "4 passed in 0.1s"}})


def test_a_session_page_shows_its_events_and_the_note_of_its_fix(kb: Path) -> None:
    _session(kb)
    client = _client(kb)
    listed = client.get("/sessions")
    assert listed.status_code == 200 and f"/sessions/{SID}" in listed.text
    assert "1 todo-done, 1 tests-failed, 1 tests-fixed" in listed.text
    page = client.get(f"/sessions/{SID}")
    assert page.status_code == 200
    assert "Done: Fix the invoice rounding" in page.text
    assert "<code>billing/invoice.py</code>" in page.text
    api = client.get(f"/api/sessions/{SID}").json()
    assert [e["kind"] for e in api["events"]] == ["todo-done", "tests-failed", "tests-fixed"]
    note = api["events"][-1]["note"]
    assert note.startswith("lrn-test-fix-") and f'href="/notes/{note}"' in page.text
    activity = client.get("/activity")
    assert f'href="/sessions/{SID}"' in activity.text  # the fix's commit names its session


def test_an_unknown_or_unsafe_session_is_not_found(kb: Path) -> None:
    _session(kb)
    client = _client(kb)
    for ident in ("no-such-session", "_unsessioned", "a%20b", ".hidden"):
        page = client.get(f"/sessions/{ident}")
        assert page.status_code == 404, ident
        assert "no events recorded" in page.text
    assert client.get("/api/sessions/..%2F..%2Fetc").status_code == 404


def test_no_sessions_yet(kb: Path) -> None:
    page = _client(kb).get("/sessions")
    assert page.status_code == 200 and "no session events recorded yet" in page.text
