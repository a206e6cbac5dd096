"""The enforced rules' quick answer, read with ``os`` alone: "the last complete compile, made
for this HEAD and these policy files, has no rule for a call of any tool but these".

The PreToolUse hook runs before every tool call, and most calls are of tools no rule names
(a KB that enforces "never force-push" has nothing to say about a file read). So each compile
(``workflows/policy.py``) also writes ``<state>/policy/quick``. Its first line: the stamp of
HEAD's files (``git/headstamp.py``; None when the compile ran too soon after a change for the
stamp to vouch) and the fingerprint of the policy files it read, as one ``repr``, then a tab
and the identity (inode, size, mtime) of the ``rules.json`` it summarises; its second,
tab-separated, every tool name those rules can apply to (``notes/policy.covered_tools``; none
when there are no rules; ``*`` when a rule may apply to any tool, a wildcard).

A hook reads it without parsing the payload or reading the rules:

- same stamp and fingerprint (``vouches``), and none of the tools as a JSON string in the
  payload (``quiet``): the answer is "nothing";
- HEAD or a policy file changed since (or changed a moment ago): the rules are being compiled
  again in the background, and until that finishes the last complete compile answers. While
  this file still summarises the ``rules.json`` beside it (``summarises``), it is that answer
  for every tool it does not name; the hook makes sure a compile was asked for the state HEAD's
  files are in now (``wanted``/``want``: once per change, not once per call) and returns.

When every rule of the shell tools is a command rule (a prefix, an exact command, the whole
tool), a third line holds them (``notes/policy.command_table``, written by ``command_line``):
the shell tools, then each rule as its kind and its words, the fields of a rule joined by the
unit separator (``\\x1f``) and the tools and rules by tabs. It is written only when no tool
or word holds a tab, a unit separator, a line break, a backslash or a quote, so it is read
with ``bytes.split`` (``command_rules``). A call of a shell tool is answered from it:

- ``unworded``, here, without parsing the payload: "nothing" when every command rule has a
  word that is nowhere in the payload's bytes (below);
- else from the payload parsed as JSON, without the rules or their parser
  (``hooks/policy.unmatched``).

Why ``unworded`` is sound. It concludes only when the payload holds no backslash and no
single quote, and every ruled tool it names as ``"NAME"`` is one of the table's shell tools:

- The tool called, when a rule names it, is written ``"NAME"`` (no backslash: no ``\\u``
  escape), so it is a shell tool and only the table's rules can apply to it.
- Without a backslash, every JSON string in the payload is its text's UTF-8 bytes as they
  are (no ``\\"``, ``\\\\``, ``\\n``, ``\\uXXXX``; a line break or ``\\r\\n`` in a command is an
  escape, so a command split over lines is never concluded on); so the command
  (``notes/shellcommand.command_of``: ``command``, or Codex's ``cmd``) is a substring of the
  payload. A list ``cmd`` is read as ``shlex.join`` of JSON strings: words without a quote
  are joined as they are or inside single quotes, which give back each element whole.
- The command holds no quote (a ``"`` would be ``\\"``, a ``'`` is excluded) and no
  backslash, so ``shlex`` (and the plain ``str.split`` before it) has nothing to unquote or
  join: every word ``notes/shellcommand.simple_commands`` yields is a run of the command's
  characters, a substring of it. Assignments and wrappers are only skipped; ``bash -c
  SCRIPT`` reads SCRIPT, itself such a word, the same way.
- A command rule matches only a simple command holding every one of its words
  (``notes/shellcommand.matches``: ``exact`` or ``prefix``), so each of its words is then a
  substring of the payload. A rule with a word found nowhere cannot match; a rule of the
  whole tool (``any``, no words) always can, and is never concluded on.

Anything else (a ruled tool, a wildcard, no compile yet, a file this cannot read) and the rules
are read as before. Harnesses write a tool name as itself in their JSON (never with ``\\u``
escapes), which is what the search for ``"NAME"`` relies on; a name that also appears
elsewhere in the payload only sends the call to the full reading.
"""

from __future__ import annotations

import os
import time

FOLDER = "policy"
NAME = "quick"
RULES_FILE = "rules.json"  # the compiled rules (``state/policy.py``)
WANTED = "wanted"  # the state of HEAD's files and the policy files a compile was last asked for
WILDCARD = "*"  # in the tools: a rule may apply to any tool
UNIT = "\x1f"  # between the fields of one command rule on the third line
# What no tool or word of the third line may hold (``command_line``).
UNSAFE = frozenset("\t\x1f\n\r\\'\"")
# A compile asked for this long ago and not running is taken for dead and asked again.
RETRY = 30.0


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


def key(stamp: list[object] | None, files: list[list[object]]) -> str:
    """The line that says which HEAD and policy files a compile saw (``stamp`` None: a HEAD
    the stamp could not vouch for, which no later stamp equals)."""
    return repr([stamp, files])


def _identity(state_dir: str) -> str | None:
    try:
        st = os.stat(os.path.join(state_dir, FOLDER, RULES_FILE))
    except OSError:
        return None
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


def save(
    state_dir: str, line: str | None, tools: list[str] | None = None, commands: str | None = None
) -> None:
    """Write the quick answer for ``line`` and the ruled ``tools`` (None: a rule may apply to
    any tool), and ``commands``, the shell tools' rules when they are all command rules
    (``command_line``), summarising the ``rules.json`` written just
    before; or remove it (``line`` None, or no ``rules.json``)."""
    path = os.path.join(state_dir, FOLDER, NAME)
    identity = _identity(state_dir) if line is not None else None
    if identity is None:
        try:  # noqa: SIM105 - contextlib is not imported on the hook path
            os.unlink(path)
        except FileNotFoundError:
            pass
        return
    from reflectgit.state.files import atomic_write

    names = chr(9).join(tools) if tools is not None else WILDCARD
    table = f"{commands}\n" if commands is not None and "\n" not in commands else ""
    atomic_write(path, f"{line}\t{identity}\n{names}\n{table}".encode())


def command_line(tools: list[str], rules: list[tuple[str, list[str]]]) -> str | None:
    """The third line for the shell ``tools`` and their command ``rules`` (``(kind, words)``,
    ``notes/policy.command_table``), or None when some tool, kind or word holds a character
    of ``UNSAFE``, or there is no tool or no rule."""
    texts = [*tools, *(kind for kind, _ in rules), *(w for _, words in rules for w in words)]
    if not tools or not rules or any(c in UNSAFE for text in texts for c in text):
        return None
    fields = [UNIT.join(tools), *(UNIT.join([kind, *words]) for kind, words in rules)]
    return "\t".join(fields)


def command_rules(line: bytes) -> tuple[list[bytes], list[list[bytes]]] | None:
    """(the shell tools, each rule as ``[kind, *words]``) from a third line; None when it
    holds no tool or no rule."""
    tools, *rules = line.split(b"\t")
    if not tools or not rules:
        return None
    return tools.split(UNIT.encode()), [rule.split(UNIT.encode()) for rule in rules]


# What ``read`` returns: (the compile's line, the rules.json it summarises, the ruled tools,
# the shell tools' command rules, ``command_line``, or None).
Quick = tuple[bytes, bytes, list[bytes], bytes | None]


def read(state_dir: str) -> Quick | None:
    """The quick answer, or None when absent or not whole."""
    try:
        with open(os.path.join(state_dir, FOLDER, NAME), "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    first, _, rest = data.partition(b"\n")
    line, tab, identity = first.rpartition(b"\t")
    if not tab or not line or not identity or not rest.endswith(b"\n"):
        return None
    lines = rest[:-1].split(b"\n")
    if len(lines) > 2 or (len(lines) == 2 and not lines[1]):
        return None
    tools = [t for t in lines[0].split(b"\t") if t]
    return line, identity, tools, lines[1] if len(lines) == 2 else None


def vouches(quick: Quick, line: str) -> bool:
    """Was it written for exactly this HEAD and these policy files (``line``)?"""
    return quick[0] == line.encode("utf-8")


def summarises(state_dir: str, quick: Quick) -> bool:
    """Is it the summary of the ``rules.json`` that is there now (the last complete compile)?"""
    identity = _identity(state_dir)
    return identity is not None and quick[1] == identity.encode("ascii")


def quiet(quick: Quick, payload: bytes) -> bool:
    """Is the answer surely "nothing": no wildcard rule, and the payload names none of the
    tools ruled?"""
    tools = quick[2]
    if WILDCARD.encode() in tools:
        return False
    return not any(b'"' + tool + b'"' in payload for tool in tools)


def unworded(quick: Quick, payload: bytes) -> bool:
    """Is the answer surely "nothing" because every command rule has a word that is nowhere
    in the payload (no backslash, no single quote, and every ruled tool it names a shell
    tool)? Sound as the module says; False when it cannot say."""
    if quick[3] is None or b"\\" in payload or b"'" in payload:
        return False
    table = command_rules(quick[3])
    if table is None or WILDCARD.encode() in quick[2]:
        return False
    shell, rules = table
    if any(b'"' + tool + b'"' in payload and tool not in shell for tool in quick[2]):
        return False
    return all(any(word not in payload for word in rule[1:]) for rule in rules)


def wanted(state_dir: str, line: str) -> bool:
    """Was a compile asked for ``line`` (the state HEAD's files and the policy files are in
    now), less than ``RETRY`` seconds ago?"""
    path = os.path.join(state_dir, FOLDER, WANTED)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        age = time.time() - os.stat(path).st_mtime
    except OSError:
        return False
    return data == line.encode("utf-8") and -RETRY < age < RETRY


def want(state_dir: str, line: str) -> bool:
    """Say that a compile is asked for ``line``; False when it cannot be said (then the caller
    must not start one: every call would). Renamed into place, not synced: a reader sees the
    old ask or the new, and one lost in a crash only asks once more."""
    path = os.path.join(state_dir, FOLDER, WANTED)
    tmp = f"{path}.{os.getpid()}"
    try:
        with open(tmp, "wb") as fh:
            fh.write(line.encode("utf-8"))
        os.replace(tmp, path)
    except OSError:
        try:  # noqa: SIM105 - contextlib is not imported on the hook path
            os.unlink(tmp)
        except OSError:
            pass
        return False
    return True
