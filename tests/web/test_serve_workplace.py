"""The web UI as a place to work, in Debian's headless Chromium (Selenium), against a real
``reflect-git serve`` subprocess and a real KB: write a note, edit one, read the KB's activity,
promote and drop review-queue rows, refuse bad query values with 400, and fit a 420 px screen.
Every change is checked in git (the commit, its trailers, the file), not on the page alone."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git
from tests.support.kb import assert_clean, head, kb, subject, trailers
from tests.web.test_serve_browser import (
    Server,
    _navigate,
    _serve,
    _shot,
    _text,
    browser,
    notes_kb,
    pytestmark,
    shots,
)

__all__ = ["browser", "kb", "notes_kb", "pytestmark", "shots"]

NARROW = 420


@pytest.fixture
def server(notes_kb: Path) -> Iterator[Server]:
    yield from _serve(notes_kb)


def _fill(driver: Any, field: str, value: str) -> None:
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.ID, field)
    box.clear()
    box.send_keys(value)


def _body(kb: Path, path: str) -> str:
    return git("show", f"HEAD:{path}", cwd=kb).split("---\n", 2)[2]


def test_write_a_new_note_from_the_form(
    browser: Any, server: Server, notes_kb: Path, shots: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(server.url)
    _navigate(browser, browser.find_element(By.ID, "new-note"))
    assert browser.current_url == server.base + "/notes/new"
    _fill(browser, "f-title", "Quote paths in shell hooks")
    _fill(browser, "f-insight", "Unquoted paths break on spaces; quote every expansion.")
    _fill(browser, "f-category", "tooling")
    Select(browser.find_element(By.ID, "f-confidence")).select_by_visible_text("medium")
    _fill(browser, "f-tags", "shell, hooks")
    _shot(browser, shots, "new-note")
    before = head(notes_kb)
    _navigate(browser, browser.find_element(By.ID, "save"))
    done = browser.find_element(By.ID, "done").text
    assert done.startswith("added quote-paths-in-shell-hooks-")
    ident = done.removeprefix("added ")
    assert browser.find_element(By.ID, "title").text == "Quote paths in shell hooks"
    # One commit, through the door `reflect-git add` uses, marked as the web UI's.
    assert git("rev-parse", "HEAD~1", cwd=notes_kb).strip() == before
    assert subject(notes_kb) == "docs(knowledge): Quote paths in shell hooks [MED]"
    assert trailers(notes_kb, "Reflect-Op") == ["add"]
    assert trailers(notes_kb, "Reflect-Source") == ["web"]
    note = git("show", f"HEAD:documents/{ident}.md", cwd=notes_kb)
    assert "tags:\n- shell\n- hooks\n" in note
    assert _body(notes_kb, f"documents/{ident}.md") == (
        "Unquoted paths break on spaces; quote every expansion.\n"
    )
    assert_clean(notes_kb)

    # Refused by the server (the browser's own `required` check taken away): the form comes
    # back with what was typed and the error; nothing is committed.
    browser.get(server.base + "/notes/new")
    browser.execute_script(
        "document.querySelectorAll('[required]').forEach(e => e.required = false)"
    )
    _fill(browser, "f-title", "A note without a category")
    _fill(browser, "f-insight", "It should not be committed.")
    at = head(notes_kb)
    _navigate(browser, browser.find_element(By.ID, "save"))
    assert "error: a category is required" in _text(browser)
    assert browser.find_element(By.ID, "f-title").get_attribute("value") == (
        "A note without a category"
    )
    assert head(notes_kb) == at


def test_edit_a_note_keeps_the_body_in_step(browser: Any, server: Server, notes_kb: Path) -> None:
    from selenium.webdriver.common.by import By

    ident = "lrn-retry-uploads-with-backoff"
    path = f"documents/{ident}.md"
    # The body states the insight as a paragraph of its own, between a person's words.
    browser.get(server.url)
    browser.get(server.base + f"/notes/{ident}")
    _navigate(browser, browser.find_element(By.ID, "edit"))
    assert browser.find_element(By.ID, "f-insight").get_attribute("value") == (
        "Insight about Retry uploads with backoff."
    )
    _fill(browser, "f-body", "Seen twice.\n\nInsight about Retry uploads with backoff.\n\nEnd.")
    _navigate(browser, browser.find_element(By.ID, "save"))
    assert browser.find_element(By.ID, "done").text == f"updated {ident}"
    assert (
        _body(notes_kb, path)
        == "Seen twice.\n\nInsight about Retry uploads with backoff.\n\nEnd.\n"
    )

    _navigate(browser, browser.find_element(By.ID, "edit"))
    _fill(browser, "f-insight", "Retry uploads with jittered backoff, at most five times.")
    _fill(browser, "f-title", "Retry uploads with jittered backoff")
    _navigate(browser, browser.find_element(By.ID, "save"))
    assert browser.find_element(By.ID, "title").text == "Retry uploads with jittered backoff"
    # the body shown was sent back unchanged: the insight's paragraph follows, the rest stays
    assert _body(notes_kb, path) == (
        "Seen twice.\n\nRetry uploads with jittered backoff, at most five times.\n\nEnd.\n"
    )
    note = git("show", f"HEAD:{path}", cwd=notes_kb)
    assert "key_insight: Retry uploads with jittered backoff, at most five times.\n" in note
    assert trailers(notes_kb, "Reflect-Op") == ["update"]
    assert trailers(notes_kb, "Reflect-Source") == ["web"]
    assert_clean(notes_kb)

    # A forged CSRF token changes nothing.
    _navigate(browser, browser.find_element(By.ID, "edit"))
    browser.execute_script("document.querySelector('input[name=csrf]').value = 'forged'")
    _fill(browser, "f-title", "Forged")
    before = head(notes_kb)
    _navigate(browser, browser.find_element(By.ID, "save"))
    assert "error: missing or wrong CSRF token" in _text(browser)
    assert head(notes_kb) == before


def test_the_activity_page_reads_the_kbs_history(
    browser: Any, server: Server, notes_kb: Path, cli: Any, shots: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    assert cli("--kb", str(notes_kb), "archive", "lrn-flaky-clock-in-ci").code == 0
    (notes_kb / "README.md").write_text("Our team's learnings.\n")
    git("add", "README.md", cwd=notes_kb)
    git("commit", "-qm", "Say what this repository is", cwd=notes_kb)
    browser.get(server.url)
    _navigate(browser, browser.find_element(By.LINK_TEXT, "activity"))
    rows = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#activity tbody tr")]
    assert "git" in rows[0] and "Say what this repository is" in rows[0]  # plain git, too
    assert "archive" in rows[1] and "lrn-flaky-clock-in-ci" in rows[1] and "cli" in rows[1]
    assert sum("add" in r.split() for r in rows) == 4  # the four notes the fixture added
    _shot(browser, shots, "activity")
    Select(browser.find_element(By.NAME, "op")).select_by_visible_text("archive")
    _navigate(browser, browser.find_element(By.NAME, "op"), submit=True)
    rows = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#activity tbody tr")]
    assert len(rows) == 1 and "lrn-flaky-clock-in-ci" in rows[0]
    _navigate(browser, browser.find_element(By.LINK_TEXT, "lrn-flaky-clock-in-ci"))
    assert browser.find_element(By.ID, "state").text == "archived"


def test_promote_and_drop_review_queue_rows(
    browser: Any, notes_kb: Path, cli: Any, shots: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    low = []
    for title in ("Maybe the cache key misses the locale", "Maybe DNS flaps at night"):
        res = cli(
            "--kb", str(notes_kb), "--json", "add", "--title", title, "--insight", title + ".",
            "--category", "caching", "--confidence", "low",
        )  # fmt: skip
        assert res.code == 0, res
        low.append(res.json()["id"])
        assert cli("--kb", str(notes_kb), "route", low[-1]).code == 0
    queued = sorted(p.name for p in (notes_kb / "review-queue").glob("*.yaml"))
    assert len(queued) == 2
    for server in _serve(notes_kb):
        browser.get(server.url)
        browser.get(server.base + "/review")
        _shot(browser, shots, "review-queue")
        rows = browser.find_elements(By.CSS_SELECTOR, "#review-queue tr")[1:]
        first = next(i for i, r in enumerate(rows, 1) if "cache key" in r.text)
        Select(rows[first - 1].find_element(By.NAME, "to")).select_by_visible_text("high")
        _navigate(browser, browser.find_element(By.ID, f"do-promote-{first}"))
        assert browser.find_element(By.ID, "done").text == f"promoted {low[0]} to high"
        note = git("show", f"HEAD:documents/{low[0]}.md", cwd=notes_kb)
        assert "\nconfidence: high\n" in note
        assert trailers(notes_kb, "Reflect-Op") == ["review-queue"]
        assert trailers(notes_kb, "Reflect-Source") == ["web"]
        rows = browser.find_elements(By.CSS_SELECTOR, "#review-queue tr")[1:]
        assert len(rows) == 1 and "DNS" in rows[0].text
        _navigate(browser, browser.find_element(By.ID, "do-drop-1"))
        assert browser.find_element(By.ID, "done").text.startswith("dropped review-queue/")
        assert "the review queue is empty" in _text(browser)
    assert not list((notes_kb / "review-queue").glob("*.yaml"))
    # dropped from the queue, the note itself stays as it was
    assert "\nconfidence: low\n" in git("show", f"HEAD:documents/{low[1]}.md", cwd=notes_kb)
    assert_clean(notes_kb)


def _status(server: Server, path: str) -> tuple[int, str]:
    token = server.url.split("token=", 1)[1]
    request = urllib.request.Request(
        server.base + path, headers={"Authorization": f"Bearer {token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.mark.parametrize(
    "path",
    [
        "/api/drain?since=99999999999d",
        "/drain?since=99999999999d",
        "/api/drain?since=yesterday-ish",
        "/api/notes?page=99999999999999999999999999",
        "/notes?page=abc",
        "/api/notes?per_page=-3",
        "/api/notes?sort=sideways",
        "/api/notes?tier=urgent",
        "/api/activity?page=0",
        "/activity?page=99999999999999999999999999",
    ],
)
def test_bad_query_values_are_answered_400(browser: Any, server: Server, path: str) -> None:
    code, text = _status(server, path)
    assert code == 400, text
    if path.startswith("/api/"):
        doc = json.loads(text)
        assert doc["error"] and doc["hint"]
    browser.get(server.url)
    browser.get(server.base + path)
    assert "error" in _text(browser) and "Internal Server Error" not in _text(browser)


def test_every_page_fits_420_px(browser: Any, server: Server, notes_kb: Path, shots: Path) -> None:
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": NARROW, "height": 900, "deviceScaleFactor": 1, "mobile": False},
    )
    from selenium.webdriver.common.by import By

    browser.get(server.url)
    link = browser.find_element(By.PARTIAL_LINK_TEXT, "Redis connection pool exhaustion")
    redis = str(link.get_attribute("href")).removeprefix(server.base)  # entities, a long body
    pages = {
        "narrow-notes": "/notes",
        "narrow-note": redis,
        "narrow-new": "/notes/new",
        "narrow-edit": "/notes/lrn-retry-uploads-with-backoff/edit",
        "narrow-review": "/review",
        "narrow-drain": "/drain",
        "narrow-status": "/status",
        "narrow-activity": "/activity",
    }
    for name, path in pages.items():
        browser.get(server.base + path)
        assert not browser.find_elements(By.ID, "failure"), path
        assert browser.execute_script("return window.innerWidth") == NARROW
        width = browser.execute_script("return document.scrollingElement.scrollWidth")
        assert width <= NARROW, f"{path} is {width} px wide at {NARROW} px"
        _shot(browser, shots, name)
