"""Limits of the environment: what a failed command's output says when the command could not
work where it ran, whatever the code does. Pure, regex only.

A command fails for one of two kinds of reason. The code is wrong (an assertion, a type error, a
missing definition): an edit fixes it, and the writer's edit readings take it. Or the place it
runs refuses it: a tool is missing there, the sandbox or the file system denies an operation, a
port is taken, the network is cut, a remote refuses the credentials or the branch, the toolchain
is too old for a dependency. No edit fixes that; the session works around it by running the
thing another way, and the workaround is the lesson the next session in the same place needs.

``refusal(output)`` is the words of ``output`` that say the environment refused, or ``""``.
They are the tools' and the operating system's own phrasings, not any session's: a shell's
"command not found", POSIX's ``EACCES``/``EPERM``/``EADDRINUSE``, a resolver's "could not
resolve host", git's "Permission denied (publickey)" and "protected branch", cargo's
"rustc 1.93.0 is not supported", Windows's "is not recognized as".
"""

from __future__ import annotations

import re

_REFUSAL = re.compile(
    # a tool missing where the command ran
    r"\bcommand not found\b|\bnot found in \$?PATH\b|\bexecutable file not found\b"
    r"|\bis not recognized as (?:an internal|the name)\b|\bno such command\b"
    r"|\b(?:is|are) not installed\b"
    # the sandbox, the file system or the operating system denying an operation
    r"|\bpermission denied\b|\boperation not permitted\b|\bE(?:PERM|ACCES|ROFS)\b"
    r"|\bread-only file system\b|\baccess is denied\b"
    # a port taken, the network cut
    r"|\baddress already in use\b|\bEADDRINUSE\b|\bfailed to bind\b"
    r"|\bcould not resolve (?:host|hostname)\b|\bnetwork is unreachable\b"
    r"|\bname or service not known\b|\bE(?:NOTFOUND|CONNREFUSED|AI_AGAIN)\b"
    r"|\berror connecting to\b|\bcheck your internet connection\b"
    # a remote refusing the credentials or the branch, a signing agent that cannot prompt
    r"|\bcould not read from remote repository\b|\bprotected branch\b"
    r"|\bauthentication failed\b|\bagent refused operation\b"
    # a toolchain or platform the command's dependencies do not support
    r"|\bis not supported (?:by|on)\b|\bunsupported (?:platform|architecture|operating system)\b"
    r"|\brequires (?:rustc|node|python|go|java|ruby|a newer)\b",
    re.I,
)


def refusal(output: str) -> str:
    """The words of a failed command's ``output`` saying the place it ran refused it (a tool
    missing, an operation denied, a port taken, the network cut, a remote's refusal, a
    toolchain too old), or ``""`` when it says nothing of the kind (a failure of the code)."""
    m = _REFUSAL.search(output)
    return m.group(0) if m else ""
