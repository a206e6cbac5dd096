"""The only module that talks to a forge: draft pull requests on GitHub, GitLab, Gitea/Forgejo.

Four back ends, one small interface (find the open PR for a branch, open a draft, close with a
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

import dataclasses
import json
import re
import shutil
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reflectgit import __version__
from reflectgit.errors import ConfigError, ForgeError

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


def manual_pr_url(remote_url: str, head: str, base: str, provider: str | None = None) -> str | None:
    """The web page where a person can open the PR by hand, when we can tell."""
    ref = parse_remote_url(remote_url)
    if ref is None or not ref.path:
        return None
    kind = provider or provider_for_host(ref.host)
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


# ============================================================================ interface


class Forge(ABC):
    """One forge repository."""

    name = "forge"

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
    def merge(self, pr: PullRequest) -> None:
        """Merge the PR on the forge (a merge commit)."""


# ============================================================================ HTTP


@dataclass(frozen=True)
class ApiResponse:
    status: int
    data: Any


class ForgeHTTPError(ForgeError):
    """The forge answered with an HTTP error."""

    def __init__(self, message: str, status: int, detail: str, hint: str | None = None) -> None:
        super().__init__(message, hint)
        self.status = status
        self.detail = detail


class HttpClient:
    """JSON over urllib with a timeout, an auth header, and proxies from the given environment."""

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        *,
        env: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        forge: str = "forge",
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers = {
            "User-Agent": f"reflect-git/{__version__}",
            "Accept": "application/json",
            **headers,
        }
        self.timeout = timeout
        self.forge = forge
        self._opener = urllib.request.build_opener(
            urllib.request.ProxyHandler(_proxies(env or {}, self.base_url))
        )

    def request(
        self,
        method: str,
        path: str,
        payload: Any = None,
        query: Mapping[str, Any] | None = None,
    ) -> ApiResponse:
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        data = None
        headers = dict(self.headers)
        if payload is not None:
            data = json.dumps(payload).encode("utf-8")
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self._opener.open(req, timeout=self.timeout) as resp:
                raw = resp.read()
                return ApiResponse(resp.status, _json_or_none(raw))
        except urllib.error.HTTPError as exc:
            raw = exc.read() if exc.fp is not None else b""
            detail = _error_text(_json_or_none(raw)) or exc.reason or ""
            raise ForgeHTTPError(
                f"{self.forge} API {method} {path} failed: HTTP {exc.code}: {detail}",
                exc.code,
                str(detail),
                hint=_status_hint(exc.code, self.forge),
            ) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ForgeError(
                f"cannot reach the {self.forge} API at {self.base_url}: {reason}",
                hint="check [forge] api_url in .reflect-git.toml and the network",
            ) from None


def _proxies(env: Mapping[str, str], base_url: str) -> dict[str, str]:
    host = (urllib.parse.urlsplit(base_url).hostname or "").lower()
    if host in {"127.0.0.1", "localhost", "::1"}:
        return {}
    no_proxy = (env.get("no_proxy") or env.get("NO_PROXY") or "").lower()
    for item in (p.strip().lstrip(".") for p in no_proxy.split(",")):
        if item and (item == "*" or host == item or host.endswith("." + item)):
            return {}
    proxies = {}
    for scheme in ("http", "https"):
        value = env.get(f"{scheme}_proxy") or env.get(f"{scheme.upper()}_PROXY")
        if value:
            proxies[scheme] = value
    return proxies


def _json_or_none(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return raw.decode("utf-8", "replace")[:300]


def _error_text(data: Any) -> str:
    """Flatten the error shapes of GitHub, GitLab and Gitea into one line."""
    if isinstance(data, str):
        return data.strip()
    if not isinstance(data, Mapping):
        return ""
    parts: list[str] = []
    message = data.get("message") or data.get("error")
    if isinstance(message, list):
        parts.extend(str(m) for m in message)
    elif isinstance(message, Mapping):
        parts.extend(f"{k}: {v}" for k, v in message.items())
    elif message:
        parts.append(str(message))
    for err in data.get("errors") or []:
        if isinstance(err, Mapping):
            parts.append(str(err.get("message") or err.get("code") or err))
        else:
            parts.append(str(err))
    return "; ".join(parts)


def _status_hint(status: int, forge: str) -> str | None:
    if status in {401, 403}:
        names = " or ".join(TOKEN_VARIABLES.get(forge, ()))
        where = f"set {names}, or " if names else ""
        return f"{where}give git a credential for the forge host; the token needs write access to pull requests"
    if status == 404:
        return "check [forge] repo and api_url in .reflect-git.toml (and that the token can see the repository)"
    return None


def _is_duplicate(exc: ForgeHTTPError) -> bool:
    return exc.status in {409, 422} and "already exist" in exc.detail.lower()


# ============================================================================ GitHub


class GitHubForge(Forge):
    """GitHub (and GitHub Enterprise) REST v3."""

    name = "github"

    def __init__(self, client: HttpClient, repo: str) -> None:
        self.client = client
        self.repo = repo
        self.owner = repo.split("/", 1)[0]

    def _pr(self, data: Mapping[str, Any]) -> PullRequest:
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
        for item in resp.data or []:
            pr = self._pr(item)
            if pr.head == head and pr.base == base:
                return pr
        return None

    def open_draft(self, head: str, base: str, title: str, body: str) -> PullRequest:
        payload = {"title": title, "head": head, "base": base, "body": body, "draft": True}
        try:
            return self._create(payload)
        except ForgeHTTPError as exc:
            if exc.status == 422 and "draft" in exc.detail.lower() and not _is_duplicate(exc):
                # Drafts are not available on this repository's plan: say it in the title.
                payload = {**payload, "draft": False, "title": DRAFT_PREFIX["github"] + title}
                return self._create(payload)
            raise

    def _create(self, payload: Mapping[str, Any]) -> PullRequest:
        """POST a pull request; when one is already open for head and base, that one."""
        try:
            return self._pr(self.client.request("POST", f"/repos/{self.repo}/pulls", payload).data)
        except ForgeHTTPError as exc:
            if _is_duplicate(exc):
                existing = self.find_open(str(payload["head"]), str(payload["base"]))
                if existing:
                    return existing
            raise

    def get(self, number: int) -> PullRequest:
        return self._pr(self.client.request("GET", f"/repos/{self.repo}/pulls/{number}").data)

    def close(self, pr: PullRequest, comment: str) -> None:
        if comment:
            self.client.request(
                "POST", f"/repos/{self.repo}/issues/{pr.number}/comments", {"body": comment}
            )
        self.client.request("PATCH", f"/repos/{self.repo}/pulls/{pr.number}", {"state": "closed"})

    def merge(self, pr: PullRequest) -> None:
        self.client.request(
            "PUT", f"/repos/{self.repo}/pulls/{pr.number}/merge", {"merge_method": "merge"}
        )


# ============================================================================ GitLab


class GitLabForge(Forge):
    """GitLab REST v4 merge requests; a ``Draft:`` title makes the draft."""

    name = "gitlab"

    def __init__(self, client: HttpClient, repo: str) -> None:
        self.client = client
        self.project = urllib.parse.quote(repo, safe="")

    def _mr(self, data: Mapping[str, Any]) -> PullRequest:
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
        for item in resp.data or []:
            mr = self._mr(item)
            if mr.head == head and mr.base == base:
                return mr
        return None

    def open_draft(self, head: str, base: str, title: str, body: str) -> PullRequest:
        payload = {
            "source_branch": head,
            "target_branch": base,
            "title": DRAFT_PREFIX["gitlab"] + title,
            "description": body,
            "remove_source_branch": True,
        }
        try:
            data = self.client.request(
                "POST", f"/projects/{self.project}/merge_requests", payload
            ).data
        except ForgeHTTPError as exc:
            if _is_duplicate(exc):
                existing = self.find_open(head, base)
                if existing:
                    return existing
            raise
        return self._mr(data)

    def get(self, number: int) -> PullRequest:
        return self._mr(
            self.client.request("GET", f"/projects/{self.project}/merge_requests/{number}").data
        )

    def close(self, pr: PullRequest, comment: str) -> None:
        base = f"/projects/{self.project}/merge_requests/{pr.number}"
        if comment:
            self.client.request("POST", f"{base}/notes", {"body": comment})
        self.client.request("PUT", base, {"state_event": "close"})

    def merge(self, pr: PullRequest) -> None:
        self.client.request("PUT", f"/projects/{self.project}/merge_requests/{pr.number}/merge", {})


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
        for item in _json_or_none(out.encode()) or []:
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

    def merge(self, pr: PullRequest) -> None:
        self._run("pr", "merge", str(pr.number), "--repo", self.repo, "--merge")


# ============================================================================ choosing


@dataclass(frozen=True)
class ForgeChoice:
    """The forge to use, or why there is none (and where to open the PR by hand)."""

    forge: Forge | None
    reason: str
    provider: str | None = None


def credential_fill(
    host: str, protocol: str, env: Mapping[str, str], timeout: float = DEFAULT_TIMEOUT
) -> str | None:
    """Ask git's credential helpers for the host's password (a token); None when there is none."""
    request = f"protocol={protocol}\nhost={host}\n\n"
    run_env = {**env, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
    try:
        proc = subprocess.run(
            ["git", "credential", "fill"],
            input=request,
            capture_output=True,
            text=True,
            env=run_env,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    for line in proc.stdout.splitlines():
        key, _, value = line.partition("=")
        if key == "password" and value:
            return value
    return None


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


def choose_forge(
    remote_url: str,
    settings: Mapping[str, Any],
    env: Mapping[str, str],
) -> ForgeChoice:
    """Pick the forge for a team remote from ``[forge]`` settings, else from its host."""
    provider = settings.get("provider")
    if provider is not None and (not isinstance(provider, str) or provider not in PROVIDERS):
        raise ConfigError(
            f"[forge] provider = {provider!r} is not one of {', '.join(PROVIDERS)}",
            hint="fix .reflect-git.toml",
        )
    if provider == "none":
        return ForgeChoice(None, "[forge] provider is none")
    ref = parse_remote_url(remote_url)
    repo = settings.get("repo") or (ref.path if ref else None)
    if ref is None and not settings.get("api_url"):
        return ForgeChoice(None, f"the team remote {remote_url} is not on a forge")
    if ref is None:
        api = urllib.parse.urlsplit(str(settings["api_url"]))
        ref = RepoRef(api.netloc, str(repo or ""), api.scheme or "https")
    kind = provider or provider_for_host(ref.host)
    if kind is None:
        return ForgeChoice(
            None,
            f"cannot tell which forge {ref.host} runs; set [forge] provider in .reflect-git.toml",
        )
    if not repo or "/" not in str(repo):
        return ForgeChoice(
            None, f"cannot tell the forge repository from {remote_url}; set [forge] repo", kind
        )
    repo = str(repo)
    kind = "gitea" if kind == "forgejo" else kind
    timeout = float(settings.get("timeout") or DEFAULT_TIMEOUT)
    host = str(settings.get("host") or ref.hostname)

    if kind == "gh":
        gh = gh_login(host, env, timeout)
        if gh is None:
            return ForgeChoice(None, f"gh is not installed or not logged in to {host}", kind)
        return ForgeChoice(GhCliForge(gh, repo, host, env, timeout), f"gh CLI ({host})", kind)

    token = _token_from_env(kind, settings, env)
    source = "environment"
    if token is None and kind == "github":
        gh = gh_login(host, env, timeout)
        if gh is not None:
            return ForgeChoice(GhCliForge(gh, repo, host, env, timeout), f"gh CLI ({host})", "gh")
    if token is None:
        token = credential_fill(ref.hostname, ref.scheme, env, timeout)
        source = "git credential"
    if token is None:
        names = " or ".join(TOKEN_VARIABLES[kind])
        return ForgeChoice(None, f"no {kind} token (set {names})", kind)
    api_url = str(settings.get("api_url") or default_api_url(kind, ref))
    if kind == "github":
        client = HttpClient(
            api_url,
            {
                "Authorization": f"Bearer {token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
            },
            env=env,
            timeout=timeout,
            forge=kind,
        )
        return ForgeChoice(GitHubForge(client, repo), f"GitHub API ({source})", kind)
    if kind == "gitlab":
        client = HttpClient(api_url, {"PRIVATE-TOKEN": token}, env=env, timeout=timeout, forge=kind)
        return ForgeChoice(GitLabForge(client, repo), f"GitLab API ({source})", kind)
    client = HttpClient(
        api_url, {"Authorization": f"token {token}"}, env=env, timeout=timeout, forge=kind
    )
    return ForgeChoice(GiteaForge(client, repo), f"Gitea API ({source})", kind)


def _token_from_env(kind: str, settings: Mapping[str, Any], env: Mapping[str, str]) -> str | None:
    names = list(TOKEN_VARIABLES.get(kind, ()))
    extra = settings.get("token_env")
    if isinstance(extra, str) and extra:
        names.insert(0, extra)
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return value
    return None
