"""The drain's belief-revision block lists up to 10 consolidated observations for the scope
(notes of ``type: observation``), so the writer can update them; a stub model records the
prompt it was given and answers with an UPDATE of one of them."""

from __future__ import annotations

import json
from pathlib import Path

from reflectgit.notes.note import Note, render_note
from reflectgit.state.queue import Queue
from reflectgit.workflows.drain.cascade import OBSERVATIONS_MARKER, REVISION_MARKER
from reflectgit.workflows.kb import KnowledgeBase
from tests.conftest import git, run_cli_proc
from tests.support.drain import copy_transcript, prompt_of, stub_command


def _note(kb: KnowledgeBase, title: str, day: int, **front: object) -> str:
    fields = {
        "type": "observation",
        "title": title,
        "created": f"2026-11-{day:02d}T10:00:00Z",
        "confidence": "medium",
        "key_insight": f"{title}, seen in several sessions",
        **front,
    }
    return kb.add(render_note(Note(fields, f"{title}.\n"))).id


def test_observations_for_the_scope_reach_the_prompt_and_can_be_updated(
    tmp_path: Path,
) -> None:
    kb_path = tmp_path / "kb"
    assert run_cli_proc("--kb", str(kb_path), "init").returncode == 0
    project = tmp_path / "billing"
    git("init", "-q", "-b", "main", str(project), cwd=tmp_path)
    with KnowledgeBase.open(kb_path, state_dir=kb_path / ".git" / "reflect-git") as kb:
        ours = [
            _note(kb, f"Billing observation {n}", n, project="billing", scope="project")
            for n in range(1, 12)  # 11 of them: only the newest 10 are listed
        ]
        everywhere = _note(kb, "Builds are slower on Mondays", 20, scope="global")
        theirs = _note(kb, "Dashboard observation", 25, project="dashboard", scope="project")
        learning = _note(kb, "Billing learning that is not an observation", 26, type="learning",
                         project="billing", scope="project")  # fmt: skip
    target = ours[-1]
    answer = {"actions": [{"action": "UPDATE", "id": target, "reason": "seen again"}]}
    stub = stub_command(tmp_path, f"emit({answer!r})")
    transcript = copy_transcript(tmp_path, "claude/correction-0.jsonl")
    Queue(kb_path / ".git" / "reflect-git").add(str(transcript), "stop", "s1", cwd=str(project))

    done = run_cli_proc(
        "--kb", str(kb_path), "--json", "drain",
        env={"REFLECT_DRAIN_CMD": str(stub), "REFLECT_DRAIN_DEBOUNCE_SEC": "0"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)["rows"][0]
    assert row["outcome"] == "ok", row

    prompt = prompt_of(stub)
    assert OBSERVATIONS_MARKER in prompt
    block = prompt.split(OBSERVATIONS_MARKER, 1)[1].split(REVISION_MARKER, 1)[0]
    listed = [
        line.split(" | ")[0][len("- id: ") :]
        for line in block.splitlines()
        if line.startswith("- id: ")
    ]
    assert len(listed) == 10
    assert theirs not in listed  # another project's observation
    assert learning not in listed  # not an observation
    assert everywhere in listed  # a global one holds here too
    assert ours[0] not in listed and ours[1] not in listed  # the oldest fell off (10 at most)
    assert listed[0] == everywhere  # newest first
    assert f"- id: {target} | title: Billing observation 11 | observed: " in block

    # The writer's UPDATE of a listed observation is applied: the observation is confirmed.
    assert row["confirmed"] == [target]
    shown = json.loads(run_cli_proc("--kb", str(kb_path), "--json", "show", target).stdout)
    assert shown["frontmatter"]["provenance"]["source_memory_ids"] == ["drain:s1"]


def test_no_observations_no_block(tmp_path: Path) -> None:
    kb_path = tmp_path / "kb"
    assert run_cli_proc("--kb", str(kb_path), "init").returncode == 0
    stub = stub_command(tmp_path, "emit({'actions': []})")
    transcript = copy_transcript(tmp_path, "claude/correction-0.jsonl")
    Queue(kb_path / ".git" / "reflect-git").add(str(transcript), "stop", "s1")
    done = run_cli_proc(
        "--kb", str(kb_path), "drain",
        env={"REFLECT_DRAIN_CMD": str(stub), "REFLECT_DRAIN_DEBOUNCE_SEC": "0"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert OBSERVATIONS_MARKER not in prompt_of(stub)
