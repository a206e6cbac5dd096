"""Anchors: the code a note is about. Pure.

A note may name the code it was learned about, in the repository its ``project`` names::

    project: billing-api
    anchors:
    - path: src/pool.py
      symbol: prefill
      commit: 3f9c2d0e5b...

Each anchor is a repository-relative path, optionally a symbol defined in that file, and the
commit the note was written against. ``reflect-git stale`` compares the anchored code at that
commit with the repository's HEAD; ``pr-notes`` and recall match anchors against changed files.

The symbol check is language-agnostic on purpose: a symbol is *defined* in a file when a line
declares it after one of the usual definition words (``def``, ``class``, ``function``, ``func``,
``fn``, ``const``, ``let``, ``var``, ``type``, ``struct``, ``enum``, ``interface``, ``trait``,
``module``, ``macro`` ...), or assigns it at the start of a line (``NAME =``, ``NAME :=``,
``NAME:`` as YAML/TOML keys), or names it as a C-like function (``int name(``). Its *block* runs
from that line to the next definition line indented no deeper (or the end of the file), so a
change elsewhere in the file does not make a symbol's note stale.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reflectgit.notes.lazyre import Pattern

# Words that introduce a definition in the languages a team is likely to write.
DEFINITION_WORDS = (
    "def",
    "class",
    "function",
    "func",
    "fn",
    "const",
    "let",
    "var",
    "val",
    "type",
    "struct",
    "enum",
    "interface",
    "trait",
    "impl",
    "module",
    "namespace",
    "macro",
    "defmacro",
    "defun",
    "sub",
    "proc",
    "record",
    "object",
    "alias",
)
# Modifiers that may stand before a definition word or a C-like signature.
_MODIFIERS = (
    r"(?:(?:export|default|public|private|protected|internal|static|final|abstract|async|"
    r"pub(?:\([a-z]+\))?|unsafe|extern|inline|virtual|override|open|sealed|data|readonly|"
    r"declare|local)\s+)*"
)
_WORDS = "|".join(sorted(DEFINITION_WORDS, key=len, reverse=True))
# Words a C-like "type name(" line starts with when it is a statement, not a definition.
_STATEMENTS = (
    r"(?!(?:return|if|elif|else|while|for|foreach|switch|case|await|yield|throw|raise|new|not|"
    r"and|or|in|is|print|echo|assert|del|do|goto|typeof|sizeof|delete|using|import|from|with|"
    r"except|catch|lambda|match|go|defer|else)\b)"
)
_C_LIKE = rf"{_STATEMENTS}[A-Za-z_][\w<>,\[\]*&: ]*[\s*&]"  # "static int ", "Map<K, V> "
_GO_METHOD = r"func\s*\([^)]*\)\s*"  # func (r *Repo) Name(
# Any definition line, whatever its name (used to end a symbol's block).
_ANY_DEFINITION = Pattern(
    rf"^(?P<indent>[ \t]*){_MODIFIERS}"
    rf"(?:(?:{_WORDS})\s+[*&]?[A-Za-z_$][\w$]*|{_GO_METHOD}[A-Za-z_]\w*"
    rf"|[A-Za-z_$][\w$]*\s*(?::=|=(?!=)|:\s*$)|{_C_LIKE}[A-Za-z_]\w*\s*\()"
)
# The edit tools whose input names the file they change (Claude Code, Copilot, Codex's patch).
EDIT_TOOLS = ("Edit", "MultiEdit", "Write", "NotebookEdit", "str_replace_based_edit_tool")
_PATCH_FILE = Pattern(r"^\*\*\* (?:Update|Add) File: (.+?)\s*$", 8)  # re.M
_ABBREV = Pattern(r"^[0-9a-f]{7,64}$")
_NAME = Pattern(r"[\w$.:-]+")
MAX_ANCHORS = 20  # a session that edited 200 files anchors the first 20 it touched


@dataclass(frozen=True)
class Anchor:
    """One anchor: a repository-relative ``path``, an optional ``symbol``, the ``commit``."""

    path: str
    symbol: str | None = None
    commit: str | None = None

    @property
    def label(self) -> str:
        """``path`` or ``path:symbol``, as the user wrote it after ``--anchor``."""
        return f"{self.path}:{self.symbol}" if self.symbol else self.path

    def to_yaml(self) -> dict[str, str]:
        out = {"path": self.path}
        if self.symbol:
            out["symbol"] = self.symbol
        if self.commit:
            out["commit"] = self.commit
        return out


def clean_path(path: str) -> str | None:
    """``path`` as a repository-relative POSIX path, or None when it leaves the repository."""
    text = path.replace("\\", "/").strip()
    if not text or text.startswith("/"):
        return None
    norm = posixpath.normpath(text)
    if norm in (".", "") or norm == ".." or norm.startswith("../"):
        return None
    return norm


def parse_spec(spec: str) -> tuple[str, str | None]:
    """``PATH[:SYMBOL]`` -> (path, symbol). The last ``:`` splits, so ``C:`` style paths and
    ``a:b.py`` files still work when the part after it is no name (contains ``/`` or ``.``
    followed by a file suffix)."""
    text = spec.strip()
    if ":" in text:
        head, tail = text.rsplit(":", 1)
        if head and tail and "/" not in tail and _NAME.fullmatch(tail):
            return head, tail
    return text, None


def anchors_of(front: Mapping[str, Any]) -> list[Anchor]:
    """The note's anchors, leaving out entries that are not anchors."""
    raw = front.get("anchors")
    if not isinstance(raw, list):
        return []
    out: list[Anchor] = []
    for item in raw:
        if isinstance(item, Mapping) and isinstance(item.get("path"), str):
            path = clean_path(item["path"])
            if path is None:
                continue
            symbol = item.get("symbol") if isinstance(item.get("symbol"), str) else None
            commit = item.get("commit") if isinstance(item.get("commit"), str) else None
            out.append(Anchor(path, symbol or None, commit or None))
    return out


def merged(existing: Iterable[Anchor], added: Iterable[Anchor]) -> list[Anchor]:
    """``existing`` then the ``added`` anchors it lacks (same path and symbol = same anchor;
    the newer commit wins), at most ``MAX_ANCHORS``."""
    out: dict[tuple[str, str | None], Anchor] = {}
    for anchor in [*existing, *added]:
        out[(anchor.path, anchor.symbol)] = anchor
    return list(out.values())[:MAX_ANCHORS]


def to_yaml(anchors: Sequence[Anchor]) -> list[dict[str, str]]:
    return [a.to_yaml() for a in anchors]


def is_commit(value: str) -> bool:
    return bool(_ABBREV.match(value))


def edited_paths(tool_calls: Iterable[tuple[str, Any]]) -> list[str]:
    """The files a session's edit tool calls named (``(name, input)`` pairs), first edit first:
    ``file_path``/``notebook_path``/``path`` of an edit tool, the files of an ``apply_patch``."""
    out: list[str] = []
    for name, given in tool_calls:
        found: list[str] = []
        if isinstance(given, Mapping):
            if name in EDIT_TOOLS or name.lower() in ("edit", "write", "create", "str_replace"):
                if name == "str_replace_based_edit_tool" and given.get("command") == "view":
                    continue
                for key in ("file_path", "notebook_path", "path"):
                    if isinstance(given.get(key), str):
                        found.append(given[key])
                        break
            patch = given.get("input") or given.get("patch")
            if isinstance(patch, str) and "*** " in patch:
                found += _PATCH_FILE.findall(patch)
        elif isinstance(given, str) and name in ("apply_patch", "shell") and "*** " in given:
            found += _PATCH_FILE.findall(given)
        for path in found:
            if path not in out:
                out.append(path)
    return out


# --------------------------------------------------------------------------- symbols


_ID = r"[A-Za-z_$][\w$]*"
# The four ways a line defines a name, each compiled once (a pattern per symbol cost 2 to 4 ms
# to compile: 100 anchored notes on a pull request spent 0.3 s there). A line defines the symbol
# when one of them, tried in this order, names it.
_DEFINITIONS = (
    # def name, class Name, fn name, const NAME
    Pattern(rf"^(?P<indent>[ \t]*){_MODIFIERS}(?:{_WORDS})\s+[*&]?(?P<name>{_ID})(?![\w$])"),
    # func (r *Repo) Name(
    Pattern(rf"^(?P<indent>[ \t]*){_MODIFIERS}{_GO_METHOD}(?P<name>{_ID})\s*[(\[]"),
    # NAME = ..., name := ..., key: (YAML, TOML)
    Pattern(rf"^(?P<indent>[ \t]*){_MODIFIERS}(?P<name>{_ID})\s*(?::=|=(?!=)|:(?!:))"),
    # int name(, public void name( (C, Java, C#)
    Pattern(rf"^(?P<indent>[ \t]*){_MODIFIERS}{_C_LIKE}(?P<name>{_ID})\s*\("),
)


def _definition(text: str, symbol: str) -> tuple[int, int, str] | None:
    """Where ``text`` first defines ``symbol`` (``Class.method`` and ``mod::name`` name their
    last part): the line's start and end, and its indent; None when it does not."""
    name = symbol.rsplit(".", 1)[-1].rsplit("::", 1)[-1]
    if not name:
        return None
    pos = 0
    while True:
        at = text.find(name, pos)
        if at < 0:
            return None
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        line = text[start:end]
        for way in _DEFINITIONS:
            found = way.match(line)
            if found is not None and found.group("name") == name:
                return start, end, found.group("indent")
        pos = end + 1


def symbol_block(text: str, symbol: str) -> str | None:
    """The text of ``symbol``'s first definition in ``text`` (its line to the next definition
    indented no deeper, less the comments, decorators and blank lines just before that one:
    they belong to the definition they precede), or None when ``text`` defines no such name."""
    block = _raw_block(text, symbol)
    if block is None:
        return None
    lines = block.split("\n")
    first, rest = lines[0], lines[1:]
    while rest and _LEADING.match(rest[-1]):
        rest.pop()
    return "\n".join([first, *rest]) + "\n"


# What stands before a definition and belongs to it: blank lines, comments, decorators.
_LEADING = Pattern(r"^\s*(?:$|#|//|/\*|\*|--|;|@|\[\w)")


def _raw_block(text: str, symbol: str) -> str | None:
    found = _definition(text, symbol)
    if found is None:
        return None
    start, end_of_line, indent = found
    depth = len(indent.expandtabs())
    if end_of_line >= len(text):
        return text[start:]
    pos = end_of_line + 1
    while pos < len(text):
        nxt = text.find("\n", pos)
        line = text[pos : nxt if nxt >= 0 else len(text)]
        other = _ANY_DEFINITION.match(line)
        if other and len(other.group("indent").expandtabs()) <= depth:
            return text[start:pos]
        if nxt < 0:
            break
        pos = nxt + 1
    return text[start:]


_NAMED = Pattern(
    rf"^[ \t]*{_MODIFIERS}(?:(?:{_WORDS})\s+[*&]?(?P<a>[A-Za-z_$][\w$]*)"
    rf"|{_GO_METHOD}(?P<b>[A-Za-z_]\w*)|{_C_LIKE}(?P<c>[A-Za-z_]\w*)\s*\()"
)


def defined_name(line: str) -> str | None:
    """The name a line defines with a definition word or a C-like signature (``def prefill(``,
    ``class Pool``, ``func (r *R) Open(``, ``static int parse(``), else None. Assignments are
    left out: a changed ``x = 1`` inside a function names no symbol."""
    found = _NAMED.match(line)
    if found is None:
        return None
    return found.group("a") or found.group("b") or found.group("c")


def defines(text: str, symbol: str) -> bool:
    """Does ``text`` define ``symbol`` (by the language-agnostic rule above)?"""
    return symbol_block(text, symbol) is not None


def same_code(a: str | None, b: str | None) -> bool:
    """Are two versions of a block the same code, whitespace and blank lines aside?"""
    if a is None or b is None:
        return a is b
    return _squeezed(a) == _squeezed(b)


def _squeezed(text: str) -> str:
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


# --------------------------------------------------------------------------- labels


def stale_label(reason: str, commits: int, path: str | None = None) -> str:
    """The one-line label recall, search, MCP and the web UI put on a stale note (and
    ``stale`` on the notes it lists below the stale ones: changed elsewhere, moved)."""
    if reason == "deleted":
        return f"stale: the file it names ({path}) was deleted" if path else "stale: file deleted"
    if reason == "symbol-gone":
        return "stale: the symbol it names is gone"
    if reason == "renamed":
        return f"moved: the file it names is now {path}" if path else "moved: its file was renamed"
    since = f"{commits} commit{'s' if commits != 1 else ''} since"
    if reason == "changed-elsewhere":
        return f"changed: the code it names changed in {since}, in nothing the note names"
    return f"stale: the code it names changed in {since}"


def members(block: str) -> dict[str, str]:
    """The definitions inside a symbol's block (a class's methods), name -> their own block;
    the first definition of a name wins."""
    lines = block.split("\n")
    if len(lines) < 2:
        return {}
    body = "\n".join(lines[1:])
    top = len(lines[0]) - len(lines[0].lstrip())
    out: dict[str, str] = {}
    for line in lines[1:]:
        name = defined_name(line)
        if name is None or name in out or len(line) - len(line.lstrip()) <= top:
            continue
        inner = symbol_block(body, name)
        if inner is not None:
            out[name] = inner
    return out
