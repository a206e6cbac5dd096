"""What confirms a cause the assistant found, besides the person's words and a red-to-green run.
Pure.

Its own account of verified work ("Root cause: X" then "Fix: Y", after edits and a passing run),
an edit right after it that the next test run passes (a trap caught by reading), or, for a cause
stated in the account that closes the edits, the person's next turn keeping them ("pushed", a
short report that the thing works now), or for a cause stated in the account that closes
edits a passing test run checked, that run. A cause diagnosed in a stretch that edited nothing is
confirmed across the person's go-ahead ("ok make a pr to fix": ``goes_ahead``). A confirmation
carries its kind and its words for the note.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from reflectgit.notes.commandruns import FAILURE_WORDS, Ran, commands_run
from reflectgit.notes.policy import EDIT_TOOLS
from reflectgit.notes.privacy import clean
from reflectgit.notes.transcripts import ASSISTANT, PERSON, Transcript
from reflectgit.workflows.drain.heuristic.session import verified_edits
from reflectgit.workflows.drain.heuristic.wording import _TOKEN

# The person's report that the thing works ("Deploy works now!!", "ok, all good now"), and
# what makes a report a new complaint instead ("works now, but the tables are gone?").
_SUCCESS = re.compile(
    r"\b(?:works?|worked|working|good|fine|fixed|pass(?:es|ed|ing)?|green|succeed(?:s|ed)?|"
    r"successful(?:ly)?|resolved|solved)\b",
    re.I,
)

_COMPLAINT = re.compile(
    r"\?|n't\b|\b(?:but|still|not|no|never|however|though|again|except|errors?|fail\w*|"
    r"broken|breaks?|wrong|issues?|problems?|missing|weird|strange)\b",
    re.I,
)

_FILLER = re.compile(
    r"\b(?:ok(?:ay)?|yes|yeah|yep|great|nice|thanks?|thank you|cool|perfect|awesome|it|that|"
    r"this|everything|all|now|the|is|are|was|were|seems?|looks?|to|be|and|so|just|really|"
    r"indeed|finally|very|also|nicely)\b",
    re.I,
)

SUCCESS_WORDS = 12


def reports_success(reply: str, failed: str) -> bool:
    """Is the person's turn a short report that the thing which failed works now ("OK. Deploy
    works now!!" after a failing deploy)? Short, a success word, no new complaint (a question,
    a "but", a "still", an error), and any thing it names beyond that is in ``failed`` (what
    the person and the assistant said about the failure): "the login page works now" after a
    failing deploy is about something else."""
    said = clean(reply).strip()
    if not said or len(said.split()) > SUCCESS_WORDS or _COMPLAINT.search(said):
        return False
    m = _SUCCESS.search(said)
    if m is None:
        return False
    subject = _TOKEN.findall(_FILLER.sub(" ", said[: m.start()]))
    known = {w.lower()[:5] for w in _TOKEN.findall(failed)}
    return all(w.lower()[:5] in known for w in subject)


# The person's turn that keeps the work as it is, its first words a request to record or ship
# it: "commit", "commit and push", "commit the changes", "make a pr", "open a PR", "push it",
# "ship it", "merge it". A request that presumes the fix held, said after seeing it, as "that
# worked" is; a complaint in it (``_COMPLAINT``: "commit, but the tables are gone?") or a long
# brief (a new task that opens with "commit") keeps nothing. The person's report of having
# kept it themselves ("pushed", "I committed and pushed!!", "merged it") keeps it as well.
_SHIP = re.compile(
    r"^(?:(?:ok(?:ay)?|good|great|nice|cool|perfect|thanks?|alright|now|please|go ahead and)"
    r"\W+)*(?:commit|push|ship|merge|make an? (?:pr|pull request)|open an? (?:pr|pull request)|"
    r"create an? (?:pr|pull request)|raise an? (?:pr|pull request)|"
    r"(?:i(?:\s+have|'ve)?\s+|(?:it'?s|it\s+is|(?:has\s+)?been)\s+)?"
    r"(?:commit+ed|pushed|merged|shipped))\b",
    re.I,
)

SHIP_WORDS = 12


def ships(reply: str) -> bool:
    """Is the person's turn a short request to commit, push or open a PR of the work as it
    is ("commit and push", "ok make a pr"), or a report of having done so ("pushed"), with no
    complaint in it?"""
    said = clean(reply).strip()
    return (
        bool(_SHIP.match(said)) and len(said.split()) <= SHIP_WORDS and not _COMPLAINT.search(said)
    )


def confirmed_otherwise(
    transcript: Transcript,
    ran: Sequence[Ran] | None = None,
    shipped: bool = False,
    verified: Callable[[int], str] | None = None,
) -> Callable[[int], Confirmation | None]:
    """``how(record)``: was the cause the assistant stated at that record acted on and then
    confirmed by something other than a test run? Before the person speaks again the assistant
    edits a file, and after that edit either (a) a command that failed since the person last
    spoke (an error result, or a red test run) is run again, the same command, and now
    succeeds with other output; or (b) the person's next turn, or a later one before the
    assistant edits anything else, reports that it works
    (``reports_success``; a report of what the edit did, so the fix is checked against it as
    a run's is). A rerun that still fails, a success before the edit, or the person's thanks
    with a new complaint confirm nothing. ``shipped``: (c) the person's next turn asking to keep
    the edit as it is (``ships``: "commit the changes", "make a pr") confirms it too, for a
    cause the assistant stated in words; the readers of a cause from the session's structure
    leave it out, since what they read after such a turn is mostly an account of the work
    ("Both feedback items are fixed and pushed", "Server is live": four of four over the tune
    sets). (d) With ``shipped``, a cause stated after the edits it accounts for (the stretch
    since the person spoke edited before it and nothing after it) is confirmed by the person's
    next turn keeping them (``ships``), the fix checked against those edits
    (``Confirmed.CLOSING``). (e) A cause stated after the edits of the stretch, nothing edited
    after it, the stretch's last test run after its last edit and passing, is confirmed by that
    run (``Confirmed.VERIFIED``: the reader checks that the cause names what the edits
    changed). None when nothing confirmed it. ``verified``: the transcript's
    ``session.verified_edits``, when the caller has read it already."""
    ran = commands_run(transcript) if ran is None else ran
    commands = [  # call record, command, failed, output
        (r.call.record, r.command.strip(), r.is_error or (r.run is not None and not r.run.green),
         r.output.strip())
        for r in ran
    ]  # fmt: skip
    edits = sorted(c.record for c in transcript.tool_calls if c.name in EDIT_TOOLS)
    runs = [r.result for r in ran if r.run is not None]  # test runs' result records
    turns = [t for t in transcript.turns if t.speaker in (PERSON, ASSISTANT)]
    persons = [t.record for t in turns if t.speaker == PERSON]
    verified = verified_edits(transcript, ran) if verified is None else verified

    def how(record: int) -> Confirmation | None:
        start = max((r for r in persons if r <= record), default=-1)
        end = min((r for r in persons if r > record), default=None)
        edit = next((e for e in edits if e > record and (end is None or e < end)), None)
        if edit is None and verified(record):
            # (e) the cause stated in the account that closes the edits a passing test run
            # checked ("All green. ... **Root cause**: X"): nothing edited after it before the
            # person speaks, the last run after the last edit passed. The cause must name what
            # those edits changed, and be the first the assistant states after that run
            # (``Confirmed.VERIFIED``, checked by the reader, which knows the signals)
            run = max((at for at in runs if start < at <= record), default=start)
            return Confirmation(Confirmed.VERIFIED, VERIFIED, since=run)
        if edit is None:
            # (d) the cause stated in the closing account of a stretch that edited: the
            # assistant edits first and says what it found after ("Found the issue: X. ## Fix
            # applied ..."), nothing edited after it before the person speaks. Its edits came
            # before it; only the person's next turn keeping them confirms it, as (c) does
            return closes_edits(record, start, end) if shipped else None
        failing = {cmd: out for at, cmd, bad, out in commands if start < at <= record and bad}
        for at, cmd, bad, out in commands:
            if at <= edit or (end is not None and at > end) or cmd not in failing:
                continue
            if not bad and out != failing[cmd]:
                said = f"the failing command run again after the edit: `{cmd[:120]}`"
                return Confirmation(Confirmed.AFTER, said)
            break  # the first rerun after the edit decides
        if end is None:
            return None
        failed = "\n".join(t.text for t in turns if start <= t.record <= record)
        # the person's next turn, or a later one while nothing else was edited in between (a
        # question about something else first: "Seems you did commit?", then "Deploy works now")
        later = min((e for e in edits if e > end), default=None)
        for turn in turns:
            if turn.speaker != PERSON or turn.record < end:
                continue
            if later is not None and turn.record > later:
                break  # the assistant changed something else since: the success is of that
            if reports_success(turn.text, failed):
                # the person reports what the edit did, not what was said: the fix is checked
                said = clean(turn.text).strip()[:200]
                return Confirmation(
                    Confirmed.AFTER, f"a success the person reported after the edit: “{said}”"
                )
            if shipped and turn.record == end and ships(turn.text):
                # the person's next word keeps the edit ("commit and push"): a request that
                # presumes the fix held, of what was done, so the fix is checked as a run's is
                said = clean(turn.text).strip()[:200]
                return Confirmation(
                    Confirmed.AFTER, f"a request of the person's to keep the edit, next: “{said}”"
                )
            if FAILURE_WORDS.search(turn.text) or re.search(r"\bstill\b", turn.text, re.I):
                break  # it still fails: a later success is of something else
        return None

    def closes_edits(record: int, start: int, end: int | None) -> Confirmation | None:
        if end is None or not any(start < e < record for e in edits):
            return None  # nothing edited before it since the person spoke: a diagnosis alone
        said = next((t.text for t in turns if t.record == end), "")
        if ships(said):
            return Confirmation(Confirmed.CLOSING, f"{CLOSING}: “{clean(said).strip()[:200]}”")
        return None

    return how


# The words of a confirmation of a cause stated after the edits it accounts for
# (``confirmed_otherwise``'s (d), ``Confirmed.CLOSING``).
CLOSING = "the edits this account closes, kept by the person's next turn"

# The words of a confirmation of a cause stated in the account that closes edits a passing
# test run checked (``confirmed_otherwise``'s (e), ``Confirmed.VERIFIED``).
VERIFIED = "the passing test run after the edits this account closes"


class Confirmed(enum.Enum):
    """How a cause was confirmed, as it tells what its fix is checked against (``checked`` in
    ``chunk_actions``): the code weighs this, never the words a note gives it."""

    WORD = "the person's word on what was said: the fix said is the fix confirmed"
    ACCOUNT = "a passing run after the edits an account of the work reports: checked already"
    AFTER = "something after the statement (a run, a rerun, the person's report of the edit)"
    CLOSING = "the person keeping the edits an account closes: checked against those edits"
    VERIFIED = "a passing test run after the edits an account closes: the cause names them"


class Confirmation(NamedTuple):
    """A cause's confirmation: its kind, its words for the note ("Confirmed by ..."), and for
    a run before the cause that checked it (``Confirmed.VERIFIED``), that run's record."""

    kind: Confirmed
    text: str
    since: int = -1


def _told(how: Confirmation | None) -> str:
    """A confirmation's words, ``""`` for none (the readers that take a confirmation's words)."""
    return how.text if how is not None else ""


COMPLAINT_WORDS = 60  # longer is a brief or a pasted plan, whose failure words are the task's

# The person's go-ahead for a fix the assistant diagnosed: their turn asks for the change to be
# made ("ok make a pr to fix", "yep, add the minimal fix", "let's add a fix to prevent this",
# "could we prevent this from failing again?"). A question asking only why, a denial, a new
# failure ("still ..."), a turn-down ("don't want", "revert") or a standing rule ("never make
# draft prs": a way of working, read as a rule elsewhere) is no go-ahead.
_FIX_REQUEST = re.compile(
    r"\b(?:fix|patch|prs?|pull request|go ahead|do it|do that|prevent|implement|apply|"
    r"address|handle)\b",
    re.I,
)

_NOT_GO_AHEAD = re.compile(
    r"^\W*(?:no|nope|not|wrong|why|what|how|is|are|does|do you)\b|\b(?:still|never|always)\b|"
    r"\b(?:don'?t|do not|doesn'?t|didn'?t) (?:want|work|think|agree|like)\b",
    re.I,
)


def goes_ahead(reply: str) -> bool:
    """Does the person's ``reply`` ask for the fix of what the assistant diagnosed to be made?
    A request for the change (fix it, make a PR, prevent it), not a denial, a question of why,
    a new failure or a turn-down."""
    reply = clean(reply).strip()
    return bool(
        reply
        and len(reply.split()) <= COMPLAINT_WORDS * 2
        and _FIX_REQUEST.search(reply)
        and not _NOT_GO_AHEAD.search(reply)
        and not _TURNED_DOWN.search(reply)
    )


# The person turning the fix down: "not sure I like ...", "can you revert this change?"
_TURNED_DOWN = re.compile(
    r"\b(?:revert|undo|roll\s*back|back out|not legit|leave it|(?:don'?t|do not|not sure i) like)\b",
    re.I,
)
