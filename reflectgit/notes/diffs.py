"""What a unified diff (``git diff -U0 -M``) changed: files, their hunks, and the symbols whose
code it touched. Pure. The one reader of a unified diff in reflect-git.

A file's part of the diff is its header (``diff --git``, ``rename from``, ``new file mode``,
``--- a/x``, ``+++ b/x``, ``Binary files ... differ``), then its hunks, each an ``@@`` line
and the lines it removed (``-``) and added (``+``). Header lines are read only before the
file's first ``@@``: inside a hunk every ``-`` or ``+`` line is content, as git reads it (the
hunk's counts say how many lines follow), so a removed Lua, SQL or Haskell comment (``-- x``,
written ``--- x``) or an added ``++i;`` (``+++i;``) is a line of code, not a file header.

A symbol counts as changed when a hunk lies inside it (git names the enclosing definition in
the hunk header, ``@@ -10,2 +10,3 @@ def prefill(pool):``) or when a removed or added line
defines it (``notes/anchors.py``'s language-agnostic definition rule).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from reflectgit.notes.anchors import defined_name

# Files of prose: their lines and git's hunk headers name no definitions.
PROSE = (".md", ".markdown", ".rst", ".txt", ".adoc", ".html", ".htm")


@dataclass
class Hunk:
    """One ``@@`` hunk: the lines it removed and the lines it added, without their ``-``/``+``."""

    gone: list[str] = field(default_factory=list)
    came: list[str] = field(default_factory=list)
    # What git wrote after the ``@@``: the line its funcname rules found above the hunk (the
    # enclosing definition, ``def test_prefill(pool):``), or "".
    context: str = ""


@dataclass
class FileDiff:
    old: str | None  # None: added
    new: str | None  # None: deleted
    hunks: list[Hunk] = field(default_factory=list)
    # The old and new versions' blob ids, when the diff names them whole (``git diff
    # --full-index``'s ``index`` line): what to read them by, with no lookup of their paths.
    # None for a side the file does not have, and for both when the line gives no ids (a
    # rename or mode change alone) or short ones.
    blobs: tuple[str | None, str | None] = (None, None)

    @property
    def status(self) -> str:
        if self.old is None:
            return "added"
        if self.new is None:
            return "deleted"
        return "renamed" if self.old != self.new else "modified"

    @property
    def paths(self) -> list[str]:
        return list(dict.fromkeys(p for p in (self.old, self.new) if p))

    @cached_property
    def symbols(self) -> set[str]:
        """The symbols whose code the hunks touched: the definition git names above each hunk
        and any a removed or added line defines; none in prose (``PROSE``). Read when first
        asked: a change's notes may be found by their anchors alone, not its symbols."""
        if (self.new or self.old or "").lower().endswith(PROSE):
            return set()
        out: set[str] = set()
        for hunk in self.hunks:
            for line in ([hunk.context] if hunk.context else []) + hunk.gone + hunk.came:
                name = defined_name(line)
                if name:
                    out.add(name)
        return out


# ``diff --git a/x b/x``: each path as git writes it, quoted (``"a/caf\\303\\251.py"``) or not.
_PAIR = re.compile(r'(?P<old>"(?:[^"\\]|\\.)*"|a/.*?) (?P<new>"(?:[^"\\]|\\.)*"|b/.*)$')


def _unquoted(text: str) -> str:
    """A path as git wrote it, without its C-style quoting: git quotes a path holding a
    double quote, a backslash, a control character or (``core.quotePath``, on by default) a
    byte above 0x7f, as ``"caf\\303\\251.py"``."""
    if text.startswith('"') and text.endswith('"'):
        text = text[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        text = text.encode("latin-1", "replace").decode("utf-8", "replace")
    return text


def _path(raw: str) -> str | None:
    text = raw.strip()
    if text == "/dev/null":
        return None
    text = _unquoted(text)
    return text[2:] if text[:2] in ("a/", "b/") else text


# A whole object id (SHA-1 or SHA-256), as ``--full-index`` writes it.
_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _blob_ids(text: str) -> tuple[str | None, str | None]:
    """``<old>..<new>[ <mode>]`` -> the two blob ids (None for an all-zero one: that side is
    absent); ``(None, None)`` unless both are whole ids."""
    old, _, rest = text.partition("..")
    new = rest.split(" ", 1)[0]
    if not (_OBJECT_ID.fullmatch(old) and _OBJECT_ID.fullmatch(new)):
        return None, None
    return (None if not old.strip("0") else old), (None if not new.strip("0") else new)


def parse(patch: str) -> list[FileDiff]:
    """The files of ``patch`` in order, each with its hunks and the symbols they touched."""
    files: list[FileDiff] = []
    current: FileDiff | None = None
    hunk: Hunk | None = None  # None: in the current file's header, before its first ``@@``
    # Lines end at ``\n`` only, as git writes them: ``str.splitlines`` would also cut a line
    # of code at a form feed, a ``\x1c``..``\x1e`` or a U+2028 inside a string literal. A
    # ``\r`` before the ``\n`` is the file's own line end (CRLF), not its content.
    for line in patch.split("\n"):
        line = line.removesuffix("\r")
        if line.startswith("diff --git "):
            current, hunk = FileDiff(None, None), None
            files.append(current)
            pair = _PAIR.match(line, len("diff --git "))
            if pair:  # until ---/+++ or rename lines say otherwise
                current.old, current.new = _path(pair["old"]), _path(pair["new"])
            continue
        if current is None:
            continue
        if line.startswith("@@"):
            end = line.find("@@", 2)
            hunk = Hunk(context=line[end + 2 :].strip() if end > 0 else "")
            current.hunks.append(hunk)
        elif hunk is not None:  # a hunk's lines; ``\ No newline at end of file`` is none
            if line[:1] not in ("+", "-"):
                continue
            (hunk.came if line[0] == "+" else hunk.gone).append(line[1:])
        elif line.startswith("index "):
            current.blobs = _blob_ids(line[len("index ") :])
        elif line.startswith("rename from "):
            current.old = _unquoted(line[len("rename from ") :])
        elif line.startswith("rename to "):
            current.new = _unquoted(line[len("rename to ") :])
        elif line.startswith("new file mode"):
            current.old = None
        elif line.startswith("deleted file mode"):
            current.new = None
        elif line.startswith("--- ") and not line.startswith("--- a/") and "/dev/null" in line:
            current.old = None
        elif line.startswith("+++ ") and "/dev/null" in line:
            current.new = None
    return files
