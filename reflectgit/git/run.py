"""The one git runner, and the one environment policy for every git we spawn.

git exports ``GIT_DIR``, ``GIT_INDEX_FILE``, ``GIT_WORK_TREE``, ``GIT_PREFIX`` and friends to the
hooks it runs. A git that reflect-git starts from inside such a hook must find its repository by
the path we give it, not by what the caller's git left in the environment, so ``git_env`` drops
every ``GIT_*`` variable except those that carry the user's own configuration, transport and
identity. It also sets ``REFLECT_GIT_INTERNAL=1`` so our own post-commit shim and agent hooks
never capture what reflect-git itself does.

``run`` is the only place in the package that starts ``git``; everything else asks it. It
starts git with ``os.posix_spawn`` and reads its output through ``select.poll`` (``_spawn``
below), as ``subprocess.run(capture_output=True)`` does, without importing ``subprocess``
(with ``signal``, ``threading``, ``selectors`` and ``locale``: 5 to 7 ms of every ``add``).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Mapping, Sequence

from reflectgit.config import INTERNAL_ENV
from reflectgit.errors import NotFoundError, ReflectGitError
from reflectgit.records import FrozenRecord

# The GIT_* variables that describe the user, not the repository of the git that ran a hook.
KEEP = frozenset(
    {
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_NOSYSTEM",
        "GIT_CONFIG_SYSTEM",
        "GIT_CONFIG_COUNT",
        "GIT_EXEC_PATH",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_SSH_VARIANT",
        "GIT_ASKPASS",
        "GIT_TERMINAL_PROMPT",
        "GIT_CEILING_DIRECTORIES",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_COMMITTER_DATE",
        "GIT_HTTP_USER_AGENT",
        "GIT_SSL_NO_VERIFY",
        "GIT_SSL_CAINFO",
        "GIT_TRACE",
        "GIT_TRACE2",
        "GIT_TRACE2_EVENT",
        "GIT_TRACE_PACKET",
        "GIT_CURL_VERBOSE",
        "GIT_PROTOCOL_FROM_USER",
        "GIT_ALLOW_PROTOCOL",
    }
)
DEFAULT_TIMEOUT = 60.0


def without_hook_vars(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` minus the ``GIT_*`` variables a hook inherits (not marked: a hook reads its own
    settings from this, and must still see whether reflect-git started it)."""
    return {
        k: v
        for k, v in env.items()
        if not k.startswith("GIT_")
        or k in KEEP
        or k.startswith("GIT_CONFIG_KEY_")
        or k.startswith("GIT_CONFIG_VALUE_")
    }


def git_env(env: Mapping[str, str], **extra: str) -> dict[str, str]:
    """``env`` minus the ``GIT_*`` variables a hook inherits, marked as reflect-git's own."""
    out = without_hook_vars(env)
    out[INTERNAL_ENV] = "1"
    out.update(extra)
    return out


class Result(FrozenRecord):
    """What a git command returned."""

    _FIELDS = ("code", "stdout", "stderr")
    code: int
    stdout: bytes
    stderr: bytes

    def __init__(self, code: int, stdout: bytes, stderr: bytes) -> None:
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "stdout", stdout)
        object.__setattr__(self, "stderr", stderr)

    @property
    def ok(self) -> bool:
        return self.code == 0

    @property
    def out(self) -> str:
        """stdout as text, surrounding white space stripped."""
        return self.stdout.decode("utf-8", "surrogateescape").strip()

    @property
    def err(self) -> str:
        """stderr as text, surrounding white space stripped."""
        return self.stderr.decode("utf-8", "replace").strip()


class GitFailed(ReflectGitError):
    """A git command we needed failed."""


def run(
    args: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    git_dir: str | os.PathLike[str] | None = None,
    work_tree: str | os.PathLike[str] | None = None,
    input: bytes | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    extra_env: Mapping[str, str] | None = None,
    check: bool = False,
) -> Result:
    """Run ``git ARGS`` with the environment policy above; never raises for a non-zero exit
    unless ``check`` (then ``GitFailed`` with git's own words)."""
    cmd = ["git"]
    if git_dir is not None:
        cmd.append(f"--git-dir={os.fspath(git_dir)}")
    if work_tree is not None:
        cmd.append(f"--work-tree={os.fspath(work_tree)}")
    cmd.extend(args)
    full_env = git_env(env if env is not None else {}, **dict(extra_env or {}))
    try:
        code, stdout, stderr = _spawn(
            cmd, cwd=os.fspath(cwd) if cwd is not None else None, env=full_env, input=input,
            timeout=timeout,
        )  # fmt: skip
    except FileNotFoundError as exc:
        if cwd is not None and not os.path.isdir(cwd):
            raise NotFoundError(f"{cwd} is not a directory") from None
        raise NotFoundError(
            "git is not installed or not on PATH",
            hint="install git (for example `apt-get install git`)",
        ) from exc
    except NotADirectoryError:
        raise NotFoundError(f"{cwd} is not a directory") from None
    except TimedOut:
        raise GitFailed(
            f"`git {' '.join(args[:2])}` took longer than {timeout:.0f}s",
            hint="check for a hung credential prompt or a slow filesystem, then retry",
        ) from None
    result = Result(code, stdout, stderr)
    if check and not result.ok:
        raise GitFailed(
            f"`git {' '.join(args[:2])}` failed: {result.err or f'exit {result.code}'}",
            hint="run the same git command yourself to see why",
        )
    return result


# --------------------------------------------------------------------------- spawning


class TimedOut(Exception):
    """The process outlived its timeout (it was killed)."""


try:  # the signal numbers without ``signal``'s enums (1 to 3 ms of imports)
    from _signal import SIGKILL as _SIGKILL
    from _signal import SIGPIPE, SIGXFSZ
except ImportError:  # pragma: no cover - another interpreter
    from signal import SIGKILL as _SIGKILL
    from signal import SIGPIPE, SIGXFSZ
# Python ignores these two; ``subprocess`` gives the child their defaults back
# (``restore_signals``), so a git writing into a closed pipe dies as git does.
_DEFAULT_SIGNALS = (SIGPIPE, SIGXFSZ)
_CHUNK = 65536
_FOUND: dict[tuple[str, str], str] = {}  # (PATH, name) -> the executable found there


def _executable(name: str, env: Mapping[str, str]) -> str:
    """``name`` looked up on ``env``'s PATH, as ``subprocess`` looks it up (FileNotFoundError:
    none there is an executable file)."""
    if "/" in name:
        return name
    key = (env.get("PATH", os.defpath), name)
    found = _FOUND.get(key)
    if found is not None and os.access(found, os.X_OK):
        return found
    for folder in os.get_exec_path(dict(env)):
        candidate = os.path.join(folder, name)
        if os.access(candidate, os.X_OK) and os.path.isfile(candidate):
            _FOUND[key] = candidate
            return candidate
    raise FileNotFoundError(2, "No such file or directory", name)


def _inherited() -> list[int]:
    """Descriptors above 2 this process would pass on (``subprocess``'s ``close_fds`` closes
    them in the child: so do we). Python opens its own files non-inheritable; these came from
    whoever started us."""
    out = []
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            fd = int(name) if name.isdigit() else -1
            if fd > 2:
                try:
                    if os.get_inheritable(fd):
                        out.append(fd)
                except OSError:
                    continue  # the listing's own descriptor, closed by now
        return out
    return out


def _spawn(
    cmd: Sequence[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str],
    input: bytes | None = None,
    timeout: float | None = None,
) -> tuple[int, bytes, bytes]:
    """``subprocess.run(cmd, cwd=, env=, input=, capture_output=True, timeout=)``: (exit code,
    stdout, stderr). Without ``input`` the child reads our stdin; a signal's death is its
    negative number; past ``timeout`` the child is killed and ``TimedOut`` raised. ``cmd`` is a
    git command: ``cwd`` is passed as git's own ``-C`` (``posix_spawn`` cannot change folders
    before Python 3.13)."""
    if not hasattr(os, "posix_spawn"):  # pragma: no cover - every POSIX CPython has it
        return _spawn_by_subprocess(cmd, cwd=cwd, env=env, input=input, timeout=timeout)
    import select  # a C module: no Python-level imports

    if cwd is not None and not os.path.isdir(cwd):
        raise NotADirectoryError(20, "Not a directory", cwd)
    argv = [cmd[0], *(["-C", cwd] if cwd is not None else []), *cmd[1:]]
    exe = _executable(cmd[0], env)
    until = None if timeout is None else time.monotonic() + timeout
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    in_r, in_w = os.pipe() if input is not None else (-1, -1)
    ours = [out_r, out_w, err_r, err_w] + ([in_r, in_w] if input is not None else [])
    if min(ours) <= 2:  # we run without a stdin, stdout or stderr: subprocess sorts that out
        for fd in ours:
            os.close(fd)
        return _spawn_by_subprocess(cmd, cwd=cwd, env=env, input=input, timeout=timeout)
    actions: list[tuple[int, ...]] = [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited()]
    if input is not None:
        actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
    actions += [(os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)]
    try:
        pid = os.posix_spawn(exe, argv, dict(env), file_actions=actions, setsigdef=_DEFAULT_SIGNALS)
    except BaseException:
        for fd in ours:
            os.close(fd)
        raise
    for fd in (out_w, err_w, in_r):
        if fd >= 0:
            os.close(fd)
    open_fds = {out_r, err_r} | ({in_w} if input is not None else set())
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    try:
        poller = select.poll()
        poller.register(out_r, select.POLLIN)
        poller.register(err_r, select.POLLIN)
        pending = memoryview(input) if input is not None else None
        if pending is not None:
            if pending:
                os.set_blocking(in_w, False)
                poller.register(in_w, select.POLLOUT)
            else:
                os.close(in_w)
                open_fds.discard(in_w)
        while out_r in open_fds or err_r in open_fds:
            wait = None if until is None else until - time.monotonic()
            if wait is not None and wait <= 0:
                raise TimedOut(cmd)
            for fd, _event in poller.poll(None if wait is None else max(1, int(wait * 1000) + 1)):
                if fd == in_w:
                    assert pending is not None
                    try:
                        pending = pending[os.write(in_w, pending[:_CHUNK]) :]
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:
                        pending = pending[:0]  # git stopped reading: as communicate() does
                    if not pending:
                        poller.unregister(in_w)
                        os.close(in_w)
                        open_fds.discard(in_w)
                    continue
                data = os.read(fd, _CHUNK)
                if data:
                    chunks[fd].append(data)
                else:
                    poller.unregister(fd)
                    os.close(fd)
                    open_fds.discard(fd)
        for fd in list(open_fds):  # stdin git never read to the end
            os.close(fd)
            open_fds.discard(fd)
        _, status = os.waitpid(pid, 0)
    except BaseException:  # a timeout, ^C, a bug: as subprocess.run, kill it and reap it
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, _SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        for fd in open_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        raise
    return os.waitstatus_to_exitcode(status), b"".join(chunks[out_r]), b"".join(chunks[err_r])


def _spawn_by_subprocess(
    cmd: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    input: bytes | None,
    timeout: float | None,
) -> tuple[int, bytes, bytes]:
    """The same through ``subprocess`` (no ``posix_spawn``; a process without fd 0, 1 or 2)."""
    import subprocess

    try:
        proc = subprocess.run(
            list(cmd), cwd=cwd, env=dict(env), input=input, capture_output=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise TimedOut(cmd) from None
    return proc.returncode, proc.stdout, proc.stderr
