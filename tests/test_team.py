"""team clone/sync/status, and routing through a team clone or the KB's own origin."""

from __future__ import annotations

from pathlib import Path

from reflectgit.workflows import routing
from reflectgit.workflows.team import set_table
from tests.conftest import git
from tests.fixtures_remote import GitDaemon, git_daemon
from tests.fixtures_routing import KB, note_bytes

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


def test_sync_never_merges_a_diverged_clone(git_daemon: GitDaemon, tmp_path: Path, cli) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kb_path, clone = tmp_path / "kb", tmp_path / "clone"
    assert cli("--kb", str(kb_path), "team", "clone", team.url, "--path", str(clone)).code == 0
    (clone / "local.txt").write_text("mine\n")
    git("add", "local.txt", cwd=clone)
    git("commit", "-qm", "local", cwd=clone)
    mine = git("rev-parse", "HEAD", cwd=clone).strip()
    team.seed({"theirs.txt": "theirs\n"})
    res = cli("--kb", str(kb_path), "--json", "team", "sync")
    doc = res.json()
    assert res.code == 0 and doc["updated"] is False
    assert (doc["ahead"], doc["behind"]) == (1, 1) and "diverged" in doc["notes"][0]
    assert git("rev-parse", "HEAD", cwd=clone).strip() == mine


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
