"""The enforced rules' quick answer, read with ``os`` alone: "for this HEAD and these policy
files, no rule applies to a call of any tool but these".

The PreToolUse hook runs before every tool call, and most calls are of tools no rule names
(a KB that enforces "never force-push" has nothing to say about a file read). So each compile
(``workflows/policy.py``) also writes ``<state>/policy/quick``: on its first line the stamp of
HEAD's files (``git/headstamp.py``) and the fingerprint of the policy files it read, as one
``repr``; on its second, tab-separated, every tool name its rules can apply to
(``notes/policy.covered_tools``; none when it found no rules). A hook that takes the same stamp
and fingerprint, and finds none of those names as a JSON string in the payload, answers
"nothing" without parsing the payload or reading the rules. Any difference (HEAD moved, a policy
file changed, the call names a ruled tool) and the rules are read as before. A compile whose
rules may apply to any tool (a wildcard tool) removes the file.

Harnesses write a tool name as itself in their JSON (never with ``\\u`` escapes), which is what
the search for ``"NAME"`` relies on; a name that also appears elsewhere in the payload only
sends the call to the full reading.
"""

from __future__ import annotations

import os

FOLDER = "policy"
NAME = "quick"


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


def save(state_dir: str, line: str | None, tools: list[str] | None = None) -> None:
    """Write the quick answer for ``line`` and the ruled ``tools``, or remove it (None: the
    compile cannot vouch for HEAD, or a rule may apply to any tool)."""
    path = os.path.join(state_dir, FOLDER, NAME)
    if line is None:
        try:  # noqa: SIM105 - contextlib is not imported on the hook path
            os.unlink(path)
        except FileNotFoundError:
            pass
        return
    from reflectgit.state.files import atomic_write

    atomic_write(path, f"{line}\n{chr(9).join(tools or [])}\n".encode())


def quiet(state_dir: str, line: str, payload: bytes) -> bool:
    """Is the answer surely "nothing": the quick answer is for exactly ``line``, and the
    payload names none of its tools?"""
    try:
        with open(os.path.join(state_dir, FOLDER, NAME), "rb") as fh:
            data = fh.read()
    except OSError:
        return False
    first, _, rest = data.partition(b"\n")
    if first != line.encode("utf-8") or not rest.endswith(b"\n"):
        return False
    tools = [t for t in rest[:-1].split(b"\t") if t]
    return not any(b'"' + tool + b'"' in payload for tool in tools)
