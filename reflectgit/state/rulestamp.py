"""The enforced rules' quick answer: "no rules, and the compile is still current", read with
``os`` alone.

Most KBs enforce nothing, and the PreToolUse hook runs before every tool call. So when a
compile (``workflows/policy.py``) finds no rules, it also writes ``<state>/policy/none``: the
stamp of HEAD's files (``git/headstamp.py``) and the fingerprint of the policy files it read,
as one line of ``repr``. A hook that takes the same stamp and fingerprint and finds that line
answers "nothing" without reading the payload or the compiled rules; any difference (HEAD
moved, a policy file changed, a compile found rules) and it reads them as before. A compile
that finds rules removes the file.
"""

from __future__ import annotations

import os

FOLDER = "policy"
NAME = "none"


def fingerprint(files: list[str]) -> list[list[object]]:
    """``[path, mtime_ns, size]`` of each policy file (``None, None`` when absent)."""
    out: list[list[object]] = []
    for path in files:
        try:
            st = os.stat(path)
        except OSError:
            out.append([path, None, None])
            continue
        out.append([path, st.st_mtime_ns, st.st_size])
    return out


def key(stamp: list[object], files: list[list[object]]) -> str:
    """The line that says which HEAD and policy files a compile saw."""
    return repr([stamp, files])


def save(state_dir: str, line: str | None) -> None:
    """Write the quick answer (``line``), or remove it (None: the compile found rules, or
    cannot vouch for HEAD)."""
    path = os.path.join(state_dir, FOLDER, NAME)
    if line is None:
        try:  # noqa: SIM105 - contextlib is not imported on the hook path
            os.unlink(path)
        except FileNotFoundError:
            pass
        return
    from reflectgit.state.files import atomic_write

    atomic_write(path, line.encode("utf-8") + b"\n")


def holds(state_dir: str, line: str) -> bool:
    """Does the quick answer say "no rules" for exactly this HEAD and these policy files?"""
    try:
        with open(os.path.join(state_dir, FOLDER, NAME), "rb") as fh:
            return fh.read() == line.encode("utf-8") + b"\n"
    except OSError:
        return False
