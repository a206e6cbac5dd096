"""What a unified diff (``git diff -U0 -M``) changed: files, and the symbols whose code it
touched. Pure.

A symbol counts as changed when a hunk lies inside it (git names the enclosing definition in
the hunk header, ``@@ -10,2 +10,3 @@ def prefill(pool):``) or when a removed or added line
defines it (``notes/anchors.py``'s language-agnostic definition rule).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reflectgit.notes.anchors import defined_name

# Files of prose: their lines and git's hunk headers name no definitions.
PROSE = (".md", ".markdown", ".rst", ".txt", ".adoc", ".html", ".htm")


@dataclass
class FileDiff:
    old: str | None  # None: added
    new: str | None  # None: deleted
    symbols: set[str] = field(default_factory=set)

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


def _path(raw: str) -> str | None:
    text = raw.strip()
    if text == "/dev/null":
        return None
    if text.startswith('"') and text.endswith('"'):
        text = text[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        text = text.encode("latin-1", "replace").decode("utf-8", "replace")
    return text[2:] if text[:2] in ("a/", "b/") else text


def parse(patch: str) -> list[FileDiff]:
    """The files of ``patch`` in order, each with the symbols its hunks touched."""
    files: list[FileDiff] = []
    current: FileDiff | None = None
    for line in patch.splitlines():
        if line.startswith("diff --git "):
            current = FileDiff(None, None)
            files.append(current)
            rest = line[len("diff --git ") :]
            half = rest.find(" b/")
            if half > 0:  # until ---/+++ or rename lines say otherwise
                current.old, current.new = _path(rest[:half]), _path(rest[half + 1 :])
            continue
        if current is None:
            continue
        prose = (current.new or current.old or "").lower().endswith(PROSE)
        if line.startswith("rename from "):
            current.old = line[len("rename from ") :]
        elif line.startswith("rename to "):
            current.new = line[len("rename to ") :]
        elif line.startswith("new file mode"):
            current.old = None
        elif line.startswith("deleted file mode"):
            current.new = None
        elif line.startswith("--- ") and not line.startswith("--- a/") and "/dev/null" in line:
            current.old = None
        elif line.startswith("+++ ") and "/dev/null" in line:
            current.new = None
        elif prose:
            continue
        elif line.startswith("@@"):
            end = line.find("@@", 2)
            context = line[end + 2 :].strip() if end > 0 else ""
            name = defined_name(context) if context else None
            if name:
                current.symbols.add(name)
        elif line[:1] in ("+", "-") and not line.startswith(("+++", "---")):
            name = defined_name(line[1:])
            if name:
                current.symbols.add(name)
    return files
