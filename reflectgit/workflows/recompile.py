"""Asking for the enforced rules' background compile: once per change of the KB or of a policy
file, not once per tool call.

The rules are compiled in the background (``workflows/policy.refresh``, started detached by
``workflows/background.py``) when HEAD's files or the policy files change: by the mutation door
after its commit, by ``team sync``, and by the first hook that finds the compiled rules stale.
Each writes the state it asked a compile for (``state/rulestamp.want``: HEAD's files and the
policy files as they stand, even a moment after a change), so the hooks that follow, finding
the same state, start nothing; a compile asked for ``rulestamp.RETRY`` seconds ago and still
not done is asked again. Read on the PreToolUse hook's quick path: ``os`` alone, no ``typing``.
"""

from __future__ import annotations

import os

from reflectgit import location
from reflectgit.git.headstamp import head_stamp
from reflectgit.state import rulestamp


def state_line(kb: str | os.PathLike[str], env: dict[str, str]) -> str | None:
    """The state HEAD's files and the policy files are in now (``rulestamp.key``), or None
    when HEAD's files cannot name it (a detached HEAD)."""
    git_dir = location.git_dir(os.fspath(kb))
    stamp = head_stamp(git_dir if os.path.isdir(git_dir) else kb, vouch=False)
    if stamp is None:
        return None
    return rulestamp.key(stamp, rulestamp.fingerprint(location.policy_files(dict(env))))


def asked(
    kb: str | os.PathLike[str], env: dict[str, str], state_dir: str | os.PathLike[str]
) -> str | None:
    """Say that a compile is asked for the KB as it is now (the caller starts it); the state
    asked for, or None when it cannot be said."""
    line = state_line(kb, env)
    if line is None or not rulestamp.want(os.fspath(state_dir), line):
        return None
    return line


def ask(kb: str | os.PathLike[str], env: dict[str, str], state_dir: str | os.PathLike[str]) -> bool:
    """A hook found the compiled rules stale: make sure a compile is under way for the KB as
    it is now, starting one unless one was asked for this very state already. False when
    that cannot be said (HEAD's files name no state, nothing can be written): the caller then
    starts one itself, or leaves it."""
    line = state_line(kb, env)
    if line is None:
        return False
    if rulestamp.wanted(os.fspath(state_dir), line):
        return True
    if not rulestamp.want(os.fspath(state_dir), line):
        return False
    from reflectgit.workflows.background import RULES, start

    return start(kb, env, [RULES]) is not None
