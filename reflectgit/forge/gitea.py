"""Gitea and Forgejo REST: pull requests titled ``WIP: ...``.

Gitea marks a pull request merged by an outside push only when the repository has
"autodetect manual merge" on, and it is off by default: a merge pushed with git leaves the PR
open. So ``review approve`` merges Gitea pull requests through the API (``merge`` below):
the ``WIP:`` prefix goes first (Gitea refuses to merge a work-in-progress PR), then
``POST /repos/{owner}/{repo}/pulls/{index}/merge`` with ``Do: merge`` and the reviewed head
commit (``head_commit_id``), so a branch that moved after review is refused, not merged.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from reflectgit.forge.base import DRAFT_PREFIX, PullRequest, from_head
from reflectgit.forge.github import GitHubForge
from reflectgit.forge.http import listed

# ============================================================================ Gitea / Forgejo


class GiteaForge(GitHubForge):
    """Gitea and Forgejo REST v1 (GitHub's shape); a ``WIP:`` title marks work in progress."""

    name = "gitea"

    detects_outside_merge = False
    PAGE_PARAM = "limit"  # Gitea and Forgejo page with limit, not per_page

    def _pr(self, data: Any) -> PullRequest:
        pr = super()._pr(data)
        if not pr.draft and pr.title.upper().startswith(("WIP:", "[WIP]")):
            pr = dataclasses.replace(pr, draft=True)
        return pr

    def find_open(self, head: str, base: str) -> PullRequest | None:
        # Gitea's list endpoint has no head filter: walk the open ones (few, in practice).
        path = f"/repos/{self.repo}/pulls"
        listing = listed(
            self.client, path, "the pull request listing", {"state": "open"}, ("limit", 50)
        )
        return from_head(map(self._pr, listing), head, base)

    def open_draft(self, head: str, base: str, title: str, body: str) -> PullRequest:
        payload = {"head": head, "base": base, "title": DRAFT_PREFIX["gitea"] + title, "body": body}
        return self._create(payload)

    def merge(self, pr: PullRequest, head_sha: str | None = None) -> None:
        title = pr.title
        for prefix in ("WIP:", "[WIP]"):
            if title.upper().startswith(prefix):
                title = title[len(prefix) :].lstrip()
        if title != pr.title:  # Gitea refuses to merge a work-in-progress pull request
            self.client.request("PATCH", f"/repos/{self.repo}/pulls/{pr.number}", {"title": title})
        payload: dict[str, Any] = {"Do": "merge", "delete_branch_after_merge": True}
        if head_sha:
            payload["head_commit_id"] = head_sha
        self.client.request("POST", f"/repos/{self.repo}/pulls/{pr.number}/merge", payload)
