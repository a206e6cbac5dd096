"""Traps told only by tool results: a command the agent's sandbox refused, run again outside
it, passes. Pure.

Some lessons are said by no one. The tool's own verdict says the call failed; the next run of
the same command, asked of the person outside the sandbox (Codex's ``sandbox_permissions:
"require_escalated"``, Claude Code's ``dangerouslyDisableSandbox: true``), passes; the failure's
own error line says what the sandbox blocked ("Unable to create '.git/index.lock': Permission
denied", a port it cannot bind). Where the assistant says why, ``rerun_fixes`` keeps its
words; here the tool results are the whole evidence, so every part of the shape is the tools':

- the failure is the tool's verdict (an error result, a non-zero exit, a red test run), not a
  word of its output, and the harness ran the command (a call it refused is not a failure);
- the rerun runs one of the failed line's simple commands word for word (any of them, not
  only the first: ``git diff --check; git add ...; git commit ...`` failed at the commit);
- it comes before the person speaks, with no file edited and no state changed by a command
  in between, and it passes by its exit;
- the first run of the same program and subcommand after the failure decides: one in the same
  sandbox is a retry (a flake when it passes), one that fails too confirms nothing, one
  changed another way (another path, an option) is another reading's (``rerun_fixes``,
  ``replaced_commands``), or no lesson.

The note says what to do (run it outside the sandbox here) and why (the error line), at LOW.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reflectgit.notes.commandruns import Ran, error_line, failed_run
from reflectgit.notes.recoveries import outside_sandbox
from reflectgit.notes.shellcommand import simple_commands, without_redirections
from reflectgit.notes.signals import LOW
from reflectgit.notes.transcripts import Transcript
from reflectgit.workflows.drain.heuristic.commands import (
    OUTSIDE_SANDBOX,
    _records,
    changing_command,
    narrower,
)
from reflectgit.workflows.drain.heuristic.note import _action

COMMAND_CAP = 120
CONFIRMED = f"the same command run again {OUTSIDE_SANDBOX}, which passed"


def _commands(command: str) -> list[tuple[str, ...]]:
    """The simple commands a command line runs, without redirections, past any ``cd``."""
    return [
        w
        for w in map(without_redirections, simple_commands(command))
        if w and w[0] not in ("cd", "pushd")
    ]


def _same(words: tuple[str, ...], again: tuple[str, ...]) -> bool:
    """Do two simple commands run the same program's same subcommand?"""
    sub = len(words) > 1 and words[1].isalpha()
    return again[:1] == words[:1] and (not sub or again[1:2] == words[1:2])


def escalated_reruns(
    transcript: Transcript, ran: Sequence[Ran], since: int = 0
) -> list[dict[str, Any]]:
    """A LOW note for each failed command that the same command, run outside the sandbox,
    got past (the module's rules). For failures at or after record ``since``."""
    edits, _turns, persons = _records(transcript)
    out: list[dict[str, Any]] = []
    for i, failed in enumerate(ran):
        if (
            failed.call.record < since
            or not failed_run(failed)
            or outside_sandbox(failed.call.input)
        ):
            continue
        words = _commands(failed.command)
        end = min((r for r in persons if r > failed.result), default=None)
        for rerun in ran[i + 1 :]:
            if rerun.call.record < failed.result:
                continue  # sent with the failed one: it read nothing of it
            if (end is not None and rerun.call.record > end) or any(
                failed.result < e < rerun.call.record for e in edits
            ):
                break  # the person spoke, or a file was edited: not this failure's way past
            again = _commands(rerun.command)
            if not any(_same(w, a) for w in words for a in again):
                if changing_command(rerun.command):
                    break  # a state changed (an install): command_fixes' reading
                continue  # another command: a look around (``git status``, ``ls``)
            shared = [a for a in again if a in words]
            if not outside_sandbox(rerun.call.input) or not shared:
                break  # a retry in the same sandbox, or changed another way
            if failed_run(rerun) or not rerun.ended or narrower(failed.run, rerun.run):
                break  # still failing, no result yet, or on less: nothing confirmed
            out.append(_note(failed, shared))
            break
    return out


def _program(words: Sequence[str]) -> str:
    """A command's program and what it runs, without its operands: up to its first plain word
    after the program (``git add`` of ``git add -- test.md``, ``cargo +1.96.0 test``)."""
    at = next((i for i, w in enumerate(words) if i > 0 and w.isalpha()), len(words) - 1)
    return " ".join(words[: at + 1])[:COMMAND_CAP]


def _note(failed: Ran, shared: Sequence[tuple[str, ...]]) -> dict[str, Any]:
    """The note of a failed command and its rerun outside the sandbox: what to run there, and
    the failure's own error line as why."""
    error = error_line(failed)
    programs = " and ".join(dict.fromkeys(f"`{_program(w)}`" for w in shared))
    fails = "they fail" if len(shared) > 1 else "it fails"
    rerun = " ".join(shared[0])[:COMMAND_CAP]
    return _action(
        title=f"Run {programs} {OUTSIDE_SANDBOX} here; in the sandbox {fails} with “{error}”",
        rule=f"Run {programs} {OUTSIDE_SANDBOX} here.",
        quote=error,
        before="",
        who="tool",
        confidence=LOW,
        learning_type="correction",
        category="general",
        cause=f"In the sandbox `{rerun}` fails with “{error}”.",
        fix=f"Run `{rerun}` {OUTSIDE_SANDBOX}.",
        confirmed=f"{CONFIRMED}: `{rerun}`",
    )


def told_already(action: Mapping[str, Any], kept: Sequence[Mapping[str, Any]]) -> bool:
    """Does a kept note already hold the workaround ``action`` tells (a ``rerun_fixes`` note,
    in the assistant's words, confirmed by the same command run outside the sandbox)?"""
    command = str(action["fix"]).removeprefix("Run ").removesuffix(f" {OUTSIDE_SANDBOX}.")
    return any(command in f"{k.get('fix', '')} {k.get('body', '')}" for k in kept)
