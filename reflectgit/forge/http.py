"""JSON over HTTP for the REST back ends (GitHub, GitLab, Gitea): urllib, a timeout, an auth
header, proxies from the given environment, forge errors flattened into one line.

Forges as they really answer:

- an answer that is not JSON (a 200 with an SSO login page, a proxy's HTML, a wrong
  ``api_url``) is a ``ForgeError`` naming the URL, never data;
- rate limits are waited out, within bounds: ``Retry-After`` (seconds or an HTTP date) on
  429, 503 or GitHub's secondary-limit 403; ``x-ratelimit-remaining: 0`` with
  ``x-ratelimit-reset`` (epoch seconds) on GitHub's primary-limit 403/429, and before the next
  request after a response that spent the last call. One wait is at most ``max_wait`` seconds
  (``[forge] max_wait``, default 60) and at most ``MAX_RETRIES`` waits per request; a limit
  that lasts longer fails at once, saying when to try again.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from reflectgit import __version__
from reflectgit.errors import ForgeError
from reflectgit.forge.base import (
    COMMENT_PAGES,
    DEFAULT_TIMEOUT,
    PAGE_SIZE,
    TOKEN_VARIABLES,
    Forge,
    PullRequest,
)

DEFAULT_MAX_WAIT = 60.0
MAX_RETRIES = 3

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
        max_wait: float = DEFAULT_MAX_WAIT,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers = {
            "User-Agent": f"reflect-git/{__version__}",
            "Accept": "application/json",
            **headers,
        }
        self.timeout = timeout
        self.forge = forge
        self.max_wait = max_wait
        self.waited: list[float] = []  # every rate-limit wait, in seconds (for the report)
        self._not_before = 0.0  # epoch seconds: the primary limit is spent until then
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
        for attempt in range(MAX_RETRIES + 1):
            self._respect(self._not_before - time.time(), method, path, url)
            req = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                with self._opener.open(req, timeout=self.timeout) as resp:
                    raw = resp.read()
                    self._remember_limit(resp.headers)
                    return ApiResponse(resp.status, self._json(raw, resp.headers, url))
            except urllib.error.HTTPError as exc:
                raw = exc.read() if exc.fp is not None else b""
                self._remember_limit(exc.headers)
                wait = rate_limit_wait(exc.code, exc.headers, raw)
                if wait is not None and attempt < MAX_RETRIES:
                    self._respect(wait, method, path, url)
                    continue
                detail = _error_text(json_or_none(raw)) or exc.reason or ""
                if wait is not None:
                    detail = f"rate limited ({detail})" if detail else "rate limited"
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
                    hint="check REFLECT_FORGE_API_URL or [forge] api_url in your reflect-git config.toml and the network",
                ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _json(self, raw: bytes, headers: Any, url: str) -> Any:
        """The body as JSON; anything else (an HTML login page, say) is an error naming the URL."""
        if not raw.strip():
            return None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            pass
        kind = (headers.get("Content-Type") or "no content type").split(";")[0].strip()
        looks = "an HTML page" if b"<html" in raw[:2048].lower() else f"{kind}"
        raise ForgeError(
            f"the {self.forge} API at {redact_url(url)} answered with {looks}, not JSON",
            hint="a single sign-on page or a proxy answered instead of the API: check [forge] "
            "api_url in your reflect-git config.toml (GitHub Enterprise ends in /api/v3, GitLab in /api/v4, "
            "Gitea and Forgejo in /api/v1) and that the token is accepted without a browser login",
        )

    def _remember_limit(self, headers: Any) -> None:
        """GitHub says how many calls are left; when none are, the next call waits for the reset."""
        if headers is None:
            return
        remaining, reset = headers.get("x-ratelimit-remaining"), headers.get("x-ratelimit-reset")
        if remaining is not None and remaining.strip() == "0" and reset:
            with contextlib.suppress(ValueError):
                self._not_before = float(reset)

    def _respect(self, wait: float, method: str, path: str, url: str) -> None:
        """Sleep ``wait`` seconds when it is within bounds; refuse at once when it is not."""
        if wait <= 0:
            return
        if wait > self.max_wait:
            until = time.strftime("%H:%M:%S UTC", time.gmtime(time.time() + wait))
            raise ForgeError(
                f"{self.forge} API {method} {path}: rate limited for {wait:.0f} s more "
                f"(at {redact_url(url)})",
                hint=f"try again after {until}; [forge] max_wait = {self.max_wait:g} s bounds "
                "how long reflect-git waits by itself",
            )
        self.waited.append(wait)
        time.sleep(wait)


def rate_limit_wait(status: int, headers: Any, raw: bytes = b"") -> float | None:
    """Seconds to wait before retrying, when the answer is a rate limit; None when it is not.

    429 and 503 with ``Retry-After``; GitHub's 403/429 with ``Retry-After`` (secondary limits)
    or with ``x-ratelimit-remaining: 0`` (the primary limit, until ``x-ratelimit-reset``);
    a 403/429 whose message says "rate limit" and gives neither waits a minute, as GitHub asks.
    """
    if headers is None or status not in {403, 429, 503}:
        return None
    retry_after = parse_retry_after(headers.get("Retry-After"))
    if retry_after is not None:
        return retry_after
    if status == 503:
        return None
    remaining, reset = headers.get("x-ratelimit-remaining"), headers.get("x-ratelimit-reset")
    if remaining is not None and remaining.strip() == "0" and reset:
        try:
            return max(0.0, float(reset) - time.time()) + 1.0
        except ValueError:
            return 60.0
    if status == 429 or b"rate limit" in raw.lower():
        return 60.0
    return None


def parse_retry_after(value: str | None) -> float | None:
    """``Retry-After``: delay seconds, or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def redact_url(url: str) -> str:
    """A URL fit to print: no user info, no query (tokens travel there on some forges)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))


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
        return "check [forge] repo and api_url (api_url: REFLECT_FORGE_API_URL or your reflect-git config.toml) (and that the token can see the repository)"
    return None


def is_duplicate(exc: ForgeHTTPError) -> bool:
    return exc.status in {409, 422} and "already exist" in exc.detail.lower()


def posted(post: Callable[[], PullRequest], forge: Forge, head: str, base: str) -> PullRequest:
    """The pull request ``post()`` opens; when the forge answers that one is already open from
    ``head`` into ``base``, that one."""
    try:
        return post()
    except ForgeHTTPError as exc:
        if is_duplicate(exc):
            existing = forge.find_open(head, base)
            if existing:
                return existing
        raise


def as_mapping(data: Any, what: str) -> Mapping[str, Any]:
    """A JSON object where the forge must answer one (a pull request, say)."""
    if not isinstance(data, Mapping):
        raise ForgeError(
            f"the forge answered {what} with {type(data).__name__}, not an object",
            hint="check [forge] provider and api_url (REFLECT_FORGE_* or your reflect-git config.toml)",
        )
    return data


def as_list(data: Any, what: str) -> list[Mapping[str, Any]]:
    """A JSON list of objects where the forge must answer one (a listing)."""
    if data is None:
        return []
    if not isinstance(data, list) or not all(isinstance(item, Mapping) for item in data):
        raise ForgeError(
            f"the forge answered {what} with something other than a list of objects",
            hint="check [forge] provider and api_url (REFLECT_FORGE_* or your reflect-git config.toml)",
        )
    return data


def listed(
    client: HttpClient,
    path: str,
    what: str,
    query: Mapping[str, Any] | None = None,
    size: tuple[str, int] = ("per_page", PAGE_SIZE),
    pages: int = COMMENT_PAGES,
) -> Iterator[Mapping[str, Any]]:
    """The items of a paged listing (``GET path``), page after page until one comes back
    short, ``pages`` at the most; ``size``: the forge's name for a page's size, and that size."""
    name, per_page = size
    for page in range(1, pages + 1):
        resp = client.request("GET", path, query={name: per_page, "page": page, **(query or {})})
        items = as_list(resp.data, what)
        yield from items
        if len(items) < per_page:
            return
