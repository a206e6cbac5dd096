"""No note a machine wrote reaches the team's main without a person (issue 34.1).

A note capture, the drain or an agent wrote routes to a knowledge branch and its draft pull
request whatever its tier, until a person reviews it: a CLI or web confirm, or a promote from
the review queue (``provenance.reviewed_by``). The drain's, capture's and an agent's own
confirmations count proofs, never review. A person's high note still goes straight to main.
Real git, the loopback forge, real ``reflect-git`` processes.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest

from reflectgit.notes import authorship
from reflectgit.notes.note import Note, dump_yaml, parse_note
from reflectgit.workflows import routing
from reflectgit.workflows.kb import KnowledgeBase
from tests.conftest import DATA, git, needs_shared, run_cli_proc
from tests.support.capture import SYNC, run_hook, run_pass
from tests.support.forge_server import TOKEN, make_forge
from tests.support.remote import BareRepo, GitDaemon, git_daemon
from tests.support.routing import KB, kb_factory, note_bytes

__all__ = ["git_daemon", "kb_factory", "make_forge"]

REAL = DATA / "real"
NOW = dt.datetime(2026, 3, 5, 10, 0, tzinfo=dt.timezone.utc)


def _github(forge) -> str:  # type: ignore[no-untyped-def]
    return f'[forge]\nprovider = "github"\napi_url = "{forge.api_url}"\nrepo = "acme/team"\n'


def _main_paths(team: BareRepo) -> set[str]:
    """Every path any commit on the team's main ever touched."""
    out = team.git("log", "main", "--name-only", "--format=")
    return {line for line in out.splitlines() if line}


@pytest.fixture
def setup(git_daemon: GitDaemon, kb_factory, make_forge, monkeypatch):  # type: ignore[no-untyped-def]
    team = git_daemon.new_repo()
    team.seed({"README.md": "team kb\n"})
    forge = make_forge("github", {"acme/team": team.path})
    monkeypatch.setenv("GH_TOKEN", TOKEN)
    kb = kb_factory(team, _github(forge))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Ada Reviewer")  # who reviews: git's author
    return team, forge, kb


def machine_note(kb: KB, title: str, machine: str, tier: str = "high") -> str:
    """Commit a note the way ``machine`` writes it (``provenance.written_by``)."""
    data = note_bytes(title, tier)
    note = parse_note(data)
    front = authorship.mark_written(dict(note.frontmatter), machine)
    text = "---\n" + dump_yaml(front) + "---\n" + note.body
    path = kb.path / "documents" / f"{front['id']}.md"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    git("add", str(path), cwd=kb.path)
    git("commit", "-qm", f"add {front['id']}", cwd=kb.path)
    return str(front["id"])


def cli(kb: KB, *args: str) -> dict:  # type: ignore[type-arg]
    proc = run_cli_proc("--kb", str(kb.path), "--json", *args, env={"HOME": os.environ["HOME"]})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


# ------------------------------------------------------------------ the pure reading


def test_who_wrote_a_note_is_read_from_its_own_fields() -> None:
    said = {"provenance": {"written_by": "drain"}}
    assert authorship.written_by(said) == "drain" and authorship.unreviewed(said) == "drain"
    # Notes written before the mark: capture's tool name, the drain's episode and transcript.
    assert authorship.written_by({"provenance": {"source_tool": "reflect-git capture"}}) == (
        "capture"
    )
    legacy_drain = {"source_episodes": ["s1"], "provenance": {"source_path": "/t/s1.jsonl"}}
    assert authorship.written_by(legacy_drain) == "drain"
    reviewed = {"provenance": {"written_by": "capture", "reviewed_by": "Ada"}}
    assert authorship.unreviewed(reviewed) is None


@pytest.mark.parametrize(
    "front",
    [
        {},  # `reflect-git add` from flags
        {"provenance": {"source_tool": "claude-md", "source_path": "CLAUDE.md"}},  # ingest
        {"source_episodes": ["s1"]},  # an episode named by hand, no transcript
        {"provenance": {"written_by": "someone"}},  # not a machine we know
        {"provenance": "cli"},  # not a mapping
    ],
)
def test_a_persons_note_is_not_a_machines(front: dict) -> None:  # type: ignore[type-arg]
    assert authorship.written_by(front) is None and authorship.unreviewed(front) is None


def test_marking_a_review_changes_only_a_machines_note() -> None:
    machine = Note({"title": "t", "provenance": {"written_by": "capture", "proof_count": 1}})
    done = authorship.mark_reviewed(machine, "Ada", NOW)
    assert done is not None and done.frontmatter["provenance"]["reviewed_by"] == "Ada"
    assert done.frontmatter["provenance"]["proof_count"] == 1
    assert "reviewed_by" not in machine.frontmatter["provenance"]  # the input stays
    assert authorship.mark_reviewed(done, "Ada", NOW) is None  # already reviewed by Ada
    assert authorship.mark_reviewed(Note({"title": "mine"}), "Ada", NOW) is None
    assert authorship.mark_reviewed(machine, "  ", NOW) is None


# ------------------------------------------------------------------ routing


def test_a_persons_high_note_still_goes_straight_to_main(setup, tmp_path: Path) -> None:
    team, forge, kb = setup
    note = tmp_path / "mine.md"
    note.write_bytes(note_bytes("Prefill connection pools", "high"))
    added = cli(kb, "add", str(note))
    doc = cli(kb, "route", added["id"])
    assert doc["route"] == "main" and doc["pushed"] and doc["unreviewed"] is None
    assert f"documents/{added['id']}.md" in team.files("main")
    assert forge.prs.get("acme/team", []) == []


@pytest.mark.parametrize("machine", ["capture", "drain", "agent"])
def test_a_machines_high_note_goes_to_review_not_main(setup, machine: str) -> None:
    team, forge, kb = setup
    note_id = machine_note(kb, f"Pin the {machine} worker pool", machine)
    result = routing.route(kb.config(), note_id)
    assert result.route == "branch" and result.pushed and result.unreviewed == machine
    assert result.branch and result.branch.startswith("knowledge/")
    assert f"documents/{note_id}.md" not in _main_paths(team)
    [pr] = forge.prs["acme/team"]
    assert pr.draft and pr.head == result.branch
    assert f"written by {machine}, not by a person" in pr.body
    assert any("not reviewed by a person" in n for n in result.notes)


def test_a_persons_cli_confirm_reviews_it_and_then_it_may_reach_main(setup) -> None:
    team, _forge, kb = setup
    note_id = machine_note(kb, "Use the release script", "drain")
    assert routing.route(kb.config(), note_id).route == "branch"
    doc = cli(kb, "confirm", note_id, "--source", "pr-12")
    assert doc["reviewed_by"] == "Ada Reviewer" and doc["proof_count"] == 2
    prov = parse_note((kb.path / f"documents/{note_id}.md").read_bytes()).frontmatter["provenance"]
    assert prov["reviewed_by"] == "Ada Reviewer" and prov["reviewed_at"]
    trailer = git(
        "log", "-1", "--format=%(trailers:key=Reflect-Reviewed-By,valueonly)", cwd=kb.path
    )
    assert trailer.strip() == "Ada Reviewer"
    assert run_cli_proc("--kb", str(kb.path), "validate").returncode == 0
    result = routing.route(kb.config(), note_id)
    assert result.route == "main" and result.pushed and result.unreviewed is None
    assert f"documents/{note_id}.md" in team.files("main")


def test_a_web_confirm_is_a_review(setup) -> None:
    from starlette.testclient import TestClient

    from reflectgit.config import Config
    from reflectgit.web.app import Settings, create_app
    from reflectgit.web.security import COOKIE, Guard

    team, _forge, kb = setup
    note_id = machine_note(kb, "Keep one pool per worker", "drain")
    guard = Guard.for_server("token-1", "127.0.0.1", 8484)
    app = create_app(Settings(Config.resolve(kb.path, dict(os.environ)), guard, False))
    client = TestClient(app, base_url="http://127.0.0.1:8484")
    client.cookies.set(COOKIE, "token-1")
    res = client.post(
        f"/api/notes/{note_id}/confirm",
        headers={"X-CSRF-Token": guard.csrf},
        json={"source": "pr-9"},
    )
    assert res.status_code == 200, res.text
    assert res.json()["result"]["reviewed_by"] == "Ada Reviewer"
    assert routing.route(kb.config(), note_id).route == "main"
    assert f"documents/{note_id}.md" in team.files("main")


@pytest.mark.parametrize("source", ["drain", "capture", "mcp"])
def test_a_machines_own_confirm_is_not_a_review(setup, source: str) -> None:
    team, _forge, kb = setup
    note_id = machine_note(kb, f"Warm the cache before {source} runs", "capture")
    with KnowledgeBase.open(kb.path, source=source) as opened:
        done = opened.confirm(note_id, f"{source}-session-2")
    assert done.commit and done.proof_count == 2 and done.reviewed_by is None
    result = routing.route(kb.config(), note_id)
    assert result.route == "branch" and result.unreviewed == "capture"
    assert f"documents/{note_id}.md" not in _main_paths(team)
    # A person confirming the same source afterwards adds no proof, but it is the review.
    doc = cli(kb, "confirm", note_id, "--source", f"{source}-session-2")
    assert doc["proof_count"] == 2 and doc["reviewed_by"] == "Ada Reviewer" and doc["commit"]


def test_a_person_confirming_their_own_note_stamps_no_review(setup) -> None:
    _team, _forge, kb = setup
    note_id = kb.add("Keep migrations reversible", "high")
    doc = cli(kb, "confirm", note_id, "--source", "pr-3")
    assert doc == {"id": note_id, "proof_count": 2, "commit": doc["commit"]}  # the contract
    prov = parse_note((kb.path / f"documents/{note_id}.md").read_bytes()).frontmatter["provenance"]
    assert "reviewed_by" not in prov


def test_a_promote_from_the_review_queue_is_a_review(setup) -> None:
    team, _forge, kb = setup
    note_id = machine_note(kb, "Rotate the staging keys monthly", "capture", tier="low")
    assert routing.route(kb.config(), note_id).route == "queue"
    proc = run_cli_proc("--kb", str(kb.path), "review", "queue", "promote", note_id, "--to", "high")
    assert proc.returncode == 0, proc.stderr
    front = parse_note((kb.path / f"documents/{note_id}.md").read_bytes()).frontmatter
    assert front["confidence"] == "high" and front["provenance"]["reviewed_by"] == "Ada Reviewer"
    assert routing.route(kb.config(), note_id).route == "main"
    assert f"documents/{note_id}.md" in team.files("main")


# ------------------------------------------------------------------ a real capture note


def _replay(name: str, env: dict[str, str]) -> None:
    events = json.loads((REAL / "hook-events" / name).read_text())
    for event in events:
        text = json.dumps(event).replace('"TRANSCRIPTS/', f'"{REAL / "transcripts"}/')
        proc = run_hook(event["hook_event_name"], text.replace('"REAL/', f'"{REAL}/'), env)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    run_pass(env=env)


@needs_shared
def test_a_replayed_red_green_capture_note_at_high_does_not_land_on_main(
    setup, tmp_path: Path
) -> None:
    team, forge, kb = setup
    env = {"REFLECT_GIT_KB": str(kb.path), SYNC: "1"}
    _replay("doc-claude-pytest-red-green.json", env)
    written = sorted((kb.path / "documents").glob("*.md"))
    highs = [p for p in written if parse_note(p.read_bytes()).tier == "high"]
    assert highs, [p.name for p in written]  # the red -> green run wrote a high note
    for path in written:
        front = parse_note(path.read_bytes()).frontmatter
        assert authorship.unreviewed(front) == "capture"
        result = routing.route(kb.config(), path.stem)
        assert result.route in ("branch", "queue") and not result.error, result.to_json()
        assert path.name not in {p.rsplit("/", 1)[-1] for p in _main_paths(team)}
    assert len(forge.prs["acme/team"]) >= len(highs)

    # The SessionStart context says what no person has read yet; a review takes the mark off.
    project = tmp_path / "billing"
    project.mkdir()
    git("init", "-q", "-b", "main", str(project), cwd=tmp_path)
    recall_env = {"REFLECT_GIT_KB": str(kb.path)}
    context = run_cli_proc("recall", "--global", cwd=project, env=recall_env).stdout
    note_id = highs[0].stem
    assert f"({note_id}) (unreviewed, written by capture)" in context
    cli(kb, "confirm", note_id, "--source", "pr-7")
    context = run_cli_proc("recall", "--global", cwd=project, env=recall_env).stdout
    assert f"({note_id})\n" in context and "unreviewed" not in context.split(note_id)[1][:40]
    assert routing.route(kb.config(), note_id).route == "main"


# ------------------------------------------------------------------ review approve is a review


def _team_recall(team: BareRepo, tmp_path: Path, name: str) -> str:
    """What the SessionStart context of a teammate who cloned the team's main says."""
    clone = tmp_path / f"clone-{name}"
    git("clone", "-q", team.url, str(clone), cwd=tmp_path)
    project = tmp_path / f"project-{name}"
    project.mkdir()
    git("init", "-q", "-b", "main", str(project), cwd=tmp_path)
    proc = run_cli_proc("recall", "--global", cwd=project, env={"REFLECT_GIT_KB": str(clone)})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _front_on_main(team: BareRepo, note_id: str) -> dict:  # type: ignore[type-arg]
    return parse_note(team.git("show", f"main:documents/{note_id}.md").encode()).frontmatter


def test_approving_a_machines_branch_is_a_review(setup, tmp_path: Path) -> None:
    team, forge, kb = setup
    note_id = machine_note(kb, "Pin the drain worker pool", "drain")
    routed = routing.route(kb.config(), note_id)
    assert routed.route == "branch" and routed.branch

    doc = cli(kb, "review", "approve", routed.branch, "--tip", routed.commit[:10])

    # Not a fast-forward: the approve commit (second parent: the reviewed tip) stamps the note.
    assert doc["pushed"] and not doc["fast_forward"] and doc["deleted"]
    assert doc["reviewed_by"] == "Ada Reviewer"
    assert team.git("log", "-1", "--format=%P", "main").split()[1] == routed.commit
    prov = _front_on_main(team, note_id)["provenance"]
    assert prov["written_by"] == "drain" and prov["reviewed_by"] == "Ada Reviewer"
    assert prov["reviewed_at"]
    trailer = team.git("log", "-1", "--format=%(trailers:key=Reflect-Reviewed-By,valueonly)")
    assert trailer.strip() == "Ada Reviewer"
    # What review showed, plus the review's two fields and nothing else.
    diff = team.git("diff", "-U0", routed.commit, "main", "--", f"documents/{note_id}.md")
    changed = [ln for ln in diff.splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
    assert len(changed) == 2 and all(ln.startswith("+  reviewed_") for ln in changed), changed
    assert team.git("diff", "--name-only", routed.commit, "main").split() == [
        f"documents/{note_id}.md"
    ]
    [pr] = forge.prs["acme/team"]
    assert forge.state_of("acme/team", pr) == "merged"
    context = _team_recall(team, tmp_path, "approved")
    assert f"({note_id})\n" in context and "unreviewed" not in context


def test_a_forge_button_merge_is_not_a_review(setup, tmp_path: Path) -> None:
    team, forge, kb = setup
    note_id = machine_note(kb, "Pin the capture worker pool", "capture")
    routed = routing.route(kb.config(), note_id)
    [pr] = forge.prs["acme/team"]
    forge.merge("acme/team", pr)  # someone pressed the forge's merge button: no reflect-git
    front = _front_on_main(team, note_id)
    assert authorship.unreviewed(front) == "capture"
    assert team.git("log", "-1", "--format=%P", "main").split()[1] == routed.commit
    context = _team_recall(team, tmp_path, "button")
    assert f"({note_id}) (unreviewed, written by capture)" in context


def test_approve_with_accepted_changes_still_stamps_only_the_note(setup, tmp_path: Path) -> None:
    from tests.support.routing import teammate_pushes

    team, _forge, kb = setup
    note_id = machine_note(kb, "Pin the agent worker pool", "agent")
    routed = routing.route(kb.config(), note_id)
    assert routed.branch
    tip = teammate_pushes(team, routed.branch, {"tools/readme.txt": "hello\n"}, tmp_path)
    refused = run_cli_proc("--kb", str(kb.path), "review", "approve", routed.branch)
    assert refused.returncode == 1 and "tools/readme.txt" in refused.stderr
    assert f"documents/{note_id}.md" not in team.files()

    doc = cli(kb, "review", "approve", routed.branch, "--tip", tip, "--accept", "tools/readme.txt")
    assert doc["pushed"] and not doc["fast_forward"]
    assert team.git("show", "main:tools/readme.txt") == "hello\n"
    assert _front_on_main(team, note_id)["provenance"]["reviewed_by"] == "Ada Reviewer"
    assert sorted(team.git("diff", "--name-only", tip, "main").split()) == [
        f"documents/{note_id}.md"
    ]


def test_a_persons_note_approved_is_still_a_fast_forward(setup) -> None:
    team, _forge, kb = setup
    note_id = kb.add("Prefer explicit pool sizes", "medium")
    routed = routing.route(kb.config(), note_id)
    doc = cli(kb, "review", "approve", routed.branch or "")
    assert doc["fast_forward"] and team.heads()["main"] == routed.commit
    assert "reviewed_by" not in doc
    assert "reviewed_by" not in (_front_on_main(team, note_id).get("provenance") or {})


def test_gitea_approve_merges_the_review_commit_through_the_api(
    git_daemon, kb_factory, make_forge, monkeypatch
) -> None:
    from tests.support.routing import team_on_forge

    team, forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch, "gitea")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Ada Reviewer")
    note_id = machine_note(kb, "Pin the gitea worker pool", "drain")
    routed = routing.route(kb.config(), note_id)
    [pr] = forge.prs["acme/team"]

    doc = cli(kb, "review", "approve", routed.branch or "")

    assert doc["merged_by"] == "gitea" and doc["pushed"] and doc["deleted"]
    assert doc["reviewed_by"] == "Ada Reviewer"
    [call] = [c for c in forge.calls("POST") if c[1].endswith(f"/pulls/{pr.number}/merge")]
    review_commit = call[2]["head_commit_id"]  # the reviewed tip plus the review's commit
    assert team.git("log", "-1", "--format=%P", review_commit).split() == [routed.commit]
    assert forge.state_of("acme/team", pr) == "merged"
    assert _front_on_main(team, note_id)["provenance"]["reviewed_by"] == "Ada Reviewer"
    trailer = team.git(
        "log", "-1", "--format=%(trailers:key=Reflect-Reviewed-By,valueonly)", review_commit
    )
    assert trailer.strip() == "Ada Reviewer"


def test_gitea_approve_waits_for_a_merge_the_git_side_serves_late(
    git_daemon, kb_factory, make_forge, monkeypatch
) -> None:
    """The API says merged a moment before the forge's git serves the new main: approve
    fetches again instead of calling the merge missing."""
    from tests.support.routing import team_on_forge

    team, forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch, "gitea")
    forge.merge_lands_after = 0.5
    note_id = machine_note(kb, "Pin the gitea worker pool", "drain")
    routed = routing.route(kb.config(), note_id)

    doc = cli(kb, "review", "approve", routed.branch or "")

    assert doc["merged_by"] == "gitea" and doc["pushed"]
    assert team.git("merge-base", "--is-ancestor", routed.commit, "main") == ""
    assert doc["commit"] == team.heads()["main"]


def test_gitea_approve_says_so_when_the_merged_pr_never_reaches_main(
    git_daemon, kb_factory, make_forge, monkeypatch
) -> None:
    from tests.support.routing import team_on_forge

    team, forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch, "gitea")
    forge.merge_lands_after = None
    note_id = machine_note(kb, "Pin the gitea worker pool", "drain")
    routed = routing.route(kb.config(), note_id)
    main_before = team.heads()["main"]

    proc = run_cli_proc(
        "--kb", str(kb.path), "review", "approve", routed.branch or "",
        env={"HOME": os.environ["HOME"]},
    )  # fmt: skip

    assert proc.returncode == 1
    assert "error: the gitea API said pull request" in proc.stderr
    assert "does not hold" in proc.stderr and "hint:" in proc.stderr
    assert team.heads()["main"] == main_before
