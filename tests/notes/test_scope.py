"""Scope (issue 12.7): notes carry the project they were learned in; ``global`` only when the
text says so or a person sets it; ``recall --project X`` serves X's notes and global ones.

The detector is a table with positive and negative examples; the drain runs against a stub
model for a session whose cwd is a subfolder of a real repository; the hooks get real
payloads on stdin; recall runs through the real CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflectgit.notes.note import parse_note
from reflectgit.notes.scope import says_global, scope_fields, served_in
from reflectgit.state.queue import Queue
from reflectgit.workflows.drain.loop import run_drain
from reflectgit.workflows.project import project_name
from tests.conftest import git
from tests.support.capture import (  # noqa: F401  (kb_fixture: the capture KB)
    kb_fixture,
    load_events,
    run_hook,
    state_dir,
    transcripts_fixture,
)
from tests.support.drain import (
    Clock,
    copy_transcript,
    create_action,
    make_config,
    stub_command,
)

__all__ = ["transcripts_fixture"]

GLOBAL_SAYS = [
    "Use uv instead of pip in every repo",
    "Across all projects, pin the runner image",
    "For any of our repositories, run ruff before pushing",
    "This applies globally: never kill the tmux server",
    "Regardless of the project, prefer `git switch`",
    "Not just in this repo: set fetch.prune",
    "In all repos I work in, use ssh remotes",
    "Every project we maintain needs a CODEOWNERS file",
    "A machine-wide rule: keep ~/.netrc out of backups",
]
NOT_GLOBAL = [
    "In this repo, run `make lint` before committing",
    "Use `git config --global pull.rebase true` once",
    "Install it with npm i -g pnpm",
    "The worker holds a global lock while flushing",
    "The package is installed globally by the image",
    "Ids must be globally unique",
    "Across all projects in this monorepo, share the tsconfig",
    "For every request, check the token",
    "global state made the test flaky",
    "Use the GLOBAL_LEARNINGS_PATH variable",
]


@pytest.mark.parametrize("text", GLOBAL_SAYS)
def test_the_text_says_global(text):
    assert says_global(text)


@pytest.mark.parametrize("text", NOT_GLOBAL)
def test_the_word_global_alone_is_no_evidence(text):
    assert not says_global(text)


def test_scope_fields_and_serving():
    assert scope_fields("billing-api", "Run migrations first") == {
        "project": "billing-api",
        "scope": "project",
    }
    assert scope_fields("billing-api", "In every repo, run migrations first") == {
        "project": "billing-api",
        "scope": "global",
    }
    assert scope_fields(None, "Run migrations first") == {}
    assert served_in("billing-api", "project", "billing-api")
    assert served_in("Billing-API", "project", "billing-api")
    assert not served_in("web", "project", "billing-api")
    assert served_in("web", "global", "billing-api")
    assert served_in("web", None, None)  # unknown origin: served
    assert served_in("web", "global", None)


def test_the_project_is_the_repository_not_the_subfolder(tmp_path):
    repo = tmp_path / "billing-api"
    (repo / "src" / "deep").mkdir(parents=True)
    git("init", "-q", str(repo), cwd=tmp_path)
    assert project_name(repo / "src" / "deep") == "billing-api"
    assert project_name(tmp_path / "gone" / "web-app") == "web-app"  # no longer on disk
    plain = tmp_path / "scratch"
    plain.mkdir()
    assert project_name(plain) == "scratch"
    assert project_name(None) is None and project_name("") is None


# --------------------------------------------------------------------------- the drain


def test_drain_notes_carry_the_project_and_global_only_when_said(tmp_path: Path, repo: Path):
    work = tmp_path / "billing-api"
    (work / "src").mkdir(parents=True)
    git("init", "-q", str(work), cwd=tmp_path)
    local = create_action(
        "Run the billing migrations before the tests",
        rule="In this repo, run `make migrate` before `pytest`.",
        key_insight="The test database needs the latest migrations.",
    )
    everywhere = create_action(
        "Prefer uv over pip",
        rule="Use uv instead of pip in every repo.",
        key_insight="uv resolves and installs faster and locks by default.",
    )
    stub = stub_command(tmp_path, f"emit({{'actions': [{local!r}, {everywhere!r}]}})")
    cfg = make_config(repo, REFLECT_DRAIN_CMD=str(stub))
    path = copy_transcript(tmp_path, "claude/correction-0.jsonl")
    Queue(cfg.state_dir, clock=Clock()).add(str(path), "stop", path.stem, cwd=str(work / "src"))
    [row] = run_drain(cfg, clock=Clock()).rows
    assert row["outcome"] == "ok", row
    fronts = {}
    for nid in row["notes"]:
        note = parse_note((repo / "documents" / f"{nid}.md").read_bytes())
        fronts[note.title] = note.frontmatter
    assert fronts["Run the billing migrations before the tests"]["scope"] == "project"
    assert fronts["Prefer uv over pip"]["scope"] == "global"
    assert {f["project"] for f in fronts.values()} == {"billing-api"}


def test_a_drain_entry_without_a_cwd_is_not_made_global(tmp_path: Path, repo: Path):
    action = create_action("Pin the runner image", rule="Pin ubuntu-24.04 in CI.")
    stub = stub_command(tmp_path, f"emit({{'actions': [{action!r}]}})")
    cfg = make_config(repo, REFLECT_DRAIN_CMD=str(stub))
    path = copy_transcript(tmp_path, "claude/correction-0.jsonl")
    Queue(cfg.state_dir, clock=Clock()).add(str(path), "stop", path.stem)
    [row] = run_drain(cfg, clock=Clock()).rows
    [nid] = row["notes"]
    front = parse_note((repo / "documents" / f"{nid}.md").read_bytes()).frontmatter
    assert "scope" not in front and "project" not in front


# --------------------------------------------------------------------------- capture


def test_hook_notes_carry_the_project_of_the_session(kb, transcripts):
    for payload in load_events("correction.json", transcripts):
        name = json.loads(payload)["hook_event_name"]
        proc = run_hook(name, payload)
        assert proc.returncode == 0, proc.stderr
    names = git("ls-tree", "-r", "--name-only", "main", "--", "documents", cwd=kb).split()
    [path] = [n for n in names if n.endswith(".md")]
    front = parse_note(git("show", f"main:{path}", cwd=kb).encode()).frontmatter
    assert front["project"] == "pip-app"  # the payload's cwd, /home/dev/src/pip-app
    assert front["scope"] == "project"
    assert (state_dir(kb) / "capture").exists()


# --------------------------------------------------------------------------- recall


@pytest.fixture
def rg(cli, tmp_path):
    kb = tmp_path / "kb-recall"
    git("init", "-q", "-b", "main", str(kb), cwd=tmp_path)

    def invoke(*args: str):
        return cli("--kb", str(kb), *args)

    return invoke


def _note(tmp_path: Path, title: str, **front: str) -> Path:
    extra = "".join(f"{k}: {v}\n" for k, v in front.items())
    path = tmp_path / f"{abs(hash(title))}.md"
    path.write_text(
        f"---\ntitle: {title}\ncreated: 2026-03-04\nconfidence: high\n{extra}---\n{title}.\n"
    )
    return path


def test_recall_project_serves_its_notes_and_global_ones(rg, tmp_path):
    for title, front in (
        ("Run billing migrations before tests", {"project": "billing-api", "scope": "project"}),
        ("Run web fixtures before tests", {"project": "web-app", "scope": "project"}),
        ("Run uv sync before tests", {"project": "web-app", "scope": "global"}),
        ("Run the linter before tests", {}),
    ):
        assert rg("add", str(_note(tmp_path, title, **front))).code == 0
    res = rg("--json", "recall", "--project", "billing-api", "--limit", "10")
    assert res.code == 0, res
    titles = {n["title"] for n in res.json()["notes"]}
    assert titles == {
        "Run billing migrations before tests",
        "Run uv sync before tests",
        "Run the linter before tests",
    }
    web = {n["title"] for n in rg("--json", "recall", "--project", "web-app").json()["notes"]}
    assert "Run billing migrations before tests" not in web
    assert "Run web fixtures before tests" in web
    everywhere = rg("--json", "recall", "--project", "billing-api", "--global", "--limit", "10")
    assert len(everywhere.json()["notes"]) == 4
