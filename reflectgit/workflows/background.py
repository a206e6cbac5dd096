"""Work started detached from the process that asks for it: the capture pass, the rules
compile, git's housekeeping after a commit, and the drain a SessionStart hook starts.

A hook, the KB's mutation door and ``team sync`` never do this work themselves (it would cost an
agent's tool call or an ``add`` the time it takes); they start ``python -m
reflectgit.hooks.background JOB`` in a session of its own, with nothing on its stdin, stdout or
stderr, and return. The job takes its own lock, so starting one twice is harmless.
``drain --background`` starts ``reflect-git drain`` the same way (``drain``), its output going
to the state directory's ``drain-background.log``; the command that starts it imports none of
the drain.
"""

from __future__ import annotations

import os

from reflectgit.workflows import recompile

TYPE_CHECKING = False  # ``typing`` is not imported on the SessionStart hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from subprocess import Popen
    from typing import IO

    from reflectgit.config import Config

ENTRY = "reflectgit.hooks.background"
PASS = "pass"
RULES = "rules"
HOUSEKEEPING = "housekeeping"
RECALL = "recall"  # SessionStart's kept answers computed again (workflows/recall_hook.prepare)
# Started children not yet reaped (a long-lived process, the MCP server say, reaps them here).
_children: list[Popen[bytes]] = []


def start(kb: str | os.PathLike[str], env: Mapping[str, str], job: Sequence[str]) -> int | None:
    """Start ``job`` detached for the KB at ``kb``; its pid, or None when it could not start."""
    try:
        return _detached([ENTRY, "--kb", os.fspath(kb), *job], env, None)
    except OSError:
        return None


DRAIN_LOG = "drain-background.log"
DRAIN_LOG_MAX = 1024 * 1024  # past this the log moves to drain-background.log.1


def drain(cfg: Config, args: Sequence[str]) -> int:
    """Start ``reflect-git drain ARGS`` detached; its pid at once. Its output goes to the state
    directory's ``drain-background.log``; ``OSError`` when it cannot start."""
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    path = os.path.join(cfg.state_dir, DRAIN_LOG)
    try:
        if os.stat(path).st_size > DRAIN_LOG_MAX:
            os.replace(path, path + ".1")
    except OSError:
        pass
    with open(path, "ab") as log:  # the child has its own copy of the descriptor
        return _detached(["reflectgit", "--kb", str(cfg.kb), "drain", *args], cfg.env, log)


def _detached(module_args: Sequence[str], env: Mapping[str, str], log: IO[bytes] | None) -> int:
    """``python -m MODULE ARGS`` in a session of its own, nothing on its stdin, its output to
    ``log`` (None: nowhere); its pid."""
    import subprocess
    import sys

    _children[:] = [c for c in _children if c.poll() is None]
    out = subprocess.DEVNULL if log is None else log
    proc = subprocess.Popen(
        [sys.executable, "-m", *module_args],
        stdin=subprocess.DEVNULL,
        stdout=out,
        stderr=out,
        env=dict(env),
        start_new_session=True,
        close_fds=True,
    )
    _children.append(proc)
    return proc.pid


def after_commit(
    kb: str | os.PathLike[str],
    env: Mapping[str, str],
    state_dir: str | os.PathLike[str] | None,
    *,
    housekeeping_due: bool,
) -> None:
    """The mutation door committed: start, in one detached process, git's automatic
    housekeeping when it is due (as ``git commit`` runs it), the enforced rules' compile
    when the hooks use them, and, in that process, SessionStart's answers when a session start
    kept some."""
    jobs = [HOUSEKEEPING] if housekeeping_due else []
    if state_dir is not None and _rules_compiled(state_dir):
        recompile.asked(kb, dict(env), state_dir)  # the hooks that find them stale start none
        jobs.append(RULES)
    if jobs and state_dir is not None:  # a process of its own for them would cost every add
        from reflectgit.workflows.recall_hook import ANSWERS

        if os.path.exists(os.path.join(state_dir, ANSWERS)):
            jobs.append(RECALL)
    if jobs:
        start(kb, env, jobs)


def housekeeping(cfg: Config) -> None:
    """The ``housekeeping`` job: git's automatic maintenance of the KB's repository."""
    from pathlib import Path

    from reflectgit.git import housekeeping as git_housekeeping

    git_housekeeping.run(Path(cfg.kb), cfg.env)


def _rules_compiled(state_dir: str | os.PathLike[str]) -> bool:
    from reflectgit.state import policy as compiled

    return os.path.exists(os.path.join(state_dir, compiled.FOLDER, compiled.RULES_FILE))


def recompile_rules(
    kb: str | os.PathLike[str], env: Mapping[str, str], state_dir: str | os.PathLike[str]
) -> None:
    """The KB changed: start the enforced rules' compile, when the hooks use them (a compiled
    file exists; the first hook that asks starts the first compile)."""
    if _rules_compiled(state_dir):
        recompile.asked(kb, dict(env), state_dir)
        start(kb, env, [RULES])
