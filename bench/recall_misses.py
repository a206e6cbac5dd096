"""Why the heuristic drain misses each lesson of the judged sets (issue 34, recall).

Every transcript of the shared sessions and of each ``--held-apart`` folder is run through the
cascade and the heuristic writer in-process (as the drain does, one transcript at a time into
nothing), and each lesson no useful note keeps is put in one of four kinds, by the lines its
judgement's ``where`` names (0-based transcript lines, or dialogue turns for the shared set):

- (a) ``never a signal``: no line there is read as a rule, correction or cause;
- (b) ``a signal, dropped``: a signal there, and ``no_lesson`` dropped its note (``no_lesson``,
  with the check that dropped it),
  a twin or the cap did (``twin``), or its reader wrote nothing (``reader <tier/kind/who>``:
  unconfirmed, a shape no reader takes, a check inside the reader);
- (c) ``a note, not useful``: a note read from there was judged junk, or keeps another lesson;
- (d) ``the gate skipped it``: every transcript of the session was skipped (``--list`` says
  the gate's reasons: ``no-signal``, ``unread-language``, ...).

A cause's confirmation (a green run, the person's word) is the judge's (``said_by``), read by
hand. The lesson's own figure is the ``kept`` column, the same as ``bench/quality.py``'s
recall when the notes are judged.

``--confirmation`` splits (b) ``reader`` for the causes: the writer is run again with every
cause taken as confirmed (``_Reading.confirmation`` answering yes), and a lesson whose signal
then gives a note is ``reader, unconfirmed`` (the cause is read; what confirmed it is not
seen), else ``reader, not read`` (no reader takes its shape). Whether that note would be the
right one is for the ``--list`` lines and the session to say.

``--dropped`` lists every note ``no_lesson`` drops in the sets, each once, with the check that
dropped it, its verdict when a judge has read it (an older run wrote it, or a run with the check
loosened) and the missed lessons it sits at; then, per check, its notes, sets, verdicts and
lessons: what loosening that check would write.

Run: ``.venv/bin/python bench/recall_misses.py [--held-apart DIR ...] [--list] [--confirmation]
[--dropped]``
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.quality import load, named_sets, normalise, unpacked  # noqa: E402
from reflectgit.workflows.drain.cascade import DRAIN_DIALOGUE_CAP, _dialogue, prepare  # noqa: E402
from reflectgit.workflows.drain.heuristic import answer, chunk  # noqa: E402
from reflectgit.workflows.drain.heuristic.confirmation import (  # noqa: E402
    Confirmation,
    Confirmed,
)

_SPAN = re.compile(r"(\d+)(?:\s*[-–]\s*(\d+))?")
SPAN_MAX = 400  # a wider span is a typo in the judgement, read as its first line
SLACK = 1  # lines either side of the one the judgement names


def where(lesson: Mapping[str, Any]) -> tuple[str, set[int]]:
    """``("turn" | "record", numbers)`` the judgement's ``where`` names, with a line's slack."""
    text = str(lesson.get("where") or "")
    unit = "turn" if re.match(r"\s*turns?\b", text) else "record"
    out: set[int] = set()
    for a, b in _SPAN.findall(text):
        lo, hi = int(a), int(b or a)
        hi = lo if hi - lo > SPAN_MAX else hi
        out.update(range(lo - SLACK, hi + SLACK + 1))
    return unit, out


class _Seen:
    """Every candidate note the writer weighs, with ``no_lesson``'s answer; and every note it
    dropped, with the session it came from (``dropped``, kept across transcripts)."""

    def __init__(self) -> None:
        self.calls: list[tuple[Mapping[str, Any], str]] = []
        self.session = ""
        self.dropped: list[tuple[str, Mapping[str, Any], str]] = []
        self._real = answer.no_lesson

    def __call__(self, action: Mapping[str, Any]) -> str:
        why = self._real(action)
        self.calls.append((action, why))
        if why:
            self.dropped.append((self.session, action, why))
        return why


def _transcripts(real: Path, session: Mapping[str, Any]) -> list[Path]:
    out = []
    for rel in session.get("transcripts", []):
        path = real / "transcripts" / rel
        out.append(path.with_suffix("") if not path.exists() and path.suffix == ".gz" else path)
    return out


def judged_as(judgements: Mapping[str, Any], session: str, title: str) -> Mapping[str, Any] | None:
    """The judgement of the drain note of ``session`` titled ``title`` (a judged title cut for
    display matches the note it begins), or None."""
    t = normalise(title)
    for n in judgements["notes"]:
        judged = normalise(n["title"])
        if (
            n["channel"] == "drain"
            and n["session"] == session
            and (judged == t or (len(judged) > 30 and t.startswith(judged)))
        ):
            return n
    return None


def dropped(
    name: str, judgements: Mapping[str, Any], seen: _Seen, rows: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """One row per note ``no_lesson`` dropped in one set (each once, however often the writer
    weighed it): the check that dropped it, its title, its verdict if a judge read it (an older
    run wrote it, or a run with the check loosened), and the missed lessons whose signal it is
    (``classify``'s rows)."""
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    for sid, action, why in seen.dropped:
        key = (sid, str(action["title"]), why)
        if key in out:
            continue
        v = judged_as(judgements, sid, str(action["title"]))
        out[key] = {
            "set": name,
            "session": sid,
            "check": why,
            "title": str(action["title"]),
            "verdict": v["verdict"] if v else "unjudged",
            "lessons": [
                r["lesson"]["id"]
                for r in rows
                if r["session"] == sid and r["why"] == f"b no_lesson ({why})"
            ],
        }
    return list(out.values())


def classify(real: Path, judgements: Mapping[str, Any], seen: _Seen) -> list[dict[str, Any]]:
    """One row per lesson of the sessions with transcripts: kept, or why not."""

    def verdict(session: str, title: str) -> Mapping[str, Any] | None:
        return judged_as(judgements, session, title)

    rows = []
    for sid, session in judgements["sessions"].items():
        if not session.get("transcripts"):
            continue
        seen.session = sid
        runs = []
        for path in _transcripts(real, session):
            seen.calls.clear()
            prepared = prepare(str(path))
            lines = (
                list(_dialogue(prepared.transcript.turns, DRAIN_DIALOGUE_CAP))
                if prepared.transcript
                else []
            )
            signals = [(lines[s.line_index], s) for s in prepared.signals]
            notes = [] if prepared.skip else answer.write(prepared)["actions"]
            runs.append((prepared.skip, signals, notes, list(seen.calls)))
        judged = [(n, verdict(sid, n["title"])) for _s, _g, notes, _c in runs for n in notes]
        kept = {
            lesson
            for _n, v in judged
            if v and v["verdict"] == "useful"
            for lesson in v.get("lessons", [])
        }
        for lesson in session.get("lessons", []):
            why = "kept" if lesson["id"] in kept else _why(lesson, runs, judged)
            rows.append({"session": sid, "lesson": lesson, "why": why})
    return rows


_ORDER = ("c ", "b no_lesson", "b twin", "b reader")


def _why(lesson: Mapping[str, Any], runs: Sequence[Any], judged: Sequence[Any]) -> str:
    if all(skip for skip, *_ in runs):  # the gate's reasons, as the drain's ledger writes them
        return f"d the gate skipped it ({', '.join(sorted({skip for skip, *_ in runs}))})"
    unit, at = where(lesson)
    found = []
    for skip, signals, notes, calls in runs:
        if skip:
            continue
        for line, sig in signals:
            if (line.turn if unit == "turn" else line.record) not in at:
                continue
            key = sig.text[:40]
            written = [n for n in notes if key in n.get("body", "")]
            weighed = [why for action, why in calls if key in action.get("body", "")]
            if written:
                v = next((v for n, v in judged if n is written[0]), None)
                found.append(f"c a note, judged {v['verdict'] if v else 'not yet'}")
            elif any(weighed):
                found.append(f"b no_lesson ({next(why for why in weighed if why)})")
            elif weighed:
                found.append("b twin or cap")
            else:
                found.append(f"b reader ({sig.tier}/{sig.kind}/{sig.speaker})")
    if not found:
        return "a never a signal"
    return min(found, key=lambda w: next(i for i, o in enumerate(_ORDER) if w.startswith(o)))


def _every_cause_confirmed(_reading: Any, _offset: int, closing: bool = True) -> Confirmation:
    return Confirmation(Confirmed.WORD, "taken as confirmed (bench/recall_misses.py)")


def missed(real: Path, judgements: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``classify``'s rows of the lessons no useful note keeps, the writer's ``no_lesson``
    watched for the run and put back after it."""
    seen = _Seen()
    answer.no_lesson = seen  # type: ignore[assignment]
    try:
        return [r for r in classify(real, judgements, seen) if r["why"] != "kept"]
    finally:
        answer.no_lesson = seen._real


def unconfirmed(real: Path, judgements: Mapping[str, Any], seen: _Seen) -> set[tuple[str, str]]:
    """(session, lesson id) of the causes a reader writes nothing for that give a note when
    every cause is taken as confirmed: read, their confirmation not seen."""
    real_confirmation = chunk._Reading.confirmation
    chunk._Reading.confirmation = _every_cause_confirmed  # type: ignore[method-assign,assignment]
    try:
        rows = classify(real, judgements, seen)
    finally:
        chunk._Reading.confirmation = real_confirmation  # type: ignore[method-assign]
    return {(r["session"], r["lesson"]["id"]) for r in rows if r["why"].startswith("c ")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held-apart", type=Path, action="append", default=[])
    parser.add_argument("--list", action="store_true", help="one line per lesson missed")
    parser.add_argument(
        "--dropped",
        action="store_true",
        help="every note no_lesson drops, by the check that drops it, with its verdict",
    )
    parser.add_argument(
        "--confirmation",
        action="store_true",
        help="split the causes a reader writes nothing for: read but unconfirmed, or not read",
    )
    args = parser.parse_args(argv)
    seen = _Seen()
    answer.no_lesson = seen  # type: ignore[assignment]  # the writer's own check, watched
    sets = named_sets(args.held_apart)
    totals: Counter[tuple[str, str]] = Counter()
    drops: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (real, judged) in enumerate(sets):
            folder = unpacked(real, Path(tmp) / str(n))
            seen.dropped.clear()
            rows = classify(folder, load(judged), seen)
            drops += dropped(real.name, load(judged), seen, rows)
            read = unconfirmed(folder, load(judged), seen) if args.confirmation else set()
            for row in rows:
                kind = row["lesson"].get("kind", "?")
                if args.confirmation and kind != "rule" and row["why"].startswith("b reader"):
                    key = (row["session"], row["lesson"]["id"])
                    split = "unconfirmed" if key in read else "not read"
                    row["why"] = f"b reader, {split} {row['why'][len('b reader') :].strip()}"
                totals[(row["why"].split(" (")[0], kind)] += 1
                if args.list and row["why"] != "kept":
                    print(
                        f"{real.name}/{row['session']}/{row['lesson']['id']} [{kind}]: {row['why']}"
                    )
    for (why, kind), count in sorted(totals.items()):
        print(f"{count:4d}  {why:<24} {kind}")
    print(f"{sum(totals.values()):4d}  lessons")
    if args.dropped:
        _print_dropped(drops)
    return 0


def _print_dropped(drops: Sequence[Mapping[str, Any]]) -> None:
    """Each note ``no_lesson`` dropped, then per check: notes, sets, verdicts, missed lessons."""
    print("notes no_lesson drops (set/session [verdict] check: title; missed lessons there)")
    for d in drops:
        at = f"; at {', '.join(d['lessons'])}" if d["lessons"] else ""
        print(f"  {d['set']}/{d['session']} [{d['verdict']}] {d['check']}: {d['title'][:90]}{at}")
    print("notes  sets  junk  useful  unjudged  lessons  check")
    for check in sorted({d["check"] for d in drops}):
        mine = [d for d in drops if d["check"] == check]
        verdicts = Counter(d["verdict"] for d in mine)
        print(
            f"{len(mine):5d} {len({d['set'] for d in mine}):5d} {verdicts['junk']:5d}"
            f" {verdicts['useful']:7d} {verdicts['unjudged']:9d}"
            f" {sum(len(d['lessons']) for d in mine):8d}  {check}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
