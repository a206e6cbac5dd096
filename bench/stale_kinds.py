"""The stale flags of every code_aware history, by the kind of reading that made them (issue 35,
"the false alarms by the kind that recurs in most histories").

For every judged note of every history under ``data/code_aware`` (the stale half of
``bench/code_aware.py``, run in this process on this tree's code), each anchor that made the
note stale is read once more: deleted, symbol gone, a whole file's note (no symbol), a note that
names nothing of its block but the symbol, or, for a symbol's block whose change touched lines
holding what the note states (the names, strings and numbers ``codediff`` reads as stated):

- ``kept``: every stated term is on as many lines of the new block as of the old one (the lines
  holding it were rewritten around it);
- ``more-or-fewer``: a stated term is on more or fewer lines, but still in the block;
- ``lost``: a stated term is no longer in the block.

Printed: per kind, the truly stale notes and the false alarms it flags and in how many
histories; then, for each reading a rule could make ("the stated terms still say it: listed under
``changed``, not stale"), the false alarms it clears and the stale notes it loses, the mean
stale recall and false-alarm rate over the histories, and the histories left below 90 % recall.

Run: ``.venv/bin/python bench/stale_kinds.py [--only NAME] [--list]`` (``--list``: each false
alarm with its kind and the judge's reason).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import code_aware  # noqa: E402

from reflectgit.notes import codediff, tokens  # noqa: E402
from reflectgit.notes.respell import respell  # noqa: E402
from reflectgit.workflows.code import staleness  # noqa: E402
from reflectgit.workflows.code.notes import anchored_notes  # noqa: E402

# The arguments and verdict of each anchor's top-level comparison, by (history, note, anchor).
_SEEN: dict[tuple[Any, ...], tuple[tuple[Any, ...], codediff.CodeChange]] = {}
_AT: list[tuple[Any, ...]] = [()]
_compare = staleness.compare


def _spy(*args: Any, **kw: Any) -> codediff.CodeChange:
    verdict = _compare(*args, **kw)
    _SEEN.setdefault(_AT[0], (args, verdict))
    return verdict


def judged_notes(folder: Path, work: Path) -> list[dict[str, Any]]:
    """Each judged note of ``folder``: its verdict, the judge's, and each stale anchor's kind
    (``flagged``: each stale anchor's kind and finding, with the note, the clone and the
    commit it was judged at, for a reader of what else changed in that range)."""
    cases, code, kbs = code_aware.prepare(folder, work)
    project = cases["project"]
    out = []
    for check in cases["stale_checks"]:
        code_aware.git("checkout", "-q", "--detach", check["at"], cwd=code)
        judge = staleness._Judge(code, staleness.codebase.resolve(code, "HEAD") or "", None)
        verdicts = {v["id"]: v for v in check["judged"]}
        for note in anchored_notes(kbs[check["set"]], project=project):
            if note.id not in verdicts:
                continue
            kinds, listed, flagged = [], None, []
            for anchor in note.anchors:
                _AT[0] = (folder.name, check["at"], note.id, anchor.path, anchor.symbol)
                found = judge.anchor(anchor, note.said, note.title)
                if not isinstance(found, staleness.StaleAnchor):
                    continue
                if found.reason in staleness.STALE:
                    kinds.append(kind(found, _SEEN.get(_AT[0])))
                    flagged.append((kinds[-1], found))
                    listed = "stale"
                elif found.reason == "changed-elsewhere" and listed is None:
                    listed = "changed"
            out.append({
                "history": folder.name, "id": note.id, "listed": listed, "kinds": kinds,
                "stale": verdicts[note.id]["stale"], "why": verdicts[note.id]["why"],
                "flagged": flagged, "note": note, "code": code, "at": check["at"],
            })  # fmt: skip
    return out


def kind(found: staleness.StaleAnchor, seen: tuple[tuple[Any, ...], Any] | None) -> str:
    if found.reason != "changed" or seen is None:
        return found.reason
    args, verdict = seen
    if found.anchor.symbol is None:
        return "whole-file"
    if not verdict.names:
        return "names-nothing"
    return stated_kind(*args)


def stated_kind(
    old: str, new: str, path: str, said: str | None, symbol: str | None, title: str | None,
    around: str | None, before: str | None,
) -> str:  # fmt: skip
    """``kept``, ``more-or-fewer`` or ``lost`` (see the module's text), and whether every
    stated term is also in statements of the same kind (``+same-statements``: the line's first
    word of the language, else an assignment or an expression)."""
    old, new = respell(old, new, path, before, around)
    named = codediff.names_in(said, qualifiers=False) if said else set()
    own = symbol.rsplit(".", 1)[-1] if symbol else None
    stating = codediff._Stating(named - {own}, said or "", path, own if own in named else None)

    def statement(line: list[str]) -> str:
        words = [t for t in line if t not in "(){}"]
        if words and words[0] in tokens.KEYWORDS:
            return words[0]
        return "=" if "=" in line else "expression"

    def terms(code: str) -> Counter[tuple[str, str]]:
        found: Counter[tuple[str, str]] = Counter()
        for line in tokens.lines(code, path):
            for term in stating.of([line]):
                found[term, statement(line)] += 1
        return found

    a, b = terms(old), terms(new)
    per_a, per_b = Counter(), Counter()
    for (term, _), n in a.items():
        per_a[term] += n
    for (term, _), n in b.items():
        per_b[term] += n
    if set(per_a) - set(per_b):
        return "lost"
    same = "+same-statements" if a == b else ""
    return ("kept" if per_a == per_b else "more-or-fewer") + same


# The readings a rule could make, each "the stated terms still say it: not stale".
READINGS: dict[str, Callable[[str], bool]] = {
    "every stated term on as many lines": lambda k: k.startswith("kept"),
    "the same, in statements of the same kind": lambda k: k == "kept+same-statements",
    "every stated term still in the block": lambda k: k.startswith(("kept", "more-or-fewer")),
}


def figures(notes: list[dict[str, Any]], cleared: Callable[[str], bool]) -> dict[str, Any]:
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # tp fn fp tn
    for n in notes:
        flagged = n["listed"] == "stale" and not all(cleared(k) for k in n["kinds"])
        per[n["history"]][(0 if flagged else 1) if n["stale"] else (2 if flagged else 3)] += 1
    recall = [tp / (tp + fn) for tp, fn, _, _ in per.values() if tp + fn]
    alarms = [fp / (fp + tn) for _, _, fp, tn in per.values() if fp + tn]
    return {
        "false_alarms": sum(p[2] for p in per.values()),
        "stale_missed": sum(p[1] for p in per.values()),
        "mean_recall": round(statistics.mean(recall), 3),
        "mean_false_alarms": round(statistics.mean(alarms), 3),
        "below_90": sorted(
            h for h, (tp, fn, _, _) in per.items() if tp + fn and tp / (tp + fn) < 0.9
        ),
    }


def arguments(doc: str, listed: str, argv: list[str] | None) -> argparse.Namespace:
    """The readers' options: ``--data`` (the histories' folder), ``--only NAME`` and ``--list``
    (``listed``: what it prints)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--data", type=Path, default=code_aware.DATA)
    parser.add_argument("--only", action="append", metavar="NAME")
    parser.add_argument("--list", action="store_true", help=listed)
    return parser.parse_args(argv)


def histories(data: Path, only: list[str] | None) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Each history under ``data`` (of those ``only`` names, when given), its name and its
    judged notes (``judged_notes``), one at a time: its clone stays while the caller reads them."""
    staleness.compare = _spy  # type: ignore[assignment]
    with tempfile.TemporaryDirectory(prefix="stale-kinds-") as tmp:
        for folder in sorted(p for p in data.iterdir() if p.is_dir()):
            if only and folder.name not in only:
                continue
            work = Path(tmp) / folder.name
            work.mkdir()
            yield folder.name, judged_notes(folder, work)


def flagged_kind(note: dict[str, Any]) -> str:
    """The kinds of a flagged note's stale anchors, as one row of the tables."""
    return " + ".join(sorted({k.split("+")[0] for k in note["kinds"]}))


def count(row: list[Any], note: dict[str, Any]) -> None:
    """Count ``note`` in ``row`` (truly stale, their histories, false alarms, theirs)."""
    at = 0 if note["stale"] else 2
    row[at] += 1
    row[at + 1].add(note["history"])


def main(argv: list[str] | None = None) -> int:
    args = arguments(__doc__, "each false alarm with its kind", argv)
    notes = [n for _, found in histories(args.data, args.only) for n in found]
    by_kind: dict[str, list[Any]] = defaultdict(lambda: [0, set(), 0, set()])
    for n in notes:
        if n["listed"] != "stale":
            continue
        count(by_kind[flagged_kind(n)], n)
        if args.list and not n["stale"]:
            print(f"  false alarm {n['history']} {n['id']} [{', '.join(n['kinds'])}]: {n['why']}")
    print("| kind | truly stale (histories) | false alarms (histories) |")
    print("|---|---|---|")
    for k, (tp, th, fp, fh) in sorted(by_kind.items(), key=lambda r: (-len(r[1][3]), r[0])):
        print(f"| {k} | {tp} ({len(th)}) | {fp} ({len(fh)}) |")
    print("as flagged:", figures(notes, lambda k: False))
    for name, reading in READINGS.items():
        print(f"{name}:", figures(notes, reading))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
