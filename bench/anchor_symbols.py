"""Does the symbol finder (reflectgit/notes/anchors.py) find each anchored symbol of the
code-aware histories, at the anchor's commit and at the history's end (``replay_to``)?

For every symbol anchor of ``bench/data/code_aware/<history>/notes/*.md``, one line: the
history, the note, ``path:symbol``, then ``at=`` and ``end=``, each ``MISS`` (the file is there,
the symbol is not found in it), ``nofile`` (no such file at that commit) or the found block's
length and first line (with ``+N`` when the anchor means N more definitions of its name:
overloads, see ``anchors.anchored_blocks``), and the judged kind. A ``MISS`` at the anchor's commit is a form the
finder does not read (``stale`` then judges the note by its whole file); a ``MISS`` at the end
of a note not judged ``symbol-removed`` is one read as gone.

``--overrun`` checks each found block for running on past its definition's end: it holds the
start of another definition (of another name) indented no deeper, outside any brace the block left open
(``holds``: a change to that next definition would count as a change to this one), or it ends
inside the doc block that opens the next definition (``doc``: a Perl POD section), or it is a
declaration without a body (its head ends with its ``;``) that goes on past that ``;`` to code
not of its own name (``bodiless``). It lists the
blocks that do, then tabulates them by language (the file's suffix) and form (the definition
word, or ``signature``).

Run: ``.venv/bin/python bench/anchor_symbols.py [--misses] [--several] [--overrun] [HISTORY ...]``
(``--misses``: only the anchors with a ``MISS``; ``--several``: only those meaning more than one
definition somewhere). Each history's bundle is cloned once into a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from reflectgit.notes.anchors import (
    _ANY_DEFINITION,
    _WORD,
    DEFINITION_WORDS,
    _own_name,
    _way,
    anchored_blocks,
    anchors_of,
    symbol_block,
)
from reflectgit.notes.languages import suffix
from reflectgit.notes.note import parse_note
from reflectgit.notes.tokens import tokens

DATA = Path(__file__).resolve().parent / "data" / "code_aware"


def _show(repo: Path, commit: str, path: str) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(repo), "show", f"{commit}:{path}"],
        capture_output=True,
        text=True,
        errors="replace",
    )
    return done.stdout if done.returncode == 0 else None


def _reading(text: str | None, symbol: str, path: str) -> str:
    if text is None:
        return "nofile"
    block = symbol_block(text, symbol, path)
    if block is None:
        return "MISS"
    lines = block.splitlines()
    more = len(anchored_blocks(text, symbol, path)) - 1
    return f"{len(lines)}L{f'+{more}' if more else ''}|{lines[0].strip()[:70]}"


# A POD command paragraph (Perl's documentation between pieces of code: ``=head2``, ``=cut``).
_POD = ("=head", "=item", "=over", "=back", "=pod", "=method", "=func", "=attr", "=for", "=begin")


def overrun(text: str, symbol: str, path: str) -> str | None:
    """How ``symbol``'s block in ``text`` runs on past its definition (``holds``: the start of
    another definition (of another name) indented no deeper, outside the braces the block left open, read with
    ``path``'s own comment markers; its own overloads, clauses and arities are the symbol; ``doc``: it ends in a POD section), or None."""
    block = symbol_block(text, symbol, path)
    if block is None:
        return None
    lines = block.rstrip("\n").split("\n")
    name = _own_name(text, symbol)
    depth = len(lines[0].expandtabs()) - len(lines[0].expandtabs().lstrip())
    for at, line in enumerate(lines[1:], 1):
        found = _ANY_DEFINITION.match(line)
        if found is None or len(found.group("indent").expandtabs()) > depth:
            continue
        if _way(line, name) is not None:  # its own overloads, clauses and arities: one symbol
            continue
        toks = tokens("\n".join(lines[:at]), path)
        if toks.count("{") <= toks.count("}"):
            return "holds"
    head = [lines[0]]
    while head[-1:] and len(head) < len(lines):
        toks = tokens("\n".join(head), path)
        if toks.count("(") <= toks.count(")"):
            break
        head.append(lines[len(head)])
    toks = tokens("\n".join(head), path)
    way = _way(lines[0], name)
    rest = lines[len(head) :]
    if (
        toks[-1:] == [";"]
        and "{" not in toks
        and way is not None
        and way[1] == "block"  # an Erlang clause's ``;`` separates it from the next clause
        and not any(_way(line, name) for line in rest)  # overloads, then the implementation
        and any(line.strip() and tokens(line, path) for line in rest)
    ):
        return "bodiless"
    if any(line.startswith(_POD) for line in lines[-40:]) or lines[-1].startswith("=cut"):
        return "doc"
    return None


def _form(text: str, symbol: str, path: str) -> str:
    block = symbol_block(text, symbol, path) or ""
    head = block.split("\n", 1)[0]
    way = _way(head, _own_name(text, symbol))
    if way is not None and way[2] == "signature":
        return "signature"
    if way is not None and way[1] in ("clauses", "attribute"):
        return way[1]
    word = _WORD.match(head)
    return word.group("word") if word and word.group("word") in DEFINITION_WORDS else "assigned"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("histories", nargs="*", help="history folders (default: all)")
    parser.add_argument("--misses", action="store_true", help="only anchors with a MISS")
    parser.add_argument("--several", action="store_true", help="only anchors on overloads")
    parser.add_argument("--overrun", action="store_true", help="blocks that run on, tabulated")
    args = parser.parse_args(argv)
    table: Counter[tuple[str, str, str]] = Counter()
    checked = 0
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
                    if args.overrun:
                        for when in (anchor.commit, judged["replay_to"]):
                            text = _show(repo, when, anchor.path)
                            how = (
                                None if text is None else overrun(text, anchor.symbol, anchor.path)
                            )
                            checked += (
                                text is not None
                                and symbol_block(text, anchor.symbol, anchor.path) is not None
                            )
                            if text is None or how is None:
                                continue
                            kind = (
                                suffix(anchor.path),
                                _form(text, anchor.symbol, anchor.path),
                                how,
                            )
                            table[kind] += 1
                            block = symbol_block(text, anchor.symbol, anchor.path) or ""
                            print(
                                f"{folder.name:16} {note_file.stem:40} {anchor.label}"
                                f" @{when[:8]} {how} {len(block.splitlines())}L"
                                f" |{block.split(chr(10), 1)[0].strip()[:60]}"
                            )
                        continue
                    at = _reading(
                        _show(repo, anchor.commit, anchor.path), anchor.symbol, anchor.path
                    )
                    end = _reading(
                        _show(repo, judged["replay_to"], anchor.path), anchor.symbol, anchor.path
                    )
                    if args.misses and "MISS" not in (at, end):
                        continue
                    if args.several and "L+" not in at + end:
                        continue
                    print(
                        f"{folder.name:16} {note_file.stem:40} {anchor.label}  at={at} end={end}"
                        f" judged={kinds.get(note_file.stem)}"
                    )
    if args.overrun:
        print(f"\n{checked} blocks checked (each anchor at its commit and at the end)")
        print(f"{'language':10} {'form':12} {'how':6} blocks")
        for (language, form, how), count in sorted(table.items()):
            print(f"{language:10} {form:12} {how:6} {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
