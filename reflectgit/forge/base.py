"""What every forge back end shares: the interface, pull requests, remote URLs, provider names.

``forge/`` is the only package that talks to a forge: draft pull requests on GitHub, GitLab,
Gitea/Forgejo. One module per back end (``github.py``, ``gitlab.py``, ``gitea.py``, ``gh.py``),
``http.py`` for the REST ones, ``choose.py`` to pick one for a remote. Four back ends, one small
interface (find the open PR for a branch, open a draft, close with a
comment, merge, look one up):

- GitHub REST: ``POST /repos/{owner}/{repo}/pulls`` with ``draft: true``; where drafts are
  refused (plans without them) a normal PR titled ``[Draft] ...``.
- GitLab REST: a merge request titled ``Draft: ...`` (that title is what makes it a draft).
- Gitea / Forgejo REST: a pull request titled ``WIP: ...`` (their work-in-progress prefix).
- The ``gh`` CLI, when it is installed and ``gh auth token --hostname HOST`` succeeds.

Plain ``urllib`` is enough: five JSON calls per forge, no pagination beyond one listing, no
OAuth dance. A client library per forge (PyGithub, python-gitlab, ...) would add three heavy
dependencies and still not cover Gitea, and none of them lets us point the base URL at a
loopback test server more easily than this does.

Tokens: ``GH_TOKEN``/``GITHUB_TOKEN``, ``GITLAB_TOKEN``, ``GITEA_TOKEN`` (or ``FORGEJO_TOKEN``)
from the environment mapping the caller passes in (config resolves it), else ``gh`` for GitHub,
else ``git credential fill`` for the forge's host, so whatever helper git uses works here too.
"""

from __future__ import annotations

import re
import urllib.parse
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

PROVIDERS = ("github", "gitlab", "gitea", "forgejo", "gh", "none")
DRAFT_PREFIX = {"github": "[Draft] ", "gitlab": "Draft: ", "gitea": "WIP: "}
TOKEN_VARIABLES = {
    "github": ("GH_TOKEN", "GITHUB_TOKEN"),
    "gitlab": ("GITLAB_TOKEN",),
    "gitea": ("GITEA_TOKEN", "FORGEJO_TOKEN"),
}
DEFAULT_TIMEOUT = 30.0


@dataclass(frozen=True)
class PullRequest:
    """A pull (merge) request as reflect-git needs to see it."""

    number: int
    url: str
    state: str  # "open", "closed" or "merged"
    draft: bool
    title: str
    head: str
    base: str

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "url": self.url,
            "state": self.state,
            "draft": self.draft,
            "title": self.title,
            "head": self.head,
            "base": self.base,
        }


@dataclass(frozen=True)
class Comment:
    """A comment on a pull request (an issue comment; a merge request's note on GitLab)."""

    id: int
    body: str


COMMENT_PAGES = 20  # comments read at most: 20 pages of 100
PAGE_SIZE = 100


@dataclass(frozen=True)
class RepoRef:
    """Where a git remote lives: host (with port), repository path, web scheme."""

    host: str
    path: str
    scheme: str = "https"

    @property
    def hostname(self) -> str:
        return self.host.split(":", 1)[0]

    @property
    def web(self) -> str:
        return f"{self.scheme}://{self.host}/{self.path}"


def parse_remote_url(url: str) -> RepoRef | None:
    """``https://host/o/r.git``, ``git@host:o/r.git``, ``ssh://git@host/o/r`` -> RepoRef."""
    url = url.strip()
    scp = re.match(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$", url)
    if "://" not in url and scp:
        return RepoRef(scp.group(1), _clean_path(scp.group(2)))
    parts = urllib.parse.urlsplit(url)
    if not parts.hostname or parts.scheme == "file":
        return None
    host = parts.hostname + (f":{parts.port}" if parts.port else "")
    if parts.scheme in {"ssh", "git", "git+ssh"}:
        host = parts.hostname  # the web UI is not on the ssh port
    scheme = "http" if parts.scheme == "http" else "https"
    return RepoRef(host, _clean_path(parts.path), scheme)


def _clean_path(path: str) -> str:
    path = path.strip("/")
    return path[: -len(".git")] if path.endswith(".git") else path


def provider_for_host(host: str) -> str | None:
    """Guess the forge from a host name; None when the host says nothing."""
    host = host.lower()
    if "github" in host:
        return "github"
    if "gitlab" in host:
        return "gitlab"
    if "gitea" in host or "forgejo" in host or host.startswith("codeberg.org"):
        return "gitea"
    return None


def default_api_url(provider: str, ref: RepoRef) -> str:
    if provider == "github":
        if ref.hostname == "github.com":
            return "https://api.github.com"
        return f"{ref.scheme}://{ref.host}/api/v3"
    if provider == "gitlab":
        return f"{ref.scheme}://{ref.host}/api/v4"
    return f"{ref.scheme}://{ref.host}/api/v1"


def manual_pr_url(
    remote_url: str,
    head: str,
    base: str,
    provider: str | None = None,
    settings: Mapping[str, Any] | None = None,
) -> str | None:
    """The web page where a person can open the PR by hand, when we can tell.

    ``[forge] repo`` (in ``settings``) names the repository when it differs from the remote
    URL's path (a mirror, an ``insteadOf`` rewrite, an ssh alias); ``[forge] api_url`` gives
    the host when the remote URL has none (a local path, a bundle).
    """
    settings = settings or {}
    ref = parse_remote_url(remote_url)
    api = str(settings.get("api_url") or "")
    if ref is None and api:
        parts = urllib.parse.urlsplit(api)
        host = (
            parts.netloc.removeprefix("api.") if parts.netloc == "api.github.com" else parts.netloc
        )
        ref = RepoRef(host, "", parts.scheme or "https")
    repo = settings.get("repo")
    if ref is not None and isinstance(repo, str) and repo.strip("/"):
        ref = RepoRef(ref.host, _clean_path(repo), ref.scheme)
    if ref is None or not ref.path:
        return None
    kind = provider or settings.get("provider") or provider_for_host(ref.host)
    if kind in {"github", "gh"}:
        return f"{ref.web}/compare/{base}...{head}?expand=1"
    if kind == "gitlab":
        query = urllib.parse.urlencode(
            {"merge_request[source_branch]": head, "merge_request[target_branch]": base}
        )
        return f"{ref.web}/-/merge_requests/new?{query}"
    if kind in {"gitea", "forgejo"}:
        return f"{ref.web}/compare/{base}...{head}"
    return None


def from_head(prs: Iterable[PullRequest], head: str, base: str) -> PullRequest | None:
    """The first of a listing's ``prs`` from ``head`` into ``base`` (a filter may hold others)."""
    return next((pr for pr in prs if pr.head == head and pr.base == base), None)


# ============================================================================ interface


class Forge(ABC):
    """One forge repository."""

    name = "forge"
    # Does the forge mark a PR merged when its head reaches the base by an outside push?
    # GitHub and GitLab do; Gitea and Forgejo only with "autodetect manual merge" (off by
    # default), so approve merges theirs through the API.
    detects_outside_merge = True

    @abstractmethod
    def find_open(self, head: str, base: str) -> PullRequest | None:
        """The open PR from ``head`` into ``base``, if there is one."""

    @abstractmethod
    def open_draft(self, head: str, base: str, title: str, body: str) -> PullRequest:
        """Open a draft PR (or return the open one for the same branches)."""

    @abstractmethod
    def get(self, number: int) -> PullRequest:
        """One PR by number, with its current state."""

    @abstractmethod
    def close(self, pr: PullRequest, comment: str) -> None:
        """Comment on the PR, then close it."""

    @abstractmethod
    def merge(self, pr: PullRequest, head_sha: str | None = None) -> None:
        """Merge the PR on the forge (a merge commit); refused when the head is not ``head_sha``."""

    # Comments (``pr-notes --comment``): the REST back ends have them; gh does not (yet).

    def comments(self, number: int) -> list[Comment]:
        """Every comment on PR ``number``, oldest first."""
        raise self._no_comments()

    def add_comment(self, number: int, body: str) -> Comment:
        raise self._no_comments()

    def edit_comment(self, number: int, comment: Comment, body: str) -> None:
        raise self._no_comments()

    def delete_comment(self, number: int, comment: Comment) -> None:
        raise self._no_comments()

    def _no_comments(self) -> Exception:
        from reflectgit.errors import ForgeError

        return ForgeError(
            f"the {self.name} back end cannot comment on pull requests",
            hint="give the forge's REST API a token (GH_TOKEN / GITHUB_TOKEN, GITLAB_TOKEN, "
            "GITEA_TOKEN)",
        )
