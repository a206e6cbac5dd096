"""The signal detector: which lines of dialogue might hold a lesson. Pure, regex only.

Three tiers (HIGH, MEDIUM, LOW), each one precompiled alternation of named patterns, so a line
costs at most three regex searches. Each signal carries a kind (correction, root-cause, ...)
and a category (Code Style, Architecture, Process, Domain, Tools, Security, New Skill,
Unknown). The detector reads dialogue only, never tool output, which is full of "error" and
"fixed" noise, and never text the harness injected; the gate and the drain's slicer share it.
Who said a line decides what it can carry (``classify``): a person's words anything, the
assistant's a root cause or a fix at MEDIUM at most.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from reflectgit.notes.lazyre import Pattern
from reflectgit.notes.memoryfiles import IMPERATIVES, fact_from_person
from reflectgit.notes.privacy import strip_private
from reflectgit.notes.transcripts import ASSISTANT, DIALOGUE_CAP, INJECTED, PERSON, Transcript, Turn

if TYPE_CHECKING:
    from reflectgit.notes.commandruns import Ran
    from reflectgit.notes.toolwork import ToolWork

HIGH = "high"
MEDIUM = "medium"
LOW = "low"
TIERS = (HIGH, MEDIUM, LOW)
TEXT_CAP = 400  # characters of the line kept in a Signal

# What a verdict on a fix says of it ("the fix is sound", "the fix is correct regardless"): no
# fix is named.
_VERDICT = (
    r"(?:sound|correct|right|good|fine|ok(?:ay)?|solid|safe|complete|minimal|working|in place|"
    r"valid|clean|done|applied|ready|verified|reasonable|appropriate|straightforward|simple|"
    r"wrong|incomplete|broken)"
)

# A directive that draws its own limit (issue 34, recall): a clause led by an imperative (a verb
# of ``memoryfiles.IMPERATIVES``, the one list of what opens a rule) or by "we should", that
# says what it stops at or what it refuses, "only", "X instead of Y", "rather than", "other
# than", "but not", "X, not Y", "without", "out of": "Add a README into the e2e dir instead of
# in the global README", "Do a proper explanation only of the things you know, not anything
# you cannot verify", "Do not use it with any repositories other than X", "We should only run
# entire explain on unique commits". A plain request ("add a README", "make the file shorter")
# names this task's next step; the limit is the part that outlives it, what the assistant is
# not to cross, the way "use X, not Y" refuses Y (the corrections above, for "use" alone). Not
# a question (cut before the tiers read a line), not "let's ...", which proposes this task's
# next step together ("Let's pause, ... without any wrapper script"), not a quoted or pasted
# line (">"), not a verb whose subject follows it ("do you only ..."). The clause opens a
# sentence, or follows a comma and "but", "so", "and", "then" ("Not sure it's obvious, but we
# should only run X on unique commits").
_LEADS = r"(?:(?:ok(?:ay)?|yes|yep|so|also|and|then|now|please|just|but),?\s+)*"
_DIRECTIVE_VERB = "|".join(
    sorted((v for v in IMPERATIVES if v.isalpha() and v not in ("must", "should")), key=len)[::-1]
)
_IN_CLAUSE = r"(?:[^.!?;\n]|[.](?=\S))"  # a clause's text; a dot inside a name does not end it
BOUNDED_DIRECTIVE = (
    rf"(?:^|(?<=[.!;])\s+|(?<=,)\s+(?=(?:but|so|and|then|also)\s))[\s*_-]*{_LEADS}"
    rf"(?:we\s+should\s+|(?:{_DIRECTIVE_VERB})\s+(?!(?:you|it|we|they|i|there)\b)(?=\w))"
    rf"{_IN_CLAUSE}*?(?:\bonly\b|\binstead\s+of\b|\brather\s+than\b|\bother\s+than\b|"
    rf"\bout\s+of\b|\bbut\s+not\b|,\s*not\s+\w|\bwithout\b)"
)

# A request that says how the work lands in the repository (issue 34, recall): the commit
# message's convention, the commits it is split into, the pull request it goes through ("Commit
# these changes with conventional commit message", "add the minimal fix in one commit, then
# test it in another commit", "Raise clean pull requests for each change, using conventional
# commit titles", "follow the workflow to get our changes merged, via PR"). The change is this
# task's; how it is committed or merged is the repository's way for every change, the part that
# outlives the request, as a limit does (``BOUNDED_DIRECTIVE``). Not a plain "commit and push"
# (no way said), not a report of what was pushed ("I published via `bun release:manual`"), and
# not a question (cut before the tiers read a line).
LANDS_BY = (
    r"(?:\b(?:commit|push|merge|raise|open|create|squash|add|land)\b"
    r"|\bget\s[^.?!;\n]{0,40}?\bmerged\b)[^.?!;\n]{0,60}?"
    r"\b(?:(?:with|using|in)\s+(?:a\s+|the\s+)?conventional[\s-]commits?\b"
    r"|in\s+(?:one|a single|its own|a separate|separate|another)\s+commits?\b"
    r"|(?:via|through)\s+(?:a\s+|the\s+)?(?:prs?|pull\s+requests?)\b)"
)
_LANDS_BY_RE = Pattern(LANDS_BY, re.IGNORECASE | re.MULTILINE)


def says_how_it_lands(sentence: str) -> bool:
    """Does ``sentence`` say how the work is committed or merged ("Commit these changes with
    conventional commit message")? (``LANDS_BY``; questions are the caller's to leave out.)"""
    return bool(_LANDS_BY_RE.search(sentence))


# A bug the assistant names as the one it found (issue 34, recall): "that was a real bug.",
# "There's a small bug in the `getInitials` function.", "Copilot flagged the same real issue:
# ...", "There is also a real product issue here: ...". The qualifier (real, small, subtle,
# latent, ...; one word may stand between it and "bug") picks out one particular bug, where "the issue"
# or "this problem" names the topic of the work; what it is follows on the same line, after a
# colon or a dash, or in the next sentence (the writer's reading). Not a list's label ("The
# second issue:"), not "the same issue" again, not a question ("Is this a real bug?").
NAMED_BUG = (
    r"\b(?:a|the)\s+(?:(?:same|second|third|other|separate)\s+)?"
    r"(?:small|real|subtle|genuine|latent|underlying)\s+"
    r"(?:[\w-]+\s+)?(?:bug|issue|problem)\b"
    r"(?:\s+(?:in|with|here|from)\b[^:.?!\n\u2013\u2014]{0,80})?(?=\s*(?:[:.!\u2013\u2014]|$))"
)
# The tier (``_PATTERNS``, HIGH, ``rule``) compiles it at import as one of its alternatives;
# a search of the tier cannot say whether this one matched (at a position the first alternative
# that matches wins), so ``draws_a_limit`` asks it alone, compiled when first asked: a process
# that never asks (a hook) compiles it once, in the tier.
_BOUNDED_RE = Pattern(BOUNDED_DIRECTIVE, re.IGNORECASE | re.MULTILINE)


def draws_a_limit(sentence: str) -> bool:
    """Is ``sentence`` a directive that says what it stops at or refuses ("Add a README into
    the e2e dir instead of in the global README")? (``BOUNDED_DIRECTIVE``; questions are the
    caller's to leave out.)"""
    return bool(_BOUNDED_RE.search(sentence))


# kind -> patterns. Kind names are the reference's, kebab-cased. Every pattern has positive and
# negative examples in tests/test_signals.py. These are read in a person's words only (see
# ``classify`` for the assistant's lines; injected text is never read).
_PATTERNS: dict[str, dict[str, tuple[str, ...]]] = {
    HIGH: {
        "correction": (
            # "no, use X" / "no, don't X": a rejection that names the way to go
            r"^\s*(?:no|nope)\s*[,.!:;-]?\s+(?:use|run|call|put|do|try|that'?s not|"
            r"don'?t|dont|do not|never|always|instead|just)\b",
            r"^\s*(?:no|nope)\s*[,.!:;-]\s*(?:it'?s|we|you)\b",
            # "no python, use typescript", "no classes — use functions": a thing refused, then
            # the way to go
            r"^\s*(?:no|nope)\s+\S+?(?:\s+\S+?){0,3}?(?:\s*[,;:]|\s+[-–—])\s*(?:use|run|call|put|"
            r"try|make|hit|keep|revert|move|switch to|go with|stick (?:to|with))\b",
            # "use pnpm, not npm", "use 127.0.0.1 not localhost", "actually npm, not pnpm"
            r"\buse\s+\S+(?:\s+\S+){0,3}?,?\s+not\s+(?!(?:only|just|sure|because|yet|now)\b)\S",
            r"^\s*(?:actually|rather)\b,?\s+\S+(?:\s+\S+){0,2}?,\s+not\s+\S",
            # "use python3.11 instead of python3.9", "use ./gradlew instead of gradle"
            r"\buse\s+\S+(?:\s+\S+){0,3}\s+instead\b",
            # "instead of setup.py, use pyproject.toml"
            r"\binstead of\b.{0,120}\buse\b",
            # "try uv instead"
            r"\btry\s+\S+(?:\s+\S+){0,3}\s+instead\b",
            # "you should have run the linter" (a subject, and not a question)
            r"\b(?:you|we|i|it|that|this) should(?:n'?t| not)? have\b(?![^.?!\n]*\?)",
            # an imperative "stop <doing>" ("stop refactoring unrelated code", "you need to stop
            # using print"), not a report ("the tests stop running when ...")
            r"(?:^|[.!?;:,]\s*|\b(?:please|and|but|so|just|then|also|now|let'?s|to|you|we)\s+)"
            r"stop\s+[a-z]+ing\b",
            r"\bactually,? (?:use|you should|it'?s|we)\b",
            # "no, ..." in other languages: "non, utilise ...", "нет, используй pnpm", "nein, ..."
            r"^\s*(?:non|nein|нет|não|nee)\s*[,.!:;-]\s*(?!(?:спасибо|merci|danke|obrigado|"
            r"bedankt)\b)\w",
            # Chinese, Japanese and Korean: "not X but Y", "wrong", "stop it", "I said ..."
            # (no \b: these scripts have no spaces between words)
            r"じゃなくて|ではなくて|じゃない[、。!！]|違う[、。!！]|間違って(?!(?:い)?ない|ません)|"
            r"やめて|って言ったのに",
            r"^\s*不是[，,]|(?<!没)错了|不对[，,。!！]|^\s*아니[,，]|(?<!뿐만 )(?<!뿐 )아니라",
            # "there is existing logic for scanning history": what to reuse, not rebuild
            r"\b(?:there(?:'s| is| are)|we(?:'ve got| have| already have))\s+(?:already\s+)?"
            r"(?:an?\s+|some\s+)?existing\s+(?:logic|code|implementation|function|helper|"
            r"method|module|class|util\w*|tool|script|mechanism)s?"
            r"(?=\s+(?:for|to|in|which|that (?:already )?(?:handles?|does|tracks?|reads?|scans?|"
            r"creates?|finds?|builds?|parses?|checks?|covers?))\b|\s*(?:[.,;!]|$))",
            # "we don't control claude code - it's a third-party tool": what is not ours to change
            r"\bwe (?:don'?t|do not|can'?t|cannot) (?:control|own|modify|change)\s+(?!it\b)\w",
        ),
        "prohibition": (
            # "never use X", not a report of what was never done ("incremented but never
            # asserted", "it has never been called")
            r"\bnever\b(?!\s+(?:been|(?![a-z]*(?:eed|embed|shred)\b)[a-z]{2,}ed)\b)",
            # an imperative "don't": at the start of a sentence or clause, not "I don't know"
            r"(?:^|[.!?;:,(]\s*|\b(?:please|and|but|so|just|then|also)\s+)(?:don'?t|dont|do not)\s+\w",
            r"\bshould(?:n'?t| not)\b",
            # a design the team keeps: "we don't want to play catch up with new hook types"
            r"\bwe (?:really )?(?:don'?t|do not) want (?:to|any|our|the|a|an)\b",
            # the same refusal in the person's own voice, of what the assistant would do or of a
            # named thing: "i don't want you to push", "i don't want to open issues or prs
            # directly or have you do it", "ok i don't want `cargo update`, remove that from
            # release-plz". Inside a longer request it is the part that outlives the task (over
            # the fourteen tune sets' person sentences, both that say it are standing rules).
            # Not the person's wish about their own time ("I don't want to wait for the build")
            # nor a question (left out before the tiers are read).
            r"\bi (?:really )?(?:don'?t|dont|do not) want (?:(?:you|claude|anyone) to\s+\w|`"
            r"|to\s[^.?!\n]*\b(?:have|let|get) you\b)",
            r"\bmust not\b",
            r"\bmustn'?t\b",
            # "leave the existing code alone"
            r"(?:^|[.!?;:,]\s*|\b(?:please|just|and|but|so)\s+)leave\s+(?:\S+\s+){1,4}?alone\b",
        ),
        "requirement": (
            r"\balways\b",
            r"\bmust\b",
            r"\bhas to be\b",
            r"\bis required\b",
            # "you should use type hints" (a question is no rule: see ``_QUESTION``)
            r"\b(?:you|we) should\s+(?:always\s+|never\s+)?(?:use|run|call|keep|"
            r"put|add|avoid|prefer|write|check|pin|set)\b",
            # "need to" as a directive, its subject opening the clause: the person tells the
            # assistant how to work ("you'll need to be in a worktree so we don't collide"),
            # or states a standard for every thing of a kind ("every new file needs to have a
            # comment citing the ticket"). Not "we need to ...", most often this task's next
            # step ("we need to fix this bug"); not a hypothesis ("if you need to", "you
            # might need to", "you'd need to"), a hedge ("I think you need to"), a negation
            # ("you don't need to", "no need to"), nor a report on one thing ("these files
            # need to be formatted").
            r"(?:^|[.!;:]\s+|\b(?:so|and|but|then|also)\s+)(?:you(?:'ll|ll|\s+will)?"
            r"|(?:every|each|all|any)\s[^.?!;:\n]{1,80}?)\s+needs?\s+to\s+\w",
        ),
        "frustration": (
            r"\bi (?:already |just )?(?:told|said|asked)(?: you)?\b",
            r"\bi meant\b(?!\s+to\b)",
            r"\bhow many times\b",
            r"\bagain\?",
            r"\bkeep (?:making|breaking|ignoring)\b",
        ),
        "explicit-rule": (
            r"\bthe rule is\b",
            r"\bfrom now on\b",
            r"\bremember (?:to|that)\b",
            r"\bremember\s*:",
            # "only change what I asked", "only make minimal changes"
            r"(?:^|[.!?;:,]\s*|\b(?:please|just|and|but|so)\s+)only\s+(?:change|touch|edit|modify|"
            r"make|fix)\b",
            r"\bonly (?:for|in|on|within) (?:this|the|that|our) \w+",
            r"\bas a rule\b",
            # "answer in english please": the language every answer is in
            r"\b(?:answer|respond|reply|write|talk|speak)(?: to me)? in (?:english|german|french|"
            r"spanish|russian|japanese|chinese|korean|portuguese|italian|dutch|polish|ukrainian)\b",
            # "keep in mind that the new file is in the same folder", "important not to commit
            # until the final step" (not "important to me", not "an important feature")
            r"\bkeep in mind\b",
            r"\bimportant (?:not )?to\s+(?!(?:me|us|you|him|her|them|know)\b)\w",
            BOUNDED_DIRECTIVE,
            LANDS_BY,
        ),
        "root-cause": (
            # "the root cause is X", not a request for one ("root cause analysis and solve")
            r"\broot cause\b(?!\s*(?:analy[sz]\w*|it|this|that|of this|and fix)\b)",
            # "the bug was X", "the problem was X", "the issue is that X"
            r"\bthe (?:real |actual )?(?:problem|issue|bug|culprit) (?:was|is)\b"
            r"(?!\s+(?:not|now|still|fixed|solved|resolved|gone|here|there)\b)(?=\s+\S|\s*:)",
            r"\bcaused by\b",
            NAMED_BUG,
            # "So X returns Y, not Z. That's the bug": the cause is what was just said
            r"\bthat'?s (?:the|our) (?:real |actual )?(?:bug|problem|issue|cause|culprit)\b"
            r"(?!\s*\?)",
            # a report's section per cause, its heading the cause ("### Bug 2: Missing `exec`
            # import in load-test.js", "### Root Cause 1 (Primary): X is hardcoded"): not a
            # heading that only labels what follows ("## Root Cause Analysis")
            r"^\s*#{1,6}\s*(?:the\s+)?(?:root\s+cause|bug|issue|problem)(?:\s+#?\d+)?"
            r"(?:\s*\([^)\n]{1,20}\))?\s*:\s*\S",
        ),
        "fix-confirmed": (
            r"\bfixed (?:by|it|with|that)\b",
            r"\bthat (?:fixed|fixes|solved|solves) (?:it|the)\b",
            # "the fix is to use X", not a verdict on it ("the fix is sound")
            r"\bthe fix (?:is|was)\b(?!\s+(?:still\s+|now\s+)?(?:not\s+)?" + _VERDICT + r"\b)",
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
            r"\bfound (?:it|the (?:real |actual )?(?:bug|problem|issue|cause))\b",
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
            r"\blove it\b",
            r"\bnailed it\b",
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
            r"\b(?:in (?:the )?future|next time|going forward)\b",
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
        # How something should behave ("Prompt output should honor injected writers"), as a
        # finding the person relays states it: worth a writer's look, never a rule by itself.
        # Said of a thing, not of us ("we should look at the logs"), and not asked.
        "expected": (
            r"^[^?]*?\b(?!(?:we|you|i|it|this|that|what|how|why|when|where|which)\b)"
            r"[a-z][\w-]*\s+(?:should|must)\s+(?:not\s+|never\s+|always\s+)?(?!be\b|have\b)"
            r"[a-z]+[^?]*$",
        ),
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

# A person's reply right after an assistant turn that rejects or redirects what it did, without
# a signal word: a correction candidate at LOW (a rule stated in the same line outranks it).
PLAIN_CORRECTION = "correction"
_PLAIN_CORRECTIONS: tuple[str, ...] = (
    r"^\s*(?:no|nope)\s*(?:[,.!:;-]|$)",
    # A bare "no <thing>" refuses it ("no semicolons in this codebase", "no with venv"), unless
    # its first clause is a report ("no tests ran", "no dialog appeared", "no it works now") or
    # a pleasantry ("no idea", "no need").
    r"^\s*(?:no|nope)\s+(?!(?:idea|need|one|way|longer|more|matter|doubt|luck|clue|thanks?)\b)"
    r"(?![^.,;!?\n]{0,40}?\b(?:\w+ed|ran|came|went|were|was|is|are|found|shows?|happened|works?|"
    r"looks?|seems?|can|could|will|would|think)\b)\w",
    r"\b(?:is|are|was) (?:wrong|incorrect)\b",
    r"\bbad idea\b",
    r"\bnot like (?:this|that)\b",
    r"\b(?:that'?s|this is|it'?s|that is|this was|that was) (?:wrong|incorrect|"
    r"not (?:right|correct|it|what i (?:asked|meant|wanted)))\b",
    r"\bwrong (?:approach|file|place|way|direction|command|path|answer|version|branch)\b",
    r"\b(?:it'?s|this is|that'?s|it is) not (?:an? )?[\w./-]+ (?:file|format|command|function|"
    r"module|package|class|method|type|tool|folder|directory)\b",
    r"\bnot what i (?:asked|meant|wanted)\b",
    r"\bi didn'?t ask\b",
    r"\bwhy did you\b",
    r"\b(?:revert|undo) (?:that|this|it|the change)\b",
    r"\b(?:is|are) not (?:valid|acceptable|accepable|correct|right|needed|necessary)\b",
    r"\bnot (?:valid|acceptable|accepable) to\b",
    r"\b(?:there is|there'?s) no need\b",
)

# Phrases that look like a signal but are none ("No, don't worry, that's fine."): cut out of a
# line before the patterns read it.
_NOT_SIGNALS = re.compile(
    r"\b(?:don'?t|dont|do not) (?:worry|mind|bother)\b|\bno (?:worries|problem|thanks|rush)\b"
    r"|\bnever ?mind\b|\b(?:i|we|you)(?:'ve| have| had)? never (?:seen|heard|used|had)\b"
    r"|\b(?:i|we) (?:don'?t|do not) (?:know|think|understand|see|get|remember|care)\b",
    re.IGNORECASE,
)

# A reply that accepts what was done is no rejection, whatever it starts with.
_ACCEPTED = re.compile(
    r"\b(?:that'?s|it'?s|this is|that is) (?:fine|ok|okay|good|alright|great)\b", re.IGNORECASE
)

# Reactions: praise, a success noticed, a hunch or a suggestion. One counts only when the line
# says what about ("Perfect, the retry helper is what I wanted"): a bare "Perfect!", "no, it
# works now, thanks" or "maybe tabs?" names nothing to keep, and praise that turns to the next
# task ("Perfect! Now let's add the column") is a request, not feedback.
REACTION_KINDS = frozenset(
    ["approval", "positive-feedback", "implicit-success", "tentative", "suggestion", "observation"]
)
_PIVOT = re.compile(
    r"\b(?:now,?\s+(?:let'?s|we need to|we should|can you|could you|please)|"
    r"let'?s\s+(?!(?:keep|stick|always|never|not)\b)\w+|can you|could you|would you)\b",
    re.IGNORECASE,
)
_CONTENT_WORD = re.compile(r"[A-Za-z][\w.+#/'-]*")
_FILLER = frozenset(
    [
        "the",
        "and",
        "but",
        "for",
        "you",
        "your",
        "that",
        "that's",
        "this",
        "it's",
        "its",
        "what",
        "was",
        "were",
        "are",
        "now",
        "thanks",
        "thank",
        "please",
        "done",
        "today",
        "just",
        "all",
        "yes",
        "yeah",
        "yep",
        "sure",
        "okay",
        "good",
        "great",
        "nice",
        "cool",
        "fine",
        "work",
        "works",
        "worked",
        "think",
        "really",
        "very",
        "much",
        "with",
        "can",
        "will",
        "we're",
        "i'm",
        "you're",
        "let",
        "let's",
        "here",
        "there",
        "then",
        "also",
        "one",
        "too",
        "want",
        "wanted",
        "exactly",
        "right",
        "perfect",
        "looks",
        "look",
        "seems",
        "like",
        "some",
        "any",
        "out",
        "got",
        "get",
        "did",
        "does",
        "not",
        "no",
        "nope",
        "again",
        "so",
        "well",
        "way",
        "thing",
        "things",
    ]
)
MIN_REACTION_WORDS = 2  # words that name something, besides the reaction itself

# A question states no rule and corrects nothing ("What should have happened here?"); only its
# exasperated forms are a signal ("...again?"). LOW kinds (hunches, suggestions) may be asked.
_QUESTION = re.compile(r"[^.!?\n]*\?+(?=\s|$)")
# A question asked without its mark: a sentence that opens with the verb before its subject
# ("Is it implemented already I meant.", "do we run the suite on CI"). (A request, "can you
# ...", is read by ``_REQUEST``; "Do not push", "Do run it" have no subject after the verb.)
_UNMARKED_QUESTION = re.compile(
    r"(?:^|(?<=[.!;]\s))\s*(?:is|are|was|were|am|do|does|did|have|has|had|should|shall)\s+"
    r"(?:it|you|we|they|i|he|she|this|that|there|these|those)\b[^.!?\n]*[.!]*",
    re.IGNORECASE | re.MULTILINE,
)
# A request to the assistant ("can you review the change in this branch, ... but don't change
# the tree", "help me diagnose ...") asks for work: the words of the task are no rule, unless it
# asks for one that lasts ("can you always run X before Y", "could you never push to main").
_REQUEST = re.compile(
    r"(?:^|(?<=[.!?;]\s))\s*(?:(?:ok(?:ay)?|so|and|also|now|hey|then|great|thanks),?\s+)*"
    r"(?:(?:can|could|would|will)\s+(?:you|we)|help\s+me)\b[^.!?\n]*(?:[.!?]+|$)",
    re.IGNORECASE | re.MULTILINE,
)
# The words that give a way of working a time beyond the task at hand (the drain's writer
# reads them too, in the person's instructions and the assistant's commitments).
LASTING = r"from now on|every time|each time|going forward|in (?:the )?future"
_LASTING = re.compile(rf"\b(?:always|never|{LASTING})\b", re.I)
# A person's turn that asks the assistant to look into something reports a problem: "the issue
# was that ..." there is the symptom, not a cause anyone found.
_ASKS = re.compile(r"\?|\b(?:can|could|would) you\b|\bhelp me\b", re.IGNORECASE)
_EXASPERATED = re.compile(r"\bagain\?|\bhow many times\b", re.IGNORECASE)

# A slash command's text ("/loop use the artifact URL", "/reflect --dry-run") invokes a skill:
# it is no feedback. A path ("/etc/hosts is wrong") is none of that.
_SLASH_COMMAND = re.compile(r"^\s*/[A-Za-z][\w:.-]*(?=\s|$)")

# A cause the assistant states without a cause word: what is missing, not configured, not
# reachable or not supported ("The test config is missing `secret_key_base`", "The LiveView
# runs in a separate process that can't access the test sandbox", "Need `lazy_html` as a test
# dependency"). Not "I can't find the file" (its own search) nor a question.
DIAGNOSIS = "diagnosis"
DIAGNOSIS_RE = re.compile(
    r"^(?![^.]*\?\s*$)(?!\s*(?:i|i'm|let me|we|we're)\b)(?:.*?\b(?:is|are) missing\b"
    r"|.*?\b(?:isn'?t|is not|aren'?t|are not|wasn'?t|was not) (?:configured|set up|defined|"
    r"registered|loaded|installed|started|exported|supported|available)\b"
    r"|.*?\b(?:can'?t|cannot|could not|couldn'?t) (?:access|reach|see|resolve|load|connect to)\b"
    r"|\s*needs? `[^`]+`"
    r"|.*?\bdoes(?:n'?t| not) (?:support|exist|include|accept|track)\b"
    r"|.*?\b(?:which|that|it) (?:will|would) fail\b)",
    re.IGNORECASE,
)

# The assistant granting a point the person made, at the start of its turn's line: "You're
# right — ...", "Good point. ...", "Good catch - ...". Not "you're right to be skeptical".
CONCESSION = "concession"
# A LOW hunch of the person's about a way ("maybe we should ...", "how about ..."): a rule only
# once the assistant grants it (the writer's check).
SUGGESTION = "suggestion"
CONCESSION_RE = re.compile(
    r"^\W*(?:you(?:'re| are) (?:absolutely |totally |completely |quite )?(?:right|correct)|"
    r"(?:good|fair|great|valid) (?:point|catch|call)|"
    r"that'?s (?:a )?(?:fair|good|valid) point)(?!\s+(?:to|about|that)\b)\W",
    re.IGNORECASE,
)

# What the assistant's own lines may carry: a root cause or a fix it found, at most MEDIUM.
ASSISTANT_KINDS = ("root-cause", "fix-confirmed", "breakthrough")

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
_ASSISTANT_RE = _compile_tier({k: _PATTERNS[HIGH][k] for k in ASSISTANT_KINDS})
_DECISION_RE = re.compile("|".join(_PATTERNS[HIGH]["decision"]), re.IGNORECASE)
_PLAIN_RE = re.compile("|".join(_PLAIN_CORRECTIONS), re.IGNORECASE | re.MULTILINE)
_CATEGORY_RE = re.compile(
    "|".join(f"(?P<{name.replace(' ', '_')}>{pat})" for name, pat in _CATEGORIES.items()),
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Signal:
    """One line of dialogue that matched: where, how strongly, what kind, what about, whose."""

    line_index: int
    tier: str
    kind: str
    category: str
    text: str
    speaker: str = PERSON


def categorize(text: str) -> str:
    """The category a line is about (first keyword family found), or ``Unknown``."""
    m = _CATEGORY_RE.search(text)
    return m.lastgroup.replace("_", " ") if m and m.lastgroup else "Unknown"


def classify(
    line: str, speaker: str = PERSON, *, follows_assistant: bool = False
) -> tuple[str, str] | None:
    """``(tier, kind)`` of the strongest pattern a line matches, or None.

    A person's words carry every kind; right after an assistant turn a plain rejection
    ("that's wrong, ...", "it's a bad idea") is a LOW correction. The assistant's lines carry
    only a root cause or a fix, at MEDIUM at most (a decision it announces: LOW). Injected
    text carries nothing.
    """
    if speaker == INJECTED:
        return None
    text = _NOT_SIGNALS.sub(" ", line)
    if speaker == ASSISTANT:
        m = _ASSISTANT_RE.search(text)
        if m and m.lastgroup:
            return MEDIUM, m.lastgroup.replace("_", "-")
        # A choice the assistant announces is worth a look by a model, never a rule.
        if _DECISION_RE.search(text):
            return LOW, "decision"
        # The assistant granting the person's point ("You're right — the migration always runs
        # after FullSchema"): the person's challenge, confirmed (the writer checks it was one).
        if CONCESSION_RE.match(text):
            return LOW, CONCESSION
        # A cause stated plainly ("the test config is missing X"): a lesson only once a green
        # run or the person confirms it (the writer's check).
        return (LOW, DIAGNOSIS) if DIAGNOSIS_RE.search(text) else None
    if _SLASH_COMMAND.match(text):
        return None
    asked = _UNMARKED_QUESTION.sub(" ", _QUESTION.sub(" ", text))
    statement = _REQUEST.sub(_unless_lasting, asked)
    asks = bool(_ASKS.search(text))
    for tier, pattern in TIER_PATTERNS:
        # A hunch or a suggestion is often asked ("how about X?", "maybe because Y?"): LOW
        # reads the whole line; rules, corrections and feedback only what is stated.
        read = text if tier == LOW else statement
        for m in pattern.finditer(read):
            kind = (m.lastgroup or "").replace("_", "-")
            if kind == "root-cause" and asks:
                continue  # the problem the person asks about, not its cause
            if kind and not (kind in REACTION_KINDS and _idle_reaction(read, m)):
                return tier, kind
    if _EXASPERATED.search(text):
        return HIGH, "frustration"
    if follows_assistant and _PLAIN_RE.search(text) and not _ACCEPTED.search(text):
        return LOW, PLAIN_CORRECTION
    return None


def _unless_lasting(request: re.Match[str]) -> str:
    """A request's words, cut out of what a line states unless it asks for a lasting rule."""
    return request.group(0) if _LASTING.search(request.group(0)) else " "


# The kinds of signal in which a person corrects the assistant or states the rule it broke.
CORRECTION_KINDS = ("correction", "prohibition", "requirement", "explicit-rule", "frustration")

# A name as people write it: dotted, versioned or a path (python3.11, ./gradlew, setup.py,
# `gradle build`); a period ends the phrase only when a space or the end follows it.
_NAME = r"(?:`[^`\n]{1,80}`|(?:[^\s.,;!?`]|[.](?=[^\s.,;!?]))+)"
_PHRASE = rf"{_NAME}(?:\s+{_NAME}){{0,5}}?"
_TO_CLAUSE_END = r"[^,;!?\n]+?(?=[,;!?]|\.(?:\s|$)|$)"  # what follows, up to where the clause ends
_WAY = re.compile(
    rf"\binstead of\s+(?P<old1>{_PHRASE}),?\s+(?:use|try|run)\s+(?P<new1>{_TO_CLAUSE_END})"
    rf"|\b(?:use|try|run)\s+(?P<new2>{_PHRASE})\s+instead(?:\s+of\s+(?P<old2>{_TO_CLAUSE_END}))?"
    rf"(?=[\s.,;!?]|$)"
    rf"|\buse\s+(?P<new3>{_PHRASE}),?\s+not\s+(?P<old3>{_NAME})(?=[\s.,;!?]|$)"
    rf"|^\s*(?:no|nope)\s*[,.!:;-]?\s+use\s+(?P<new4>{_TO_CLAUSE_END})",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Correction:
    """A person's correction: its kind, and the way to go and the way refused when it names
    them ("use python3.11 instead of python3.9": ``python3.11``, ``python3.9``)."""

    kind: str
    new: str = ""
    old: str = ""
    tier: str = field(default=HIGH, compare=False)
    words: int = field(default=0, compare=False)  # words in the reply

    @property
    def lesson(self) -> bool:
        """Whether it teaches something on its own: a rule (HIGH), or a plain rejection that
        names the way to go or says why in a few words ("not like this" does not)."""
        return self.tier != LOW or bool(self.new) or self.words >= MIN_LESSON_WORDS


MIN_LESSON_WORDS = 6  # a plain rejection shorter than this says no more than "no"


def correction(line: str) -> Correction | None:
    """The correction in a person's reply to the assistant, or None.

    The detector's own reading (``classify``): reassurance ("No, don't worry, that's fine."),
    questions ("What should have happened here?") and reactions are none; dotted names and
    paths are names, never the end of a sentence.
    """
    hit = classify(line, PERSON, follows_assistant=True)
    if hit is None or hit[1] not in CORRECTION_KINDS:
        return None
    tier, kind = hit
    words = len(line.split())
    m = _WAY.search(_NOT_SIGNALS.sub(" ", line))
    if m is None:
        return Correction(kind, tier=tier, words=words)
    new = m.group("new1") or m.group("new2") or m.group("new3") or m.group("new4") or ""
    old = m.group("old1") or m.group("old2") or m.group("old3") or ""
    return Correction(kind, new.strip(" `'\""), old.strip(" `'\""), tier, words)


def _idle_reaction(text: str, match: re.Match[str]) -> bool:
    """A reaction that names nothing, or praise that turns to the next request."""
    if _PIVOT.search(text):
        return True
    rest = text[: match.start()] + " " + text[match.end() :]
    named = [w for w in _CONTENT_WORD.findall(rest) if len(w) > 2 and w.lower() not in _FILLER]
    return len(named) < MIN_REACTION_WORDS


@dataclass(frozen=True)
class DialogueLine:
    """A line of dialogue with the turn it came from (for slicing around signals)."""

    text: str
    role: str
    turn: int  # index into Transcript.turns
    record: int  # line number in the transcript file
    speaker: str = PERSON
    follows_assistant: bool = False  # a person's turn right after an assistant turn


def detect(lines: Iterable[str | DialogueLine]) -> list[Signal]:
    """One ``Signal`` per line that matches any tier (the strongest tier wins).

    A plain string is read as a person's line; a ``DialogueLine`` says whose it is.
    """
    found: list[Signal] = []
    for index, item in enumerate(lines):
        if isinstance(item, DialogueLine):
            line, speaker, after = item.text, item.speaker, item.follows_assistant
        else:
            line, speaker, after = item, PERSON, False
        hit = classify(line, speaker, follows_assistant=after)
        if hit:
            found.append(
                Signal(index, hit[0], hit[1], categorize(line), line.strip()[:TEXT_CAP], speaker)
            )
    return found


def dialogue_lines(turns: Iterable[Turn], cap: int = DIALOGUE_CAP) -> Iterator[DialogueLine]:
    """Non-empty dialogue lines, private spans and harness wrappers removed, first ``cap`` chars.

    Text the harness injected is not dialogue: it is left out here, so neither the gate, the
    slicer nor a writer ever reads it.
    """
    budget = cap
    previous = ""
    for number, turn in enumerate(turns):
        if budget <= 0:
            return
        if turn.speaker == INJECTED:
            continue
        text = turn.text[:budget]
        budget -= len(text)
        after = turn.speaker == PERSON and previous == ASSISTANT
        if turn.speaker == PERSON:
            text = own_words(text)
        for line in strip_private(text).splitlines():
            if line.strip():
                yield DialogueLine(line, turn.role, number, turn.record, turn.speaker, after)
        previous = turn.speaker


# A document pasted into a person's turn (a specification, a design, a plan, a log): long, and
# laid out in markdown sections. What it says is the material the session works on, written for
# another purpose, not what the person tells the assistant: only the words before it are theirs.
DOCUMENT_CHARS = 3000
DOCUMENT_HEADINGS = 3
# a heading line, or one glued after the person's question or sentence ("... a branch? # Spec")
_HEADING = re.compile(r"(?:^|(?<=[.?!:] ))#{1,6} \S", re.M)


# A document pasted right after the person's own words, whatever its length: its title glued on
# the line of their sentence ("can we ...? # Skill: Implement X", "yes. also # Implement Y") and
# its sections below. A person writing their own markdown starts a heading on its own line; a
# title in mid-line is where their typing ended and the paste began. The title must start a
# word (a capital letter), and a section heading must follow at a line start, so neither a
# shell comment ("make test  # all") nor "issue # 5" is read as one.
_GLUED_TITLE = re.compile(r"(?<=\S )# (?=[A-Z])")
_SECTION = re.compile(r"^#{2,6} \S", re.M)

# Text copied from a rendered page or form: its field labels and captions, set in capitals by
# the page's style, come out as bare upper-case words on lines of their own ("WELL_KNOWN_URI",
# "ERROR"). Nobody types two such lines to say what they mean; from the first of them on, the
# turn is the page (its help texts and validation messages), not the person.
_LABEL = re.compile(r"^[A-Z][A-Z0-9_]{2,}$", re.M)
PAGE_LABELS = 2

# A program's error message pasted as a line of its own: a chain of failures, each quoting the
# one under it ("Failed to fetch X: X validation failed: Field 'y' must be an object",
# "error: could not lock ref: File exists"), or an exception named by its class
# ("ValueError: ..."). What it says ("must be an object") is the program's complaint, never the
# person's rule. Only a line that starts with it, its first link a plain phrase: a person
# quoting an error in their own sentence ("when you see `X failed: ...`, run Y", "if the build
# fails with X failed: ...") keeps their line: a condition, a quote mark or a comma before the
# first colon is the person's sentence around the message. "error" and "fatal" head a message
# only as its first word (as git and compilers print them): "On error: retry once: ..." is the
# person's.
_ERROR_LINE = re.compile(
    r"^\s*(?![Ww]hen(?:ever)? |[Ii]f |[Oo]nce |[Aa]fter |[Bb]efore )(?:"
    r"(?:(?:[Ff]ailed to|[Cc]ould not|[Cc]annot|[Uu]nable to) [^:\n`'\",]+"
    r"|[^:\n`'\",]*\bfailed"
    r"|[Ee]rror|[Ff]atal)"
    r": [^:\n]+: "
    r"|[A-Z]\w*(?:Error|Exception): "
    r").*$\n?",
    re.M,
)


def own_words(text: str) -> str:
    """``text`` of a person's turn without what they pasted into it: a document (see
    DOCUMENT_CHARS and _GLUED_TITLE) or a copied page (_LABEL) and the words after it, and a
    program's error lines (_ERROR_LINE). The whole text when nothing in it is pasted."""
    ends = [len(text)]
    headings = list(_HEADING.finditer(text))
    if len(text) >= DOCUMENT_CHARS and len(headings) >= DOCUMENT_HEADINGS:
        ends.append(headings[0].start())
    title = _GLUED_TITLE.search(text)
    if title is not None and _SECTION.search(text, title.end()):
        ends.append(title.start())
    labels = list(_LABEL.finditer(text))
    if len(labels) >= PAGE_LABELS:
        ends.append(labels[0].start())
    return _ERROR_LINE.sub("", text[: min(ends)])


# A session whose dialogue holds no signal may still hold a lesson in its tool calls: a command
# the environment refused, then run another way; a failing command passing once an install ran
# (``notes/recoveries.py`` says which). The drain's structural readers find those lessons, but
# only in sessions the gate lets through, so such a session is read too: one LOW signal per
# recovery, at the first line of dialogue after the failure (the words that read it, which the
# slice then carries). Looked for only when the dialogue has no signal: a session with one is
# read anyway, and the common case pays nothing more.
RECOVERY = "recovery"


def recoveries(lines: Sequence[DialogueLine], work: ToolWork) -> list[Signal]:
    """A LOW ``recovery`` signal for each failed command a later one got past
    (``work.recovered``: the transcript's reading, made once)."""
    records = [line.record for line in lines]
    out: list[Signal] = []
    for found in work.recovered:
        at = bisect.bisect_right(records, found.result)
        if at == len(lines):
            continue  # no dialogue after the failure within what was read
        text = f"`{found.failed}` failed, then `{found.passed}` passed"
        out.append(Signal(at, LOW, RECOVERY, "Tools", text[:TEXT_CAP], lines[at].speaker))
    return out


REVIEW = "review"


def reviewed(
    transcript: Transcript, lines: Sequence[DialogueLine], ran: Sequence[Ran]
) -> list[Signal]:
    """A LOW ``review`` signal at the first line of each turn stating a code review's finding
    whose file the assistant then edited, with a passing test run after (``notes/reviews``); a
    review comment fetched in a tool result, at the first line of dialogue after it. ``ran``
    is ``commandruns.commands_run``'s."""
    # imported here, as for ``recoveries``: only a session with no other signal reads them
    from reflectgit.notes.reviews import acted_on

    records = [line.record for line in lines]
    out: list[Signal] = []
    for record in acted_on(transcript, ran):
        at = bisect.bisect_left(records, record)  # a fetched comment's: the next line's
        if at < len(lines):
            line = lines[at]
            out.append(
                Signal(at, LOW, REVIEW, categorize(line.text), line.text[:TEXT_CAP], line.speaker)
            )
    return out


REPAIR = "repair"


def repairs(lines: Sequence[DialogueLine], work: ToolWork) -> list[Signal]:
    """A LOW ``repair`` signal at the assistant's words before each edit that got past a
    failed command, a green test run after it (``notes/repairs``). None in a session whose
    person writes a language the readers cannot read (``english.unread_language``): it stays
    ``unread-language``, given whole to a model writer rather than sliced at a repair, whose
    words the heuristic writer could not read either. ``work.repaired``: the transcript's
    reading, made once."""
    # imported here: only a session with no other signal reads them
    from reflectgit.notes.english import unread_language

    if unread_language(lines):
        return []

    records = [line.record for line in lines]
    out: list[Signal] = []
    for found in work.repaired:
        at = bisect.bisect_left(records, found.said)
        if at < len(lines) and records[at] == found.said and lines[at].speaker == ASSISTANT:
            line = lines[at]
            out.append(
                Signal(at, LOW, REPAIR, categorize(line.text), line.text[:TEXT_CAP], ASSISTANT)
            )
    return out


SAVED = "saved"


def saved(transcript: Transcript, lines: Sequence[DialogueLine]) -> list[Signal]:
    """A LOW ``saved`` signal at the person's line before each fact the assistant saved to its
    memory citing the person's own input (``memoryfiles.fact_from_person``): the assistant
    took those words as guidance for its later sessions, whatever words they were said in
    ("remove all co-author by copilot shit, got it?")."""
    out: list[Signal] = []
    records = [line.record for line in lines]
    for call in transcript.tool_calls:
        fact = fact_from_person(call.name, call.input)
        if not fact:
            continue
        at = bisect.bisect_left(records, call.record) - 1
        while at >= 0 and lines[at].speaker != PERSON:
            at -= 1
        if at >= 0:
            out.append(Signal(at, LOW, SAVED, categorize(fact), fact[:TEXT_CAP], PERSON))
    return out


def signals_in(
    transcript: Transcript, lines: Sequence[DialogueLine], work: ToolWork | None = None
) -> list[Signal]:
    """The signals of a transcript whose dialogue is ``lines``: those of its dialogue and the
    guidance it saved, else its recoveries, else the code review findings it acted on, else
    its repairs (a failure, the assistant's words, an edit, a green run). The enqueue gate and
    the drain's cascade both ask this. ``work`` is the transcript's tool readings
    (``notes/toolwork``), made here when first needed and kept there for the next reader."""
    found = detect(lines)
    taken = {s.line_index for s in found}
    found += [s for s in saved(transcript, lines) if s.line_index not in taken]
    if found:
        return sorted(found, key=lambda s: s.line_index)
    # imported here: only a session with no signal in its dialogue reads its commands, once,
    # for its recoveries, reviews and repairs alike; the gate's common path (and every other
    # reader of signals) does not load the command readers
    from reflectgit.notes.toolwork import ToolWork

    work = work if work is not None else ToolWork(transcript)
    return recoveries(lines, work) or reviewed(transcript, lines, work.ran) or repairs(lines, work)


def scan(transcript: Transcript, cap: int = DIALOGUE_CAP) -> list[Signal]:
    """Signals in a transcript (its dialogue's; else its recoveries, read from its tool calls;
    tool output and injected text are never read for words)."""
    return signals_in(transcript, list(dialogue_lines(transcript.turns, cap)))


def strongest(signals: Iterable[Signal]) -> str | None:
    """The highest tier among signals, or None when there are none."""
    tiers = {s.tier for s in signals}
    for tier in TIERS:
        if tier in tiers:
            return tier
    return None
