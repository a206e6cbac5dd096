"""What git and every teammate's checkout can hold: text, file names and ids. Pure: no I/O.

reflect-git refuses, before anything is written, what would break a commit (``git fsck
--strict`` refuses a NUL in a commit; servers with ``receive.fsckObjects`` then refuse the
push), a terminal (escape sequences in a title), or a teammate's checkout (a name Windows or a
file system cannot create, two ids one case-insensitive file system sees as one file).

- Text (frontmatter strings and keys, the note body, commit messages): NUL and every other C0
  control character, DEL and the C1 controls (U+0080 to U+009F) are refused. Tab, newline and
  carriage return are text and are kept; in one-line places (a commit subject, a trailer) the
  commit message builder collapses them to a space, so a value never adds a line of its own.
  Commit messages themselves never hold a carriage return.
- File names (every component of every path we write): at most 255 bytes of UTF-8, no control
  character, none of ``< > : " / \\ | ? *``, no trailing dot or space, not a Windows device
  name (CON, PRN, AUX, NUL, COM0-9, LPT0-9, CONIN$, CONOUT$; any case, with or without an
  extension), not git's own folder (``.git`` in any case, ``git~1``).
- Ids: file names (``<id>.md`` and ``<id>.entities.yaml``), and no two ids may share a key
  under case folding and Unicode compatibility normalisation (``Foo-1`` and ``foo-1``; an ``é``
  composed and decomposed), since a case-insensitive or normalising file system would hold
  them as one file.
"""

from __future__ import annotations

from reflectgit.notes.lazyre import Pattern

TYPE_CHECKING = False  # ``typing`` is not imported on the pre-commit hook's path
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator
    from typing import Any

MAX_NAME_BYTES = 255
WINDOWS_CHARS = '<>:"/\\|?*'
_WINDOWS_CHAR = Pattern('[<>:"/\\\\|?*]')
_DEVICES = ("con", "prn", "aux", "nul", "conin$", "conout$")
WINDOWS_DEVICES = frozenset(
    (*_DEVICES, *(f"{port}{n}" for port in ("com", "lpt") for n in "0123456789\u00b9\u00b2\u00b3"))
)
SIDE_SUFFIXES = (".md", ".entities.yaml")  # the files an id names

# Refused in text: C0 controls except tab, newline and carriage return; DEL; C1 controls.
_TEXT_CONTROL = Pattern("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Refused in a commit message: the same, and the carriage return too.
_MESSAGE_CONTROL = Pattern("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # compiled on first use
# Refused in a file name: every control character, tab and newline included.
_NAME_CONTROL = Pattern("[\x00-\x1f\x7f-\x9f]")
# Code points macOS's HFS+ ignores in names, so ".g\u200cit" is ".git" there (git fsck: hasDotgit).
_HFS_IGNORED = Pattern("[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")
# Characters no one sees: Unicode's default-ignorable code points (zero-width space, joiners,
# word joiner, soft hyphen, bidi marks and overrides, BOM, variation selectors, U+180E, the
# Hangul fillers U+115F, U+1160, U+3164, U+FFA0, tags). A reader cannot tell ``a\u200bb`` from
# ``ab``, nor see that an override turned ``pool\u202elmth.exe`` into "poolexe.html".
INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e0fff"
)
_INVISIBLE = Pattern(f"[{INVISIBLE}]")
# Spaces other than the ASCII one (NBSP, the typographic spaces, the ideographic space, ...).
_ODD_SPACE = Pattern("[\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_NAMES = {0x00: "NUL", 0x09: "TAB", 0x0A: "LF", 0x0D: "CR", 0x1B: "ESC", 0x7F: "DEL"}


def strip_invisible(text: str) -> str:
    """``text`` without the characters no one sees (``INVISIBLE``)."""
    return text if text.isascii() else _INVISIBLE.sub("", text)


def describe(ch: str) -> str:
    """``U+0000 (NUL)``: a character as a person can find it in an editor."""
    code = ord(ch)
    import unicodedata  # only to name a character in a message

    name = _NAMES.get(code) or unicodedata.name(ch, "control character")
    return f"U+{code:04X} ({name})"


def _first(pattern: re.Pattern[str] | Pattern, text: str) -> int | None:
    found = pattern.search(text)
    return found.start() if found else None


def text_control(text: str) -> int | None:
    """Index of the first character refused in committed text, or None."""
    return _first(_TEXT_CONTROL, text)


def message_control(text: str) -> int | None:
    """Index of the first character refused in a commit message, or None."""
    return _first(_MESSAGE_CONTROL, text)


def control_message(text: str, at: int) -> str:
    return f"holds the control character {describe(text[at])} at character {at + 1}"


# Terminal escape sequences as captured tool output holds them: CSI (colours, cursor moves),
# OSC (titles, clipboard writes, links) and two-character escapes.
_ESCAPE = Pattern(
    "(?:\x1b\\[|\x9b)[0-?]*[ -/]*[@-~]"
    "|(?:\x1b\\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\\\|\x9c)?"
    "|\x1b[@-Z\\\\-_]"
)


def scrub_controls(text: str) -> str:
    """Machine-captured text (tool output, transcripts, commit captures) made committable:
    terminal escape sequences removed, every other refused control character dropped. Text a
    person gives is refused instead (``text_control``), never silently changed."""
    # Every refused character is a control (category Cc), which ``isprintable`` is False for:
    # printable text is left alone without compiling (or importing) a regular expression.
    if text.isprintable() or _TEXT_CONTROL.search(text) is None:
        return text
    return _TEXT_CONTROL.sub("", _ESCAPE.sub("", text))


def name_problem(name: str) -> str | None:
    """Why one path component cannot be a file name in every checkout, or None."""
    if name in ("", ".", ".."):
        return "is not a file name"
    size = len(name.encode("utf-8", "surrogateescape"))
    if size > MAX_NAME_BYTES:
        return f"is {size} bytes long; file systems hold at most {MAX_NAME_BYTES} bytes a name"
    at = _first(_NAME_CONTROL, name)
    if at is not None:
        return f"holds the control character {describe(name[at])}"
    bad = _WINDOWS_CHAR.search(name)
    if bad is not None:
        return (
            f"holds {bad.group()!r}, which Windows cannot hold in a file name "
            f"(none of {WINDOWS_CHARS})"
        )
    if name[-1] in ". ":
        return "ends with a dot or a space, which Windows drops (the file would change its name)"
    base = name.split(".", 1)[0].rstrip(" ").casefold()
    if base in WINDOWS_DEVICES:
        return f"is a device name on Windows ({base.upper()}, with or without an extension)"
    seen = name if name.isascii() else _HFS_IGNORED.sub("", name)  # all beyond ASCII
    if seen.casefold() in (".git", "git~1"):
        return "is git's own folder name (as macOS or Windows would read it)"
    return None


def safe_stem(stem: str) -> str:
    """``stem``, with ``-note`` added when Windows would take it for a device (``con``): for
    names made from titles (``review-queue/<slug>.yaml``, ``knowledge/<slug>`` branches)."""
    base = stem.split(".", 1)[0].rstrip(" ").casefold()
    return f"{stem}-note" if base in WINDOWS_DEVICES else stem


def path_problem(path: str) -> str | None:
    """Why a repository path (``a/b/c.md``) cannot be written in every checkout, or None."""
    for part in path.split("/"):
        problem = name_problem(part)
        if problem is not None:
            return f"{path!r}: the name {part!r} {problem}"
    return None


def id_problem(ident: str) -> str | None:
    """Why an id cannot name a note's files in every checkout, or cannot be told apart from
    another by a person reading it, or None. See ``look_alike_problem``."""
    for suffix in SIDE_SUFFIXES:
        problem = name_problem(ident + suffix)
        if problem is not None:
            return f"cannot name the file {ident + suffix!r}: it {problem}"
    return None if ident.isascii() else look_alike_problem(ident)


# Letters of these scripts look like Latin ones (Cyrillic а е о р с у х, Greek ο ρ ν, ...): an
# id that mixes Latin letters with them reads as a Latin id it is not (Unicode TS #39 refuses
# such mixes from its "moderately restrictive" level up).
_LATIN_LOOKING = ("CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "LISU", "COPTIC")


def look_alike_problem(ident: str) -> str | None:
    """Why a person could take ``ident`` for another id, or None.

    Refused in an id: a character no one sees (zero-width spaces and joiners, the word joiner,
    bidi marks and overrides, BOM, soft hyphen, U+180E, the Hangul fillers, ...); a space other
    than the ASCII one (NBSP, U+2007, U+3000, ...); any other non-ASCII character that is no
    letter, mark or digit (U+2010 HYPHEN, U+2212 MINUS SIGN, a fullwidth stop: ids use ASCII
    punctuation); Latin letters mixed with Cyrillic, Greek, Armenian, ... ones. Ids in one
    non-Latin script are fine (``пул-соединений``); one whose skeleton is an existing id's is
    refused where ids are given (``id_key``)."""
    at = _first(_INVISIBLE, ident)
    if at is not None:
        return (
            f"holds {describe(ident[at])} at character {at + 1}, which no one can see "
            "(the id would look like another one)"
        )
    at = _first(_ODD_SPACE, ident)
    if at is not None:
        return f"holds {describe(ident[at])} at character {at + 1}, which looks like a space"
    import unicodedata

    latin = other = None
    for index, ch in enumerate(ident):
        if ch.isascii():
            latin = latin or (ch if ch.isalpha() else None)
            continue
        category = unicodedata.category(ch)
        if category[0] not in "LMN":
            return (
                f"holds {describe(ch)} at character {index + 1}; ids use ASCII punctuation "
                "(- _ .), and this one looks like it"
            )
        name = unicodedata.name(ch, "")
        if category[0] == "L" and name.startswith(_LATIN_LOOKING) and other is None:
            other = (index, ch)
        elif category[0] == "L" and name.startswith("LATIN"):
            latin = latin or ch
    if latin is not None and other is not None:
        index, ch = other
        return (
            f"mixes Latin letters with {describe(ch)} at character {index + 1}, "
            "which a reader takes for a Latin letter"
        )
    return None


# Unicode TS #39 confusables, the part that matters for ids: letters of other scripts that look
# like ASCII letters, and dashes, dots and underscores that look like ASCII ones, each mapped
# to what it looks like (compatibility forms, fullwidth letters and ligatures are NFKC's work).
_CONFUSABLES = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u02d7\u06d4\ufe58", "-"),
        **dict.fromkeys("\u0701\u0702\u2024\ua4f8\u0660\u06f0", "."),
        # Cyrillic
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "о": "o",
        "р": "p",
        "с": "c",
        "у": "y",
        "х": "x",
        "ѕ": "s",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "һ": "h",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "ӏ": "l",
        "к": "k",
        "м": "m",
        "н": "h",
        "т": "t",
        "ь": "b",
        "г": "r",
        "п": "n",
        "ո": "n",
        # Greek
        "α": "a",
        "β": "b",
        "ε": "e",
        "η": "n",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "γ": "y",
        "ζ": "z",
        "μ": "u",
        # Armenian, Latin extensions, Cherokee and Lisu capitals as they fold
        "օ": "o",
        "ս": "u",
        "հ": "h",
        "զ": "q",
        "ց": "g",
        "ɑ": "a",
        "ɡ": "g",
        "ı": "i",
        "ȷ": "j",
        "ꭵ": "v",
        "ꮃ": "w",
        "ꓲ": "l",
        "ꓳ": "o",
    }
)


def skeleton(ident: str) -> str:
    """What ``ident`` looks like (after case folding and NFKC): its look-alike characters
    replaced by the ASCII ones they pass for. ASCII ids are their own (lowercase) skeleton."""
    if ident.isascii():
        return ident.lower()
    import unicodedata

    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", ident).casefold())
    return _INVISIBLE.sub("", folded).translate(_CONFUSABLES)


def id_key(ident: str) -> str:
    """The key two ids share when one file system could take them for one file (case folding,
    Unicode compatibility normalisation: ``Foo-1`` ~ ``foo-1``, ``é`` composed ~ decomposed)
    or a person could take one for the other (``rеdis`` with a Cyrillic е ~ ``redis``)."""
    return skeleton(ident)


Finding = tuple[list[str | int], bool, str]  # (where, on the key, message)


def control_findings(value: Any, where: list[str | int] | None = None) -> Iterator[Finding]:
    """Every string (keys included) in a frontmatter or sidecar value that holds a refused
    control character, as (where, on_key, message)."""
    from collections.abc import Mapping  # not at import: the hooks scrub with this module

    stack: list[tuple[list[str | int], Any]] = [(where or [], value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            at = text_control(item)
            if at is not None:
                yield path, False, control_message(item, at)
        elif isinstance(item, Mapping):
            for key, sub in item.items():
                if isinstance(key, str):
                    at = text_control(key)
                    if at is not None:
                        yield [*path, key], True, "the key " + control_message(key, at)
                stack.append(([*path, key], sub))
        elif isinstance(item, list):
            stack.extend(([*path, i], sub) for i, sub in enumerate(item))
