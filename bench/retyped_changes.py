"""Which judged notes a change of types alone moves, over the code_aware histories (issue 35,
RETYPED): the stale half of ``bench/code_aware.py`` run in this process on this tree's code
(``stale_kinds.histories``), once without the RETYPED reading (``staleness._retyped`` left
out) and once with it, printing each stale anchor whose change only added, changed or dropped
declared types (``typehints.retyped``, on the code ``codediff.compare`` was given, respelled
first), the judge's verdict, and each note whose listing the reading moves.

Run: ``.venv/bin/python bench/retyped_changes.py [--only NAME]...``. Only the histories with
an anchored file in a language whose declarations ``typehints`` reads can move.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import code_aware  # noqa: E402
import stale_kinds  # noqa: E402

from reflectgit.notes.respell import respell  # noqa: E402
from reflectgit.notes.typehints import retyped  # noqa: E402
from reflectgit.workflows.code import staleness  # noqa: E402

_BUILT = staleness._retyped


def _off(verdict: Any, *_: Any) -> Any:
    return verdict


def listings(only: list[str] | None, reading: Callable[..., Any]) -> dict[tuple[str, ...], Any]:
    staleness._retyped = reading  # type: ignore[assignment]
    out: dict[tuple[str, ...], Any] = {}
    for _, notes in stale_kinds.histories(code_aware.DATA, only):
        for n in notes:
            typed = []
            for _, found in n["flagged"]:
                at = (n["history"], n["at"], n["id"], found.anchor.path, found.anchor.symbol)
                seen = stale_kinds._SEEN.get(at)
                if seen is None or found.reason != "changed":
                    continue
                args = seen[0]
                around = args[6] if len(args) > 6 else None
                before = args[7] if len(args) > 7 else None
                got = retyped(*respell(args[0], args[1], args[2], before, around), args[2])
                if got is not None:
                    typed.append(got)
            out[n["history"], n["at"], n["id"]] = (n["stale"], n["listed"], typed, n["why"])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME")
    args = parser.parse_args(argv)
    before = listings(args.only, _off)
    for (history, _, nid), (stale, listed, typed, why) in before.items():
        if typed:
            verdict = "truly stale" if stale else "false alarm"
            print(f"types only: {history} {nid} ({verdict}, {listed}) {typed}: {why}")
    after = listings(args.only, _BUILT)
    for key, (stale, listed, _, _) in before.items():
        now = after[key][1]
        if now != listed:
            print(f"moved: {key[0]} {key[2]} ({'stale' if stale else 'fresh'}) {listed} -> {now}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
