"""Opt-in live tests against a real forge; skipped unless REFLECT_LIVE_<FORGE>_URL and _TOKEN are set.

REFLECT_LIVE_GITHUB_URL=https://github.com/me/scratch-kb  REFLECT_LIVE_GITHUB_TOKEN=ghp_...
(likewise GITLAB and GITEA; REFLECT_LIVE_<FORGE>_API_URL for self-hosted instances). The test
routes a uniquely titled medium note to a knowledge branch, checks the draft PR, then rejects
it, which closes the PR and deletes the branch again.
"""

from __future__ import annotations

import os
import secrets
import urllib.parse
from pathlib import Path

import pytest

from reflectgit.workflows import review, routing
from tests.conftest import git
from tests.support.routing import KB, user_config

# Read at import: the autouse fixture clears REFLECT_* from the environment of every test.
LIVE = {
    kind: (
        os.environ.get(f"REFLECT_LIVE_{kind.upper()}_URL"),
        os.environ.get(f"REFLECT_LIVE_{kind.upper()}_TOKEN"),
        os.environ.get(f"REFLECT_LIVE_{kind.upper()}_API_URL"),
    )
    for kind in ("github", "gitlab", "gitea")
}
USERS = {"github": "x-access-token", "gitlab": "oauth2", "gitea": "reflect-git"}
TOKEN_VARS = {"github": "GH_TOKEN", "gitlab": "GITLAB_TOKEN", "gitea": "GITEA_TOKEN"}


@pytest.mark.live
@pytest.mark.parametrize("kind", sorted(LIVE))
def test_live_draft_pr_round_trip(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, token, api_url = LIVE[kind]
    if not (url and token):
        pytest.skip(f"set REFLECT_LIVE_{kind.upper()}_URL and _TOKEN to run")
    parts = urllib.parse.urlsplit(url)
    push_url = parts._replace(netloc=f"{USERS[kind]}:{token}@{parts.netloc}").geturl()
    monkeypatch.setenv(TOKEN_VARS[kind], token)
    kb_path = tmp_path / "kb"
    git("init", "-q", "-b", "main", str(kb_path), cwd=tmp_path)
    kb = KB(kb_path)
    forge = f'[forge]\nprovider = "{kind}"\nrepo = "{parts.path.strip("/").removesuffix(".git")}"\n'
    if api_url:
        forge += f'api_url = "{api_url}"\n'
    kb.settings(f'[team]\nremote = "{push_url}"\n')
    user_config(forge)
    note_id = kb.add(f"Live check {secrets.token_hex(4)}", "medium")

    result = routing.route(kb.config(), note_id)
    assert result.pushed and result.pr_url, result.notes
    again = routing.route(kb.config(), note_id)
    assert not again.pushed and again.pr_url == result.pr_url

    rejected = review.reject(kb.config(), result.branch or "", "reflect-git live test")
    assert rejected.closed and rejected.deleted
