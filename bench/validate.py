"""Benchmark: `reflect-git validate` against `check-jsonschema`, whole process against whole process.

Generates N notes with frontmatter like the corpus (fixed seed), writes the same frontmatter as
N YAML files, then times, in this one run:

  1. `reflect-git validate NOTES_DIR`                                   (N notes, with line numbers)
  2. `check-jsonschema --schemafile schemas/frontmatter.schema.json F...` (the same N frontmatters)
  3. `reflect-git-validate ONE.md` (what pre-commit runs for one changed note) and
     `reflect-git validate ONE.md`, against `python -c pass`

Goal (issue 2): (1) at least 15x faster than (2). Run: `.venv/bin/python bench/validate.py`
(`--notes 2000` for a quicker look).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

from reflectgit.notes.note import Note, dump_yaml, render_note, slugify

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SCHEMA = ROOT / "schemas" / "frontmatter.schema.json"
GOAL = 15.0

TOOLS = ["docker", "git", "kubectl", "npm", "sqlite", "psql", "pytest", "redis", "ruff", "uv"]
CATEGORIES = ["debugging", "ci", "tooling", "process", "conventions", "performance"]
TYPES = ["caused_by", "causes", "enables", "prevents", "uses", "solves", "relates_to", "requires"]
WORDS = [
    "cache",
    "pool",
    "timeout",
    "build",
    "wheel",
    "socket",
    "session",
    "retry",
    "deploy",
    "index",
    "lock",
    "queue",
    "worker",
    "memory",
    "flag",
    "image",
    "runner",
    "migration",
    "schema",
    "token",
    "proxy",
    "branch",
    "commit",
    "hook",
]


def hex_string(rng: random.Random, digits: int) -> str:
    """Hex like a content hash, never one a YAML 1.2 reader takes for a number (``123e4``)."""
    while True:
        text = f"{rng.getrandbits(digits * 4):0{digits}x}"
        if any(ch in "abcdf" for ch in text):
            return text


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def frontmatter(rng: random.Random, i: int) -> dict[str, object]:
    """A full reflect-format frontmatter, like the drain writes (see data/notes/valid)."""
    tool = rng.choice(TOOLS)
    title = f"Use {tool} {rng.choice(WORDS)} for {rng.choice(WORDS)} workflows {i}"
    hash6 = hex_string(rng, 6)
    when = datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(minutes=rng.randrange(500_000))
    return {
        "type": "learning",
        "id": f"lrn-{slugify(title)}-{hash6}",
        "created": when,
        "updated": when + timedelta(days=rng.randrange(30)),
        "scope": "global",
        "confidence": rng.choice(["high", "medium", "low"]),
        "confidence_num": round(rng.random(), 2),
        "learning_type": "bug-fix",
        "discovery_tokens": rng.randrange(1000, 60000),
        "title": title,
        "tags": sorted({tool, rng.choice(WORDS), rng.choice(WORDS)}),
        "symptoms": [sentence(rng, 6)],
        "key_insight": sentence(rng, 12),
        "problem": sentence(rng, 10),
        "root_cause": sentence(rng, 10),
        "fix": sentence(rng, 8),
        "rule": sentence(rng, 8),
        "category": rng.choice(CATEGORIES),
        "entities": [tool],
        "causal_relations": [
            {"source": rng.choice(WORDS), "target": rng.choice(WORDS), "type": rng.choice(TYPES)}
        ],
        "links": [],
        "source_episodes": [],
        "superseded_by": None,
        "forget_after": None,
        "provenance": {
            "source_tool": "claude",
            "source_path": f"/home/dev/.claude/projects/x/{hex_string(rng, 16)}.jsonl",
            "content_hash": hex_string(rng, 12),
            "detected_at": when,
            "source_memory_ids": [],
            "proof_count": rng.randrange(1, 6),
        },
    }


def generate(folder: Path, count: int, seed: int) -> tuple[Path, Path, list[str]]:
    rng = random.Random(seed)
    notes, yamls = folder / "notes", folder / "yaml"
    notes.mkdir()
    yamls.mkdir()
    names = []
    for i in range(count):
        front = frontmatter(rng, i)
        body = f"\n## Problem\n{front['problem']}\n\n## Solution\n{front['fix']}\n"
        name = f"{front['id']}"
        (notes / f"{name}.md").write_bytes(render_note(Note(front, body)))
        (yamls / f"{name}.yaml").write_text(dump_yaml(front), encoding="utf-8")
        names.append(f"{name}.yaml")
    return notes, yamls, names


def timed(cmd: Sequence[str], cwd: Path, repeat: int = 1) -> tuple[float, float]:
    """Best wall-clock time and best CPU time (user + sys, with children) of ``repeat`` runs.

    CPU time is printed too because wall time on a busy machine mostly measures the others.
    """
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"{cmd[0]} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best, best_cpu = min(best, elapsed), min(best_cpu, cpu)
    return best, best_cpu


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    reflect = str(BIN / "reflect-git")
    hook = str(BIN / "reflect-git-validate")
    check_jsonschema = shutil.which("check-jsonschema", path=str(BIN)) or "check-jsonschema"
    with tempfile.TemporaryDirectory(prefix="bench-validate-") as tmp:
        folder = Path(tmp)
        notes, yamls, names = generate(folder, args.notes, args.seed)
        print(f"{args.notes} notes generated (seed {args.seed}) in {folder}")

        ours, ours_cpu = timed([reflect, "validate", str(notes)], folder, repeat=3)
        theirs, theirs_cpu = timed([check_jsonschema, "--schemafile", str(SCHEMA), *names], yamls)
        print(
            f"load average before the timed runs: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
        )
        print(
            f"reflect-git validate      {args.notes:>6} notes  {ours:8.3f} s wall  {ours_cpu:8.3f} s cpu"
        )
        print(
            f"check-jsonschema          {args.notes:>6} files  {theirs:8.3f} s wall  {theirs_cpu:8.3f} s cpu"
        )
        ratio = theirs / ours
        verdict = "meets" if ratio >= GOAL else "MISSES"
        print(f"ratio (wall): reflect-git is {ratio:.1f}x faster ({verdict} the {GOAL:.0f}x goal)")
        print(f"ratio (cpu):  reflect-git uses {theirs_cpu / ours_cpu:.1f}x less CPU")

        one = str(next(iter(sorted(notes.iterdir()))))
        baseline, _ = timed([sys.executable, "-c", "pass"], folder, repeat=10)
        hook_one, _ = timed([hook, one], folder, repeat=10)
        cli_one, _ = timed([reflect, "validate", one], folder, repeat=10)
        print(f"python -c pass                        {baseline * 1000:7.1f} ms")
        print(
            f"reflect-git-validate ONE.md (hook)    {hook_one * 1000:7.1f} ms"
            f"  ({hook_one / baseline:.1f}x python -c pass)"
        )
        print(
            f"reflect-git validate ONE.md (CLI)     {cli_one * 1000:7.1f} ms"
            f"  ({cli_one / baseline:.1f}x python -c pass)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
