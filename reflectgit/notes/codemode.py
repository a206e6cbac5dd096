"""Codex's code mode: the tool calls a JavaScript ``exec`` program makes, when it makes them
literally. Pure.

In code mode (Codex Desktop, ``codex-rs/code-mode``) the model makes every tool call from one
JavaScript program, the input of a freeform ``custom_tool_call`` named ``exec``:

    const r = await tools.exec_command({cmd: "cargo test", workdir: "/x"}); text(r.output);

Its ``custom_tool_call_output`` is a list of text parts: a status header ("Script completed",
"Script failed", "Script terminated" or "Script running with cell ID N", then "Wall time T
seconds", "Output:"), then one part per ``text(...)`` the program called, and for a program
that threw, a last part "Script error:\\n...". A program still running goes on in the results
of later ``wait`` calls naming its cell.

``read_program`` reads a program only when it is a plain sequence of statements whose tool
calls are ``[const NAME =] await tools.<tool>(<argument>)`` (or ``text(await ...)``), each
argument a literal (a string, number, object, array, or a ``const`` bound to one); the other
statements make no tool call (``text(...)``, ``if (r.session_id) text(...)``). A program whose
calls are computed, sit in a loop, a branch, a function or a ``Promise.all``, or that names
``tools`` any other way, is not read (None): what it ran is not known for certain.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

# The status line Codex puts above an exec or wait result (``format_script_status``).
STATUS = re.compile(
    r"\AScript (completed|failed|terminated|running with cell ID (\S+))\n"
    r"(?:Wall time [^\n]*\n)?(?:Output:\n)?"
)
EXEC = "exec"  # the tool a program is the input of
WAIT = "wait"  # the tool that resumes a program still running
COMPLETED = "completed"
FAILED = "failed"
RUNNING = "running"

# Names that reach the tools object other than by a literal ``tools.<name>(...)`` call.
_REACHES_TOOLS = frozenset({"tools", "globalThis", "eval", "Function"})
# Words with which a statement may end the program early (``exit()`` is code mode's).
_STOPS = frozenset({"exit", "throw", "return"})
# A statement that opens a block ends with the block's closing brace, no semicolon needed.
_BLOCK_OPENERS = frozenset(
    {"if", "else", "for", "while", "do", "try", "catch", "finally", "function", "async", "{"}
)


@dataclass(frozen=True)
class Call:
    """One tool call of a program: the tool's name and its literal argument (None: none)."""

    name: str
    input: Any


@dataclass(frozen=True)
class Program:
    """A program read literally: its tool calls in order, and ``prints``, the call each
    ``text(...)`` part of the output comes from (None when the output cannot be told apart
    call by call)."""

    calls: list[Call] = field(default_factory=list)
    prints: list[int] | None = None


class _Unreadable(ValueError):
    """The program is not a plain sequence of literal tool calls."""


# ---------------------------------------------------------------- tokens

_TOKEN = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<comment>//[^\n]*|/\*.*?\*/)"
    r"|(?P<string>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')"
    r"|(?P<template>`(?:[^`\\]|\\.)*`)"
    r"|(?P<number>(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?))"
    r"|(?P<name>[A-Za-z_$][\w$]*)"
    r"|(?P<punct>\.\.\.|=>|[^\s\w])",
    re.DOTALL,
)


@dataclass(frozen=True)
class _Tok:
    kind: str  # string | template | number | name | punct
    text: str
    value: Any = None
    newline: bool = False  # a line break stands before it


def _tokens(source: str) -> list[_Tok]:
    out: list[_Tok] = []
    at = 0
    newline = False
    while at < len(source):
        m = _TOKEN.match(source, at)
        if m is None:
            raise _Unreadable(f"no token at {at}")
        at = m.end()
        kind = m.lastgroup or ""
        text = m.group()
        if kind in ("space", "comment"):
            newline = newline or "\n" in text
            continue
        value: Any = None
        if kind == "string":
            value = _unescape(text[1:-1])
        elif kind == "template":
            body = text[1:-1]
            if re.search(r"(?<!\\)(?:\\\\)*\$\{", body):
                kind = "computed"  # a template with substitutions is computed
            else:
                value = _unescape(body)
        elif kind == "number":
            value = float(text) if re.search(r"[.eE]", text) and "x" not in text else int(text, 0)
        out.append(_Tok(kind, text, value, newline))
        newline = False
    return out


_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|.)", re.DOTALL)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def _unescape(body: str) -> str:
    """A JavaScript string literal's value (its body, quotes off)."""

    def one(m: re.Match[str]) -> str:
        e = m.group(1)
        if e.startswith("u{"):
            return chr(int(e[2:-1], 16))
        if e[0] in "ux" and len(e) > 1:
            return chr(int(e[1:], 16))
        if e in ("\n", "\r\n", "\r", "\u2028", "\u2029"):
            return ""  # a line continuation
        return _SIMPLE.get(e, e)

    return _ESCAPE.sub(one, body)


# ---------------------------------------------------------------- statements


def _statements(tokens: list[_Tok]) -> list[list[_Tok]]:
    """Top-level statements: split at a semicolon outside brackets, after the closing brace of
    a block statement, and at a line break between a closing bracket and a new statement."""
    out: list[list[_Tok]] = []
    current: list[_Tok] = []
    depth = 0
    for tok in tokens:
        if (
            depth == 0
            and tok.newline
            and current
            and current[-1].text in (")", "]", "}")
            and current[0].text not in _BLOCK_OPENERS
            and tok.kind == "name"
        ):
            out.append(current)
            current = []
        if depth == 0 and tok.text == ";":
            if current:
                out.append(current)
            current = []
            continue
        current.append(tok)
        if tok.text in "([{" and tok.kind == "punct":
            depth += 1
        elif tok.text in ")]}" and tok.kind == "punct":
            depth -= 1
            if depth < 0:
                raise _Unreadable("unbalanced brackets")
            if depth == 0 and tok.text == "}" and current[0].text in _BLOCK_OPENERS:
                out.append(current)
                current = []
    if depth != 0:
        raise _Unreadable("unbalanced brackets")
    if current:
        out.append(current)
    return out


class _Literal:
    """Reads a literal value from tokens, ``const`` names bound to literals allowed."""

    def __init__(self, tokens: list[_Tok], bound: dict[str, Any]) -> None:
        self.tokens = tokens
        self.at = 0
        self.bound = bound

    def done(self) -> bool:
        return self.at == len(self.tokens)

    def peek(self) -> str:
        return self.tokens[self.at].text if self.at < len(self.tokens) else ""

    def take(self, text: str | None = None) -> _Tok:
        if self.at >= len(self.tokens) or (text is not None and self.tokens[self.at].text != text):
            raise _Unreadable(f"expected {text or 'more'}")
        self.at += 1
        return self.tokens[self.at - 1]

    def value(self) -> Any:
        tok = self.take()
        if tok.kind in ("string", "template", "number"):
            return tok.value
        if tok.text == "-" and self.at < len(self.tokens) and self.tokens[self.at].kind == "number":
            return -self.take().value
        if tok.kind == "name":
            if tok.text in ("true", "false", "null"):
                return {"true": True, "false": False, "null": None}[tok.text]
            if tok.text in self.bound:
                return self.bound[tok.text]
            raise _Unreadable(f"{tok.text} is not a literal")
        if tok.text == "[":
            items = []
            while self.peek() != "]":
                items.append(self.value())
                if self.peek() != "]":
                    self.take(",")
            self.take("]")
            return items
        if tok.text == "{":
            obj: dict[str, Any] = {}
            while self.peek() != "}":
                key = self.take()
                if key.kind not in ("name", "string", "number"):
                    raise _Unreadable("computed key")
                name = key.text if key.kind == "name" else str(key.value)
                self.take(":")
                obj[name] = self.value()
                if self.peek() != "}":
                    self.take(",")
            self.take("}")
            return obj
        raise _Unreadable(f"{tok.text} is not a literal")


def _literal(tokens: list[_Tok], bound: dict[str, Any]) -> Any:
    reader = _Literal(tokens, bound)
    value = reader.value()
    if not reader.done():
        raise _Unreadable("more than a literal")
    return value


def _call(tokens: list[_Tok], bound: dict[str, Any]) -> Call:
    """``await tools.<name>(<literal>?)``, the whole of ``tokens``."""
    texts = [t.text for t in tokens[:5]]
    if texts[:4] != ["await", "tools", ".", texts[3]] or tokens[3].kind != "name":
        raise _Unreadable("not a literal tool call")
    if len(tokens) < 6 or texts[4] != "(" or tokens[-1].text != ")":
        raise _Unreadable("not a literal tool call")
    inner = tokens[5:-1]
    return Call(tokens[3].text, _literal(inner, bound) if inner else None)


def _reaches_tools(tokens: list[_Tok]) -> bool:
    return any(t.kind == "name" and t.text in _REACHES_TOOLS for t in tokens)


def _printed(tokens: list[_Tok], results: dict[str, int]) -> int | None:
    """The call a plain ``text(r)``, ``text(r.output)`` or ``text(JSON.stringify(r))`` prints
    the result of (its index), None for any other statement."""
    texts = [t.text for t in tokens]
    if len(texts) < 4 or texts[:2] != ["text", "("] or texts[-1] != ")":
        return None
    inner = texts[2:-1]
    if inner[:4] == ["JSON", ".", "stringify", "("] and inner[-1] == ")":
        inner = inner[4:-1]
    if len(inner) == 3 and inner[1:] == [".", "output"]:
        inner = inner[:1]
    return results.get(inner[0]) if len(inner) == 1 else None


def read_program(source: str) -> Program | None:
    """The tool calls of a code-mode program, or None when it is not read literally."""
    try:
        statements = _statements(_tokens(source))
    except (_Unreadable, ValueError):
        return None
    bound: dict[str, Any] = {}
    results: dict[str, int] = {}
    calls: list[Call] = []
    prints: list[int] | None = []
    stops = False  # a statement before may end the program: the calls after it may not run
    try:
        for st in statements:
            texts = [t.text for t in st]
            declared = texts[0] in ("const", "let", "var") and len(st) > 3 and texts[2] == "="
            calling = (declared and texts[3] == "await") or texts[0] == "await"
            if stops and (calling or texts[:3] == ["text", "(", "await"]):
                return None
            if declared and st[1].kind == "name" and texts[3] == "await":
                calls.append(_call(st[3:], bound))
                if texts[0] == "const":  # a result a later statement cannot rebind
                    results[texts[1]] = len(calls) - 1
            elif texts[0] == "await":
                calls.append(_call(st, bound))
            elif texts[:3] == ["text", "(", "await"] and texts[-1] == ")":
                calls.append(_call(st[2:-1], bound))
                if prints is not None:
                    prints.append(len(calls) - 1)
            elif _reaches_tools(st):
                return None  # a tool call the reader cannot read literally
            else:
                if texts[0] == "const" and declared and st[1].kind == "name":
                    # a computed value is no literal to call a tool with: left unbound
                    with contextlib.suppress(_Unreadable):
                        bound[texts[1]] = _literal(st[3:], bound)
                printed = _printed(st, results)
                if printed is not None and prints is not None:
                    prints.append(printed)
                elif _prints(st):
                    prints = None  # output this reader cannot tell apart call by call
                stops = stops or any(t.kind == "name" and t.text in _STOPS for t in st)
    except _Unreadable:
        return None
    if not calls:
        return None
    return Program(calls, prints)


def _prints(tokens: list[_Tok]) -> bool:
    """Can a statement add a part to the output (``text``, ``image``, ``forward_output``)?"""
    return any(
        t.kind == "name" and t.text in ("text", "image", "forward_output", "notify") for t in tokens
    )


def status(parts: list[str]) -> tuple[str, str, list[str]]:
    """``(status, cell, parts)`` of an exec or wait result's text parts: the status word
    (``completed``, ``failed``, ``terminated``, ``running``; ``""`` when the header is not
    code mode's), the running cell's id, and the parts under the header."""
    if not parts:
        return "", "", parts
    m = STATUS.match(parts[0])
    if m is None:
        return "", "", parts
    word = RUNNING if m.group(2) else m.group(1)
    rest = parts[0][m.end() :]
    return word, m.group(2) or "", ([rest] if rest else []) + parts[1:]


def result_text(item: str) -> tuple[str, int | None, str]:
    """A part a program printed: when it is an exec result the program printed whole
    (``text(JSON.stringify(r))``: ``output`` and ``exit_code`` or ``session_id``), its
    output, exit code and running session; else the part as it is."""
    try:
        obj = json.loads(item)
    except ValueError:
        return item, None, ""
    if not isinstance(obj, dict) or not isinstance(obj.get("output"), str):
        return item, None, ""
    code, session = obj.get("exit_code"), obj.get("session_id")
    if not isinstance(code, int) and not isinstance(session, int):
        return item, None, ""
    return obj["output"], code if isinstance(code, int) else None, str(session or "")
