"""Gitea and Forgejo REST: pull requests titled ``WIP: ...``."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from reflectgit.forge.base import DRAFT_PREFIX, PullRequest
from reflectgit.forge.github import GitHubForge

# ============================================================================ Gitea / Forgejo


class GiteaForge(GitHubForge):
    """Gitea and Forgejo REST v1 (GitHub's shape); a ``WIP:`` title marks work in progress."""

    name = "gitea"

    def _pr(self, data: Mapping[str, Any]) -> PullRequest:
        pr = super()._pr(data)
        if not pr.draft and pr.title.upper().startswith(("WIP:", "[WIP]")):
            pr = dataclasses.replace(pr, draft=True)
        return pr

    def find_open(self, head: str, base: str) -> PullRequest | None:
        # Gitea's list endpoint has no head filter: walk the open ones (few, in practice).
        for page in range(1, 21):
            resp = self.client.request(
                "GET",
                f"/repos/{self.repo}/pulls",
                query={"state": "open", "page": page, "limit": 50},
            )
            items = resp.data or []
            for item in items:
                pr = self._pr(item)
                if pr.head == head and pr.base == base:
                    return pr
            if len(items) < 50:
                break
        return None

    def open_draft(self, head: str, base: str, title: str, body: str) -> PullRequest:
        payload = {"head": head, "base": base, "title": DRAFT_PREFIX["gitea"] + title, "body": body}
        return self._create(payload)

    def merge(self, pr: PullRequest) -> None:
        self.client.request("POST", f"/repos/{self.repo}/pulls/{pr.number}/merge", {"Do": "merge"})
