"""How much of its code changed, for the stale notes that name nothing of it (issue 35, "say how
much the anchored code changed").

A note that names nothing of its code beyond the symbol (or, on a whole file, beyond its path)
gives ``stale`` nothing to compare: any change counts (``codediff.CodeChange.unnamed``). For
every judged note of every history under ``data/code_aware`` that ``stale`` lists as stale only
through such anchors (the stale half of ``bench/code_aware.py``, run in this process on this
tree's code: ``stale_kinds.histories``), each anchor is measured: the share of its lines of
code the change removed, rewrote or added (``codediff.size``), the share of its tokens (the
longer side of each group a token diff replaced), and the commits that changed it.

The same is measured, for comparison, on the notes on whole files that ``stale`` lists only
through changes to what they name (``GROUPS``).

Printed: each such note (with ``--list``), the judged stale and fresh ones side by side, and
for each threshold a rule could take ("an unnamed anchor changed less than this is
``changed-elsewhere``, listed under ``changed``, not stale"), the false alarms it clears, the
truly stale notes it loses (and in which histories), the mean stale recall and false-alarm
rate over all the histories and the histories it takes below 90 % recall.

Run: ``.venv/bin/python bench/stale_sizes.py [--only NAME] [--list]``.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import stale_alarms  # noqa: E402
import stale_kinds  # noqa: E402

from reflectgit.notes import codediff  # noqa: E402
from reflectgit.notes.tokens import tokens  # noqa: E402


def token_share(old: str, new: str, path: str) -> float:
    """The share of the block's tokens a change removed, rewrote or added."""
    a, b = tokens(old, path), tokens(new, path)
    touched = sum(
        max(i2 - i1, j2 - j1)
        for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, False).get_opcodes()
        if op != "equal"
    )
    return touched / max(len(a), len(b), 1)


# The groups measured: notes stale only through anchors whose note names nothing of their code
# (``unnamed``, what a rule could take), and, for comparison, notes on whole files stale only
# through changes to what they name (``whole files``; the row "a whole file's note, the file
# changed" of ``stale_alarms`` counts both).
GROUPS = ("unnamed", "whole files")


def measured(note: dict[str, Any], group: str) -> list[dict[str, Any]] | None:
    """Each stale anchor of ``note`` measured, or None when one of them is not of ``group``."""
    out = []
    for _, found in note["flagged"]:
        key = (note["history"], note["at"], note["id"], found.anchor.path, found.anchor.symbol)
        seen = stale_kinds._SEEN.get(key)
        if found.reason != "changed" or seen is None:
            return None
        if seen[1].unnamed != (group == "unnamed"):
            return None
        if group == "whole files" and found.anchor.symbol and not found.whole_file:
            return None
        args = seen[0]
        old, new, path = args[0], args[1], args[2]
        changed, of = codediff.size(old, new, path)
        out.append({
            "symbol": found.anchor.symbol, "lines": (changed, of),
            "line_share": changed / max(of, 1), "token_share": token_share(old, new, path),
            "commits": len(found.commits),
        })  # fmt: skip
    return out or None


def main(argv: list[str] | None = None) -> int:
    args = stale_kinds.arguments(__doc__, "each note measured", argv)
    notes: list[dict[str, Any]] = []
    for _, found in stale_kinds.histories(args.data, args.only):
        for n in found:
            for group in GROUPS:
                n[group] = measured(n, group) if n["listed"] == "stale" else None
            notes.append(n)
    recall0, alarms0 = stale_alarms.per_history(notes, lambda n: False)
    print(
        f"as flagged: mean stale recall {statistics.mean(recall0.values()):.4f}, mean false"
        f" alarms {statistics.mean(alarms0.values()):.4f}, below 90 %:"
        f" {sorted(h for h, r in recall0.items() if r < 0.9)}"
    )
    for group in GROUPS:
        for n in notes:
            n["sizes"] = n[group]
        print(f"== {group}")
        report(notes, recall0, args.list)
    return 0


def report(notes: list[dict[str, Any]], recall0: dict[str, float], listed: bool) -> None:
    """The measures of the notes whose ``sizes`` are set, and each rule's figures."""
    blind = [n for n in notes if n["sizes"]]
    print(f"stale through such anchors only: {len(blind)} notes")
    for judged in (True, False):
        group = [n for n in blind if n["stale"] is judged]
        hs = sorted({n["history"] for n in group})
        print(f"judged {'stale' if judged else 'fresh'}: {len(group)} notes in {len(hs)} histories")
        for measure in ("line_share", "token_share", "commits"):
            values = sorted(max(a[measure] for a in n["sizes"]) for n in group)
            if values:
                quart = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
                print(
                    f"  {measure}: min {values[0]:.2f} quartiles"
                    f" {', '.join(f'{q:.2f}' for q in quart)} max {values[-1]:.2f}"
                )
    if listed:
        for n in sorted(blind, key=lambda n: max(a["line_share"] for a in n["sizes"])):
            for a in n["sizes"]:
                print(
                    f"  {'STALE' if n['stale'] else 'fresh'} {n['history']} {n['id']}"
                    f" {a['symbol'] or '(file)'}: {a['lines'][0]}/{a['lines'][1]} lines"
                    f" ({a['line_share']:.2f}), tokens {a['token_share']:.2f},"
                    f" {a['commits']} commits | {n['why'][:90]}"
                )
    rules: dict[str, Callable[[dict[str, Any]], bool]] = {}
    for t in (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5):
        rules[f"lines < {t}"] = lambda a, t=t: a["line_share"] < t
        rules[f"tokens < {t}"] = lambda a, t=t: a["token_share"] < t
    for c in (1, 2):
        rules[f"commits <= {c}"] = lambda a, c=c: a["commits"] <= c
    for t in (0.1, 0.2, 0.3):
        rules[f"lines < {t} and commits <= 1"] = lambda a, t=t: (
            a["line_share"] < t and a["commits"] <= 1
        )
    for name, rule in rules.items():
        hit = [n for n in blind if all(rule(a) for a in n["sizes"])]
        ids = {id(n) for n in hit}
        recall, rate = stale_alarms.per_history(notes, lambda n, ids=ids: id(n) in ids)
        cleared = [n for n in hit if not n["stale"]]
        lost = [n for n in hit if n["stale"]]
        below = sorted(h for h, r in recall.items() if r < 0.9 and recall0[h] >= 0.9)
        print(
            f"{name}: clears {len(cleared)} false alarms"
            f" ({len({n['history'] for n in cleared})} histories: "
            f"{', '.join(sorted({n['history'] for n in cleared}))}), loses {len(lost)} stale"
            f" ({', '.join(sorted(n['history'] for n in lost))}); mean stale recall"
            f" {statistics.mean(recall.values()):.4f}, mean false alarms"
            f" {statistics.mean(rate.values()):.4f}; newly below 90 %: {below}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
