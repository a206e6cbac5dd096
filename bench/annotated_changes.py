"""The stale flags whose change includes Python annotations, and the two respellings that come
with them in humanize (issue 35, "type annotations added to unchanged code").

For every note of every code_aware history that ``stale`` lists as stale (truly stale or a
false alarm; ``bench/stale_kinds.py`` runs the histories), each anchor whose comparison made it
stale is read once more, at the code ``codediff.compare`` was given (before ``respell``):

- ``annotation added/dropped``: a parameter, return or assignment annotated in one version
  only (``respell._annotations`` already reads these as the same code);
- ``annotation changed``: annotated in both, differently; ``cleared`` says whether the
  comparison finds no change once every annotation naming nothing the note states is left out
  (the rule a note-aware reading would make);
- ``msg variable``: ``msg = ...`` then ``raise E(msg)`` in a version (ruff's EM101/EM102);
  ``cleared``: no change once it is written ``raise E(...)``;
- ``return (a, b)``: a returned tuple in brackets; ``cleared``: no change once written bare.

Run: ``.venv/bin/python bench/annotated_changes.py [--only NAME]`` (tune data only).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import stale_kinds  # noqa: E402

from reflectgit.notes import codediff, languages, respell  # noqa: E402
from reflectgit.workflows.code import staleness  # noqa: E402

_MSG = re.compile(r"^(\s*)msg = (.+)\n\1raise (\w[\w.]*)\(msg\)", re.M)
_RETURN = re.compile(r"^(\s*)return \(([^()\n]*,[^()\n]*)\)\s*$", re.M)


def _slots(text: str, path: str) -> dict[tuple[str, ...], tuple[int, int, str]]:
    return respell._annotation_slots(respell._toks(text, path))


def _unnamed_annotations(text: str, path: str, named: set[str]) -> str:
    """``text`` without the annotations that name nothing in ``named``."""
    edits = [
        (start, end, "")
        for start, end, written in _slots(text, path).values()
        if not set(re.findall(r"[A-Za-z_]\w*", written)) & named
    ]
    return respell._apply(text, edits)


def readings(args: tuple[Any, ...]) -> dict[str, bool | None]:
    """Each kind the anchor's change includes -> whether its rewrite clears it (None: none
    tried)."""
    old, new, path, said = args[0], args[1], args[2], args[3]
    out: dict[str, bool | None] = {}
    if languages.of(path).python:
        a, b = _slots(old, path), _slots(new, path)
        if set(a) != set(b):
            out["annotation added/dropped"] = None
        if any(a[k][2] != b[k][2] for k in set(a) & set(b)):
            named = codediff.names_in(said, qualifiers=False) if said else set()
            plain = (_unnamed_annotations(old, path, named), _unnamed_annotations(new, path, named))
            out["annotation changed"] = not codediff.compare(*plain, *args[2:]).stale
    rewrites = {
        "msg variable": lambda t: _MSG.sub(lambda m: f"{m[1]}raise {m[3]}({m[2]})", t),
        "return (a, b)": lambda t: _RETURN.sub(lambda m: f"{m[1]}return {m[2]}", t),
    }
    for name, rewrite in rewrites.items():
        pair = (rewrite(old), rewrite(new))
        if pair != (old, new):
            out[name] = not codediff.compare(*pair, *args[2:]).stale
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME")
    args = parser.parse_args(argv)
    staleness.compare = stale_kinds._spy  # type: ignore[assignment]
    notes: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="annotated-") as tmp:
        data = stale_kinds.code_aware.DATA
        for folder in sorted(p for p in data.iterdir() if p.is_dir()):
            if args.only and folder.name not in args.only:
                continue
            work = Path(tmp) / folder.name
            work.mkdir()
            notes += stale_kinds.judged_notes(folder, work)
    rows: dict[str, list[Any]] = defaultdict(lambda: [0, set(), 0, set(), []])
    for n in notes:
        if n["listed"] != "stale":
            continue
        found: dict[str, list[bool | None]] = defaultdict(list)
        for key, (call, verdict) in stale_kinds._SEEN.items():
            if key[0] == n["history"] and key[2] == n["id"] and verdict.stale:
                for name, cleared in readings(call).items():
                    found[name].append(cleared)
        for name, cleared in found.items():
            row = rows[name]
            at = 0 if n["stale"] else 2
            row[at] += 1
            row[at + 1].add(n["history"])
            verdict = "" if None in cleared else (" cleared" if all(cleared) else " kept")
            row[4].append(f"{'stale' if n['stale'] else 'false alarm'} {n['id']}{verdict}")
    print("| change includes | truly stale (histories) | false alarms (histories) |")
    print("|---|---|---|")
    for name, (tp, th, fp, fh, _) in sorted(rows.items()):
        print(f"| {name} | {tp} ({', '.join(sorted(th))}) | {fp} ({', '.join(sorted(fh))}) |")
    for name, row in sorted(rows.items()):
        print(f"{name}:", "; ".join(row[4]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
