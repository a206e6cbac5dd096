"""Recoveries: a failed command, then a passing one that runs the same thing, with words in
between. Pure, cheap (no regex over dialogue, one shell parse per command looked at).

Some sessions hold their lesson in their tool calls, not in anything the person or the
assistant says: a command the environment refused, then run another way (outside the sandbox,
with an option added, another program on the same file); a failing command that passes once an
install or a rebuild ran. The drain's structural readers (``command_fixes``, ``rerun_fixes``,
``replaced_commands``, ``told_workarounds``) read those, but only in sessions the gate lets
through, and a dialogue with no signal words closed it on them. ``recovered`` is the gate's
cheap look at the same shape, wider than those readers (they decide what is a lesson) and
narrow enough that an ordinary session does not open the gate for nothing:

- the failure is the tool's own verdict (an error result, a non-zero exit), not a word in the
  output: a passing ``grep`` printing "error" is no failure;
- the pass runs the same thing: every word of the failed command again (options may be added),
  or, when the failure's output says the place refused it (``limits.refusal``), a command on
  one of its targets (a path, a branch: not an option, not a plain word) or the same program's
  same subcommand (``git push`` to another branch after a protected one refused it);
- nothing was edited in between: a failure fixed by an edit is a code fix, read from the
  dialogue (a red test the assistant wrote first, then made pass, is the ordinary work);
- the same command run again unchanged (in the same sandbox), with no other command in between,
  is a retry (a flaky failure), and nothing to learn;
- someone read the failure: a turn of dialogue lies between the failure and the pass, or the
  pass runs outside the sandbox (asked of the person, with the assistant's justification); a
  command sent with the failed one in the same batch read nothing of it;
- the pass comes before the person has spoken twice since the failure (the assistant's own
  stretch of work, or the one after the person says how to get past it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reflectgit.notes import shellcommand
from reflectgit.notes.commandruns import Ran, commands_run
from reflectgit.notes.limits import refusal
from reflectgit.notes.policy import EDIT_TOOLS
from reflectgit.notes.shellcommand import simple_commands, without_redirections
from reflectgit.notes.transcripts import (
    ASSISTANT,
    PERSON,
    Transcript,
    exited_badly,
)

PERSON_TURNS = 2  # the pass comes before the person's second turn after the failure


@dataclass(frozen=True)
class Recovery:
    """A failed command (its result's record) and the passing command that ran the same thing."""

    failed: str
    passed: str
    result: int  # record of the failed command's result
    passed_at: int  # record of the passing command's call


@dataclass(frozen=True)
class _Run:
    call: int  # record of the call
    result: int  # record of the result
    command: str
    failed: bool
    refused: bool
    ended: bool
    escaped: bool  # run outside the sandbox


def outside_sandbox(tool_input: object) -> bool:
    """Does the call run its command outside the agent's sandbox? A field of the call, not a
    word of the command: Codex's ``sandbox_permissions: "require_escalated"``, Claude Code's
    ``dangerouslyDisableSandbox: true``."""
    if not isinstance(tool_input, Mapping):
        return False
    return (
        tool_input.get("sandbox_permissions") == "require_escalated"
        or tool_input.get("dangerouslyDisableSandbox") is True
    )


def _runs(transcript: Transcript, ran: Sequence[Ran] | None) -> list[_Run]:
    """The shell commands the assistant ran, in the order of their results, as this module
    weighs them: ``commandruns``' one reading (``ran`` when the caller has it; a command still
    running when its call returned is read where it ended), with whether it failed, was
    refused, or ran outside the sandbox."""
    out: list[_Run] = []
    for one in commands_run(transcript) if ran is None else ran:
        failed = one.is_error or exited_badly(one.output)
        refused = failed and bool(refusal(one.output))
        escaped = outside_sandbox(one.call.input)
        out.append(
            _Run(one.call.record, one.result, one.command, failed, refused, one.ended, escaped)
        )
    return out


def _gets_past(failed: _Run, words: tuple[str, ...], again: tuple[str, ...], retried: bool) -> bool:
    """Does the passing simple command ``again`` run what the failed ``words`` ran? The same
    command (options may be added), unless it is a bare retry right after the failure; or,
    when the place refused the failed one, a command on one of its targets or the same
    program's same subcommand (``git push origin main`` refused as a protected branch, then
    ``git push -u origin fix-1``)."""
    if not again:
        return False
    if again[0] == words[0] and all(w in again for w in words):
        return not (retried and again == words)
    if not failed.refused:
        return False
    subcommand = len(words) > 1 and words[1].isalpha()
    return bool(shellcommand.targets(again) & shellcommand.targets(words)) or (
        subcommand and again[:2] == words[:2]
    )


def recovered(transcript: Transcript, ran: Sequence[Ran] | None = None) -> list[Recovery]:
    """The failed commands of ``transcript`` that a later command got past (the module's rules),
    one per failure, in order. ``ran`` is ``commandruns.commands_run``'s, when the caller has
    read it already."""
    runs = _runs(transcript, ran)
    if not any(r.failed for r in runs):
        return []  # the common case costs one pass over the results
    edits = [c.record for c in transcript.tool_calls if c.name in EDIT_TOOLS]
    said = [t.record for t in transcript.turns if t.speaker in (PERSON, ASSISTANT)]
    persons = [t.record for t in transcript.turns if t.speaker == PERSON]
    parsed: dict[str, list[tuple[str, ...]]] = {}

    def commands(command: str) -> list[tuple[str, ...]]:
        if command not in parsed:
            parsed[command] = [without_redirections(w) for w in simple_commands(command)]
        return parsed[command]

    out: list[Recovery] = []
    for i, failed in enumerate(runs):
        if not failed.failed:
            continue
        words = shellcommand.core(failed.command)
        if not words:
            continue
        after = [p for p in persons if p > failed.result][:PERSON_TURNS]
        end = after[-1] if len(after) == PERSON_TURNS else None
        edited = min((e for e in edits if e > failed.result), default=None)
        for j, later in enumerate(runs[i + 1 :], start=i + 1):
            if (end is not None and later.call > end) or (
                edited is not None and later.call > edited
            ):
                break  # the person moved on, or a file was edited: not this failure's way past
            if later.failed or not later.ended or later.call < failed.result:
                continue
            escalated = later.escaped and not failed.escaped
            if not escalated and not any(failed.result < s < later.call for s in said):
                continue  # nobody read the failure yet (leaving the sandbox is asked, with why)
            if any(
                _gets_past(
                    failed, words, again, retried=j == i + 1 and later.escaped == failed.escaped
                )
                for again in commands(later.command)
            ):
                out.append(Recovery(failed.command, later.command, failed.result, later.call))
                break
    return out
