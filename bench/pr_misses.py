"""The relevant notes ``pr-notes`` does not put in its top three, on the code_aware histories,
by why (issue 35, "top-3 precision >= 0.6 on every judged history").

For every judged change with relevant notes (``bench/pr_kinds.py``'s run, its loaders, in this
process on this tree's code), each relevant note ``pr-notes`` lists below its third place or not
at all is read once more, the way ``pr-notes`` reads it: its anchors, whether the change touches
their files (as written, or renamed since), the verdict on the code each names (its symbol's
block unchanged, changed in nothing the note states, in neither version), the rule that dropped
a note it found (a weaker tier beside an anchored note, another note on the same code stating
more of the commit messages), or what outranked it. Each miss gets one reason and the kind of
file its anchor names (code, settings/build/CI, prose); the change's files, whether it is a
merge, and the words the note shares with the commit messages are printed with it.

Printed: kind x reason with the number of misses and of histories; ``--list``: every miss with
its note, anchors, the change's files and commit subjects.

Run: ``.venv/bin/python bench/pr_misses.py [--only NAME] [--list] [--json FILE]``.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import code_aware  # noqa: E402
import pr_kinds  # noqa: E402

from reflectgit.notes import diffs  # noqa: E402
from reflectgit.notes.routine import is_test_file  # noqa: E402
from reflectgit.workflows.code import change_notes as cn  # noqa: E402
from reflectgit.workflows.code.notes import anchored_notes  # noqa: E402


def _is_merge(code: Path, head: str) -> bool:
    line = code_aware.git("rev-list", "--parents", "-n1", head, cwd=code).split()
    return len(line) > 2


def _branch_files(code: Path, head: str) -> set[str]:
    """A merge's second parent's own changes (from its merge base with the first parent)."""
    try:
        start = code_aware.git("merge-base", f"{head}^1", f"{head}^2", cwd=code).strip()
        out = code_aware.git("diff", "--name-only", start, f"{head}^2", cwd=code)
    except Exception:
        return set()
    return set(out.split())


def miss_reasons(
    kb: Path, code: Path, base: str, head: str, project: str, pr: dict[str, Any]
) -> list[dict[str, Any]]:
    """Each relevant note of ``pr`` not in the top three, with why (see the module's text)."""
    env = code_aware.bench_env()
    listed = pr["listed"]
    ranks = {n["id"]: n["rank"] for n in listed}
    wanted = [i for i in pr["relevant"] if ranks.get(i, 99) >= 3]
    if not wanted:
        return []
    change = cn.read_change(code, base, head, env)
    notes = {n.id: n for n in anchored_notes(kb, env, project)}
    judged: set[str] = set()
    hits = {h.id: h for h in cn.anchored(kb, change, project, env, judged)}
    by_path = {p: f for f in change.files for p in f.paths}
    described = cn._words(" ".join(change.messages), project)
    merge = _is_merge(code, head)
    branch = _branch_files(code, head) if merge else set()
    files = sorted(change.paths)
    out = []
    for nid in wanted:
        note = notes.get(nid)
        states = sorted(cn._words(f"{note.title} {note.said}", project) & described) if note else []
        anchors = [a.label for a in note.anchors] if note else []
        kinds = sorted({pr_kinds.file_kind(a.path) for a in note.anchors}) if note else ["none"]
        reason = _reason(nid, note, listed, ranks, hits, judged, change, by_path, states, env)
        if merge and note and any(a.path in branch and a.path not in by_path for a in note.anchors):
            reason = "a merge: its anchor's file changed on the merged branch, not in the diff read"
        out.append({
            "id": nid, "rank": ranks.get(nid), "reason": reason, "file_kind": "+".join(kinds),
            "anchors": anchors, "states": states, "merge": merge,
        })  # fmt: skip
    pr["files"] = files
    pr["messages"] = [m.splitlines()[0] for m in change.messages][:8]
    return out


def _reason(
    nid: str,
    note: Any,
    listed: list[dict[str, Any]],
    ranks: dict[str, int],
    hits: dict[str, cn.Relevant],
    judged: set[str],
    change: cn.Change,
    by_path: dict[str, diffs.FileDiff],
    states: list[str],
    env: Any,
) -> str:
    if nid in ranks:
        above = sorted({n["kind"].split(":")[0] for n in listed[:3]})
        mine = next(n["kind"] for n in listed if n["id"] == nid).split(":")[0]
        return f"listed below the third ({mine}), under {' + '.join(above)}"
    if note is None:
        if any(n["kind"].startswith("mentioned") for n in listed) or not listed:
            return "no anchor: its text names too little of the change (text match)"
        return "no anchor: text match not read (anchored notes listed)"
    if nid in hits:
        hit = hits[nid]
        tier = {"described": "commit messages' words", "worded": "a whole file's plain words"}
        if hit.kind in tier:
            return f"found on {tier[hit.kind]}, dropped beside a note anchored on what it states"
        return "found, dropped: another note on the same code states more of the messages"
    if nid not in judged:
        if not change.files:
            return "the change touches no file"
        if all(cn.prose_or_settings(p) for p in change.paths):
            return "anchored to another file; the change is to settings, build, CI or prose only"
        symbols = {s for f in change.files for s in f.symbols}
        if any(a.symbol and a.symbol in symbols for a in note.anchors):
            return "anchored to another file; the change touches a symbol of its name elsewhere"
        stems = {posixpath.basename(a.path).split(".")[0].lower() for a in note.anchors}
        tests = [p for p in change.paths if is_test_file(p)]
        if any(stem and stem in posixpath.basename(t).lower() for t in tests for stem in stems):
            return "anchored to another file; the change edits that file's tests"
        return "anchored to a file the change does not touch"
    # judged: anchored to a changed file, no evidence
    # located as pr-notes locates it: the path as written, or where renames since took it
    pending: dict[str, list[tuple[str, str]]] = {}
    for a in note.anchors:
        if a.path not in by_path and a.commit:
            pending.setdefault(a.commit, []).append((note.path, a.path))
    moved = cn._renamed_since(Path(change.root), change.base, pending, by_path, env)
    located = {}
    for a in note.anchors:
        now = a.path if a.path in by_path else moved.get((a.path, a.commit or ""), "")
        if now in by_path:
            located[(nid, a)] = (by_path[now], now)
    verdicts = cn._verdicts([note], change, located, env)
    seen = []
    for (_, anchor), (diff, _) in located.items():
        verdict = verdicts.get((nid, anchor))
        if diff.status == "added":
            seen.append("its anchor's file added by the change (no old version)")
        elif verdict is None and anchor.symbol:
            seen.append("the anchored symbol in neither version, or only added")
        elif verdict is None:
            seen.append("no verdict")
        elif verdict.kind == "same" and anchor.symbol:
            seen.append("the symbol's block unchanged, its file changed elsewhere")
        elif verdict.kind == "same":
            seen.append("the whole file the same but in comments or layout")
        elif verdict.kind == "renamed":
            seen.append("only renamed")
        elif verdict.kind == "elsewhere" and anchor.symbol:
            seen.append(
                "the symbol's block changed in nothing the note states"
                + (" (states < 2 of the messages' words)" if len(states) < 2 else "")
            )
        elif verdict.kind == "elsewhere":
            seen.append("the whole file changed in nothing the note states")
        else:
            seen.append(f"changed on {', '.join(verdict.names)} (0/1 only)")
    if not seen:  # judged where the change touched a symbol of its name (MOVED)
        return "its symbol moved to another file, judged where the change touched it: no evidence"
    return seen[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=code_aware.DATA)
    parser.add_argument("--only", action="append", metavar="NAME")
    parser.add_argument("--list", action="store_true", help="every miss, with its change")
    parser.add_argument("--json", type=Path, help="also write every change and miss here")
    args = parser.parse_args(argv)
    prs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="pr-misses-") as tmp:
        for folder in pr_kinds.folders(args.data, args.only):
            work = Path(tmp) / folder.name
            work.mkdir()
            prs += pr_kinds.history(folder, work, miss_reasons)
            print(f"read {folder.name}", file=sys.stderr)
    rows: dict[tuple[str, str], list[Any]] = defaultdict(lambda: [0, set()])
    for pr in prs:
        for miss in pr.get("misses", []):
            row = rows[(miss["file_kind"], miss["reason"])]
            row[0] += 1
            row[1].add(pr["history"])
            if args.list:
                print(f"  {pr['history']} {pr['head']} {miss['id']} rank={miss['rank']} "
                      f"[{miss['file_kind']}] {miss['reason']}")  # fmt: skip
                print(f"      anchors: {', '.join(miss['anchors'])}; states: {miss['states']}")
                print(f"      change: {pr['subject']}; merge={miss['merge']}")
                print(f"      files: {', '.join(pr['files'][:8])}")
                print(f"      commits: {' | '.join(pr['messages'][:4])}")
    print("| anchor's file | why not in the top three | misses | histories |")
    print("|---|---|---|---|")
    for (kind, reason), (n, hs) in sorted(rows.items(), key=lambda r: (-len(r[1][1]), -r[1][0])):
        print(f"| {kind} | {reason} | {n} | {len(hs)} |")
    total = sum(r[0] for r in rows.values())
    changes = sum(1 for pr in prs if pr["relevant"])
    empty = sum(1 for pr in prs if pr["relevant"] and not pr["listed"])
    print(f"{total} relevant notes not in the top three, {changes} changes with relevant notes, "
          f"{empty} of them listing nothing")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(prs, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
