"""Fixes made by a command rather than an edit, and limits of the environment worked around. Pure.

A failing command passes when run again after a command that changes state (``command_fixes``);
the same command run again outside the agent's sandbox or with an option added passes, and the
assistant's statement between names what failed and what the change is about: a constraint of
where it runs, and how to run it there (``rerun_fixes``). A failure the place it ran refused (a
tool missing, an operation denied: ``notes/limits``) is confirmed another way too: by another
command run in its place on the same thing, which passes (``replaced_commands``), or by the
person's word on how to get past it and the command run so (``told_workarounds``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from reflectgit.notes import recoveries, shellcommand, testruns
from reflectgit.notes.commandruns import FAILURE_WORDS, Ran
from reflectgit.notes.limits import refusal
from reflectgit.notes.policy import EDIT_TOOLS
from reflectgit.notes.privacy import clean
from reflectgit.notes.shellcommand import simple_commands, without_redirections
from reflectgit.notes.signals import MEDIUM
from reflectgit.notes.transcripts import ASSISTANT, PERSON, Transcript, Turn
from reflectgit.workflows.drain.heuristic.linked import _linked, last_first
from reflectgit.workflows.drain.heuristic.note import _action
from reflectgit.workflows.drain.heuristic.wording import _VERSION, _trim

# What a command changes: a word of one of its simple commands (``go install X``, ``npm ci``,
# ``gofmt -w``, ``mise upgrade``, ``cargo update -p X``). A command with none of them reads.
_CHANGES = frozenset(
    [
        "install",
        "reinstall",
        "upgrade",
        "update",
        "uninstall",
        "add",
        "remove",
        "rebuild",
        "tidy",
        "sync",
        "ci",
        "-w",
        "--write",
        "--fix",
        "fmt",
        "format",
        "clean",
        "rm",
        "mv",
        "cp",
        "mkdir",
        "ln",
        "chmod",
        "chown",
        "touch",
        "pin",
    ]
)


def changing_command(command: str) -> str:
    """The simple command of ``command`` that changes state (``go install ...`` of ``go install
    ... 2>&1 | tail -5``), ``""`` for a command line that only reads."""
    for words in map(without_redirections, simple_commands(command)):
        if (len(words) > 1 and any(w in _CHANGES for w in words[1:])) or words[:1] == ("rm",):
            return " ".join(words)
    return ""


# The verbs that install what a project already declares when no package is named: `npm ci`,
# `pnpm install --frozen-lockfile`, `uv sync`, `bundle install`.
_RESTORES = frozenset(["install", "ci", "sync"])


def installs_declared(command: str) -> bool:
    """Does ``command`` (a simple command, as ``changing_command`` gives it) install only what
    the project declares: an install, ``ci`` or ``sync`` followed by options alone, no package
    named? That brings a checkout to the state its lockfile says, a step every fresh or stale
    checkout needs and the tool's own message names ("node_modules is out of date, run pnpm
    install"): nothing a teammate learns. Naming what to install is not this (``go install
    golang.org/x/vuln/cmd/govulncheck@latest``, ``mix deps.get lazy_html``, ``pip install -r
    requirements-dev.txt``: which one, or which file, is the lesson)."""
    words = command.split()
    at = next((i for i, w in enumerate(words) if i > 0 and w in _RESTORES), None)
    return at is not None and all(w.startswith("-") for w in words[at + 1 :])


def _fails(ran: Ran) -> bool:
    return (
        ran.is_error
        or (ran.run is not None and not ran.run.green)
        or bool(ran.run is None and FAILURE_WORDS.search(ran.output))
    )


def _records(transcript: Transcript) -> tuple[list[int], list[Turn], list[int]]:
    """What the readers of a failed command and its rerun look up in ``transcript``: the
    records of its file edits, its dialogue turns (the person's and the assistant's), and the
    records of the person's turns (where the assistant's stretch of work ends)."""
    edits = [c.record for c in transcript.tool_calls if c.name in EDIT_TOOLS]
    turns = [t for t in transcript.turns if t.speaker in (PERSON, ASSISTANT)]
    return edits, turns, [t.record for t in turns if t.speaker == PERSON]


def command_fixes(
    transcript: Transcript, ran: Sequence[Ran], since: int = 0
) -> list[dict[str, Any]]:
    """Causes whose fix is a command or a setting, not a file edit: a command fails (an error
    result, a red test run, or output saying it failed); the assistant states why, naming a
    term of the failure and one of the command it then runs; that command changes state (an
    install, an upgrade, a rebuild, ``-w``; not one that only reads); and the failing command,
    run again before the person speaks and with no file edited since the failure, now
    succeeds. The first rerun decides: one that still fails confirms nothing. For the
    assistant's turns at or after record ``since``."""
    edits, turns, persons = _records(transcript)
    out: list[dict[str, Any]] = []
    for i, failed in enumerate(ran):
        core = shellcommand.core(failed.command)
        if not core or not _fails(failed):
            continue
        end = min((r for r in persons if r > failed.result), default=None)
        later = [r for r in ran[i + 1 :] if end is None or r.call.record < end]
        rerun = next((r for r in later if shellcommand.core(r.command) == core), None)
        if rerun is None or _fails(rerun) or not rerun.ended:
            continue  # not run again, still failing, or still running where the reading stops
        if any(failed.result < e < rerun.call.record for e in edits):
            continue  # a file was edited: the writer's other readings
        between = [r for r in later if r.call.record < rerun.call.record]
        changes = [(r, changing_command(r.command)) for r in between]
        changes = [(r, c) for r, c in changes if c]
        if not changes:
            continue  # only reads in between: nothing was changed that the rerun checked
        first = changes[0][0].call.record
        said = [
            t
            for t in turns
            if t.speaker == ASSISTANT and failed.result < t.record < first and t.record >= since
        ]
        if not said:
            continue  # no cause stated
        fix = changes[-1][1]
        if all(installs_declared(c) for _r, c in changes):
            continue  # the checkout's declared dependencies installed: a routine step
        how = f"the failing command run again after `{fix[:120]}`: `{' '.join(core)[:120]}`"
        changed = "\n".join(c for _r, c in changes)
        for text, as_cause in last_first([t.text for t in said]):
            action = _linked(text, [failed.output], changed, how, set(), as_cause, command=fix)
            if action is not None:
                out.append(action)
                break
    return out


# Running a command outside the agent's sandbox is a field of the call, not a word of the
# command: Codex's ``sandbox_permissions: "require_escalated"`` (asked of the person, with the
# assistant's ``justification``) and Claude Code's ``dangerouslyDisableSandbox: true``.
OUTSIDE_SANDBOX = "outside the sandbox"

outside_sandbox = recoveries.outside_sandbox  # the gate reads it too: one reading, in notes


def run_differently(failed: Sequence[str], again: Sequence[str]) -> tuple[str, ...]:
    """The words ``again`` adds to ``failed`` (both a simple command's words) to run it another
    way: every word of ``failed`` kept, and among the words added an option (``-x``,
    ``--repo o/r``, rustup's ``+1.96.0``) that says how it runs (``cargo +1.96.0 test`` of
    ``cargo test``; ``gh issue view 5 --repo o/r`` of ``gh issue view 5``). ``()`` when it is
    another command, the same one unchanged, one that drops a word (it runs on something else:
    another file, another remote, a narrower test selection) or one that only adds operands
    (it reads more, it does not run differently)."""
    if len(failed) < 2 or len(again) <= len(failed) or failed[0] != again[0]:
        return ()
    if any(w not in again for w in failed):
        return ()
    added = tuple(w for w in again if w not in failed)
    return added if any(w[:1] in "-+" and len(w) > 1 for w in added) else ()


def narrower(first: testruns.TestRun | None, then: testruns.TestRun | None) -> bool:
    """Did test run ``then`` run less than ``first``: a name filter ``first`` had not, or
    fewer tests than ``first`` counted? A green narrower run says nothing of what failed."""
    if first is None or then is None:
        return False
    return bool(set(then.filters) - set(first.filters)) or (
        then.passed + then.failures < first.passed + first.failures
    )


def rerun_fixes(transcript: Transcript, ran: Sequence[Ran], since: int = 0) -> list[dict[str, Any]]:
    """Causes whose fix is running the failing command differently: a constraint of where it
    runs (the agent's sandbox, the shell's toolchain, a remote the tool cannot read) that the
    assistant finds and works around. A command fails; the assistant states why, naming a term
    of the failure and one of what it then changes (the option it adds: ``run_differently``,
    or the justification it gives for leaving the sandbox); and the same command, run again
    before the person speaks with that option or outside the sandbox, nothing edited and
    nothing changed by a command in between, now succeeds (a version selected, ``+1.96.0``,
    after the place refused the one it had, changes the versions the refusal names: a statement
    naming them says why). The change is the lesson: where the
    same command runs into the same constraint again, it says how to run it. The first rerun
    decides: one unchanged is a retry (``command_fixes``' reading), one that still fails or
    runs less (``narrower``) confirms nothing. For the assistant's turns at or after record
    ``since``."""
    edits, turns, persons = _records(transcript)
    out: list[dict[str, Any]] = []
    for i, failed in enumerate(ran):
        core = shellcommand.core(failed.command)
        if len(core) < 2 or not _fails(failed):
            continue
        end = min((r for r in persons if r > failed.result), default=None)
        later = [
            r
            for r in ran[i + 1 :]
            if r.call.record > failed.result and (end is None or r.call.record < end)
        ]
        for rerun in later:
            words = [without_redirections(w) for w in simple_commands(rerun.command)]
            escaped = outside_sandbox(rerun.call.input) and not outside_sandbox(failed.call.input)
            again = next((w for w in words if w == core), None)
            added: tuple[str, ...] = ()
            if again is None:
                again, added = next(
                    ((w, d) for w in words if (d := run_differently(core, w))), (None, ())
                )
            if again is None:
                continue  # another command: look further
            if (not added and not escaped) or _fails(rerun) or narrower(failed.run, rerun.run):
                break  # run again unchanged, still failing, or on less: no workaround confirmed
            if not rerun.ended:
                break  # still running where the transcript stops reading it: no result yet
            between = [r for r in later if r.call.record < rerun.call.record]
            if any(failed.result < e < rerun.call.record for e in edits) or any(
                changing_command(r.command) for r in between
            ):
                break  # a file edited or a state changed: the writer's other readings
            said = [
                t
                for t in turns
                if t.speaker == ASSISTANT
                and failed.result < t.record < rerun.call.record
                and t.record >= since
            ]
            for text, as_cause in last_first([t.text for t in said]):
                found = _worked_around(text, failed, rerun, again, added, escaped, as_cause)
                if found:
                    out += found
                    break
            break
    return out


def _worked_around(
    said: str,
    failed: Ran,
    rerun: Ran,
    again: Sequence[str],
    added: Sequence[str],
    escaped: bool,
    said_as_cause: bool = False,
) -> list[dict[str, Any]]:
    """The note of ``rerun_fixes`` from the assistant's statement ``said``: linked to the
    failure and to the change (the added words, the justification for leaving the sandbox);
    with ``said_as_cause``, only a sentence said as the cause is read (``last_first``)."""
    justification = rerun.call.input.get("justification", "") if escaped else ""
    change = " ".join([*added, OUTSIDE_SANDBOX if escaped else "", str(justification)])
    if refusal(failed.output) and any(_VERSION.search(w) for w in added):
        # another version of the tool selected (rustup's ``+1.96.0``) after the place refused
        # the one it had ("rustc 1.93.0 is not supported ...: kdl@6.7.1 requires rustc 1.95"):
        # the change replaces the versions the refusal names, so a statement naming them
        # ("kdl@6.7.1 requires rustc 1.95, while this shell has rustc 1.93.0") says why
        change += " " + " ".join(_VERSION.findall(failed.output))
    command = " ".join(again)
    where = f" {OUTSIDE_SANDBOX}" if escaped else ""
    changed = f"with `{' '.join(added)[:120]}`" if added else ""
    how = f"the failing command run again {' and '.join(filter(None, [changed, where.strip()]))}"
    how = f"{how}: `{command[:120]}`"
    action = _linked(
        said, [failed.output], change, how, set(), said_as_cause, command=command, where=where
    )
    return [action] if action is not None else []


def replaced_commands(
    transcript: Transcript, ran: Sequence[Ran], since: int = 0
) -> list[dict[str, Any]]:
    """Limits of the environment worked around by another command: a command fails and its
    output says the place it ran refused it (``limits.refusal``: a tool missing, an operation
    denied, a port taken, a remote's refusal), not that the code is wrong; the assistant states
    why, naming a term of the failure and one of the command it then runs in its place; and
    that other command, run on the same thing (a target of the failed one: ``_targets``) before
    the person speaks, with nothing edited and nothing changed by a command in between, passes.
    The other command is the lesson: where the first one runs into the same limit again, it
    says what to run instead (``rerun_fixes`` reads the same command run again differently,
    ``command_fixes`` a state changed so that the same command passes).

    The first run on the same thing decides: one that fails too confirms nothing (the limit
    was not worked around), and so does the failed command passing on a plain rerun (a flaky
    failure, not a limit) or run again with an option added (``rerun_fixes``' reading). For the
    assistant's turns at or after record ``since``."""
    edits, turns, persons = _records(transcript)
    out: list[dict[str, Any]] = []
    for i, failed in enumerate(ran):
        core = shellcommand.core(failed.command)
        targets = shellcommand.targets(core)
        if not targets or not _fails(failed) or not refusal(failed.output):
            continue
        end = min((r for r in persons if r > failed.result), default=None)
        # run in its place: after the assistant has read the failure and said something of
        # it, not a command sent with the failed one (a twin push to another branch)
        read = min(
            (t.record for t in turns if t.speaker == ASSISTANT and t.record > failed.result),
            default=None,
        )
        later = [
            r
            for r in ran[i + 1 :]
            if read is not None and r.call.record > read and (end is None or r.call.record < end)
        ]
        for other in later:
            if any(failed.result < e < other.call.record for e in edits) or changing_command(
                other.command
            ):
                break  # a file edited or a state changed: the writer's other readings
            words = [without_redirections(w) for w in simple_commands(other.command)]
            if any(w == core or run_differently(core, w) for w in words):
                break  # the same command again: a retry (flaky when it passes) or rerun_fixes'
            instead = next((w for w in words if shellcommand.targets(w) & targets), None)
            if instead is None:
                continue  # a look around (``which``, ``ls``): not run on the same thing
            if not _exited_well(other) or narrower(failed.run, other.run):
                break  # the other command fails too, has no result yet, or runs less
            said = [
                t
                for t in turns
                if t.speaker == ASSISTANT
                and failed.result < t.record < other.call.record
                and t.record >= since
            ]
            if said:
                command = " ".join(instead)
                how = f"another command run in its place, which passed: `{command[:120]}`"
                added = " ".join(w for w in instead if w not in core)
                where = f" instead of `{' '.join(core)[:120]}`"
                action = _linked(
                    said[-1].text, [failed.output], added, how, set(), command=command, where=where
                )
                if action is not None:
                    out.append(action)
            break
    return out


def _exited_well(ran: Ran) -> bool:
    """Did a command that worked around a limit pass? Its exit decides (and its test run's
    result), not its words: a passing run prints the names of its tests ("fails with a missing
    secret") and a fetched CI log its failed steps. One still running has not passed."""
    return ran.ended and not ran.is_error and (ran.run is None or ran.run.green)


TOLD_WORDS = 30  # longer is a brief for the next task, not a word on how to run one tool


def told_workarounds(
    transcript: Transcript, ran: Sequence[Ran], since: int = 0
) -> list[dict[str, Any]]:
    """Limits of the environment the person tells the assistant how to get past: a command
    fails and its output says the place it ran refused it (``limits.refusal``); the person's
    next turn is short and names the command's program ("gh should work here, run it
    escalated"); and in the assistant's work that follows (before the person speaks again) the
    same command, on the same thing, run outside the sandbox or with an option added, passes.
    The person's words are the rule, the passing run its confirmation: the assistant had not
    found the way itself (it fell back to another tool, or stopped), so no statement of its own
    is read. A turn that names the program but is followed by no such run (the person's remark
    left unacted on, or the run failing again) confirms nothing. For the person's turns at or
    after record ``since``."""
    _edits, turns, persons = _records(transcript)
    out: list[dict[str, Any]] = []
    told_at: set[int] = set()
    for failed in ran:
        core = shellcommand.core(failed.command)
        if len(core) < 2 or not _fails(failed) or not refusal(failed.output):
            continue
        turn = next((t for t in turns if t.speaker == PERSON and t.record > failed.result), None)
        if turn is None or turn.record < since or turn.record in told_at:
            continue
        said = clean(turn.text).strip()
        if len(said.split()) > TOLD_WORDS or core[0] not in re.findall(r"[\w.-]+", said):
            continue  # a long brief, or a turn that does not name the failed program
        end = min((r for r in persons if r > turn.record), default=None)
        after = [
            r for r in ran if r.call.record > turn.record and (end is None or r.call.record < end)
        ]
        if any(
            changing_command(r.command) for r in ran if failed.result < r.call.record < turn.record
        ):
            continue  # a state changed before the person spoke (an install): not the limit's way
        for again in after:
            words = [without_redirections(w) for w in simple_commands(again.command)]
            same = next(
                (
                    w
                    for w in words
                    if w[:1] == core[:1]
                    and (w == core or shellcommand.targets(w) & shellcommand.targets(core))
                ),
                None,
            )
            if changing_command(again.command):
                break  # a state changed (an install): command_fixes' reading, not the limit's way
            if same is None:
                continue  # another command (``gh auth status``): look further
            escaped = outside_sandbox(again.call.input) and not outside_sandbox(failed.call.input)
            added = run_differently(core, same)
            if not _exited_well(again) or not (escaped or added):
                break  # still failing, no result, or run no differently: nothing confirmed
            told_at.add(turn.record)
            how = OUTSIDE_SANDBOX if escaped else f"with `{' '.join(added)}`"
            tool = f"`{core[0]}`"
            out.append(
                _action(
                    title=f"Run {tool} {how} here: {_trim(said)}",
                    rule=f"Run {tool} {how} here.",
                    quote=said,
                    before="",
                    who="person",
                    confidence=MEDIUM,
                    learning_type="correction",
                    category="general",
                    cause=f"{tool} failed {'inside the sandbox' if escaped else 'without it'} "
                    f"(“{refusal(failed.output)}”).",
                    fix=f"Run `{' '.join(same)[:160]}` {how}.",
                    confirmed=f"the command run {how} after the person said so, which passed: "
                    f"`{' '.join(same)[:120]}`",
                )
            )
            break
    return out
