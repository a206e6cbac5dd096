"""team clone/sync/status, and routing through a team clone or the KB's own origin."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from reflectgit.notes.note import parse_note
from reflectgit.workflows import merging, routing
from reflectgit.workflows.team import set_table
from tests.conftest import git
from tests.support.remote import GitDaemon, git_daemon
from tests.support.routing import KB, note_bytes

__all__ = ["git_daemon"]


def test_clone_records_team_and_routing_uses_the_clone(
    git_daemon: GitDaemon, tmp_path: Path, cli
) -> None:
    team = git_daemon.new_repo()
    first = team.seed({"documents/a.md": note_bytes("A note").decode()})
    kb_path, clone = tmp_path / "kb", tmp_path / "team-clone"
    res = cli("--kb", str(kb_path), "--json", "team", "clone", team.url, "--path", str(clone))
    assert res.code == 0, res
    doc = res.json()
    assert doc["path"] == str(clone) and doc["remote_tip"] == first and doc["behind"] == 0
    settings = (kb_path / ".reflect-git.toml").read_text()
    assert f'remote = "{team.url}"' in settings and f'path = "{clone}"' in settings
    assert git("status", "--porcelain", cwd=kb_path) == ""  # committed, not left dirty

    kb = KB(kb_path)
    note_id = kb.add("Routed through the clone", "high")
    result = routing.route(kb.config(), note_id)
    assert result.pushed and team.heads()["main"] == result.commit
    # The clone's checked-out main and work tree were not touched by routing.
    assert git("rev-parse", "main", cwd=clone).strip() == first
    assert git("status", "--porcelain", cwd=clone) == ""
    assert not (clone / f"documents/{note_id}.md").exists()

    status = cli("--kb", str(kb_path), "--json", "team", "status")
    assert status.code == 0 and status.json()["behind"] == 1
    synced = cli("--kb", str(kb_path), "--json", "team", "sync")
    assert synced.code == 0, synced
    assert synced.json()["updated"] is True and synced.json()["behind"] == 0
    assert (clone / f"documents/{note_id}.md").exists()
    assert git("status", "--porcelain", cwd=clone) == ""
    text = cli("--kb", str(kb_path), "team", "status")
    assert "open knowledge branches: 0" in text.out


def test_kb_as_its_own_origin(git_daemon: GitDaemon, tmp_path: Path) -> None:
    team = git_daemon.new_repo()
    team.seed({".reflect-git.toml": '[team]\nremote = "origin"\n'})
    kb_path = tmp_path / "kb"
    git("clone", "-q", team.url, str(kb_path), cwd=tmp_path)
    kb = KB(kb_path)
    note_id = kb.add("Origin routing", "high")
    medium = kb.add("Origin medium", "medium")
    local_main = git("rev-parse", "main", cwd=kb_path).strip()

    high = routing.route(kb.config(), note_id)
    branch = routing.route(kb.config(), medium)

    assert high.pushed and team.heads()["main"] == high.commit
    assert git("rev-parse", "origin/main", cwd=kb_path).strip() == high.commit
    assert git("rev-parse", "main", cwd=kb_path).strip() == local_main  # never moved by routing
    assert f"documents/{medium}.md" not in team.files("main")
    assert branch.branch in team.heads()


def test_no_team_configured_is_a_clear_error(tmp_path: Path, cli) -> None:
    kb_path = tmp_path / "kb"
    git("init", "-q", "-b", "main", str(kb_path), cwd=tmp_path)
    res = cli("--kb", str(kb_path), "team", "status")
    assert res.code == 1 and "no team KB is configured" in res.err and "team clone" in res.err
    res = cli("--kb", str(kb_path), "review", "list")
    assert res.code == 1 and "hint:" in res.err


def test_clone_of_unreachable_remote_fails_cleanly(tmp_path: Path, cli) -> None:
    res = cli(
        "--kb",
        str(tmp_path / "kb"),
        "team",
        "clone",
        str(tmp_path / "missing.git"),
        "--path",
        str(tmp_path / "c"),
    )
    assert res.code == 1 and "cannot clone" in res.err
    assert not (tmp_path / "kb" / ".reflect-git.toml").exists()


def test_set_table_keeps_the_rest_of_the_file() -> None:
    text = '# settings\n[forge]\nprovider = "github"\n\n[team]\nremote = "old"\n\n[routing]\nmax_attempts = 3\n'
    out = set_table(text, "team", {"remote": 'new "one"', "path": "/x"})
    assert out.startswith('# settings\n[forge]\nprovider = "github"\n')
    assert '[team]\nremote = "new \\"one\\""\npath = "/x"\n' in out
    assert out.endswith("[routing]\nmax_attempts = 3\n")
    assert set_table("", "team", {"remote": "r"}) == '[team]\nremote = "r"\n'


def test_clone_into_the_kb_itself(git_daemon: GitDaemon, tmp_path: Path, cli) -> None:
    team = git_daemon.new_repo()
    tip = team.seed({".reflect-git.toml": '[team]\nremote = "origin"\n'})
    kb_path = tmp_path / "kb"
    res = cli("--kb", str(kb_path), "--json", "team", "clone", team.url, "--path", str(kb_path))
    assert res.code == 0, res
    assert res.json()["commit"] is None  # the team's settings already name origin
    assert git("rev-parse", "HEAD", cwd=kb_path).strip() == tip
    bare = git_daemon.new_repo()
    bare.seed({"README.md": "x"})
    other = tmp_path / "kb2"
    res = cli("--kb", str(other), "--json", "team", "clone", bare.url, "--path", str(other))
    assert res.code == 0 and res.json()["commit"]
    assert 'remote = "origin"' in (other / ".reflect-git.toml").read_text()


def test_route_with_team_option_uses_that_clone(git_daemon: GitDaemon, tmp_path: Path, cli) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    clone = tmp_path / "clone"
    git("clone", "-q", team.url, str(clone), cwd=tmp_path)
    kb_path = tmp_path / "kb"
    git("init", "-q", "-b", "main", str(kb_path), cwd=tmp_path)
    kb = KB(kb_path)
    high, medium = kb.add("Via option", "high"), kb.add("Via option medium", "medium")
    queued = cli("--kb", str(kb_path), "--json", "route", high)
    assert queued.json()["route"] == "queue"  # no team configured
    res = cli("--kb", str(kb_path), "--json", "route", medium, "--team", str(clone))
    assert res.code == 0, res
    assert res.json()["branch"] in team.heads()
    listed = cli("--kb", str(kb_path), "--json", "review", "list", "--team", str(clone))
    assert [b["branch"] for b in listed.json()] == [res.json()["branch"]]
    bad = cli("--kb", str(kb_path), "route", medium, "--team", str(tmp_path / "nope"))
    assert bad.code == 1 and "not a git repository" in bad.err


ATTRIBUTES = "\n".join(merging.ATTRIBUTE_LINES) + "\n"  # what `init` writes in a team KB
NOTE = "documents/lrn-shared.md"


def _shared(*, updated: str, **kw: Any) -> str:
    text = note_bytes(kw.pop("title", "Shared"), note_id="lrn-shared", **kw).decode()
    return text.replace("created: ", f"updated: {updated}\ncreated: ", 1)


def _diverged(git_daemon: GitDaemon, tmp_path: Path, cli, mine: str, theirs: str):  # type: ignore[no-untyped-def]
    """A team clone and the team's main that both changed the shared note since the clone."""
    team = git_daemon.new_repo()
    team.seed({".gitattributes": ATTRIBUTES, NOTE: _shared(updated="2026-03-04T09:12:00Z")})
    kb_path, clone = tmp_path / "kb", tmp_path / "clone"
    assert cli("--kb", str(kb_path), "team", "clone", team.url, "--path", str(clone)).code == 0
    (clone / NOTE).write_text(mine)
    git("commit", "-qam", "mine", cwd=clone)
    team.seed({NOTE: theirs}, "a teammate's edit")
    return team, kb_path, clone


def test_sync_merges_a_diverged_clone_field_by_field(
    git_daemon: GitDaemon, tmp_path: Path, cli
) -> None:
    """My tags and a teammate's confidence, on adjacent lines, both bumping ``updated``: git's
    line merge would conflict; sync merges through the driver, as `git pull --no-rebase`."""
    mine = _shared(updated="2026-03-05T10:00:00Z", tags=["pool", "mine"])
    theirs = _shared(updated="2026-03-06T10:00:00Z", confidence="medium")
    team, kb_path, clone = _diverged(git_daemon, tmp_path, cli, mine, theirs)
    hooks = clone / ".git" / "hooks"
    (hooks / "commit-msg").write_text("#!/bin/sh\nexit 1\n")  # a hook that would refuse
    (hooks / "post-merge").write_text(
        f'#!/bin/sh\necho "$REFLECT_GIT_INTERNAL" > "{tmp_path}/seen"\n'
    )
    for hook in ("commit-msg", "post-merge"):
        (hooks / hook).chmod(0o755)
    before = git("rev-parse", "HEAD", cwd=clone).strip()
    remote_tip = team.heads()["main"]
    res = cli("--kb", str(kb_path), "--json", "team", "sync")
    assert res.code == 0, res
    doc = res.json()
    assert doc["updated"] is True and doc["behind"] == 0 and doc["ahead"] == 2
    merged = doc["merged"]
    assert merged["from"] == remote_tip and merged["commit"] == doc["commit"]
    [note] = merged["notes"]
    assert note["path"] == NOTE and set(note["ours"]) == {"tags", "updated"}
    assert set(note["theirs"]) == {"confidence", "updated"}
    parents = git("rev-list", "--parents", "-n1", "HEAD", cwd=clone).split()
    assert parents == [doc["commit"], before, remote_tip]  # a real merge commit
    message = git("log", "-1", "--format=%B", cwd=clone)
    assert "Reflect-Op: sync" in message and "Reflect-Git:" in message
    front = parse_note((clone / NOTE).read_bytes()).frontmatter
    assert front["tags"] == ["pool", "mine"] and front["confidence"] == "medium"
    assert str(front["updated"]).startswith("2026-03-06")
    assert git("status", "--porcelain", cwd=clone) == ""
    assert (tmp_path / "seen").read_text() == "1\n"  # a hook git runs knows it is us
    assert team.heads()["main"] == remote_tip  # sync updates the clone; it never pushes
    text = cli("--kb", str(kb_path), "team", "sync")
    assert text.code == 0 and "fetched" in text.out  # nothing more to do


def test_sync_leaves_a_conflicting_clone_exactly_as_it_was(
    git_daemon: GitDaemon, tmp_path: Path, cli
) -> None:
    """Both changed the title: the merge is aborted, HEAD, index and work tree untouched, and
    the error names the note and the field."""
    mine = _shared(updated="2026-03-05T10:00:00Z", tags=["pool", "mine"])
    mine = mine.replace("title: Shared", "title: Mine")
    theirs = _shared(updated="2026-03-06T10:00:00Z").replace("title: Shared", "title: Theirs")
    assert "title: Mine" in mine and "title: Theirs" in theirs
    _team, kb_path, clone = _diverged(git_daemon, tmp_path, cli, mine, theirs)
    before = git("rev-parse", "HEAD", cwd=clone).strip()
    res = cli("--kb", str(kb_path), "--json", "team", "sync")
    assert res.code == 1, res
    doc = res.json()
    assert f"{NOTE} (title)" in doc["error"] and "nothing changed" in doc["error"]
    assert "pull --no-rebase" in doc["hint"]
    assert git("rev-parse", "HEAD", cwd=clone).strip() == before
    assert git("status", "--porcelain", cwd=clone) == ""
    assert (clone / NOTE).read_text() == mine
    assert not (clone / ".git" / "MERGE_HEAD").exists()


def test_sync_without_the_attributes_says_git_merged_lines(
    git_daemon: GitDaemon, tmp_path: Path, cli
) -> None:
    """The same different-field edits in a team KB whose .gitattributes does not name the
    driver: git's line merge conflicts, sync aborts and says why."""
    team = git_daemon.new_repo()
    team.seed({NOTE: _shared(updated="2026-03-04T09:12:00Z")})
    kb_path, clone = tmp_path / "kb", tmp_path / "clone"
    assert cli("--kb", str(kb_path), "team", "clone", team.url, "--path", str(clone)).code == 0
    (clone / NOTE).write_text(_shared(updated="2026-03-05T10:00:00Z", tags=["pool", "mine"]))
    git("commit", "-qam", "mine", cwd=clone)
    team.seed({NOTE: _shared(updated="2026-03-06T10:00:00Z", confidence="medium")})
    before = git("rev-parse", "HEAD", cwd=clone).strip()
    res = cli("--kb", str(kb_path), "--json", "team", "sync")
    assert res.code == 1, res
    assert "does not name the merge driver" in res.json()["error"]
    assert git("rev-parse", "HEAD", cwd=clone).strip() == before
    assert git("status", "--porcelain", cwd=clone) == ""


def test_sync_does_not_merge_over_uncommitted_edits(
    git_daemon: GitDaemon, tmp_path: Path, cli
) -> None:
    mine = _shared(updated="2026-03-05T10:00:00Z", tags=["pool", "mine"])
    theirs = _shared(updated="2026-03-06T10:00:00Z", confidence="medium")
    _team, kb_path, clone = _diverged(git_daemon, tmp_path, cli, mine, theirs)
    before = git("rev-parse", "HEAD", cwd=clone).strip()
    edited = mine.replace("Body.", "Body, edited and not committed.")
    (clone / NOTE).write_text(edited)
    res = cli("--kb", str(kb_path), "--json", "team", "sync")
    assert res.code == 1, res
    assert "uncommitted changes" in res.json()["error"] and NOTE in res.json()["error"]
    assert git("rev-parse", "HEAD", cwd=clone).strip() == before
    assert (clone / NOTE).read_text() == edited


def test_clone_defaults_next_to_the_kb(git_daemon: GitDaemon, tmp_path: Path, cli) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kb_path = tmp_path / ".learnings"
    res = cli("--kb", str(kb_path), "--json", "team", "clone", team.url)
    assert res.code == 0, res
    assert res.json()["path"] == str(tmp_path / ".learnings-team")
    assert (tmp_path / ".learnings-team" / "README.md").exists()
    again = cli("--kb", str(kb_path), "team", "clone", team.url)
    assert again.code == 1 and "already exists" in again.err


# ---------------------------------------------------------------------------- the clone layout


def _push(kb_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A user's own `git push`, with the environment of a shell (hooks run for real)."""
    env = {k: v for k, v in os.environ.items() if k != "REFLECT_GIT_INTERNAL"}
    return subprocess.run(
        ["git", "push", "--porcelain", *args], cwd=kb_path, capture_output=True, text=True, env=env
    )


def _clone_layout(git_daemon: GitDaemon, tmp_path: Path, cli):  # type: ignore[no-untyped-def]
    team = git_daemon.new_repo()
    team.seed(
        {
            ".reflect-git.toml": '[team]\nremote = "origin"\n',
            "documents/lrn-shared.md": note_bytes("Shared", note_id="lrn-shared").decode(),
        }
    )
    kb_path = tmp_path / "kb"
    git("clone", "-q", team.url, str(kb_path), cwd=tmp_path)
    guarded = cli("--kb", str(kb_path), "--json", "team", "guard")
    assert guarded.code == 0 and guarded.json()["action"] == "installed", guarded
    return team, kb_path


def _add(cli, kb_path: Path, title: str, confidence: str) -> str:  # type: ignore[no-untyped-def]
    res = cli(
        "--kb", str(kb_path), "--json", "add", "--title", title, "--insight", f"{title}.",
        "--category", "debugging", "--confidence", confidence,
    )  # fmt: skip
    assert res.code == 0, res
    return str(res.json()["id"])


def test_clone_layout_guard_refuses_to_publish_a_medium_note(
    git_daemon: GitDaemon, tmp_path: Path, cli
) -> None:
    team, kb_path = _clone_layout(git_daemon, tmp_path, cli)
    main = team.heads()["main"]
    medium = _add(cli, kb_path, "Unreviewed idea", "medium")
    high = _add(cli, kb_path, "Proven fix", "high")

    status = cli("--kb", str(kb_path), "--json", "status")
    pub = status.json()["publish"]
    assert pub["remote"] == "origin" and pub["remote_tip"] == main and pub["guard"] is True
    assert {(n["id"], n["tier"], n["reviewed"]) for n in pub["notes"]} == {
        (medium, "medium", False),
        (high, "high", True),
    }
    assert pub["unreviewed"] == [f"documents/{medium}.md"]
    text = cli("--kb", str(kb_path), "status")
    assert f"added    documents/{medium}.md [MEDIUM]  <- unreviewed" in text.out
    assert "the pre-push guard refuses that push" in text.out

    pushed = _push(kb_path, "origin", "main")

    assert pushed.returncode != 0
    assert "reflect-git refused the push to origin" in pushed.stderr
    assert f"documents/{medium}.md ({medium}): added, medium confidence" in pushed.stderr
    assert high not in pushed.stderr  # a high note is not a reason
    assert team.heads()["main"] == main  # nothing reached the team

    # A knowledge branch may be pushed by hand; the guard is about main only.
    git("branch", "knowledge/by-hand", "origin/main", cwd=kb_path)
    assert _push(kb_path, "origin", "knowledge/by-hand").returncode == 0

    # The way through: route it for review, approve, pull --rebase, push.
    from reflectgit.workflows import review

    kb = KB(kb_path)
    routed = routing.route(kb.config(), medium)
    assert routed.route == "branch" and routed.pushed, routed
    review.approve(kb.config(), routed.branch or "")  # our own push: the guard lets it pass
    git("pull", "-q", "--rebase", "origin", "main", cwd=kb_path)
    after = cli("--kb", str(kb_path), "--json", "status").json()["publish"]
    assert [n["id"] for n in after["notes"]] == [high] and after["unreviewed"] == []
    assert _push(kb_path, "origin", "main").returncode == 0
    assert {f"documents/{medium}.md", f"documents/{high}.md"} <= set(team.files("main"))


def test_clone_layout_status_and_guard_without_unreviewed_notes(
    git_daemon: GitDaemon, tmp_path: Path, cli
) -> None:
    team, kb_path = _clone_layout(git_daemon, tmp_path, cli)
    assert "publish:  nothing" in cli("--kb", str(kb_path), "status").out
    high = _add(cli, kb_path, "Proven fix", "high")
    assert _push(kb_path, "origin", "main").returncode == 0
    assert f"documents/{high}.md" in team.files("main")
    again = cli("--kb", str(kb_path), "--json", "team", "guard")
    assert again.json()["action"] == "unchanged"
    removed = cli("--kb", str(kb_path), "--json", "team", "guard", "--uninstall")
    assert removed.json()["action"] == "uninstalled"
    assert cli("--kb", str(kb_path), "--json", "status").json()["publish"]["guard"] is False


def test_guard_chains_an_existing_pre_push_hook(git_daemon: GitDaemon, tmp_path: Path, cli) -> None:
    team = git_daemon.new_repo()
    team.seed({".reflect-git.toml": '[team]\nremote = "origin"\n'})
    kb_path = tmp_path / "kb"
    git("clone", "-q", team.url, str(kb_path), cwd=tmp_path)
    theirs = kb_path / ".git/hooks/pre-push"
    log = tmp_path / "their-hook.log"
    theirs.write_text(f"#!/bin/sh\ncat > {log}\nexit 0\n")
    theirs.chmod(0o755)
    res = cli("--kb", str(kb_path), "--json", "team", "guard")
    assert res.json()["chained"] == str(theirs) + ".reflect-git-chained"
    _add(cli, kb_path, "Proven fix", "high")
    assert _push(kb_path, "origin", "main").returncode == 0
    assert "refs/heads/main" in log.read_text()  # their hook still saw git's lines
    cli("--kb", str(kb_path), "team", "guard", "--uninstall")
    assert theirs.read_text().startswith("#!/bin/sh\ncat > ")  # put back as it was


def test_a_kb_that_routes_by_url_has_nothing_to_publish(
    git_daemon: GitDaemon, tmp_path: Path, cli
) -> None:
    from tests.support.routing import make_kb

    team = git_daemon.new_repo()
    kb = make_kb(tmp_path / "kb", team)
    kb.add("Medium but mine", "medium")
    assert cli("--kb", str(kb.path), "--json", "status").json()["publish"] is None


# ---------------------------------------------------------------------------- a plain git clone


def _plain_clone(git_daemon: GitDaemon, tmp_path: Path, remote: str | None) -> tuple[Any, Path]:
    """`git clone` of a team KB whose settings name the team by ``remote`` (None: its URL)."""
    team = git_daemon.new_repo()
    named = remote or team.url
    team.seed(
        {
            ".reflect-git.toml": f'[team]\nremote = "{named}"\n',
            "documents/lrn-shared.md": note_bytes("Shared", note_id="lrn-shared").decode(),
        }
    )
    kb_path = tmp_path / "kb"
    git("clone", "-q", team.url, str(kb_path), cwd=tmp_path)
    return team, kb_path


@pytest.mark.parametrize("remote", ["origin", None], ids=["by-name", "by-url"])
def test_a_plain_git_clone_is_guarded_by_its_first_write(
    git_daemon: GitDaemon, tmp_path: Path, cli, remote: str | None
) -> None:
    team, kb_path = _plain_clone(git_daemon, tmp_path, remote)
    main = team.heads()["main"]
    hook = kb_path / ".git/hooks/pre-push"
    assert not hook.exists()
    before = cli("--kb", str(kb_path), "status")
    assert "guard:    none: a plain `git push` can publish unreviewed notes" in before.out

    added = cli(
        "--kb", str(kb_path), "add", "--title", "Unreviewed idea", "--insight", "Idea.",
        "--category", "debugging", "--confidence", "medium",
    )  # fmt: skip

    assert added.code == 0 and f"note: installed the pre-push guard ({hook})" in added.out
    assert "reflect-git pre-push" in hook.read_text()
    medium = added.out.split()[1]
    status = cli("--kb", str(kb_path), "--json", "status").json()["publish"]
    assert status["guard"] is True and status["unreviewed"] == [f"documents/{medium}.md"]
    text = cli("--kb", str(kb_path), "status").out
    assert "guard:    pre-push guard installed: a push of main to origin refuses" in text
    pushed = _push(kb_path, "origin", "main")
    assert pushed.returncode != 0 and "reflect-git refused the push" in pushed.stderr
    assert f"documents/{medium}.md ({medium}): added, medium confidence" in pushed.stderr
    assert team.heads()["main"] == main  # nothing reached the team


def test_guard_uninstall_is_remembered_and_other_kbs_get_no_guard(
    git_daemon: GitDaemon, tmp_path: Path, cli
) -> None:
    team, kb_path = _plain_clone(git_daemon, tmp_path, "origin")
    _add(cli, kb_path, "First", "high")
    removed = cli("--kb", str(kb_path), "--json", "team", "guard", "--uninstall")
    assert removed.json()["action"] == "uninstalled"
    _add(cli, kb_path, "Second", "medium")
    assert not (kb_path / ".git/hooks/pre-push").exists()  # the person's choice holds
    assert "guard:    none" in cli("--kb", str(kb_path), "status").out
    again = cli("--kb", str(kb_path), "--json", "team", "guard")
    assert again.json()["action"] == "installed"
    assert git("config", "--get", "reflect-git.guard", cwd=kb_path, check=False) == ""

    # A personal KB with a remote of its own (a backup) that routes to the team by URL:
    # its main is not the team's, so no guard and nothing to publish.
    from tests.support.routing import make_kb

    backup = git_daemon.new_repo()
    kb = make_kb(tmp_path / "personal", team)
    git("remote", "add", "origin", backup.url, cwd=kb.path)
    git("push", "-q", "-u", "origin", "main", cwd=kb.path)
    _add(cli, kb.path, "Mine", "medium")
    assert not (kb.path / ".git/hooks/pre-push").exists()
    assert cli("--kb", str(kb.path), "--json", "status").json()["publish"] is None
