"""A test-only forge: the GitHub, GitLab and Gitea pull-request APIs over a real bare repository.

It keeps pull requests in memory but answers from the pushed repository itself: a PR can only
be opened when its head and base branches exist in the bare repo, and a PR counts as merged
once its head commit is reachable from the base branch (which is how the real forges notice a
merge pushed from outside). Tokens are checked; duplicates are refused the way each forge
refuses them; drafts follow each forge's rules (GitHub ``draft: true``, GitLab ``Draft:``
title, Gitea ``WIP:`` title), and ``refuse_drafts`` makes GitHub answer like a plan without
draft pull requests.

Forges as they really behave (issue 11):

- Gitea/Forgejo count a PR merged by an outside push only with ``autodetect_manual_merge``
  (off by default, as on a real Gitea); their merge API refuses a ``WIP:`` PR and a
  ``head_commit_id`` that is not the head, and ``delete_branch_after_merge`` deletes it.
- GitLab takes ``PRIVATE-TOKEN`` for personal tokens only; an OAuth token (``oauth_tokens``)
  must come as ``Authorization: Bearer`` (which takes personal tokens too).
- ``script(...)`` queues canned answers for the next requests: a 200 with an HTML SSO page,
  429 with ``Retry-After``, GitHub's secondary-limit 403 with ``Retry-After``, its primary
  limit (``x-ratelimit-remaining: 0`` and ``x-ratelimit-reset``).

Also here: a stub ``gh`` executable that records its arguments and answers from a JSON file.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

TOKEN = "forge-token-123"


@dataclass
class FakePR:
    number: int
    title: str
    head: str
    base: str
    body: str
    draft: bool
    head_sha: str
    state: str = "open"  # open | closed
    comments: list[str] = field(default_factory=list)
    merged_by_api: bool = False
    # The same comments with the ids the APIs give them (list, edit, delete by id).
    thread: list[dict[str, Any]] = field(default_factory=list)

    def comment(self, forge: FakeForge, body: str, system: bool = False) -> dict[str, Any]:
        """A new comment, as POST makes it (GitLab's system notes are not comments)."""
        forge.comment_ids += 1
        made = {"id": forge.comment_ids, "body": body, "system": system}
        self.thread.append(made)
        if not system:
            self.comments.append(body)
        return made

    def find_comment(self, comment_id: int) -> dict[str, Any] | None:
        return next((c for c in self.thread if c["id"] == comment_id), None)

    def edit_comment(self, found: dict[str, Any], body: str) -> None:
        if not found["system"]:
            self.comments[self.comments.index(found["body"])] = body
        found["body"] = body

    def drop_comment(self, found: dict[str, Any]) -> None:
        self.thread.remove(found)
        if not found["system"]:
            self.comments.remove(found["body"])


@dataclass
class Canned:
    """One scripted answer."""

    status: int
    body: Any
    headers: dict[str, str]
    raw: bytes | None
    content_type: str


SSO_PAGE = (
    b"<!DOCTYPE html><html><head><title>Sign in - Acme SSO</title></head>"
    b"<body><form action='/saml/login'>Sign in to continue</form></body></html>"
)


class _ForgeHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, forge: FakeForge) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.forge = forge


class FakeForge:
    """State and rules of the fake forge; one instance serves one kind of API."""

    def __init__(self, kind: str, repos: dict[str, Path], token: str = TOKEN) -> None:
        assert kind in {"github", "gitlab", "gitea"}
        self.kind = kind
        self.repos = repos  # "owner/name" -> bare repository path
        self.token = token
        self.refuse_drafts = False
        self.autodetect_manual_merge = False  # Gitea's repository setting, off by default
        self.merge_refusal: tuple[int, str] | None = None  # branch protection, say
        # The merge API answers at once and its git side moves the base this many seconds
        # later (a replica or a mirror behind the API); None: the base never moves.
        self.merge_lands_after: float | None = 0.0
        self.oauth_tokens: set[str] = set()  # GitLab: accepted only as Authorization: Bearer
        self.prs: dict[str, list[FakePR]] = {name: [] for name in repos}
        self.requests: list[tuple[str, str, Any]] = []
        self.headers_seen: list[dict[str, str]] = []
        self.scripted: list[Canned] = []
        self.served_at: list[float] = []  # time.time() of every request, for the wait tests
        self.comment_ids = 1000  # comment ids are the forge's, unique across its pull requests
        self.lock = threading.Lock()
        self.server = _ForgeHTTPServer(self)
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    # ------------------------------------------------------------------ addresses

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def api_url(self) -> str:
        return self.base_url + {"github": "", "gitlab": "/api/v4", "gitea": "/api/v1"}[self.kind]

    def web_url(self, repo: str, number: int) -> str:
        kind = {"github": "pull", "gitlab": "-/merge_requests", "gitea": "pulls"}[self.kind]
        return f"{self.base_url}/{repo}/{kind}/{number}"

    # ------------------------------------------------------------------ git

    def _git(self, repo: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "--git-dir", str(self.repos[repo]), *args],
            capture_output=True,
            text=True,
            check=False,
        )

    def branch_sha(self, repo: str, branch: str) -> str | None:
        proc = self._git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}")
        return proc.stdout.strip() or None

    def is_merged(self, repo: str, pr: FakePR) -> bool:
        if pr.merged_by_api:
            return True
        if self.kind == "gitea" and not self.autodetect_manual_merge:
            return False  # Gitea: an outside push does not merge the PR
        base = self.branch_sha(repo, pr.base)
        head = self.branch_sha(repo, pr.head) or pr.head_sha
        if base is None:
            return False
        return self._git(repo, "merge-base", "--is-ancestor", head, base).returncode == 0

    def state_of(self, repo: str, pr: FakePR) -> str:
        if self.is_merged(repo, pr):
            return "merged"
        return pr.state

    def script(
        self,
        status: int,
        body: Any = None,
        headers: dict[str, str] | None = None,
        *,
        raw: bytes | None = None,
        content_type: str = "application/json",
        times: int = 1,
    ) -> None:
        """Answer the next ``times`` requests with this, whatever they ask."""
        for _ in range(times):
            self.scripted.append(Canned(status, body, dict(headers or {}), raw, content_type))

    def delete_branch(self, repo: str, branch: str) -> None:
        self._git(repo, "update-ref", "-d", f"refs/heads/{branch}")

    def merge(self, repo: str, pr: FakePR) -> None:
        """Merge the head into the base inside the bare repository (a merge commit); the PR
        counts as merged at once, the base moves after ``merge_lands_after`` seconds."""
        base = self.branch_sha(repo, pr.base)
        head = self.branch_sha(repo, pr.head)
        assert base and head
        tree = self._checked(repo, "merge-tree", "--write-tree", base, head).split()[0]
        sha = self._checked(
            repo, "commit-tree", tree, "-p", base, "-p", head, "-m", f"Merge {pr.head}"
        ).strip()
        pr.merged_by_api = True
        if self.merge_lands_after is None:
            return
        land = ("update-ref", f"refs/heads/{pr.base}", sha, base)
        if not self.merge_lands_after:
            self._checked(repo, *land)
            return
        timer = threading.Timer(self.merge_lands_after, self._checked, (repo, *land))
        timer.daemon = True
        timer.start()

    def _checked(self, repo: str, *args: str) -> str:
        proc = self._git(repo, *args)
        assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
        return proc.stdout

    def start(self) -> FakeForge:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # ------------------------------------------------------------------ queries for tests

    def add_pr(self, repo: str, head: str, base: str, title: str = "A change") -> FakePR:
        """A pull request someone opened (the branches must exist in the repository)."""
        with self.lock:
            return _new_pr(self, repo, title, head, base, "", False)

    def open_prs(self, repo: str) -> list[FakePR]:
        return [pr for pr in self.prs[repo] if self.state_of(repo, pr) == "open"]

    def calls(self, method: str) -> list[tuple[str, str, Any]]:
        return [r for r in self.requests if r[0] == method]


class _Handler(BaseHTTPRequestHandler):
    server: _ForgeHTTPServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    # ------------------------------------------------------------------ plumbing

    def _send(
        self,
        status: int,
        data: Any,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
        content_type: str = "application/json",
    ) -> None:
        body = raw if raw is not None else json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _authorized(self, forge: FakeForge) -> bool:
        auth = self.headers.get("Authorization", "")
        private = self.headers.get("PRIVATE-TOKEN")
        if forge.kind == "gitlab":
            if auth.startswith("Bearer "):  # OAuth tokens, and personal ones too
                return auth[len("Bearer ") :] in {forge.token, *forge.oauth_tokens}
            return private == forge.token  # PRIVATE-TOKEN: personal tokens only
        for prefix in ("Bearer ", "token "):
            if auth.startswith(prefix):
                return auth[len(prefix) :] == forge.token
        return False

    def _dispatch(self, method: str) -> None:
        forge = self.server.forge
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        payload = json.loads(self.rfile.read(length) or b"null") if length else None
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        forge.requests.append((method, parts.path, payload))
        forge.headers_seen.append({k.lower(): v for k, v in self.headers.items()})
        forge.served_at.append(time.time())
        with forge.lock:
            canned = forge.scripted.pop(0) if forge.scripted else None
        if canned is not None:
            self._send(canned.status, canned.body, canned.headers, canned.raw, canned.content_type)
            return
        if not self._authorized(forge):
            message = {"github": "Bad credentials", "gitlab": "401 Unauthorized"}.get(
                forge.kind, "user does not exist"
            )
            self._send(401, {"message": message})
            return
        with forge.lock:
            handler = {"github": _github, "gitlab": _gitlab, "gitea": _gitea}[forge.kind]
            status, data = handler(forge, method, parts.path, query, payload or {})
        self._send(status, data, raw=b"" if status == 204 else None)


Reply = tuple[int, Any]


def _segments(path: str, prefix: str) -> list[str] | None:
    if not path.startswith(prefix):
        return None
    return [unquote(p) for p in path[len(prefix) :].strip("/").split("/")]


def _find(forge: FakeForge, repo: str, number: int) -> FakePR | None:
    for pr in forge.prs.get(repo, []):
        if pr.number == number:
            return pr
    return None


def _check_branches(forge: FakeForge, repo: str, head: str, base: str) -> str | None:
    if forge.branch_sha(repo, base) is None:
        return "base"
    if forge.branch_sha(repo, head) is None:
        return "head"
    return None


def _duplicate(forge: FakeForge, repo: str, head: str, base: str) -> FakePR | None:
    for pr in forge.open_prs(repo):
        if pr.head == head and pr.base == base:
            return pr
    return None


def _new_pr(
    forge: FakeForge, repo: str, title: str, head: str, base: str, body: str, draft: bool
) -> FakePR:
    pr = FakePR(
        number=len(forge.prs[repo]) + 1,
        title=title,
        head=head,
        base=base,
        body=body,
        draft=draft,
        head_sha=forge.branch_sha(repo, head) or "",
    )
    forge.prs[repo].append(pr)
    return pr


# ---------------------------------------------------------------------------- comments


def _comment_json(made: dict[str, Any]) -> dict[str, Any]:
    return {"id": made["id"], "body": made["body"], "system": made["system"]}


def _page(items: list[dict[str, Any]], query: dict[str, str], size: str, default: int) -> Any:
    """One page of a listing, as the forge pages it (``page`` from 1, ``size`` per page)."""
    page, per = int(query.get("page", 1)), int(query.get(size, default))
    return [_comment_json(c) for c in items[(page - 1) * per : page * per]]


def _comment_by_id(
    forge: FakeForge,
    repo: str,
    comment_id: int,
    method: str,
    body: dict[str, Any],
    edit: tuple[str, int],
) -> Reply:
    """``/issues/comments/{id}`` (GitHub, Gitea): edit or delete a comment by its id."""
    for pr in forge.prs[repo]:
        found = pr.find_comment(comment_id)
        if found is None:
            continue
        if method == edit[0]:
            pr.edit_comment(found, str(body.get("body", "")))
            return edit[1], _comment_json(found)
        if method == "DELETE":
            pr.drop_comment(found)
            return 204, None
        if method == "GET":
            return 200, _comment_json(found)
    return 404, {"message": "Not Found"}


# ---------------------------------------------------------------------------- GitHub


def _github_json(forge: FakeForge, repo: str, pr: FakePR) -> dict[str, Any]:
    state = forge.state_of(repo, pr)
    return {
        "number": pr.number,
        "html_url": forge.web_url(repo, pr.number),
        "state": "closed" if state == "merged" else state,
        "merged": state == "merged",
        "draft": pr.draft,
        "title": pr.title,
        "body": pr.body,
        "head": {"ref": pr.head, "sha": forge.branch_sha(repo, pr.head) or pr.head_sha},
        "base": {"ref": pr.base},
    }


def _github(
    forge: FakeForge, method: str, path: str, query: dict[str, str], body: dict[str, Any]
) -> Reply:
    seg = _segments(path, "/repos/")
    if not seg or len(seg) < 3:
        return 404, {"message": "Not Found"}
    repo = f"{seg[0]}/{seg[1]}"
    if repo not in forge.repos:
        return 404, {"message": "Not Found"}
    rest = seg[2:]
    if rest[:2] == ["issues", "comments"] and len(rest) == 3 and rest[2].isdigit():
        return _comment_by_id(forge, repo, int(rest[2]), method, body, ("PATCH", 200))
    if rest == ["pulls"] and method == "POST":
        head, base = str(body.get("head", "")), str(body.get("base", ""))
        missing = _check_branches(forge, repo, head, base)
        if missing:
            return 422, {
                "message": "Validation Failed",
                "errors": [{"resource": "PullRequest", "field": missing, "code": "invalid"}],
            }
        if _duplicate(forge, repo, head, base):
            return 422, {
                "message": "Validation Failed",
                "errors": [{"message": f"A pull request already exists for {seg[0]}:{head}."}],
            }
        draft = bool(body.get("draft"))
        if draft and forge.refuse_drafts:
            return 422, {
                "message": "Validation Failed",
                "errors": [
                    {"message": "Draft pull requests are not supported in this repository."}
                ],
            }
        pr = _new_pr(
            forge, repo, str(body.get("title", "")), head, base, str(body.get("body", "")), draft
        )
        return 201, _github_json(forge, repo, pr)
    if rest == ["pulls"] and method == "GET":
        state = query.get("state", "open")
        head = query.get("head")
        out = []
        for pr in forge.prs[repo]:
            pr_state = forge.state_of(repo, pr)
            if state != "all" and (pr_state == "open") != (state == "open"):
                continue
            if head and head != f"{seg[0]}:{pr.head}":
                continue
            if query.get("base") and query["base"] != pr.base:
                continue
            out.append(_github_json(forge, repo, pr))
        return 200, out
    if len(rest) >= 2 and rest[0] in {"pulls", "issues"} and rest[1].isdigit():
        pr = _find(forge, repo, int(rest[1]))
        if pr is None:
            return 404, {"message": "Not Found"}
        if rest[0] == "issues" and rest[2:] == ["comments"] and method == "POST":
            made = pr.comment(forge, str(body.get("body", "")))
            return 201, _comment_json(made)
        if rest[0] == "issues" and rest[2:] == ["comments"] and method == "GET":
            return 200, _page(pr.thread, query, "per_page", 30)
        if rest[0] == "pulls" and len(rest) == 2 and method == "GET":
            return 200, _github_json(forge, repo, pr)
        if rest[0] == "pulls" and len(rest) == 2 and method == "PATCH":
            if body.get("state") == "closed":
                pr.state = "closed"
            return 200, _github_json(forge, repo, pr)
        if rest[0] == "pulls" and rest[2:] == ["merge"] and method == "PUT":
            if forge.state_of(repo, pr) != "open":
                return 405, {"message": "Pull Request is not mergeable"}
            if body.get("sha") and body["sha"] != forge.branch_sha(repo, pr.head):
                return 409, {"message": "Head branch was modified. Review and try the merge again."}
            forge.merge(repo, pr)
            return 200, {"merged": True}
    return 404, {"message": "Not Found"}


# ---------------------------------------------------------------------------- GitLab


def _gitlab_json(forge: FakeForge, repo: str, pr: FakePR) -> dict[str, Any]:
    state = forge.state_of(repo, pr)
    return {
        "iid": pr.number,
        "web_url": forge.web_url(repo, pr.number),
        "state": {"open": "opened"}.get(state, state),
        "draft": pr.draft,
        "work_in_progress": pr.draft,
        "title": pr.title,
        "description": pr.body,
        "source_branch": pr.head,
        "target_branch": pr.base,
        "sha": forge.branch_sha(repo, pr.head) or pr.head_sha,
    }


def _gitlab(
    forge: FakeForge, method: str, path: str, query: dict[str, str], body: dict[str, Any]
) -> Reply:
    seg = _segments(path, "/api/v4/projects/")
    if not seg or len(seg) < 2:
        return 404, {"message": "404 Not Found"}
    repo = seg[0]  # URL-encoded "group/project", decoded by _segments
    if repo not in forge.repos or seg[1] != "merge_requests":
        return 404, {"message": "404 Project Not Found"}
    rest = seg[2:]
    if not rest and method == "POST":
        head, base = str(body.get("source_branch", "")), str(body.get("target_branch", ""))
        missing = _check_branches(forge, repo, head, base)
        if missing:
            return 400, {
                "message": [f"{'Source' if missing == 'head' else 'Target'} branch does not exist"]
            }
        dup = _duplicate(forge, repo, head, base)
        if dup:
            return 409, {
                "message": [
                    f"Another open merge request already exists for this source branch: !{dup.number}"
                ]
            }
        title = str(body.get("title", ""))
        draft = title.lower().startswith(("draft:", "[draft]", "(draft)"))
        pr = _new_pr(forge, repo, title, head, base, str(body.get("description", "")), draft)
        return 201, _gitlab_json(forge, repo, pr)
    if not rest and method == "GET":
        out = []
        for pr in forge.prs[repo]:
            state = {"open": "opened"}.get(forge.state_of(repo, pr), forge.state_of(repo, pr))
            if query.get("state") and query["state"] != "all" and query["state"] != state:
                continue
            if query.get("source_branch") and query["source_branch"] != pr.head:
                continue
            if query.get("target_branch") and query["target_branch"] != pr.base:
                continue
            out.append(_gitlab_json(forge, repo, pr))
        return 200, out
    if rest and rest[0].isdigit():
        pr = _find(forge, repo, int(rest[0]))
        if pr is None:
            return 404, {"message": "404 Not found"}
        if rest[1:] == ["notes"] and method == "POST":
            made = pr.comment(forge, str(body.get("body", "")))
            return 201, _comment_json(made)
        if rest[1:] == ["notes"] and method == "GET":
            notes = sorted(pr.thread, key=lambda c: c["id"], reverse=query.get("sort") != "asc")
            return 200, _page(notes, query, "per_page", 20)  # newest first unless sort=asc
        if len(rest) == 3 and rest[1] == "notes" and rest[2].isdigit():
            found = pr.find_comment(int(rest[2]))
            if found is None:
                return 404, {"message": "404 Not found"}
            if method == "PUT":
                pr.edit_comment(found, str(body.get("body", "")))
                return 200, _comment_json(found)
            if method == "DELETE":
                pr.drop_comment(found)
                return 204, None
        if len(rest) == 1 and method == "GET":
            return 200, _gitlab_json(forge, repo, pr)
        if len(rest) == 1 and method == "PUT":
            if body.get("state_event") == "close":
                pr.state = "closed"
            return 200, _gitlab_json(forge, repo, pr)
        if rest[1:] == ["merge"] and method == "PUT":
            if pr.draft:
                return 405, {"message": "405 Method Not Allowed"}
            forge.merge(repo, pr)
            return 200, _gitlab_json(forge, repo, pr)
    return 404, {"message": "404 Not Found"}


# ---------------------------------------------------------------------------- Gitea


def _gitea_json(forge: FakeForge, repo: str, pr: FakePR) -> dict[str, Any]:
    state = forge.state_of(repo, pr)
    return {
        "number": pr.number,
        "html_url": forge.web_url(repo, pr.number),
        "state": "closed" if state == "merged" else state,
        "merged": state == "merged",
        "title": pr.title,
        "body": pr.body,
        "head": {"ref": pr.head, "sha": forge.branch_sha(repo, pr.head) or pr.head_sha},
        "base": {"ref": pr.base},
    }


def _gitea(
    forge: FakeForge, method: str, path: str, query: dict[str, str], body: dict[str, Any]
) -> Reply:
    seg = _segments(path, "/api/v1/repos/")
    if not seg or len(seg) < 3:
        return 404, {"message": "not found"}
    repo = f"{seg[0]}/{seg[1]}"
    if repo not in forge.repos:
        return 404, {"message": "The target couldn't be found."}
    rest = seg[2:]
    if rest[:2] == ["issues", "comments"] and len(rest) == 3 and rest[2].isdigit():
        return _comment_by_id(forge, repo, int(rest[2]), method, body, ("PATCH", 200))
    if rest == ["pulls"] and method == "POST":
        head, base = str(body.get("head", "")), str(body.get("base", ""))
        if _check_branches(forge, repo, head, base):
            return 404, {"message": "The target couldn't be found."}
        if _duplicate(forge, repo, head, base):
            return 409, {"message": "pull request already exists for these targets"}
        title = str(body.get("title", ""))
        draft = title.upper().startswith(("WIP:", "[WIP]"))
        pr = _new_pr(forge, repo, title, head, base, str(body.get("body", "")), draft)
        return 201, _gitea_json(forge, repo, pr)
    if rest == ["pulls"] and method == "GET":
        state = query.get("state", "open")
        out = [
            _gitea_json(forge, repo, pr)
            for pr in forge.prs[repo]
            if state == "all" or (forge.state_of(repo, pr) == "open") == (state == "open")
        ]
        page, limit = int(query.get("page", 1)), int(query.get("limit", 30))
        return 200, out[(page - 1) * limit : page * limit]
    if len(rest) >= 2 and rest[0] in {"pulls", "issues"} and rest[1].isdigit():
        pr = _find(forge, repo, int(rest[1]))
        if pr is None:
            return 404, {"message": "not found"}
        if rest[0] == "issues" and rest[2:] == ["comments"] and method == "POST":
            made = pr.comment(forge, str(body.get("body", "")))
            return 201, _comment_json(made)
        if rest[0] == "issues" and rest[2:] == ["comments"] and method == "GET":
            return 200, _page(pr.thread, query, "limit", 50)  # Gitea pages with limit
        if rest[0] == "pulls" and len(rest) == 2 and method == "GET":
            return 200, _gitea_json(forge, repo, pr)
        if rest[0] == "pulls" and len(rest) == 2 and method == "PATCH":
            if body.get("state") == "closed":
                pr.state = "closed"
            if "title" in body:
                pr.title = str(body["title"])
                pr.draft = pr.title.upper().startswith(("WIP:", "[WIP]"))
            return 201, _gitea_json(forge, repo, pr)
        if rest[0] == "pulls" and rest[2:] == ["merge"] and method == "POST":
            if forge.state_of(repo, pr) != "open":
                return 405, {"message": "The PR is already merged or closed"}
            if pr.draft:
                return 405, {"message": "work in progress PRs cannot be merged"}
            if forge.merge_refusal is not None:
                return forge.merge_refusal[0], {"message": forge.merge_refusal[1]}
            if body.get("Do") not in {"merge", "rebase", "rebase-merge", "squash"}:
                return 422, {"message": "[Do]: Required"}
            head_id = body.get("head_commit_id")
            if head_id and head_id != forge.branch_sha(repo, pr.head):
                return 409, {"message": "head out of date"}
            forge.merge(repo, pr)
            if body.get("delete_branch_after_merge"):
                forge.delete_branch(repo, pr.head)
            return 200, {}
    return 404, {"message": "not found"}


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture
def make_forge() -> Iterator[Any]:
    """``make_forge(kind, {"acme/team": bare_path})`` -> a started FakeForge, stopped after."""
    started: list[FakeForge] = []

    def factory(kind: str, repos: dict[str, Path], token: str = TOKEN) -> FakeForge:
        forge = FakeForge(kind, repos, token).start()
        started.append(forge)
        return forge

    yield factory
    for forge in started:
        forge.stop()


GH_STUB = r'''#!{python}
"""Stub gh: records argv, keeps PRs in a JSON file, prints canned answers."""
import json, os, sys
state_dir = os.environ["GH_STUB_DIR"]
log = os.path.join(state_dir, "calls.jsonl")
db = os.path.join(state_dir, "prs.json")
args = sys.argv[1:]
with open(log, "a") as fh:
    fh.write(json.dumps(args) + "\n")
prs = json.load(open(db)) if os.path.exists(db) else []
def opt(name, default=None):
    return args[args.index(name) + 1] if name in args else default
if args[:2] == ["auth", "token"]:
    token = os.environ.get("GH_STUB_TOKEN")
    if not token:
        print("no oauth token found for " + opt("--hostname", "github.com"), file=sys.stderr)
        sys.exit(1)
    print(token)
elif args[:2] == ["pr", "create"]:
    if "--draft" in args and os.environ.get("GH_STUB_REFUSE_DRAFT"):
        print("GraphQL: Draft pull requests are not supported in this repository.", file=sys.stderr)
        sys.exit(1)
    for pr in prs:
        if pr["headRefName"] == opt("--head") and pr["state"] == "OPEN":
            print("a pull request for branch %r already exists" % opt("--head"), file=sys.stderr)
            sys.exit(1)
    number = len(prs) + 1
    url = "https://github.com/%s/pull/%d" % (opt("--repo"), number)
    prs.append({{"number": number, "url": url, "state": "OPEN", "isDraft": "--draft" in args,
                "title": opt("--title"), "headRefName": opt("--head"), "baseRefName": opt("--base")}})
    json.dump(prs, open(db, "w"))
    print(url)
elif args[:2] == ["pr", "list"]:
    out = [p for p in prs if p["state"] == "OPEN" and p["headRefName"] == opt("--head")
           and p["baseRefName"] == opt("--base", p["baseRefName"])]
    print(json.dumps(out))
elif args[:2] == ["pr", "view"]:
    print(json.dumps([p for p in prs if p["number"] == int(args[2])][0]))
elif args[:2] in (["pr", "close"], ["pr", "merge"]):
    for p in prs:
        if p["number"] == int(args[2]):
            p["state"] = "CLOSED" if args[1] == "close" else "MERGED"
            p["comment"] = opt("--comment")
    json.dump(prs, open(db, "w"))
else:
    print("stub gh: unsupported " + " ".join(args), file=sys.stderr)
    sys.exit(2)
'''


@dataclass
class GhStub:
    """The stub ``gh`` on PATH: its folder, and what it was called with."""

    bin_dir: Path
    state_dir: Path

    def calls(self) -> list[list[str]]:
        log = self.state_dir / "calls.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines()]

    def prs(self) -> list[dict[str, Any]]:
        db = self.state_dir / "prs.json"
        return json.loads(db.read_text()) if db.exists() else []


@pytest.fixture
def gh_stub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GhStub:
    """Put a recording stub ``gh`` first on PATH (logged in unless GH_STUB_TOKEN is unset)."""
    bin_dir = tmp_path / "gh-bin"
    state_dir = tmp_path / "gh-state"
    bin_dir.mkdir()
    state_dir.mkdir()
    script = bin_dir / "gh"
    script.write_text(GH_STUB.format(python=sys.executable))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("GH_STUB_DIR", str(state_dir))
    monkeypatch.setenv("GH_STUB_TOKEN", "gho_stubtoken")
    return GhStub(bin_dir, state_dir)
