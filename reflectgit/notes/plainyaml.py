"""The plain YAML that notes and sidecars are written in, read without PyYAML. Pure.

Importing PyYAML's package costs every ``reflect-git-validate`` process 15 to 20 ms (it loads
its pure-Python reader, loader and dumper even when only the C parser runs; ``yaml.reader``
compiles a large character class at import). Nearly every note and sidecar is a block mapping
of plain, quoted and flow-list scalars, which this module reads in a few hundred microseconds.

``json_value(text)`` returns what ``schema.fast_frontmatter`` (PyYAML's C parser, the value as
the validator sees it: dates and timestamps as ISO strings) gives for the same text, or None
whenever the text uses anything outside the subset below; the caller then asks PyYAML, which
reads (or refuses, with its line and column) everything as always. A test holds the two to
the same value on every note and sidecar of the corpus and on generated documents.

The subset: spaces for indentation (no tabs, no carriage returns); block mappings whose keys
are plain words (``[A-Za-z_][A-Za-z0-9_.-]*``, none of YAML 1.1's boolean or null words);
block sequences (also at their key's indentation, and of compact mappings ``- key: value``);
one-line flow sequences of scalars; ``{}``; plain scalars resolved as PyYAML resolves them for
the forms ``true``/``false`` and the other YAML 1.1 booleans, ``null``/``~``/empty, decimal
integers, ``1.5``-style floats, ``2026-03-04`` dates and ``2026-03-04T10:00:00`` timestamps
(``Z`` or a ``+hh:mm`` offset); one-line double-quoted scalars without escapes and one-line
single-quoted ones; literal blocks (``|`` and ``|-``) as a mapping's values, indented by their
first line, which is not blank; comments on lines of their own. Anything else (folded and
kept blocks, indentation indicators, blocks as list items, multi-line flow scalars, anchors,
aliases, tags, escapes, quoted keys, trailing comments, other numbers, a number-like plain
scalar this module does not recognise) is not for it to judge.
"""

from __future__ import annotations

from reflectgit.notes.lazyre import Pattern

TYPE_CHECKING = False  # ``typing`` is not imported on the pre-commit hook's path
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 32  # nested lists and mappings it reads; deeper goes to PyYAML (which bounds it)

# YAML 1.1's implicit booleans and nulls (PyYAML's resolver table, exact words).
_TRUE = frozenset(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"))
_FALSE = frozenset(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"))
_NULL = frozenset(("null", "Null", "NULL", "~", ""))
_WORDS = _TRUE | _FALSE | _NULL
_KEY_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_KEY_CHARS = _KEY_START | frozenset("0123456789.-")
_DIGITS = frozenset("0123456789")
# A plain scalar may not start with these (YAML's indicators); ``-``, ``?`` and ``:`` only when
# a space follows, which this module leaves to PyYAML as well.
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
# Characters after which PyYAML's resolver may give a number or a date (its first-character
# table); a plain scalar starting with one must be a form recognised below.
_NUMERIC_START = frozenset("-+.0123456789")
# What this module never has to reason about: C0 and C1 controls but the newline (tabs and
# carriage returns too), DEL, lone surrogates, the other line breaks YAML 1.1 knows (NEL, LS,
# PS), a byte order mark, and the two non-characters YAML refuses. Compiled only for text
# beyond ASCII (``refused``), which nearly no note is (the class costs ~0.3 ms to compile).
_REFUSED = Pattern("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\ufeff\ufffe\uffff]")
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def refused(text: str) -> bool:
    """Whether ``text`` holds a character of ``_REFUSED``. The ASCII ones are the characters
    ``isprintable`` refuses (0x00-0x1f, 0x7f) but the newline, so ASCII text needs no pattern."""
    if text.isascii():
        return not text.replace("\n", "").isprintable()
    return _REFUSED.search(text) is not None


class _Outside(Exception):
    """The text leaves the subset: PyYAML decides."""


def json_value(text: str) -> Any:
    """The mapping the text holds, as ``schema.fast_frontmatter`` sees it; None when the text is
    outside the subset, empty, or not a mapping."""
    if refused(text):
        return None
    rows = text.split("\n")
    lines: list[tuple[int, str, int]] = []  # indentation, content, row
    for row, raw in enumerate(rows):
        content = raw.lstrip(" ")
        if not content or content[0] == "#":
            continue  # blank lines and comment lines are nothing to YAML (but in a block)
        lines.append((len(raw) - len(content), content.rstrip(" "), row))
    if not lines or lines[0][0] != 0:
        return None
    try:
        value, end = _Reader(lines, rows).mapping(0, 0, 1)
    except _Outside:
        return None
    return value if end == len(lines) else None


class _Reader:
    def __init__(self, lines: list[tuple[int, str, int]], rows: list[str]) -> None:
        self.lines = lines
        self.rows = rows

    def block(self, i: int, indent: int, depth: int) -> tuple[Any, int]:
        content = self.lines[i][1]
        if content == "-" or content.startswith("- "):
            return self.sequence(i, indent, depth)
        return self.mapping(i, indent, depth)

    def mapping(self, i: int, indent: int, depth: int) -> tuple[dict[str, Any], int]:
        if depth > MAX_DEPTH:
            raise _Outside
        lines = self.lines
        out: dict[str, Any] = {}
        while i < len(lines) and lines[i][0] == indent:
            content = lines[i][1]
            colon = content.find(":")
            key = content[:colon]
            if colon <= 0 or key in out or not _is_key(key):
                raise _Outside
            rest = content[colon + 1 :]
            if rest and rest[0] != " ":
                raise _Outside
            rest = rest.lstrip(" ")
            i += 1
            if rest in ("|", "|-"):
                out[key], end = self.literal(lines[i - 1][2], indent, keep=rest == "|")
                while i < len(lines) and lines[i][2] < end:
                    i += 1  # the block's own lines
            elif rest:
                out[key] = _scalar_or_flow(rest)
            elif i < len(lines) and lines[i][0] > indent:
                out[key], i = self.block(i, lines[i][0], depth + 1)
            elif i < len(lines) and lines[i][0] == indent and _is_item(lines[i][1]):
                out[key], i = self.sequence(i, indent, depth + 1)
            else:
                out[key] = None
            if i < len(lines) and lines[i][0] > indent:
                raise _Outside  # a continuation line, or an indentation YAML refuses
        return out, i

    def sequence(self, i: int, indent: int, depth: int) -> tuple[list[Any], int]:
        if depth > MAX_DEPTH:
            raise _Outside
        lines = self.lines
        out: list[Any] = []
        while i < len(lines) and lines[i][0] == indent and _is_item(lines[i][1]):
            content = lines[i][1]
            rest = content[1:].lstrip(" ")
            if not rest:
                i += 1
                if i < len(lines) and lines[i][0] > indent:
                    raise _Outside  # an item's value on the next lines: PyYAML's to read
                out.append(None)
                continue
            if _is_item(rest) or rest[0] in "?:":
                raise _Outside
            if rest[0] not in "\"'[{" and (": " in rest or rest.endswith(":")):
                # a compact mapping: its keys line up with the first one, after the dash
                column = indent + len(content) - len(rest)
                lines[i] = (column, rest, lines[i][2])
                value, i = self.mapping(i, column, depth + 1)
                out.append(value)
            else:
                out.append(_scalar_or_flow(rest))
                i += 1
            if i < len(lines) and lines[i][0] > indent:
                raise _Outside
        return out, i

    def literal(self, row: int, parent: int, keep: bool) -> tuple[str, int]:
        """The literal block (``|`` clipped, ``|-`` stripped) whose header is on ``row``, for a
        key at column ``parent``: (its value, the row after it). Its indentation is its first
        line's; left to PyYAML: a block that starts with a blank line or is empty, a line of
        spaces only, a line indented less than the block but more than its key."""
        rows = self.rows
        parts: list[str] = []
        column = -1
        j = row + 1
        while j < len(rows):
            raw = rows[j]
            content = raw.lstrip(" ")
            if not content:
                if raw or column < 0:
                    raise _Outside
                parts.append("")
                j += 1
                continue
            at = len(raw) - len(content)
            if column < 0:
                if at <= parent:
                    raise _Outside  # an empty block
                column = at
            if at < column:
                if at > parent:
                    raise _Outside
                break
            parts.append(raw[column:])
            j += 1
        if column < 0:
            raise _Outside
        while parts[-1] == "":
            parts.pop()
        value = "\n".join(parts)
        return (value + "\n" if keep else value), j


def _is_item(content: str) -> bool:
    return content == "-" or content.startswith("- ")


def _is_key(key: str) -> bool:
    return (
        key[0] in _KEY_START
        and len(key) <= 128
        and key not in _WORDS
        and _KEY_CHARS.issuperset(key)
    )


def _scalar_or_flow(text: str) -> Any:
    """The value written after ``key: `` or ``- `` on one line."""
    first = text[0]
    if first == "[":
        return _flow_sequence(text)
    if first == "{":
        if text[1:].strip(" ") == "}":
            return {}
        raise _Outside
    if first in "\"'":
        value, end = _quoted(text, 0)
        if end != len(text):
            raise _Outside  # something after the closing quote (a comment, an error)
        return value
    if first in _INDICATORS or ": " in text or " #" in text or text.endswith(":"):
        raise _Outside
    return _plain(text)


def _quoted(text: str, start: int) -> tuple[str, int]:
    """A one-line quoted scalar at ``start``: (its value, the index after its closing quote)."""
    quote = text[start]
    if quote == '"':
        end = text.find('"', start + 1)
        value = text[start + 1 : end]
        if end < 0 or "\\" in value:
            raise _Outside
        return value, end + 1
    parts: list[str] = []
    i = start + 1
    while True:
        end = text.find("'", i)
        if end < 0:
            raise _Outside
        parts.append(text[i:end])
        if text.startswith("'", end + 1):
            parts.append("'")
            i = end + 2
            continue
        return "".join(parts), end + 1


def _flow_sequence(text: str) -> list[Any]:
    """``[a, "b", 'c']`` on one line; nothing after the ``]``."""
    if not text.endswith("]"):
        raise _Outside
    inner = text[1:-1]
    if not inner.strip(" "):
        return []
    out: list[Any] = []
    i, n = 0, len(inner)
    while True:
        while i < n and inner[i] == " ":
            i += 1
        if i >= n:
            raise _Outside  # an empty item (`[a, ]`): PyYAML's to read
        if inner[i] in "\"'":
            value, i = _quoted(inner, i)
            out.append(value)
        else:
            comma = inner.find(",", i)
            end = n if comma < 0 else comma
            item = inner[i:end].rstrip(" ")
            if (
                not item
                or item[0] in _INDICATORS
                or not _FLOW_REFUSED.isdisjoint(item)
                or " #" in item
            ):
                raise _Outside
            out.append(_plain(item))
            i = end
        while i < n and inner[i] == " ":
            i += 1
        if i >= n:
            return out
        if inner[i] != ",":
            raise _Outside
        i += 1


_FLOW_REFUSED = frozenset(":[]{}")


def _plain(text: str) -> Any:
    """A plain scalar's value as PyYAML's resolver and safe constructor give it (ISO strings
    for dates and timestamps)."""
    if text in _WORDS:
        return True if text in _TRUE else False if text in _FALSE else None
    first = text[0]
    if first in "<=":
        if text in ("<<", "="):
            raise _Outside  # a merge key, a value key
        return text
    if first not in _NUMERIC_START or not number_like(text):
        return text
    return _number_or_date(text)


def _number_or_date(text: str) -> Any:
    digits = text[1:] if text[0] == "-" else text
    if digits.isdigit() and digits.isascii():
        if digits[0] == "0" and len(digits) > 1:
            raise _Outside  # YAML 1.1 reads 012 as octal
        return int(text)
    whole, dot, fraction = digits.partition(".")
    if dot and whole.isdigit() and fraction.isdigit() and whole.isascii() and fraction.isascii():
        return float(text)
    if text[0] == "-":
        raise _Outside
    return _date(text)


def _date(text: str) -> str:
    """``2026-03-04`` and ``2026-03-04T10:00:00`` (``Z`` or ``+hh:mm``) as ``isoformat()``
    writes the date or datetime PyYAML constructs."""
    day = text[:10]
    if not (
        len(day) == 10
        and day[4] == "-"
        and day[7] == "-"
        and _DIGITS.issuperset(day[:4] + day[5:7] + day[8:])
    ):
        raise _Outside
    year, month, mday = int(day[:4]), int(day[5:7]), int(day[8:])
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if not (
        year >= 1
        and 1 <= month <= 12
        and 1 <= mday <= _DAYS[month - 1]
        and (month != 2 or mday < 29 or leap)
    ):
        raise _Outside
    if len(text) == 10:
        return day
    clock, zone = text[11:19], text[19:]
    if not (
        text[10] == "T"
        and len(clock) == 8
        and clock[2] == ":"
        and clock[5] == ":"
        and _DIGITS.issuperset(clock[:2] + clock[3:5] + clock[6:])
        and int(clock[:2]) <= 23
        and int(clock[3:5]) <= 59
        and int(clock[6:]) <= 59
    ):
        raise _Outside
    stamp = f"{day}T{clock}"
    if not zone:
        return stamp
    if zone == "Z":
        return stamp + "+00:00"
    if not (
        len(zone) == 6
        and zone[0] in "+-"
        and zone[3] == ":"
        and _DIGITS.issuperset(zone[1:3] + zone[4:])
        and int(zone[1:3]) <= 23
        and int(zone[4:]) <= 59
    ):
        raise _Outside
    if zone[1:] == "00:00":
        return stamp + "+00:00"
    return stamp + zone


# --------------------------------------------------------------------------- number-like

_DEC = frozenset("0123456789")
_DEC_ = _DEC | {"_"}
_OCT_ = frozenset("01234567_")
_BIN_ = frozenset("01_")
_HEX_ = _DEC_ | frozenset("abcdefABCDEF")


def number_like(text: str) -> bool:
    """Does PyYAML's resolver take the plain scalar ``text`` for a float, an int or a timestamp?
    Its three YAML 1.1 patterns (``yaml/resolver.py``) written out, so that importing this module
    compiles no regular expression (a test compares the two on generated strings)."""
    unsigned = text[1:] if text[:1] in ("+", "-") else text
    if not unsigned:
        return False
    if unsigned in (".inf", ".Inf", ".INF"):
        return True
    if unsigned is text and (text in (".nan", ".NaN", ".NAN") or _timestamp(text)):
        return True
    if unsigned is text and text[0] == "." and _fraction_exponent(text[1:], first_digit=True):
        return True
    return _int_like(unsigned) or _float_like(unsigned)


def _int_like(s: str) -> bool:
    head, tail = s[:2], s[2:]
    if head == "0b":
        return bool(tail) and _BIN_.issuperset(tail)
    if head == "0x":
        return bool(tail) and _HEX_.issuperset(tail)
    if s == "0" or (s[0] == "0" and len(s) > 1 and _OCT_.issuperset(s[1:])):
        return True
    if s[0] not in "123456789":
        return False
    whole, colon, groups = s.partition(":")
    if not colon:
        return _DEC_.issuperset(whole)
    return _DEC_.issuperset(whole) and all(_sexagesimal(g) for g in groups.split(":"))


def _float_like(s: str) -> bool:
    if s[0] not in _DEC:
        return False
    whole, dot, rest = s.partition(".")
    if not dot:
        return False
    head, colon, groups = whole.partition(":")
    if colon:  # [0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*
        return (
            _DEC_.issuperset(head)
            and all(_sexagesimal(g) for g in groups.split(":"))
            and _DEC_.issuperset(rest)
        )
    return _DEC_.issuperset(whole) and _fraction_exponent(rest, first_digit=False)


def _fraction_exponent(s: str, first_digit: bool) -> bool:
    """``[0-9_]*`` (``[0-9][0-9_]*`` with ``first_digit``), then an optional ``[eE][-+][0-9]+``."""
    cut = min((i for i in (s.find("e"), s.find("E")) if i >= 0), default=len(s))
    digits, exponent = s[:cut], s[cut + 1 :]
    if first_digit and (not digits or digits[0] not in _DEC):
        return False
    if not _DEC_.issuperset(digits):
        return False
    if cut == len(s):
        return True
    return len(exponent) > 1 and exponent[0] in "+-" and _DEC.issuperset(exponent[1:])


def _sexagesimal(group: str) -> bool:
    """``[0-5]?[0-9]``."""
    if len(group) == 1:
        return group in _DEC
    return len(group) == 2 and group[0] in "012345" and group[1] in _DEC


def _timestamp(t: str) -> bool:
    """``YYYY-MM-DD``, or ``YYYY-M-D`` then ``T``/``t``/blanks, ``H:MM:SS``, an optional
    fraction and an optional zone (``Z``, ``+H``, ``-HH:MM``, after optional blanks)."""
    if len(t) < 10 or t[4] != "-" or not _DEC.issuperset(t[:4]):
        return False
    if len(t) == 10 and t[7] == "-" and _DEC.issuperset(t[5:7] + t[8:10]):
        return True
    i = _digits(t, 5, 1, 2)
    if i < 0 or t[i : i + 1] != "-":
        return False
    i = _digits(t, i + 1, 1, 2)
    if i < 0 or i >= len(t):
        return False
    if t[i] in "Tt":
        i += 1
    elif t[i] in " \t":
        while i < len(t) and t[i] in " \t":
            i += 1
    else:
        return False
    i = _digits(t, i, 1, 2)
    for _ in range(2):
        if i < 0 or t[i : i + 1] != ":":
            return False
        i = _digits(t, i + 1, 2, 2)
    if i < 0:
        return False
    if t[i : i + 1] == ".":
        i += 1
        while i < len(t) and t[i] in _DEC:
            i += 1
    if i == len(t):
        return True
    while i < len(t) and t[i] in " \t":
        i += 1
    zone = t[i:]
    if zone == "Z":
        return True
    if zone[:1] not in ("+", "-"):
        return False
    i = _digits(t, i + 1, 1, 2)
    if i < 0:
        return False
    if i == len(t):
        return True
    return t[i] == ":" and _digits(t, i + 1, 2, 2) == len(t)


def _digits(t: str, i: int, least: int, most: int) -> int:
    """The index after ``least`` to ``most`` ASCII digits at ``i`` (as many as there are), or -1."""
    j = i
    while j < len(t) and j - i < most and t[j] in _DEC:
        j += 1
    return j if j - i >= least else -1
