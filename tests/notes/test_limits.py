"""``limits.refusal``: what a failed command's output says when the place it ran refused it,
told from a failure of the code."""

from __future__ import annotations

import pytest

from reflectgit.notes.limits import refusal


@pytest.mark.parametrize(
    "output",
    [
        "/bin/bash: line 1: parallel: command not found",
        "'sh' is not recognized as an internal or external command",
        'exec: "podman": executable file not found in $PATH',
        "Error: EACCES: permission denied, open '/home/u/.npm/_logs/x.log'",
        "Failed to write to log file Error: EPERM: operation not permitted, open '/x'",
        "Error: listen EADDRINUSE: address already in use 127.0.0.1:4000",
        "curl: (6) Could not resolve host: registry.npmjs.org",
        "error connecting to api.github.com\ncheck your internet connection",
        "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote "
        "repository.",
        "remote: error: GH006: Protected branch update failed for refs/heads/main.",
        "error: rustc 1.93.0 is not supported by the following package: kdl@6.7.1 requires "
        "rustc 1.95",
        "Couldn't sign message (signer): agent refused operation?",
        "OSError: [Errno 30] Read-only file system: '/usr/lib/x'",
    ],
)
def test_a_refusal_of_the_place_the_command_ran_is_read(output):
    assert refusal(output)


@pytest.mark.parametrize(
    "output",
    [
        "E   AssertionError: assert 3 == 4\n=== 1 failed, 11 passed in 0.40s ===",
        "error[E0425]: cannot find value `tenant` in this scope",
        "TypeError: Cannot read properties of undefined (reading 'id')",
        "HTTP 404: workflow run 42 not found",
        "cat: notes.txt: No such file or directory",
        "ok 3 fnox get fails with non-existent secret # skip pass not installed on CI",
    ],
)
def test_a_failure_of_the_code_or_a_wrong_path_is_no_refusal(output):
    assert refusal(output) == ""
