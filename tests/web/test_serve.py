"""`reflect-git serve` through Starlette's test client: the guard, the pages, the actions.

Real KBs in tmp_path, real commits checked with real git; review against a real git daemon and
the loopback forge; Ctrl-C on a real server subprocess.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from reflectgit.config import Config
from reflectgit.state import ledger
from reflectgit.state.queue import open_queue
from reflectgit.web.app import Settings, create_app
from reflectgit.web.security import COOKIE, Guard
from tests.conftest import DATA, git, needs_shared
from tests.support.forge_server import make_forge
from tests.support.kb import assert_clean, head, kb, subject, trailers
from tests.support.remote import git_daemon
from tests.support.routing import kb_factory, note_bytes, team_on_forge

__all__ = ["git_daemon", "kb", "kb_factory", "make_forge"]

PORT = 8484
TOKEN_VALUE = "test-token-abc"
BASE = f"http://127.0.0.1:{PORT}"


def _client(kb: Path, read_only: bool = False, login: bool = True) -> tuple[TestClient, Guard]:
    guard = Guard.for_server(TOKEN_VALUE, "127.0.0.1", PORT)
    cfg = Config.resolve(kb, dict(os.environ))
    client = TestClient(create_app(Settings(cfg, guard, read_only)), base_url=BASE)
    if login:
        client.cookies.set(COOKIE, TOKEN_VALUE)
    return client, guard


def _add(cli: Any, kb: Path, title: str, tier: str = "high", **kw: Any) -> str:
    path = kb.parent / f"{abs(hash(title))}.md"
    path.write_bytes(note_bytes(title, tier, **kw))
    res = cli("--kb", str(kb), "--json", "add", str(path))
    assert res.code == 0, res
    return str(res.json()["id"])


@pytest.fixture
def notes_kb(kb: Path, cli: Any) -> Path:
    git("commit", "-q", "--allow-empty", "-m", "start", cwd=kb)
    _add(cli, kb, "Pool timeout on cold start", "high", tags=["postgres", "pooling"])
    _add(cli, kb, "Retry uploads with backoff", "medium", tags=["s3"])
    _add(cli, kb, "Flaky clock in CI", "low", tags=["ci"])
    return kb


# --------------------------------------------------------------------------- the guard


def test_the_token_in_the_url_becomes_a_cookie_and_leaves_the_url(notes_kb: Path) -> None:
    client, _ = _client(notes_kb, login=False)
    first = client.get("/notes?q=pool&token=" + TOKEN_VALUE, follow_redirects=False)
    assert first.status_code == 303
    assert first.headers["location"] == "/notes?q=pool"  # the token is not left in the history
    cookie = first.headers["set-cookie"]
    assert f"{COOKIE}={TOKEN_VALUE}" in cookie
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
    page = client.get("/notes?q=pool")  # the cookie alone now
    assert page.status_code == 200 and "Pool timeout on cold start" in page.text


@pytest.mark.parametrize(
    ("how", "value"),
    [("none", None), ("query", "wrong"), ("cookie", "wrong"), ("header", "wrong")],
)
def test_a_wrong_or_missing_token_is_refused(notes_kb: Path, how: str, value: str | None) -> None:
    client, _ = _client(notes_kb, login=False)
    url, headers = "/notes", {}
    if how == "query":
        url += f"?token={value}"
    elif how == "cookie":
        client.cookies.set(COOKIE, value or "")
    elif how == "header":
        headers["Authorization"] = f"token {value}"
    page = client.get(url, headers=headers, follow_redirects=False)
    assert page.status_code == 403
    assert "wrong or missing token" in page.text and "Pool timeout" not in page.text
    api = client.get("/api/notes", headers=headers)
    assert api.status_code == 403 and api.json()["error"] == "wrong or missing token"
    # the right one in a header works for scripts
    ok = client.get("/api/notes", headers={"Authorization": f"token {TOKEN_VALUE}"})
    assert ok.status_code == 200 and ok.json()["total"] == 3


@pytest.mark.parametrize(
    "host", ["evil.example:8484", "127.0.0.1:9999", "localhost", "127.0.0.1.nip.io:8484"]
)
def test_a_foreign_host_header_is_refused_even_with_the_token(notes_kb: Path, host: str) -> None:
    client, _ = _client(notes_kb)
    res = client.get("/notes", headers={"Host": host})
    assert res.status_code == 421 and "Pool timeout" not in res.text
    for good in ("127.0.0.1:8484", "localhost:8484", "LOCALHOST:8484"):
        assert client.get("/notes", headers={"Host": good}).status_code == 200


def test_a_post_without_the_csrf_token_changes_nothing(notes_kb: Path, cli: Any) -> None:
    client, guard = _client(notes_kb)
    ident = "lrn-pool-timeout-on-cold-start"
    before = head(notes_kb)
    for form, headers in (
        ({}, {}),
        ({"csrf": "0" * 40}, {}),
        ({"csrf": guard.csrf}, {"Origin": "http://evil.example"}),
    ):
        res = client.post(f"/notes/{ident}/archive", data=form, headers=headers)
        assert res.status_code == 403, res.text
    assert client.get("/api/csrf").json()["csrf"] == guard.csrf  # what a script sends
    assert _client(notes_kb, login=False)[0].get("/api/csrf").status_code == 403
    api = client.post(f"/api/notes/{ident}/archive", headers={"X-CSRF-Token": "nope"})
    assert api.status_code == 403 and api.json()["error"] == "missing or wrong CSRF token"
    assert head(notes_kb) == before
    # with it (and our own Origin) the same request goes through
    ok = client.post(
        f"/notes/{ident}/archive",
        data={"csrf": guard.csrf},
        headers={"Origin": BASE},
        follow_redirects=False,
    )
    assert ok.status_code == 303 and head(notes_kb) != before


def test_read_only_hides_every_action_and_refuses_posts(notes_kb: Path) -> None:
    client, guard = _client(notes_kb, read_only=True)
    ident = "lrn-pool-timeout-on-cold-start"
    for url in (f"/notes/{ident}", "/notes", "/drain", "/review", "/status"):
        page = client.get(url)
        assert page.status_code == 200, url
        assert 'method="post"' not in page.text, url
    before = head(notes_kb)
    res = client.post(f"/api/notes/{ident}/archive", headers={"X-CSRF-Token": guard.csrf})
    assert res.status_code == 403 and res.json()["error"] == "this server is read-only"
    assert head(notes_kb) == before
    writable, _ = _client(notes_kb)
    assert 'method="post"' in writable.get(f"/notes/{ident}").text


def test_no_page_renders_note_text_unescaped(kb: Path, cli: Any) -> None:
    evil = "<script>alert(1)</script>"
    body = f"Body with {evil} and <img src=x onerror=alert(2)> and [a](javascript:alert(3)).\n"
    ident = _add(cli, kb, f"XSS {evil}", "high", note_id="lrn-xss", tags=["x<b>"], body=body)
    client, _ = _client(kb)
    for url in (f"/notes/{ident}", "/notes", "/notes?q=xss", f"/notes/{ident}?at=HEAD"):
        text = client.get(url).text
        assert "<script>alert" not in text and "<img src=x" not in text, url
        assert 'href="javascript:' not in text and "<b>" not in text, url
    note = client.get(f"/notes/{ident}").text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in note
    headers = client.get("/notes").headers
    assert "default-src 'none'" in headers["content-security-policy"]


# --------------------------------------------------------------------------- pages


def test_notes_page_searches_filters_sorts_and_pages(notes_kb: Path) -> None:
    client, _ = _client(notes_kb)
    page = client.get("/notes?q=pool+timeout")
    assert "Pool timeout on cold start" in page.text and "Retry uploads" not in page.text
    assert client.get("/api/notes?tier=medium").json()["notes"][0]["title"] == (
        "Retry uploads with backoff"
    )
    assert [n["title"] for n in client.get("/api/notes?tag=ci").json()["notes"]] == [
        "Flaky clock in CI"
    ]
    titles = [n["title"] for n in client.get("/api/notes?sort=-title").json()["notes"]]
    assert titles == sorted(titles, reverse=True) and len(titles) == 3
    first = client.get("/api/notes?sort=title&per_page=2").json()
    second = client.get("/api/notes?sort=title&per_page=2&page=2").json()
    assert first["pages"] == 2 and len(first["notes"]) == 2 and len(second["notes"]) == 1
    assert {n["id"] for n in first["notes"]}.isdisjoint(n["id"] for n in second["notes"])
    assert 'rel="next"' in client.get("/notes?sort=title&per_page=2").text
    # a bad filter is the workflow's error and hint, on the page and in the API
    bad = client.get("/notes?tier=huge")
    assert bad.status_code == 400 and "tier &#39;huge&#39; is not a tier" in bad.text
    assert client.get("/api/notes?tier=huge").json()["hint"] == "high, medium or low"


def test_notes_page_follows_a_commit_made_with_plain_git(notes_kb: Path) -> None:
    client, _ = _client(notes_kb)
    assert client.get("/api/notes?q=flashsale").json()["total"] == 0
    path = notes_kb / "documents" / "lrn-flaky-clock-in-ci.md"
    path.write_text(path.read_text() + "\nSeen in the flashsale.\n")
    git("commit", "-qam", "edit by hand", cwd=notes_kb)
    assert client.get("/api/notes?q=flashsale").json()["total"] == 1


@needs_shared
def test_note_page_shows_fields_sidecar_history_and_old_revisions(kb: Path, cli: Any) -> None:
    compat = DATA / "compat"
    name = "gr-01-redis-pool-exhaustion"
    res = cli(
        "--kb",
        str(kb),
        "--json",
        "add",
        str(compat / f"{name}.md"),
        "--entities",
        str(compat / f"{name}.entities.yaml"),
    )
    assert res.code == 0, res
    ident = res.json()["id"]
    first = head(kb)
    assert cli("--kb", str(kb), "confirm", ident, "--source", "pr-42").code == 0
    client, _ = _client(kb)
    page = client.get(f"/notes/{ident}").text
    assert "Redis connection pool exhaustion under burst load" in page
    assert "<h2>" in page and 'id="frontmatter"' in page and "<th>confidence</th>" in page
    sidecar = (compat / f"{name}.entities.yaml").read_text()
    entity = re.search(r"name: (\S+)", sidecar)
    assert entity and entity.group(1).strip("'\"") in page
    assert 'id="relationships"' in page and "pr-42" in page  # the source of the proof
    doc = client.get(f"/api/notes/{ident}").json()
    assert doc["note"]["proof_count"] == 2 and doc["note"]["sources"][-1] == "pr-42"
    revs = doc["history"]
    assert [r["commit"] for r in revs] == [head(kb), first]
    assert ("Reflect-Op", "confirm") in [tuple(t) for t in revs[0]["trailers"]]
    assert trailers(kb, "Reflect-Op") == ["confirm"]
    assert "+  - pr-42" in revs[0]["diff"] or "pr-42" in revs[0]["diff"]
    assert revs[1]["diff"].startswith("--- /dev/null")
    old = client.get(f"/api/notes/{ident}?at={first}").json()
    assert old["note"]["proof_count"] == 1 and old["note"]["revision"] == first
    assert "as it was at" in client.get(f"/notes/{ident}?at={first}").text
    missing = client.get("/notes/lrn-nope")
    assert missing.status_code == 404 and "no note with id" in missing.text


def test_status_page_shows_what_status_shows(notes_kb: Path, cli: Any) -> None:
    client, _ = _client(notes_kb)
    cli_doc = cli("--kb", str(notes_kb), "--json", "status").json()
    api = client.get("/api/status").json()["status"]
    for key in ("notes", "tiers", "index", "hooks", "head", "branch", "queue_depth"):
        assert api[key] == cli_doc[key], key
    page = client.get("/status").text
    assert "3 live" in page and "search index" in page and cli_doc["index"] in page


# --------------------------------------------------------------------------- actions


def test_archive_and_restore_make_the_cli_commits(notes_kb: Path, cli: Any) -> None:
    client, guard = _client(notes_kb)
    ident = "lrn-retry-uploads-with-backoff"
    res = client.post(f"/notes/{ident}/archive", data={"csrf": guard.csrf}, follow_redirects=True)
    assert res.status_code == 200 and f"archived {ident}" in res.text
    assert subject(notes_kb) == f"chore(knowledge): archive {ident}"
    assert (notes_kb / "archived" / f"{ident}.md").exists()
    assert 'id="do-restore"' in res.text  # the page now offers the way back
    assert_clean(notes_kb)
    again = client.post(f"/notes/{ident}/archive", data={"csrf": guard.csrf})
    cli_again = cli("--kb", str(notes_kb), "archive", ident)
    message = re.search(r"error: (.*)", cli_again.err)
    hint = re.search(r"hint: (.*)", cli_again.err)
    assert message and hint
    from markupsafe import escape

    assert escape(message.group(1)) in again.text and escape(hint.group(1)) in again.text
    res = client.post(f"/api/notes/{ident}/restore", headers={"X-CSRF-Token": guard.csrf})
    assert res.status_code == 200 and res.json()["result"]["commit"] == head(notes_kb)
    assert subject(notes_kb) == f"chore(knowledge): restore {ident}"
    assert (notes_kb / "documents" / f"{ident}.md").exists()
    assert_clean(notes_kb)


def test_confirm_forget_supersede_and_their_refusals(notes_kb: Path) -> None:
    client, guard = _client(notes_kb)
    h = {"X-CSRF-Token": guard.csrf}
    old, new = "lrn-flaky-clock-in-ci", "lrn-pool-timeout-on-cold-start"
    res = client.post(f"/api/notes/{new}/confirm", headers=h, json={"source": "ticket-7"})
    assert res.status_code == 200 and res.json()["result"]["proof_count"] == 2
    before = head(notes_kb)
    empty = client.post(f"/api/notes/{new}/confirm", headers=h, json={"source": " "})
    assert empty.status_code == 400 and empty.json()["error"] == "a source is required"
    unknown = client.post(f"/api/notes/{old}/supersede", headers=h, json={"by": "lrn-nope"})
    assert unknown.status_code == 404 and "lrn-nope" in unknown.json()["error"]
    assert head(notes_kb) == before  # nothing half-done
    res = client.post(f"/api/notes/{old}/supersede", headers=h, json={"by": new})
    assert res.status_code == 200, res.text
    assert trailers(notes_kb, "Reflect-Op") == ["supersede"]
    res = client.post(
        f"/notes/{new}/forget",
        data={"csrf": guard.csrf, "reason": "obsolete"},
        follow_redirects=False,
    )
    assert res.status_code == 303 and res.headers["location"].startswith("/notes?done=")
    assert (notes_kb / ".forgotten" / f"{new}.md").exists()
    assert trailers(notes_kb, "Reflect-Op") == ["forget"]
    assert_clean(notes_kb)


def test_drain_page_retries_and_purges_dead_letters_and_charts_the_ledger(
    notes_kb: Path,
) -> None:
    cfg = Config.resolve(notes_kb, dict(os.environ))
    queue = open_queue(cfg)
    paths = []
    for name in ("a", "b"):
        path = notes_kb.parent / f"{name}.jsonl"
        path.write_text("{}\n")
        entry, _ = queue.add(str(path), "stop", name)
        queue.dead_letter(entry.id, "poison", "the writer crashed")
        paths.append(entry.id)
    for day, outcome, writer in (
        ("2026-11-29T10:00:00Z", "ok", "extract"),
        ("2026-11-29T11:00:00Z", "ok", "extract"),
        ("2026-11-30T10:00:00Z", "skip_no_signal", "heuristic"),
    ):
        ledger.append_row(
            cfg.state_dir,
            {"ts": day, "outcome": outcome, "writer": writer, "entries": 1, "cost_usd": 0.01},
        )
    client, guard = _client(notes_kb)
    page = client.get("/drain?since=all").text
    assert page.count("the writer crashed") == 2
    doc = client.get("/api/drain?since=all").json()
    by_day = {g["key"]: g["runs"] for g in doc["charts"]["day"]["groups"]}
    assert by_day == {"2026-11-29": 2, "2026-11-30": 1}
    by_outcome = {g["key"]: g["runs"] for g in doc["charts"]["outcome"]["groups"]}
    assert by_outcome == {"ok": 2, "skip_no_signal": 1}
    assert {g["key"] for g in doc["charts"]["writer"]["groups"]} == {
        "extract:-",
        "heuristic:-",
    }
    assert 'class="bar" style="width:200px"' in page  # the busiest day is the longest bar
    res = client.post("/drain/retry", data={"csrf": guard.csrf, "entry": paths[0]})
    assert res.status_code == 200 and f"requeued {paths[0]}" in res.text
    res = client.post(
        "/api/drain/purge", headers={"X-CSRF-Token": guard.csrf}, json={"entry": paths[1]}
    )
    assert res.json()["result"]["purged"] == "dead_letter"
    queue = open_queue(cfg)
    assert [e.id for e in queue.list()] == [paths[0]] and queue.failed() == []
    res = client.post(
        "/api/drain/purge", headers={"X-CSRF-Token": guard.csrf}, json={"entry": "zz"}
    )
    assert res.status_code in (400, 404) and res.json()["error"]


def _review_setup(git_daemon: Any, kb_factory: Any, make_forge: Any, monkeypatch: Any) -> Any:
    from reflectgit.workflows import routing

    team, forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch)
    one = routing.route(
        kb.config(), kb.add("Pool timeout at cold start", "medium", tags=["postgres", "pooling"])
    )
    two = routing.route(kb.config(), kb.add("Use WAL mode", "medium"))
    return team, forge, kb, one, two


def test_review_page_approves_and_rejects_against_a_real_remote(
    git_daemon: Any, kb_factory: Any, make_forge: Any, monkeypatch: Any
) -> None:
    team, forge, kb, one, two = _review_setup(git_daemon, kb_factory, make_forge, monkeypatch)
    client, guard = _client(kb.path)
    page = client.get("/review").text
    assert one.branch in page and two.branch in page
    assert one.pr_url in page and "near-duplicates on main" in page
    assert "+title: Pool timeout at cold start" in page  # the diff against main
    res = client.post(
        "/review/approve", data={"csrf": guard.csrf, "branch": two.branch}, follow_redirects=True
    )
    assert f"approved {two.branch}" in res.text
    assert team.heads()["main"] == two.commit and two.branch not in team.heads()
    refused = client.post(
        "/api/review/reject",
        headers={"X-CSRF-Token": guard.csrf},
        json={"branch": one.branch, "reason": ""},
    )
    assert refused.status_code == 400 and refused.json()["error"] == "a rejection needs a reason"
    assert one.branch in team.heads()
    res = client.post(
        "/api/review/reject",
        headers={"X-CSRF-Token": guard.csrf},
        json={"branch": one.branch, "reason": "a duplicate of lrn-pool-timeout"},
    )
    assert res.status_code == 200 and res.json()["result"]["deleted"]
    assert one.branch not in team.heads()
    pr = forge.prs["acme/team"][0]
    assert forge.state_of("acme/team", pr) == "closed"
    gone = client.post(
        "/api/review/approve", headers={"X-CSRF-Token": guard.csrf}, json={"branch": one.branch}
    )
    assert gone.status_code == 404 and gone.json()["hint"]


def test_review_page_lists_what_a_teammate_added_and_approve_refuses_it(
    git_daemon: Any, kb_factory: Any, make_forge: Any, monkeypatch: Any, tmp_path: Path
) -> None:
    from tests.support.routing import teammate_pushes

    team, _forge, kb, _one, two = _review_setup(git_daemon, kb_factory, make_forge, monkeypatch)
    workflow = "on: [push]\njobs: {x: {runs-on: ubuntu-latest, steps: [{run: make}]}}\n"
    tip = teammate_pushes(team, two.branch, {".github/workflows/ci.yml": workflow}, tmp_path)
    heads = team.heads()
    client, guard = _client(kb.path)
    page = client.get("/review").text
    assert "<code>.github/workflows/ci.yml</code>: adds a CI file" in page
    assert "approve refuses these changes" in page and "approve, accepting the 1 listed" in page
    refused = client.post(
        "/api/review/approve",
        headers={"X-CSRF-Token": guard.csrf},
        json={"branch": two.branch, "tip": tip},
    )
    assert refused.status_code == 400, refused.text
    assert ".github/workflows/ci.yml: adds a CI file" in refused.json()["error"]
    assert team.heads() == heads
    stale = client.post(
        "/api/review/approve",
        headers={"X-CSRF-Token": guard.csrf},
        json={"branch": two.branch, "tip": two.commit, "accept": ".github/workflows/ci.yml"},
    )
    assert stale.status_code != 200 and "moved since it was reviewed" in stale.json()["error"]
    res = client.post(
        "/review/approve",
        data={"csrf": guard.csrf, "branch": two.branch, "tip": tip,
              "accept": ".github/workflows/ci.yml"},
        follow_redirects=True,
    )  # fmt: skip
    assert f"approved {two.branch}" in res.text
    assert team.heads()["main"] == tip


def test_review_page_without_a_team_says_how_to_set_one(notes_kb: Path) -> None:
    client, _ = _client(notes_kb)
    page = client.get("/review")
    assert page.status_code == 200 and "error: no team KB is configured" in page.text


# --------------------------------------------------------------------------- the command


def _start(kb: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "reflectgit", "--kb", str(kb), "serve", "--port", "0", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("open http"):
            return proc, line.split(" ", 1)[1].strip()
    proc.kill()
    raise AssertionError(proc.stderr.read() if proc.stderr else "no URL printed")


def test_serve_prints_a_url_with_the_token_and_stops_cleanly_on_ctrl_c(notes_kb: Path) -> None:
    proc, url = _start(notes_kb, "--read-only")
    try:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{40,}", url)
        port = url.split(":")[2].split("/")[0]
        api = f"http://127.0.0.1:{port}/api/status"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(api, timeout=10)
        assert refused.value.code == 403
        token = url.split("token=")[1]
        req = urllib.request.Request(api, headers={"Authorization": f"token {token}"})
        with urllib.request.urlopen(req, timeout=10) as res:
            assert json.load(res)["status"]["notes"]["live"] == 3
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "stopped" in out and "Traceback" not in err


def test_serve_on_a_taken_port_is_a_clear_error(notes_kb: Path, cli: Any) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        port = sock.getsockname()[1]
        res = cli("--kb", str(notes_kb), "serve", "--port", str(port))
    assert res.code == 1 and f"cannot listen on 127.0.0.1:{port}" in res.err
    assert "hint: pick another port" in res.err


def test_serve_without_a_kb_is_a_clear_error(tmp_path: Path, cli: Any) -> None:
    res = cli("--kb", str(tmp_path / "nothing"), "serve")
    assert res.code == 1 and "no knowledge base" in res.err


def test_only_the_serve_command_imports_the_web_framework(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom reflectgit.cli.app import run\n"
        f"run(['--kb', {str(tmp_path)!r}, 'list'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'starlette', 'uvicorn', 'jinja2', 'markdown_it', 'reflectgit.web'} "
        "or m.startswith('reflectgit.web')))\n"
    )
    out = (
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
        )
        .stdout.strip()
        .splitlines()
    )
    assert out[-1] == "[]"


def test_history_follows_moves_and_plain_git_edits_and_skips_other_notes(
    notes_kb: Path, cli: Any
) -> None:
    from reflectgit.workflows.kb import KnowledgeBase

    ident, other = "lrn-flaky-clock-in-ci", "lrn-retry-uploads-with-backoff"
    assert cli("--kb", str(notes_kb), "archive", ident).code == 0
    assert cli("--kb", str(notes_kb), "restore", ident).code == 0
    assert cli("--kb", str(notes_kb), "confirm", other, "--source", "s-1").code == 0
    path = notes_kb / "documents" / f"{ident}.md"
    path.write_text(path.read_text() + "\nEdited by hand.\n")
    git("commit", "-qam", "hand edit", cwd=notes_kb)
    (notes_kb / "documents" / f"{other}.md").write_text(
        (notes_kb / "documents" / f"{other}.md").read_text() + "\nAlso by hand.\n"
    )
    git("commit", "-qam", "hand edit of the other note", cwd=notes_kb)
    with KnowledgeBase.open(notes_kb) as base:
        revs = base.history(ident)
        others = base.history(other)
    assert [r.subject for r in revs] == [
        "hand edit",
        f"chore(knowledge): restore {ident}",
        f"chore(knowledge): archive {ident}",
        revs[-1].subject,
    ]
    assert revs[-1].subject.startswith("docs(knowledge): Flaky clock in CI")
    assert revs[0].diff.splitlines()[-1] == "+Edited by hand."
    assert revs[1].diff == f"rename archived/{ident}.md -> documents/{ident}.md\n"
    assert revs[1].path == f"documents/{ident}.md" and revs[2].path == f"archived/{ident}.md"
    assert ("Reflect-Id", ident) in revs[2].trailers
    assert [r.subject for r in others][:2] == [
        "hand edit of the other note",
        f"chore(knowledge): confirm {other}",
    ]
    assert len(others) == 3


def test_the_api_writes_and_edits_a_note_and_reads_the_activity(notes_kb: Path) -> None:
    client, guard = _client(notes_kb)
    fields = {"title": "Quote paths", "insight": "Unquoted paths break on spaces."}
    refused = client.post("/api/notes/new", json=fields)  # no CSRF token
    assert refused.status_code == 403
    missing = client.post("/api/notes/new", headers={"X-CSRF-Token": guard.csrf}, json=fields)
    assert missing.status_code == 400 and missing.json()["error"] == "a category is required"
    added = client.post(
        "/api/notes/new",
        headers={"X-CSRF-Token": guard.csrf},
        json=fields | {"category": "shell", "confidence": "low", "tags": "shell, bash"},
    )
    assert added.status_code == 200, added.text
    ident = added.json()["result"]["id"]
    assert added.json()["result"]["commit"] == head(notes_kb)
    assert trailers(notes_kb, "Reflect-Source") == ["web"]
    edited = client.post(
        f"/api/notes/{ident}/edit",
        headers={"X-CSRF-Token": guard.csrf},
        json=fields
        | {"insight": "Quote every expansion.", "body": "Unquoted paths break on spaces.\n"},
    )
    assert edited.status_code == 200, edited.text
    text = git("show", f"HEAD:documents/{ident}.md", cwd=notes_kb)
    assert "key_insight: Quote every expansion.\n" in text  # the other fields stay as they were
    assert text.endswith("---\nQuote every expansion.\n") and "tags:\n- shell\n- bash\n" in text
    assert "category: shell\n" in text and "confidence: low\n" in text
    activity = client.get("/api/activity").json()
    assert [e["op"] for e in activity["entries"][:2]] == ["update", "add"]
    assert activity["entries"][0]["ids"] == [ident] and activity["entries"][0]["source"] == "web"
    assert_clean(notes_kb)


def _peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_a_huge_post_is_refused_with_413_and_never_buffered(notes_kb: Path) -> None:
    """An authenticated POST of 600 MB (declared), or of 64 MiB sent chunked with no length,
    is answered 413 once it passes the limit; the server's memory does not grow with it."""
    import http.client

    proc, url = _start(notes_kb)
    try:
        port = int(url.split(":")[2].split("/")[0])
        token = url.split("token=")[1]
        ident = "lrn-pool-timeout-on-cold-start"
        path = f"/api/notes/{ident}/archive"
        headers = {"Authorization": f"token {token}", "Host": f"127.0.0.1:{port}"}
        before = _peak_rss_kib(proc.pid)

        declared = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        declared.putrequest("POST", path, skip_host=True)
        for name, value in {**headers, "Content-Length": str(600 * 1024 * 1024)}.items():
            declared.putheader(name, value)
        declared.endheaders()
        declared.send(b"x" * 1024 * 1024)
        res = declared.getresponse()
        assert res.status == 413, res.read()
        assert "larger than" in json.loads(res.read())["error"]
        declared.close()

        chunked = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        chunked.putrequest("POST", path, skip_host=True)
        for name, value in {**headers, "Transfer-Encoding": "chunked"}.items():
            chunked.putheader(name, value)
        chunked.endheaders()
        chunk = b"x" * 1024 * 1024
        try:
            for _ in range(64):
                chunked.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            chunked.send(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed: it stopped reading
        res = chunked.getresponse()
        assert res.status == 413, res.read()
        chunked.close()
        grown = _peak_rss_kib(proc.pid) - before
        assert grown < 32 * 1024, f"the server's peak memory grew {grown} KiB"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=20)
    assert git("log", "-1", "--format=%s", cwd=notes_kb).strip() != ""
    assert (notes_kb / "documents" / f"{ident}.md").exists()  # nothing was archived
