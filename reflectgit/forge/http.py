"""JSON over HTTP for the REST back ends (GitHub, GitLab, Gitea): urllib, a timeout, an auth
header, proxies from the given environment, forge errors flattened into one line."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reflectgit import __version__
from reflectgit.errors import ForgeError
from reflectgit.forge.base import DEFAULT_TIMEOUT, TOKEN_VARIABLES

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
                return ApiResponse(resp.status, json_or_none(raw))
        except urllib.error.HTTPError as exc:
            raw = exc.read() if exc.fp is not None else b""
            detail = _error_text(json_or_none(raw)) or exc.reason or ""
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


def json_or_none(raw: bytes) -> Any:
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


def is_duplicate(exc: ForgeHTTPError) -> bool:
    return exc.status in {409, 422} and "already exist" in exc.detail.lower()
