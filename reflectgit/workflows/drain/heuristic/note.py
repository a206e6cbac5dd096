"""One note as a CREATE action: its title, rule, evidence and tags, and what reads them back.
Pure.

Every note has a title that is a rule with its subject ("Don't produce code, design solution
first"; "`:opentelemetry.set_text_map_propagators/1` undefined: configure propagators via the
application environment"), the rule, and the evidence (the words it came from and what the
assistant had just done). Confidence is honest: a rule a person stated is ``medium``; a plain
rejection without a rule, a rule without a clear subject and whatever the assistant
concluded on its own are ``low``. Nothing it writes is ``high``. Reworded twins within one
answer ("Use X instead of Y" next to "Instead of Y, use X") are one note (``twins``), and so are
two causes naming one code thing or two rules telling one act. A note that speaks of this turn
rather than stating a lesson for later is none (``no_lesson``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from reflectgit.notes.generality import (
    about_this_turn,
    announces_what_follows,
    narrates_events,
    own_account,
    quotes_its_point,
)
from reflectgit.notes.memoryfiles import is_heading
from reflectgit.notes.signals import LOW, MEDIUM
from reflectgit.workflows.drain.heuristic.wording import _CODE, _NAMED, _cap, _words
from reflectgit.workflows.kb.twins import same_act

TWIN_OVERLAP = 0.7  # shared significant words over the smaller set: the same lesson


def _strip_role(text: str) -> tuple[str, str]:
    role, _, rest = text.partition(": ")
    return (role, rest) if role in ("user", "assistant") else ("", text)


def _title(sentence: str) -> str:
    title = sentence.rstrip(" .;:!")
    title = re.sub(r",?\s*i (?:already )?told you.*$", "", title, flags=re.I)
    return _cap(title) if title else title


def twins(a: str, b: str) -> bool:
    """Two texts state the same lesson: most significant words shared, or the same code."""
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return False
    shared = len(wa & wb) / min(len(wa), len(wb))
    if shared >= TWIN_OVERLAP:
        return True
    ca, cb = set(_CODE.findall(a)), set(_CODE.findall(b))
    return bool(ca & cb) and shared >= 0.5


def _evidence(quote: str, who: str) -> str:
    """The words the note came from (what the assistant had just done is its ``problem``)."""
    return f"Said by the {who}: “{quote.strip()[:400]}”"


# The words a note came from, as ``_evidence`` wrote them at the head of its body.
_EVIDENCE = re.compile(r"^Said by the (?P<who>[^:“]+): “(?P<quote>.*?)”", re.S)


def _same_turn(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Do two notes come from the same words of the person's (the turn their bodies quote)?"""
    qa = _EVIDENCE.match(str(a.get("body") or ""))
    qb = _EVIDENCE.match(str(b.get("body") or ""))
    if (
        qa is None
        or qb is None
        or not (qa["who"].startswith("person") and qb["who"].startswith("person"))
    ):
        return False
    return " ".join(qa["quote"].split()) == " ".join(qb["quote"].split())


def said_by(action: Mapping[str, Any]) -> str:
    """Who said the words a note came from ("person", "assistant", "person, relaying ..."),
    as ``_evidence`` wrote it into the body."""
    m = _EVIDENCE.match(str(action.get("body") or ""))
    return m.group("who") if m else ""


# An option alone, as a fix names it: `--resource`, `-w`.
_OPTION = re.compile(r"^`?--?\w[\w-]*(?:=\S*)?`?$")


def options_only(action: Mapping[str, Any]) -> bool:
    """Is every thing a fix note names an option, with no command, file or other name beside
    it ("Remove the `--resource` flag")? An option means something only to the command it is
    given to: out of its session such a note does not say what to change, and the same option
    may be right for another command (`--resource` is `juju deploy`'s, not `charmcraft
    pack`'s). A note naming the command as well ("Use `./gradlew build --configuration-cache`",
    "pass `--frozen` to `uv sync`") is not this, nor one whose option is a word of its prose
    beside the command ("... corrupted the go test -json stream"); a note naming nothing is
    left to the others."""
    if action["learning_type"] != "bug-fix":
        return False
    said = " ".join(str(action.get(k) or "") for k in ("title", "root_cause", "fix"))
    spans = _CODE.findall(said)  # what the note quotes as code: an option, if that is all
    named = _NAMED.findall(said)  # and nothing else named in its prose (a path, a name)
    return bool(spans) and all(_OPTION.match(n) for n in [*spans, *named])


def no_lesson(action: Mapping[str, Any]) -> str:
    """Why a candidate note speaks of this turn rather than stating a lesson for later
    (``notes/generality``), or ``""``. A person's rule must not be a remark on this turn's
    output or a recount of this exchange; a cause the assistant found must not be its account
    of its own work. Every path to a note passes here, so a kind of junk one reader lets by
    is caught the same way as from the others."""
    # Every statement of the note, not its fix alone: a person's rule or a title that leads in
    # to a block ("... must begin with the following front matter block:") is the lead-in
    # without what it announces, whoever said it (``announces_what_follows``).
    for field in ("title", "rule", "root_cause", "fix"):
        if announces_what_follows(str(action.get(field) or "")):
            return f"its {field.replace('_', ' ')} only announces what follows, which the note does not carry"
    if options_only(action):
        return "it names an option without the command it is given to"
    # A markdown heading ("## Phase 10 Audit: Findings", "## X: 47/100 — most of it is one
    # root cause") is a document's structure, the label of a section whose statements follow
    # in lines the note does not carry: never a statement, whoever wrote it.
    if is_heading(str(action["title"])):
        return "its title is a heading of a document, not a statement"
    who = said_by(action)
    if who.startswith("assistant") and quotes_its_point(str(action["title"])):
        return "its point is a quotation: the source's words, not the session's finding"
    if action["learning_type"] == "correction" and who.startswith("person"):
        return about_this_turn(str(action["title"]))
    # A cause that only narrates what the session's people did ("Someone hardened X
    # meanwhile", "Pulled latest main and built it") is how the work went, not what the code
    # does: no cause, whoever tells it (issue 34: the assistant's account of the work read as
    # a cause, in the first runs of ten sets; this reads its history form by tense and actor).
    if action["learning_type"] == "bug-fix" and narrates_events(
        str(action.get("root_cause") or "")
    ):
        return "its cause narrates what happened in the session, not what the code does"
    if action["learning_type"] == "bug-fix" and who.startswith("assistant"):
        cause = str(action.get("root_cause") or "")
        # with no cause apart from its fix, the note is titled by the fix ("The fix is to X")
        return own_account(cause or str(action["title"]), cause=bool(cause))
    return ""


def _tags(category: str, codes: Sequence[str]) -> list[str]:
    tags = [category.lower().replace(" ", "-")] if category != "Unknown" else []
    tags += [c.split()[0].strip("`'\"").lower() for c in codes[:3] if c.split()]
    return list(dict.fromkeys(tags))


def _action(
    *,
    title: str,
    rule: str,
    quote: str,
    before: str,
    who: str,
    confidence: str,
    learning_type: str,
    category: str,
    cause: str = "",
    fix: str = "",
    confirmed: str = "",
    asked: str = "",
) -> dict[str, Any]:
    codes = [c for c in _CODE.findall(f"{title} {rule} {quote}") if "REDACTED" not in c]
    # A markdown heading ("## Root Cause") labels the section after it: it is never a field's
    # value, whatever line of a report a reader took it from.
    cause, fix = ("" if is_heading(x) else x for x in (cause, fix))
    body = _evidence(quote, who) + (f"\n\nConfirmed by {confirmed}." if confirmed else "")
    return {
        "action": "CREATE",
        "title": _title(title),
        "key_insight": _title(title),
        "rule": rule,
        "root_cause": cause,
        "fix": fix,
        "problem": (
            f"Right after the person asked: “{asked.strip()[:300]}”"
            if asked
            else f"Right after the assistant said: “{before.strip()[:300]}”"
            if before
            else ""
        ),
        "body": body,
        "confidence": confidence,
        "confidence_num": {MEDIUM: 0.6, LOW: 0.4}[confidence],
        "learning_type": learning_type,
        "category": category if category != "Unknown" else "general",
        "tags": _tags(category, codes),
        "entities": [{"name": c, "type": "code"} for c in dict.fromkeys(codes[:4])],
    }


def _bug_fix(
    cause: str,
    fix: str,
    *,
    quote: str,
    before: str,
    who: str,
    confidence: str,
    category: str,
    confirmed: str = "",
) -> dict[str, Any]:
    """A bug-fix note of a cause and its fix (``""`` when none was said): titled "cause: fix",
    its rule the fix."""
    return _action(
        title=f"{cause}: {fix[:1].lower() + fix[1:]}" if fix else cause,
        rule=(_cap(fix) + ".") if fix else "",
        quote=quote,
        before=before,
        who=who,
        confidence=confidence,
        learning_type="bug-fix",
        category=category,
        cause=_cap(cause) + ".",
        fix=(_cap(fix) + ".") if fix else "",
        confirmed=confirmed,
    )


def same_cause(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Two causes the assistant found in one session that name the same code thing (a code
    span of its words: "the test JSONL doesn't include `uuid` fields" and "the `uuid` field
    is auto-generated") are one lesson told twice. A person's rules are never merged so."""
    if a["learning_type"] != "bug-fix" or b["learning_type"] != "bug-fix":
        return False
    return bool(_cause_codes(a) & _cause_codes(b))


def told_again(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Two rules the person gave in one session that tell the same act (``kb.twins.same_act``:
    the same verb, negated on both or neither, done to the same things) are one rule said
    again in other words ("do not create any pr or issue without my approval", later "do
    not open issues or prs or commit"), though they share too few words for ``twins``. Only
    the person's rules: a cause or a fix the assistant found, or a finding the person relays,
    is one lesson by what it names (``same_cause``), not by its verb."""
    return all(
        said_by(n).startswith("person") and n["learning_type"] != "bug-fix" for n in (a, b)
    ) and same_act(str(a["title"]), str(b["title"]))


def _same_code(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Do two notes name one code thing (a code span of their titles and rules)?"""
    return bool(_codes(f"{a['title']} {a['rule']}") & _codes(f"{b['title']} {b['rule']}"))


def _codes(text: str) -> set[str]:
    return {c.strip().lower() for c in _CODE.findall(text) if re.search(r"[a-z]{3}", c, re.I)}


def _cause_codes(action: Mapping[str, Any]) -> set[str]:
    return _codes(str(action.get("root_cause") or action["title"]))
