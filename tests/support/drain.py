"""Shared helpers for the drain tests: stub model commands, configs, clocks, snapshots."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from reflectgit.config import Config
from reflectgit.notes.note import parse_note
from reflectgit.state.queue import Queue
from reflectgit.workflows.drain.loop import run_drain
from tests.conftest import DATA, shared_json

TRANSCRIPTS = DATA / "transcripts"
MANIFEST = shared_json("transcripts", "MANIFEST.json")
T0 = 1_795_000_000.0  # a fixed "now" (2026-11-18) for deterministic runs


class Clock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def stub_command(tmp: Path, body: str, name: str = "stub-model") -> Path:
    """An executable Python script: reads the prompt on stdin, then runs ``body``.

    ``prompt`` holds the prompt; ``emit(obj)`` prints a claude-style JSON envelope whose
    result is ``obj`` (a string, or an object dumped as JSON); ``calls`` is a file the
    script appends one line to per call, so tests can see whether the model ran.
    """
    path = tmp / name
    calls = tmp / f"{name}.calls"
    script = f"""#!{sys.executable}
import json, sys, time
prompt = sys.stdin.read()
with open({str(calls)!r}, "a") as fh:
    fh.write("call\\n")
with open({str(tmp / (name + ".prompt"))!r}, "w") as fh:
    fh.write(prompt)
def emit(result, **extra):
    text = result if isinstance(result, str) else json.dumps(result)
    env = {{"type": "result", "subtype": "success", "is_error": False, "num_turns": 1,
           "result": text, "total_cost_usd": 0.0125,
           "usage": {{"input_tokens": 1200, "output_tokens": 300}},
           "modelUsage": {{"claude-sonnet-4-5": {{}}}}}}
    env.update(extra)
    print(json.dumps(env))
{body}
"""
    path.write_text(script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def calls(stub: Path) -> int:
    f = stub.parent / f"{stub.name}.calls"
    return len(f.read_text().splitlines()) if f.exists() else 0


def prompt_of(stub: Path) -> str:
    return (stub.parent / f"{stub.name}.prompt").read_text()


def drained_prompt(tmp: Path, transcript: Path) -> str:
    """The whole prompt a real drain sends a stub model (answering no actions) for
    ``transcript``, queued in a new knowledge base under ``tmp``."""
    stub = stub_command(tmp, "emit({'actions': []})")
    repo = tmp / "kb"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    cfg = make_config(repo, REFLECT_DRAIN_CMD=str(stub))
    enqueue(cfg, transcript)
    [row] = run_drain(cfg, clock=Clock()).rows
    assert row["outcome"] == "ok", row
    return prompt_of(stub)


def make_config(kb: Path, **env: str) -> Config:
    base = {
        "HOME": os.environ["HOME"],
        "PATH": os.environ.get("PATH", ""),
        "REFLECT_DRAIN_DEBOUNCE_SEC": "0",
        "REFLECT_DRAIN_MAX": "50",
        "REFLECT_DRAIN_DAILY_MAX": "50",
    }
    base.update(env)
    return Config.resolve(kb, base)


def copy_transcript(tmp: Path, rel: str, name: str | None = None) -> Path:
    src = TRANSCRIPTS / rel
    dst = tmp / "transcripts" / (name or Path(rel).name)
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
    return dst


def enqueue(cfg: Config, path: Path, trigger: str = "stop", clock: Clock | None = None) -> str:
    q = Queue(cfg.state_dir, clock=clock or Clock())
    entry, _ = q.add(str(path), trigger, path.stem)
    return entry.id


def drained_notes(repo: Path, path: Path) -> dict[str, dict[str, Any]]:
    """Drain the one transcript ``path`` with the heuristic writer into the KB ``repo`` (the
    real drain, a fixed clock): the front matter of every note there, by title."""
    cfg = make_config(repo, REFLECT_DRAIN_WRITER="heuristic")
    enqueue(cfg, path)
    run_drain(cfg, clock=Clock())
    out: dict[str, dict[str, Any]] = {}
    for doc in sorted((repo / "documents").glob("*.md")):
        note = parse_note(doc.read_bytes(), str(doc))
        out[str(note.frontmatter["title"])] = dict(note.frontmatter)
    return out


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (for byte-for-byte comparisons)."""
    if not folder.exists():
        return {}
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def create_action(title: str, **fields: Any) -> dict[str, Any]:
    action = {
        "action": "CREATE",
        "title": title,
        "key_insight": f"{title} (insight)",
        "rule": f"Rule for {title}",
        "root_cause": "a cause",
        "fix": "a fix",
        "confidence": "high",
        "confidence_num": 0.9,
        "category": "tools",
        "tags": ["pip", "uv"],
        "entities": [{"name": "uv", "type": "tool", "description": "installer"}],
        "causal_relations": [{"source": "pip", "target": "drift", "type": "causes"}],
    }
    action.update(fields)
    return action


QUALITY = Path(__file__).resolve().parents[2] / "bench" / "data" / "quality"


def copy_quality_transcript(tmp: Path, rel: str) -> Path:
    """A tune set's gzip-compressed session (``held-apart-15/transcripts/claude/x.jsonl.gz``),
    decompressed into ``tmp/transcripts`` as the harness would have written it."""
    import gzip

    src = QUALITY / rel
    dst = tmp / "transcripts" / src.name.removesuffix(".gz")
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(gzip.decompress(src.read_bytes()))
    return dst
