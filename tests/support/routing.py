"""Personal KBs wired to a team remote, and notes to route, for the routing and review tests."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from reflectgit.config import Config, user_config_path
from reflectgit.git.change import write
from reflectgit.git.store import Store
from reflectgit.notes.note import dump_yaml
from tests.conftest import git
from tests.support.remote import BareRepo


def note_bytes(
    title: str,
    confidence: str | None = "high",
    *,
    note_id: str | None = None,
    tags: list[str] | None = None,
    body: str = "Body.\n",
) -> bytes:
    front: dict[str, object] = {
        "type": "learning",
        "id": note_id or "lrn-" + "-".join(title.lower().split())[:40],
        "created": "2026-03-04T09:12:00Z",
        "title": title,
        "key_insight": f"Insight about {title}.",
        "category": "debugging",
        "tags": tags or ["pool"],
    }
    if confidence is not None:
        front["confidence"] = confidence
    return ("---\n" + dump_yaml(front) + "---\n" + body).encode()


@dataclass
class KB:
    """A personal KB (a real repository) whose settings name the team remote."""

    path: Path

    def add(self, title: str, confidence: str | None = "high", **kw: object) -> str:
        """Commit a note the way `reflect-git add` would; returns its id."""
        data = note_bytes(title, confidence, **kw)  # type: ignore[arg-type]
        note_id = data.split(b"\nid: ")[1].split(b"\n")[0].decode()
        with Store.open(self.path) as store:
            store.commit([write(f"documents/{note_id}.md", data)], f"add {note_id}")
        return note_id

    def settings(self, text: str) -> None:
        (self.path / ".reflect-git.toml").write_text(text)
        git("add", ".reflect-git.toml", cwd=self.path)
        git("commit", "-qm", "settings", cwd=self.path)

    def config(self) -> Config:
        return Config.resolve(self.path, dict(os.environ))

    def read(self, rel: str) -> bytes:
        return (self.path / rel).read_bytes()


def user_config(text: str) -> Path:
    """Write the user's own config file (where ``[forge]`` settings are read from)."""
    path = user_config_path(os.environ)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def make_kb(root: Path, team: BareRepo | None, forge_toml: str = "") -> KB:
    """A KB naming ``team`` in its committed settings; ``forge_toml`` (a ``[forge]`` table)
    goes to the user's own config file, the only place a forge's URL and token may come from."""
    path = root
    git("init", "-q", "-b", "main", str(path), cwd=root.parent)
    kb = KB(path)
    toml = f'[team]\nremote = "{team.url}"\n' if team else ""
    kb.settings(toml or "# none\n")
    if forge_toml:
        user_config(forge_toml)
    return kb


@pytest.fixture
def kb_factory(tmp_path: Path):  # type: ignore[no-untyped-def]
    """``kb_factory(team, forge_toml="")`` -> a fresh personal KB routing to ``team``."""
    counter = iter(range(1000))

    def factory(team: BareRepo | None, forge_toml: str = "") -> KB:
        return make_kb(tmp_path / f"kb{next(counter)}", team, forge_toml)

    return factory


TOKEN_VARS = {"github": "GH_TOKEN", "gitlab": "GITLAB_TOKEN", "gitea": "GITEA_TOKEN"}


def team_on_forge(
    git_daemon: Any, kb_factory: Any, make_forge: Any, monkeypatch: Any, kind: str = "github"
) -> tuple[Any, Any, KB]:
    """A team remote on ``git daemon`` holding one high note (``lrn-pool-timeout``), a loopback
    forge of ``kind`` serving it as ``acme/team`` with its token set, and a personal KB routed
    to both: (team, forge, kb)."""
    from tests.support.forge_server import TOKEN

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
    monkeypatch.setenv(TOKEN_VARS[kind], TOKEN)
    kb = kb_factory(
        team, f'[forge]\nprovider = "{kind}"\napi_url = "{forge.api_url}"\nrepo = "acme/team"\n'
    )
    return team, forge, kb


def teammate_pushes(
    team: BareRepo, branch: str, files: dict[str, str | None], tmp: Path, *, base: str = ""
) -> str:
    """A teammate's plain git: clone the team remote, commit ``files`` (None deletes) on
    ``branch`` (on ``base`` when given), push. Returns the new tip."""
    work = tmp / f"teammate-{abs(hash((branch, tuple(files))))}"
    git("clone", "-q", team.url, str(work), cwd=tmp)
    git("config", "user.name", "Mallory", cwd=work)
    git("config", "user.email", "mallory@example.com", cwd=work)
    git("checkout", "-q", "-B", branch, base or f"origin/{branch}", cwd=work)
    for rel, text in files.items():
        if text is None:
            git("rm", "-q", rel, cwd=work)
            continue
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text)
        git("add", rel, cwd=work)
    git("commit", "-qm", "tidy up", cwd=work)
    git("push", "-q", "--force", "origin", f"HEAD:refs/heads/{branch}", cwd=work)
    return git("rev-parse", "HEAD", cwd=work).strip()
