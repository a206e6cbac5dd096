"""Who may talk to the server: the token, its cookie, the CSRF token, the Host header.

- A random token is printed at start (``http://127.0.0.1:PORT/?token=...``). A request carrying
  it (``?token=``, ``Authorization: token ...``) or its cookie passes; anything else gets 403.
  The first visit with ``?token=`` sets an HttpOnly, SameSite=Strict cookie and redirects to the
  same page without the token, as Jupyter does.
- Every POST carries a CSRF token (a form field or the ``X-CSRF-Token`` header) derived from the
  secret, and an ``Origin`` header, when the browser sends one, must name this server.
- The ``Host`` header must be this server's own (``127.0.0.1:PORT``, ``localhost:PORT``...):
  a DNS-rebinding page whose name resolves to 127.0.0.1 sends its own name and is refused.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

COOKIE = "reflect_git_token"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def new_token() -> str:
    return secrets.token_urlsafe(32)


@dataclass(frozen=True)
class Guard:
    """The rules of one running server."""

    token: str
    hosts: frozenset[str]

    @classmethod
    def for_server(cls, token: str, host: str, port: int) -> Guard:
        names = set(LOOPBACK_NAMES)
        names.add(f"[{host}]" if ":" in host and not host.startswith("[") else host)
        return cls(token, frozenset(f"{name}:{port}" for name in names))

    @property
    def csrf(self) -> str:
        return hmac.new(self.token.encode(), b"csrf", hashlib.sha256).hexdigest()[:40]

    def host_ok(self, host: str | None) -> bool:
        return host is not None and host.lower() in self.hosts

    def origin_ok(self, origin: str | None) -> bool:
        """No Origin (a non-browser client) or this server's own."""
        if origin is None:
            return True
        return urlsplit(origin).netloc.lower() in self.hosts

    def token_ok(self, candidates: Iterable[str | None]) -> bool:
        expected = self.token.encode()
        return any(
            c is not None and hmac.compare_digest(c.encode("utf-8", "replace"), expected)
            for c in candidates
        )

    def csrf_ok(self, value: str | None) -> bool:
        return value is not None and hmac.compare_digest(
            value.encode("utf-8", "replace"), self.csrf.encode()
        )


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: token X`` (or ``Bearer X``) header."""
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() in ("token", "bearer") else None
