"""Does the symbol finder (reflectgit/notes/anchors.py) find each anchored symbol of the
code-aware histories, at the anchor's commit and at the history's end (``replay_to``)?

For every symbol anchor of ``bench/data/code_aware/<history>/notes/*.md``, one line: the
history, the note, ``path:symbol``, then ``at=`` and ``end=``, each ``MISS`` (the file is there,
the symbol is not found in it), ``nofile`` (no such file at that commit) or the found block's
length and first line (with ``+N`` when the anchor means N more definitions of its name:
overloads, see ``anchors.anchored_blocks``), and the judged kind. A ``MISS`` at the anchor's commit is a form the
finder does not read (``stale`` then judges the note by its whole file); a ``MISS`` at the end
of a note not judged ``symbol-removed`` is one read as gone.

Run: ``.venv/bin/python bench/anchor_symbols.py [--misses] [--several] [HISTORY ...]``
(``--misses``: only the anchors with a ``MISS``; ``--several``: only those meaning more than one
definition somewhere). Each history's bundle is cloned once into a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from reflectgit.notes.anchors import anchored_blocks, anchors_of, symbol_block
from reflectgit.notes.note import parse_note

DATA = Path(__file__).resolve().parent / "data" / "code_aware"


def _show(repo: Path, commit: str, path: str) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(repo), "show", f"{commit}:{path}"],
        capture_output=True,
        text=True,
        errors="replace",
    )
    return done.stdout if done.returncode == 0 else None


def _reading(text: str | None, symbol: str) -> str:
    if text is None:
        return "nofile"
    block = symbol_block(text, symbol)
    if block is None:
        return "MISS"
    lines = block.splitlines()
    more = len(anchored_blocks(text, symbol)) - 1
    return f"{len(lines)}L{f'+{more}' if more else ''}|{lines[0].strip()[:70]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("histories", nargs="*", help="history folders (default: all)")
    parser.add_argument("--misses", action="store_true", help="only anchors with a MISS")
    parser.add_argument("--several", action="store_true", help="only anchors on overloads")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        for folder in sorted(DATA.iterdir()):
            judged_file = folder / "judged.json"
            if not judged_file.exists() or (args.histories and folder.name not in args.histories):
                continue
            judged = json.loads(judged_file.read_text())
            kinds = {n["id"]: n.get("kind") for n in judged["notes"]}
            repo = Path(work) / folder.name
            subprocess.run(
                ["git", "clone", "-q", "--bare", str(folder / "history.bundle"), str(repo)],
                check=True,
            )
            for note_file in sorted((folder / "notes").glob("*.md")):
                note = parse_note(note_file.read_text(), str(note_file))
                for anchor in anchors_of(note.frontmatter):
                    if not anchor.symbol or not anchor.commit:
                        continue
                    at = _reading(_show(repo, anchor.commit, anchor.path), anchor.symbol)
                    end = _reading(_show(repo, judged["replay_to"], anchor.path), anchor.symbol)
                    if args.misses and "MISS" not in (at, end):
                        continue
                    if args.several and "L+" not in at + end:
                        continue
                    print(
                        f"{folder.name:16} {note_file.stem:40} {anchor.label}  at={at} end={end}"
                        f" judged={kinds.get(note_file.stem)}"
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
