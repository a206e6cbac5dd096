"""Other tools' memory files read as rules: Claude Code, AGENTS.md, Cursor, Copilot. Pure.

What each tool keeps, and where (the workflow ``workflows/ingest.py`` finds the files):

- Claude Code: ``CLAUDE.md``, ``.claude/CLAUDE.md``, ``.claude/rules/*.md`` and
  ``CLAUDE.local.md`` in the project; ``~/.claude/CLAUDE.md`` and ``~/.claude/rules/*.md`` for
  the user; its auto memory in ``~/.claude/projects/<slug>/memory/*.md`` (``MEMORY.md`` is the
  index, the other files are topics; the slug is the project's absolute path with every
  character that is not a letter or digit turned into ``-``).
- Codex and others: ``AGENTS.md``.
- Cursor: ``.cursorrules`` (plain text), ``.cursor/rules/*.mdc`` (frontmatter ``description``,
  ``globs``, ``alwaysApply``, then markdown).
- GitHub Copilot: ``.github/copilot-instructions.md``, ``.github/instructions/*.instructions.md``
  (frontmatter ``applyTo``).

A rule is a bullet or numbered item, or a line that starts with an imperative ("Always ...",
"Never ...", "Use ...", "Do not ..."). Headings, prose paragraphs, tables, HTML comments, code
blocks, ``@path`` imports, and index entries that only point at another file are not rules.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

# Imperative openers of a rule written as a plain line (a paragraph of its own).
IMPERATIVES = frozenset(
    {
        "always", "never", "use", "don't", "dont", "do", "avoid", "prefer", "run", "make",
        "ensure", "keep", "write", "add", "put", "must", "should", "remember", "check", "test",
        "call", "import", "return", "set", "pass", "name", "place", "prefix", "store",
        "document", "commit", "push", "create", "delete", "remove", "rename", "follow", "wrap",
        "log", "validate", "mock",
    }
)  # fmt: skip
MIN_WORDS = 3  # a rule says something: "Use pnpm." is too short to be worth a note
MAX_RULE = 500  # characters of one rule; longer is prose, cut at this

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_CHECKBOX = re.compile(r"^\[[ xX]\]\s+")
_LINK_ONLY = re.compile(r"^\s*\[[^\]]*\]\([^)]*\)\s*(?:[-:–—]\s*.*)?$")
_IMPORT = re.compile(r"^\s*@\S+\s*$")
_TABLE = re.compile(r"^\s*\|")
_RULER = re.compile(r"^\s*(?:[-*_]\s*){3,}$")
# "`src/` - the code", "**Build**: make build": a term and what it is, not a rule.
_TERM = re.compile(r"^([^:]{1,60}?)\s*(?::|\s[-\u2013\u2014]|\u2014|\u2013)\s+(.+)$")
# Markdown emphasis and code marks, not the underscores inside a name (``billing_dev``).
_EMPHASIS = re.compile(r"`+|\*\*|__|(?<![A-Za-z0-9])[*_]|[*_](?![A-Za-z0-9])")
_CODE_ONLY = re.compile(r"^`[^`]*`\.?$")
_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019]*")


# GitHub Copilot CLI's memory tool (``subject``, ``fact``, ``citations``, ``reason``), and the
# citation that says the fact is the person's own word, not something read in the code.
STORE_MEMORY = "store_memory"
_CITES_PERSON = re.compile(r"\A\s*User input\b", re.I)


def fact_from_person(tool: str, arguments: object) -> str:
    """The fact a Copilot ``store_memory`` call saved citing the person's own input ("User
    input: ..."), else "": what the assistant kept for its later sessions at the person's
    word. A fact it cites from a file or a command's output is its own finding."""
    if tool != STORE_MEMORY or not isinstance(arguments, dict):
        return ""
    if not _CITES_PERSON.match(str(arguments.get("citations") or "")):
        return ""
    return str(arguments.get("fact") or "").strip()


def is_heading(line: str) -> bool:
    """Is ``line`` a markdown heading ("## Findings")? A heading is a document's structure,
    the label of a section, not a statement of its own."""
    return bool(_HEADING.match(line))


@dataclass(frozen=True)
class Rule:
    """One rule from a memory file: where it is and what it says."""

    line: int  # 1-based line of the file where the rule starts
    text: str  # the rule, on one line, markdown emphasis kept
    section: str = ""  # the heading it sits under ("" at the top)

    @property
    def content_hash(self) -> str:
        return content_hash(self.text)


@dataclass
class MemoryFile:
    """A memory file's metadata (Cursor and Copilot frontmatter) and its rules."""

    meta: dict[str, str] = field(default_factory=dict)
    rules: list[Rule] = field(default_factory=list)


def normalise(text: str) -> str:
    """The text a content hash covers: whitespace collapsed, case folded, emphasis dropped."""
    text = re.sub(r"[*_`]+", "", text)
    return " ".join(text.split()).casefold().rstrip(".")


def content_hash(text: str) -> str:
    """sha256 of the normalised rule: the same rule in two files, or re-worded in case and
    spacing only, is the same text (ingested once)."""
    return "sha256:" + hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def split_frontmatter(text: str) -> tuple[dict[str, str], str, int]:
    """(frontmatter keys, body, lines before the body) of a file that may open with ``---``.

    Read line by line as ``key: value`` rather than as YAML: Cursor writes ``globs: *.ts``,
    which YAML reads as an alias and rejects.
    """
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text, 0
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            meta: dict[str, str] = {}
            for raw in lines[1:end]:
                key, sep, value = raw.partition(":")
                if sep and key.strip() and not raw.startswith((" ", "\t")):
                    meta[key.strip()] = value.strip().strip("'\"")
            return meta, "\n".join(lines[end + 1 :]), end + 1
    return {}, text, 0  # no closing line: not frontmatter


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _plain(text: str) -> str:
    """The rule without markdown emphasis around its first word (``**Never**`` -> ``Never``)."""
    return re.sub(r"^[*_\s]+", "", text)


def is_imperative(text: str) -> bool:
    plain = _plain(text)
    if plain.startswith("`"):
        return False  # a code span first is a command, not a verb
    words = _words(plain)
    return bool(words) and words[0].casefold().replace("\u2019", "'") in IMPERATIVES


def _is_rule(text: str) -> bool:
    """A bullet's text is a rule when it says something on its own: not a link to another
    file, not a lead-in to a sub-list, not a glossary entry (``src/: the code``)."""
    stripped = text.strip()
    if not stripped or _LINK_ONLY.match(stripped) or stripped.endswith(":"):
        return False
    term = None if is_imperative(stripped) else _TERM.match(stripped)
    if term and _CODE_ONLY.match(term.group(1).strip()):
        return False  # "`make test` - run the unit tests": what a command does
    if term and len(_words(term.group(1))) <= 4:
        rest = term.group(2).strip()
        if _CODE_ONLY.match(rest) or not is_imperative(rest):
            return False
    return len(_words(stripped)) >= MIN_WORDS


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_RULE else text[: MAX_RULE - 1].rstrip() + "…"


def extract_rules(text: str, first_line: int = 1) -> list[Rule]:
    """The rules of a markdown (or plain text) memory file; ``first_line`` is the file line of
    ``text``'s first line (after a frontmatter block)."""
    rules: list[Rule] = []
    for line, body, section in _items(text.replace("\r\n", "\n").split("\n")):
        rules.append(Rule(first_line + line, _clip(body), section))
    return rules


def _items(lines: list[str]) -> Iterator[tuple[int, str, str]]:
    """(0-based line, text, section) of every rule: bullets with their continuation lines, and
    one-line imperative paragraphs."""
    fence: str | None = None
    comment = False
    section = ""
    current: tuple[int, list[str], int] | None = None  # (line, parts, indent) of a bullet
    paragraph: list[tuple[int, str]] = []

    def flush_bullet() -> Iterator[tuple[int, str, str]]:
        nonlocal current
        if current is not None:
            text = " ".join(current[1])
            if _is_rule(text):
                yield current[0], text, section
        current = None

    def flush_paragraph() -> Iterator[tuple[int, str, str]]:
        # A paragraph of one line that opens with an imperative is a rule; more lines are prose.
        if len(paragraph) == 1 and is_imperative(paragraph[0][1]):
            no, text = paragraph[0]
            if _is_rule(text):
                yield no, text.strip(), section
        paragraph.clear()

    for no, raw in enumerate(lines):
        if fence is not None:
            if raw.strip().startswith(fence):
                fence = None
            continue
        match = _FENCE.match(raw)
        if match:
            yield from flush_bullet()
            yield from flush_paragraph()
            fence = match.group(1)
            continue
        if comment:
            if "-->" in raw:
                comment = False
            continue
        if raw.lstrip().startswith("<!--"):
            yield from flush_bullet()
            yield from flush_paragraph()
            comment = "-->" not in raw
            continue
        if not raw.strip():
            yield from flush_bullet()
            yield from flush_paragraph()
            continue
        if _HEADING.match(raw):
            yield from flush_bullet()
            yield from flush_paragraph()
            section = raw.strip().lstrip("#").strip()
            continue
        if _TABLE.match(raw) or _RULER.match(raw) or _IMPORT.match(raw) or raw.startswith(">"):
            yield from flush_bullet()
            yield from flush_paragraph()
            continue
        bullet = _BULLET.match(raw)
        if bullet:
            yield from flush_bullet()
            yield from flush_paragraph()
            text = _CHECKBOX.sub("", bullet.group(2).strip())
            current = (no, [text], len(bullet.group(1)))
            continue
        indent = len(raw) - len(raw.lstrip())
        if current is not None and indent > current[2]:
            current[1].append(raw.strip())  # a bullet's continuation line
            continue
        yield from flush_bullet()
        paragraph.append((no, raw))
    yield from flush_bullet()
    yield from flush_paragraph()


def read_memory_file(text: str, kind: str) -> MemoryFile:
    """A memory file's rules; ``kind`` says its format (``mdc`` and Copilot's ``instructions``
    and Claude's memory topics have frontmatter; the others are plain markdown or text)."""
    text = text.replace("\r\n", "\n").lstrip("\ufeff")
    meta, body, skipped = split_frontmatter(text)
    return MemoryFile(meta=meta, rules=extract_rules(body, first_line=1 + skipped))


def claude_project_slug(path: str) -> str:
    """The folder name Claude Code keeps a project's sessions and memory under
    (``/home/me/my.app`` -> ``-home-me-my-app``)."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def title_of(rule: str, limit: int = 80) -> str:
    """A note title from a rule: its first sentence, emphasis dropped, at most ``limit``."""
    plain = _EMPHASIS.sub("", rule).strip()
    first = re.split(r"(?<=[.!?])\s+", plain, maxsplit=1)[0].rstrip(".")
    first = first[0].upper() + first[1:] if first else first
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"
