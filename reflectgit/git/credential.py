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
    for line in result.stdout.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition("=")
        if key == "password" and value:
            return value
    return None
