"""A shell command line read the way a shell reads it, never as text, for the command rules of
``notes/policy.py`` (``Bash(git push --force:*)``, ``Bash(rm -rf build)``).

The line is split into its simple commands at ``&&``, ``||``, ``;``, ``|``, ``&``, parentheses
and newlines, the words are unquoted, leading ``NAME=value`` assignments and the wrappers
(``sudo``, ``env``, ...) are skipped, and ``sh|bash|zsh -c SCRIPT`` is read as SCRIPT. A command
rule matches one of the simple commands from its first word (``matches``).

The PreToolUse hook runs on every tool call and reads this without ``typing``, and without ``re``
or ``shlex`` for a line with no quotes, escapes or shell punctuation (``str.split`` reads it as
``shlex`` would); anything else goes to ``shlex``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

WRAPPERS = frozenset({"sudo", "env", "command", "exec", "nohup", "time", "nice", "doas"})
SHELLS = frozenset({"sh", "bash", "zsh", "dash"})
SEPARATORS = frozenset({"&&", "||", ";", "|", "&", "(", ")", ";;", "|&"})
MAX_DEPTH = 3  # nested `bash -c` scripts read
KINDS = ("exact", "prefix")  # the command rules: the whole command, or its first words

IDENT_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
IDENT = IDENT_START | frozenset("0123456789")
_SHLEX_WHITESPACE = frozenset(" \t\r\n")
QUOTING = frozenset("'\"\\")
_PUNCTUATION = frozenset("();<>|&")  # shlex's punctuation_chars=True


def plain(text: str, special: frozenset[str]) -> bool:
    """No character ``shlex`` treats specially (``special``, or whitespace it does not split
    at): then its words are ``text.split()``."""
    return not any(c in special or (c.isspace() and c not in _SHLEX_WHITESPACE) for c in text)


def shell_words(spec: str) -> list[str]:
    """``shlex.split(spec)``."""
    if plain(spec, QUOTING):
        return spec.split()
    import shlex

    return shlex.split(spec)


def is_assignment(word: str) -> bool:
    """``NAME=value`` (``^[A-Za-z_][A-Za-z0-9_]*=``)."""
    name, eq, _ = word.partition("=")
    return bool(eq) and bool(name) and name[0] in IDENT_START and all(c in IDENT for c in name)


def command_of(tool_input: object) -> str:
    """The shell command a tool's input carries (``command``, or Codex's ``cmd``; a list of
    words is joined as a shell would read it back); ``""`` when it carries none."""
    data = tool_input if isinstance(tool_input, Mapping) else {}
    raw = data.get("command", data.get("cmd"))
    if isinstance(raw, list) and all(isinstance(w, str) for w in raw):
        import shlex

        return shlex.join(raw)
    return raw if isinstance(raw, str) else ""


def matches(kind: str, words: Sequence[str], command: str) -> bool:
    """Does a command rule (``kind`` in ``KINDS``, its ``words``) match one of the simple
    commands of ``command``?"""
    want = tuple(words)
    for simple in simple_commands(command) if command else ():
        if kind == "exact" and simple == want:
            return True
        if kind == "prefix" and simple[: len(want)] == want:
            return True
    return False


def simple_commands(command: str, depth: int = 0) -> list[tuple[str, ...]]:
    """The simple commands of a shell command line, each as its words from the command word on
    (assignments and wrappers skipped, ``bash -c SCRIPT`` read as SCRIPT)."""
    out: list[tuple[str, ...]] = []
    for words in _segments(command):
        words = _strip_wrappers(words)
        if not words:
            continue
        if (
            depth < MAX_DEPTH
            and posixpath.basename(words[0]) in SHELLS
            and len(words) >= 3
            and words[1].startswith("-")
            and "c" in words[1]
        ):
            out.extend(simple_commands(words[2], depth + 1))
            continue
        out.append(words)
    return out


# Redirection operators as the reader splits them (``2>&1`` is ``2``, ``>&``, ``1``).
REDIRECTIONS = frozenset({">", ">>", ">|", ">&", "&>", "&>>", "<", "<<", "<<<", "<&", "<>"})


def without_redirections(words: Sequence[str]) -> tuple[str, ...]:
    """A simple command's words without its redirections: each operator with the descriptor
    written before it and the target after it (``mise run check 2>&1`` is ``mise run check``;
    ``make > build.log`` is ``make``)."""
    out: list[str] = []
    target = False
    for word in words:
        if target:
            target = False
        elif word in REDIRECTIONS:
            if len(out) > 1 and out[-1].isdigit():
                out.pop()  # the descriptor: ``2`` of ``2>&1``
            target = True
        else:
            out.append(word)
    return tuple(out)


def core(command: str) -> tuple[str, ...]:
    """What a command line runs: its first simple command past any ``cd``/``pushd``, without
    its redirections (``cd app && mise run check 2>&1 | tail -80`` is ``("mise", "run",
    "check")``); ``()`` when it runs nothing else."""
    for words in simple_commands(command):
        if words and words[0] not in ("cd", "pushd"):
            return without_redirections(words)
    return ()


def targets(words: Sequence[str]) -> set[str]:
    """What a simple command runs on: its words past the program that are no option and no
    plain word (a subcommand, a remote's name): a path, a branch, a number, a task
    (``test/a.bats`` and ``test:bats`` of ``mise run test:bats -- test/a.bats``, the branch
    ``fix-1`` of ``git push -u origin fix-1``, the port ``8080``)."""
    return {w for w in words[1:] if not w.startswith("-") and not w.isalpha()}


def _segments(command: str) -> list[tuple[str, ...]]:
    text = command.replace("\r\n", "\n").replace("\n", " ; ")
    if plain(text, QUOTING | _PUNCTUATION):  # one simple command, split as shlex would
        return [tuple(words)] if (words := text.split()) else []
    import re
    import shlex

    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = ""
        tokens = list(lexer)
    except ValueError:  # an unclosed quote: read it as plain words
        tokens = re.findall(r"&&|\|\||[;|&()]|[^\s;|&()]+", text)
    segments: list[tuple[str, ...]] = []
    current: list[str] = []
    for token in tokens:
        if token in SEPARATORS or (token and set(token) <= set(";|&()")):
            if current:
                segments.append(tuple(current))
            current = []
        else:
            current.append(token)
    if current:
        segments.append(tuple(current))
    return segments


def _strip_wrappers(words: Sequence[str]) -> tuple[str, ...]:
    i = 0
    while i < len(words):
        word = words[i]
        if is_assignment(word) or word in WRAPPERS:
            i += 1
            continue
        break
    return tuple(words[i:])
