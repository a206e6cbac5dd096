"""Which judged notes a change to ``stale`` moves, over every code_aware history (issue 35,
"stale false alarms"): the stale half of ``bench/code_aware.py`` run in this process on this
tree's code (``stale_kinds.histories``: its totals are the bench's), each judged note's listing
written to a JSON file; two such files compared.

Run: ``.venv/bin/python bench/stale_moves.py dump OUT.json [--only NAME]`` in each tree (a
reading built, and the tree without it), then ``.venv/bin/python bench/stale_moves.py compare
BEFORE.json AFTER.json``: each file's mean stale recall and mean false-alarm rate per history
(pooled counts beside them, and the histories under 90 % recall), then every note whose
listing moved (``stale``, ``changed``, ``moved`` or not listed), with the judge's verdict.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import code_aware  # noqa: E402
import stale_kinds  # noqa: E402


def dump(out: Path, only: list[str] | None) -> None:
    rows = []
    for _, notes in stale_kinds.histories(code_aware.DATA, only):
        for n in notes:
            rows.append({
                "history": n["history"], "id": n["id"], "at": n["at"], "stale": n["stale"],
                "listed": n["listed"], "why": n["why"],
            })  # fmt: skip
    out.write_text(json.dumps(rows, indent=0))


def figures(rows: list[dict[str, Any]]) -> str:
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # tp fn fp tn
    for n in rows:
        flagged = n["listed"] == "stale"
        per[n["history"]][(0 if flagged else 1) if n["stale"] else (2 if flagged else 3)] += 1
    recall = {h: tp / (tp + fn) for h, (tp, fn, _, _) in per.items() if tp + fn}
    alarms = [fp / (fp + tn) for _, _, fp, tn in per.values() if fp + tn]
    tp, fn, fp, tn = (sum(p[i] for p in per.values()) for i in range(4))
    return (
        f"mean stale recall {statistics.mean(recall.values()):.4f} ({tp}/{tp + fn}), mean false"
        f" alarms {statistics.mean(alarms):.4f} ({fp}/{fp + tn}), below 90 %:"
        f" {sorted(h for h, r in recall.items() if r < 0.9)}"
    )


def compare(before: Path, after: Path) -> None:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    print(f"before: {figures(a)}")
    print(f"after:  {figures(b)}")
    was = {(n["history"], n["at"], n["id"]): n["listed"] for n in a}
    for n in b:
        old = was.get((n["history"], n["at"], n["id"]), n["listed"])
        if old != n["listed"]:
            judged = "stale" if n["stale"] else "fresh"
            print(f"  {n['history']} {n['id']} (judged {judged}): {old} -> {n['listed']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out", type=Path)
    d.add_argument("--only", action="append", metavar="NAME")
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "dump":
        dump(args.out, args.only)
    else:
        compare(args.before, args.after)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
