"""Did the project's tests change what they expect of a flagged note's code? (issue 35, "a
signal from outside the anchored block").

For every note ``stale`` lists as stale in the code_aware histories (``stale_kinds``' reading,
one process, this tree's code), each anchor that made it stale is read against the project's
own tests over the note's range (the anchor's commit to the commit the note is judged at): the
test files (``routine.is_test_file``: under ``test/``, ``tests/``, ``spec/``, ``__tests__/``,
``test_*``, ``*_test.*``, ``*.test.*``, ``*.spec.*``, ``*_spec.rb``, ``*Test.*``; and here
Perl's ``t/*.t`` and a lone ``test.js``) of every commit in the range (one ``git log -p -U0``
per clone and end commit, read by ``notes/diffs.py``), and the lines of their hunks that
mention the anchor's name (the symbol's last part; for a whole-file anchor, the file's stem).
A name is mentioned when its words (``parse_strict``, ``parseStrict``: parse, strict) stand
together among a line's words (``test_parse_strict``, ``testParseStrict(...)``).

Each anchor is then:

- ``changed``: a hunk of a test file removed (or modified) a line mentioning the name
  (``+context``: or removed any line under a test whose definition, git's hunk header,
  mentions it);
- ``added``: hunks only added lines mentioning it;
- ``tested``: no hunk touched such lines, but a test file at the end mentions the name;
- ``untested``: no test file mentions it, then or now (no signal).

A note is read by its strongest anchor (changed > added > tested > untested). The readings
(``READINGS``) vary what counts: the names the note states as well as a whole file's stem
(``+stated``); only the commits that changed the anchored code rather than the whole range;
a hunk that names the anchor and also holds a term the note states. Printed for each reading:
the table kind x signal, truly stale and false alarms with histories counted; then the figures
of each rule (``RULES``) "flagged only by a rewritten body (or the kinds named), the tests'
expectations unchanged: listed under ``changed``, not stale".

Run: ``.venv/bin/python bench/test_expectations.py [--only NAME] [--list]``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import code_aware  # noqa: E402
import stale_kinds  # noqa: E402

from reflectgit.git import codebase  # noqa: E402
from reflectgit.notes import codediff, diffs  # noqa: E402
from reflectgit.notes.routine import is_test_file  # noqa: E402
from reflectgit.workflows.code import staleness  # noqa: E402

SIGNALS = ("changed", "added", "tested", "untested")
REWRITTEN = ("lost", "more-or-fewer", "kept")
# Two more conventions seen in the histories, beside ``routine``'s: Perl's ``t/*.t`` and one
# test script named ``test.js`` / ``spec.lua`` (debug's ``test.js``, ``test.node.js``); a
# script's suffix only, as a CI workflow ``.github/workflows/test.yml`` is no test.
_MORE_TESTS = re.compile(
    r"(?:^|/)t/.+\.t$|(?:^|/)(?:tests?|specs?)(?:\.\w+)?\.(?:[cm]?js|ts|lua|rb|py|pl|php)$"
)
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")


def is_test(path: str) -> bool:
    return bool(is_test_file(path) or _MORE_TESTS.search(path))


def words(text: str) -> list[str]:
    out: list[str] = []
    for ident in _IDENT.findall(text):
        out += [w.lower() for w in _WORD.findall(ident)]
    return out


def mentions(line: str, name: list[str]) -> bool:
    if not name:
        return False
    have = words(line)
    n = len(name)
    return any(have[i : i + n] == name for i in range(len(have) - n + 1))


class Tests:
    """One clone: each commit's test-file hunks (one ``git log -p`` per end commit), the test
    files at an end commit."""

    def __init__(self, code: Path) -> None:
        self.code = code
        self.hunks: dict[str, list[diffs.Hunk]] = {}
        self.read_to: set[str] = set()
        self.files_at: dict[str, list[str]] = {}

    def _read(self, end: str) -> None:
        if end in self.read_to:
            return
        self.read_to.add(end)
        out = subprocess.run(
            ["git", "log", "-p", "-U0", "-M", "--no-merges", "--no-color", "--no-ext-diff",
             "--format=%x01%H", end],
            cwd=self.code, capture_output=True, check=True,
        ).stdout.decode("utf-8", "replace")  # fmt: skip
        for chunk in out.split("\x01")[1:]:
            sha, _, patch = chunk.partition("\n")
            if sha in self.hunks:
                continue
            self.hunks[sha] = [
                h for f in diffs.parse(patch) if any(is_test(p) for p in f.paths) for h in f.hunks
            ]

    def range(self, since: str, end: str) -> list[str]:
        self._read(end)
        out = code_aware.git("rev-list", "--no-merges", f"{since}..{end}", cwd=self.code)
        return out.split()

    def texts_at(self, end: str) -> list[str]:
        if end not in self.files_at:
            names = code_aware.git("ls-tree", "-r", "--name-only", end, cwd=self.code).split("\n")
            tests = [n for n in names if n and is_test(n)]
            found = codebase.texts(self.code, [(end, n) for n in tests])
            self.files_at[end] = [t for t in found if t is not None]
        return self.files_at[end]


def signal(
    tests: Tests,
    shas: list[str],
    end: str,
    names: list[list[str]],
    context: bool,
    terms: list[list[str]] | None = None,
) -> tuple[str, int]:
    """The anchor's signal over the commits ``shas`` and how many changed an expectation.
    ``terms``: a hunk counts only if it names the anchor (on any line or its test's name) and
    its removed (added) lines hold a term the note states."""
    tests._read(end)
    changed = added = 0

    def said(lines: list[str], h: diffs.Hunk) -> bool:
        if terms is None:
            return any(mentions(line, n) for line in lines for n in names) or (
                context and bool(lines) and any(mentions(h.context, n) for n in names)
            )
        named = any(mentions(line, n) for line in [*h.gone, *h.came, h.context] for n in names)
        return named and any(mentions(line, t) for line in lines for t in terms)

    for sha in shas:
        ch = ad = False
        for h in tests.hunks.get(sha, []):
            if said(h.gone, h):
                ch = True
            elif said(h.came, h):
                ad = True
        changed += ch
        added += ad
    if changed:
        return "changed", changed
    if added:
        return "added", 0
    at_end = (line for t in tests.texts_at(end) for line in t.split("\n"))
    if any(mentions(line, n) for line in at_end for n in names):
        return "tested", 0
    return "untested", 0


def anchor_names(found: staleness.StaleAnchor, said: str, stated: bool) -> list[list[str]]:
    anchor = found.anchor
    if anchor.symbol:
        return [words(anchor.symbol.rsplit(".", 1)[-1].rsplit("::", 1)[-1])]
    stem = Path(found.now or anchor.path).name.split(".")[0]
    out = [words(stem)]
    if stated:
        out += [words(n) for n in codediff.code_names(said)]
    return [n for n in out if n]


# name reading -> (the stated names too, a hunk under a test named for it, only the commits
# that changed the anchored code, a hunk naming it must also hold a term the note states)
READINGS = {
    "symbol / stem": (False, False, False, False),
    "symbol / stem, +context": (False, True, False, False),
    "symbol / stem +stated, +context": (True, True, False, False),
    "symbol / stem, +context, the commits that changed the code only": (False, True, True, False),
    "symbol / stem, +context, the hunk also holds a stated term": (False, True, False, True),
}


def read(notes: list[dict[str, Any]], tests: dict[Path, Tests]) -> None:
    rank = {s: i for i, s in enumerate(SIGNALS)}
    for n in notes:
        if n["listed"] != "stale":
            continue
        t = tests.setdefault(n["code"], Tests(n["code"]))
        for reading, (stated, context, own, with_terms) in READINGS.items():
            best, commits = "untested", 0
            for _, found in n["flagged"]:
                if found.anchor.commit is None:
                    continue
                names = anchor_names(found, n["note"].said, stated)
                shas = (
                    [c.sha for c in found.commits] if own else t.range(found.anchor.commit, n["at"])
                )
                own_name = words((found.anchor.symbol or "").rsplit(".", 1)[-1])
                terms = [
                    w
                    for w in (words(x) for x in codediff.code_names(n["note"].said))
                    if w and w != own_name
                ]
                got, k = signal(t, shas, n["at"], names, context, terms if with_terms else None)
                if rank[got] < rank[best]:
                    best = got
                commits = max(commits, k)
            n.setdefault("signal", {})[reading] = best
            n.setdefault("commits", {})[reading] = commits


def rule(kinds: Iterable[str], cleared: set[str]) -> Callable[[dict[str, Any], str], bool]:
    allowed = set(kinds)

    def clears(n: dict[str, Any], reading: str) -> bool:
        return (
            all(k.split("+")[0] in allowed for k in n["kinds"]) and n["signal"][reading] in cleared
        )

    return clears


RULES = {
    "rewritten body, tests added or untouched but present": (REWRITTEN, {"added", "tested"}),
    "rewritten body, tests only added": (REWRITTEN, {"added"}),
    "rewritten body, no test line removed (untested too)": (
        REWRITTEN,
        {"added", "tested", "untested"},
    ),
    "rewritten / whole-file / names-nothing, tests added or present": (
        (*REWRITTEN, "whole-file", "names-nothing"),
        {"added", "tested"},
    ),
}


def main(argv: list[str] | None = None) -> int:
    args = stale_kinds.arguments(__doc__, "each flagged note with its signal", argv)
    notes: list[dict[str, Any]] = []
    tests: dict[Path, Tests] = {}
    for name, found in stale_kinds.histories(args.data, args.only):
        read(found, tests)  # while the history's clone is there
        notes += found
        print(f"read {name}", file=sys.stderr, flush=True)
    for reading in READINGS:
        table: dict[tuple[str, str], list[Any]] = defaultdict(lambda: [0, set(), 0, set()])
        for n in notes:
            if n["listed"] != "stale":
                continue
            k = stale_kinds.flagged_kind(n)
            for key in ((k, n["signal"][reading]), ("all", n["signal"][reading])):
                stale_kinds.count(table[key], n)
            if args.list and reading == "symbol / stem, +context":
                print(
                    f"  {'stale' if n['stale'] else 'FALSE'} {n['history']} {n['id']} "
                    f"[{', '.join(n['kinds'])}] {n['signal'][reading]} "
                    f"({n['commits'][reading]}): {n['why'][:100]}"
                )
        print(f"\n## names: {reading}\n")
        print("| kind | tests | truly stale (histories) | false alarms (histories) |")
        print("|---|---|---|---|")
        for (k, s), (tp, th, fp, fh) in sorted(
            table.items(), key=lambda r: (r[0][0] == "all", r[0][0], SIGNALS.index(r[0][1]))
        ):
            print(f"| {k} | {s} | {tp} ({len(th)}) | {fp} ({len(fh)}) |")
        print()
        print("as flagged:", stale_kinds.figures(notes, lambda k: False))
        for name, (kinds, cleared) in RULES.items():
            clears = rule(kinds, cleared)
            fa = [
                n for n in notes if n["listed"] == "stale" and not n["stale"] and clears(n, reading)
            ]
            tp = [n for n in notes if n["listed"] == "stale" and n["stale"] and clears(n, reading)]
            marked = [
                dict(n, listed="changed") if n["listed"] == "stale" and clears(n, reading) else n
                for n in notes
            ]
            print(
                f"{name}: clears {len(fa)} false alarms ({len({n['history'] for n in fa})} histories), "
                f"loses {len(tp)} stale ({len({n['history'] for n in tp})} histories):",
                stale_kinds.figures(marked, lambda k: False),
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
