"""remote.py over real servers: fetch, push, rejections, bad credentials, unreachable hosts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reflectgit.git.remote import (
    RemoteAuthError,
    RemoteUnreachableError,
    TeamRemote,
    parse_porcelain,
    redact,
)
from tests.conftest import git
from tests.support.remote import PASSWORD, GitDaemon, GitHTTP, free_port, git_daemon, git_http

__all__ = ["git_daemon", "git_http"]


def _local(tmp_path: Path) -> Path:
    path = tmp_path / "local"
    git("init", "-q", "-b", "main", str(path), cwd=tmp_path)
    return path


def _commit_object(repo: Path, parent: str | None, name: str) -> str:
    blob = git("hash-object", "-w", "--stdin", cwd=repo, input=name).strip()
    tree = git("mktree", cwd=repo, input=f"100644 blob {blob}\t{name}\n").strip()
    args = ["commit-tree", tree, "-m", name] + (["-p", parent] if parent else [])
    return git(*args, cwd=repo).strip()


def test_fetch_and_push_over_http(git_http: GitHTTP, tmp_path: Path) -> None:
    bare = git_http.new_repo()
    local = _local(tmp_path)
    remote = TeamRemote(local, bare.url, env=os.environ)
    assert remote.fetch() == {}
    first = _commit_object(local, None, "a")
    assert [o.status for o in remote.push([f"{first}:refs/heads/main"])] == ["new"]
    assert bare.heads() == {"main": first}
    assert remote.fetch() == {"main": first}
    assert git("rev-parse", "refs/reflect-git/team/main", cwd=local).strip() == first
    assert remote.ls_remote() == {"main": first}
    assert PASSWORD not in remote.display()


def test_stale_push_is_rejected_as_data(git_daemon: GitDaemon, tmp_path: Path) -> None:
    bare = git_daemon.new_repo()
    theirs = bare.seed({"x": "theirs"})
    local = _local(tmp_path)
    remote = TeamRemote(local, bare.url, env=os.environ)
    mine = _commit_object(local, None, "mine")  # not on top of theirs
    [outcome] = remote.push([f"{mine}:refs/heads/main"])
    assert not outcome.ok and outcome.stale and outcome.status == "rejected"
    assert bare.heads()["main"] == theirs


def test_wrong_password_is_an_auth_error_with_hint(git_http: GitHTTP, tmp_path: Path) -> None:
    bare = git_http.new_repo()
    url = git_http.url_for(bare.name, password="wrong")
    remote = TeamRemote(_local(tmp_path), url, env=os.environ)
    with pytest.raises(RemoteAuthError) as err:
        remote.fetch()
    assert "authentication failed" in err.value.message
    assert "wrong" not in err.value.message and "***" in err.value.message
    assert err.value.hint and "credential" in err.value.hint


def test_unreachable_remote(tmp_path: Path) -> None:
    port = free_port()
    local = _local(tmp_path)
    sha = _commit_object(local, None, "a")
    remote = TeamRemote(local, f"git://127.0.0.1:{port}/x.git", env=os.environ)
    with pytest.raises(RemoteUnreachableError) as err:
        remote.push([f"{sha}:refs/heads/main"])
    assert "unreachable" in err.value.message
    missing = TeamRemote(local, str(tmp_path / "nope.git"), env=os.environ)
    with pytest.raises(RemoteUnreachableError):
        missing.fetch()


def test_named_remote_uses_remote_tracking_refs(git_daemon: GitDaemon, tmp_path: Path) -> None:
    bare = git_daemon.new_repo()
    sha = bare.seed({"a": "a"})
    local = _local(tmp_path)
    git("remote", "add", "origin", bare.url, cwd=local)
    remote = TeamRemote(local, "origin", env=os.environ)
    assert remote.is_named and remote.fetch() == {"main": sha}
    assert git("rev-parse", "origin/main", cwd=local).strip() == sha
    with pytest.raises(Exception, match="no remote named"):
        TeamRemote(local, "upstream", env=os.environ).url()


def test_porcelain_and_redaction() -> None:
    out = "To x\n!\tabc:refs/heads/main\t[rejected] (fetch first)\n*\tdef:refs/heads/k\t[new branch]\nDone\n"
    rejected, new = parse_porcelain(out)
    assert rejected.stale and rejected.ref == "refs/heads/main"
    assert new.ok and new.status == "new"
    hook = parse_porcelain("!\ta:refs/heads/main\t[remote rejected] (pre-receive hook declined)\n")
    assert hook[0].status == "remote-rejected" and not hook[0].stale
    assert redact("https://bob:tok@h/x") == "https://bob:***@h/x"


@pytest.mark.parametrize(
    ("spec", "url"),
    [
        ("origin", False),
        ("team", False),
        ("git@github.com:acme/kb.git", True),
        ("github.com:acme/kb.git", True),
        ("https://github.com/acme/kb.git", True),
        ("/srv/git/kb.git", True),
        ("../kb.git", True),
    ],
)
def test_remote_names_and_urls(spec: str, url: bool) -> None:
    from reflectgit.git.remote import is_url

    assert is_url(spec) is url
