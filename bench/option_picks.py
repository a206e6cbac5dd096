"""The person's typed pick among the assistant's numbered options, measured before any reading
is built (issue 34, recall).

The assistant ends a turn with a numbered or lettered list (options, findings, steps: "1.
**Python deps** ...", "2. **Settings** ... (e.g. `component-name.key=value` or
`component-name:key=value`)", "**Option B**: ...") and the person answers by its labels: "2",
"2. use period.", "go with option B", "1 and 3, skip 2", "option 2 but ...". Over every person
turn of the judged sets (the shared sessions and each ``--held-apart`` folder), this counts the
turns that pick or answer items of the list of the assistant's turn just before, the sets they
are in, and those at a lesson the heuristic drain misses (the lesson's ``where``, as
``bench/recall_misses.py`` reads it). A turn at a missed lesson is what a reading could gain;
every other turn is a note it could write that keeps no lesson (a pick that only steers the
task), to be read with its session before anything is built (docs/drain.md, "the person's typed
pick among the assistant's numbered options"). A numbered list of the person's own (a pasted
review, a list of requests) after the assistant's has the same shape and is counted too.

Run: ``.venv/bin/python bench/option_picks.py [--held-apart DIR ...] [--list]``
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.quality import listing_main  # noqa: E402
from bench.recall_misses import _transcripts, missed, where  # noqa: E402
from reflectgit.workflows.drain.cascade import DRAIN_DIALOGUE_CAP, _dialogue, prepare  # noqa: E402

# An item of the assistant's list: "1. ...", "2) ...", "A. ...", "**Option B**: ...",
# "### Option 2 - ...", "(a) ...".
_ITEM = re.compile(
    r"^\s*(?:[-*]\s+)?(?:#{1,4}\s*)?(?:\*\*)?\(?(?:option|approach|choice)?\s*"
    r"(\d{1,2}|[A-Ha-h])(?:[.):]|\*\*|\s*[-–—:])",
    re.I,
)
# The person's line that answers an item by its label: "2. use period.", "2", "B", "a) yes".
_ANSWERS_ITEM = re.compile(r"^\s*(?:option\s+|#)?(\d{1,2}|[A-Ha-h])\s*(?:[.):\-–]\s*|\s*$)", re.I)
# A label named in the person's words: "option 2", "go with B", "1 and 3", "skip 2", "#2" (not
# Claude Code's "[Image #2]", an attachment's placeholder).
_NAMES_LABEL = re.compile(
    r"\b(?i:option|approach|choice|item|number|no\.?|go with|went with|do|pick|take|prefer|"
    r"skip|like|use|and|or)\s+#?(\d{1,2}|[A-H])\b|(?<!\[Image )#(\d{1,2})\b|"
    r"^\s*(\d{1,2}|[A-H])\s*(?:and|&|,|\+|or)\s",
)


def labels(text_lines: Sequence[str]) -> set[str]:
    """The labels of the list items in an assistant turn's lines, when it has two or more."""
    found = [m.group(1).upper() for t in text_lines if (m := _ITEM.match(t))]
    return set(found) if len(set(found)) >= 2 else set()


def picks(person: Sequence[str], offered: set[str]) -> list[str]:
    """The person's lines that pick or answer items labelled in ``offered``."""
    out = []
    for text in person:
        m = _ANSWERS_ITEM.match(text)
        if m and m.group(1).upper() in offered:
            out.append(text)
            continue
        named = {g.upper() for m in _NAMES_LABEL.finditer(text) for g in m.groups() if g}
        if named and named <= offered and len(text) <= 400:
            out.append(text)
    return out


def turns(lines: Sequence[Any]) -> list[tuple[str, int, list[Any]]]:
    """The dialogue as (speaker, turn, lines) runs."""
    out: list[tuple[str, int, list[Any]]] = []
    for x in lines:
        if out and out[-1][0] == x.speaker and out[-1][1] == x.turn:
            out[-1][2].append(x)
        else:
            out.append((x.speaker, x.turn, [x]))
    return out


def measure(real: Path, judgements: Mapping[str, Any], name: str) -> list[dict[str, Any]]:
    """One row per person turn that picks among the assistant's items: the set, session, the
    lines that pick, the items offered and the missed lessons at them."""
    lessons = defaultdict(list)
    for row in missed(real, judgements):
        lessons[row["session"]].append((where(row["lesson"]), row["lesson"]))
    out = []
    for sid, session in judgements["sessions"].items():
        for path in _transcripts(real, session):
            prepared = prepare(str(path))
            if prepared.transcript is None:
                continue
            runs = turns(list(_dialogue(prepared.transcript.turns, DRAIN_DIALOGUE_CAP)))
            for before, now in pairwise(runs):
                if before[0] == "person" or now[0] != "person":
                    continue
                offered = labels([x.text for x in before[2]])
                picked = picks([x.text for x in now[2]], offered) if offered else []
                if not picked:
                    continue
                at = [
                    lesson
                    for (unit, numbers), lesson in lessons[sid]
                    if any((x.turn if unit == "turn" else x.record) in numbers for x in now[2])
                ]
                out.append(
                    {
                        "set": name,
                        "session": sid,
                        "record": now[2][0].record,
                        "turn": now[1],
                        "picked": picked,
                        "offered": sorted(offered),
                        "at": at,
                    }
                )
    return out


def table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Turns and sets; turns, lessons and sets at a missed lesson (a rule, or any kind)."""
    out = [f"picks {len(rows):4d} turns in {len({r['set'] for r in rows}):2d} sets"]
    for kind in ("rule", None):
        gain = [r for r in rows if any(kind in (None, a.get("kind")) for a in r["at"])]
        found = {
            (r["set"], r["session"], a["id"])
            for r in gain
            for a in r["at"]
            if kind in (None, a.get("kind"))
        }
        out.append(
            f"  at a missed {kind or 'lesson'}: {len(gain):3d} turns, {len(found):2d} lessons "
            f"in {len({r['set'] for r in gain}):2d} sets"
        )
    return out


def listed(r: Mapping[str, Any]) -> str:
    """A pick's line under ``--list``: where, the missed lessons it sits at, what it says."""
    mark = "MISSED " + ",".join(a["id"] for a in r["at"]) if r["at"] else "-"
    text = " | ".join(" ".join(t.split())[:100] for t in r["picked"])[:240]
    return f"{r['set']}/{r['session']}@{r['record']} [{mark}] {text}"


def main(argv: list[str] | None = None) -> int:
    doc = __doc__.splitlines()[0]
    return listing_main(argv, doc, measure, listed, table, "one line per pick")


if __name__ == "__main__":
    raise SystemExit(main())
