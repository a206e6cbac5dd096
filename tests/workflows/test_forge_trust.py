"""Credentials go only where the user said (issue 32): a committed ``.reflect-git.toml`` (the
KB's own, the team main's, a cloned team KB's) cannot choose where a token is sent or which
variable it is read from; a token goes only over https (or http to loopback, for tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reflectgit.config import Config, forge_settings
from reflectgit.forge.choose import choose_forge, plain_http
from reflectgit.workflows import routing
from tests.conftest import git
from tests.support.forge_server import FakeForge, make_forge
from tests.support.remote import GitDaemon, git_daemon
from tests.support.routing import KB, kb_factory, user_config

__all__ = ["git_daemon", "kb_factory", "make_forge"]

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz4trustTEST"
DB_PASSWORD = "correct-horse-battery-db-7731"
GH_TOKEN = "ghp_trustTestToken0000000000000000000000"


def _attack(forge: FakeForge, token_env: str = "") -> str:
    """The ``[forge]`` table a hostile teammate commits: the attacker's API, and a variable."""
    extra = f'token_env = "{token_env}"\n' if token_env else ""
    return f'[forge]\nprovider = "github"\napi_url = "{forge.api_url}"\nrepo = "acme/team"\n{extra}'


def _leaked(forge: FakeForge, secret: str) -> bool:
    return any(secret in value for seen in forge.headers_seen for value in seen.values())


def _route_medium(kb: KB) -> routing.RouteResult:
    note_id = kb.add("Warm the pool before traffic", "medium")
    result = routing.route(kb.config(), note_id)
    assert result.route == "branch" and result.pushed, result
    return result


def test_team_main_settings_cannot_send_an_aws_secret(
    git_daemon: GitDaemon, kb_factory, make_forge, monkeypatch: pytest.MonkeyPatch
) -> None:
    team = git_daemon.new_repo()
    attacker = make_forge("github", {"acme/team": team.path})
    team.seed({".reflect-git.toml": _attack(attacker, "AWS_SECRET_ACCESS_KEY")})
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", AWS_SECRET)
    kb = kb_factory(team)

    result = _route_medium(kb)

    assert not _leaked(attacker, AWS_SECRET)
    assert attacker.headers_seen == []  # no request at all: the remote is not on a forge
    assert any(
        "[forge] token_env in the team's .reflect-git.toml is ignored" in n for n in result.notes
    ), result.notes
    assert any(
        "[forge] api_url in the team's .reflect-git.toml is ignored" in n for n in result.notes
    )


def test_kb_settings_cannot_send_a_database_password(
    git_daemon: GitDaemon, kb_factory, make_forge, monkeypatch: pytest.MonkeyPatch
) -> None:
    team = git_daemon.new_repo()
    attacker = make_forge("github", {"acme/team": team.path})
    monkeypatch.setenv("PGPASSWORD", DB_PASSWORD)
    kb = kb_factory(team)
    kb.settings(f'[team]\nremote = "{team.url}"\n' + _attack(attacker, "PGPASSWORD"))

    result = _route_medium(kb)

    assert not _leaked(attacker, DB_PASSWORD) and attacker.headers_seen == []
    assert any("[forge] token_env in " in n and "is ignored" in n for n in result.notes)


def test_committed_settings_cannot_send_gh_token_to_a_plain_http_host(
    git_daemon: GitDaemon, kb_factory, make_forge, monkeypatch: pytest.MonkeyPatch
) -> None:
    team = git_daemon.new_repo()
    attacker = make_forge("github", {"acme/team": team.path})
    monkeypatch.setenv("GH_TOKEN", GH_TOKEN)
    kb = kb_factory(team)
    kb.settings(f'[team]\nremote = "{team.url}"\n' + _attack(attacker))

    _route_medium(kb)

    assert not _leaked(attacker, GH_TOKEN) and attacker.headers_seen == []


def test_a_user_set_plain_http_api_is_refused_before_any_request(
    git_daemon: GitDaemon, kb_factory, make_forge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even the user's own http:// URL gets no token: the attacker sits on the path (a proxy
    here, which is how the request would reach it)."""
    team = git_daemon.new_repo()
    on_path = make_forge("github", {"acme/team": team.path})
    monkeypatch.setenv("GH_TOKEN", GH_TOKEN)
    monkeypatch.setenv("http_proxy", on_path.base_url)
    monkeypatch.setenv("REFLECT_FORGE_API_URL", "http://forge.example.test/api/v3")
    monkeypatch.setenv("REFLECT_FORGE_PROVIDER", "github")
    kb = kb_factory(team, '[forge]\nrepo = "acme/team"\n')

    result = _route_medium(kb)

    assert not _leaked(on_path, GH_TOKEN) and on_path.headers_seen == []
    assert any("refusing to send a token to http://forge.example.test" in n for n in result.notes)


def test_a_cloned_team_kb_does_not_take_the_forge_from_the_team(
    git_daemon: GitDaemon, make_forge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cli
) -> None:
    team = git_daemon.new_repo()
    attacker = make_forge("github", {"acme/team": team.path})
    settings = '[team]\nremote = "origin"\n' + _attack(attacker, "AWS_SECRET_ACCESS_KEY")
    team.seed({".reflect-git.toml": settings})
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", AWS_SECRET)
    monkeypatch.setenv("GH_TOKEN", GH_TOKEN)
    kb_path = tmp_path / "kb"
    git("clone", "-q", team.url, str(kb_path), cwd=tmp_path)

    result = _route_medium(KB(kb_path))

    assert not _leaked(attacker, AWS_SECRET) and not _leaked(attacker, GH_TOKEN)
    assert attacker.headers_seen == []
    assert any("[forge] api_url in " in n and "is ignored" in n for n in result.notes)
    status = cli("--kb", str(kb_path), "status")
    assert status.code == 0, status
    assert "forge: repo from " in status.out and "provider from" not in status.out
    assert f"warning: [forge] api_url in {kb_path / '.reflect-git.toml'} is ignored" in status.out
    assert cli("--kb", str(kb_path), "--json", "status").json()["forge"]["ignored"]  # type: ignore[index]


def test_the_users_own_settings_are_used_and_said(
    git_daemon: GitDaemon, kb_factory, make_forge, monkeypatch: pytest.MonkeyPatch, cli
) -> None:
    """The same settings from the user's config file work, and status names where they are."""
    team = git_daemon.new_repo()
    team.seed({"README.md": "team KB\n"})
    forge = make_forge("github", {"acme/team": team.path})
    monkeypatch.setenv("CI_DEPLOY_TOKEN", forge.token)
    kb = kb_factory(team)
    path = user_config(_attack(forge, "CI_DEPLOY_TOKEN"))

    result = _route_medium(kb)

    assert result.pr_url, result.notes
    assert all("ignored" not in n for n in result.notes)
    out = cli("--kb", str(kb.path), "status").out
    assert f"api_url from {path}" in out and f"token_env from {path}" in out
    monkeypatch.setenv("REFLECT_FORGE_API_URL", forge.api_url)
    out = cli("--kb", str(kb.path), "status").out
    assert "api_url from REFLECT_FORGE_API_URL" in out


@pytest.mark.parametrize(
    ("url", "refused"),
    [
        ("https://api.github.com", False),
        ("https://ghe.acme.internal/api/v3", False),
        ("http://127.0.0.1:8080/api/v1", False),
        ("http://127.3.4.5/api/v4", False),
        ("http://localhost:3000/api/v1", False),
        ("http://[::1]:3000/api/v1", False),
        ("http://ghe.acme.internal/api/v3", True),
        ("http://10.0.0.7/api/v3", True),
        ("http://127.0.0.1.attacker.example/api", True),
        ("ftp://forge.example/api", True),
        ("forge.example/api", True),
    ],
)
def test_tokens_go_only_over_https_or_to_loopback(url: str, refused: bool) -> None:
    assert (plain_http(url) is not None) is refused


def test_choose_forge_refuses_a_plain_http_remote_before_reading_a_token() -> None:
    env = {"GH_TOKEN": GH_TOKEN}
    choice = choose_forge("http://github.acme.internal/acme/team.git", {}, env)
    assert choice.forge is None and "only over https" in choice.reason
    ok = choose_forge("https://github.acme.internal/acme/team.git", {}, env)
    assert ok.forge is not None


def test_committed_keys_that_do_not_steer_a_token_still_apply(tmp_path: Path) -> None:
    committed = {"repo": "acme/kb", "timeout": 5, "api_url": "https://x", "host": "h"}
    env = {"HOME": str(tmp_path), "REFLECT_FORGE_PROVIDER": "gitea"}
    got = forge_settings(env, [("the team's .reflect-git.toml", committed)])
    assert got.values == {"repo": "acme/kb", "timeout": 5, "provider": "gitea"}
    assert got.sources["provider"] == "REFLECT_FORGE_PROVIDER"
    assert [w.split(" is ignored")[0] for w in got.ignored] == [
        "[forge] api_url in the team's .reflect-git.toml",
        "[forge] host in the team's .reflect-git.toml",
    ]
    cfg = Config(tmp_path, tmp_path, env, {"forge": {"token_env": "X"}})
    assert cfg.forge().ignored and "token_env" not in cfg.forge().values
