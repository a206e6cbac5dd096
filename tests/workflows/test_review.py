"""review list/show/approve/reject against a real remote and the loopback forge."""

from __future__ import annotations

import pytest

from reflectgit.errors import NotFoundError
from reflectgit.notes.note import parse_note
from reflectgit.workflows import review, routing
from tests.support.forge_server import make_forge
from tests.support.remote import git_daemon
from tests.support.routing import kb_factory, note_bytes, team_on_forge

__all__ = ["git_daemon", "kb_factory", "make_forge"]


def test_list_shows_branch_pr_validation_and_duplicates(
    git_daemon, kb_factory, make_forge, monkeypatch, cli
) -> None:
    _team, _forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch)
    note_id = kb.add("Pool timeout at cold start", "medium", tags=["postgres", "pooling"])
    routed = routing.route(kb.config(), note_id)

    [item] = review.list_branches(kb.config())
    assert item.branch == routed.branch and item.id == note_id
    assert item.tier == "medium" and item.valid and item.pr_url == routed.pr_url
    [dup] = item.duplicates
    assert dup.id == "lrn-pool-timeout"
    assert (
        "title words cold, pool, start, timeout" in dup.why and "tags pooling, postgres" in dup.why
    )

    res = cli("--kb", str(kb.path), "--json", "review", "list")
    assert res.code == 0, res
    [doc] = res.json()
    assert doc["branch"] == routed.branch and doc["duplicates"][0]["id"] == "lrn-pool-timeout"
    shown = cli("--kb", str(kb.path), "review", "show", routed.branch)
    assert (
        shown.code == 0
        and "Pool timeout at cold start" in shown.out
        and "near-duplicate" in shown.out
    )


def test_approve_fast_forward_marks_pr_merged(
    git_daemon, kb_factory, make_forge, monkeypatch, cli
) -> None:
    team, forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch)
    note_id = kb.add("Use WAL mode", "medium")
    routed = routing.route(kb.config(), note_id)
    res = cli("--kb", str(kb.path), "--json", "review", "approve", routed.branch)
    assert res.code == 0, res
    doc = res.json()
    assert doc["pushed"] and doc["fast_forward"] and doc["deleted"]
    heads = team.heads()
    assert heads["main"] == routed.commit  # the branch commit itself is now main
    assert routed.branch not in heads
    assert forge.state_of("acme/team", forge.prs["acme/team"][0]) == "merged"


@pytest.mark.parametrize("kind", ["github", "gitlab", "gitea"])
def test_approve_after_main_moved_makes_a_merge_commit(
    git_daemon, kb_factory, make_forge, monkeypatch, kind
) -> None:
    team, forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch, kind)
    medium = kb.add("Retry uploads with backoff", "medium")
    routed = routing.route(kb.config(), medium)
    assert routing.route(kb.config(), kb.add("Later high note", "high")).pushed

    result = review.approve(kb.config(), routed.branch or "")

    assert result.pushed and not result.fast_forward and result.deleted
    parents = team.git("log", "-1", "--format=%P", "main").split()
    assert parents[1] == routed.commit  # the branch commit is kept as second parent
    assert f"documents/{medium}.md" in team.files("main")
    assert "documents/lrn-later-high-note.md" in team.files("main")
    assert team.git("log", "-1", "--format=%s", "main").startswith(f"Merge {routed.branch}")
    assert routed.branch not in team.heads()
    assert team.git("ls-remote", "--heads", ".", routed.branch) == ""
    [pr] = forge.prs["acme/team"]
    assert forge.state_of("acme/team", pr) == "merged"
    assert f"the forge shows pull request #{pr.number} as merged" in result.notes
    team.git("fsck", "--no-progress")


def test_reject_closes_pr_with_reason_and_deletes_branch(
    git_daemon, kb_factory, make_forge, monkeypatch, cli
) -> None:
    team, forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch, "gitlab")
    routed = routing.route(kb.config(), kb.add("Flaky idea", "medium"))
    main = team.heads()["main"]
    res = cli(
        "--kb",
        str(kb.path),
        "--json",
        "review",
        "reject",
        routed.branch,
        "--reason",
        "not reproducible",
    )
    assert res.code == 0, res
    assert res.json()["closed"] and res.json()["deleted"]
    [pr] = forge.prs["acme/team"]
    assert pr.state == "closed" and pr.comments == ["Rejected in review: not reproducible"]
    assert team.heads() == {"main": main}
    assert review.list_branches(kb.config()) == []


def test_approve_refuses_an_invalid_note_and_unknown_branch(
    git_daemon, kb_factory, make_forge, monkeypatch, tmp_path
) -> None:
    team, _forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch)
    # route never pushes an invalid note; a teammate's plain `git push` can.
    main = team.heads()["main"]
    pushed = team.seed(
        {"documents/lrn-no-confidence.md": note_bytes("No confidence", None).decode()}
    )
    team.git("update-ref", "refs/heads/knowledge/no-confidence", pushed)
    team.git("update-ref", "refs/heads/main", main)
    [item] = review.list_branches(kb.config())
    assert not item.valid and "confidence" in item.problems[0]
    with pytest.raises(Exception, match="does not validate"):
        review.approve(kb.config(), "knowledge/no-confidence")
    assert team.heads()["main"] == main
    with pytest.raises(NotFoundError):
        review.approve(kb.config(), "knowledge/nope")


def test_near_duplicates_explain_themselves() -> None:
    a = parse_note(note_bytes("Prefill connection pools at startup", tags=["db", "pool"]))
    b = parse_note(note_bytes("Prefill the connection pool at startup", tags=["db", "pool", "x"]))
    c = parse_note(note_bytes("Pin the CI runner image", tags=["ci"]))
    found = review.near_duplicates(a, "x", [("documents/b.md", b), ("documents/c.md", c)])
    assert [d.path for d in found] == ["documents/b.md"]
    assert "connection, prefill, startup" in found[0].why


def test_approve_refuses_when_main_changed_the_same_note(
    git_daemon, kb_factory, make_forge, monkeypatch
) -> None:
    from reflectgit.errors import ConflictError

    team, _forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch)
    note_id = kb.add("Contested note", "medium")
    routed = routing.route(kb.config(), note_id)
    team.seed(
        {
            f"documents/{note_id}.md": note_bytes(
                "Contested note", "high", note_id=note_id, body="Other.\n"
            ).decode()
        }
    )
    main = team.heads()["main"]
    with pytest.raises(ConflictError, match="changed on main"):
        review.approve(kb.config(), routed.branch or "")
    assert team.heads()["main"] == main and routed.branch in team.heads()


def test_approve_retries_when_main_moves_during_the_push(
    git_daemon, kb_factory, make_forge, monkeypatch
) -> None:
    from reflectgit.git.remote import TeamRemote

    team, _forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch)
    routed = routing.route(kb.config(), kb.add("Racing approval", "medium"))
    real_push = TeamRemote.push
    moved = {"done": False}

    def racing_push(self, refspecs, **kw):  # type: ignore[no-untyped-def]
        if not moved["done"] and refspecs[0].endswith(":refs/heads/main"):
            moved["done"] = True
            team.seed({"documents/teammate.md": "x"})
        return real_push(self, refspecs, **kw)

    monkeypatch.setattr(TeamRemote, "push", racing_push)
    result = review.approve(kb.config(), routed.branch or "")
    assert result.pushed and not result.fast_forward
    assert any("main moved" in n for n in result.notes)
    assert {"documents/teammate.md", f"documents/{routed.id}.md"} <= set(team.files("main"))
    assert team.git("log", "-1", "--format=%P", "main").split()[1] == routed.commit


# ---------------------------------------------------------------------------- the review queue


def _changed(kb_path, rev: str = "HEAD") -> list[str]:  # type: ignore[no-untyped-def]
    from tests.conftest import git

    out = git("show", "--name-status", "--format=", rev, cwd=kb_path)
    return sorted(line.replace("\t", " ") for line in out.splitlines() if line)


def test_review_queue_lists_promotes_and_drops(git_daemon, kb_factory, cli) -> None:
    from tests.conftest import git

    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kb = kb_factory(team)
    one = kb.add("Maybe use uv", "low")
    two = kb.add("Maybe pin pip", "low")
    for note_id in (one, two):
        assert routing.route(kb.config(), note_id).route == "queue"

    listed = cli("--kb", str(kb.path), "--json", "review", "queue")
    assert listed.code == 0, listed
    assert [(i["id"], i["slug"], i["confidence"], i["present"]) for i in listed.json()] == [
        (two, "maybe-pin-pip", "low", True),
        (one, "maybe-use-uv", "low", True),
    ]
    text = cli("--kb", str(kb.path), "review", "queue", "list")
    assert "maybe-use-uv: Maybe use uv [LOW]" in text.out

    promoted = cli(
        "--kb", str(kb.path), "--json", "review", "queue", "promote", one, "--to", "high"
    )
    assert promoted.code == 0, promoted
    assert promoted.json()["commit"] == git("rev-parse", "HEAD", cwd=kb.path).strip()
    # one commit: the note's confidence went up and its pointer went away
    assert _changed(kb.path) == ["D review-queue/maybe-use-uv.yaml", f"M documents/{one}.md"]
    assert parse_note(kb.read(f"documents/{one}.md")).tier == "high"
    trailers = git("log", "-1", "--format=%(trailers:key=Reflect-Op,valueonly)", cwd=kb.path)
    assert trailers.strip() == "review-queue"
    assert git("status", "--porcelain", cwd=kb.path) == ""
    assert routing.route(kb.config(), one).pushed  # and now it routes to main

    before = kb.read(f"documents/{two}.md")
    dropped = cli("--kb", str(kb.path), "review", "queue", "drop", "maybe-pin-pip")
    assert dropped.code == 0, dropped
    assert _changed(kb.path) == ["D review-queue/maybe-pin-pip.yaml"]
    assert kb.read(f"documents/{two}.md") == before
    assert cli("--kb", str(kb.path), "--json", "review", "queue").json() == []
    missing = cli("--kb", str(kb.path), "review", "queue", "drop", "nothing-here")
    assert missing.code == 1 and "nothing in the review queue" in missing.err
    bad_tier = cli("--kb", str(kb.path), "review", "queue", "promote", two, "--to", "low")
    assert bad_tier.code == 2


def test_a_routed_note_loses_its_pointer_in_one_commit(git_daemon, kb_factory, cli) -> None:
    from tests.conftest import git

    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kb = kb_factory(team)
    note_id = kb.add("Later sure", "low")
    routing.route(kb.config(), note_id)
    assert (kb.path / "review-queue/later-sure.yaml").exists()
    edited = cli("--kb", str(kb.path), "update", note_id, "--set", "confidence=high")
    assert edited.code == 0, edited

    result = routing.route(kb.config(), note_id)

    assert result.pushed and any("removed review-queue/later-sure.yaml" in n for n in result.notes)
    assert _changed(kb.path) == ["D review-queue/later-sure.yaml"]
    assert git("status", "--porcelain", cwd=kb.path) == ""
    # a note without a pointer makes no personal-KB commit at all
    head = git("rev-parse", "HEAD", cwd=kb.path)
    other = kb.add("Sure from the start", "high")
    head = git("rev-parse", "HEAD", cwd=kb.path)
    assert routing.route(kb.config(), other).pushed
    assert git("rev-parse", "HEAD", cwd=kb.path) == head


# ---------------------------------------------------------------------------- Gitea / Forgejo


def test_gitea_approve_merges_through_the_api(
    git_daemon, kb_factory, make_forge, monkeypatch, cli
) -> None:
    team, forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch, "gitea")
    assert not forge.autodetect_manual_merge  # as on a real Gitea, by default
    routed = routing.route(kb.config(), kb.add("Use WAL mode", "medium"))
    [pr] = forge.prs["acme/team"]
    assert pr.title.startswith("WIP: ")

    res = cli("--kb", str(kb.path), "--json", "review", "approve", routed.branch)

    assert res.code == 0, res
    doc = res.json()
    assert doc["merged_by"] == "gitea" and doc["pushed"] and doc["deleted"]
    merge_calls = [c for c in forge.calls("POST") if c[1].endswith(f"/pulls/{pr.number}/merge")]
    assert merge_calls and merge_calls[0][2]["Do"] == "merge"
    assert merge_calls[0][2]["head_commit_id"] == routed.commit  # exactly the reviewed tip
    assert forge.state_of("acme/team", pr) == "merged" and not pr.title.startswith("WIP")
    heads = team.heads()
    assert routed.branch not in heads
    team.git("merge-base", "--is-ancestor", routed.commit, "main")  # raises unless merged
    assert f"the forge shows pull request #{pr.number} as merged" in doc["notes"]


def test_gitea_refusing_the_merge_leaves_main_and_the_branch(
    git_daemon, kb_factory, make_forge, monkeypatch, cli
) -> None:
    team, forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch, "gitea")
    routed = routing.route(kb.config(), kb.add("Use WAL mode", "medium"))
    heads = team.heads()
    forge.merge_refusal = (405, "Not allowed to merge: branch protection")

    res = cli("--kb", str(kb.path), "review", "approve", routed.branch)

    assert res.code == 1
    assert "refused to merge pull request #1" in res.err and "branch protection" in res.err
    assert "nothing was merged or pushed" in res.err
    assert team.heads() == heads  # main untouched, the branch (and its open PR) still there
    assert forge.state_of("acme/team", forge.prs["acme/team"][0]) == "open"


def test_approve_merges_a_note_main_changed_since_field_by_field(
    git_daemon, kb_factory, make_forge, monkeypatch
) -> None:
    """Main changed the note's tags after the branch changed its confidence: approve merges
    the two as the merge driver would (both kept); a field both changed still refuses."""
    from reflectgit.errors import ConflictError

    team, _forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch)
    path = "documents/lrn-shared.md"
    team.seed({path: note_bytes("Shared", "high", note_id="lrn-shared").decode()})
    kb.add("Shared", "medium", note_id="lrn-shared")  # the same note, now medium
    routed = routing.route(kb.config(), "lrn-shared")
    assert routed.branch, routed
    team.seed(
        {path: note_bytes("Shared", "high", note_id="lrn-shared", tags=["pool", "db"]).decode()}
    )

    result = review.approve(kb.config(), routed.branch)

    assert result.pushed and not result.fast_forward
    assert any("merged field by field" in n for n in result.notes), result.notes
    front = parse_note(team.git("show", f"main:{path}").encode()).frontmatter
    assert front["confidence"] == "medium" and front["tags"] == ["pool", "db"]

    # a second branch changes the body; main changes the same body line: refused, named
    kb.add("Shared", "medium", note_id="lrn-shared", body="Mine.\n")
    again = routing.route(kb.config(), "lrn-shared")
    assert again.branch, again
    team.seed(
        {path: note_bytes("Shared", "medium", note_id="lrn-shared", body="Theirs.\n").decode()}
    )
    main = team.heads()["main"]
    with pytest.raises(ConflictError, match="both changed"):
        review.approve(kb.config(), again.branch)
    assert team.heads()["main"] == main and again.branch in team.heads()
