"""Every relative link of the docs resolves: the pages of docs/, the README and bench/README.md
link to files that exist and to headings those pages have (``page.md#anchor``, as GitHub names
a heading's anchor). A page split in two, a heading renamed or a file moved fails here, not in a
reader's browser."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
PAGES = [
    *sorted((REPO_ROOT / "docs").glob("*.md")),
    REPO_ROOT / "README.md",
    REPO_ROOT / "bench" / "README.md",
]

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def _prose_lines(text: str) -> list[str]:
    """The lines of ``text`` outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text (links read as their text, code as its
    characters) lower-cased, punctuation dropped, spaces become hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = "".join(ch for ch in text.lower() if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor ``page`` has: one per heading (a repeated heading gets ``-1``, ``-2`` ...,
    as GitHub numbers them) and any ``<a id=...>``."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in _prose_lines(page.read_text(encoding="utf-8")):
        found.update(HTML_ANCHOR.findall(line))
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def relative_links(page: Path) -> list[tuple[int, str]]:
    """``(line number, target)`` for each link of ``page`` that is not a URL, an e-mail or an
    elided address, outside code blocks and inline code."""
    links = []
    fenced = False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for target in LINK.findall(INLINE_CODE.sub("", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                continue  # https:, mailto: ...
            if set(target) == {"."} and len(target) >= 3:
                continue  # a quoted message's link, its address elided: "PR [#10949](...)"
            links.append((number, target))
    return links


def broken_links(page: Path) -> list[str]:
    """Each relative link of ``page`` whose file does not exist or whose anchor that file has
    no heading for, as ``page:line: target (why)``."""
    broken = []
    for number, target in relative_links(page):
        path_part, _, fragment = target.partition("#")
        where = (page.parent / unquote(path_part)).resolve() if path_part else page
        shown = page.relative_to(REPO_ROOT) if page.is_relative_to(REPO_ROOT) else page.name
        name = f"{shown}:{number}: {target}"
        if not where.exists():
            broken.append(f"{name} (no such file)")
        elif fragment and where.suffix == ".md" and unquote(fragment) not in anchors(where):
            broken.append(f"{name} (no such heading)")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    """The check can fail: a missing page, a missing heading, a heading of another page, and
    what must not be read as a link (code, a URL, a heading inside a code block)."""
    (tmp_path / "other.md").write_text("# Other\n\n## Stale notes\n\n## Stale notes\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page: one (two)\n\n"
        "[ok](other.md) [ok](other.md#stale-notes) [ok](other.md#stale-notes-1) [ok](#page-one-two)\n"
        "[missing](gone.md) [no heading](other.md#labels) [not here](#stale-notes)\n"
        "`[code](gone.md)` [web](https://example.com/gone.md) [mail](mailto:a@b.c) [#5](...)\n"
        "```\n[fenced](gone.md)\n# Labels\n```\n"
    )
    found = [line.split(": ", 1)[1] for line in broken_links(page)]
    assert found == [
        "gone.md (no such file)",
        "other.md#labels (no such heading)",
        "#stale-notes (no such heading)",
    ]
    assert anchors(page) == {"page-one-two"}


def test_slug_is_githubs() -> None:
    assert slug("Renames, followed commit by commit") == "renames-followed-commit-by-commit"
    assert slug("pr-notes' cost: doing less") == "pr-notes-cost-doing-less"
    assert slug("All thirty tune histories at `e1f4abf`: tune figures") == (
        "all-thirty-tune-histories-at-e1f4abf-tune-figures"
    )
    assert slug("[Link](x.md) and `code_name`") == "link-and-code_name"
