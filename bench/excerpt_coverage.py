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

Run: ``.venv/bin/python bench/excerpt_coverage.py --pooled`` (every judged set), or
``--held-apart DIR`` (repeatable; the shared sessions come first when ``../shared`` is there).
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
    prepared: Prepared = prepare(str(path), open_unread=True, tools=TOOLS)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held-apart", type=Path, action="append", default=[])
    parser.add_argument("--pooled", action="store_true", help="every judged set and the sums")
    parser.add_argument("--list", action="store_true", help="each lesson not shown")
    parser.add_argument(
        "--dialogue-only", action="store_true", help="the excerpt without its tool evidence"
    )
    args = parser.parse_args(argv)
    global TOOLS
    TOOLS = not args.dialogue_only
    chosen = sets() if args.pooled else named_sets(args.held_apart)
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


if __name__ == "__main__":
    raise SystemExit(main())
