"""Which stale flags of the code_aware histories hold a respelling (issue 35, briefs f-alias and
i35-receiver): an alias inlined, a string format respelled, a member named with and without its
receiver, a Swift getter written with and without ``get { }``.

For every note ``stale`` flags in every history under ``data/code_aware`` (read by
``bench/stale_kinds.py``, in this process on this tree's code), each flagged anchor's old and
new block (and the old file) are read for:

- ``alias``: a name the old file binds to another name (``_text_type = str``, at any depth),
  used in the old block, gone from the new one, whose target is in the new block more often;
- ``format->interpolation``: the old block formats a string (``.format(``, ``"..." % x``,
  ``Sprintf(``, ``format!(``) and the new one has more interpolated strings (an f-string, a
  template literal, ``#{}``);
- ``format-call-dropped``: fewer format calls in the new block, and no more interpolation;
- ``receiver``: in a language where a method may name a member of its object with or without
  the receiver (``_RECEIVERS``: Swift's ``self.name``; ``this.name`` in Kotlin, Java, C#,
  Scala, Dart; C++'s ``this->name``), a member written with it more often in one version and
  ``name`` bare (not after ``.``) more often in the other;
- ``getter``: Swift, a different count of ``get {`` right after ``{`` (a read-only property's
  or subscript's getter written in ``get { }``, with or without a setter beside it).

A wide net, on purpose (a shape to read, not a rule): each hit is printed with the judge's
verdict and reason, so a reader sees which are the respelling and which only hold it. Then the
stale kinds table and the figures as flagged, as ``stale_kinds.py`` prints them.

Run: ``.venv/bin/python bench/respell_shapes.py [NAME ...]``.
"""

from __future__ import annotations

import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import stale_kinds

from reflectgit.notes.languages import suffix
from reflectgit.notes.tokens import is_name, tokens

# The receiver's word and member operator, by suffix (measured, not built: a respelling
# ``respell`` does not read, see docs/code-aware-measurements.md).
_RECEIVERS = {
    "swift": ("self", "."),
    **dict.fromkeys(("kt", "kts", "java", "cs", "scala", "sc", "dart"), ("this", ".")),
    **dict.fromkeys(("cc", "cpp", "cxx", "hpp", "hh"), ("this", "->")),
}

_BIND = re.compile(r"^[ \t]*([A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w.]*)\s*(?:#.*)?$", re.M)
_FORMAT = re.compile(
    r"\.format\(|[\"']\s*%\s*[\w(]|Sprintf\(|String\.format\(|string\.format\(|sprintf\(|format!\("
)
_INTERPOLATED = re.compile(r"\b[fF][\"']|`[^`]*\$\{|\$\"|#\{")


def _count(name: str, text: str) -> int:
    return len(re.findall(rf"(?<![\w.]){re.escape(name)}\b", text))


def _receivers(toks: list[str], word: str, member: str) -> tuple[Counter[str], Counter[str]]:
    """How often each name is written after the receiver (``self.name``), and bare."""
    named: Counter[str] = Counter()
    bare: Counter[str] = Counter()
    for i, t in enumerate(toks):
        if not is_name(t) or t == word:
            continue
        if i >= 2 and toks[i - 2 : i] == [word, member]:
            named[t] += 1
        elif i == 0 or toks[i - 1] not in (".", "->", "::", "?."):
            bare[t] += 1
    return named, bare


def _getters(toks: list[str]) -> int:
    return sum(toks[i - 1 : i + 2] == ["{", "get", "{"] for i in range(1, len(toks)))


def shapes(old: str, new: str, before: str | None, path: str = "") -> list[str]:
    """The respellings ``old`` -> ``new`` holds (``before``: the old file; ``path``: its
    path, for the language's own respellings)."""
    out = []
    receiver = _RECEIVERS.get(suffix(path))
    if receiver is not None:
        a, b = tokens(old, path), tokens(new, path)
        (named_a, bare_a), (named_b, bare_b) = _receivers(a, *receiver), _receivers(b, *receiver)
        if any(
            (named_a[n] - named_b[n]) * (bare_b[n] - bare_a[n]) > 0
            for n in set(named_a) | set(named_b)
        ):
            out.append("receiver")
        if receiver[0] == "self" and _getters(a) != _getters(b):  # Swift
            out.append("getter")
    for name, target in _BIND.findall(before or old):
        if name == target or target in ("None", "True", "False"):
            continue
        if (
            _count(name, old)
            and not _count(name, new)
            and _count(target, new) > _count(target, old)
        ):
            out.append(f"alias {name}={target}")
    interpolated = len(_INTERPOLATED.findall(new)) > len(_INTERPOLATED.findall(old))
    if _FORMAT.search(old) and interpolated:
        out.append("format->interpolation")
    elif len(_FORMAT.findall(old)) > len(_FORMAT.findall(new)):
        out.append("format-call-dropped")
    return out


def main(argv: list[str]) -> int:
    notes: list[dict[str, Any]] = []
    hits: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for name, found in stale_kinds.histories(stale_kinds.code_aware.DATA, argv or None):
        for n in found:
            notes.append(n)
            if n["listed"] != "stale":
                continue
            for kind, f in n["flagged"]:
                seen = stale_kinds._SEEN.get(
                    (name, n["at"], n["id"], f.anchor.path, f.anchor.symbol)
                )
                if seen is None:
                    continue
                old, new, path, *_, before = seen[0]
                for shape in sorted(set(shapes(old, new, before, path))):
                    verdict = "stale" if n["stale"] else "false alarm"
                    hits[shape.split()[0]].append((name, n["id"], verdict, kind, shape, n["why"]))
    for shape, rows in sorted(hits.items()):
        stale = sum(r[2] == "stale" for r in rows)
        print(f"== {shape}: histories {sorted({r[0] for r in rows})}, stale {stale}, "
              f"false alarms {len(rows) - stale}")  # fmt: skip
        for row in rows:
            print("  ", " | ".join(row))
    by_kind: dict[str, list[Any]] = defaultdict(lambda: [0, set(), 0, set()])
    for n in notes:
        if n["listed"] == "stale":
            stale_kinds.count(by_kind[stale_kinds.flagged_kind(n)], n)
    for k, (tp, th, fp, fh) in sorted(by_kind.items(), key=lambda r: (-len(r[1][3]), r[0])):
        print(f"| {k} | {tp} ({len(th)}) | {fp} ({len(fh)}) |")
    print("as flagged:", stale_kinds.figures(notes, lambda k: False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
