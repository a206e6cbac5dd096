"""``reflect-git hook EVENT [--harness claude|codex|copilot] [--kb PATH] [PAYLOAD]``: the agent-harness hook.

Does little, by design. An event the hook only records (a tool call's result, a prompt, a
notification: ``RECORDED``) is appended as it came to the state directory's inbox
(``state/inbox.py``) and the hook exits: nothing is parsed, nothing else is imported, and this
is the cost of every tool call. Every other event is read whole by ``hooks/event.py``:

- PreToolUse and PermissionRequest get the enforced rules' decision from the rules compiled
  already (``hooks/policy.py``); PreToolUse is not logged, it is answered, and when the last
  compile vouches that no rule applies to the tools the call names, for this very HEAD
  (``state/rulestamp.py``), it is answered here, with nothing, without parsing the payload;
- Stop, SessionEnd and PreCompact (and Codex ``notify``) are recorded and start the capture
  pass over the session's events, detached (``REFLECT_GIT_HOOK_SYNC=1``: in the foreground);
  the pass moves the inbox into the sessions' event logs and runs the detectors, which write
  the notes (``workflows/capture/sessionpass.py``).

SubagentStop always gets ``{}``, on every path, errors included. No note is committed inside a
tool call. ``--harness`` says who sent the event (the installer writes it); without it the
harness is read from the payload's shape. Never fails the caller: every error is caught,
logged in the state directory, and the exit code is 0; every lock wait is bounded
(``LOCK_WAIT``). (SessionStart's recall is its own hook command.) The installer runs this as
``python -c 'from reflectgit.hooks.agent import main; ...'``: ``-m`` would import ``runpy``.
"""

from __future__ import annotations

import os
import sys

from reflectgit import location
from reflectgit.state import inbox

MAX_PAYLOAD = 8 * 1024 * 1024
LOCK_WAIT = 2.0  # seconds a hook waits for any lock before it gives up (and logs it)
# The events whose harness reads a JSON reply on stdout, and the reply that changes nothing.
QUIET_REPLY = {"SubagentStop": "{}", "subagentStop": "{}"}
# The events a hook only records, by the names Claude Code, Codex and Copilot CLI give them.
RECORDED = frozenset(
    {
        "PostToolUse",
        "postToolUse",
        "PostToolUseFailure",
        "postToolUseFailure",
        "UserPromptSubmit",
        "userPromptSubmitted",
        "Notification",
        "notification",
        "SubagentStart",
        "subagentStart",
        "SubagentStop",
        "subagentStop",
        "errorOccurred",
    }
)


# The events the enforced rules answer and nobody records: asked before every tool call.
ANSWERED = frozenset({"PreToolUse", "preToolUse"})


def parse_args(args: list[str]) -> tuple[str, str | None, str | None, str | None]:
    """(event, harness as given, lower-cased, or None, payload argument or None, ``--kb`` or
    None) from the hook's arguments (the installer names the KB in a personal settings file)."""
    positional: list[str] = []
    options: dict[str, str] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=")
        if name in ("--harness", "--kb"):
            if eq:
                options[name] = value
            elif i + 1 < len(args):
                options[name] = args[i + 1]
                i += 1
        else:
            positional.append(arg)
        i += 1
    harness = options.get("--harness")
    event = positional[0] if positional else ""
    payload = positional[-1] if len(positional) > 1 else None
    return event, harness.lower() if harness else None, payload, options.get("--kb") or None


def main(argv: list[str] | None = None, kb: str | None = None) -> int:
    """Run one hook event; always returns 0."""
    args = list(sys.argv[1:] if argv is None else argv)
    event, harness, argument, named_kb = parse_args(args)
    kb = kb or named_kb
    if argument is None and event in RECORDED:
        where = recording_dir(kb, location.environ())
        if where is not None:
            return record(where, event, harness, kb)
    raw = None
    if argument is None and event in ANSWERED:
        raw = stdin()
        if nothing_enforced(kb, location.environ(), raw):
            return 0
    from reflectgit.hooks.event import handle

    return handle(event, harness, argument, kb, raw)


def _located(kb: str | None, env: dict[str, str]) -> tuple[str, str] | str | None:
    """``(state directory, KB)`` when the KB is named (``--kb``, the environment); ``""`` when
    nothing is to be recorded or answered (reflect-git is switched off, this is our own process,
    or the KB has no git directory: we never create a state directory by accident); None when
    only the whole configuration can say (the KB is found from the folder or the user's
    default; a switch is malformed)."""
    disabled = location.switched_on(env, location.DISABLED_ENV)
    internal = location.switched_on(env, location.INTERNAL_ENV)
    if disabled is None or internal is None:
        return None
    if disabled or internal:
        return ""
    named = location.named_kb(kb, env)
    if named is None:
        return None
    explicit = location.state_override(env)
    if explicit is not None:
        return explicit, named[0]
    state = location.state_dir(named[0], env)
    return (state, named[0]) if os.path.isdir(os.path.dirname(state)) else ""


def recording_dir(kb: str | None, env: dict[str, str]) -> str | None:
    """Where a recorded event goes: the state directory, ``""`` when nothing is to be recorded,
    or None when only the whole configuration can say (``_located``)."""
    found = _located(kb, env)
    return found[0] if isinstance(found, tuple) else found


def nothing_enforced(kb: str | None, env: dict[str, str], payload: bytes) -> bool:
    """True when the answer to this call is surely "nothing": reflect-git or its rules are
    off here, or the last complete compile has no rule for the call: for no tool the payload
    names (``state/rulestamp.py``), or, for a tool some rule names, no rule that matches this
    call: no command rule whose words are all in the payload's bytes (``rulestamp.unworded``,
    without parsing it), or none that matches it read as JSON (``hooks/policy.unmatched``). When that compile was made for exactly this HEAD and
    these policy files, that is all; when the KB or a policy file changed since, it answers
    until the compile now due finishes, and a compile is made sure to be under way
    (``workflows/recompile.ask``: once per change). False: the whole reading decides."""
    found = _located(kb, env)
    if not isinstance(found, tuple):
        return found == ""
    if location.boolean(env.get(location.POLICY_ENV) or "-") is False:
        return True
    where, named = found
    from reflectgit.git.headstamp import head_stamp
    from reflectgit.state import rulestamp

    quick = rulestamp.read(where)
    if quick is None:
        return False
    git_dir = location.git_dir(named)
    stamp = head_stamp(git_dir if os.path.isdir(git_dir) else named)
    files = rulestamp.fingerprint(location.policy_files(env))
    current = stamp is not None and rulestamp.vouches(quick, rulestamp.key(stamp, files))
    if current and (rulestamp.quiet(quick, payload) or rulestamp.unworded(quick, payload)):
        return True
    # The KB or a policy file changed since (or a moment ago): the last complete compile
    # answers, while it is the one ``rules.json`` holds. REFLECT_GIT_HOOK_SYNC compiles first.
    if not current and location.switched_on(env, location.HOOK_SYNC_ENV) is not False:
        return False
    if not rulestamp.summarises(where, quick):
        return False
    if (
        not rulestamp.quiet(quick, payload)
        and not rulestamp.unworded(quick, payload)
        and not _unmatched(where, env, payload, quick[3])
    ):
        return False
    if current:
        return True
    try:
        from reflectgit.workflows import recompile

        return recompile.ask(named, env, where)
    except Exception:  # the whole reading answers, starts the compile itself, and logs why
        return False


def _unmatched(where: str, env: dict[str, str], payload: bytes, commands: bytes | None) -> bool:
    """``hooks/policy.unmatched``, where the home folder is spelled as the configuration
    spells it (``pathlib``'s normal form, which this does not import); never raises."""
    home = location.home(env)
    if "//" in home or "/./" in home or home.endswith("/.") or home.startswith("./"):
        return False
    try:
        from reflectgit.hooks.policy import unmatched

        return unmatched(where, home.rstrip("/") or home, payload, commands)
    except Exception:  # the whole reading answers, and logs why
        return False


def record(where: str, event: str, harness: str | None, kb: str | None) -> int:
    """Append the event to the inbox of ``where`` (``""``: drop it); always returns 0."""
    try:
        if where:
            import time

            raw = stdin()
            inbox.append(where, inbox.line(time.time(), harness, event, raw), LOCK_WAIT)
    except BaseException as exc:  # never fail the harness, not even on KeyboardInterrupt
        from reflectgit.hooks.event import breadcrumb

        breadcrumb(kb, event, exc)
    finally:
        reply(QUIET_REPLY.get(event))
    return 0


def stdin() -> bytes:
    """The payload on stdin (empty past ``MAX_PAYLOAD``: cut JSON is no JSON)."""
    data = sys.stdin.buffer.read(MAX_PAYLOAD + 1)
    return data if len(data) <= MAX_PAYLOAD else b""


def reply(text: str | None) -> None:
    """Print what the harness reads; never raises."""
    if text is None:
        return
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BaseException:
        pass


if __name__ == "__main__":
    raise SystemExit(main())
