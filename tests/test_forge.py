"""forge/ against the loopback GitHub, GitLab and Gitea servers and the stub gh."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reflectgit.errors import ConfigError, ForgeError
from reflectgit.forge.base import manual_pr_url, parse_remote_url
from reflectgit.forge.choose import choose_forge
from reflectgit.forge.gh import GhCliForge
from reflectgit.forge.gitea import GiteaForge
from reflectgit.forge.github import GitHubForge
from reflectgit.forge.gitlab import GitLabForge
from tests.fixtures_remote import BareRepo, GitDaemon, git_daemon
from tests.forge_server import TOKEN, GhStub, gh_stub, make_forge

__all__ = ["gh_stub", "git_daemon", "make_forge"]

REPO = "acme/team"


def _repo_with_branch(daemon: GitDaemon, branch: str = "knowledge/pool") -> BareRepo:
    repo = daemon.new_repo()
    main = repo.seed({"documents/a.md": "a"})
    repo.git("update-ref", f"refs/heads/{branch}", main)
    repo.seed({"documents/b.md": "b"})  # main moves on; the branch keeps the older tip
    repo.git("update-ref", f"refs/heads/{branch}", repo.seed({"documents/c.md": "c"}))
    repo.git("update-ref", "refs/heads/main", repo.git("rev-parse", "main~1").strip())
    return repo


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, **extra}


def _choose(kind: str, forge, token_var: str, **settings):
    return choose_forge(
        f"https://forge.example/{REPO}.git",
        {"provider": kind, "api_url": forge.api_url, **settings},
        _env(**{token_var: TOKEN}),
    )


@pytest.mark.parametrize(
    ("kind", "token_var", "cls", "title"),
    [
        ("github", "GH_TOKEN", GitHubForge, "Pool timeout"),
        ("gitlab", "GITLAB_TOKEN", GitLabForge, "Draft: Pool timeout"),
        ("gitea", "GITEA_TOKEN", GiteaForge, "WIP: Pool timeout"),
    ],
)
def test_draft_pr_lifecycle(git_daemon, make_forge, kind, token_var, cls, title) -> None:
    repo = _repo_with_branch(git_daemon)
    forge = make_forge(kind, {REPO: repo.path})
    choice = _choose(kind, forge, token_var)
    assert isinstance(choice.forge, cls), choice.reason
    api = choice.forge

    assert api.find_open("knowledge/pool", "main") is None
    pr = api.open_draft("knowledge/pool", "main", "Pool timeout", "body")
    assert pr.draft and pr.state == "open" and pr.title == title
    assert forge.prs[REPO][0].draft
    # Opening again returns the same PR instead of a second one.
    again = api.open_draft("knowledge/pool", "main", "Pool timeout", "body")
    assert again.number == pr.number
    assert len(forge.prs[REPO]) == 1
    assert api.find_open("knowledge/pool", "main") == pr

    api.close(pr, "duplicate of an existing note")
    assert forge.prs[REPO][0].comments == ["duplicate of an existing note"]
    assert api.get(pr.number).state == "closed"
    assert api.find_open("knowledge/pool", "main") is None


@pytest.mark.parametrize(("kind", "token_var"), [("github", "GH_TOKEN"), ("gitea", "GITEA_TOKEN")])
def test_merge_through_the_api_moves_main(git_daemon, make_forge, kind, token_var) -> None:
    repo = _repo_with_branch(git_daemon)
    forge = make_forge(kind, {REPO: repo.path})
    api = _choose(kind, forge, token_var).forge
    assert api is not None
    pr = api.open_draft("knowledge/pool", "main", "Pool timeout", "")
    if kind == "gitea":  # WIP pull requests cannot be merged on Gitea
        with pytest.raises(ForgeError, match="work in progress"):
            api.merge(pr)
        return
    api.merge(pr)
    assert "documents/c.md" in repo.files("main")
    assert api.get(pr.number).state == "merged"


def test_github_refusing_drafts_gets_a_draft_titled_pr(git_daemon, make_forge) -> None:
    repo = _repo_with_branch(git_daemon)
    forge = make_forge("github", {REPO: repo.path})
    forge.refuse_drafts = True
    api = _choose("github", forge, "GITHUB_TOKEN").forge
    assert api is not None
    pr = api.open_draft("knowledge/pool", "main", "Pool timeout", "")
    assert pr.title == "[Draft] Pool timeout" and not pr.draft
    posts = forge.calls("POST")
    assert [p[2]["draft"] for p in posts] == [True, False]


@pytest.mark.parametrize("kind", ["github", "gitlab", "gitea"])
def test_missing_head_branch_and_bad_token_are_clear_errors(git_daemon, make_forge, kind) -> None:
    repo = _repo_with_branch(git_daemon)
    forge = make_forge(kind, {REPO: repo.path})
    var = {"github": "GH_TOKEN", "gitlab": "GITLAB_TOKEN", "gitea": "GITEA_TOKEN"}[kind]
    api = _choose(kind, forge, var).forge
    assert api is not None
    with pytest.raises(ForgeError) as err:
        api.open_draft("knowledge/nope", "main", "x", "")
    assert err.value.message
    assert forge.prs[REPO] == []
    bad = choose_forge(
        f"https://forge.example/{REPO}.git",
        {"provider": kind, "api_url": forge.api_url},
        _env(**{var: "wrong"}),
    ).forge
    assert bad is not None
    with pytest.raises(ForgeError, match="401") as err:
        bad.open_draft("knowledge/pool", "main", "x", "")
    assert err.value.hint and var in err.value.hint


def test_token_from_git_credential_helper(
    git_daemon, make_forge, tmp_path: Path, monkeypatch
) -> None:
    repo = _repo_with_branch(git_daemon)
    forge = make_forge("gitea", {REPO: repo.path})
    helper = tmp_path / "helper.sh"
    helper.write_text(f"#!/bin/sh\necho username=bot\necho password={TOKEN}\n")
    helper.chmod(0o755)
    with open(os.environ["GIT_CONFIG_GLOBAL"], "a") as fh:
        fh.write(f"[credential]\n\thelper = {helper}\n")
    choice = choose_forge(
        f"https://forge.example/{REPO}.git", {"provider": "gitea", "api_url": forge.api_url}, _env()
    )
    assert "git credential" in choice.reason
    assert choice.forge is not None
    assert choice.forge.open_draft("knowledge/pool", "main", "t", "").draft


def test_no_token_no_forge_says_why() -> None:
    choice = choose_forge("https://gitlab.example.com/a/b.git", {}, _env())
    assert choice.forge is None and "GITLAB_TOKEN" in choice.reason
    assert choose_forge("/srv/team.git", {}, _env()).forge is None
    assert choose_forge("https://git.example.com/a/b", {}, _env()).forge is None
    assert choose_forge("https://github.com/a/b", {"provider": "none"}, _env()).forge is None
    with pytest.raises(ConfigError):
        choose_forge("https://github.com/a/b", {"provider": "bitbucket"}, _env())


def test_gh_cli_used_when_logged_in(gh_stub: GhStub) -> None:
    choice = choose_forge("git@github.com:acme/team.git", {}, _env())
    assert isinstance(choice.forge, GhCliForge), choice.reason
    pr = choice.forge.open_draft("knowledge/pool", "main", "Pool timeout", "why")
    assert pr.draft and pr.url.endswith("/acme/team/pull/1")
    assert choice.forge.open_draft("knowledge/pool", "main", "Pool timeout", "why").number == 1
    choice.forge.close(pr, "not needed")
    calls = gh_stub.calls()
    assert calls[0] == ["auth", "token", "--hostname", "github.com"]
    create = next(c for c in calls if c[:2] == ["pr", "create"])
    assert "--draft" in create and create[create.index("--repo") + 1] == "acme/team"
    assert ["pr", "close", "1", "--repo", "acme/team", "--comment", "not needed"] in calls
    assert gh_stub.prs()[0]["state"] == "CLOSED"


def test_gh_refusing_drafts_and_not_logged_in(gh_stub: GhStub, monkeypatch) -> None:
    monkeypatch.setenv("GH_STUB_REFUSE_DRAFT", "1")
    api = choose_forge("https://github.com/acme/team", {}, _env()).forge
    assert api is not None
    pr = api.open_draft("knowledge/x", "main", "X", "")
    assert pr.title == "[Draft] X" and not pr.draft
    monkeypatch.delenv("GH_STUB_TOKEN")
    choice = choose_forge("https://github.com/acme/team", {}, _env())
    assert choice.forge is None and "GH_TOKEN" in choice.reason


def test_env_token_preferred_over_gh(gh_stub: GhStub) -> None:
    choice = choose_forge("https://github.com/acme/team", {}, _env(GITHUB_TOKEN="t"))
    assert isinstance(choice.forge, GitHubForge)
    assert choice.forge.client.base_url == "https://api.github.com"
    enterprise = choose_forge(
        "https://ghe.corp/acme/team", {"provider": "github"}, _env(GH_TOKEN="t")
    )
    assert isinstance(enterprise.forge, GitHubForge)
    assert enterprise.forge.client.base_url == "https://ghe.corp/api/v3"


@pytest.mark.parametrize(
    ("url", "host", "path"),
    [
        ("https://github.com/acme/team.git", "github.com", "acme/team"),
        ("git@gitlab.com:group/sub/kb.git", "gitlab.com", "group/sub/kb"),
        ("ssh://git@codeberg.org:2222/me/kb", "codeberg.org", "me/kb"),
        ("http://u:p@127.0.0.1:8080/x/y.git", "127.0.0.1:8080", "x/y"),
    ],
)
def test_parse_remote_url(url: str, host: str, path: str) -> None:
    ref = parse_remote_url(url)
    assert ref is not None and (ref.host, ref.path) == (host, path)


def test_manual_pr_urls() -> None:
    assert manual_pr_url("git@github.com:a/b.git", "knowledge/x", "main") == (
        "https://github.com/a/b/compare/main...knowledge/x?expand=1"
    )
    assert "merge_requests/new" in (manual_pr_url("https://gitlab.com/a/b", "k", "main") or "")
    assert manual_pr_url("/srv/x.git", "k", "main") is None
