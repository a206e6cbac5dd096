"""The drain's routing hook with the real routing module and a real team remote."""

from __future__ import annotations

from pathlib import Path

from reflectgit.notes.note import parse_note
from reflectgit.workflows.drain.loop import run_drain
from tests.conftest import git, needs_shared
from tests.support.drain import Clock, copy_transcript, enqueue, make_config
from tests.support.remote import GitDaemon, git_daemon

pytestmark = needs_shared

__all__ = ["git_daemon"]


def test_drained_notes_are_routed_to_the_team(
    git_daemon: GitDaemon, tmp_path: Path, repo: Path
) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "team\n"})
    (repo / ".reflect-git.toml").write_text(
        f'[drain]\nroute = true\n\n[team]\nremote = "{team.url}"\n'
    )
    git("add", ".reflect-git.toml", cwd=repo)
    git("commit", "-qm", "settings", cwd=repo)
    cfg = make_config(repo, REFLECT_DRAIN_WRITER="heuristic")
    enqueue(cfg, copy_transcript(tmp_path, "claude/correction-0.jsonl"))

    [row] = run_drain(cfg, clock=Clock()).rows

    [routed] = row["routed"]
    assert routed["error"] is None, routed
    assert routed["id"] in row["notes"]
    note = parse_note((repo / "documents" / f"{routed['id']}.md").read_bytes())
    # The drain is a machine: its note reaches main only after a person reviews it.
    expected = {"high": "branch", "medium": "branch", "low": "queue"}[note.tier or "medium"]
    assert routed["route"] == expected and routed["pushed"] == (expected != "queue")
    where = {"main": "main", "branch": routed["branch"], "queue": None}[routed["route"]]
    if where is None:
        assert (repo / routed["queue_path"]).exists()
    else:
        assert team.heads()[where] == routed["commit"]
        assert any(p.startswith("documents/") for p in team.files(where))
    assert git("status", "--porcelain", cwd=repo) == ""
