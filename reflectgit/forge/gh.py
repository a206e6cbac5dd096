"""The GitHub CLI back end: ``gh pr ...`` with whatever login ``gh`` already has."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Mapping
from typing import Any

from reflectgit.errors import ForgeError
from reflectgit.forge.base import DEFAULT_TIMEOUT, DRAFT_PREFIX, Forge, PullRequest
from reflectgit.forge.http import json_or_none


class GhCliForge(Forge):
    """The GitHub CLI, using whatever login ``gh`` already has."""

    name = "gh"
    FIELDS = "number,url,state,isDraft,title,headRefName,baseRefName"

    def __init__(
        self, gh: str, repo: str, host: str, env: Mapping[str, str], timeout: float
    ) -> None:
        self.gh = gh
        self.repo = repo if host == "github.com" else f"{host}/{repo}"
        self.env = dict(env)
        self.timeout = timeout

    def _run(self, *args: str) -> str:
        try:
            proc = subprocess.run(
                [self.gh, *args],
                capture_output=True,
                text=True,
                env=self.env,
                timeout=self.timeout,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ForgeError(f"gh {args[0]} {args[1]} failed: {exc}") from None
        if proc.returncode != 0:
            raise ForgeError(
                f"gh {' '.join(args[:2])} failed: {(proc.stderr or proc.stdout).strip()}",
                hint="run `gh auth status` to check the login",
            )
        return proc.stdout

    def _pr(self, data: Mapping[str, Any]) -> PullRequest:
        state = str(data.get("state") or "OPEN").lower()
        return PullRequest(
            number=int(data["number"]),
            url=str(data.get("url") or ""),
            state=state,
            draft=bool(data.get("isDraft")),
            title=str(data.get("title") or ""),
            head=str(data.get("headRefName") or ""),
            base=str(data.get("baseRefName") or ""),
        )

    def find_open(self, head: str, base: str) -> PullRequest | None:
        out = self._run(
            "pr", "list", "--repo", self.repo, "--state", "open", "--head", head,
            "--base", base, "--json", self.FIELDS,
        )  # fmt: skip
        for item in json_or_none(out.encode()) or []:
            pr = self._pr(item)
            if pr.head == head and pr.base == base:
                return pr
        return None

    def open_draft(self, head: str, base: str, title: str, body: str) -> PullRequest:
        args = ["pr", "create", "--repo", self.repo, "--base", base, "--head", head, "--body", body]
        try:
            self._run(*args, "--draft", "--title", title)
        except ForgeError as exc:
            text = exc.message.lower()
            if "already exists" in text:
                pass
            elif "draft" in text:
                self._run(*args, "--title", DRAFT_PREFIX["github"] + title)
            else:
                raise
        found = self.find_open(head, base)
        if found is None:
            raise ForgeError(f"gh created no pull request for {head}")
        return found

    def get(self, number: int) -> PullRequest:
        out = self._run("pr", "view", str(number), "--repo", self.repo, "--json", self.FIELDS)
        return self._pr(json.loads(out))

    def close(self, pr: PullRequest, comment: str) -> None:
        args = ["pr", "close", str(pr.number), "--repo", self.repo]
        if comment:
            args += ["--comment", comment]
        self._run(*args)

    def merge(self, pr: PullRequest, head_sha: str | None = None) -> None:
        match = ["--match-head-commit", head_sha] if head_sha else []
        self._run("pr", "merge", str(pr.number), "--repo", self.repo, "--merge", *match)


def gh_login(host: str, env: Mapping[str, str], timeout: float = DEFAULT_TIMEOUT) -> str | None:
    """The ``gh`` executable when it is installed and logged in to ``host``."""
    gh = shutil.which("gh", path=env.get("PATH"))
    if not gh:
        return None
    try:
        proc = subprocess.run(
            [gh, "auth", "token", "--hostname", host],
            capture_output=True,
            text=True,
            env=dict(env),
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return gh if proc.returncode == 0 and proc.stdout.strip() else None
