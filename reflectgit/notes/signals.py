"""The signal detector: which lines of dialogue might hold a lesson. Pure, regex only.

Three tiers (HIGH, MEDIUM, LOW), each one precompiled alternation of named patterns, so a line
costs at most three regex searches. Each signal carries a kind (correction, root-cause, ...)
and a category (Code Style, Architecture, Process, Domain, Tools, Security, New Skill,
Unknown). The detector reads dialogue only, never tool output, which is full of "error" and
"fixed" noise; the gate and the drain's slicer share it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from reflectgit.notes.privacy import strip_private
from reflectgit.notes.transcripts import DIALOGUE_CAP, Transcript, Turn

HIGH = "high"
MEDIUM = "medium"
LOW = "low"
TIERS = (HIGH, MEDIUM, LOW)
TEXT_CAP = 400  # characters of the line kept in a Signal

# kind -> patterns. Kind names are the reference's, kebab-cased.
_PATTERNS: dict[str, dict[str, tuple[str, ...]]] = {
    HIGH: {
        "correction": (
            r"^\s*(?:no|nope)(?:\s*[,.!]|\s*$)",
            r"\bno,?\s+(?:don'?t|do not|not that|that'?s)\b",
            r"\buse\s+\S+(?:\s+\S+){0,3}\s+instead\b",
            r"\binstead of\b.{0,120}\buse\b",
            r"\bshould(?:n'?t| not)? have\b",
            r"\bstop (?:doing|using|running)\b",
            r"\bthat'?s (?:not (?:right|correct|what)|incorrect|wrong)\b",
            r"\bwrong\b",
            r"\bincorrect\b",
            r"\bactually,? (?:use|you should|it'?s|we)\b",
        ),
        "prohibition": (
            r"\bnever\b",
            r"\bdon'?t\b",
            r"\bdo not\b",
            r"\bshouldn'?t\b",
            r"\bmust not\b",
            r"\bmustn'?t\b",
        ),
        "requirement": (r"\balways\b", r"\bmust\b", r"\bhas to be\b", r"\bis required\b"),
        "frustration": (
            r"\bi (?:already |just )?(?:told|said|asked)(?: you)?\b",
            r"\bhow many times\b",
            r"\bagain\?",
            r"\bkeep (?:making|breaking|ignoring)\b",
        ),
        "explicit-rule": (
            r"\bthe rule is\b",
            r"\bfrom now on\b",
            r"\bremember (?:to|that)\b",
            r"\bonly (?:for|in|on|within) (?:this|the|that|our) \w+",
            r"\bas a rule\b",
        ),
        "root-cause": (
            r"\broot cause\b",
            r"\bthe (?:real |actual )?(?:problem|issue|bug|culprit) (?:was|is) (?:that|caused)\b",
            r"\bcaused by\b",
        ),
        "fix-confirmed": (
            r"\bfixed (?:by|it|with|that)\b",
            r"\bthat (?:fixed|fixes|solved|solves) (?:it|the)\b",
            r"\bthe fix (?:is|was)\b",
        ),
        "decision": (
            r"\bdecided (?:to|on|against)\b",
            r"\b(?:we|i)(?:'ll| will) go with\b",
            r"\blet'?s go with\b",
            r"\bwe chose\b",
        ),
        "breakthrough": (
            r"\bturn(?:s|ed) out\b",
            r"\bthe trick (?:is|was)\b",
            r"\bfound (?:it|the (?:bug|problem|issue|cause))\b",
            r"\bfinally (?:works|working|fixed)\b",
        ),
    },
    MEDIUM: {
        "approval": (
            r"\bperfect\b",
            r"\bexactly\b",
            r"\bthat'?s (?:right|correct|it)\b",
            r"\bspot on\b",
            r"\blooks good\b",
            r"\blgtm\b",
        ),
        "positive-feedback": (
            r"\b(?:great|nice|good) (?:job|work|catch|call)\b",
            r"\bwell done\b",
            r"\bexcellent\b",
        ),
        "continuation": (
            r"\bkeep (?:doing|using|it)\b",
            r"\bcontinue (?:like|with) (?:this|that)\b",
            r"\bdo (?:it|that) (?:the same|again)\b",
        ),
        "time-investment": (
            r"\bspent (?:\d+|a few|several|many|hours|days|all)\b.{0,20}\b(?:hours?|days?|minutes?|weeks?|afternoon|morning)\b",
            r"\btook (?:me |us )?(?:\d+|hours|days|ages|forever)\b",
            r"\bwasted (?:\d+|hours|days|a day)\b",
        ),
        "docs-vs-reality": (
            r"\bundocumented\b",
            r"\b(?:the )?docs? (?:says?|are|is|claims?) (?:wrong|outdated|out of date|misleading)\b",
            r"\b(?:despite|contrary to) (?:what )?the docs?\b",
            r"\bnot in the docs?\b",
        ),
        "env-gotcha": (
            r"\bmake sure (?:to|you|that)\b",
            r"\bgotcha\b",
            r"\bwatch out\b",
            r"\bonly works (?:on|with|in|if|when)\b",
            r"\bon (?:macos|windows|linux|ci|arm64|m1)\b.{0,40}\b(?:fails?|breaks?|needs?|differs?)\b",
        ),
    },
    LOW: {
        "suggestion": (
            r"\bmaybe\b",
            r"\bperhaps\b",
            r"\bconsider\b",
            r"\bmight (?:want|be better)\b",
            r"\bhow about\b",
            r"\bwhat if\b",
        ),
        "observation": (r"\binteresting\b", r"\bnoticed\b", r"\bi see\b"),
        "tentative": (
            r"\bseems? (?:like|to)\b",
            r"\bprobably\b",
            r"\bi think\b",
            r"\bappears to\b",
        ),
        "implicit-success": (
            r"\bthat worked\b",
            r"\bit works\b",
            r"\bworks (?:now|fine|great)\b",
            r"\ball (?:\d+ )?tests? pass",
            r"\bgreen now\b",
        ),
        "tool-discovery": (
            r"\bdiscovered\b",
            r"\bswitched (?:to|from)\b",
            r"\bthere'?s an? (?:flag|option|command|tool|setting)\b",
            r"\bfound (?:a|an) (?:flag|option|command|tool|setting)\b",
        ),
    },
}

_CATEGORIES: dict[str, str] = {
    "Security": r"\b(?:password|secret|credential|token|api[ _-]?key|vault|auth\w*|permission|sudo|"
    r"cve|vulnerab\w*|encrypt\w*|tls|ssl|ssh key)",
    "Code Style": r"\b(?:format\w*|lint\w*|style|naming|indent\w*|import order|type hints?|"
    r"docstrings?|black|isort|ruff format|prettier|eslint)\b",
    "Tools": r"\b(?:pip|uv|npm|yarn|pnpm|cargo|docker|git|make|pytest|jest|vitest|brew|apt|kubectl|"
    r"psql|cli|command|flag|shell|bash|ruff|poetry|terraform)\b",
    "Architecture": r"\b(?:architecture|design|module|layer|service|api|schema|database|interface|"
    r"dependency|pattern|refactor\w*|pool|cache|queue|runtime|async)\b",
    "Process": r"\b(?:ci|review|pull request|pr|commit|deploy\w*|release|tests?|workflow|branch|"
    r"merge|rollback|staging)\b",
    "New Skill": r"\b(?:learned|discovered|til|new to me|didn'?t know)\b",
}


def _compile_tier(kinds: dict[str, tuple[str, ...]]) -> re.Pattern[str]:
    groups = [f"(?P<{kind.replace('-', '_')}>{'|'.join(alts)})" for kind, alts in kinds.items()]
    return re.compile("|".join(groups), re.IGNORECASE | re.MULTILINE)


TIER_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (tier, _compile_tier(_PATTERNS[tier])) for tier in TIERS
)
_CATEGORY_RE = re.compile(
    "|".join(f"(?P<{name.replace(' ', '_')}>{pat})" for name, pat in _CATEGORIES.items()),
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Signal:
    """One line of dialogue that matched: where, how strongly, what kind, what about."""

    line_index: int
    tier: str
    kind: str
    category: str
    text: str


def categorize(text: str) -> str:
    """The category a line is about (first keyword family found), or ``Unknown``."""
    m = _CATEGORY_RE.search(text)
    return m.lastgroup.replace("_", " ") if m and m.lastgroup else "Unknown"


def classify(line: str) -> tuple[str, str] | None:
    """``(tier, kind)`` of the strongest pattern a line matches, or None."""
    for tier, pattern in TIER_PATTERNS:
        m = pattern.search(line)
        if m and m.lastgroup:
            return tier, m.lastgroup.replace("_", "-")
    return None


def detect(lines: Iterable[str]) -> list[Signal]:
    """One ``Signal`` per line that matches any tier (the strongest tier wins)."""
    found: list[Signal] = []
    for index, line in enumerate(lines):
        hit = classify(line)
        if hit:
            found.append(Signal(index, hit[0], hit[1], categorize(line), line.strip()[:TEXT_CAP]))
    return found


@dataclass(frozen=True)
class DialogueLine:
    """A line of dialogue with the turn it came from (for slicing around signals)."""

    text: str
    role: str
    turn: int  # index into Transcript.turns
    record: int  # line number in the transcript file


def dialogue_lines(turns: Iterable[Turn], cap: int = DIALOGUE_CAP) -> Iterator[DialogueLine]:
    """Non-empty dialogue lines, private spans and harness wrappers removed, first ``cap`` chars."""
    budget = cap
    for number, turn in enumerate(turns):
        if budget <= 0:
            return
        text = turn.text[:budget]
        budget -= len(text)
        for line in strip_private(text).splitlines():
            if line.strip():
                yield DialogueLine(line, turn.role, number, turn.record)


def scan(transcript: Transcript, cap: int = DIALOGUE_CAP) -> list[Signal]:
    """Signals in a transcript's dialogue (tool calls and results are never read)."""
    return detect(line.text for line in dialogue_lines(transcript.turns, cap))


def strongest(signals: Iterable[Signal]) -> str | None:
    """The highest tier among signals, or None when there are none."""
    tiers = {s.tier for s in signals}
    for tier in TIERS:
        if tier in tiers:
            return tier
    return None
