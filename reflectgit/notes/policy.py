"""Enforced rules: what a team decided, matched against the tool call an agent is about to make.
Pure: rules and a call in, a decision out (``workflows/policy.py`` compiles the rules from the KB
and the JSONL policy files; ``hooks/policy.py`` turns the decision into each harness's JSON).

A rule is written in Claude Code's permission-rule syntax, ``Tool`` or ``Tool(specifier)``:

- ``Bash(git push --force:*)`` and ``Bash(git push --force *)``: a **command prefix**, by
  words: ``git push --force``, ``git push --force origin main``; not ``git push``, not
  ``git push --force-with-lease``.
- ``Bash(rm -rf build)``: the **exact command** (by words, quoting and spacing ignored).
- ``Bash(git * main)``: a **glob**; ``*`` is any text, spaces included, over the whole command.
- ``Edit(.env)``, ``Edit(migrations/**)``, ``Read(~/.ssh/**)``: a **path glob** over the file the
  tool touches (``*`` within one folder, ``**`` across folders); a pattern without a leading
  ``/``, ``//`` or ``~/`` matches at any depth. ``Edit`` covers every tool that writes a file
  (Edit, Write, MultiEdit, NotebookEdit, Codex's apply_patch, Copilot's edit and create).
- ``WebFetch(domain:example.com)``: the URL's host or a subdomain of it.
- ``Bash``, ``mcp__github__*``: every call of the tool (a ``*`` in the name is a glob).

A shell command is read the way a shell reads it, never as text: it is split into its simple
commands at ``&&``, ``||``, ``;``, ``|``, ``&``, parentheses and newlines, the words are unquoted,
leading ``NAME=value`` assignments and the wrappers ``sudo``, ``env``, ``command``, ``exec``,
``nohup``, ``time``, ``nice``, ``doas`` are skipped, and ``sh|bash|zsh -c SCRIPT`` is read as
SCRIPT. A rule matches when it matches one of the simple commands, from its first word: so
``rm -rf build`` matches ``cd app && rm -rf build`` and ``sudo rm -rf build``, but not
``echo rm -rf build`` or ``git commit -m "rm -rf build"``. What a shell would only know when it
runs (``$(...)``, backticks, variables, aliases, ``eval``) is not looked into.

What a match does depends on the note's tier and review: a high ``deny`` blocks, a high ``ask``
asks the person; a medium rule (deny or ask) adds a context line instead (at most three); a low
rule, or one from an unreviewed note, does nothing.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from reflectgit.notes import shellcommand
from reflectgit.notes.shellcommand import (
    IDENT,
    IDENT_START,
    KINDS,
    command_of,
    shell_words,
    simple_commands,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

ACTIONS = ("deny", "ask")
MAX_CONTEXT = 3
BLOCKING_TIER = "high"
CONTEXT_TIER = "medium"

# Tool names of the harnesses, by family: a rule for `Bash` or `Edit` covers them all.
SHELL_TOOLS = frozenset({"Bash", "bash", "shell", "exec_command", "local_shell", "powershell"})
EDIT_TOOLS = frozenset(
    {
        "Edit", "Write", "MultiEdit", "NotebookEdit",  # Claude Code
        "apply_patch",  # Codex
        "edit", "create", "write", "str_replace_editor",  # Copilot CLI
    }
)  # fmt: skip
READ_TOOLS = frozenset({"Read", "view", "read"})
FAMILIES = {"Bash": SHELL_TOOLS, "Edit": EDIT_TOOLS, "Write": EDIT_TOOLS, "Read": READ_TOOLS}
PATH_TOOLS = ("Edit", "Write", "Read")
_PATCH_FILE = r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$"  # re.M
# A rule is split by hand (``_split_rule``, what the regex
# ``^\s*(?P<tool>[A-Za-z_][A-Za-z0-9_.*-]*)\s*(?:\((?P<spec>.*)\))?\s*$`` with re.S reads),
# its command by ``notes/shellcommand.py``: neither imports `re` or `shlex` for plain words.
_TOOL_CHARS = IDENT | frozenset(".*-")


def _split_rule(text: str) -> tuple[str, str | None] | None:
    """(tool, specifier or None) of ``Tool`` or ``Tool(specifier)``; None when it is neither."""
    rest = text.lstrip()
    if not rest or rest[0] not in IDENT_START:
        return None
    end = 1
    while end < len(rest) and rest[end] in _TOOL_CHARS:
        end += 1
    tool, rest = rest[:end], rest[end:].lstrip()
    if not rest:
        return tool, None
    rest = rest.rstrip()
    if rest[0] != "(" or len(rest) < 2 or rest[-1] != ")":
        return None
    return tool, rest[1:-1]


class RuleError(ValueError):
    """A rule pattern that cannot be read."""


# --------------------------------------------------------------------------- patterns


class Pattern(NamedTuple):
    """A parsed rule pattern: the tool (or tool glob), and how its specifier matches."""

    text: str
    tool: str
    kind: str  # any | exact | prefix | glob | path | domain
    words: tuple[str, ...] = ()
    regex: str = ""


def parse_pattern(text: str) -> Pattern:
    """``Tool`` or ``Tool(specifier)`` read into a ``Pattern``; ``RuleError`` when unreadable."""
    if not isinstance(text, str) or not text.strip():
        raise RuleError("a rule pattern is empty")
    found = _split_rule(text)
    if found is None:
        raise RuleError(f"{text!r} is not `Tool` or `Tool(specifier)`")
    tool, spec = found
    text = text.strip()
    if spec is None or spec.strip() in ("", "*", ":*"):
        return Pattern(text, tool, "any")
    spec = spec.strip()
    if tool in PATH_TOOLS:
        return Pattern(text, tool, "path", regex=_path_regex(spec))
    if tool == "WebFetch":
        if not spec.startswith("domain:") or not spec[7:].strip():
            raise RuleError(f"{text!r}: WebFetch takes `domain:HOST`")
        return Pattern(text, tool, "domain", words=(spec[7:].strip().lower(),))
    if tool not in SHELL_TOOLS:
        raise RuleError(f"{text!r}: only Bash, Edit, Write, Read and WebFetch take a specifier")
    if spec.endswith(":*"):
        return Pattern(text, tool, "prefix", words=_words(spec[:-2]))
    if spec.endswith(" *") and "*" not in spec[:-2]:
        return Pattern(text, tool, "prefix", words=_words(spec[:-2]))
    if "*" in spec:
        import re

        parts = [re.escape(" ".join(p.split())) for p in spec.split("*")]
        return Pattern(text, tool, "glob", regex=".*".join(parts))
    return Pattern(text, tool, "exact", words=_words(spec))


def _words(spec: str) -> tuple[str, ...]:
    try:
        words = tuple(shell_words(spec))
    except ValueError as exc:
        raise RuleError(f"{spec!r}: {exc}") from exc
    if not words:
        raise RuleError("a command rule names no command")
    return words


def _path_regex(spec: str) -> str:
    """A path glob as a regex over an absolute POSIX path (``~`` stays ``~``: expanded later)."""
    import re

    if spec.startswith("//"):
        spec, anchor = spec[1:], "^"
    elif spec.startswith("~/"):
        spec, anchor = spec[2:], "^~/"  # the home folder: put in by `matches`
    elif spec.startswith("/"):
        anchor = "^"
    else:
        anchor = "^(?:.*/)?"  # relative: at any depth
    out = []
    i = 0
    while i < len(spec):
        if spec.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif spec.startswith("**", i):
            out.append(".*")
            i += 2
        elif spec[i] == "*":
            out.append("[^/]*")
            i += 1
        elif spec[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(spec[i]))
            i += 1
    tail = "(?:/.*)?$" if not spec.endswith("/") else ".*$"  # a folder covers what is in it
    return anchor + "".join(out) + tail


def covered_tools(rule_tool: str) -> frozenset[str] | None:
    """Every tool name a rule written for ``rule_tool`` applies to, or None for a wildcard
    (``mcp__*``: a name not known in advance may match)."""
    family = FAMILIES.get(rule_tool)
    if family is not None:
        return family | {rule_tool}
    if rule_tool in SHELL_TOOLS:
        return SHELL_TOOLS
    if "*" in rule_tool:
        return None
    return frozenset({rule_tool})


def command_table(patterns: Iterable[Pattern]) -> dict[str, Any] | None:
    """The rules of the shell tools as the PreToolUse hook answers them without this module
    (``state/rulestamp.py``): ``{"tools": [the shell tools], "rules": [[kind, [words]], ...]}``,
    kind ``any`` (every call), ``exact`` or ``prefix`` (``notes/shellcommand.matches``). None
    when some rule that may apply to a shell tool is no such rule (a glob, a wildcard tool),
    and when no rule applies to one (no call of one gets past the tools ruled)."""
    rows: list[list[Any]] = []
    for pattern in patterns:
        names = covered_tools(pattern.tool)
        if names is None:
            return None
        if not names & SHELL_TOOLS:
            continue
        if pattern.kind != "any" and pattern.kind not in KINDS:
            return None
        rows.append([pattern.kind, list(pattern.words)])
    return {"tools": sorted(SHELL_TOOLS), "rules": rows} if rows else None


def tool_covers(rule_tool: str, tool: str) -> bool:
    """Does a rule written for ``rule_tool`` apply to a call of ``tool``?"""
    names = covered_tools(rule_tool)
    if names is not None:
        return tool in names
    import re

    return re.fullmatch(".*".join(map(re.escape, rule_tool.split("*"))), tool) is not None


# --------------------------------------------------------------------------- calls


class Call(NamedTuple):
    """The tool call a hook asks about, read from the normalised payload."""

    tool: str
    command: str = ""
    paths: tuple[str, ...] = ()
    url: str = ""
    home: str = ""


def call_from(tool: str, tool_input: Any, cwd: str | None = None, home: str = "") -> Call:
    """The call as rules see it: the shell command, the files it writes or reads, its URL."""
    data = tool_input if isinstance(tool_input, Mapping) else {}
    command = command_of(data)
    paths: list[str] = []
    for key in ("file_path", "path", "notebook_path", "filePath"):
        value = data.get(key)
        if isinstance(value, str) and value:
            paths.append(value)
    if tool == "apply_patch":
        # Codex writes the patch itself as the call's input; a hook's payload wraps it
        patch = tool_input if isinstance(tool_input, str) else None
        patch = patch or data.get("input") or data.get("patch") or command
        if isinstance(patch, str):
            import re

            paths.extend(re.findall(_PATCH_FILE, patch, re.M))
    base = cwd if isinstance(cwd, str) and cwd.startswith("/") else "/"
    absolute = tuple(dict.fromkeys(_absolute(p, base, home) for p in paths))
    url = data.get("url")
    return Call(
        tool=tool,
        command=command,
        paths=absolute,
        url=url if isinstance(url, str) else "",
        home=home,
    )


def _absolute(path: str, cwd: str, home: str) -> str:
    if path.startswith("~/") and home:
        path = home.rstrip("/") + path[1:]
    return posixpath.normpath(posixpath.join(cwd, path))


# --------------------------------------------------------------------------- rules


class Rule(NamedTuple):
    """One enforced rule and where it comes from."""

    action: str  # deny | ask
    pattern: str  # as written: Bash(git push --force:*)
    tier: str  # high | medium | low
    source: str  # the note id, or FILE:LINE of a policy file
    origin: str = "note"  # note | permission | file
    reviewed: bool = True
    title: str = ""
    scope: str | None = None
    project: str | None = None

    def replace(self, **changes: Any) -> Rule:
        """A copy with ``changes``."""
        return self._replace(**changes)

    def to_json(self) -> dict[str, Any]:
        return self._asdict()

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rule:
        return cls(
            action=str(data["action"]),
            pattern=str(data["pattern"]),
            tier=str(data["tier"]),
            source=str(data["source"]),
            origin=str(data.get("origin") or "note"),
            reviewed=bool(data.get("reviewed", True)),
            title=str(data.get("title") or ""),
            scope=data.get("scope") if isinstance(data.get("scope"), str) else None,
            project=data.get("project") if isinstance(data.get("project"), str) else None,
        )

    @property
    def effect(self) -> str:
        """What a match does: deny, ask, context or nothing (and why nothing)."""
        if not self.reviewed:
            return "none (unreviewed)"
        if self.tier == BLOCKING_TIER:
            return self.action
        if self.tier == CONTEXT_TIER:
            return "context"
        return f"none ({self.tier})"


def matches(pattern: Pattern, call: Call) -> bool:
    """Does the pattern match the call (see the module's docstring for the semantics)?"""
    if not tool_covers(pattern.tool, call.tool):
        return False
    if pattern.kind == "any":
        return True
    if pattern.kind == "path":
        import re

        regex = pattern.regex
        if call.home and regex.startswith("^~/"):
            regex = "^" + re.escape(call.home.rstrip("/")) + regex[2:]
        return any(re.match(regex, p) for p in call.paths)
    if pattern.kind == "domain":
        host = _host(call.url)
        want = pattern.words[0]
        return bool(host) and (host == want or host.endswith("." + want))
    if pattern.kind in KINDS:
        return shellcommand.matches(pattern.kind, pattern.words, call.command)
    if not call.command:
        return False
    return any(_fullmatch(pattern.regex, " ".join(w)) for w in simple_commands(call.command))


def _fullmatch(regex: str, text: str) -> bool:
    import re

    return re.fullmatch(regex, text, re.S) is not None


def _host(url: str) -> str:
    import re

    found = re.match(r"^[a-z][a-z0-9+.-]*://(?:[^@/]*@)?([^/:?#]+)", url.strip(), re.I)
    return found.group(1).lower() if found else ""


def rules_from_note(front: Mapping[str, Any], source: str, reviewed: bool = True) -> list[Rule]:
    """The rules a note's frontmatter carries: its ``enforce`` patterns, and the rule of a
    permission note whose answer was "no, never" (``permission.decision: deny``)."""
    from reflectgit.notes.note import tier_of

    tier = tier_of(front) or "low"
    title = str(front.get("title") or front.get("name") or "").strip()
    scope = front.get("scope") if isinstance(front.get("scope"), str) else None
    project = front.get("project") if isinstance(front.get("project"), str) else None

    def rule(action: str, pattern: str, origin: str) -> Rule:
        return Rule(
            action=action,
            pattern=pattern,
            tier=tier,
            source=source,
            origin=origin,
            reviewed=reviewed,
            title=title,
            scope=scope,
            project=project,
        )

    out: list[Rule] = []
    enforce = front.get("enforce")
    if isinstance(enforce, Mapping):
        for action in ACTIONS:
            patterns = enforce.get(action)
            if isinstance(patterns, str):
                patterns = [patterns]
            for text in patterns if isinstance(patterns, list) else []:
                if isinstance(text, str) and _readable(text):
                    out.append(rule(action, text.strip(), "note"))
    permission = front.get("permission")
    if isinstance(permission, Mapping) and permission.get("decision") == "deny":
        text = permission_pattern(permission)
        if text and _readable(text):
            out.append(rule("deny", text, "permission"))
    return out


def permission_pattern(permission: Mapping[str, Any]) -> str | None:
    """The rule a "no, never" permission note stands for: the rule the dialog saved, else the
    tool and the exact command that was refused."""
    rule = permission.get("rule")
    if isinstance(rule, str) and _split_rule(rule) is not None:
        return rule.strip()
    tool = permission.get("tool")
    command = permission.get("command")
    if not isinstance(tool, str) or not tool:
        return None
    if isinstance(command, str) and command.strip() and tool in SHELL_TOOLS:
        return f"{tool}({command.strip()})"
    return tool


def _readable(text: str) -> bool:
    try:
        parse_pattern(text)
    except RuleError:
        return False
    return True


def pattern_problem(text: Any) -> str | None:
    """Why a rule pattern cannot be used (for validation), or None when it can."""
    if not isinstance(text, str):
        return "a rule pattern is a string like `Bash(git push --force:*)`"
    try:
        parse_pattern(text)
    except RuleError as exc:
        return str(exc)
    return None


def rule_from_line(data: Mapping[str, Any], source: str) -> Rule | None:
    """One line of the original tool's JSONL policy files, or None when it names no rule.

    Read keys: ``rule`` (``Tool(specifier)``), else ``tool`` (default ``Bash``) with ``pattern``,
    ``command`` or ``match`` (a command rule as in ``Bash(...)``); ``decision``, ``action`` or
    ``behavior`` (``deny``/``block``, ``ask``; anything else is no rule); ``confidence``
    (default medium: a file must say ``high`` to block); ``id``, ``reason`` or ``message``.
    """
    from reflectgit.notes.note import tier_of

    raw_action = next(
        (data[k] for k in ("decision", "action", "behavior") if isinstance(data.get(k), str)), ""
    )
    action = {"deny": "deny", "block": "deny", "never": "deny", "ask": "ask"}.get(
        raw_action.strip().lower()
    )
    if action is None:
        return None
    text = data.get("rule")
    if not (isinstance(text, str) and _split_rule(text) is not None and "(" in text):
        tool = (
            data.get("tool") if isinstance(data.get("tool"), str) and data.get("tool") else "Bash"
        )
        spec = next(
            (data[k] for k in ("pattern", "command", "match") if isinstance(data.get(k), str)), ""
        )
        text = f"{tool}({spec.strip()})" if spec.strip() else str(tool)
    if not _readable(str(text)):
        return None
    tier = tier_of(data) or "medium"
    ident = data.get("id")
    title = next(
        (str(data[k]) for k in ("reason", "message", "title") if isinstance(data.get(k), str)), ""
    )
    return Rule(
        action=action,
        pattern=str(text).strip(),
        tier=tier,
        source=str(ident) if isinstance(ident, str) and ident else source,
        origin="file",
        title=title.strip(),
    )


# --------------------------------------------------------------------------- decisions


class Decision(NamedTuple):
    """What the hook answers: deny, ask, or nothing, with context lines for the agent."""

    action: str | None  # deny | ask | None
    reason: str = ""
    context: tuple[str, ...] = ()
    matched: tuple[Rule, ...] = ()

    @property
    def silent(self) -> bool:
        return self.action is None and not self.context


def matching(rules: Iterable[Rule], call: Call) -> list[Rule]:
    """The rules that match the call, in their order (unreadable patterns never match)."""
    out = []
    for rule in rules:
        try:
            pattern = parse_pattern(rule.pattern)
        except RuleError:
            continue
        if matches(pattern, call):
            out.append(rule)
    return out


def decide(matched: Sequence[Rule]) -> Decision:
    """The answer for the rules that matched (already filtered to the session's project)."""
    blocking = [r for r in matched if r.reviewed and r.tier == BLOCKING_TIER]
    for action in ACTIONS:
        chosen = [r for r in blocking if r.action == action]
        if chosen:
            return Decision(action, reason(chosen), (), tuple(matched))
    lines: list[str] = []
    for rule in matched:
        if rule.reviewed and rule.tier == CONTEXT_TIER:
            line = context_line(rule)
            if line not in lines:
                lines.append(line)
    return Decision(None, "", tuple(lines[:MAX_CONTEXT]), tuple(matched))


def reason(rules: Sequence[Rule]) -> str:
    """The reason a harness shows: the first rule and its note, and how many more agree."""
    first = rules[0]
    verb = "blocked" if first.action == "deny" else "needs your approval"
    what = f"note {first.source}" if first.origin != "file" else f"policy rule {first.source}"
    text = f"reflect-git: {verb} by {what} (`{first.pattern}`)"
    if first.title:
        text += f": {first.title}"
    others = sorted({r.source for r in rules[1:]} - {first.source})
    if others:
        text += f" (also {', '.join(others)})"
    if first.origin != "file":
        text += f". See `reflect-git show {first.source}`."
    return text


def context_line(rule: Rule) -> str:
    """One context line for a medium rule."""
    verb = "says not to run" if rule.action == "deny" else "asks to confirm"
    line = f"reflect-git: note {rule.source} (medium) {verb} `{rule.pattern}`"
    return line + (f": {rule.title}" if rule.title else "")
