"""Every channel, every shape: plant each corpus secret and search everything we wrote.

Channels: a hand-written note (``add``, ``import``), hook payloads through a real
``reflect-git hook`` process, a transcript drained by the heuristic writer and by a stub model
whose answer repeats the secrets, commit messages and a revert with the post-commit hook
installed, and ``route`` to a loopback team remote. Afterwards no secret is in any git object
(``git cat-file --batch-all-objects``), the team remote, the state directory or the logs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reflectgit.errors import NoteError
from reflectgit.workflows import routing
from reflectgit.workflows.drain.loop import run_drain
from tests.conftest import git
from tests.notes.test_secrets import POSITIVES
from tests.support.capture import all_objects, every_state_file, kb_fixture, leaked, run_hook
from tests.support.drain import Clock, create_action, enqueue, make_config, prompt_of, stub_command
from tests.support.remote import GitDaemon, git_daemon
from tests.support.routing import kb_factory

__all__ = ["git_daemon", "kb_factory", "kb_fixture"]

SYNC = {"REFLECT_GIT_HOOK_SYNC": "1"}
ONE_LINE = [e for e in POSITIVES if "\n" not in e["text"]]
GROUPS = [POSITIVES[i : i + 10] for i in range(0, len(POSITIVES), 10)]  # a few processes each


def _assert_nowhere(haystacks: dict[str, str]) -> None:
    leaks = [
        (entry["shape"], where)
        for entry in POSITIVES
        for where, text in haystacks.items()
        if leaked(text, entry["secret"])
    ]
    assert leaks == []


def _kb_haystacks(kb: Path) -> dict[str, str]:
    return {"objects": all_objects(kb), "state": every_state_file(kb)}


def _transcript(path: Path, session: str) -> Path:
    """A Claude transcript: a failing pip, then a correction per shape holding the secret."""
    base = {"sessionId": session, "cwd": "/home/dev/src/app", "version": "2.1.14"}
    lines = [
        {**base, "type": "user", "message": {"role": "user", "content": "Set up the env."}},
        {
            **base,
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "On it."}]},
        },
    ]
    for entry in POSITIVES:
        text = f"No, use uv instead of pip. Also, for the record:\n{entry['text']}"
        lines.append({**base, "type": "user", "message": {"role": "user", "content": text}})
        reply = f"Understood, I will use uv. Noted: {entry['text']}"
        lines.append(
            {
                **base,
                "type": "assistant",
                "message": {"role": "assistant", "content": [{"type": "text", "text": reply}]},
            }
        )
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def _cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", "reflectgit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=dict(os.environ, **(env or {})),
        check=False,
    )


def test_hand_written_notes_through_add_and_import(kb: Path, tmp_path: Path, cli) -> None:
    folder = tmp_path / "import"
    folder.mkdir()
    for entry in POSITIVES:
        note = (
            f"---\nid: lrn-{entry['shape']}\ntitle: About {entry['shape']}\n"
            f"created: 2026-11-30\nconfidence: high\n---\n{entry['text']}\n"
        )
        (folder / f"lrn-{entry['shape']}.md").write_text(note)
        res = cli("add", str(folder / f"lrn-{entry['shape']}.md"))
        assert res.code == 1, entry["shape"]
        assert entry["secret"] not in res.out + res.err
    res = _cli("import", str(folder))  # one real process for the whole folder
    assert res.returncode in (0, 1)
    _assert_nowhere({"import output": res.stdout + res.stderr})
    assert git("ls-tree", "-r", "--name-only", "main", cwd=kb).split() == ["README.md"]
    _assert_nowhere(_kb_haystacks(kb))


def test_hook_payloads_through_real_hook_processes(kb: Path, tmp_path: Path) -> None:
    session = "5ec2e7a1-0000-4000-8000-000000000001"
    transcript = _transcript(tmp_path / f"{session}.jsonl", session)
    common = {"session_id": session, "transcript_path": str(transcript), "cwd": str(tmp_path)}
    outputs = []
    for group in GROUPS:
        texts = "\n".join(e["text"] for e in group)
        payloads = [
            {
                **common,
                "hook_event_name": "PostToolUseFailure",
                "tool_name": "Bash",
                "tool_input": {"command": f"pip install -r req.txt && {texts}"},
                "error": f"exit status 1: {texts}",
            },
            {
                **common,
                "hook_event_name": "UserPromptSubmit",
                "prompt": f"No, don't use pip here. Use uv instead of pip. {texts}",
            },
        ]
        for payload in payloads:
            proc = run_hook(payload["hook_event_name"], json.dumps(payload), SYNC)
            assert proc.returncode == 0, proc.stderr
            outputs.append(proc.stdout + proc.stderr)
    proc = run_hook("Stop", json.dumps({**common, "hook_event_name": "Stop"}), SYNC)
    assert proc.returncode == 0
    notes = git("ls-tree", "-r", "--name-only", "main", "--", "documents", cwd=kb).split()
    assert notes, "the corrections were captured as notes (the channel was used)"
    _assert_nowhere({**_kb_haystacks(kb), "hook output": "\n".join(outputs)})


def test_transcript_drained_by_the_heuristic_writer(kb: Path, tmp_path: Path) -> None:
    cfg = make_config(kb, REFLECT_DRAIN_WRITER="heuristic")
    enqueue(cfg, _transcript(tmp_path / "heuristic.jsonl", "sess-heuristic"))
    report = run_drain(cfg, clock=Clock())
    assert [r["outcome"] for r in report.rows] == ["ok"]
    assert report.rows[0]["notes"], "the heuristic writer made a note from the corrections"
    _assert_nowhere(_kb_haystacks(kb))


def test_a_model_answer_holding_the_secrets_and_the_prompt(kb: Path, tmp_path: Path) -> None:
    everything = "\n".join(e["text"] for e in POSITIVES)
    action = create_action(
        "Use uv instead of pip",
        key_insight="Use uv. " + " ".join(e["text"] for e in ONE_LINE),
        fix=everything,
        rule="Always uv; " + ONE_LINE[0]["text"],
        tags=["uv", ONE_LINE[1]["secret"]],
        body=everything,
    )
    stub = stub_command(tmp_path, f"emit({{'actions': [{action!r}]}})\n")
    cfg = make_config(kb, REFLECT_DRAIN_CMD=str(stub))
    enqueue(cfg, _transcript(tmp_path / "model.jsonl", "sess-model"))
    report = run_drain(cfg, clock=Clock())
    assert [r["outcome"] for r in report.rows] == ["ok"], report.rows
    assert report.rows[0]["notes"]
    _assert_nowhere({**_kb_haystacks(kb), "prompt": prompt_of(stub)})


def test_commit_messages_and_a_revert_with_the_hook_installed(kb: Path, tmp_path: Path) -> None:
    docs = kb / "documents"
    docs.mkdir(exist_ok=True)
    (docs / "lrn-s.md").write_text(
        "---\nid: lrn-s\ntitle: A session learning\ncreated: 2026-11-01\nconfidence: high\n"
        "session_id: sess-c\n---\nbody\n"
    )
    git("add", "documents", cwd=kb)
    git("commit", "-qm", "seed", cwd=kb)
    code = tmp_path / "code"
    git("init", "-q", "-b", "main", str(code), cwd=tmp_path)
    assert _cli("hooks", "install", str(code)).returncode == 0
    env = dict(os.environ, **SYNC, CLAUDE_SESSION_ID="sess-c")
    for n, group in enumerate(GROUPS):
        (code / "f.txt").write_text(f"{n}\n")
        subprocess.run(["git", "add", "f.txt"], cwd=code, env=env, check=True)
        # The subject holds one secret (a key block's header line at worst), the body the rest.
        first, _, rest = group[-1]["text"].partition("\n")
        body = "\n".join(e["text"] for e in group[:-1]) + "\n" + rest
        message = f"deploy with {first}\n\n{body}"
        subprocess.run(["git", "commit", "-qm", message], cwd=code, env=env, check=True)
    before = int(git("rev-list", "--count", "main", cwd=kb))
    subprocess.run(["git", "revert", "--no-edit", "HEAD"], cwd=code, env=env, check=True)
    assert int(git("rev-list", "--count", "main", cwd=kb)) == before + 1, "the revert demoted"
    assert "Reflect-Reason: commit" in git("log", "-1", "--format=%B", "main", cwd=kb)
    _assert_nowhere(_kb_haystacks(kb))


@pytest.mark.parametrize("entry", POSITIVES[::6], ids=[e["shape"] for e in POSITIVES[::6]])
def test_route_refuses_to_push_a_note_holding_a_secret(
    git_daemon: GitDaemon, kb_factory, entry: dict[str, str]
) -> None:
    team = git_daemon.new_repo()
    kb = kb_factory(team)
    note_id = kb.add("Deploy the billing API", "high", body=f"Run:\n{entry['text']}\n")
    with pytest.raises(NoteError) as refused:
        routing.route(kb.config(), note_id)
    assert "body: holds" in refused.value.message and entry["secret"] not in str(refused.value)
    assert "<redacted>" in (refused.value.hint or "")
    remote = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=team.path,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8", "replace")
    assert not leaked(remote, entry["secret"])
    assert team.heads().get("main") is None
