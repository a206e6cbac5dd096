"""The one git runner, and the one environment policy for every git we spawn.

git exports ``GIT_DIR``, ``GIT_INDEX_FILE``, ``GIT_WORK_TREE``, ``GIT_PREFIX`` and friends to the
hooks it runs. A git that reflect-git starts from inside such a hook must find its repository by
the path we give it, not by what the caller's git left in the environment, so ``git_env`` drops
every ``GIT_*`` variable except those that carry the user's own configuration, transport and
identity. It also sets ``REFLECT_GIT_INTERNAL=1`` so our own post-commit shim and agent hooks
never capture what reflect-git itself does.

``run`` is the only place in the package that starts ``git``; everything else asks it. It
starts git with ``subprocess.run``; ``start_together`` starts several gits at once (questions
that do not depend on each other) and waits for them when asked.
"""

from __future__ import annotations

import os
import subprocess
from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence

from reflectgit.config import INTERNAL_ENV
from reflectgit.errors import NotFoundError, ReflectGitError

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


# ``collections.namedtuple``'s record, its fields' types stated for the type checker: ``typing``
# is not imported on the hooks' paths.
class Result(namedtuple("Result", ["code", "stdout", "stderr"])):
    """What a git command returned."""

    __slots__ = ()
    code: int
    stdout: bytes
    stderr: bytes

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


def _command(
    args: Sequence[str],
    git_dir: str | os.PathLike[str] | None,
    work_tree: str | os.PathLike[str] | None,
) -> list[str]:
    cmd = ["git"]
    if git_dir is not None:
        cmd.append(f"--git-dir={os.fspath(git_dir)}")
    if work_tree is not None:
        cmd.append(f"--work-tree={os.fspath(work_tree)}")
    cmd.extend(args)
    return cmd


def _not_started(exc: OSError, cwd: str | os.PathLike[str] | None) -> NotFoundError:
    """Why git did not start: no such folder, or no git."""
    if isinstance(exc, NotADirectoryError) or (cwd is not None and not os.path.isdir(cwd)):
        return NotFoundError(f"{cwd} is not a directory")
    return NotFoundError(
        "git is not installed or not on PATH",
        hint="install git (for example `apt-get install git`)",
    )


def _too_long(args: Sequence[str], timeout: float | None) -> GitFailed:
    return GitFailed(
        f"`git {' '.join(args[:2])}` took longer than {timeout or 0:.0f}s",
        hint="check for a hung credential prompt or a slow filesystem, then retry",
    )


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
    cmd = _command(args, git_dir, work_tree)
    full_env = git_env(env if env is not None else {}, **dict(extra_env or {}))
    try:
        proc = subprocess.run(
            cmd, cwd=cwd, env=full_env, input=input, capture_output=True, timeout=timeout
        )
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise _not_started(exc, cwd) from exc
    except subprocess.TimeoutExpired:
        raise _too_long(args, timeout) from None
    result = Result(proc.returncode, proc.stdout, proc.stderr)
    if check and not result.ok:
        raise GitFailed(
            f"`git {' '.join(args[:2])}` failed: {result.err or f'exit {result.code}'}",
            hint="run the same git command yourself to see why",
        )
    return result


def start_together(
    commands: Sequence[Sequence[str]],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> Callable[[], list[Result]]:
    """Start each ``git ARGS`` of ``commands`` at once (nothing on their stdin), with the
    environment policy above; the call returned waits for them and gives their results in
    the same order (what the caller does in between runs alongside git). It raises as
    ``run`` does (``timeout`` counts for each from when it waits); call it, also on the way
    out of an error, so no git is left behind."""
    full_env = git_env(env if env is not None else {})
    procs: list[subprocess.Popen[bytes]] = []

    def stop() -> None:
        for proc in procs:
            if proc.returncode is None:
                proc.kill()  # and waited for, as subprocess.run does (a child of git's may
                proc.wait()  # still hold its pipes: they are closed, not read)
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()

    try:
        for args in commands:
            procs.append(
                subprocess.Popen(
                    _command(args, None, None),
                    cwd=cwd,
                    env=full_env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
            )
    except (FileNotFoundError, NotADirectoryError) as exc:
        stop()
        raise _not_started(exc, cwd) from exc
    except BaseException:
        stop()
        raise

    def wait() -> list[Result]:
        try:
            results = []
            for args, proc in zip(commands, procs, strict=True):
                try:
                    out, err = proc.communicate(timeout=timeout)
                except subprocess.TimeoutExpired:
                    raise _too_long(args, timeout) from None
                results.append(Result(proc.returncode, out, err))
            return results
        finally:
            stop()

    return wait
