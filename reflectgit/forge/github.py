"""GitHub (and GitHub Enterprise) REST v3: draft pull requests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reflectgit.forge.base import (
    DRAFT_PREFIX,
    PAGE_SIZE,
    Comment,
    Forge,
    PullRequest,
    from_head,
)
from reflectgit.forge.http import (
    ForgeHTTPError,
    HttpClient,
    as_list,
    as_mapping,
    is_duplicate,
    listed,
    posted,
)

# ============================================================================ GitHub


class GitHubForge(Forge):
    """GitHub (and GitHub Enterprise) REST v3."""

    name = "github"

    def __init__(self, client: HttpClient, repo: str) -> None:
        self.client = client
        self.repo = repo
        self.owner = repo.split("/", 1)[0]

    def _pr(self, answer: Any) -> PullRequest:
        data = as_mapping(answer, "a pull request")
        merged = bool(data.get("merged") or data.get("merged_at"))
        state = "merged" if merged else str(data.get("state") or "open")
        return PullRequest(
            number=int(data["number"]),
            url=str(data.get("html_url") or data.get("url") or ""),
            state=state,
            draft=bool(data.get("draft")),
            title=str(data.get("title") or ""),
            head=str((data.get("head") or {}).get("ref") or ""),
            base=str((data.get("base") or {}).get("ref") or ""),
        )

    def find_open(self, head: str, base: str) -> PullRequest | None:
        resp = self.client.request(
            "GET",
            f"/repos/{self.repo}/pulls",
            query={"state": "open", "head": f"{self.owner}:{head}", "base": base},
        )
        return from_head(map(self._pr, as_list(resp.data, "the pull request listing")), head, base)

    def open_draft(self, head: str, base: str, title: str, body: str) -> PullRequest:
        payload = {"title": title, "head": head, "base": base, "body": body, "draft": True}
        try:
            return self._create(payload)
        except ForgeHTTPError as exc:
            if exc.status == 422 and "draft" in exc.detail.lower() and not is_duplicate(exc):
                # Drafts are not available on this repository's plan: say it in the title.
                payload = {**payload, "draft": False, "title": DRAFT_PREFIX["github"] + title}
                return self._create(payload)
            raise

    def _create(self, payload: Mapping[str, Any]) -> PullRequest:
        """POST a pull request; when one is already open for head and base, that one."""
        return posted(
            lambda: self._pr(
                self.client.request("POST", f"/repos/{self.repo}/pulls", payload).data
            ),
            self,
            str(payload["head"]),
            str(payload["base"]),
        )

    def get(self, number: int) -> PullRequest:
        return self._pr(self.client.request("GET", f"/repos/{self.repo}/pulls/{number}").data)

    def close(self, pr: PullRequest, comment: str) -> None:
        if comment:
            self.client.request(
                "POST", f"/repos/{self.repo}/issues/{pr.number}/comments", {"body": comment}
            )
        self.client.request("PATCH", f"/repos/{self.repo}/pulls/{pr.number}", {"state": "closed"})

    def merge(self, pr: PullRequest, head_sha: str | None = None) -> None:
        payload = {"merge_method": "merge", **({"sha": head_sha} if head_sha else {})}
        self.client.request("PUT", f"/repos/{self.repo}/pulls/{pr.number}/merge", payload)

    # A pull request's conversation is its issue's comments (GitHub and Gitea alike).
    PAGE_PARAM = "per_page"

    def comments(self, number: int) -> list[Comment]:
        path = f"/repos/{self.repo}/issues/{number}/comments"
        items = listed(self.client, path, "the comment listing", size=(self.PAGE_PARAM, PAGE_SIZE))
        return [Comment(int(c["id"]), str(c.get("body") or "")) for c in items]

    def add_comment(self, number: int, body: str) -> Comment:
        resp = self.client.request(
            "POST", f"/repos/{self.repo}/issues/{number}/comments", {"body": body}
        )
        data = as_mapping(resp.data, "a comment")
        return Comment(int(data["id"]), str(data.get("body") or body))

    def edit_comment(self, number: int, comment: Comment, body: str) -> None:
        self.client.request(
            "PATCH", f"/repos/{self.repo}/issues/comments/{comment.id}", {"body": body}
        )

    def delete_comment(self, number: int, comment: Comment) -> None:
        self.client.request("DELETE", f"/repos/{self.repo}/issues/comments/{comment.id}")
