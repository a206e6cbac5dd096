"""A configured model reads each note the heuristics call stale for a change: ``stale
--ask-model``.

Whether a change makes a note's statement wrong is a reading of meaning: the token-level
readings (``notes/codediff.py``) flag a body rewritten around a lesson that still holds as
often as a lesson the change ended. With a model command configured (the drain's,
``REFLECT_DRAIN_CMD``, else ``claude -p``), each note whose anchors the heuristics call
``changed`` (not ``deleted``, ``symbol-gone`` or ``renamed``: those need no reading) is shown
to the model once, all its changed anchors in one prompt: its title and body, and per anchor
the anchored code at the note's commit and at HEAD (each cut to ``MAX_CODE`` characters, which
the prompt then says). The answer is one JSON object ``{"verdict": "wrong" | "holds" |
"unsure", "why": "..."}``:

- ``holds``: the note moves to ``changed`` (its changed anchors become ``changed-elsewhere``),
  its label saying the model read the change and the note still holds, and why;
- ``wrong``: it stays stale, the model's why in its label;
- ``unsure``: it stays as the heuristics said (the model's why in its label);
- a command that cannot start, times out, fails, or answers prose or a malformed object: it
  stays as the heuristics said, and the run counts the failure (a flag is never dropped on a
  failed call).

At most ``ask_max`` notes are read a run, and none after ``GIVE_UP`` failures in a row (a model
out of quota is not asked fifty times); the notes not read keep the heuristic verdict and are
counted. Every prompt goes through the one secret scanner (``notes/secrets.py``) first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from reflectgit.config import CodeSettings, WriterSettings
from reflectgit.notes import secrets
from reflectgit.notes.words import plural
from reflectgit.workflows.code.notes import AnchoredNote
from reflectgit.workflows.code.staleness import StaleAnchor, StaleNote, StaleReport

VERDICTS = ("wrong", "holds", "unsure")
MAX_CODE = 6000  # characters of each version of an anchored block shown
MAX_BODY = 4000  # characters of the note's body shown
MAX_ANCHORS = 6  # changed anchors shown in one prompt; the others are named
MAX_WHY = 200  # characters of the model's why kept (one line)
MAX_ANSWER = 64 * 1024  # bytes of model output read: a verdict is short
GIVE_UP = 3  # failed calls in a row after which the run asks no more

PROMPT = """\
You check one note of a team's knowledge base of engineering lessons. The note is anchored to
code; that code changed since the note was written. Read the note, then the code as it was
when the note was written ("before") and as it is now ("after").

Answer "wrong" if the change makes what the note states untrue or misleading now (a reader who
follows the note would be misled by the code as it is). Answer "holds" if what the note states
is still true of the code now (the code was rewritten, extended, moved or renamed around a
lesson that still holds). Answer "unsure" if the code shown is not enough to tell.

Answer with one JSON object and nothing else:
{{"verdict": "wrong" | "holds" | "unsure", "why": "one line, under 200 characters"}}

Note title: {title}
Note body{body_cut}:
----- note -----
{body}
----- end of note -----
{anchors}"""

ANCHOR = """
Anchor {n}: {label}{moved} ({commits})
Before, at the note's commit {since}{before_cut}:
----- before -----
{before}
----- end of before -----
After, at HEAD {head}{after_cut}:
----- after -----
{after}
----- end of after -----
"""


@dataclass(frozen=True)
class Asking:
    """How to ask: the drain's model command, ``stale``'s bounds, the environment."""

    writer: WriterSettings
    code: CodeSettings
    env: Mapping[str, str]


@dataclass(frozen=True)
class ModelVerdict:
    """What the model said of one note's change."""

    verdict: str  # one of VERDICTS
    why: str

    def said(self) -> str:
        """The words a note's label gains."""
        because = f": {self.why}" if self.why else ""
        if self.verdict == "holds":
            return f"the model read the change and the note still holds{because}"
        if self.verdict == "wrong":
            return f"the model read the change and the note is wrong now{because}"
        return f"the model read the change and could not tell{because}"

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "why": self.why}


@dataclass
class Reading:
    """What the model read in one ``stale`` run: notes asked, its verdicts, the calls that
    failed (the notes kept as the heuristics said) and the notes not asked (past the bound, or
    after ``GIVE_UP`` failures in a row)."""

    asked: int = 0
    holds: int = 0
    wrong: int = 0
    unsure: int = 0
    failed: int = 0
    not_asked: int = 0
    errors: list[str] = field(default_factory=list)  # each distinct reason a call failed

    def to_json(self) -> dict[str, Any]:
        return {
            "asked": self.asked,
            "holds": self.holds,
            "wrong": self.wrong,
            "unsure": self.unsure,
            "failed": self.failed,
            "not_asked": self.not_asked,
            "errors": self.errors,
        }


def require_command(ask: Asking) -> None:
    """Refuse, before any work, when the model command is not installed."""
    from reflectgit.workflows.drain import writer as wr

    wr.require_command(
        ask.writer,
        ask.env,
        needed_for="reading stale notes with a model",
        without="run stale without --ask-model (REFLECT_STALE_ASK_MODEL=0)",
    )


def candidates(report: StaleReport) -> list[StaleNote]:
    """The stale notes a model may read: stale for a change (no anchor deleted or gone)."""
    return [n for n in report.stale if n.reason == "changed"]


def reread(report: StaleReport, notes: Sequence[AnchoredNote], ask: Asking) -> Reading:
    """Have the model read each candidate of ``report`` (``candidates``), at most
    ``ask.code.ask_max`` of them; move those it says hold to ``report.changed``. The reading
    is also set on ``report.reading``."""
    from reflectgit.workflows.drain import writer as wr

    reading = Reading()
    report.reading = reading
    by_id = {n.id: n for n in notes}
    in_a_row = 0
    holding: list[StaleNote] = []
    for entry in candidates(report):
        note = by_id.get(entry.id)
        if note is None or reading.asked >= ask.code.ask_max or in_a_row >= GIVE_UP:
            reading.not_asked += 1
            continue
        reading.asked += 1
        answer = wr.ask(
            ask.writer,
            prompt(note, entry, report.head),
            env=ask.env,
            timeout=ask.code.ask_timeout,
            max_output=MAX_ANSWER,
        )
        verdict = None if answer.error else parse_verdict(answer.text)
        if verdict is None:
            in_a_row += 1
            reading.failed += 1
            why = answer.error or "the model's answer held no JSON verdict"
            if why not in reading.errors:
                reading.errors.append(why)
            continue
        in_a_row = 0
        entry.model = verdict
        if verdict.verdict == "holds":
            reading.holds += 1
            holding.append(entry)
        elif verdict.verdict == "wrong":
            reading.wrong += 1
        else:
            reading.unsure += 1
    for entry in holding:
        report.stale.remove(entry)
        entry.anchors = [_held(a) for a in entry.anchors]
        report.changed.append(entry)
    return reading


def _held(anchor: StaleAnchor) -> StaleAnchor:
    """A changed anchor the model read as still holding: a change elsewhere than the note."""
    return replace(anchor, reason="changed-elsewhere") if anchor.reason == "changed" else anchor


def prompt(note: AnchoredNote, entry: StaleNote, head: str) -> str:
    """The one prompt for ``note``'s changed anchors, cut to its bounds, secrets masked."""
    changed = [a for a in entry.anchors if a.reason == "changed"]
    shown = changed[:MAX_ANCHORS]
    body, body_cut = _cut(note.body.strip() or "(no body)", MAX_BODY)
    parts = []
    for n, a in enumerate(shown, 1):
        before, before_cut = _cut(a.before if a.before is not None else "(not read)", MAX_CODE)
        after, after_cut = _cut(a.after if a.after is not None else "(not read)", MAX_CODE)
        subjects = "; ".join(c.subject for c in a.commits[:5])
        more = f"; and {len(a.commits) - 5} more" if len(a.commits) > 5 else ""
        count = f"{plural(len(a.commits), 'commit')} since"
        parts.append(
            ANCHOR.format(
                n=n,
                label=a.anchor.label,
                moved=f", now {a.now}" if a.now and a.now != a.anchor.path else "",
                commits=f"{count}: {subjects}{more}" if subjects else count,
                since=(a.anchor.commit or "?")[:12],
                head=head[:12],
                before=before,
                after=after,
                before_cut=before_cut,
                after_cut=after_cut,
            )
        )
    if len(changed) > len(shown):
        rest = ", ".join(a.anchor.label for a in changed[len(shown) :])
        parts.append(f"\n(Not shown, to keep this short: the changed anchors {rest}.)\n")
    text = PROMPT.format(title=note.title, body=body, body_cut=body_cut, anchors="".join(parts))
    return secrets.mask(text)


def _cut(text: str, limit: int) -> tuple[str, str]:
    """``text`` cut to ``limit`` characters, and the words that say so (empty when whole)."""
    if len(text) <= limit:
        return text, ""
    return text[:limit], f" (cut: the first {limit} of {len(text)} characters)"


def parse_verdict(text: str) -> ModelVerdict | None:
    """The first JSON object with a known ``verdict`` in the model's answer (in a code fence
    or after prose too; ``writer.find_object``, a raw line break in ``why`` read too), its
    ``why`` as one line; None for prose or a malformed answer."""
    from reflectgit.workflows.drain.writer import find_object

    def known(value: dict[str, Any]) -> bool:
        verdict = value.get("verdict")
        return isinstance(verdict, str) and verdict.strip().lower() in VERDICTS

    value = find_object(text, "verdict", known, strict=False)
    if value is None:
        return None
    why = value.get("why")
    line = " ".join(why.split()) if isinstance(why, str) else ""
    if len(line) > MAX_WHY:
        line = line[: MAX_WHY - 3].rstrip() + "..."
    return ModelVerdict(str(value["verdict"]).strip().lower(), line)
