"""Does what a note states survive a rewrite (issue 35, "the same logic written another way")?

For every judged note of the replayed histories (``data/code_aware/<project>``) whose anchored
code ``codediff.compare`` reads as ``changed``, the note's evidence lines: the lines of the old
block that hold a name or quoted string the note states (``codediff``'s own reading of what a
note states, after the renaming it reads across the file). A line survives when the new block
holds it token for token. Printed per note: the judge's verdict, how many evidence lines there
are, how many survive, whether they survive in their order, and how many new lines that state
something the old block did not hold; then, for each share of surviving evidence lines, how many
truly stale notes and how many false alarms a rule "that share survives: not stale" would clear.

The answer on the 14 histories (see the report of branch i35-samelogic): no share separates
them; at every threshold the rule clears more truly stale notes than false alarms, and the
notes that state no name of their code (no evidence line) are as often stale as not.

Run: ``.venv/bin/python bench/code_aware_evidence.py [--only NAME]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
from kbgen import env as bench_env  # noqa: E402

from reflectgit.git import codebase  # noqa: E402
from reflectgit.notes import codediff, tokens  # noqa: E402
from reflectgit.notes.anchors import symbol_block  # noqa: E402

DATA = HERE / "data" / "code_aware"


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, env=bench_env(), check=False
    )
    return done.stdout


def note(folder: Path, nid: str) -> tuple[dict[str, Any], str]:
    _, front, body = (folder / "notes" / f"{nid}.md").read_text().split("---\n", 2)
    return yaml.safe_load(front), body


def evidence(
    old: str, new: str, path: str, said: str, symbol: str | None, before: str, after: str
) -> tuple[int, int, bool, int]:
    """(evidence lines, surviving, in order, new stating lines) for one anchor."""
    t = tokens.tokens
    names = codediff.renaming(t(old, path), t(new, path), tokens.lines(before, path),
                              tokens.lines(after, path))  # fmt: skip
    if names:
        old = codediff._apply_renaming(old, names)
    named = codediff.names_in(said, qualifiers=False)
    own = symbol.rsplit(".", 1)[-1] if symbol else None
    stating = codediff._Stating(named - {own}, said, path, own if own in named else None)
    a, b = tokens.lines(old, path), tokens.lines(new, path)
    lines_b = [" ".join(line) for line in b]
    stated = [" ".join(line) for line in a if stating.of([line])]
    kept = [line for line in stated if line in lines_b]
    rest = iter(lines_b)
    ordered = all(any(line == other for other in rest) for line in stated)
    fresh = [line for line in b if stating.of([line]) and line not in a]
    return len(stated), len(kept), ordered, len(fresh)


def run(folder: Path, work: Path) -> list[tuple[str, bool, int, int, bool, int]]:
    judged = json.loads((folder / "judged.json").read_text())
    head = judged["replay_to"]
    repo = work / folder.name
    git("clone", "-q", "-b", "replay", str(folder / "history.bundle"), str(repo), cwd=work)
    out = []
    for verdict in judged["notes"]:
        front, body = note(folder, verdict["id"])
        said = codediff.said(front, body)
        for anchor in front["anchors"]:
            path, symbol = anchor["path"], anchor.get("symbol")
            since = git("rev-parse", anchor["commit"], cwd=repo).strip()
            change = next(
                (c for c in codebase.changes(repo, since, head, bench_env()) if c.old == path),
                None,
            )
            if change is None or change.new is None:
                continue  # untouched, or deleted (another reading)
            before = git("show", f"{since}:{path}", cwd=repo)
            after = git("show", f"{head}:{change.new}", cwd=repo)
            old = symbol_block(before, symbol, change.new) if symbol else before
            new = symbol_block(after, symbol, change.new) if symbol else after
            if old is None:  # judged as its file, as ``stale`` does
                symbol, old, new = None, before, after
            if new is None:
                continue  # the symbol is gone (another reading)
            title = front.get("title")
            if not codediff.compare(old, new, change.new, said, symbol, title, after, before).stale:
                continue
            n, kept, ordered, fresh = evidence(old, new, change.new, said, symbol, before, after)
            out.append((verdict["id"], bool(verdict["stale"]), n, kept, ordered, fresh))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME", help="only this dataset")
    args = parser.parse_args(argv)
    folders = sorted(
        p
        for p in DATA.iterdir()
        if (p / "judged.json").is_file() and (not args.only or p.name in args.only)
    )
    rows = []
    with tempfile.TemporaryDirectory(prefix="code-aware-evidence-") as tmp:
        for folder in folders:
            for nid, stale, n, kept, ordered, fresh in run(folder, Path(tmp)):
                rows.append((stale, n, kept))
                print(
                    f"{folder.name:16} {nid:48} stale={stale!s:5} evidence={n:3} "
                    f"kept={kept:3} in-order={ordered!s:5} new-stating={fresh}"
                )
    none = [stale for stale, n, _ in rows if n == 0]
    print(f"no evidence line: {sum(none)} truly stale, {len(none) - sum(none)} false alarms")
    for share in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
        cleared = [stale for stale, n, kept in rows if n and kept / n >= share]
        print(
            f"kept >= {share:.0%}: would clear {sum(cleared)} truly stale, "
            f"{len(cleared) - sum(cleared)} false alarms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
