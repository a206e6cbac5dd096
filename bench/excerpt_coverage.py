"""What the drain's model writer is shown (issue 34, recall of the extract writer).

No model runs here: this measures the excerpt the ``extract`` writer would send, the cascade's
own ``prepare`` as the drain calls it for a model writer, for every transcript of the judged
sets, and asks of each judged lesson whether its evidence is in it:

- a lesson whose judgement says ``where`` (0-based transcript lines, or dialogue turns for the
  shared set, each span with a line's slack as ``bench/recall_misses.py`` reads them) is
  ``shown`` when every span it names has a line in the excerpt (the failure, the cause, the fix
  that worked), ``touched`` when at least one has;
- every lesson, whatever its ``where``, is ``by terms`` when one of its term groups is in the
  excerpt's text (a looser bound: the terms also name what the note should say);
- a transcript the gate skips gives no excerpt at all (``skipped``); a session read whole or as
  its head and tail (no slice, so no line numbers) counts by its terms alone.

Each set on a line, then the sums: lessons shown / lessons, touched, by terms, transcripts
skipped, and the excerpt's mean and largest size in characters (the slice cap bounds it).
``--list`` prints each lesson not shown, with what the excerpt held of it.

``--gate`` measures the gate instead, for each writer (``gate.unsignalled`` decides): the
transcripts it skips and the judged lessons in them, ``skipped transcripts N of M, judged
lessons in them K of L``. A lesson is in the skipped transcripts when every transcript of its
session is skipped (a judgement's ``where`` names lines, not which transcript), and ``K2 more
in sessions with another transcript read`` bounds the rest. For the transcripts the heuristic
writer's gate skips, the heuristic writer is also run with the gate bypassed (the transcript
given to it as read) and the notes it writes counted: what keeping its gate costs it.
``--list`` then names each skipped transcript with its reason and its session's lessons.

Run: ``.venv/bin/python bench/excerpt_coverage.py --pooled`` (every judged set), or
``--held-apart DIR`` (repeatable; the shared sessions come first when ``../shared`` is there);
``--gate`` with either.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.quality import JUDGEMENTS, load, matches, named_sets, sets, unpacked  # noqa: E402
from bench.recall_misses import _SPAN, SLACK, SPAN_MAX, _transcripts  # noqa: E402
from reflectgit.workflows.drain.cascade import (  # noqa: E402
    DRAIN_DIALOGUE_CAP,
    Prepared,
    _dialogue,
    prepare,
)


def spans(lesson: Mapping[str, Any]) -> tuple[str, list[set[int]]]:
    """``("turn" | "record", [numbers of each span])`` the judgement's ``where`` names."""
    text = str(lesson.get("where") or "")
    unit = "turn" if re.match(r"\s*turns?\b", text) else "record"
    out = []
    for a, b in _SPAN.findall(text):
        lo, hi = int(a), int(b or a)
        hi = lo if hi - lo > SPAN_MAX else hi
        out.append(set(range(lo - SLACK, hi + SLACK + 1)))
    return unit, out


@dataclass
class Shown:
    """What one transcript's excerpt holds: its text, the transcript records and dialogue
    turns of its lines (none for a whole or head/tail view), or the gate's skip."""

    skip: str | None
    text: str = ""
    records: set[int] = field(default_factory=set)
    turns: set[int] = field(default_factory=set)
    sliced: bool = False


TOOLS = True  # --dialogue-only: the excerpt without its tool evidence lines (as before)


def shown(path: Path) -> Shown:
    """The excerpt the extract writer would be sent for ``path`` (the drain's own call)."""
    prepared: Prepared = prepare(str(path), model=True, tools=TOOLS)
    if prepared.skip:
        return Shown(prepared.skip)
    out = Shown(None, prepared.text, sliced=bool(prepared.chunks))
    if prepared.chunks and prepared.transcript is not None:
        lines = list(_dialogue(prepared.transcript.turns, DRAIN_DIALOGUE_CAP))
        for chunk in prepared.chunks:
            out.records.update(chunk.records)
            out.turns.update(line.turn for line in lines[chunk.start : chunk.end])
        out.records.update(prepared.evidence_records)
    return out


@dataclass
class Row:
    """One set's figures."""

    name: str
    lessons: int = 0
    shown: int = 0
    touched: int = 0
    by_terms: int = 0
    transcripts: int = 0
    skipped: int = 0
    sizes: list[int] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def add(self, other: Row) -> None:
        for name in ("lessons", "shown", "touched", "by_terms", "transcripts", "skipped"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.sizes += other.sizes


def covered(lesson: Mapping[str, Any], excerpts: Sequence[Shown]) -> tuple[bool, bool, bool]:
    """(shown, touched, by terms) for one lesson over its session's excerpts."""
    terms = any(matches(lesson, e.text) for e in excerpts if e.skip is None)
    unit, wanted = spans(lesson)
    if not wanted:
        return terms, terms, terms
    best_all = best_any = False
    for e in excerpts:
        if e.skip is not None:
            continue
        if not e.sliced:  # a whole or head/tail view: no line numbers, its terms say
            best_all = best_all or terms
            best_any = best_any or terms
            continue
        have = e.turns if unit == "turn" else e.records
        hits = [bool(span & have) for span in wanted]
        best_all = best_all or all(hits)
        best_any = best_any or any(hits)
    return best_all, best_any, terms


def measure(real: Path, judgements: Mapping[str, Any], name: str) -> Row:
    row = Row(name)
    for sid, session in judgements["sessions"].items():
        excerpts = []
        for path in _transcripts(real, session):
            one = shown(path)
            row.transcripts += 1
            if one.skip:
                row.skipped += 1
            else:
                row.sizes.append(len(one.text))
            excerpts.append(one)
        if not excerpts:
            continue
        for lesson in session.get("lessons", []):
            all_, any_, terms = covered(lesson, excerpts)
            row.lessons += 1
            row.shown += all_
            row.touched += any_
            row.by_terms += terms
            if not all_:
                held = "touched" if any_ else "by terms" if terms else "nothing"
                skips = sorted({e.skip for e in excerpts if e.skip})
                gate = f"; skipped: {', '.join(skips)}" if skips else ""
                row.missing.append(f"{name} {sid}/{lesson['id']}: {held}{gate}")
    return row


def _ratio(a: int, b: int) -> str:
    return f"{a}/{b} = {a / b:.0%}" if b else f"{a}/{b} = -"


def line(row: Row) -> str:
    mean = sum(row.sizes) // len(row.sizes) if row.sizes else 0
    return (
        f"{row.name:>14}: shown {_ratio(row.shown, row.lessons)}; touched "
        f"{_ratio(row.touched, row.lessons)}; by terms {_ratio(row.by_terms, row.lessons)}; "
        f"skipped {row.skipped}/{row.transcripts} transcripts; excerpt chars mean {mean:,}, "
        f"max {max(row.sizes, default=0):,}"
    )


@dataclass
class Gated:
    """What the gate skips in one set, for one writer."""

    name: str
    writer: str
    transcripts: int = 0
    skipped: int = 0
    lessons: int = 0
    lost: int = 0  # lessons of sessions whose every transcript is skipped
    maybe: int = 0  # lessons of sessions with a skipped transcript and another read
    bypassed: int = 0  # notes the heuristic writer writes with its gate bypassed
    listed: list[str] = field(default_factory=list)

    def add(self, other: Gated) -> None:
        for name in ("transcripts", "skipped", "lessons", "lost", "maybe", "bypassed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def _bypassed(path: Path) -> int:
    """Notes the heuristic writer writes for ``path`` given it past the gate, as read."""
    from reflectgit.workflows.drain.heuristic import answer
    from reflectgit.workflows.transcript_file import read_transcript

    transcript = read_transcript(path, max_dialogue_chars=DRAIN_DIALOGUE_CAP)
    return len(answer.write(Prepared(transcript=transcript))["actions"])


def gate(real: Path, judgements: Mapping[str, Any], name: str, model: bool) -> Gated:
    """The transcripts the gate skips for a writer (``model`` or the heuristic one), and the
    judged lessons in them."""
    row = Gated(name, "model" if model else "heuristic")
    for sid, session in judgements["sessions"].items():
        paths = _transcripts(real, session)
        skips = [prepare(str(p), model=model).skip for p in paths]
        lessons = len(session.get("lessons", []))
        row.transcripts += len(paths)
        row.lessons += lessons if paths else 0
        row.skipped += sum(1 for why in skips if why)
        if not any(skips):
            continue
        if all(skips):
            row.lost += lessons
        else:
            row.maybe += lessons
        for p, why in zip(paths, skips, strict=True):
            if why:
                notes = 0 if model else _bypassed(p)
                row.bypassed += notes
                more = "" if all(skips) else f" (of {len(paths)}, others read)"
                said = "" if model else f"; {notes} notes with the gate bypassed"
                row.listed.append(f"{name} {sid} {p.name}: {why}; {lessons} lessons{more}{said}")
    return row


def gate_line(row: Gated) -> str:
    bypass = "" if row.writer == "model" else f"; bypassed, the heuristic writes {row.bypassed}"
    return (
        f"{row.name:>14} {row.writer:>9}: skipped transcripts {row.skipped} of "
        f"{row.transcripts}, judged lessons in them {row.lost} of {row.lessons} "
        f"({row.maybe} more in sessions with another transcript read){bypass}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held-apart", type=Path, action="append", default=[])
    parser.add_argument("--pooled", action="store_true", help="every judged set and the sums")
    parser.add_argument("--list", action="store_true", help="each lesson not shown")
    parser.add_argument(
        "--dialogue-only", action="store_true", help="the excerpt without its tool evidence"
    )
    parser.add_argument(
        "--gate", action="store_true", help="what the gate skips for each writer, and lessons"
    )
    args = parser.parse_args(argv)
    global TOOLS
    TOOLS = not args.dialogue_only
    chosen = sets() if args.pooled else named_sets(args.held_apart)
    if args.gate:
        return gate_main(chosen, args.list)
    total = Row("pooled")
    with tempfile.TemporaryDirectory() as tmp:
        for n, (real, judged) in enumerate(chosen):
            name = "shared" if judged == JUDGEMENTS else real.name
            row = measure(unpacked(real, Path(tmp) / str(n)), load(judged), name)
            total.add(row)
            print(line(row), flush=True)
            if args.list:
                for missing in row.missing:
                    print(f"{'':>16}not shown  {missing}")
    print(line(total))
    return 0


def gate_main(chosen: Sequence[tuple[Path, Path]], listing: bool) -> int:
    """``--gate``: each set's line for each writer, then the sums."""
    totals = {model: Gated("pooled", "model" if model else "heuristic") for model in (False, True)}
    with tempfile.TemporaryDirectory() as tmp:
        for n, (real, judged) in enumerate(chosen):
            name = "shared" if judged == JUDGEMENTS else real.name
            folder = unpacked(real, Path(tmp) / str(n))
            for model in (False, True):
                row = gate(folder, load(judged), name, model)
                totals[model].add(row)
                print(gate_line(row), flush=True)
                if listing:
                    for listed in row.listed:
                        print(f"{'':>16}skipped  {listed}")
    for total in totals.values():
        print(gate_line(total))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
