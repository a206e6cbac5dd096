"""The stale false alarms of every code_aware history, by why they were flagged, and the readings
of what the note states measured on them (issue 35, "stale false alarms").

A false alarm is a note the judge calls still true that ``stale`` lists under ``stale`` with the
reason ``changed``. For each history under ``data/code_aware`` the stale half of
``bench/code_aware.py`` runs in this process on this tree's code (``stale_kinds.histories``:
its totals are the bench's), and each false alarm is counted by the judge's word for it (the
first word of the reason: ``changed-unrelated``, a body rewritten around a lesson that holds;
``cosmetic``, the same code respelled; ``changed-elsewhere-in-file``, a whole file's note
changed in another part; ``renamed``; ``untouched``) and by what ``stale`` saw
(``stale_kinds.kind``).

Then each reading is measured as a rule "such an anchor is ``changed-elsewhere`` (still listed
under ``changed``), not stale", every anchor that made the note stale read so, on all the
histories at once: the false alarms it clears, the truly stale notes it loses, the mean stale
recall and false-alarm rate, and the histories it takes below 90 % recall. The readings, each
grounded in what the note states:

- ``prose words only``: a symbol's block changed on lines holding what the note states, and
  every name of the note the change touched is a word the note writes as prose (a plain
  lowercase word outside its code spans, ``codediff.code_names``), no name it writes as code
  and no string it quotes;
- ``messages state nothing``: an anchor whose code changed (not one deleted or whose symbol
  is gone), and no word of the note (title and text, ``change_notes._words``:
  four letters or more, not the commit messages' noise, not the language's words, not the
  project's name) is a word of the messages (subject and body) of the commits that changed the
  anchored code, the anchor's own symbol and path words aside;
- both together, and both with the words compared by ``search.query.light_stem``, or by a
  cruder stemmer that cuts ``-able`` too (``cut``: tried after reading fmt's miss, for the
  record).

Run: ``.venv/bin/python bench/stale_alarms.py [--only NAME] [--list]`` (``--list``: each false
alarm with its class, its kind and the judge's reason, and each note a reading moves).
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import code_aware  # noqa: E402
import stale_kinds  # noqa: E402

from reflectgit.notes.codediff import code_names  # noqa: E402
from reflectgit.notes.tokens import is_string  # noqa: E402
from reflectgit.workflows.code import staleness  # noqa: E402
from reflectgit.workflows.code.change_notes import _words  # noqa: E402
from reflectgit.workflows.search.query import light_stem  # noqa: E402

# What ``stale_kinds.kind`` calls a symbol's block changed on lines holding what the note states.
STATED = ("lost", "more-or-fewer", "kept")
Reading = Callable[[dict[str, Any], str, staleness.StaleAnchor], bool]


def messages(code: Path, found: staleness.StaleAnchor) -> str:
    """The messages (subject and body) of the commits that changed the anchored code."""
    shas = [c.sha for c in found.commits]
    if not shas:
        return ""
    return code_aware.git("log", "--no-walk=unsorted", "--format=%B", *shas, cwd=code)


def prose_only(note: dict[str, Any], kind: str, found: staleness.StaleAnchor) -> bool:
    if kind.split("+")[0] not in STATED or not found.names:
        return False
    said = f"{note['note'].title or ''} {note['note'].said or ''}"
    coded = code_names(said)
    return all(not is_string(n) and n not in coded for n in found.names)


# A cruder stemmer than ``light_stem`` (it cuts ``-able``: ``nestable`` and ``nested`` are
# ``nest``), measured for the record: it was tried after reading fmt's miss.
_CUT = ("ations", "ation", "ables", "able", "ings", "ing", "ers", "er", "ed", "es", "s", "ly")


def cut(word: str) -> str:
    for suffix in _CUT:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def unsaid(stem: Callable[[str], str] | None) -> Reading:
    def reading(note: dict[str, Any], kind: str, found: staleness.StaleAnchor) -> bool:
        project = note["history"]
        words = _words(f"{note['note'].title or ''} {note['note'].said or ''}", project)
        told = _words(note["messages"][id(found)], project)
        own = _words(f"{found.anchor.symbol or ''} {found.anchor.path}", project)
        if stem is not None:
            words, told, own = ({stem(w) for w in s} for s in (words, told, own))
        return found.reason == "changed" and bool(found.commits) and not (words & told) - own

    return reading


READINGS: dict[str, Reading] = {
    "prose words only": prose_only,
    "messages state nothing": unsaid(None),
    "both": lambda n, k, f: prose_only(n, k, f) and unsaid(None)(n, k, f),
    "both, words stemmed": lambda n, k, f: prose_only(n, k, f) and unsaid(light_stem)(n, k, f),
    "both, words cut (-able too)": lambda n, k, f: prose_only(n, k, f) and unsaid(cut)(n, k, f),
}


def moved(note: dict[str, Any], reading: Reading) -> bool:
    """Would ``reading`` take ``note`` off the stale list (every anchor that made it stale read
    as changed elsewhere)?"""
    return note["listed"] == "stale" and all(reading(note, k, f) for k, f in note["flagged"])


def per_history(notes: list[dict[str, Any]], cleared: Callable[[dict[str, Any]], bool]) -> Any:
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # tp fn fp tn
    for n in notes:
        flagged = n["listed"] == "stale" and not cleared(n)
        per[n["history"]][(0 if flagged else 1) if n["stale"] else (2 if flagged else 3)] += 1
    recall = {h: tp / (tp + fn) for h, (tp, fn, _, _) in per.items() if tp + fn}
    alarms = {h: fp / (fp + tn) for h, (_, _, fp, tn) in per.items() if fp + tn}
    return recall, alarms


def main(argv: list[str] | None = None) -> int:
    args = stale_kinds.arguments(__doc__, "each false alarm and each note a reading moves", argv)
    notes = []
    for _, found in stale_kinds.histories(args.data, args.only):
        for n in found:
            n["messages"] = {id(f): messages(n["code"], f) for _, f in n["flagged"]}
            notes.append(n)
    alarms = [n for n in notes if n["listed"] == "stale" and not n["stale"]]
    rows: dict[tuple[str, str], list[Any]] = defaultdict(lambda: [0, set()])
    for n in alarms:
        judged = n["why"].split(":", 1)[0].strip()
        row = rows[judged, stale_kinds.flagged_kind(n)]
        row[0] += 1
        row[1].add(n["history"])
        if args.list:
            print(f"  false alarm {n['history']} {n['id']} [{judged}; {', '.join(n['kinds'])}]:")
            print(f"    {n['why']}")
    print(f"false alarms: {len(alarms)} in {len({n['history'] for n in alarms})} histories")
    print("| the judge's word | what `stale` saw | false alarms (histories) |")
    print("|---|---|---|")
    for (judged, kind), (count, where) in sorted(rows.items(), key=lambda r: -r[1][0]):
        print(f"| {judged} | {kind} | {count} ({len(where)}) |")
    recall0, alarms0 = per_history(notes, lambda n: False)
    print(
        f"as flagged: mean stale recall {statistics.mean(recall0.values()):.4f}, mean false"
        f" alarms {statistics.mean(alarms0.values()):.4f}, below 90 %:"
        f" {sorted(h for h, r in recall0.items() if r < 0.9)}"
    )
    for name, reading in READINGS.items():
        hit = [n for n in notes if moved(n, reading)]
        cleared = Counter(n["history"] for n in hit if not n["stale"])
        lost = [n for n in hit if n["stale"]]
        ids = {id(n) for n in hit}
        recall, rate = per_history(notes, lambda n, ids=ids: id(n) in ids)
        below = sorted(h for h, r in recall.items() if r < 0.9 and recall0[h] >= 0.9)
        print(
            f"{name}: clears {sum(cleared.values())} false alarms ({len(cleared)} histories),"
            f" loses {len(lost)} stale ({len({n['history'] for n in lost})}); mean stale recall"
            f" {statistics.mean(recall.values()):.4f}, mean false alarms"
            f" {statistics.mean(rate.values()):.4f}; newly below 90 %: {below}"
        )
        print(f"  stale lost: {[(n['history'], n['id']) for n in lost]}")
        if args.list:
            print(f"  cleared: {[(n['history'], n['id']) for n in hit if not n['stale']]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
