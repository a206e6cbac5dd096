"""The wrong listings of ``pr-notes`` on the code_aware histories, by the kind of evidence that
listed them (issue 35, "no comment on changes with nothing relevant").

For every judged change of every history under ``data/code_aware`` (the pull-request half of
``bench/code_aware.py``, its loaders, run in this process on this tree's code), every note
``pr-notes`` lists is read once more: the evidence it was listed on (``Relevant.kind``: an anchor
whose stated code changed, on the change's description, on plain words of a whole file, or a
text match), the anchor's file (code, settings, prose) and whether a symbol or the whole file is
anchored, the anchor's file deleted or renamed, and for a text match the kinds of the change's
terms it names (a changed symbol, a file's name or its words, a name a commit message says).

Printed: per kind, the notes listed on changes judged to have nothing relevant (``quiet``), the
wrong ones among the three shown first on changes with relevant notes (``top-3 miss``), and the
relevant notes listed, each with the number of histories; then the figures per history (top-3
precision, no-comment rate, relevant listed).

Run: ``.venv/bin/python bench/pr_kinds.py [--only NAME] [--list] [--top]`` (``--list``: every
wrong listing with its kind, why, and the judge's reason; ``--top``: every change's first three,
each judged, and the changes by why their first three miss).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import code_aware  # noqa: E402

from reflectgit.notes import diffs  # noqa: E402
from reflectgit.notes.codediff import prose_or_settings  # noqa: E402
from reflectgit.workflows.code import change_notes  # noqa: E402


def file_kind(path: str) -> str:
    if path.lower().endswith(diffs.PROSE):
        return "prose"
    return "settings" if prose_or_settings(path) else "code"


def evidence(item: change_notes.Relevant) -> str:
    """The kind of evidence a listed note stood on (see the module's text)."""
    if item.kind == "mentioned":
        terms = item.why.removeprefix("mentions ")
        kinds = sorted(
            {
                w
                for w in ("changed symbol", "changed file", "named in a commit message")
                if w in terms
            }
        )
        return "mentioned: " + (" + ".join(kinds) or "commit message words")
    path, _, symbol = item.anchor.partition(":")
    what = "symbol" if symbol else "file"
    how = item.kind
    if "which this change deletes" in item.why:
        how = "deleted"
    elif "renames" in item.why and item.kind == "anchored" and "(the note names" not in item.why:
        how = "renamed"
    elif item.kind == "anchored":
        named = (
            item.why.rpartition("(the note names ")[2].rstrip(")") if "names" in item.why else ""
        )
        how = "changed" if named else "changed (no name)"
        # (no identifier among the names hit: the score has no ``_precision`` bonus, and the
        # names the why shows are plain lower-case words)
        plain = all(re.fullmatch(r"[a-z]+", n) for n in named.split(", "))
        if named and plain and item.score == change_notes.SYMBOL_CHANGED and symbol:
            how = "changed on plain words"
    return f"{how}: {what} in {file_kind(path)}"


def worded_sides(code: Path, base: str, head: str, item: change_notes.Relevant) -> list[bool]:
    """For a note listed on a whole file's plain words (WORDS_ONLY): whether a word the why
    names is in the tokens the change removed or replaced, and in those it added (the file's
    two versions, ``tokens.tokens``, one ``difflib`` pass; a token's words are its letter and
    digit runs, so ``2.4.1-dev`` holds ``dev``)."""
    from difflib import SequenceMatcher

    from reflectgit.git import codebase
    from reflectgit.notes.tokens import tokens

    path = item.anchor.partition(":")[0]
    names = set(item.why.rpartition("(the note names ")[2].rstrip(")").split(", "))
    env = code_aware.bench_env()
    start = codebase.merge_base(code, base, head, env) or base
    old, new = codebase.texts(code, [(start, path), (head, path)], env)
    a, b = tokens(old or "", path), tokens(new or "", path)
    gone, came = set(), set()
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            gone |= {w.lower() for t in a[i1:i2] for w in re.findall(r"[A-Za-z0-9]+", t)}
            came |= {w.lower() for t in b[j1:j2] for w in re.findall(r"[A-Za-z0-9]+", t)}
    return [bool(names & gone), bool(names & came)]


def folders(data: Path, only: list[str] | None) -> list[Path]:
    """The histories under ``data`` (those named in ``only``, when given), by name."""
    return sorted(
        p
        for p in data.iterdir()
        if ((p / "prs.json").is_file() or (p / "cases.json").is_file())
        and (not only or p.name in only)
    )


def history(folder: Path, work: Path, extra: Any = None) -> list[dict[str, Any]]:
    """Each judged change of ``folder`` and every note pr-notes lists on it; ``extra(kb, code,
    base, head, project, record)``, when given, is stored as the record's ``misses``."""
    cases, code, kbs = code_aware.prepare(folder, work)
    project = cases["project"]
    code_aware.git("checkout", "-q", "--detach", cases["source"]["head"], cwd=code)
    judged = (
        json.loads((folder / "prs.json").read_text()) if (folder / "prs.json").is_file() else []
    )
    out = []
    for pr in cases["prs"]:
        base, head = pr.get("base") or f"{pr['commit']}^", pr.get("head") or pr["commit"]
        found = change_notes.pr_notes(
            kbs[pr["set"]], work / "state", code, base, head, env=code_aware.bench_env(),
            project=project,
        )  # fmt: skip
        reason = next((p.get("why", "") for p in judged if p["head"] == head), "")
        out.append({
            "history": folder.name, "head": head[:8], "subject": pr["why"],
            "reason": reason, "relevant": sorted(pr["relevant"]),
            "listed": [
                {
                    "id": n.id, "rank": i, "kind": evidence(n), "why": n.why, "score": n.score,
                    "sides": worded_sides(code, base, head, n) if n.kind == "worded" else None,
                }
                for i, n in enumerate(found.notes)
            ],
        })  # fmt: skip
        if extra is not None:
            out[-1]["misses"] = extra(kbs[pr["set"]], code, base, head, project, out[-1])
    return out


def figures(prs: list[dict[str, Any]], shown: Any = None) -> dict[str, dict[str, Any]]:
    """Per history: top-3 precision, changes with nothing relevant left quiet (of all), the
    relevant notes listed (of all); ``shown`` rewrites each change's listing first (a reading)."""
    per: dict[str, dict[str, Any]] = defaultdict(lambda: {"p": [], "quiet": [0, 0], "rel": [0, 0]})
    for pr in prs:
        relevant = set(pr["relevant"])
        listed = shown(pr["listed"]) if shown else pr["listed"]
        fig = per[pr["history"]]
        if relevant:
            top = listed[:3]
            fig["p"].append(sum(n["id"] in relevant for n in top) / len(top) if top else 0.0)
            fig["rel"][0] += len(relevant & {n["id"] for n in listed})
            fig["rel"][1] += len(relevant)
        else:
            fig["quiet"][0] += not listed
            fig["quiet"][1] += 1
    for fig in per.values():
        fig["top3"] = statistics.mean(fig["p"]) if fig["p"] else None
    return per


def _plain(n: dict[str, Any]) -> bool:
    return n["kind"].startswith("changed on plain words")


# The readings a rule could make: of a whole file changed on plain words the note states
# (WORDS_ONLY), by where the words are in the tokens the change touched; of a symbol's block
# changed on plain words the note states only (``returns``, ``path``, ``name``), listed below
# every other anchored note, or not listed beside one.
READINGS: dict[str, Any] = {
    "plain-word symbol changes ranked below other anchored notes": lambda listed: sorted(
        listed, key=lambda n: (_plain(n), -n["score"], n["id"])
    ),
    "a whole file's plain words only added (none removed): not listed": lambda listed: [
        n for n in listed if n["sides"] != [False, True]
    ],
    "a whole file's plain words in no token changed: not listed": lambda listed: [
        n for n in listed if n["sides"] != [False, False]
    ],
    "plain-word symbol changes not listed beside a stronger anchored note": lambda listed: [
        n
        for n in listed
        if not (_plain(n) and any(not _plain(m) and m["score"] >= 80 for m in listed))
    ],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=code_aware.DATA)
    parser.add_argument("--only", action="append", metavar="NAME")
    parser.add_argument("--list", action="store_true", help="every wrong listing, with why")
    parser.add_argument("--json", type=Path, help="also write every listing to this file")
    parser.add_argument(
        "--top", action="store_true", help="every change's first three, judged, and why missed"
    )
    args = parser.parse_args(argv)
    prs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="pr-kinds-") as tmp:
        for folder in folders(args.data, args.only):
            work = Path(tmp) / folder.name
            work.mkdir()
            prs += history(folder, work)
            print(f"read {folder.name}", file=sys.stderr)
    # kind -> [quiet, histories, top-3 miss, histories, relevant listed, histories]
    rows: dict[str, list[Any]] = defaultdict(lambda: [0, set(), 0, set(), 0, set()])
    for pr in prs:
        h, relevant, listed = pr["history"], pr["relevant"], pr["listed"]
        for n in listed:
            row = rows[n["kind"]]
            if n["id"] in relevant:
                at = 4
            elif not relevant:
                at = 0
            elif n["rank"] < 3:
                at = 2
            else:
                continue
            row[at] += 1
            row[at + 1].add(h)
            if args.list and at != 4:
                label = "quiet" if at == 0 else "top-3 miss"
                print(f"  {label} {h} {pr['head']} {n['id']} [{n['kind']}] {n['why']}")
                print(f"      change: {pr['subject']}")
                if pr["reason"]:
                    print(f"      judge: {pr['reason']}")
    per = figures(prs)
    print("| evidence | on changes with nothing relevant | top-3 misses | relevant listed |")
    print("|---|---|---|---|")
    for k, r in sorted(rows.items(), key=lambda r: (-len(r[1][1]) - len(r[1][3]), r[0])):
        print(f"| {k} | {r[0]} ({len(r[1])}) | {r[2]} ({len(r[3])}) | {r[4]} ({len(r[5])}) |")
    quiet_ok = sum(1 for f in per.values() if f["quiet"][1] and f["quiet"][0] == f["quiet"][1])
    print(f"no comment on every change with nothing relevant: {quiet_ok}/{len(per)} histories")
    means = [f["top3"] for f in per.values() if f["top3"] is not None]
    print(f"mean top-3 precision over the histories: {statistics.mean(means):.3f}")
    for h, f in sorted(per.items()):
        p = f"{statistics.mean(f['p']):.3f}" if f["p"] else "-"
        print(f"  {h:16} top3={p} quiet={f['quiet'][0]}/{f['quiet'][1]} "
              f"relevant_listed={f['rel'][0]}/{f['rel'][1]}")  # fmt: skip
    for name, reading in READINGS.items():
        after = figures(prs, reading)
        worse = sorted(
            h
            for h, f in after.items()
            if (f["top3"] or 0) < (per[h]["top3"] or 0) - 1e-9
            or f["rel"][0] < per[h]["rel"][0]
            or f["quiet"][0] < per[h]["quiet"][0]
        )
        better = sorted(
            h
            for h, f in after.items()
            if (f["top3"] or 0) > (per[h]["top3"] or 0) + 1e-9 or f["quiet"][0] > per[h]["quiet"][0]
        )
        mean = statistics.mean(f["top3"] for f in after.values() if f["top3"] is not None)
        lost = sum(per[h]["rel"][0] - f["rel"][0] for h, f in after.items())
        removed = [
            pr["history"]
            for pr in prs
            for n in pr["listed"]
            if n["id"] not in pr["relevant"] and n not in reading(pr["listed"])
        ]
        print(f"{name}: wrong listings removed {len(removed)} in {len(set(removed))} histories "
              f"{sorted(set(removed))}, relevant notes lost {lost}, mean top-3 {mean:.3f}, "
              f"better in {len(better)} {better}, worse in {len(worse)} {worse}")  # fmt: skip
    if args.top:
        print_top(prs)
    if args.json:
        args.json.write_text(json.dumps(prs, indent=1))
    return 0


def top_miss(relevant: set[str], listed: list[dict[str, Any]]) -> str:
    """Why a change with relevant notes has a wrong note, or none, among its first three: what
    a ranking could mend (a relevant note listed below the third) and what it could not."""
    top = listed[:3]
    wrong = [n for n in top if n["id"] not in relevant]
    if not listed:
        return "nothing listed"
    if not wrong:
        return "every note of the first three relevant"
    if any(n["id"] in relevant for n in listed[3:]):
        return "a relevant note listed below the third (a ranking can mend it)"
    if not any(n["id"] in relevant for n in listed):
        return "wrong notes only, the relevant ones not listed"
    return "wrong notes beside the relevant ones, none relevant below the third"


def print_top(prs: list[dict[str, Any]]) -> None:
    """Every change's first three notes, each judged (``+`` relevant, ``-`` not), and the count
    of changes with relevant notes by ``top_miss``."""
    count: dict[str, list[Any]] = defaultdict(lambda: [0, set()])
    for pr in prs:
        relevant = set(pr["relevant"])
        print(f"{pr['history']} {pr['head']} ({len(relevant)} relevant) {pr['subject'][:70]}")
        for n in pr["listed"][:3]:
            mark = "+" if n["id"] in relevant else "-"
            print(f"   {mark} {n['score']:.0f} [{n['kind']}] {n['id']}")
        if relevant:
            row = count[top_miss(relevant, pr["listed"])]
            row[0] += 1
            row[1].add(pr["history"])
    print("| first three of a change with relevant notes | changes | histories |")
    print("|---|---|---|")
    for why, (n, where) in sorted(count.items(), key=lambda r: -r[1][0]):
        print(f"| {why} | {n} | {len(where)} |")


if __name__ == "__main__":
    raise SystemExit(main())
