"""Ask git's credential helpers for a host's password (a forge token), as ``git credential fill``.

Whatever helper the user set up for git (a keychain, ``store``, ``cache``, a manager) answers
here too, so a forge token needs no setting of its own. Never prompts: no terminal, no askpass.
"""

from __future__ import annotations

from collections.abc import Mapping

from reflectgit.errors import ReflectGitError
from reflectgit.git.run import run

DEFAULT_TIMEOUT = 30.0


def fill(
    host: str, protocol: str, env: Mapping[str, str], timeout: float = DEFAULT_TIMEOUT
) -> str | None:
    """The password git's credential helpers hold for ``protocol://host``; None when none."""
    found = fill_login(host, protocol, env, timeout)
    return found[1] if found else None


def fill_login(
    host: str, protocol: str, env: Mapping[str, str], timeout: float = DEFAULT_TIMEOUT
) -> tuple[str, str] | None:
    """(username, password) git's credential helpers hold for ``protocol://host``.

    The username tells what kind of token the password is: helpers that hold an OAuth
    token (git-credential-oauth, Git Credential Manager) store it under ``oauth2``.
    """
    request = f"protocol={protocol}\nhost={host}\n\n".encode()
    quiet = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
    try:
        result = run(
            ["credential", "fill"], input=request, env=env, extra_env=quiet, timeout=timeout
        )
    except ReflectGitError:
        return None
    if not result.ok:
        return None
    fields: dict[str, str] = {}
    for line in result.stdout.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition("=")
        fields.setdefault(key, value)
    password = fields.get("password")
    return (fields.get("username", ""), password) if password else None
