"""A heuristic drain of the real sessions (issue 19.4): a real ``reflect-git drain`` subprocess
on a KB in tmp_path, the queue filled from every file under ``../shared/data/real/transcripts``.

No note may come from text the harness injected; the real lessons come back; every note made
is judged in ``bench/data/quality/judgements.json`` (useful or junk, with why; the one
judgement file, read through ``bench/quality.py``).
"""

from __future__ import annotations

import json
import re

import pytest

from bench import quality
from reflectgit.notes.note import parse_note
from reflectgit.notes.transcripts import INJECTED
from reflectgit.state.queue import Queue
from reflectgit.workflows.transcript_file import read_transcript
from tests.conftest import DATA, git, needs_shared, run_cli_proc
from tests.support.drain import make_config

pytestmark = needs_shared

REAL = DATA / "real" / "transcripts"
JUNK_AT_MOST = 1
KEPT_AT_LEAST = 11
_QUOTE = re.compile(r"Said by the (?:person|assistant): “(.+?)”", re.S)


def _squash(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def drained(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("real-drain")
    kb = tmp / "kb"
    git("init", "-q", "-b", "main", str(kb), cwd=tmp)
    env = {
        "REFLECT_DRAIN_WRITER": "heuristic",
        "REFLECT_DRAIN_DEBOUNCE_SEC": "0",
        "REFLECT_DRAIN_MAX": "100",
        "REFLECT_DRAIN_DAILY_MAX": "100",
    }
    cfg = make_config(kb, **env)
    queue = Queue(cfg.state_dir)
    files = sorted(REAL.rglob("*.jsonl"))
    for path in files:
        t = read_transcript(path)
        queue.add(str(path), "stop", t.parent_session_id or t.session_id or path.stem)
    proc = run_cli_proc("--kb", str(kb), "--json", "drain", env=env)
    notes = {}
    for f in sorted((kb / "documents").glob("*.md")) if (kb / "documents").is_dir() else []:
        note = parse_note(f.read_bytes(), str(f))
        notes[note.id] = note
    return {"proc": proc, "kb": kb, "notes": notes, "files": files}


def test_the_drain_runs_every_real_session(drained):
    proc = drained["proc"]
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    rows = doc["rows"] if isinstance(doc, dict) else doc
    assert {r["transcript"] for r in rows} == {str(p) for p in drained["files"]}
    for row in rows:
        assert row["outcome"] == "ok" or row["outcome"].startswith("skip_"), row
    assert git("status", "--porcelain", cwd=drained["kb"]) == ""
    git("fsck", "--strict", cwd=drained["kb"])


def test_no_note_comes_from_injected_text(drained):
    assert drained["notes"], "the real sessions hold lessons"
    for nid, note in drained["notes"].items():
        source = note.frontmatter["provenance"]["source_path"]
        t = read_transcript(source)
        said = [_squash(x.text) for x in t.turns if x.speaker != INJECTED]
        injected = [_squash(x.text) for x in t.turns if x.speaker == INJECTED]
        quotes = [_squash(q) for q in _QUOTE.findall(note.body)]
        assert quotes, f"{nid} shows its evidence"
        for quote in quotes:
            assert any(quote in text for text in said), (nid, quote)
        # The junk the issue measured: caveats, skill bodies, the compaction prompt, AGENTS.md.
        text = _squash(f"{note.frontmatter['title']} {note.frontmatter.get('rule', '')}")
        for marker in (
            "DO NOT respond",
            "Base directory for this skill",
            "AGENTS.md",
            "detailed summary of the conversation",
            "Caveat:",
        ):
            assert marker not in text, (nid, marker)
        assert not any(text and text in blob for blob in injected if len(text) > 40), nid


def test_every_note_is_judged_and_the_real_lessons_come_back(drained):
    judgements = quality.load()
    written = quality.drained(drained["kb"], DATA / "real", quality.sessions_of(judgements))
    figures, unjudged, missed = quality.judge(written, judgements, "drain")
    assert not unjudged, "judge these notes in bench/data/quality/judgements.json: " + "; ".join(
        f"{w.session}: {w.title}" for w in unjudged
    )
    assert figures.notes == len(drained["notes"])
    # The figures docs/drain.md gives (tune figures: these sessions are tuned on) may rise,
    # never fall: a lesson lost or a junk note added fails here.
    assert figures.junk <= JUNK_AT_MOST, figures
    assert figures.kept >= KEPT_AT_LEAST, missed


def test_no_heuristic_note_is_high_and_a_persons_rule_is_medium(drained):
    by_title = {n.frontmatter["title"]: n.frontmatter for n in drained["notes"].values()}
    assert {f["confidence"] for f in by_title.values()} <= {"medium", "low"}
    rule = by_title["Don't produce code, design solution first"]
    assert rule["confidence"] == "medium" and rule["learning_type"] == "correction"
    fixes = [f for t, f in by_title.items() if "set_text_map_propagators" in t]
    assert [f["confidence"] for f in fixes] == ["low"], "the assistant's fix is low"
