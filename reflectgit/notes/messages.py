"""Commit subjects and trailers, built and parsed. Pure.

Every commit reflect-git makes carries structured trailers, so plain ``git log`` can answer
questions about the knowledge:

    feat(knowledge): Prefill connection pools at startup [HIGH]

    Reflect-Op: add
    Reflect-Id: lrn-pool-timeout-a1b2c3
    Reflect-Confidence: high
    Reflect-Source: cli
    Reflect-Git: 0.1.0
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from reflectgit import __version__
from reflectgit.errors import RefusedError
from reflectgit.notes import names

TRAILER_PREFIX = "Reflect-"
MARKER = "Reflect-Git"
TIER_TAGS = {"high": "HIGH", "medium": "MED", "low": "LOW"}
SUBJECT_MAX = 72

_TRAILER_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9-]*):\s?(.*)$")


@dataclass(frozen=True)
class CommitMessage:
    """A subject, an optional body, and ordered trailers (a key may repeat)."""

    subject: str
    body: str = ""
    trailers: tuple[tuple[str, str], ...] = ()

    def render(self) -> str:
        parts = [one_line(self.subject)]
        if self.body.strip():
            parts.append(self.body.strip("\n"))
        if self.trailers:
            parts.append("\n".join(f"{k}: {one_line(v)}" for k, v in self.trailers))
        text = "\n\n".join(parts) + "\n"
        refuse_controls(text)
        return text

    def trailer(self, key: str) -> str | None:
        for k, v in self.trailers:
            if k.lower() == key.lower():
                return v
        return None

    def trailer_all(self, key: str) -> list[str]:
        return [v for k, v in self.trailers if k.lower() == key.lower()]

    @property
    def op(self) -> str | None:
        return self.trailer("Reflect-Op")

    @property
    def ids(self) -> list[str]:
        return self.trailer_all("Reflect-Id")

    @property
    def is_ours(self) -> bool:
        """Made by reflect-git (capture hooks skip these)."""
        return self.trailer(MARKER) is not None


def refuse_controls(text: str) -> None:
    """Raise ``RefusedError`` if a commit message holds a control character (tab and newline
    aside): ``git fsck --strict`` refuses a NUL in a commit, and so do servers that check
    pushes; the others reach terminals through ``git log``."""
    at = names.message_control(text)
    if at is None:
        return
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[start : end if end >= 0 else len(text)]
    where = "the subject" if start == 0 else f"the line starting {line[: at - start]!r}"
    raise RefusedError(
        f"the commit message holds the control character {names.describe(text[at])} in "
        f"{where} (character {at - start + 1} of that line)",
        hint="remove the control character from the title, reason or text you gave "
        "(tabs and newlines are fine; NUL, ESC and the other control characters are not)",
    )


def one_line(text: str) -> str:
    """Collapse whitespace so a value can never add a line (or a trailer) of its own."""
    return " ".join(text.split())


def shorten(text: str, limit: int = SUBJECT_MAX) -> str:
    text = one_line(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def knowledge_subject(title: str, tier: str | None, kind: str = "feat") -> str:
    """``feat(knowledge): <title> [HIGH]`` (``docs`` for medium routes, as teams know them)."""
    tag = TIER_TAGS.get(tier or "medium", "MED")
    return f"{kind}(knowledge): {shorten(title or 'untitled', SUBJECT_MAX - 24)} [{tag}]"


def chore_subject(op: str, what: str) -> str:
    """``chore(knowledge): archive lrn-pool-timeout-a1b2c3``."""
    return f"chore(knowledge): {op} {shorten(what, SUBJECT_MAX - 20 - len(op))}"


def build(
    subject: str,
    op: str,
    ids: Iterable[str] = (),
    *,
    confidence: str | None = None,
    source: str = "cli",
    body: str = "",
    extra: Mapping[str, str] | Iterable[tuple[str, str]] = (),
) -> CommitMessage:
    """A reflect-git commit message with the standard trailers in their standard order."""
    trailers: list[tuple[str, str]] = [("Reflect-Op", op)]
    trailers.extend(("Reflect-Id", i) for i in ids)
    if confidence:
        trailers.append(("Reflect-Confidence", confidence))
    trailers.append(("Reflect-Source", source))
    items = extra.items() if isinstance(extra, Mapping) else extra
    trailers.extend((k, v) for k, v in items)
    trailers.append((MARKER, __version__))
    return CommitMessage(subject, body, tuple(trailers))


def parse(message: str | bytes) -> CommitMessage:
    """Split a commit message into subject, body and the trailing trailer block."""
    text = message.decode("utf-8", "replace") if isinstance(message, bytes) else message
    text = text.replace("\r\n", "\n").strip("\n")
    paragraphs = re.split(r"\n\s*\n", text) if text else [""]
    subject = paragraphs[0].strip()
    rest = paragraphs[1:]
    trailers: list[tuple[str, str]] = []
    if rest:
        last = rest[-1].split("\n")
        matches = [_TRAILER_LINE.match(line) for line in last]
        if all(matches):
            trailers = [(m.group(1), m.group(2).strip()) for m in matches if m]
            rest = rest[:-1]
    return CommitMessage(subject, "\n\n".join(rest), tuple(trailers))


def is_ours(message: str | bytes) -> bool:
    """Cheap check used on hook paths: does the message carry our marker trailer?"""
    text = message.decode("utf-8", "replace") if isinstance(message, bytes) else message
    return f"\n{MARKER}:" in text
