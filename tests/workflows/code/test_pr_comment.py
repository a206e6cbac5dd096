"""``pr-notes --comment N`` against the loopback GitHub, GitLab and Gitea servers: one comment
per pull request, found again by its hidden marker and edited on every push; no comment when
nothing is relevant (and the old one deleted); a duplicate a race left is removed; someone
else's comments are never touched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reflectgit.workflows.code.pr_comment import MARKER
from tests.conftest import git, run_cli_proc
from tests.support.coderepo import POOL_PY, CodeRepo
from tests.support.forge_server import TOKEN, make_forge

__all__ = ["make_forge"]
TOKENS = {"github": "GITHUB_TOKEN", "gitlab": "GITLAB_TOKEN", "gitea": "GITEA_TOKEN"}


def _world(tmp_path: Path, kind: str, make_forge: Any) -> tuple[CodeRepo, Path, Any, Any, str]:
    code = CodeRepo(tmp_path / "billing-api")
    code.write("src/pool.py", POOL_PY).write("README.md", "# billing\n").commit("first")
    kb = tmp_path / "kb"
    run_cli_proc("init", str(kb), "-q")
    args = ["--kb", str(kb), "--json", "add", "--title", "Prefill before serving", "--insight",
            "cold pools time out", "--category", "perf", "--confidence", "high",
            "--anchor", "src/pool.py:prefill"]  # fmt: skip
    nid = json.loads(run_cli_proc(*args, cwd=code.path).stdout)["id"]
    code.branch("feature")
    code.write("src/pool.py", POOL_PY.replace("range(size)", "range(size + 1)")).commit("one more")
    bare = tmp_path / "billing-api.git"
    git("clone", "-q", "--bare", str(code.path), str(bare), cwd=tmp_path)
    forge = make_forge(kind, {"acme/billing-api": bare})
    pr = forge.add_pr("acme/billing-api", "feature", "main")
    return code, kb, forge, pr, nid


def _run(code: CodeRepo, kb: Path, forge: Any, kind: str, number: int) -> Any:
    return run_cli_proc(
        "--kb", str(kb), "--json", "pr-notes", "--repo", str(code.path), "--base", "main",
        "--comment", str(number), "--forge", kind, "--forge-repo", "acme/billing-api",
        "--api-url", forge.api_url,
        env={TOKENS[kind]: TOKEN},
    )  # fmt: skip


@pytest.mark.parametrize("kind", ["github", "gitlab", "gitea"])
def test_one_comment_created_updated_and_deleted_per_pull_request(
    tmp_path: Path, kind: str, make_forge: Any
) -> None:
    code, kb, forge, pr, nid = _world(tmp_path, kind, make_forge)
    pr.comment(forge, "LGTM, one question below")  # a person's comment
    pr.comment(forge, "added 1 commit", system=True)  # GitLab's own notes are no comments

    first = _run(code, kb, forge, kind, pr.number)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["comment"]["action"] == "created"
    ours = [c for c in pr.comments if MARKER in c]
    assert len(ours) == 1 and nid in ours[0] and "which this change modifies" in ours[0]

    again = _run(code, kb, forge, kind, pr.number)  # a push that changes nothing relevant
    assert json.loads(again.stdout)["comment"]["action"] == "unchanged"

    # a push that adds a second relevant note: the same comment, edited
    args = ["--kb", str(kb), "add", "--title", "Readme is generated", "--insight", "edit the "
            "template", "--category", "docs", "--confidence", "high", "--anchor", "README.md"]  # fmt: skip
    assert run_cli_proc(*args, cwd=code.path).returncode == 0
    code.write("README.md", "# billing api\n").commit("readme")
    updated = _run(code, kb, forge, kind, pr.number)
    assert json.loads(updated.stdout)["comment"]["action"] == "updated"
    ours = [c for c in pr.comments if MARKER in c]
    assert len(ours) == 1 and "README.md" in ours[0]

    # the branch stops touching anything a note is anchored to: the comment goes
    git("checkout", "-q", "main", "--", "src/pool.py", "README.md", cwd=code.path)
    code.commit("revert both")
    gone = _run(code, kb, forge, kind, pr.number)
    comment_id = json.loads(updated.stdout)["comment"]["comment"]
    assert json.loads(gone.stdout) == {
        "notes": [],
        "comment": {
            "action": "deleted",
            "number": pr.number,
            "comment": comment_id,
            "duplicates_deleted": 0,
        },
    }
    assert pr.comments == ["LGTM, one question below"]  # the person's comment untouched


@pytest.mark.parametrize("kind", ["github", "gitlab", "gitea"])
def test_nothing_relevant_posts_nothing(tmp_path: Path, kind: str, make_forge: Any) -> None:
    code, kb, forge, pr, _ = _world(tmp_path, kind, make_forge)
    git("checkout", "-q", "main", "--", "src/pool.py", cwd=code.path)
    code.write("docs.txt", "deploy notes\n").commit("docs only")
    done = _run(code, kb, forge, kind, pr.number)
    assert done.returncode == 0
    assert json.loads(done.stdout)["comment"]["action"] == "none"
    assert pr.comments == []
    assert not [r for r in forge.requests if r[0] in ("POST", "PATCH", "PUT", "DELETE")]


def test_a_duplicate_left_by_a_race_is_deleted_and_one_remains(
    tmp_path: Path, make_forge: Any
) -> None:
    code, kb, forge, pr, _ = _world(tmp_path, "github", make_forge)
    pr.comment(forge, f"{MARKER}\nold list")
    pr.comment(forge, f"{MARKER}\nolder list from a parallel job")
    done = _run(code, kb, forge, "github", pr.number)
    outcome = json.loads(done.stdout)["comment"]
    assert (outcome["action"], outcome["duplicates_deleted"]) == ("updated", 1)
    assert len([c for c in pr.comments if MARKER in c]) == 1


def test_many_comments_are_read_page_by_page(tmp_path: Path, make_forge: Any) -> None:
    code, kb, forge, pr, _ = _world(tmp_path, "gitea", make_forge)
    for i in range(130):
        pr.comment(forge, f"comment {i}")
    pr.comment(forge, f"{MARKER}\nours, on the second page")
    done = _run(code, kb, forge, "gitea", pr.number)
    assert json.loads(done.stdout)["comment"]["action"] == "updated"
    assert len([c for c in pr.comments if MARKER in c]) == 1


def test_no_token_is_a_clear_error(tmp_path: Path, make_forge: Any) -> None:
    code, kb, forge, pr, _ = _world(tmp_path, "gitlab", make_forge)
    done = run_cli_proc(
        "--kb", str(kb), "pr-notes", "--repo", str(code.path), "--base", "main", "--comment",
        str(pr.number), "--forge", "gitlab", "--forge-repo", "acme/billing-api",
        "--api-url", forge.api_url,
    )  # fmt: skip
    assert done.returncode == 1 and "no gitlab token" in done.stderr
