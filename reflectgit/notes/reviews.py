"""A code review's findings, as a turn of dialogue states them, and whether the session acted on
them. Pure.

A review names a defect at a file (and a line): a Codex finding's priority tag ("1. **[P1]
Title.** path:line ..."), Codex Desktop's diff comments ("## Comment 1" / "File: ..." /
"Lines: ..." / "Comment: [P1] ..."), or an item under a heading or lead-in that announces
findings ("**Findings**", "## Minor findings", "I found three correctness issues") and says
what goes wrong. Whether the assistant wrote the review or the person pasted it, the items are
read the same way (``findings_in``). A pull request's review comments as GitHub's API returns
them (``gh api .../pulls/N/comments``: JSON objects with the file, ``path``, and the comment,
``body``) are findings too when the assistant fetched them in a tool result after the person
asked about the review (``comments_in``): a bot's or a reviewer's comment the person had
read. ``acted_on`` is the gate's cheap look at the shape the drain's writer reads in full
(``workflows/drain/heuristic/findings.review_findings``): a finding whose file the assistant
then edited, with a passing test run after the edit.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from reflectgit.notes.commandruns import Ran
from reflectgit.notes.generality import FAULT
from reflectgit.notes.policy import EDIT_TOOLS, call_from
from reflectgit.notes.transcripts import ASSISTANT, PERSON, Transcript, Turn

TAG = re.compile(r"\[P[0-3]\]\s*")

_DIFF_COMMENT = re.compile(r"^#{1,4}\s*Comment\s+\d+\s*$", re.I)

# An item of a list at the margin ("1. ...", "- ...", "### 2. ..."); a nested one belongs to it.
_ITEM = re.compile(r"^(?:#{1,4}\s+)?(?:\d+[.)]|[-*])\s+\S")

# A heading or a lead-in line: what announces the items below it.
_HEADING = re.compile(r"^(?:#{1,6}\s+\S.*|\*\*[^*]+\*\*:?|[^\s].{0,200}:)\s*$")

_ANNOUNCES = re.compile(r"\b(?:findings?|issues?|bugs?|problems?|defects?)\b", re.I)

# A file at a line, in prose or in a link's target ("provider.go:7934", "(src/a.py:12)"), and
# the file a diff comment names ("File: /repo/internal/sem/analyze.go").
FILE_AT = re.compile(r"([\w.-]*\w\.[A-Za-z][A-Za-z0-9]{0,5}):\d+\b")
_FILE_LINE = re.compile(r"^\**File:?\**:?\s*`?(?P<path>\S+?)`?\s*$", re.I | re.M)

# What an item under a heading of findings says goes wrong (a priority tag or a diff comment
# says so by itself): a failure, a fault, or what never, no longer or only happens.
_STATES_FAULT = re.compile(
    rf"{FAULT.pattern}|\b(?:fail\w*|errors?|crash\w*|broken|never|not|no|only|still|"
    r"silently|miss\w*|drops?|skips?|bypass\w*|breaks?|leaks?|stale|\w+n't)\b",
    re.I,
)


@dataclass(frozen=True)
class Finding:
    """One finding: its first line (a diff comment's, the line after "Comment:"), its other
    lines, the base names of the files it names (lower case), and whether a priority tag or a
    diff comment marks it."""

    head: str
    body: tuple[str, ...]
    files: frozenset[str]
    marked: bool
    fetched: bool = False  # a pull request's review comment, fetched from GitHub's API

    @property
    def prose(self) -> list[str]:
        """Its other lines without the code it quotes in fenced blocks ("masks it into:" then
        the masked line), fences and all: what the finding says in words."""
        out: list[str] = []
        fence = ""
        for line in self.body:
            fence, inside = _fenced(line, fence)
            if not inside:
                out.append(line)
        return out


def _fenced(line: str, fence: str) -> tuple[str, bool]:
    """The fence open after ``line`` (```` ``` ```` or ``~~~``, "" for none) given the one open
    before it, and whether ``line`` is a fence or inside one. A fence is closed by one of its
    own kind; an unclosed one runs to the end of the text, as markdown renders it."""
    mark = line.lstrip()[:3]
    if fence:
        return ("" if mark == fence else fence), True
    if mark in ("```", "~~~"):
        return mark, True
    return "", False


def basename(path: str) -> str:
    """A path's last part, lower case (a Windows path's too)."""
    return path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].lower()


def _blocks(text: str) -> list[tuple[str, list[str]]]:
    """The items of a text's lists at the margin and its diff comments, each with the heading
    or lead-in line above it."""
    out: list[tuple[str, list[str]]] = []
    lead = ""
    current: list[str] | None = None
    fence = ""
    for line in text.splitlines():
        fence, fenced = _fenced(line, fence)
        if not fenced and (_DIFF_COMMENT.match(line) or _ITEM.match(line)):
            current = [line]
            out.append((lead, current))
            continue
        in_comment = current is not None and bool(_DIFF_COMMENT.match(current[0]))
        heading = line.strip() and not line[:1].isspace() and _HEADING.match(line)
        if not fenced and heading and (not in_comment or line.startswith("#")):
            current, lead = None, line  # a diff comment runs to the next markdown heading
            continue
        if current is not None:
            current.append(line)
    return out


def findings_in(text: str) -> list[Finding]:
    """The findings a text states: items that name a file at a line (or a diff comment's
    file) and that a priority tag, a diff comment, or a heading of findings above an item
    saying what goes wrong makes findings."""
    out: list[Finding] = []
    for lead, lines in _blocks(text):
        whole = "\n".join(lines)
        comment = bool(_DIFF_COMMENT.match(lines[0]))
        marked = comment or bool(TAG.search(lines[0]))
        if not (marked or (_ANNOUNCES.search(lead) and _STATES_FAULT.search(whole))):
            continue
        files = {basename(m.group(1)) for m in FILE_AT.finditer(whole)}
        files |= {basename(m.group("path")) for m in _FILE_LINE.finditer(whole)}
        if not files:
            continue
        if comment:  # "Comment:", then the tag and title, then what it says
            said = whole.split("Comment:", 1)[1] if "Comment:" in whole else ""
            rest = [x for x in said.splitlines() if x.strip()]
            if not rest:
                continue
            head, body = rest[0], rest[1:]
        else:
            head, body = lines[0], [x for x in lines[1:] if x.strip()]
        out.append(Finding(head, tuple(body), frozenset(files), marked))
    return out


# Where a JSON object may open in a tool's output: an array's element, a line of ``--jq``'s.
_OBJECT = re.compile(r"(?:^|(?<=[\[,\n]))[ \t]*\{", re.M)

# What a review comment's body carries besides its words: HTML comments and folded blocks
# (a bot's metadata, its "Prompt for AI agents"), a footnote ("Reviewed by Cursor Bugbot for
# commit ..."), badges, images and tags, a severity label's line
# ("**Medium Severity**", "_⚠️ Potential issue_ | _🟠 Major_").
_MARKUP = re.compile(
    r"<!--.*?-->|<details>.*?</details>|<sup>.*?</sup>|!\[[^\]\n]*\]\([^)\n]*\)", re.S | re.I
)
_TAG_HTML = re.compile(r"<[^>\n]+>")
_LABEL = re.compile(
    r"^[\s*_|]*(?:[^\w\s`]+\s*)?(?:(?:potential issue|refactor suggestion|nitpick)\b|"
    r"(?:low|medium|high|critical|major|minor)(?: severity| priority)?\b)[\s*_|]*"
    r"(?:[^\w\s`]*\s*(?:low|medium|high|critical|major|minor)?[\s*_]*)$",
    re.I,
)

# The person asking about a pull request's review: its comments, a bot's or a reviewer's
# feedback, a link to one of its comments.
_ASKS_ABOUT_REVIEW = re.compile(
    r"\b(?:review\w*|feedback|comments?|bugbot|coderabbit|copilot|greptile)\b|"
    r"/pull/\d+#(?:discussion|pullrequestreview)",
    re.I,
)


def comments_in(text: str) -> list[Finding]:
    """The review comments a tool's output holds as GitHub's API returns them: each whole JSON
    object with a ``path`` and a ``body`` that says what goes wrong (a comment cut short by the
    output's cap is not read). Its title is the body's first line of words, past its markup and
    severity label."""
    out: list[Finding] = []
    decoder = json.JSONDecoder()
    end = 0
    for m in _OBJECT.finditer(text):
        start = m.end() - 1
        if start < end:
            continue
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            continue
        path, body = (value.get("path"), value.get("body")) if isinstance(value, dict) else ("", "")
        if not (isinstance(path, str) and path and isinstance(body, str)):
            continue
        words = html.unescape(_TAG_HTML.sub("", _MARKUP.sub("", body)))
        lines = [x.strip() for x in words.replace("\xa0", " ").splitlines()]
        lines = [x for x in lines if x and not _LABEL.match(x)]
        if not lines or not _STATES_FAULT.search(words):
            continue
        head = re.sub(r"^#{1,6}\s+", "", lines[0]).strip(" *_")
        out.append(Finding(head, tuple(lines[1:]), frozenset({basename(path)}), False, True))
    return out


def stated(transcript: Transcript, since: int = 0) -> list[tuple[Turn, Finding]]:
    """Every finding a turn of the person's or the assistant's at or after record ``since``
    states, with its turn; and every review comment a tool result at or after it holds
    (``comments_in``) when the person's last turn before it asked about the review, with a
    turn of the person's at the result's record (the person had it read)."""
    out = [
        (turn, found)
        for turn in transcript.turns
        if turn.record >= since and turn.speaker in (PERSON, ASSISTANT)
        for found in findings_in(turn.text)
    ]
    persons = [t for t in transcript.turns if t.speaker == PERSON]
    for result in transcript.tool_results:
        if result.record < since or result.is_error or '"path"' not in result.content:
            continue
        asked = [t for t in persons if t.record < result.record]
        if not (asked and _ASKS_ABOUT_REVIEW.search(asked[-1].text)):
            continue
        turn = Turn("user", result.content, result.record, speaker=PERSON)
        out += [(turn, found) for found in comments_in(result.content)]
    return sorted(out, key=lambda x: x[0].record)


def edited_files(transcript: Transcript) -> list[tuple[int, frozenset[str]]]:
    """(record, base names) of each edit the assistant made, in order."""
    return sorted(
        (c.record, frozenset(basename(p) for p in call_from(c.name, c.input).paths))
        for c in transcript.tool_calls
        if c.name in EDIT_TOOLS
    )


def acted_on(transcript: Transcript, ran: Sequence[Ran]) -> list[int]:
    """The records of the turns stating a finding whose file the assistant then edited, with a
    passing test run after that edit: the gate's look, wider than the writer's reading (which
    also asks what the edit says, and for no refutation or turn-down)."""
    edits = edited_files(transcript)
    green = [r.result for r in ran if r.run is not None and r.run.green]
    out: list[int] = []
    for turn, found in stated(transcript):
        first = next((at for at, files in edits if at > turn.record and files & found.files), None)
        if first is not None and any(at > first for at in green) and turn.record not in out:
            out.append(turn.record)
    return out
