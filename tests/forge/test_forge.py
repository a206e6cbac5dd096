"""forge/ against the loopback GitHub, GitLab and Gitea servers and the stub gh."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reflectgit.errors import ConfigError, ForgeError
from reflectgit.forge.base import PAGE_SIZE, manual_pr_url, parse_remote_url
from reflectgit.forge.choose import choose_forge
from reflectgit.forge.gh import GhCliForge
from reflectgit.forge.gitea import GiteaForge
from reflectgit.forge.github import GitHubForge
from reflectgit.forge.gitlab import GitLabForge
from tests.support.forge_server import TOKEN, GhStub, gh_stub, make_forge
from tests.support.remote import BareRepo, GitDaemon, git_daemon

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


@pytest.mark.parametrize(
    ("kind", "token_var"),
    [("github", "GH_TOKEN"), ("gitlab", "GITLAB_TOKEN"), ("gitea", "GITEA_TOKEN")],
)
def test_comments_are_read_page_after_page_oldest_first(git_daemon, make_forge, kind, token_var):
    repo = _repo_with_branch(git_daemon)
    forge = make_forge(kind, {REPO: repo.path})
    api = _choose(kind, forge, token_var).forge
    pr = api.open_draft("knowledge/pool", "main", "Pool timeout", "body")
    assert api.comments(pr.number) == []
    said = [f"comment {i}" for i in range(PAGE_SIZE + 3)]  # one page and a short one
    for body in said:
        api.add_comment(pr.number, body)
    assert [c.body for c in api.comments(pr.number)] == said
    # the open PR is found again among a listing's pages too (Gitea walks them)
    assert api.find_open("knowledge/pool", "main") == api.get(pr.number)


@pytest.mark.parametrize(("kind", "token_var"), [("github", "GH_TOKEN"), ("gitea", "GITEA_TOKEN")])
def test_merge_through_the_api_moves_main(git_daemon, make_forge, kind, token_var) -> None:
    repo = _repo_with_branch(git_daemon)
    forge = make_forge(kind, {REPO: repo.path})
    api = _choose(kind, forge, token_var).forge
    assert api is not None
    pr = api.open_draft("knowledge/pool", "main", "Pool timeout", "")
    tip = repo.heads()["knowledge/pool"]
    with pytest.raises(ForgeError, match=r"HTTP 40[59]"):  # not the reviewed head: refused
        api.merge(pr, head_sha="0" * 40)
    assert "documents/c.md" not in repo.files("main")
    api.merge(pr, head_sha=tip)  # Gitea: the WIP: prefix goes first (WIP PRs cannot merge)
    assert "documents/c.md" in repo.files("main")
    merged = api.get(pr.number)
    assert merged.state == "merged" and not merged.title.startswith("WIP")
    if kind == "gitea":  # merged with delete_branch_after_merge
        assert "knowledge/pool" not in repo.heads()


def test_the_fake_gitea_refuses_a_wip_merge_like_the_real_one(git_daemon, make_forge) -> None:
    from reflectgit.forge.http import ForgeHTTPError

    repo = _repo_with_branch(git_daemon)
    forge = make_forge("gitea", {REPO: repo.path})
    api = _choose("gitea", forge, "GITEA_TOKEN").forge
    assert isinstance(api, GiteaForge)
    pr = api.open_draft("knowledge/pool", "main", "Pool timeout", "")
    with pytest.raises(ForgeHTTPError, match="work in progress"):
        api.client.request("POST", f"/repos/{REPO}/pulls/{pr.number}/merge", {"Do": "merge"})
    # an outside push of the branch into main does not merge a Gitea PR (autodetect is off)
    repo.git("update-ref", "refs/heads/main", repo.heads()["knowledge/pool"])
    assert api.get(pr.number).state == "open"
    forge.autodetect_manual_merge = True
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


# ---------------------------------------------------------------------------- forges as they behave


def _helper(tmp_path: Path, user: str, password: str) -> None:
    helper = tmp_path / "oauth-helper.sh"
    helper.write_text(f"#!/bin/sh\necho username={user}\necho password={password}\n")
    helper.chmod(0o755)
    with open(os.environ["GIT_CONFIG_GLOBAL"], "a") as fh:
        fh.write(f"[credential]\n\thelper = {helper}\n")


def test_gitlab_oauth_token_from_a_credential_helper_is_sent_as_bearer(
    git_daemon, make_forge, tmp_path: Path
) -> None:
    repo = _repo_with_branch(git_daemon)
    forge = make_forge("gitlab", {REPO: repo.path})
    forge.oauth_tokens.add("oauth-abc")
    _helper(tmp_path, "oauth2", "oauth-abc")
    env = {k: v for k, v in os.environ.items() if k != "GITLAB_TOKEN"}
    choice = choose_forge(
        f"https://forge.example/{REPO}.git", {"provider": "gitlab", "api_url": forge.api_url}, env
    )
    assert choice.forge is not None and "Authorization: Bearer" in choice.reason
    assert choice.forge.open_draft("knowledge/pool", "main", "t", "").draft
    sent = forge.headers_seen[-1]
    assert sent.get("authorization") == "Bearer oauth-abc" and "private-token" not in sent
    # the same OAuth token as PRIVATE-TOKEN is what GitLab answers 401 to
    forced = choose_forge(
        f"https://forge.example/{REPO}.git",
        {"provider": "gitlab", "api_url": forge.api_url, "auth": "private-token"},
        env,
    ).forge
    assert forced is not None
    with pytest.raises(ForgeError, match="401"):
        forced.find_open("knowledge/pool", "main")


def test_gitlab_personal_token_from_the_environment_is_private_token(
    git_daemon, make_forge
) -> None:
    repo = _repo_with_branch(git_daemon)
    forge = make_forge("gitlab", {REPO: repo.path})
    choice = _choose("gitlab", forge, "GITLAB_TOKEN")
    assert choice.forge is not None and "PRIVATE-TOKEN" in choice.reason
    assert choice.forge.find_open("knowledge/pool", "main") is None
    sent = forge.headers_seen[-1]
    assert sent.get("private-token") == TOKEN and "authorization" not in sent
    with pytest.raises(ConfigError, match="auth"):
        _choose("gitlab", forge, "GITLAB_TOKEN", auth="basic")


@pytest.mark.parametrize("kind", ["github", "gitlab", "gitea"])
def test_an_html_answer_is_a_clear_error_naming_the_url(git_daemon, make_forge, kind) -> None:
    from tests.support.forge_server import SSO_PAGE

    repo = _repo_with_branch(git_daemon)
    forge = make_forge(kind, {REPO: repo.path})
    var = {"github": "GH_TOKEN", "gitlab": "GITLAB_TOKEN", "gitea": "GITEA_TOKEN"}[kind]
    api = _choose(kind, forge, var).forge
    assert api is not None
    forge.script(200, raw=SSO_PAGE, content_type="text/html; charset=utf-8")
    with pytest.raises(ForgeError) as err:
        api.find_open("knowledge/pool", "main")
    assert "answered with an HTML page, not JSON" in err.value.message
    assert forge.api_url in err.value.message
    assert err.value.exit_code == 1 and "api_url" in (err.value.hint or "")
    # JSON of the wrong shape is refused too, never iterated
    forge.script(200, {"message": "hello"})
    with pytest.raises(ForgeError, match="list"):
        api.find_open("knowledge/pool", "main")


@pytest.mark.parametrize(
    ("status", "headers"),
    [
        (429, {"Retry-After": "1"}),  # GitLab, Gitea behind a proxy, GitHub
        (403, {"Retry-After": "1"}),  # GitHub's secondary rate limit
        (403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "{reset}"}),  # primary limit
    ],
)
def test_rate_limits_are_waited_out_within_bounds(git_daemon, make_forge, status, headers) -> None:
    import time

    repo = _repo_with_branch(git_daemon)
    forge = make_forge("github", {REPO: repo.path})
    api = _choose("github", forge, "GH_TOKEN").forge
    assert isinstance(api, GitHubForge)
    filled = {k: v.format(reset=int(time.time()) + 1) for k, v in headers.items()}
    forge.script(status, {"message": "You have exceeded a secondary rate limit."}, filled)
    pr = api.open_draft("knowledge/pool", "main", "t", "")
    assert pr.number == 1 and len(forge.prs[REPO]) == 1
    assert [r[0] for r in forge.requests] == ["POST", "POST"]  # asked again after waiting
    assert len(api.client.waited) == 1 and 0 < api.client.waited[0] <= 3
    assert forge.served_at[1] >= forge.served_at[0] + min(api.client.waited)  # it really waited


def test_a_long_rate_limit_fails_at_once_saying_when(git_daemon, make_forge) -> None:
    import time

    repo = _repo_with_branch(git_daemon)
    forge = make_forge("github", {REPO: repo.path})
    api = _choose("github", forge, "GH_TOKEN", max_wait=5).forge
    assert isinstance(api, GitHubForge)
    forge.script(429, {"message": "slow down"}, {"Retry-After": "3600"})
    with pytest.raises(ForgeError, match="rate limited for 3600 s") as err:
        api.find_open("knowledge/pool", "main")
    assert "try again after" in (err.value.hint or "")
    assert len(forge.requests) == 1 and api.client.waited == []
    # a spent primary limit on a good answer makes the next call wait for the reset, or refuse
    reset = str(int(time.time()) + 3600)
    forge.script(200, [], {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset})
    assert api.find_open("knowledge/pool", "main") is None
    with pytest.raises(ForgeError, match="rate limited"):
        api.find_open("knowledge/pool", "main")
    assert len(forge.requests) == 2  # the refused call never reached the forge
    # a 403 that is not a rate limit is not retried
    forge.script(403, {"message": "Resource not accessible by integration"})
    with pytest.raises(ForgeError, match="403"):
        _choose("github", forge, "GH_TOKEN").forge.find_open("x", "main")  # type: ignore[union-attr]


def test_repeated_rate_limits_give_up_after_a_bounded_number_of_waits(
    git_daemon, make_forge
) -> None:
    from reflectgit.forge.http import MAX_RETRIES

    repo = _repo_with_branch(git_daemon)
    forge = make_forge("gitea", {REPO: repo.path})
    api = _choose("gitea", forge, "GITEA_TOKEN").forge
    assert isinstance(api, GiteaForge)
    forge.script(429, {"message": "rate limit"}, {"Retry-After": "0"}, times=MAX_RETRIES + 5)
    with pytest.raises(ForgeError, match="429"):
        api.find_open("knowledge/pool", "main")
    assert len(forge.requests) == MAX_RETRIES + 1


def test_manual_compare_url_uses_the_configured_repo() -> None:
    settings = {"provider": "github", "repo": "acme/team-kb"}
    assert manual_pr_url(
        "git@gh-alias:mirror/old-name.git", "knowledge/x", "main", None, settings
    ) == ("https://gh-alias/acme/team-kb/compare/main...knowledge/x?expand=1")
    gitea = {"provider": "gitea", "repo": "acme/kb", "api_url": "https://git.acme.dev/api/v1"}
    assert manual_pr_url("/srv/team.git", "knowledge/x", "main", None, gitea) == (
        "https://git.acme.dev/acme/kb/compare/main...knowledge/x"
    )
    gitlab = {"provider": "gitlab", "repo": "group/sub/kb"}
    url = manual_pr_url("https://gitlab.acme.dev/other/kb.git", "k", "main", None, gitlab) or ""
    assert url.startswith("https://gitlab.acme.dev/group/sub/kb/-/merge_requests/new?")
