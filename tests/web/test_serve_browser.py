"""`reflect-git serve` in a real browser: Debian's headless Chromium driven by Selenium.

A real server subprocess on a free loopback port, a fresh browser profile per test, no network
beyond loopback. `make test` installs chromium and chromium-driver when they are missing.
Each page's screenshot goes to tmp_path, or to SERVE_SCREENSHOTS (a folder) when set:
``SERVE_SCREENSHOTS=docs/serve .venv/bin/pytest tests/web/test_serve_browser.py`` refreshes
the ones docs/serve.md shows.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DATA, git
from tests.support.forge_server import make_forge
from tests.support.kb import head, kb
from tests.support.remote import git_daemon
from tests.support.routing import kb_factory
from tests.web.test_serve import _add, _review_setup

__all__ = ["git_daemon", "kb", "kb_factory", "make_forge"]

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (`make test` installs them)",
)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1200,800",
)


class Server:
    def __init__(self, kb: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "reflectgit", "--kb", str(kb), "serve", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.url = ""
        for line in self.proc.stdout:
            if line.startswith("open http"):
                self.url = line.split(" ", 1)[1].strip()
                break
        assert self.url, self.proc.stderr.read() if self.proc.stderr else ""
        self.base = self.url.split("/?", 1)[0]

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tmp_path / "chromium-profile"
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("SERVE_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _shot(driver: Any, folder: Path, name: str) -> None:
    path = folder / f"{name}.png"
    assert driver.save_screenshot(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _serve(kb: Path) -> Iterator[Server]:
    server = Server(kb)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def notes_kb(kb: Path, cli: Any) -> Path:
    git("commit", "-q", "--allow-empty", "-m", "start", cwd=kb)
    compat = DATA / "compat"
    for name in ("gr-01-redis-pool-exhaustion", "gr-02-api-gateway-timeout-cascade"):
        res = cli(
            "--kb",
            str(kb),
            "add",
            str(compat / f"{name}.md"),
            "--entities",
            str(compat / f"{name}.entities.yaml"),
        )
        assert res.code == 0, res
    _add(cli, kb, "Retry uploads with backoff", "medium", tags=["s3"])
    _add(cli, kb, "Flaky clock in CI", "low", tags=["ci"])
    return kb


@pytest.fixture
def server(notes_kb: Path) -> Iterator[Server]:
    yield from _serve(notes_kb)


def _navigate(driver: Any, element: Any, submit: bool = False) -> None:
    """Click (or submit) ``element`` and wait until the page it leads to has replaced this one,
    so what the test reads next is the new page, never the old one going stale."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    old = driver.find_element(By.TAG_NAME, "html")
    element.submit() if submit else element.click()

    def replaced(_driver: Any) -> bool:
        # A stale element, or (Chromium, mid-navigation) "Node with given id does not belong to
        # the document": either way the old page is going. Mid-navigation the old document can
        # still answer, so the new page counts only once its own root is there and loaded.
        try:
            old.is_enabled()
        except WebDriverException:
            pass
        else:
            return False
        try:
            new = driver.find_element(By.TAG_NAME, "html")
            loaded = driver.execute_script("return document.readyState") == "complete"
        except WebDriverException:
            return False
        return bool(loaded and new.id != old.id)

    WebDriverWait(driver, 60).until(replaced)


def _text(driver: Any) -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.TAG_NAME, "body").text)


def test_search_and_open_a_note(browser: Any, server: Server, shots: Path, cli: Any) -> None:
    from selenium.webdriver.common.by import By

    browser.get(server.url)
    assert browser.current_url == server.base + "/notes"  # the token went into a cookie
    assert "4 notes" in _text(browser)
    _shot(browser, shots, "notes")
    box = browser.find_element(By.NAME, "q")
    box.send_keys("redis exhaustion burst")
    _navigate(browser, box, submit=True)
    links = browser.find_elements(By.CSS_SELECTOR, "a.note-link")
    # Ranked as `reflect-git search` ranks: the note holding every word first, then any note
    # holding some of them (the gateway cascade's waits on the redis pool); no other note.
    assert [a.text for a in links] == [
        "Redis connection pool exhaustion under burst load",
        "Gateway 504 cascade traced to upstream pool waits",
    ]
    assert "Retry uploads" not in _text(browser)
    _navigate(browser, links[0])
    assert browser.find_element(By.ID, "title").text == (
        "Redis connection pool exhaustion under burst load"
    )
    assert browser.find_element(By.ID, "entities").is_displayed()
    history = browser.find_element(By.ID, "history").text
    assert "Reflect-Op" in history and "add" in history
    _shot(browser, shots, "note")


def test_archive_and_restore_a_note(
    browser: Any, server: Server, notes_kb: Path, shots: Path
) -> None:
    from selenium.webdriver.common.by import By

    browser.get(server.url)
    browser.get(server.base + "/notes/lrn-retry-uploads-with-backoff")
    _navigate(browser, browser.find_element(By.ID, "do-archive"))
    assert browser.find_element(By.ID, "done").text == "archived lrn-retry-uploads-with-backoff"
    assert browser.find_element(By.ID, "state").text == "archived"
    assert (notes_kb / "archived" / "lrn-retry-uploads-with-backoff.md").exists()
    assert git("log", "-1", "--format=%s", cwd=notes_kb).strip() == (
        "chore(knowledge): archive lrn-retry-uploads-with-backoff"
    )
    _navigate(browser, browser.find_element(By.ID, "do-restore"))
    assert browser.find_element(By.ID, "done").text == "restored lrn-retry-uploads-with-backoff"
    assert browser.find_element(By.ID, "state").text == "live"
    assert (notes_kb / "documents" / "lrn-retry-uploads-with-backoff.md").exists()
    assert git("status", "--porcelain", cwd=notes_kb) == ""


def test_a_forged_csrf_token_is_refused(browser: Any, server: Server, notes_kb: Path) -> None:
    from selenium.webdriver.common.by import By

    browser.get(server.url)
    browser.get(server.base + "/notes/lrn-flaky-clock-in-ci")
    before = head(notes_kb)
    browser.execute_script(
        "document.querySelectorAll('input[name=csrf]').forEach(i => i.value = 'forged')"
    )
    _navigate(browser, browser.find_element(By.ID, "do-archive"))
    assert "error: missing or wrong CSRF token" in _text(browser)
    assert head(notes_kb) == before
    assert (notes_kb / "documents" / "lrn-flaky-clock-in-ci.md").exists()


def test_a_wrong_token_gets_nothing(browser: Any, server: Server) -> None:
    browser.get(server.base + "/notes?token=not-the-token")
    text = _text(browser)
    assert "error: wrong or missing token" in text and "Redis" not in text
    browser.get(server.base + "/api/notes")
    assert "wrong or missing token" in _text(browser)


def test_the_drain_and_status_pages(browser: Any, server: Server, shots: Path) -> None:
    from selenium.webdriver.common.by import By

    browser.get(server.url)
    browser.get(server.base + "/status")
    assert "4 live" in browser.find_element(By.ID, "status").text
    _shot(browser, shots, "status")
    browser.get(server.base + "/drain")
    assert "the queue is empty" in _text(browser)
    _shot(browser, shots, "drain")


def test_approve_a_knowledge_branch_against_a_git_daemon(
    browser: Any,
    git_daemon: Any,
    kb_factory: Any,
    make_forge: Any,
    monkeypatch: pytest.MonkeyPatch,
    shots: Path,
) -> None:
    from selenium.webdriver.common.by import By

    team, forge, kb, one, two = _review_setup(git_daemon, kb_factory, make_forge, monkeypatch)
    for server in _serve(kb.path):  # the server inherits GH_TOKEN for the loopback forge
        browser.get(server.url)
        browser.get(server.base + "/review")
        text = _text(browser)
        assert one.branch in text and two.branch in text and "near-duplicates on main" in text
        _shot(browser, shots, "review")
        sections = browser.find_elements(By.CSS_SELECTOR, "section.branch")
        index = next(i for i, s in enumerate(sections, 1) if two.branch in s.text)
        _navigate(browser, browser.find_element(By.ID, f"do-approve-{index}"))
        assert browser.find_element(By.ID, "done").text == f"approved {two.branch}"
        left = [s.text for s in browser.find_elements(By.CSS_SELECTOR, "section.branch")]
        assert len(left) == 1 and one.branch in left[0]
    heads = team.heads()
    assert heads["main"] == two.commit and two.branch not in heads and one.branch in heads
    merged = [pr for pr in forge.prs["acme/team"] if pr.head == two.branch]
    assert merged and forge.state_of("acme/team", merged[0]) == "merged"
