"""Which forge a team remote lives on, and how to authenticate: ``[forge]`` settings, the host
name, tokens from the environment, ``gh``, or git's credential helpers."""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reflectgit.errors import ConfigError
from reflectgit.forge.base import (
    DEFAULT_TIMEOUT,
    PROVIDERS,
    TOKEN_VARIABLES,
    Forge,
    RepoRef,
    default_api_url,
    parse_remote_url,
    provider_for_host,
)
from reflectgit.forge.gh import GhCliForge, gh_login
from reflectgit.forge.gitea import GiteaForge
from reflectgit.forge.github import GitHubForge
from reflectgit.forge.gitlab import GitLabForge
from reflectgit.forge.http import DEFAULT_MAX_WAIT, HttpClient
from reflectgit.git.credential import fill_login

# ============================================================================ choosing


@dataclass(frozen=True)
class ForgeChoice:
    """The forge to use, or why there is none (and where to open the PR by hand)."""

    forge: Forge | None
    reason: str
    provider: str | None = None


def choose_forge(
    remote_url: str,
    settings: Mapping[str, Any],
    env: Mapping[str, str],
) -> ForgeChoice:
    """Pick the forge for a team remote from ``[forge]`` settings, else from its host.

    ``settings`` are trusted as given (``config.forge_settings`` keeps a committed file from
    choosing where a token goes); a token is sent only over https, or http to loopback.
    """
    provider = settings.get("provider")
    if provider is not None and (not isinstance(provider, str) or provider not in PROVIDERS):
        raise ConfigError(
            f"[forge] provider = {provider!r} is not one of {', '.join(PROVIDERS)}",
            hint="fix REFLECT_FORGE_PROVIDER or [forge] provider in your reflect-git config.toml",
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
            f"cannot tell which forge {ref.host} runs; set REFLECT_FORGE_PROVIDER or [forge] provider in your reflect-git config.toml",
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

    api_url = str(settings.get("api_url") or default_api_url(kind, ref))
    refused = plain_http(api_url)
    if refused:
        return ForgeChoice(None, refused, kind)
    token = _token_from_env(kind, settings, env)
    source = "environment"
    login = None
    if token is None and kind == "github":
        gh = gh_login(host, env, timeout)
        if gh is not None:
            return ForgeChoice(GhCliForge(gh, repo, host, env, timeout), f"gh CLI ({host})", "gh")
    if token is None:
        login = fill_login(ref.hostname, ref.scheme, env, timeout)
        token = login[1] if login else None
        source = "git credential"
    if token is None:
        names = " or ".join(TOKEN_VARIABLES[kind])
        return ForgeChoice(None, f"no {kind} token (set {names})", kind)
    max_wait = _number(settings.get("max_wait"), DEFAULT_MAX_WAIT)
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
            max_wait=max_wait,
        )
        return ForgeChoice(GitHubForge(client, repo), f"GitHub API ({source})", kind)
    if kind == "gitlab":
        header, how = gitlab_auth(token, login, settings)
        client = HttpClient(
            api_url, header, env=env, timeout=timeout, forge=kind, max_wait=max_wait
        )
        return ForgeChoice(GitLabForge(client, repo), f"GitLab API ({source}, {how})", kind)
    client = HttpClient(
        api_url,
        {"Authorization": f"token {token}"},
        env=env,
        timeout=timeout,
        forge=kind,
        max_wait=max_wait,
    )
    return ForgeChoice(GiteaForge(client, repo), f"Gitea API ({source})", kind)


def plain_http(url: str) -> str | None:
    """Why a token must not go to ``url``: anything but https, except http to this machine's
    loopback (a test forge); None when it may."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https":
        return None
    host = (parts.hostname or "").lower()
    if parts.scheme == "http" and _loopback(host):
        return None
    return (
        f"refusing to send a token to {parts.scheme or 'a URL without a scheme'}://{host}: "
        "tokens go only over https (set an https API URL with REFLECT_FORGE_API_URL or "
        "[forge] api_url in your own config file)"
    )


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    import ipaddress

    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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


GITLAB_AUTH = ("private-token", "bearer")


def gitlab_auth(
    token: str, login: tuple[str, str] | None, settings: Mapping[str, Any]
) -> tuple[dict[str, str], str]:
    """The header GitLab wants for this token, and which it is.

    GitLab takes an OAuth token only as ``Authorization: Bearer``; ``PRIVATE-TOKEN`` is for
    personal, project and group access tokens (which Bearer also accepts). A token from git's
    credential helpers is sent as Bearer (helpers that do OAuth store it there, and a personal
    token works that way too); a token from the environment as ``PRIVATE-TOKEN``, unless
    ``[forge] auth = "bearer"`` says otherwise.
    """
    chosen = settings.get("auth")
    if chosen is not None and chosen not in GITLAB_AUTH:
        raise ConfigError(
            f"[forge] auth = {chosen!r} is not one of {', '.join(GITLAB_AUTH)}",
            hint="fix [forge] in .reflect-git.toml or your reflect-git config.toml",
        )
    if chosen is None:
        chosen = "bearer" if login is not None else "private-token"
    if chosen == "bearer":
        return {"Authorization": f"Bearer {token}"}, "Authorization: Bearer"
    return {"PRIVATE-TOKEN": token}, "PRIVATE-TOKEN"


def _number(value: Any, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ConfigError(
            f"[forge] max_wait = {value!r} is not a number of seconds >= 0",
            hint="fix [forge] in .reflect-git.toml or your reflect-git config.toml",
        )
    return float(value)
