"""Fetch from and push to the team remote, with failures turned into errors a person can act on.

Git itself does the talking (through GitPython), so everything the user has set up for git
applies unchanged: credential helpers, ssh config and keys, ``url.<base>.insteadOf`` rules,
proxies. Push rejections are returned as data (routing retries a stale ``main``); auth
failures and unreachable remotes raise ``RemoteError`` subclasses with a hint.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from reflectgit.backoff import Backoff
from reflectgit.errors import RemoteError
from reflectgit.git.run import git_env

DEFAULT_TIMEOUT = 120.0
TEAM_TRACKING_PREFIX = "refs/reflect-git/team/"
FETCH_ATTEMPTS = 5  # fetches that lost a tracking ref to another fetch of the same repository
FETCH_BACKOFF = Backoff(initial=0.05, multiplier=2.0, max_delay=1.0, jitter=1.0)

_AUTH_MARKERS = (
    "authentication failed",
    "could not read username",
    "could not read password",
    "terminal prompts disabled",
    "access denied",
    "permission denied",
    "returned error: 401",
    "returned error: 403",
    "invalid username or password",
    "invalid credentials",
    "bad credentials",
)
_UNREACHABLE_MARKERS = (
    "could not resolve host",
    "connection refused",
    "couldn't connect",
    "failed to connect",
    "unable to connect",
    "does not appear to be a git repository",
    "repository not found",
    "returned error: 404",
    "no such host",
    "network is unreachable",
    "no route to host",
    "timed out",
    "unable to look up",
    "could not read from remote repository",
    "the remote end hung up",
    "no such file or directory",
    "not a git repository",
)
# Reasons git gives when the remote ref moved under us: fetch, re-apply, push again.
_STALE_REASONS = (
    "fetch first",
    "non-fast-forward",
    "stale info",
    "failed to update ref",
    "cannot lock ref",
    "failed to lock",
    "incorrect old value",
)
_CREDENTIALS_IN_URL = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)(?P<user>[^/@:\s]+):[^@/\s]+@")


class RemoteAuthError(RemoteError):
    """The remote refused our credentials (or had none to ask for)."""


class RemoteUnreachableError(RemoteError):
    """The remote could not be reached or is not a git repository."""


def redact(text: str) -> str:
    """Hide passwords and tokens embedded in URLs (``https://user:***@host``)."""
    return _CREDENTIALS_IN_URL.sub(r"\g<scheme>\g<user>:***@", text)


def is_url(remote: str) -> bool:
    """A URL or path (rather than the name of a configured remote such as ``origin``)."""
    # Remote names cannot hold ':' in practice; scp-like "host:path" and "user@host:path" can.
    return ":" in remote or remote.startswith(("/", ".", "~"))


@dataclass(frozen=True)
class PushOutcome:
    """What the remote said about one ref of a push."""

    ref: str
    status: str  # "ok", "new", "deleted", "up-to-date", "rejected", "remote-rejected"
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.status in {"ok", "new", "deleted", "up-to-date", "forced"}

    @property
    def stale(self) -> bool:
        """Rejected because the remote ref moved: fetching and re-applying can fix it."""
        return not self.ok and any(r in self.reason for r in _STALE_REASONS)


_FLAGS = {
    " ": "ok",
    "*": "new",
    "-": "deleted",
    "=": "up-to-date",
    "+": "forced",
    "!": "rejected",
}


def parse_porcelain(stdout: str) -> list[PushOutcome]:
    """Parse ``git push --porcelain`` output into one outcome per ref."""
    outcomes: list[PushOutcome] = []
    for line in stdout.splitlines():
        if len(line) < 2 or line[1] != "\t" or line[0] not in _FLAGS:
            continue
        fields = line[2:].split("\t")
        refspec = fields[0]
        dst = refspec.split(":", 1)[-1]
        summary = fields[1] if len(fields) > 1 else ""
        status = _FLAGS[line[0]]
        reason = ""
        match = re.search(r"\((.*)\)\s*$", summary)
        if match:
            reason = match.group(1)
        if status == "rejected" and summary.startswith("[remote rejected]"):
            status = "remote-rejected"
        outcomes.append(PushOutcome(dst, status, reason))
    return outcomes


class TeamRemote:
    """One remote of a local repository: a configured name (``origin``) or a URL."""

    def __init__(
        self,
        repo_path: Path,
        remote: str,
        *,
        git_dir: Path | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.repo_path = Path(repo_path)
        self.git_dir = Path(git_dir) if git_dir else None
        self.remote = remote
        self.timeout = timeout
        # Never wait for a password on a terminal nobody watches; a credential helper still works.
        # run.git_env: the one policy (no GIT_* a hook inherited; hooks git runs for our
        # fetches and pushes see REFLECT_GIT_INTERNAL and know it is us).
        self.env = git_env({"GIT_TERMINAL_PROMPT": "0", **dict(env or {})})

    # ------------------------------------------------------------------ naming

    @property
    def is_named(self) -> bool:
        return not is_url(self.remote)

    @property
    def tracking_prefix(self) -> str:
        """Where fetched branches are kept locally."""
        return f"refs/remotes/{self.remote}/" if self.is_named else TEAM_TRACKING_PREFIX

    def url(self) -> str:
        """The URL git will use (``insteadOf`` rules applied for named remotes)."""
        if not self.is_named:
            return self.remote
        code, out, _err = self._git(["remote", "get-url", self.remote])
        if code != 0:
            raise RemoteError(
                f"the repository {self.repo_path} has no remote named {self.remote!r}",
                hint=f"add it with `git -C {self.repo_path} remote add {self.remote} URL`, "
                "or set [team] remote in .reflect-git.toml to a URL",
            )
        return out.strip()

    def display(self) -> str:
        """A printable name for the remote, credentials hidden."""
        try:
            return redact(self.url())
        except RemoteError:
            return self.remote

    # ------------------------------------------------------------------ operations

    def fetch(self) -> dict[str, str]:
        """Fetch every branch of the remote; returns the remote's branches (name -> sha)."""
        prefix = self.tracking_prefix
        for attempt in range(1, FETCH_ATTEMPTS + 1):
            code, _out, err = self._git(
                ["fetch", "--prune", "--no-tags", "--quiet", self.remote,
                 f"+refs/heads/*:{prefix}*"]
            )  # fmt: skip
            if code == 0:
                return self.tracked()
            if "cannot lock ref" not in err or attempt == FETCH_ATTEMPTS:
                break
            # Another fetch into this repository (a second route of the same KB) moved or
            # holds a tracking ref meanwhile: its objects are here too; fetch again.
            FETCH_BACKOFF.pause(attempt)
        raise self._failure("fetch from", err)

    def fetch_objects(self, branch: str) -> None:
        """Fetch one branch's objects without moving any ref (a dry run reads, never records)."""
        code, _out, err = self._git(
            ["fetch", "--no-tags", "--quiet", "--no-write-fetch-head", self.remote,
             f"refs/heads/{branch}"]
        )  # fmt: skip
        if code != 0:
            raise self._failure("fetch from", err)

    def tracked(self) -> dict[str, str]:
        """The remote's branches as of the last fetch (name -> sha)."""
        prefix = self.tracking_prefix
        code, out, err = self._git(
            ["for-each-ref", "--format=%(refname) %(objectname)", prefix.rstrip("/")]
        )
        if code != 0:  # pragma: no cover - for-each-ref on a valid repository does not fail
            raise RemoteError(f"cannot list {prefix}: {err.strip()}")
        heads: dict[str, str] = {}
        for line in out.splitlines():
            ref, _, sha = line.partition(" ")
            if ref.startswith(prefix) and ref != f"{prefix}HEAD":
                heads[ref[len(prefix) :]] = sha
        return heads

    def ls_remote(self) -> dict[str, str]:
        """The remote's branches right now, without fetching objects."""
        code, out, err = self._git(["ls-remote", "--heads", self.remote])
        if code != 0:
            raise self._failure("reach", err)
        heads: dict[str, str] = {}
        for line in out.splitlines():
            sha, _, ref = line.partition("\t")
            if ref.startswith("refs/heads/"):
                heads[ref[len("refs/heads/") :]] = sha
        return heads

    def push(self, refspecs: Sequence[str], *, atomic: bool = False) -> list[PushOutcome]:
        """Push refspecs (``<sha>:refs/heads/x``, ``:refs/heads/x``); rejections come back as data."""
        args = ["push", "--porcelain"]
        if atomic:
            args.append("--atomic")
        code, out, err = self._git([*args, self.remote, *refspecs])
        outcomes = parse_porcelain(out)
        if outcomes:
            return outcomes
        if code == 0:  # pragma: no cover - git always prints porcelain lines for a push
            return []
        raise self._failure("push to", err)

    def delete_branch(self, branch: str) -> PushOutcome:
        """Delete a branch on the remote (already gone counts as done)."""
        outcomes = self.push([f":refs/heads/{branch}"])
        outcome = outcomes[0] if outcomes else PushOutcome(f"refs/heads/{branch}", "deleted")
        if not outcome.ok and "remote ref does not exist" in outcome.reason:
            return PushOutcome(outcome.ref, "deleted", "already gone")
        return outcome

    def ahead_behind(self, local: str, remote: str) -> tuple[int, int]:
        """How many commits ``local`` has that ``remote`` lacks, and the other way round."""
        code, out, _err = self._git(["rev-list", "--left-right", "--count", f"{local}...{remote}"])
        if code != 0:
            return 0, 0
        left, _, right = out.strip().partition("\t")
        return int(left or 0), int(right or 0)

    def fast_forward(self, branch: str, target: str) -> None:
        """Move a local branch forward to ``target``; real git updates a checked-out work tree.

        Git does this one (``merge --ff-only``) because it already refuses to overwrite local
        edits and keeps the index right; a non-fast-forward is refused, never forced.
        """
        code, head, _ = self._git(["symbolic-ref", "-q", "HEAD"])
        if code == 0 and head.strip() == f"refs/heads/{branch}":
            code, _out, err = self._git(["merge", "--ff-only", "--quiet", target])
        else:
            code, old, _ = self._git(["rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"])
            args = ["update-ref", f"refs/heads/{branch}", target]
            if code == 0:
                ok, _o, _e = self._git(["merge-base", "--is-ancestor", old.strip(), target])
                if ok != 0:
                    raise RemoteError(f"{branch} cannot fast-forward to {target}")
                args.append(old.strip())
            code, _out, err = self._git(args)
        if code != 0:
            raise RemoteError(
                f"cannot fast-forward {branch}: {_last_lines(err)}",
                hint="commit or stash local edits in the team clone, then run `reflect-git team sync`",
            )

    # ------------------------------------------------------------------ plumbing

    def _git(self, args: Sequence[str]) -> tuple[int, str, str]:
        import git  # GitPython: heavy, so imported only when we talk to a remote

        cmd = ["git"]
        if self.git_dir is not None:
            # Explicit --git-dir (and --work-tree) win over GIT_DIR inherited from a hook.
            cmd += ["--git-dir", str(self.git_dir)]
            if self.git_dir != self.repo_path:
                cmd += ["--work-tree", str(self.repo_path)]
        cmd += list(args)
        runner = git.Git(str(self.repo_path))
        try:
            code, out, err = runner.execute(
                cmd,
                with_extended_output=True,
                with_exceptions=False,
                env=self.env,
                kill_after_timeout=self.timeout,
                stdout_as_string=True,
            )
        except git.GitCommandError as exc:  # pragma: no cover - raised only on timeouts
            return 124, "", f"timed out after {self.timeout:g} s: {exc}"
        except git.GitCommandNotFound as exc:  # pragma: no cover - git missing entirely
            raise RemoteError(
                "git is not installed", hint="install git and make sure it is on PATH"
            ) from exc
        return int(code or 0), str(out), str(err)

    def _failure(self, action: str, stderr: str) -> RemoteError:
        where = self.display()
        detail = redact(_last_lines(stderr))
        low = stderr.lower()
        if any(m in low for m in _AUTH_MARKERS):
            return RemoteAuthError(
                f"cannot {action} {where}: authentication failed ({detail})",
                hint="give git working credentials for this remote (a credential helper, "
                "an ssh key, or a token in the URL) and check `git ls-remote "
                f"{where}` works",
            )
        if any(m in low for m in _UNREACHABLE_MARKERS):
            return RemoteUnreachableError(
                f"cannot {action} {where}: remote unreachable ({detail})",
                hint="check the team remote URL ([team] remote in .reflect-git.toml) and the network",
            )
        return RemoteError(
            f"cannot {action} {where}: {detail or 'git failed'}",
            hint="run `git ls-remote " + where + "` to see what git says",
        )


def clone(url: str, target: Path, env: Mapping[str, str] | None = None) -> None:
    """Clone ``url`` into ``target`` through the user's git (credentials, ssh, insteadOf)."""
    import git  # GitPython: heavy, so imported only when we talk to a remote

    run_env = git_env({"GIT_TERMINAL_PROMPT": "0", **dict(env or {})})
    try:
        git.Repo.clone_from(url, str(target), env=run_env)
    except git.GitCommandError as exc:
        probe = TeamRemote(target.parent, url, env=run_env)
        raise probe._failure("clone", str(exc.stderr or exc)) from None


def _last_lines(text: str, count: int = 3) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return "; ".join(lines[-count:])
