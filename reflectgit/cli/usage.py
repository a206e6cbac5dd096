"""The root help page (``reflect-git``, ``--help``, ``-h``) from the command registry alone.

Listing the commands used to import typer (about 35 ms) and every command module (about 40
ms more) only to read their names and summaries. ``app.GROUPS`` keeps each command's summary,
and the global options are declared once in ``options`` (``GLOBAL_OPTIONS``, ``GLOBAL_HELP``),
so the page is laid out here the way typer's click lays it out when ``rich_markup_mode`` is
None: the usage line, the help text, then two definition lists, each wrapped to the terminal
width (at most 78 columns), the summaries shortened as click shortens them.
tests/test_cli_registry.py proves the page is, byte for byte, the one typer prints, at several
terminal widths. When a registry line gives no summary, ``page`` returns None and typer prints
the page as before.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence

from reflectgit.cli.options import GLOBAL_HELP, GLOBAL_OPTIONS, HELP_OPTIONS, VERSION_OPTION

USAGE = "[OPTIONS] COMMAND [ARGS]..."
# The two options typer adds with `add_completion=True`, and the help option, in their words.
COMPLETION_OPTIONS = (
    ("--install-completion", "Install completion for the current shell."),
    ("--show-completion", "Show completion for the current shell, to copy it or customize the installation."),
)  # fmt: skip
HELP_TEXT = "Show this message and exit."
MAX_WIDTH = 80
COL_MAX = 30
COL_SPACING = 2
INDENT = 2


class _Wrapper(textwrap.TextWrapper):
    """click's wrapper: a word longer than the line is cut where the line ends."""

    def _handle_long_word(
        self, reversed_chunks: list[str], cur_line: list[str], cur_len: int, width: int
    ) -> None:
        space_left = max(width - cur_len, 1)
        last = reversed_chunks[-1]
        cur_line.append(last[:space_left])
        reversed_chunks[-1] = last[space_left:]


def _wrap(text: str, width: int, first: str = "", rest: str = "") -> str:
    wrapper = _Wrapper(
        width, initial_indent=first, subsequent_indent=rest, replace_whitespace=False
    )
    return wrapper.fill(text.expandtabs())


def width() -> int:
    """The width click formats for: the terminal's, at most 78, at least 50."""
    import shutil

    return max(min(shutil.get_terminal_size().columns, MAX_WIDTH) - 2, 50)


def short_help(text: str, limit: int) -> str:
    """The summary as click shortens it for a command list (its ``make_default_short_help``)."""
    words = text.partition("\n\n")[0].split()
    if not words:
        return ""
    if words[0] == "\b":
        words = words[1:]
    total = 0
    last = len(words) - 1
    i = 0
    for i, word in enumerate(words):
        total += len(word) + (i > 0)
        if total > limit:
            break
        if word[-1] == ".":
            return " ".join(words[: i + 1])
        if total == limit and i != last:
            break
    else:
        return " ".join(words)
    total += len("...")
    while i > 0:
        total -= len(words[i]) + (i > 0)
        if total <= limit:
            break
        i -= 1
    return " ".join(words[:i]) + "..."


def _definitions(rows: Sequence[tuple[str, str]], page_width: int) -> Iterable[str]:
    first_col = min(max(len(term) for term, _ in rows), COL_MAX) + COL_SPACING
    text_width = max(page_width - first_col - 2, 10)
    for term, text in rows:
        head = " " * INDENT + term
        lines = _wrap(text, text_width).splitlines() if text else []
        if not lines:
            yield head
            continue
        if len(term) <= first_col - COL_SPACING:
            head += " " * (first_col - len(term))
        else:
            yield head
            head = " " * (first_col + INDENT)
        yield head + lines[0]
        for line in lines[1:]:
            yield " " * (first_col + INDENT) + line


def option_rows() -> list[tuple[str, str]]:
    """The root's options as the help page lists them (flags, then what they do)."""
    flags: dict[str, list[str]] = {}
    for flag, (field, takes_value) in GLOBAL_OPTIONS.items():
        flags.setdefault(field, []).append(flag + (" TEXT" if takes_value else ""))
    rows = [
        (", ".join(sorted(names, key=lambda n: len(n) - len(n.lstrip("-")))), GLOBAL_HELP[field])
        for field, names in flags.items()
    ]
    rows.append((VERSION_OPTION, GLOBAL_HELP["version"]))
    rows += COMPLETION_OPTIONS
    rows.append((", ".join(HELP_OPTIONS), HELP_TEXT))
    return rows


def page(prog: str, help_text: str, commands: Mapping[str, str]) -> str | None:
    """The help page typer would print for the root, or None when a summary is missing."""
    if not commands or not all(commands.values()):
        return None
    page_width = width()
    prefix = f"Usage: {prog} "
    if page_width >= len(prefix) + 20:
        usage = _wrap(USAGE, page_width, prefix, " " * len(prefix))
    else:
        usage = prefix + "\n" + _wrap(USAGE, page_width, " " * 11, " " * 11)
    lines = [usage, ""]
    lines += _wrap(help_text, page_width, " " * INDENT, " " * INDENT).splitlines()
    lines += ["", "Options:", *_definitions(option_rows(), page_width)]
    limit = page_width - 6 - max(len(word) for word in commands)
    rows = [(word, short_help(summary, limit)) for word, summary in commands.items()]
    lines += ["", "Commands:", *_definitions(rows, page_width)]
    return "\n".join(lines).rstrip("\n")
