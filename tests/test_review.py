"""review list/show/approve/reject against a real remote and the loopback forge."""

from __future__ import annotations

import pytest

from reflectgit.errors import NotFoundError
from reflectgit.notes.note import parse_note
from reflectgit.workflows import review, routing
from tests.fixtures_remote import GitDaemon, git_daemon
from tests.fixtures_routing import kb_factory, note_bytes
from tests.forge_server import TOKEN, make_forge

__all__ = ["git_daemon", "kb_factory", "make_forge"]


def _setup(git_daemon: GitDaemon, kb_factory, make_forge, monkeypatch, kind: str = "github"):
    team = git_daemon.new_repo()
    team.seed(
        {
            "documents/lrn-pool-timeout.md": note_bytes(
                "Pool timeout on cold start",
                "high",
                note_id="lrn-pool-timeout",
                tags=["postgres", "pooling"],
            ).decode()
        }
    )
    forge = make_forge(kind, {"acme/team": team.path})
    var = {"github": "GH_TOKEN", "gitlab": "GITLAB_TOKEN", "gitea": "GITEA_TOKEN"}[kind]
    monkeypatch.setenv(var, TOKEN)
    kb = kb_factory(
        team, f'[forge]\nprovider = "{kind}"\napi_url = "{forge.api_url}"\nrepo = "acme/team"\n'
    )
    return team, forge, kb


def test_list_shows_branch_pr_validation_and_duplicates(
    git_daemon, kb_factory, make_forge, monkeypatch, cli
) -> None:
    _team, _forge, kb = _setup(git_daemon, kb_factory, make_forge, monkeypatch)
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
    team, forge, kb = _setup(git_daemon, kb_factory, make_forge, monkeypatch)
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
    team, forge, kb = _setup(git_daemon, kb_factory, make_forge, monkeypatch, kind)
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
    team, forge, kb = _setup(git_daemon, kb_factory, make_forge, monkeypatch, "gitlab")
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
    team, _forge, kb = _setup(git_daemon, kb_factory, make_forge, monkeypatch)
    loose = tmp_path / "loose.md"
    loose.write_bytes(note_bytes("No confidence", None))
    routed = routing.route(kb.config(), str(loose))
    [item] = review.list_branches(kb.config())
    assert not item.valid and "confidence" in item.problems[0]
    main = team.heads()["main"]
    with pytest.raises(Exception, match="does not validate"):
        review.approve(kb.config(), routed.branch or "")
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

    team, _forge, kb = _setup(git_daemon, kb_factory, make_forge, monkeypatch)
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

    team, _forge, kb = _setup(git_daemon, kb_factory, make_forge, monkeypatch)
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
