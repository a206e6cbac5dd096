"""Routing over real servers: high to main, medium to a knowledge branch + draft PR, low to the queue."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from reflectgit.git.remote import TeamRemote
from reflectgit.notes.note import load_yaml
from reflectgit.workflows import routing
from tests.conftest import git
from tests.support.forge_server import TOKEN, gh_stub, make_forge
from tests.support.remote import BareRepo, GitDaemon, GitHTTP, git_daemon, git_http
from tests.support.routing import kb_factory, note_bytes

__all__ = ["gh_stub", "git_daemon", "git_http", "kb_factory", "make_forge"]


def _github(forge) -> str:
    return f'[forge]\nprovider = "github"\napi_url = "{forge.api_url}"\nrepo = "acme/team"\n'


def _main_paths(team: BareRepo) -> set[str]:
    """Every path any commit on main ever touched."""
    out = team.git("log", "main", "--name-only", "--format=")
    return {line for line in out.splitlines() if line}


def test_high_lands_on_remote_main(git_daemon: GitDaemon, kb_factory) -> None:
    team = git_daemon.new_repo()
    team.seed({"documents/existing.md": note_bytes("Existing").decode()})
    kb = kb_factory(team)
    note_id = kb.add("Prefill connection pools", "high")
    before = kb.read(f"documents/{note_id}.md")

    result = routing.route(kb.config(), note_id)

    assert result.route == "main" and result.pushed and not result.error
    assert team.heads()["main"] == result.commit
    assert f"documents/{note_id}.md" in team.files("main")
    assert team.git("show", f"main:documents/{note_id}.md").encode() == before
    subject, *_ = team.git("log", "-1", "--format=%B", "main").splitlines()
    assert subject == "feat(knowledge): Prefill connection pools [HIGH]"
    trailers = team.git("log", "-1", "--format=%(trailers:key=Reflect-Op,valueonly)", "main")
    assert trailers.strip() == "route"
    assert team.git("rev-parse", "main~1").strip() != ""  # built on the existing tip
    team.git("fsck", "--no-progress")
    # The personal KB is untouched: same bytes, clean, still on main, no scratch branches left.
    assert kb.read(f"documents/{note_id}.md") == before
    assert git("status", "--porcelain", cwd=kb.path) == ""
    assert git("branch", "--format=%(refname:short)", cwd=kb.path).split() == ["main"]
    assert not (kb.path / ".git/logs/refs/heads/reflect-git").exists()  # no scratch reflogs
    assert [a["result"] for a in result.attempts] == ["pushed"]


def test_high_into_an_empty_remote_makes_the_root_commit(git_daemon: GitDaemon, kb_factory) -> None:
    team = git_daemon.new_repo()
    kb = kb_factory(team)
    note_id = kb.add("First note", "high")
    result = routing.route(kb.config(), note_id)
    assert result.pushed
    assert team.files("main") == [f"documents/{note_id}.md"]
    assert team.git("rev-list", "--count", "main").strip() == "1"


def test_medium_never_reaches_main(
    git_daemon: GitDaemon, kb_factory, make_forge, monkeypatch
) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "team kb\n"})
    forge = make_forge("github", {"acme/team": team.path})
    monkeypatch.setenv("GH_TOKEN", TOKEN)
    kb = kb_factory(team, _github(forge))
    medium = kb.add("Retry flaky uploads", "medium")

    result = routing.route(kb.config(), medium)
    assert result.route == "branch" and result.pushed
    assert result.branch == "knowledge/retry-flaky-uploads"
    heads = team.heads()
    assert heads[result.branch] == result.commit
    assert team.git("log", "-1", "--format=%s", result.branch).strip() == (
        "docs(knowledge): Retry flaky uploads [MED]"
    )
    assert team.git("rev-parse", f"{result.branch}~1").strip() == heads["main"]
    [pr] = forge.prs["acme/team"]
    assert pr.draft and pr.head == result.branch and pr.base == "main"
    assert result.pr_url and result.pr_url.endswith("/pull/1")

    for i in range(3):  # any number of later high routes
        high = kb.add(f"High note {i}", "high")
        assert routing.route(kb.config(), high).pushed
    assert f"documents/{medium}.md" not in _main_paths(team)
    assert f"documents/{medium}.md" not in team.files("main")
    assert {f"documents/lrn-high-note-{i}.md" for i in range(3)} <= set(team.files("main"))
    assert team.heads()[result.branch] == result.commit  # the branch is left alone
    assert git("status", "--porcelain", cwd=kb.path) == ""


def test_routing_twice_is_idempotent(
    git_daemon: GitDaemon, kb_factory, make_forge, monkeypatch
) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    forge = make_forge("github", {"acme/team": team.path})
    monkeypatch.setenv("GH_TOKEN", TOKEN)
    kb = kb_factory(team, _github(forge))
    high = kb.add("Pin the runner image", "high")
    medium = kb.add("Cache the wheels", "medium")
    first_high = routing.route(kb.config(), high)
    first_medium = routing.route(kb.config(), medium)
    heads = team.heads()

    again_high = routing.route(kb.config(), high)
    again_medium = routing.route(kb.config(), medium)

    assert not again_high.pushed and again_high.commit == first_high.commit
    assert "already on" in again_high.notes[0]
    assert not again_medium.pushed and again_medium.branch == first_medium.branch
    assert again_medium.pr_url == first_medium.pr_url
    assert team.heads() == heads
    assert len(forge.prs["acme/team"]) == 1
    assert len(forge.calls("POST")) == 1


def test_two_clones_routing_at_the_same_moment_both_land(git_daemon: GitDaemon, kb_factory) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kbs = [kb_factory(team) for _ in range(3)]
    ids = [kb.add(f"Concurrent note {i}", "high") for i, kb in enumerate(kbs)]
    # Real processes, started together: each fetches the same tip, so all but one are rejected
    # at first and must fetch, re-apply and push again.
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "reflectgit", "--kb", str(kb.path), "--json", "route", note_id],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for kb, note_id in zip(kbs, ids, strict=True)
    ]
    docs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        docs.append(json.loads(out))
    assert all(d["pushed"] for d in docs)
    files = set(team.files("main"))
    assert {f"documents/{i}.md" for i in ids} <= files
    assert team.git("rev-list", "--count", "main").strip() == "4"  # linear, nothing lost
    assert team.git("rev-list", "--merges", "main").strip() == ""


def test_four_clones_routing_three_notes_each_at_once_all_land(
    git_daemon: GitDaemon, kb_factory
) -> None:
    """Twelve routes started together at one `git daemon` remote: each rejected push waits a
    jittered, growing pause before it fetches again, so the racers spread out instead of
    colliding in lockstep until their attempts run out."""
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kbs = [kb_factory(team) for _ in range(4)]
    jobs = [
        (kb, kb.add(f"Clone {c} note {n}", "high")) for c, kb in enumerate(kbs) for n in range(3)
    ]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "reflectgit", "--kb", str(kb.path), "--json", "route", note_id],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for kb, note_id in jobs
    ]
    docs = [json.loads(proc.communicate(timeout=300)[0]) for proc in procs]
    tries = [[a["result"].split(" ")[0] for a in d["attempts"]] for d in docs]
    assert all(d["pushed"] for d in docs), [d.get("error") for d in docs if d.get("error")] + tries
    assert all(p.returncode == 0 for p in procs)
    assert {f"documents/{note_id}.md" for _, note_id in jobs} <= set(team.files("main"))
    assert team.git("rev-list", "--count", "main").strip() == "13"  # linear, nothing lost
    assert any(len(d["attempts"]) > 1 for d in docs), "no route had to retry: no race happened"
    team.git("fsck", "--no-progress")


def test_stale_main_is_fetched_reapplied_and_pushed(
    git_daemon: GitDaemon, kb_factory, monkeypatch
) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kb = kb_factory(team)
    note_id = kb.add("Rebased note", "high")
    real_fetch = TeamRemote.fetch
    calls = {"n": 0}

    def racing_fetch(self: TeamRemote) -> dict[str, str]:
        heads = real_fetch(self)
        calls["n"] += 1
        if calls["n"] <= 2:  # a teammate pushes right after each of our first two fetches
            team.seed({f"documents/teammate-{calls['n']}.md": "x"})
        return heads

    monkeypatch.setattr(TeamRemote, "fetch", racing_fetch)
    result = routing.route(kb.config(), note_id)
    assert [a["result"] for a in result.attempts] == [
        "rejected (fetch first)",
        "rejected (fetch first)",
        "pushed",
    ]
    files = team.files("main")
    assert {"documents/teammate-1.md", "documents/teammate-2.md", f"documents/{note_id}.md"} <= set(
        files
    )
    assert team.git("rev-parse", "main^").strip() == result.attempts[2]["base"]

    other = kb.add("Never lands", "high")
    calls["n"] = 0
    gave_up = routing.route(kb.config(), other, max_attempts=2)
    assert gave_up.error and "2 times" in gave_up.error
    assert f"route {other}" in (gave_up.hint or "")
    assert f"documents/{other}.md" not in team.files("main")


def test_rejected_push_loses_nothing(git_daemon: GitDaemon, kb_factory, cli) -> None:
    team = git_daemon.new_repo()
    before = team.seed({"README.md": "x\n"})
    hook = team.path / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'main is protected' >&2\nexit 1\n")
    hook.chmod(0o755)
    kb = kb_factory(team)
    note_id = kb.add("Protected main", "high")
    data = kb.read(f"documents/{note_id}.md")

    res = cli("--kb", str(kb.path), "--json", "route", note_id)

    assert res.code == 1
    doc = res.json()
    assert doc["pushed"] is False and "refused" in doc["error"]
    assert "pre-receive hook declined" in res.err
    assert "hint: " in res.err and f"reflect-git route {note_id}" in res.err
    assert team.heads()["main"] == before
    assert kb.read(f"documents/{note_id}.md") == data
    assert git("status", "--porcelain", cwd=kb.path) == ""


def test_unauthenticated_push_says_what_to_do(git_http: GitHTTP, kb_factory, cli) -> None:
    team = git_http.new_repo()
    kb = kb_factory(team)
    bad = git_http.url_for(team.name, password="wrong")
    kb.settings(f'[team]\nremote = "{bad}"\n')
    note_id = kb.add("Auth fails", "high")
    res = cli("--kb", str(kb.path), "route", note_id)
    assert res.code == 1
    assert "authentication failed" in res.err
    assert "wrong" not in res.err + res.out
    assert "credential" in res.err and f"reflect-git route {note_id}" in res.err
    assert team.heads() == {}
    assert (kb.path / f"documents/{note_id}.md").exists()

    kb.settings(f'[team]\nremote = "{team.url}"\n')
    assert routing.route(kb.config(), note_id).pushed  # the retry the hint asked for works


def test_low_and_no_team_go_to_the_review_queue(git_daemon: GitDaemon, kb_factory) -> None:
    team = git_daemon.new_repo()
    kb = kb_factory(team)
    low = kb.add("Maybe use uv", "low", tags=["python", "uv"])
    result = routing.route(kb.config(), low)
    assert result.route == "queue" and result.queue_path == "review-queue/maybe-use-uv.yaml"
    pointer = load_yaml((kb.path / result.queue_path).read_text())
    assert pointer["source"] == f"documents/{low}.md"
    assert pointer["confidence"] == "low" and pointer["tags"] == ["python", "uv"]
    assert set(pointer) == {
        "slug",
        "title",
        "source",
        "confidence",
        "category",
        "tags",
        "created",
        "queued_at",
    }
    assert (
        git("log", "-1", "--format=%s", cwd=kb.path).strip()
        == "chore(knowledge): review-queue maybe-use-uv"
    )
    assert git("status", "--porcelain", cwd=kb.path) == ""
    assert team.heads() == {}
    again = routing.route(kb.config(), low)
    assert again.commit is None and "already queued" in again.notes[0]

    solo = kb_factory(None)
    high = solo.add("No team here", "high")
    queued = routing.route(solo.config(), high)
    assert queued.route == "queue" and "no team KB configured" in queued.notes[0]


def test_missing_confidence_routes_as_medium(
    git_daemon: GitDaemon, kb_factory, tmp_path: Path
) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kb = kb_factory(team)
    external = tmp_path / "loose-note.md"
    external.write_bytes(note_bytes("Loose note", None))
    result = routing.route(kb.config(), str(external))
    assert result.tier == "medium" and result.route == "branch"
    assert result.notes[0] == "normalised confidence: (missing) -> medium"
    assert any("no pull request opened" in n for n in result.notes)  # no forge for git://
    # placed by its id (lrn-loose-note), not by the file name it was saved under
    assert team.files(result.branch or "") == ["README.md", "documents/lrn-loose-note.md"]
    pushed = team.git("show", f"{result.branch}:documents/lrn-loose-note.md").encode()
    assert pushed == external.read_bytes().replace(b"tags:", b"tags:", 1).replace(
        b"\n---\nBody", b"\nconfidence: medium\n---\nBody"
    )


def test_dry_run_does_nothing(git_daemon: GitDaemon, kb_factory, cli) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kb = kb_factory(team)
    ids = [kb.add("Dry high", "high"), kb.add("Dry medium", "medium"), kb.add("Dry low", "low")]
    heads = team.heads()
    refs = git("for-each-ref", cwd=kb.path)
    log = git("log", "--format=%H", cwd=kb.path)
    for note_id in ids:
        res = cli("--kb", str(kb.path), "--json", "route", note_id, "--dry-run")
        assert res.code == 0, res
        assert res.json()["dry_run"] is True and res.json()["commit"] is None
    assert team.heads() == heads
    assert git("for-each-ref", cwd=kb.path) == refs
    assert git("log", "--format=%H", cwd=kb.path) == log


def test_invalid_note_is_refused_before_any_commit(
    git_daemon: GitDaemon, kb_factory, tmp_path: Path, cli
) -> None:
    team = git_daemon.new_repo()
    kb = kb_factory(team)
    bad = tmp_path / "bad.md"
    bad.write_text("---\ntitle: x\nconfidence: high\nrecall_count: 3\n---\nbody\n")
    res = cli("--kb", str(kb.path), "route", str(bad))
    assert res.code == 1 and "bad.md" in res.err
    assert team.heads() == {}
    missing = cli("--kb", str(kb.path), "route", "lrn-nope")
    assert missing.code == 1 and "no note with id" in missing.err


def test_cli_route_json_shape(git_daemon: GitDaemon, kb_factory, cli) -> None:
    team = git_daemon.new_repo()
    kb = kb_factory(team)
    note_id = kb.add("Shape", "high")
    res = cli("--kb", str(kb.path), "--json", "route", note_id)
    assert res.code == 0, res
    doc = res.json()
    for key in ("route", "branch", "commit", "pushed", "pr_url", "queue_path", "notes"):
        assert key in doc
    assert doc["route"] == "main" and doc["pushed"] is True
    text = cli("--kb", str(kb.path), "route", note_id)
    assert "already on the team's main" in text.out


SIDECAR = b"""document_id: lrn-with-sidecar
extracted_at: "2026-03-04T09:12:00Z"
entities:
  - name: sqlalchemy
    type: technology
    description: ""
relationships: []
"""


def test_sidecar_travels_with_the_note(git_daemon: GitDaemon, kb_factory) -> None:
    team = git_daemon.new_repo()
    kb = kb_factory(team)
    note_id = kb.add("With sidecar", "high")
    (kb.path / f"documents/{note_id}.entities.yaml").write_bytes(SIDECAR)
    git("add", ".", cwd=kb.path)
    git("commit", "-qm", "sidecar", cwd=kb.path)
    assert routing.route(kb.config(), note_id).pushed
    assert team.git("show", f"main:documents/{note_id}.entities.yaml").encode() == SIDECAR


def test_medium_note_edited_and_routed_again_updates_its_branch(
    git_daemon: GitDaemon, kb_factory, make_forge, monkeypatch
) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    forge = make_forge("gitea", {"acme/team": team.path})
    monkeypatch.setenv("GITEA_TOKEN", TOKEN)
    kb = kb_factory(
        team, f'[forge]\nprovider = "gitea"\napi_url = "{forge.api_url}"\nrepo = "acme/team"\n'
    )
    note_id = kb.add("Evolving note", "medium")
    first = routing.route(kb.config(), note_id)
    assert first.pr_url and forge.prs["acme/team"][0].title == "WIP: Evolving note"
    path = kb.path / f"documents/{note_id}.md"
    path.write_bytes(path.read_bytes() + b"\nMore detail.\n")
    git("commit", "-qam", "edit", cwd=kb.path)

    second = routing.route(kb.config(), note_id)

    assert second.pushed and second.branch == first.branch
    assert team.git("rev-parse", f"{first.branch}~1").strip() == first.commit  # fast-forward
    assert second.pr_url == first.pr_url and len(forge.prs["acme/team"]) == 1
    assert "More detail." in team.git("show", f"{first.branch}:documents/{note_id}.md")


def test_another_note_with_the_same_title_gets_its_own_branch(
    git_daemon: GitDaemon, kb_factory
) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kb = kb_factory(team)
    one = kb.add("Same title", "medium", note_id="lrn-same-1")
    two = kb.add("Same title", "medium", note_id="lrn-same-2")
    first = routing.route(kb.config(), one)
    second = routing.route(kb.config(), two)
    assert (first.branch, second.branch) == ("knowledge/same-title", "knowledge/same-title-2")
    assert team.files("knowledge/same-title-2") == ["README.md", "documents/lrn-same-2.md"]


def test_forge_failure_keeps_the_pushed_branch_and_says_what_to_do(
    git_daemon: GitDaemon, kb_factory, make_forge, monkeypatch
) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    forge = make_forge("gitlab", {"acme/team": team.path})
    monkeypatch.setenv("GITLAB_TOKEN", "expired")
    kb = kb_factory(
        team, f'[forge]\nprovider = "gitlab"\napi_url = "{forge.api_url}"\nrepo = "acme/team"\n'
    )
    note_id = kb.add("Forge down", "medium")
    result = routing.route(kb.config(), note_id)
    assert result.pushed and result.pr_url is None and not result.error
    assert result.branch in team.heads()
    assert "HTTP 401" in result.notes[-1] and f"reflect-git route {note_id}" in result.notes[-1]
    monkeypatch.setenv("GITLAB_TOKEN", TOKEN)
    retry = routing.route(kb.config(), note_id)  # the retry opens the PR, pushes nothing new
    assert (
        not retry.pushed and retry.pr_url and forge.prs["acme/team"][0].title == "Draft: Forge down"
    )


def test_gh_cli_opens_the_draft(git_daemon: GitDaemon, kb_factory, gh_stub) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kb = kb_factory(team, '[forge]\nprovider = "gh"\nrepo = "acme/team"\nhost = "github.com"\n')
    result = routing.route(kb.config(), kb.add("Through gh", "medium"))
    assert result.pr_url == "https://github.com/acme/team/pull/1"
    create = next(c for c in gh_stub.calls() if c[:2] == ["pr", "create"])
    assert create[create.index("--head") + 1] == result.branch and "--draft" in create


def test_approved_note_routed_again_is_already_on_main(
    git_daemon: GitDaemon, kb_factory, make_forge, monkeypatch
) -> None:
    from reflectgit.workflows import review

    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kb = kb_factory(team)
    note_id = kb.add("Approved once", "medium")
    routed = routing.route(kb.config(), note_id)
    review.approve(kb.config(), routed.branch or "")
    heads = team.heads()
    again = routing.route(kb.config(), note_id)
    assert again.route == "main" and not again.pushed and "already on" in again.notes[-1]
    assert team.heads() == heads


def test_routing_from_inside_a_hook_ignores_the_hooks_git_dir(
    git_daemon: GitDaemon, kb_factory, repo: Path, monkeypatch
) -> None:
    """A hook runs with GIT_DIR/GIT_WORK_TREE of another repository; routing must not use them."""
    team = git_daemon.new_repo()
    kb = kb_factory(team)
    note_id = kb.add("From a hook", "high")
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(repo))
    result = routing.route(kb.config(), note_id)
    assert result.pushed, result.error
    assert f"documents/{note_id}.md" in team.files("main")
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_WORK_TREE")
    assert git("for-each-ref", cwd=repo) == ""  # the hook's repository got nothing


def test_branch_name_taken_in_the_meantime_gets_the_next_name(
    git_daemon: GitDaemon, kb_factory, monkeypatch
) -> None:
    team = git_daemon.new_repo()
    main = team.seed({"README.md": "x\n"})
    kb = kb_factory(team)
    note_id = kb.add("Popular title", "medium")
    real_push = TeamRemote.push
    taken = {"done": False}

    def racing_push(self: TeamRemote, refspecs, **kw):  # type: ignore[no-untyped-def]
        if not taken["done"]:
            taken["done"] = True
            other = team.seed({"other.md": "y"})
            team.git("update-ref", "refs/heads/knowledge/popular-title", other)
            team.git("update-ref", "refs/heads/main", main)
        return real_push(self, refspecs, **kw)

    monkeypatch.setattr(TeamRemote, "push", racing_push)
    result = routing.route(kb.config(), note_id)
    assert result.pushed and result.branch == "knowledge/popular-title-2"
    assert [a["result"].split(" ")[0] for a in result.attempts] == ["rejected", "pushed"]
    assert team.files("knowledge/popular-title-2") == ["README.md", f"documents/{note_id}.md"]
    assert team.heads()["main"] == main


def test_a_hand_named_note_is_placed_by_its_id_not_its_file_name(
    git_daemon: GitDaemon, kb_factory
) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kb = kb_factory(team)
    (kb.path / "documents").mkdir(exist_ok=True)
    data = note_bytes("Saved by hand", "high", note_id="lrn-saved-by-hand-1a2b3c")
    (kb.path / "documents" / "my notes about pools.md").write_bytes(data)
    git("add", "documents", cwd=kb.path)
    git("commit", "-qm", "by hand", cwd=kb.path)
    result = routing.route(kb.config(), "lrn-saved-by-hand-1a2b3c")
    assert result.route == "main" and result.pushed, result
    assert team.files("main") == ["README.md", "documents/lrn-saved-by-hand-1a2b3c.md"]
    assert team.git("show", "main:documents/lrn-saved-by-hand-1a2b3c.md").encode() == data
    # and the review-queue route, through the KB's door, names the note's source file
    low = kb.add("Low note", "low")
    queued = routing.route(kb.config(), low)
    assert (
        queued.route == "queue" and queued.commit == git("rev-parse", "HEAD", cwd=kb.path).strip()
    )
    assert git("status", "--porcelain", cwd=kb.path) == ""


def test_a_forge_answering_html_after_the_push_is_a_clear_error_not_a_crash(
    git_daemon: GitDaemon, kb_factory, make_forge, monkeypatch, cli
) -> None:
    from tests.support.forge_server import SSO_PAGE

    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    forge = make_forge("github", {"acme/team-kb": team.path})
    monkeypatch.setenv("GH_TOKEN", TOKEN)
    # the remote is a git:// URL of a mirror; [forge] repo names the real repository
    kb = kb_factory(
        team,
        f'[forge]\nprovider = "github"\napi_url = "{forge.api_url}"\nrepo = "acme/team-kb"\n',
    )
    note_id = kb.add("Behind the SSO", "medium")
    forge.script(200, raw=SSO_PAGE, content_type="text/html")

    res = cli("--kb", str(kb.path), "route", note_id)

    assert res.code == 1, res  # not 3: no traceback
    branch = "knowledge/behind-the-sso"
    assert branch in team.heads()  # the push happened and is kept
    assert f"error: the branch {branch} is pushed" in res.err
    assert "answered with an HTML page, not JSON" in res.err and forge.api_url in res.err
    assert f"/acme/team-kb/compare/main...{branch}?expand=1" in res.err  # the configured repo
    assert f"reflect-git route {note_id}" in res.err
    assert "pushed: yes" in res.out
    assert forge.prs["acme/team-kb"] == []

    again = cli("--kb", str(kb.path), "--json", "route", note_id)  # the forge is back
    assert again.code == 0, again
    assert again.json()["pushed"] is False and again.json()["pr_url"]
    assert len(forge.prs["acme/team-kb"]) == 1


BARRIER = """#!/bin/sh
# Hold each push until two have arrived (at most 30 s): both routes built on one tip.
touch "$GIT_DIR/arrived.$$"
n=0
while [ "$(ls "$GIT_DIR" | grep -c '^arrived\\.')" -lt 2 ] && [ $n -lt 300 ]; do
  sleep 0.1; n=$((n + 1))
done
exit 0
"""


def test_two_teammates_routing_different_fields_of_one_note_both_land(
    git_daemon: GitDaemon, tmp_path: Path, cli
) -> None:
    """Two clones of the team KB change different fields of one note and route at once. Both
    pushes are held until both arrived (so both built on one tip); one is rejected, and its
    retry fetches and merges the teammate's change field by field: no field lost."""
    team = git_daemon.new_repo()
    seed = tmp_path / "seed"
    assert cli("init", str(seed), "--no-pre-commit", "--team-remote", "origin").code == 0
    note = "documents/lrn-shared.md"
    (seed / note).write_bytes(note_bytes("Shared", "high", note_id="lrn-shared"))
    git("add", "-A", cwd=seed)
    git("commit", "-qm", "base", cwd=seed)
    git("push", "-q", team.url, "main", cwd=seed)
    edits = {"a": "key_insight=Warm the pool first.", "b": "tags=[pool, latency]"}
    clones = {}
    for side, edit in edits.items():
        clone = tmp_path / side
        git("clone", "-q", team.url, str(clone), cwd=tmp_path)
        assert cli("--kb", str(clone), "update", "lrn-shared", "--set", edit).code == 0
        clones[side] = clone
    hook = team.path / "hooks" / "pre-receive"
    hook.write_text(BARRIER)
    hook.chmod(0o755)
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "reflectgit",
                "--kb",
                str(clone),
                "--json",
                "route",
                "lrn-shared",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for clone in clones.values()
    ]
    docs = []
    for proc in procs:
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        docs.append(json.loads(out))
    assert all(d["pushed"] for d in docs)
    [retried] = [d for d in docs if len(d["attempts"]) > 1]  # the barrier made one race
    [first] = [d for d in docs if len(d["attempts"]) == 1]
    # the team's note was what it was edited from: an update, not a refusal to overwrite
    assert any("which it was edited from" in n for n in first["notes"]), first
    assert retried["attempts"][0]["result"].startswith("rejected")
    assert any("field by field" in n for n in retried["notes"]), retried
    front = load_yaml(team.git("show", f"main:{note}").split("---\n")[1])
    assert front["key_insight"] == "Warm the pool first."
    assert front["tags"] == ["pool", "latency"]
    assert team.git("rev-list", "--count", "main").strip() == "4"  # base, a, b, linear
