"""GitLab REST v4: merge requests titled ``Draft: ...``."""

from __future__ import annotations

import urllib.parse
from typing import Any

from reflectgit.forge.base import DRAFT_PREFIX, Comment, Forge, PullRequest, from_head
from reflectgit.forge.http import (
    HttpClient,
    as_list,
    as_mapping,
    listed,
    posted,
)

# ============================================================================ GitLab


class GitLabForge(Forge):
    """GitLab REST v4 merge requests; a ``Draft:`` title makes the draft."""

    name = "gitlab"

    def __init__(self, client: HttpClient, repo: str) -> None:
        self.client = client
        self.project = urllib.parse.quote(repo, safe="")

    def _mr(self, answer: Any) -> PullRequest:
        data = as_mapping(answer, "a merge request")
        state = str(data.get("state") or "opened")
        title = str(data.get("title") or "")
        return PullRequest(
            number=int(data["iid"]),
            url=str(data.get("web_url") or ""),
            state={"opened": "open", "locked": "open"}.get(state, state),
            draft=bool(data.get("draft") or data.get("work_in_progress"))
            or title.lower().startswith(("draft:", "[draft]", "(draft)")),
            title=title,
            head=str(data.get("source_branch") or ""),
            base=str(data.get("target_branch") or ""),
        )

    def find_open(self, head: str, base: str) -> PullRequest | None:
        resp = self.client.request(
            "GET",
            f"/projects/{self.project}/merge_requests",
            query={"state": "opened", "source_branch": head, "target_branch": base},
        )
        return from_head(map(self._mr, as_list(resp.data, "the pull request listing")), head, base)

    def open_draft(self, head: str, base: str, title: str, body: str) -> PullRequest:
        payload = {
            "source_branch": head,
            "target_branch": base,
            "title": DRAFT_PREFIX["gitlab"] + title,
            "description": body,
            "remove_source_branch": True,
        }
        path = f"/projects/{self.project}/merge_requests"
        return posted(
            lambda: self._mr(self.client.request("POST", path, payload).data), self, head, base
        )

    def get(self, number: int) -> PullRequest:
        return self._mr(
            self.client.request("GET", f"/projects/{self.project}/merge_requests/{number}").data
        )

    def close(self, pr: PullRequest, comment: str) -> None:
        base = f"/projects/{self.project}/merge_requests/{pr.number}"
        if comment:
            self.client.request("POST", f"{base}/notes", {"body": comment})
        self.client.request("PUT", base, {"state_event": "close"})

    def merge(self, pr: PullRequest, head_sha: str | None = None) -> None:
        payload = {"sha": head_sha} if head_sha else {}
        self.client.request(
            "PUT", f"/projects/{self.project}/merge_requests/{pr.number}/merge", payload
        )

    # A merge request's conversation is its notes; system notes ("added 1 commit") are GitLab's.

    def comments(self, number: int) -> list[Comment]:
        path = f"/projects/{self.project}/merge_requests/{number}/notes"
        order = {"sort": "asc", "order_by": "created_at"}
        items = listed(self.client, path, "the note listing", order)
        return [
            Comment(int(n["id"]), str(n.get("body") or "")) for n in items if not n.get("system")
        ]

    def add_comment(self, number: int, body: str) -> Comment:
        resp = self.client.request(
            "POST", f"/projects/{self.project}/merge_requests/{number}/notes", {"body": body}
        )
        data = as_mapping(resp.data, "a note")
        return Comment(int(data["id"]), str(data.get("body") or body))

    def edit_comment(self, number: int, comment: Comment, body: str) -> None:
        self.client.request(
            "PUT",
            f"/projects/{self.project}/merge_requests/{number}/notes/{comment.id}",
            {"body": body},
        )

    def delete_comment(self, number: int, comment: Comment) -> None:
        self.client.request(
            "DELETE", f"/projects/{self.project}/merge_requests/{number}/notes/{comment.id}"
        )
