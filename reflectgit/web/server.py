"""Run the web app on uvicorn: bind first (so the printed URL names the real port), serve
until Ctrl-C, then stop cleanly (uvicorn finishes the requests in flight)."""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reflectgit.config import Config
from reflectgit.errors import ReflectGitError
from reflectgit.web.security import Guard, new_token

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass
class Bound:
    """A listening socket and the URL (with the token) that opens the UI."""

    sock: socket.socket
    host: str
    port: int
    token: str

    @property
    def url(self) -> str:
        name = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{name}:{self.port}/?token={self.token}"

    @property
    def loopback(self) -> bool:
        return self.host in LOOPBACK


def bind(host: str, port: int, token: str | None = None) -> Bound:
    """Listen on host:port (port 0: any free one); a clear error when it is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ReflectGitError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}",
            hint="pick another port with --port N (0 picks a free one)",
        ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return Bound(sock, host, sock.getsockname()[1], token or new_token())


def serve(
    cfg: Config,
    bound: Bound,
    *,
    read_only: bool = False,
    on_started: Callable[[], None] | None = None,
    code: Path | None = None,
) -> None:
    """Serve until SIGINT or SIGTERM; returns once uvicorn has shut down."""
    import uvicorn

    from reflectgit.web.app import Settings, create_app

    guard = Guard.for_server(bound.token, bound.host, bound.port)
    app = create_app(Settings(cfg, guard, read_only, code))
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=5,
        server_header=False,
    )
    server = uvicorn.Server(config)
    if on_started is not None:
        original = server.startup

        async def startup(sockets: list[socket.socket] | None = None) -> None:
            await original(sockets=sockets)
            on_started()

        server.startup = startup  # type: ignore[method-assign]
    try:
        server.run(sockets=[bound.sock])
    except KeyboardInterrupt:
        pass  # uvicorn re-raises the Ctrl-C it caught once it has shut down: that is our stop
    finally:
        bound.sock.close()
