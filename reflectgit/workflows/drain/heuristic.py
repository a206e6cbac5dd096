"""The heuristic writer: deterministic notes from a slice, with no model at all. Pure.

It looks only at the strongest signals of each chunk (a user's correction or explicit rule, a
stated root cause, a confirmed fix) and turns each chunk into at most one CREATE action in the
same shape a model returns, so the same safety rules apply. Confidence is honest: a rule a
user stated is ``medium``; what the assistant concluded on its own is ``low``. Nothing it
writes is ``high``: no model and no human has judged it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from reflectgit.notes.signals import HIGH, Signal
from reflectgit.workflows.drain.cascade import Chunk, Prepared

RULE_KINDS = ("correction", "prohibition", "requirement", "explicit-rule", "frustration")
CAUSE_KINDS = ("root-cause", "breakthrough")
FIX_KINDS = ("fix-confirmed", "decision")
MIN_WORDS = 4
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
_RULE_WORDS = re.compile(
    r"\b(always|never|must|instead|don'?t|do not|should|use|only|from now on)\b", re.I
)
_CAUSE = re.compile(r"\b(root cause|caused by|turns? out|turned out|because)\b", re.I)
_FIX = re.compile(r"\b(fixed by|the fix|switched|decided|go with|solved)\b", re.I)
_IMPERATIVE = re.compile(r"\b(always|never|must|use|instead)\b", re.I)
_CODE = re.compile(r"`([^`\n]{2,80})`")
_TOLD = re.compile(r",?\s*\bi (?:already |just )?(?:told|said|asked)(?: you)?\b.*$", re.I)
_LEAD = re.compile(
    r"^(?:no|nope|wrong approach|that'?s wrong|stop doing that|understood|the rule is)[,.!:]?\s+",
    re.I,
)


def sentences(text: str) -> list[str]:
    """Sentences of a line; a period inside a `code span` never ends one."""
    out: list[str] = []
    start = 0
    in_code = False
    for i, ch in enumerate(text):
        if ch == "`":
            in_code = not in_code
        elif ch in ".!?;" and not in_code and (i + 1 == len(text) or text[i + 1].isspace()):
            out.append(text[start : i + 1].strip())
            start = i + 1
    out.append(text[start:].strip())
    return [x for x in out if x]


def _rank(sentence: str) -> int:
    """Lower is a better rule: positive imperatives beat alternatives beat bare negations."""
    if re.search(r"\b(always|must|from now on|the rule is|never)\b", sentence, re.I):
        return 0
    if re.search(r"\binstead\b", sentence, re.I):
        return 1
    if re.search(r"^(?:please\s+)?use\b", _LEAD.sub("", sentence), re.I):
        return 2
    return 3


def _pick(text: str, pattern: re.Pattern[str]) -> str:
    """The sentence of ``text`` that best carries ``pattern``, trimmed of chatter."""
    found = [_TOLD.sub("", s).strip() for s in sentences(text) if pattern.search(s)]
    found = [s for s in found if s]
    found.sort(key=_rank)
    best = found[0] if found else text
    return _LEAD.sub("", best).strip()


def _rules(text: str) -> str:
    """Every rule-bearing sentence of a user's statement, in order (minus the scolding)."""
    keep = [
        _TOLD.sub("", _LEAD.sub("", s)).strip().rstrip(",")
        for s in sentences(text)
        if _RULE_WORDS.search(s)
    ]
    text = " ".join(k if k.endswith((".", "!", "?", ";")) else k + "." for k in keep if k)
    return text[:1].upper() + text[1:]


def _imperative(fix: str) -> str:
    """``Fixed by using X instead of Y`` -> ``Use X instead of Y``."""
    out = re.sub(r"^(?:it was )?fixed (?:it )?by using\s+", "Use ", fix, flags=re.I)
    out = re.sub(r"^(?:it was )?fixed (?:it )?by switching to\s+", "Switch to ", out, flags=re.I)
    out = re.sub(r"^(?:we |i )?decided to go with\s+", "Go with ", out, flags=re.I)
    out = re.sub(r"^all \d+ tests pass now\.?\s*", "", out, flags=re.I)
    return out


def _strip_role(text: str) -> tuple[str, str]:
    role, _, rest = text.partition(": ")
    return (role, rest) if role in ("user", "assistant") else ("", text)


def _title(sentence: str) -> str:
    title = sentence.rstrip(" .;:!")
    title = re.sub(r",?\s*i (?:already )?told you.*$", "", title, flags=re.I)
    return title[:1].upper() + title[1:] if title else title


def _lines(chunk: Chunk) -> list[tuple[str, str]]:
    return [_strip_role(line) for line in chunk.text.split("\n")]


def chunk_action(chunk: Chunk, signals: Sequence[Signal]) -> dict[str, Any] | None:
    """One CREATE for the chunk's strongest lesson, or None when it holds none."""
    lines = _lines(chunk)
    strong = [s for s in signals if s.tier == HIGH]
    if not strong:
        return None

    def text_of(sig: Signal) -> tuple[str, str]:
        offset = sig.line_index - chunk.start
        return lines[offset] if 0 <= offset < len(lines) else ("", sig.text)

    rule_sig = next(
        (s for s in strong if s.kind in RULE_KINDS and text_of(s)[0] in ("user", "")), None
    )
    cause_sig = next((s for s in strong if s.kind in CAUSE_KINDS), None)
    fix_sig = next((s for s in strong if s.kind in FIX_KINDS), None)
    rule_text = text_of(rule_sig)[1] if rule_sig else ""
    rule = _pick(rule_text, _RULE_WORDS) if rule_sig else ""
    cause = ""
    for sig in [cause_sig, rule_sig, fix_sig]:
        if sig is not None:
            found = [s for s in sentences(text_of(sig)[1]) if _CAUSE.search(s)]
            if found:
                cause = _LEAD.sub("", found[0]).strip()
                break
    fix = _imperative(_pick(text_of(fix_sig)[1], _FIX)) if fix_sig else ""
    if rule and len(rule.split()) < MIN_WORDS:
        rule = ""
    # A short reply ("only for this repo", "no") scopes a permission; it states no rule.
    if rule and len(rule.split()) < 6 and not _IMPERATIVE.search(rule):
        rule = ""
    # Without a stated rule, a cause or a fix must at least say something (a low note).
    if not rule and len((cause or fix).split()) < MIN_WORDS:
        return None
    headline = (rule or fix or cause).rstrip(";, ")
    full_rule = _rules(rule_text) if rule else ""
    from_user = bool(rule)
    problem = ""
    for role, text in lines:
        if role == "user" and text and (not rule_sig or text != text_of(rule_sig)[1]):
            problem = text
            break
    codes = [c for c in _CODE.findall(chunk.text) if "REDACTED" not in c]
    category = (rule_sig or cause_sig or fix_sig or strong[0]).category
    tags = [category.lower().replace(" ", "-")] if category != "Unknown" else []
    tags += [c.split()[0].strip("`'\"").lower() for c in codes[:3] if c.split()]
    tags = list(dict.fromkeys(tags))
    return {
        "action": "CREATE",
        "title": _title(headline),
        "key_insight": headline,
        "rule": full_rule or fix,
        "root_cause": cause,
        "fix": fix,
        "problem": problem,
        "confidence": "medium" if from_user else "low",
        "confidence_num": 0.6 if from_user else 0.4,
        "learning_type": "correction" if from_user else "bug-fix",
        "category": category if category != "Unknown" else "general",
        "tags": tags,
        "entities": [{"name": c, "type": "code"} for c in dict.fromkeys(codes[:4])],
    }


def write(prepared: Prepared) -> dict[str, Any]:
    """The heuristic writer's answer for a prepared entry: ``{"actions": [...]}``."""
    actions = []
    seen: set[str] = set()
    for chunk in prepared.chunks:
        action = chunk_action(chunk, chunk.signals)
        if action is None:
            continue
        key = action["title"].lower()
        if key in seen:
            continue
        seen.add(key)
        actions.append(action)
    return {"actions": actions}
