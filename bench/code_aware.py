"""Knowledge that knows the code (issue 35): stale notes and the notes on pull requests,
measured on real repository histories, and what pr-notes costs.

Quality, for every dataset under ``--data`` (a folder per repository holding ``cases.json``,
the history as a git bundle and the repository's licence; see ``data/code_aware/README.md``):

- stale: the notes of a set are written with anchors at old commits; the repository is checked
  out at a later commit; ``reflect-git stale --json`` is compared with the hand-judged verdicts:
  recall of the truly stale notes (goal >= 0.90) and the false-alarm rate among the notes
  judged not stale (goal <= 0.05);
- pull requests: each judged change (a commit, as ``--base C^ --head C``) against the notes of
  a set: precision of the (up to) three notes shown first (goal >= 0.6) over the changes with
  relevant notes, and the share of changes judged to have none that get none (no comment;
  goal 1.0).

Cost (``--cost``): ``pr-notes`` on a change of 1,000 files against a KB of 10,000 notes, against
``git diff --stat`` of that change plus one ``reflect-git search``, medians of ``--runs``
(goal: at most 2x).

Run: ``.venv/bin/python bench/code_aware.py [--data DIR] [--only NAME] [--against REV] [--cost]
[--runs N] [--ask-model]``. ``--against REV`` runs the code of another commit of this repository
on the same data first (extracted with ``git archive``), so one run shows each dataset's before
and after. ``--ask-model`` runs ``stale --ask-model``: the configured model (the drain's,
``REFLECT_DRAIN_CMD``, else ``claude -p``) reads each note the heuristics call stale for a
change (one call per note and check); each line then says how many it read and how many calls
failed (a failed call keeps the heuristic verdict). Without a model command it exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from kbgen import env as bench_env  # noqa: E402
from kbgen import make_kb  # noqa: E402

DATA = HERE / "data" / "code_aware"
# The folder holding the ``reflectgit`` package to run (None: the installed one). ``python -m``
# puts the working folder first on the import path, so the command runs there.
CODE: Path | None = None


def rg(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reflectgit", *args],
        cwd=cwd or CODE,
        capture_output=True,
        text=True,
        env=bench_env(),
        check=False,
    )


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, env=bench_env(), check=True
    )
    return done.stdout


def note_text(project: str, note: dict[str, Any]) -> str:
    import yaml

    front = {
        "type": "learning",
        "id": note["id"],
        "created": "2026-01-01T00:00:00Z",
        "confidence": "high",
        "title": note["title"],
        "key_insight": note["insight"],
        "category": "code",
        "project": project,
        "scope": "project",
        "anchors": note["anchors"],
    }
    return "---\n" + yaml.safe_dump(front, sort_keys=False) + "---\n" + note["insight"] + "\n"


def make_set_kb(root: Path, project: str, notes: list[dict[str, Any]]) -> Path:
    kb = root
    if rg("init", str(kb), "-q").returncode != 0:
        raise SystemExit(f"reflect-git init {kb} failed")
    for note in notes:
        (kb / "documents" / f"{note['id']}.md").write_text(note_text(project, note))
    git("add", "documents", cwd=kb)
    git("commit", "-q", "-m", "notes", cwd=kb)
    return kb


def load_replay(folder: Path, work: Path) -> dict[str, Any]:
    """A dataset in the replay layout (``history.bundle`` with branch ``replay``, ``notes/``,
    ``judged.json``, ``prs.json``; see data/code_aware/README.md) as the harness's cases: one
    note set (the notes as written, with their anchors), one check at ``replay_to``."""
    judged = json.loads((folder / "judged.json").read_text())
    prs = json.loads((folder / "prs.json").read_text())
    return {
        "project": folder.name,
        "bundle": "history.bundle",
        "branch": "replay",
        "source": {"head": judged["replay_to"]},
        "note_files": sorted((folder / "notes").glob("*.md")),
        "stale_checks": [
            {
                "set": "notes",
                "at": judged["replay_to"],
                "judged": [
                    {"id": n["id"], "stale": n["stale"], "why": f"{n['kind']}: {n['reason']}"}
                    for n in judged["notes"]
                ],
            }
        ],
        "prs": [
            {
                "set": "notes",
                "base": p["base"],
                "head": p["head"],
                "relevant": p["relevant"],
                "why": p.get("subject") or p.get("why", ""),
            }
            for p in prs
        ],
    }


def make_file_kb(root: Path, files: list[Path]) -> Path:
    """A KB holding the dataset's notes as written."""
    if rg("init", str(root), "-q").returncode != 0:
        raise SystemExit(f"reflect-git init {root} failed")
    for path in files:
        (root / "documents" / path.name).write_bytes(path.read_bytes())
    git("add", "documents", cwd=root)
    git("commit", "-q", "-m", "notes", cwd=root)
    return root


def prepare(folder: Path, work: Path) -> tuple[dict[str, Any], Path, dict[str, Path]]:
    """A dataset's cases, its history cloned into ``work`` and a KB for each of its note sets:
    what every reader of the datasets (this bench, stale_kinds, pr_kinds) starts from."""
    if (folder / "cases.json").is_file():
        cases = json.loads((folder / "cases.json").read_text())
    else:
        cases = load_replay(folder, work)
    project = cases["project"]
    code = work / project  # the folder's name is the project's, as in any clone
    branch = ["-b", cases["branch"]] if cases.get("branch") else []
    git("clone", "-q", *branch, str(folder / cases["bundle"]), str(code), cwd=work)
    kbs = {
        name: make_set_kb(work / f"kb-{name}", project, notes)
        for name, notes in cases.get("note_sets", {}).items()
    }
    if cases.get("note_files"):
        kbs["notes"] = make_file_kb(work / "kb-notes", cases["note_files"])
    return cases, code, kbs


def model_missing() -> str | None:
    """Why ``--ask-model`` cannot run here (no model command installed), or None."""
    from reflectgit.config import WriterSettings, load
    from reflectgit.errors import ConfigError
    from reflectgit.workflows.drain.writer import require_command

    try:
        require_command(
            load(WriterSettings, os.environ),
            os.environ,
            needed_for="--ask-model",
            without="run the bench without --ask-model",
        )
    except ConfigError as exc:
        return exc.message
    return None


def run_dataset(folder: Path, work: Path, ask_model: bool = False) -> dict[str, Any]:
    cases, code, kbs = prepare(folder, work)
    tp = fn = fp = tn = caught = 0
    misses: list[str] = []
    read: dict[str, int] = {}  # --ask-model: what the model read, summed over the checks
    for check in cases["stale_checks"]:
        git("checkout", "-q", "--detach", check["at"], cwd=code)
        ask = ["--ask-model"] if ask_model else []
        done = rg("--kb", str(kbs[check["set"]]), "--json", "stale", "--repo", str(code), *ask)
        if done.returncode != 0:
            raise SystemExit(f"stale failed: {done.stderr}")
        doc = json.loads(done.stdout)
        for key, value in doc.get("model_reading", {}).items():
            if isinstance(value, int):
                read[key] = read.get(key, 0) + value
        flagged = {s["id"] for s in doc["stale"]}
        lower = {s["id"] for s in doc.get("changed", [])}  # listed below stale (newer code)
        for verdict in check["judged"]:
            said = verdict["id"] in flagged
            if verdict["stale"] and (said or verdict["id"] in lower):
                caught += 1
            if verdict["stale"] and said:
                tp += 1
            elif verdict["stale"]:
                fn += 1
                misses.append(f"missed {verdict['id']} at {check['at'][:8]}: {verdict['why']}")
            elif said:
                fp += 1
                misses.append(f"false alarm {verdict['id']} at {check['at'][:8]}: {verdict['why']}")
            else:
                tn += 1
    git("checkout", "-q", "--detach", cases["source"]["head"], cwd=code)
    precisions: list[float] = []
    quiet = empty = 0
    found = wanted = 0  # relevant notes listed at any rank, of all relevant
    for pr in cases["prs"]:
        base, head = pr.get("base") or f"{pr['commit']}^", pr.get("head") or pr["commit"]
        pr["commit"] = head
        done = rg(
            "--kb", str(kbs[pr["set"]]), "--json", "pr-notes", "--repo", str(code),
            "--base", base, "--head", head,
        )  # fmt: skip
        if done.returncode != 0:
            raise SystemExit(f"pr-notes failed: {done.stderr}")
        every = [n["id"] for n in json.loads(done.stdout)["notes"]]
        found += len(set(pr["relevant"]) & set(every))
        wanted += len(set(pr["relevant"]))
        listed = json.loads(done.stdout)["notes"][:3]
        shown = [n["id"] for n in listed]
        why = {n["id"]: n["why"] for n in listed}
        relevant = set(pr["relevant"])
        if relevant:
            if shown:
                precisions.append(len([i for i in shown if i in relevant]) / len(shown))
            else:
                precisions.append(0.0)
                misses.append(f"nothing shown for {pr['commit'][:8]} ({pr['why']})")
            wrong = [f"{i} ({why[i]})" for i in shown if i not in relevant]
            if wrong:
                misses.append(f"{pr['commit'][:8]} ({pr['why']}) also showed {wrong}")
        else:
            empty += 1
            quiet += not shown
            if shown:
                listed = [f"{i} ({why[i]})" for i in shown]
                misses.append(f"{pr['commit'][:8]} ({pr['why']}) showed {listed}")
    return {
        "dataset": folder.name,
        "stale_cases": tp + fn + fp + tn,
        "stale_recall": tp / (tp + fn) if tp + fn else None,
        "false_alarm_rate": fp / (fp + tn) if fp + tn else None,
        "stale_or_changed_recall": caught / (tp + fn) if tp + fn else None,
        "prs": len(cases["prs"]),
        "top3_precision": statistics.mean(precisions) if precisions else None,
        "no_comment_rate": quiet / empty if empty else None,
        "relevant_listed": f"{found}/{wanted}",
        **({"model_reading": read} if ask_model else {}),
        "details": misses,
    }


# --------------------------------------------------------------------------- cost


def make_big_change(root: Path, files: int) -> Path:
    """A repository whose ``main`` has ``files`` small modules and whose ``change`` branch
    edits every one of them (a function each)."""
    repo = root / "bigrepo"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    for i in range(files):
        folder = repo / f"pkg{i // 100}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod{i}.py").write_text(f"def handler_{i}(x):\n    return x + {i}\n")
    git("add", ".", cwd=repo)
    git("commit", "-q", "-m", "base", cwd=repo)
    git("checkout", "-q", "-b", "change", cwd=repo)
    for i in range(files):
        path = repo / f"pkg{i // 100}" / f"mod{i}.py"
        path.write_text(f"def handler_{i}(x):\n    return x * {i}\n")
    git("commit", "-q", "-am", "multiply instead of add in every handler", cwd=repo)
    return repo


def code_env() -> dict[str, str]:
    """The environment of a timed command: the code of ``CODE`` first on the import path."""
    env = bench_env()
    if CODE is not None:
        env["PYTHONPATH"] = str(CODE)
    return env


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, capture_output=True, env=code_env(), check=True)
    return time.perf_counter() - start


def run_cost(work: Path, files: int, notes: int, runs: int) -> dict[str, Any]:
    repo = make_big_change(work, files)
    kb = work / "bigkb"
    make_kb(kb, notes)
    # a hundred notes of the KB anchored to files of the change (the rest are not)
    for i in range(100):
        note = {
            "id": f"anchored-{i}",
            "title": f"Handler {i} rule",
            "insight": f"handler_{i} must stay pure",
            "anchors": [{"path": f"pkg{i // 100}/mod{i}.py", "symbol": f"handler_{i}"}],
        }
        (kb / "documents" / f"anchored-{i}.md").write_text(note_text("bigrepo", note))
    git("add", "documents", cwd=kb)
    git("commit", "-q", "-m", "anchored", cwd=kb)
    py = sys.executable
    search = [py, "-m", "reflectgit", "--kb", str(kb), "search", "handler", "multiply"]
    stat = ["git", "diff", "--stat", "main...change"]
    pr = [py, "-m", "reflectgit", "--kb", str(kb), "--json", "pr-notes", "--repo", str(repo),
          "--base", "main", "--head", "change"]  # fmt: skip
    timed(search, repo)  # the index is built once, as any KB in use has it
    anchor_times, ours = [], []
    for _ in range(runs):  # interleaved, so a busy moment costs both sides
        anchor_times.append(timed(stat, repo) + timed(search, repo))
        ours.append(timed(pr, repo))
    found = json.loads(
        subprocess.run(pr, cwd=repo, capture_output=True, text=True, env=code_env()).stdout
    )
    a, o = statistics.median(anchor_times), statistics.median(ours)
    return {
        "files": files,
        "notes": notes + 100,
        "anchor_s": round(a, 3),
        "pr_notes_s": round(o, 3),
        "ratio": round(o / a, 2),
        "met": o <= 2 * a,
        "shown": len(found["notes"]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="datasets folder")
    parser.add_argument("--cost", action="store_true", help="also time pr-notes")
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--notes", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quiet", action="store_true", help="no per-case details")
    parser.add_argument(
        "--only", action="append", metavar="NAME", help="only this dataset (repeatable)"
    )
    parser.add_argument(
        "--against", metavar="REV", help="also run this commit's code first (before/after)"
    )
    parser.add_argument(
        "--ask-model",
        action="store_true",
        help="stale --ask-model: the configured model reads each note stale for a change",
    )
    args = parser.parse_args(argv)
    if args.ask_model:
        missing = model_missing()
        if missing is not None:
            print(f"error: {missing}", file=sys.stderr)
            print(
                "hint: set REFLECT_DRAIN_CMD to a model command (prompt on stdin, answer on"
                " stdout), or run without --ask-model",
                file=sys.stderr,
            )
            return 1
    folders = sorted(
        p
        for p in args.data.iterdir()
        if ((p / "cases.json").is_file() or (p / "judged.json").is_file())
        and (not args.only or p.name in args.only)
    )
    if not folders:
        raise SystemExit(f"no dataset (cases.json or judged.json) under {args.data}")
    global CODE
    with tempfile.TemporaryDirectory(prefix="code-aware-") as tmp:
        runs: list[tuple[str, Path | None]] = [("this tree", None)]
        if args.against:
            before = Path(tmp) / "before"
            before.mkdir()
            archive = subprocess.run(
                ["git", "archive", args.against, "reflectgit"],
                cwd=HERE.parent, capture_output=True, check=True,
            )  # fmt: skip
            subprocess.run(["tar", "-x", "-C", str(before)], input=archive.stdout, check=True)
            runs.insert(0, (args.against, before))
        for folder in folders:
            for label, code in runs:
                CODE = code
                work = Path(tmp) / label.replace(" ", "-") / folder.name
                work.mkdir(parents=True)
                result = run_dataset(folder, work, args.ask_model)
                details = result.pop("details")
                print(json.dumps({"code": label, **result}))
                if not args.quiet:
                    for line in details:
                        print("  " + line)
        CODE = None
        if args.cost:
            for label, code in runs:
                CODE = code
                work = Path(tmp) / label.replace(" ", "-") / "cost"
                work.mkdir(parents=True)
                cost = run_cost(work, args.files, args.notes, args.runs)
                print(json.dumps({"code": label, **cost}))
            CODE = None
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
