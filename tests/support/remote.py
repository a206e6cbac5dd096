"""Real git servers on loopback for the routing tests: ``git daemon`` and ``git http-backend``.

Both serve bare repositories created with ``git init --bare -b main`` under one base folder.
The HTTP server is a small threaded CGI host in front of ``git http-backend`` with basic auth,
so a wrong password is refused exactly the way a forge refuses it (401, then git gives up
because ``GIT_TERMINAL_PROMPT=0``).
"""

from __future__ import annotations

import base64
import itertools
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

HOST = "127.0.0.1"
USER = "alice"
PASSWORD = "s3cret-pass"
_names = itertools.count(1)


def server_env(home: Path) -> dict[str, str]:
    """A hermetic environment for server processes (they outlive any one test's monkeypatch)."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
    }


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[bytes] | None = None) -> bool:
    """Poll until something accepts on the port (start-up, not a timing assertion)."""
    for _ in range(400):
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with socket.create_connection((HOST, port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.025)
    return False


def init_bare(path: Path, env: dict[str, str] | None = None) -> Path:
    """``git init --bare -b main PATH``."""
    subprocess.run(
        ["git", "init", "-q", "--bare", "-b", "main", str(path)],
        check=True,
        capture_output=True,
        env=env,
    )
    return path


@dataclass
class BareRepo:
    """One bare repository on a server: where it is on disk and how clients reach it."""

    path: Path
    url: str
    name: str

    def git(self, *args: str, check: bool = True) -> str:
        """Run git inside the bare repository (what the server sees)."""
        proc = subprocess.run(
            ["git", "--git-dir", str(self.path), *args],
            capture_output=True,
            text=True,
            check=False,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed:\n{proc.stderr}")
        return proc.stdout

    def heads(self) -> dict[str, str]:
        """``refs/heads/*`` of the bare repository: branch -> sha."""
        out = self.git("for-each-ref", "--format=%(refname:strip=2) %(objectname)", "refs/heads")
        return dict(line.split(" ", 1) for line in out.splitlines() if line)

    def files(self, rev: str = "main") -> list[str]:
        return self.git("ls-tree", "-r", "--name-only", rev).split()

    def seed(self, files: dict[str, str], message: str = "seed") -> str:
        """Commit files onto ``main`` directly in the bare repository (plumbing, no clone)."""
        env = {
            **os.environ,
            "GIT_DIR": str(self.path),
            "GIT_INDEX_FILE": str(self.path / "seed.idx"),
        }
        parent = self.heads().get("main")
        try:
            if parent:
                subprocess.run(["git", "read-tree", parent], env=env, check=True)
            for rel, text in files.items():
                blob = (
                    subprocess.run(
                        ["git", "hash-object", "-w", "--stdin"],
                        input=text.encode(),
                        env=env,
                        check=True,
                        capture_output=True,
                    )
                    .stdout.decode()
                    .strip()
                )
                subprocess.run(
                    ["git", "update-index", "--add", "--cacheinfo", f"100644,{blob},{rel}"],
                    env=env,
                    check=True,
                )
            tree = subprocess.run(
                ["git", "write-tree"], env=env, check=True, capture_output=True, text=True
            ).stdout.strip()
            args = ["git", "commit-tree", tree, "-m", message]
            if parent:
                args += ["-p", parent]
            sha = subprocess.run(
                args, env=env, check=True, capture_output=True, text=True
            ).stdout.strip()
            subprocess.run(["git", "update-ref", "refs/heads/main", sha], env=env, check=True)
        finally:
            (self.path / "seed.idx").unlink(missing_ok=True)
        return sha


@dataclass
class GitDaemon:
    """A running ``git daemon`` with receive-pack enabled."""

    base: Path
    port: int
    proc: subprocess.Popen[bytes]
    env: dict[str, str] = field(repr=False)

    def new_repo(self, name: str | None = None) -> BareRepo:
        name = name or f"team-{next(_names)}.git"
        path = init_bare(self.base / name, self.env)
        return BareRepo(path, f"git://{HOST}:{self.port}/{name}", name)


def start_daemon(base: Path, env: dict[str, str]) -> GitDaemon:
    for _ in range(5):
        port = free_port()
        proc = subprocess.Popen(
            [
                "git",
                "daemon",
                "--reuseaddr",
                "--informative-errors",
                f"--listen={HOST}",
                f"--port={port}",
                f"--base-path={base}",
                "--export-all",
                "--enable=receive-pack",
                str(base),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if wait_listening(port, proc):
            return GitDaemon(base, port, proc, env)
        proc.kill()
        proc.wait()
    raise RuntimeError("git daemon did not start")


class _CGIHandler(BaseHTTPRequestHandler):
    """Basic auth, then hand the request to ``git http-backend`` as a CGI script."""

    server: _GitHTTPServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: object) -> None:  # quiet test output
        return

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _authorized(self) -> str | None:
        header = self.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return None
        try:
            user, _, password = base64.b64decode(header[6:]).decode().partition(":")
        except ValueError:
            return None
        return user if self.server.credentials.get(user) == password else None

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _serve(self) -> None:
        self.server.requests.append((self.command, self.path))
        user = self._authorized()
        if user is None:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="team"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = self._body() if self.command == "POST" else b""
        parts = urlsplit(self.path)
        env = dict(self.server.env)
        env.update(
            {
                "GIT_PROJECT_ROOT": str(self.server.base),
                "GIT_HTTP_EXPORT_ALL": "1",
                "PATH_INFO": parts.path,
                "QUERY_STRING": parts.query,
                "REQUEST_METHOD": self.command,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "CONTENT_LENGTH": str(len(body)),
                "REMOTE_USER": user,
                "REMOTE_ADDR": HOST,
                "GATEWAY_INTERFACE": "CGI/1.1",
            }
        )
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        proc = subprocess.run(
            ["git", "http-backend"], input=body, capture_output=True, env=env, check=False
        )
        out = proc.stdout
        head, sep, payload = out.partition(b"\r\n\r\n")
        if not sep:
            head, _, payload = out.partition(b"\n\n")
        status = 200
        headers: list[tuple[str, str]] = []
        for line in head.decode("latin-1").splitlines():
            key, _, value = line.partition(":")
            if key.lower() == "status":
                status = int(value.strip().split()[0])
            elif key:
                headers.append((key.strip(), value.strip()))
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class _GitHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, base: Path, env: dict[str, str], credentials: dict[str, str]) -> None:
        super().__init__((HOST, 0), _CGIHandler)
        self.base = base
        self.env = env
        self.credentials = credentials
        self.requests: list[tuple[str, str]] = []


@dataclass
class GitHTTP:
    """A running smart-HTTP git server with basic auth (user ``alice``)."""

    base: Path
    server: _GitHTTPServer
    env: dict[str, str] = field(repr=False)

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def url_for(self, name: str, user: str = USER, password: str | None = PASSWORD) -> str:
        cred = quote(user, safe="") + (f":{quote(password, safe='')}" if password else "")
        return f"http://{cred}@{HOST}:{self.port}/{name}"

    def new_repo(self, name: str | None = None) -> BareRepo:
        name = name or f"team-{next(_names)}.git"
        path = init_bare(self.base / name, self.env)
        return BareRepo(path, self.url_for(name), name)


@pytest.fixture(scope="session")
def git_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GitDaemon]:
    """A real ``git daemon`` on 127.0.0.1 (anonymous push enabled) for the whole session."""
    if shutil.which("git") is None:  # pragma: no cover
        pytest.skip("git is not installed")
    base = tmp_path_factory.mktemp("daemon-repos")
    env = server_env(tmp_path_factory.mktemp("daemon-home"))
    daemon = start_daemon(base, env)
    yield daemon
    daemon.proc.terminate()
    try:
        daemon.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        daemon.proc.kill()


@pytest.fixture(scope="session")
def git_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GitHTTP]:
    """A real ``git http-backend`` behind a threaded CGI server with basic auth."""
    base = tmp_path_factory.mktemp("http-repos")
    env = server_env(tmp_path_factory.mktemp("http-home"))
    server = _GitHTTPServer(base, env, {USER: PASSWORD})
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield GitHTTP(base, server, env)
    server.shutdown()
    server.server_close()


@pytest.fixture
def team_remote(git_daemon: GitDaemon) -> BareRepo:
    """A fresh, empty bare team repository served by ``git daemon``."""
    return git_daemon.new_repo()


@pytest.fixture
def prompt_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Git must never wait for a password in tests."""
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    monkeypatch.setenv("GIT_ASKPASS", "/bin/false")
    monkeypatch.setenv("SSH_ASKPASS", "/bin/false")
