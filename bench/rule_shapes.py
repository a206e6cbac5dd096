"""Shapes of the rules a person states with no rule word, measured before any is built (issue 34,
recall).

A shape is a way to tell a standing rule from an ordinary request for the task at hand by the
session's structure: the person says the request again in a later turn, gives a reason, asks for
it on every one of a kind, corrects what the assistant just did, or names the way refused. For
each shape, over every person line of the judged sets (the shared sessions and each
``--held-apart`` folder), this counts the lines that have it, the sets they are in, and those
at a rule lesson the heuristic drain misses (the lesson's ``where``, as
``bench/recall_misses.py`` reads it). A line at a missed lesson is what the shape could gain;
every other line is a note it could write that keeps no lesson, to be read with its session
before anything is built (docs/drain.md, "rules a person states with no rule word").

A sixth shape (issue 34, held-apart-20 and -21) is read by words: a terse constraint joined
to a request, "git commit, push and open or no co-author bs", "remove all co-author by copilot
shit, got it?". Besides the missed rule lessons a line sits at, ``--list`` names the judged rule
lessons it sits at (kept or not), and the table counts them.

Questions (not a request closed by a check-back, "..., got it?"), pasted output (a line that opens like a log, a prompt or a diff, or holds fewer than
two English function words: "🦀 Current: 56.8%, Ratchet: 66.4%") and lines of more than 400
characters (a pasted document) are left out.

Run: ``.venv/bin/python bench/rule_shapes.py [--held-apart DIR ...] [--list]``
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.quality import listing_main  # noqa: E402
from bench.recall_misses import _transcripts, missed, where  # noqa: E402
from reflectgit.notes.english import FUNCTION_WORDS  # noqa: E402
from reflectgit.workflows.drain.cascade import DRAIN_DIALOGUE_CAP, _dialogue, prepare  # noqa: E402

LONGEST = 400  # characters: a longer person line is a pasted document, not a request
SAME_WORDS = 3  # content words two requests share at least to be the same request
SAME_SHARE = 0.6  # of the shorter request's content words

_PASTED = re.compile(
    r"^\s*(?:[$❯>|#<\[]|```|at\s|\d{4}[-/]\d|(?:npm|error|warning|info|warn)\b|[-+]\s{2,}|\s{3,})",
    re.I,
)
_WORD = re.compile(r"[a-z][a-z0-9_./-]+")


@dataclass(frozen=True)
class Line:
    """One person line of a transcript, with the lines before it (the assistant's among them)."""

    text: str
    turn: int
    record: int
    before: tuple[
        tuple[str, str, int], ...
    ]  # (speaker, text, turn) of the transcript's earlier lines


def content_words(text: str) -> set[str]:
    """The words of ``text`` that are not English function words (three letters or more)."""
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in FUNCTION_WORDS}


def said_again(line: Line) -> bool:
    """Does the person say again what a line of theirs in an earlier turn said, the assistant
    having answered in between ("can you run lint, test and check-types", then "Can you run
    tests, lint and check-types to ensure all is green")?"""
    words = content_words(line.text)
    if len(words) < SAME_WORDS:
        return False
    answered = False
    for speaker, text, turn in reversed(line.before):
        answered = answered or (speaker != "person" and turn < line.turn)
        if speaker != "person" or turn >= line.turn or not answered or _PASTED.match(text):
            continue
        earlier = content_words(text)
        common = words & earlier
        if len(common) >= SAME_WORDS and len(common) >= SAME_SHARE * min(len(words), len(earlier)):
            return True
    return False


_REASON = re.compile(r"\b(?:because|so that)\b", re.I)
_EVERY_ONE = re.compile(r"\bfor\s+(?:each|every)\s+(?!(?:of|one)\b)[a-z][\w-]*", re.I)
_NOT_WHAT = re.compile(
    r"\b(?:(?:that'?s|this is) not what i (?:wanted|asked|meant)|i (?:would |'d )?rather (?:want|have))\b",
    re.I,
)
_MODAL = re.compile(r"\b(?:should|must|needs? to|has to|have to)\b", re.I)
_REFUSED = re.compile(
    r",\s*not\s+(?:just\s+|only\s+)?\S|\binstead\s+of\b|\brather\s+than\b|\bnot\s+just\s+\S", re.I
)

# A terse constraint joined to a request (issue 34, held-apart-20, -21): "git commit, push and
# open or no co-author bs", "... without pruning, fake ignores, or reducing repository scope",
# "never make draft prs". "no" counts after a clause's boundary (a comma, "and", "or"), not as a
# line's first word ("no, keep as is", "No data is showing up") nor before what it does not
# name ("no need", "no problem").
_NOT_NAMED = (
    r"(?:need|needs|problem|problems|worries|worry|thanks|idea|longer|more|matter|one|way|doubt|"
    r"luck|rush|hurry|change|changes)\b"
)
_TERSE = re.compile(
    r"(?:[,;]\s*|\b(?:and|or|but)\s+)no\s+(?!" + _NOT_NAMED + r")[a-z]"
    r"|\bwithout\s+[a-z]|(?:^|[,;.]\s*|\b(?:and|or|but)\s+)never\s+(?!mind\b)[a-z]",
    re.I,
)
_CHECKED_BACK = re.compile(r"[,.;!]\s*(?:got it|ok|okay|understood|capiche)\s*\?+\s*$", re.I)


def terse(line: Line) -> bool:
    """Is ``line`` a request with a terse constraint joined to it ("no X", "without X", "never
    do X" after a clause's boundary), or closed by a check-back ("..., got it?")?"""
    return bool(_TERSE.search(line.text) or _CHECKED_BACK.search(line.text.strip()))


SHAPES: dict[str, tuple[str, Callable[[Line], bool]]] = {
    "said again": ("a request said again in a later turn, after the answer", said_again),
    "a reason": (
        "a request with its reason (because, so that)",
        lambda line: bool(_REASON.search(line.text)),
    ),
    "every one": (
        "a request for each or every one of a kind",
        lambda line: bool(_EVERY_ONE.search(line.text)),
    ),
    "not what": (
        "a correction of what was just done (not what I wanted, I'd rather)",
        lambda line: bool(_NOT_WHAT.search(line.text)),
    ),
    "way refused": (
        "how a thing should be, against the way refused (should ..., not X)",
        lambda line: bool(_MODAL.search(line.text) and _REFUSED.search(line.text)),
    ),
    "terse": ("a terse constraint joined to a request (no X, without X, never; got it?)", terse),
}


def read(line: Line) -> bool:
    """Is ``line`` a person's request the shapes read (not a question, not pasted output)?"""
    text = line.text.strip()
    prose = sum(w in FUNCTION_WORDS for w in re.findall(r"[a-z']+", text.lower())) >= 2
    short = len(text) <= LONGEST
    asked = text.endswith("?") and not _CHECKED_BACK.search(text)
    return prose and short and not asked and not _PASTED.match(text)


def person_lines(lines: Sequence[Any]) -> list[Line]:
    """The person's lines of one transcript's dialogue, each with the lines before it."""
    before = tuple((x.speaker, x.text, x.turn) for x in lines)
    return [
        Line(x.text, x.turn, x.record, before[:i])
        for i, x in enumerate(lines)
        if x.speaker == "person"
    ]


def measure(real: Path, judgements: Mapping[str, Any], name: str) -> list[dict[str, Any]]:
    """One row per person line with a shape: the set, session, shape, text and the missed
    rule lessons at it."""
    rules = defaultdict(list)
    for row in missed(real, judgements):
        if row["lesson"].get("kind") == "rule":  # a gate-skipped one too: a shape is a signal
            rules[row["session"]].append((where(row["lesson"]), row["lesson"]["id"]))
    out = []
    for sid, session in judgements["sessions"].items():
        judged = [
            (where(x), x["id"]) for x in session.get("lessons", []) if x.get("kind") == "rule"
        ]
        for path in _transcripts(real, session):
            prepared = prepare(str(path))
            if prepared.transcript is None:
                continue
            lines = list(_dialogue(prepared.transcript.turns, DRAIN_DIALOGUE_CAP))
            for line in person_lines(lines):
                if not read(line):
                    continue
                at = [
                    lesson
                    for (unit, numbers), lesson in rules[sid]
                    if (line.turn if unit == "turn" else line.record) in numbers
                ]
                ruled = [
                    lesson
                    for (unit, numbers), lesson in judged
                    if (line.turn if unit == "turn" else line.record) in numbers
                ]
                for shape, (_about, test) in SHAPES.items():
                    if test(line):
                        out.append(
                            {
                                "set": name,
                                "session": sid,
                                "shape": shape,
                                "text": line.text,
                                "at": at,
                                "rules": ruled,
                            }
                        )
    return out


def table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Per shape: lines and sets; lines and sets at a judged rule lesson; lines, lessons and
    sets at a missed rule lesson."""
    out = []
    for shape, (about, _test) in SHAPES.items():
        mine = [r for r in rows if r["shape"] == shape]
        ruled = [r for r in mine if r.get("rules")]
        gain = [r for r in mine if r["at"]]
        lessons = {(r["set"], r["session"], lesson) for r in gain for lesson in r["at"]}
        out.append(
            f"{shape:<12} {len(mine):4d} lines in {len({r['set'] for r in mine}):2d} sets; "
            f"at a rule: {len(ruled):3d} lines in {len({r['set'] for r in ruled}):2d} sets; "
            f"at a missed rule: {len(gain):3d} lines, {len(lessons):2d} lessons in "
            f"{len({r['set'] for r in gain}):2d} sets  ({about})"
        )
    return out


def listed(r: Mapping[str, Any]) -> str:
    """A matched line under ``--list``: its shape, where, the missed rules it sits at, it."""
    mark = (
        "MISSED " + ",".join(r["at"])
        if r["at"]
        else "rule " + ",".join(r["rules"])
        if r.get("rules")
        else "-"
    )
    return (
        f"{r['shape']:<12} {r['set']}/{r['session']} [{mark}] {' '.join(r['text'].split())[:160]}"
    )


def main(argv: list[str] | None = None) -> int:
    doc = __doc__.splitlines()[0]
    return listing_main(argv, doc, measure, listed, table, "one line per person line matched")


if __name__ == "__main__":
    raise SystemExit(main())
