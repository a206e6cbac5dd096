"""Which judged notes a change to ``stale`` moves, over every code_aware history (issue 35,
"stale false alarms"): the stale half of ``bench/code_aware.py`` run in this process on this
tree's code (``stale_kinds.histories``: its totals are the bench's), each judged note's listing
written to a JSON file; two such files compared.

Run: ``.venv/bin/python bench/stale_moves.py dump OUT.json [--only NAME]`` in each tree (a
reading built, and the tree without it), then ``.venv/bin/python bench/stale_moves.py compare
BEFORE.json AFTER.json``: each file's mean stale recall and mean false-alarm rate per history
(pooled counts beside them, and the histories under 90 % recall), then every note whose
listing moved (``stale``, ``changed``, ``moved`` or not listed), with the judge's verdict.

``.venv/bin/python bench/stale_moves.py why [--only NAME]``: each truly stale note ``stale``
does not list as stale, each anchor with the check that turned its flag off (``untouched``: the
file did not change; ``overload``: the first definition of the name, which ``stale`` compares,
did not change while another definition did, ``overloads-added`` when their number changed;
``swept``: a sweeping edit, ``notes/sweeps.py``; else ``codediff.compare``'s verdict and the
line of it that returned, ``elsewhere`` at the line that found nothing stated), then the misses
counted by check and by history.
"""

from __future__ import annotations

import argparse
import json
import linecache
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import code_aware  # noqa: E402
import stale_kinds  # noqa: E402

from reflectgit.git import codebase  # noqa: E402
from reflectgit.notes import anchors, codediff, languages  # noqa: E402
from reflectgit.workflows.code import staleness  # noqa: E402


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


def why(only: list[str] | None) -> None:
    """Print each truly stale note not listed as stale, anchor by anchor, with the check that
    turned its flag off (see the module's text), then the misses counted by check."""
    checks: Counter[str] = Counter()
    where: dict[str, set[str]] = defaultdict(set)
    for name, notes in stale_kinds.histories(code_aware.DATA, only):
        for n in notes:
            if not n["stale"] or n["listed"] == "stale":
                continue
            print(f"{name} {n['id']} (listed {n['listed']}): {n['why'][:160]}")
            judge = staleness._Judge(n["code"], codebase.resolve(n["code"], "HEAD") or "", None)
            for anchor in n["note"].anchors:
                check = _check(judge, anchor, n["note"])
                print(f"  {anchor.path}:{anchor.symbol or ''} -> {check}")
                checks[check.split(" (")[0]] += 1
                where[check.split(" (")[0]].add(name)
    print("\nmisses by check (anchors, histories):")
    for check, count in checks.most_common():
        print(f"  {count:3d} {len(where[check]):3d}  {check}")


def _check(judge: Any, anchor: Any, note: Any) -> str:
    """The check that left ``anchor`` of ``note`` unflagged (see ``why``)."""
    returned: list[int] = []
    depth = [0]
    code = codediff.compare.__code__

    def watch(frame: Any, event: str, _: Any) -> None:
        if frame.f_code is code:
            depth[0] += event == "call"
            if event == "return":
                if depth[0] == 1:
                    returned.append(frame.f_lineno)
                depth[0] -= 1

    swept: list[bool] = []
    was = judge._swept
    judge._swept = lambda *a: swept.append(was(*a)) or swept[-1]
    sys.setprofile(watch)
    try:
        found = judge.anchor(anchor, note.said, note.title)
    finally:
        sys.setprofile(None)
        judge._swept = was
    reason = found.reason if isinstance(found, staleness.StaleAnchor) else "not listed"
    if reason in staleness.STALE:
        return f"flagged {reason}"
    if any(swept):
        return "swept"
    diff = judge._diff(anchor.commit) if anchor.commit else None
    change = diff[1].get(anchor.path) if diff else None
    if diff and change is None:
        return "untouched"
    if anchor.symbol and change is not None and change.new is not None:
        old, new = codebase.texts(
            judge.root, [(anchor.commit, anchor.path), (judge.head, change.new)], judge.env
        )
        read = languages.read_as(change.new, new)
        first = staleness._code(old, new, anchor.symbol, read)
        if None not in first and staleness._same(*first, read):
            before = anchors.anchored_blocks(old, anchor.symbol, read) if old else []
            after = anchors.anchored_blocks(new, anchor.symbol, read) if new else []
            if len(before) != len(after):
                return "overloads-added"
            if not staleness._same("".join(before), "".join(after), read):
                return "overload"
    if not returned:
        return reason
    line = linecache.getline(code.co_filename, returned[0]).strip()
    return f"{reason}: compare line {returned[0]} ({line})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out", type=Path)
    d.add_argument("--only", action="append", metavar="NAME")
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    w = sub.add_parser("why")
    w.add_argument("--only", action="append", metavar="NAME")
    args = parser.parse_args(argv)
    if args.command == "dump":
        dump(args.out, args.only)
    elif args.command == "why":
        why(args.only)
    else:
        compare(args.before, args.after)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
