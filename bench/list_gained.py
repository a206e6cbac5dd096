"""Where a list or table the note enumerates gained a member, over every code_aware history
(issue 35, ``notes/enumerations.py``), split by the judge's verdict.

For every judged note of every history under ``data/code_aware`` (the stale half of
``bench/code_aware.py``, run in this process on this tree's code, as ``stale_kinds`` runs it),
each anchor whose code changed is read once more with ``enumerations.gained`` (its old and new
block, the note's title and text): does an enumeration the note states two or more members of
hold a member new to the block? Printed: the notes it finds, truly stale and fresh, by how
``stale`` lists them (``stale`` by this reading, by another, ``changed``, not listed), with
their histories; then the anchors whose note enumerates a list of the old block at all (the
reading's exposure), truly stale and fresh.

Run: ``.venv/bin/python bench/list_gained.py [--only NAME] [--list]`` (``--list``: each note
found, with the members gained and the judge's reason).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import stale_kinds  # noqa: E402

from reflectgit.notes import enumerations, tokens  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    args = stale_kinds.arguments(__doc__, "each note found", argv)
    found: dict[tuple[bool, str], list[Any]] = defaultdict(lambda: [0, set()])
    exposed: dict[bool, list[Any]] = defaultdict(lambda: [0, set()])
    for history, notes in stale_kinds.histories(args.data, args.only):
        for n in notes:
            note = n["note"]
            said = f"{note.title or ''} {note.said}"
            gained: list[str] = []
            by_this = False
            for anchor in note.anchors:
                seen = stale_kinds._SEEN.get(
                    (history, n["at"], note.id, anchor.path, anchor.symbol)
                )
                if seen is None:
                    continue
                (old, new, path, *_), verdict = seen
                gained += enumerations.gained(old, new, path, said)
                if verdict.kind == "elsewhere" and enumerations.enumerated(
                    tokens.lines(old, path), said
                ):
                    exposed[n["stale"]][0] += 1
                    exposed[n["stale"]][1].add(history)
                by_this = by_this or (verdict.kind == "elsewhere" and bool(gained))
            if not gained:
                continue
            listed = "stale, by this reading" if by_this else (n["listed"] or "not listed")
            row = found[n["stale"], listed]
            row[0] += 1
            row[1].add(history)
            if args.list:
                judged = "stale" if n["stale"] else "fresh"
                print(f"  {judged} {history} {note.id} [{listed}] gained {gained}: {n['why']}")
    print("| judged | listed | notes (histories) |")
    print("|---|---|---|")
    for (stale, listed), (count, where) in sorted(found.items(), key=str):
        print(f"| {'stale' if stale else 'fresh'} | {listed} | {count} ({len(where)}) |")
    for stale, (count, where) in sorted(exposed.items()):
        judged = "stale" if stale else "fresh"
        print(f"{judged} notes changed elsewhere that enumerate a list: {count} ({len(where)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
