"""``reflect-git merge-driver`` as git and people run it, its registration (init, an existing
clone, team clone, hooks install), and ``check`` where the driver did not run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from reflectgit.notes.note import parse_note
from tests.conftest import git


def _config(repo: Path, key: str) -> str:
    return git("config", "--get", key, cwd=repo, check=False).strip()


def _team(tmp_path: Path, cli: Any) -> tuple[Path, Path, str]:
    """A KB made by ``init`` with one note, pushed to a bare repo; two clones, ``init`` run in
    the second as a teammate would in a fresh clone."""
    origin = tmp_path / "team.git"
    git("init", "-q", "--bare", "-b", "main", str(origin), cwd=tmp_path)
    alice = tmp_path / "alice"
    assert cli("init", str(alice), "--no-pre-commit").code == 0
    added = cli("--kb", str(alice), "--json", "add", "--title", "Pool timeout on cold start",
                "--confidence", "medium", "--tag", "postgres", "--insight", "Warm the pool.")  # fmt: skip
    assert added.code == 0, added
    ident = added.json()["id"]
    git("remote", "add", "origin", str(origin), cwd=alice)
    git("push", "-q", "-u", "origin", "main", cwd=alice)
    bob = tmp_path / "bob"
    git("clone", "-q", str(origin), str(bob), cwd=tmp_path)
    assert _config(bob, "merge.reflect-git.driver") == ""  # a clone has no git config of ours
    assert cli("init", str(bob), "--no-pre-commit").code == 0
    return alice, bob, ident


def _env_without_reflect_git() -> dict[str, str]:
    """The environment with a PATH that holds git and sh, and no reflect-git."""
    folders = {os.path.dirname(shutil.which(name) or "") for name in ("git", "sh")}
    path = os.pathsep.join(sorted(f for f in folders if f))
    assert shutil.which("reflect-git", path=path) is None
    return {**os.environ, "PATH": path}


def test_two_updates_of_one_note_pull_cleanly_with_a_path_lacking_reflect_git(
    tmp_path: Path, cli: Any
) -> None:
    alice, bob, ident = _team(tmp_path, cli)
    assert _config(bob, "merge.reflect-git.driver").endswith(
        " -m reflectgit.hooks.merge %O %A %B %L %P"
    )
    assert cli("--kb", str(bob), "update", ident, "--set", "confidence=high").code == 0
    git("push", "-q", "origin", "main", cwd=bob)
    assert cli("--kb", str(alice), "update", ident, "--set", "tags=[postgres, pooling]").code == 0
    pull = subprocess.run(
        ["git", "pull", "--no-rebase", "--no-edit"],
        cwd=alice,
        env=_env_without_reflect_git(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert pull.returncode == 0, pull.stderr
    front = parse_note((alice / "documents" / f"{ident}.md").read_bytes()).frontmatter
    assert front["confidence"] == "high" and front["tags"] == ["postgres", "pooling"]
    assert git("status", "--porcelain", cwd=alice) == ""
    assert cli("check", "--kb", str(alice)).code == 0


def test_without_the_driver_the_same_pull_conflicts(tmp_path: Path, cli: Any) -> None:
    """The test above can fail: git's own line merge conflicts on the two `updated:` lines."""
    alice, bob, ident = _team(tmp_path, cli)
    assert cli("--kb", str(bob), "update", ident, "--set", "confidence=high").code == 0
    git("push", "-q", "origin", "main", cwd=bob)
    git("config", "--remove-section", "merge.reflect-git", cwd=alice)  # a KB without it
    assert cli("--kb", str(alice), "update", ident, "--set", "confidence=low").code == 0
    pull = subprocess.run(
        ["git", "pull", "--no-rebase", "--no-edit"], cwd=alice, capture_output=True, text=True
    )
    assert pull.returncode == 1
    assert f"CONFLICT (content): Merge conflict in documents/{ident}.md" in pull.stdout
    check = cli("check", "--kb", str(alice))
    assert check.code == 1
    assert f"documents/{ident}.md:" in check.out and "unresolved merge conflict" in check.out


def test_the_same_field_changed_on_both_sides_conflicts_in_that_field(
    tmp_path: Path, cli: Any
) -> None:
    alice, bob, ident = _team(tmp_path, cli)
    assert cli("--kb", str(bob), "update", ident, "--set", "confidence=high").code == 0
    git("push", "-q", "origin", "main", cwd=bob)
    assert cli("--kb", str(alice), "update", ident, "--set", "confidence=low",
               "--set", "tags=[postgres, pooling]").code == 0  # fmt: skip
    pull = subprocess.run(
        ["git", "pull", "--no-rebase", "--no-edit"], cwd=alice, capture_output=True, text=True
    )
    assert pull.returncode == 1
    assert f"documents/{ident}.md: both sides changed confidence" in pull.stderr
    text = (alice / "documents" / f"{ident}.md").read_text()
    assert "<<<<<<< ours\nconfidence: low\n=======\nconfidence: high\n>>>>>>> theirs\n" in text
    assert text.count("<<<<<<<") == 1 and "- pooling" in text  # the rest merged
    check = cli("check", "--kb", str(alice))
    assert check.code == 1 and "unresolved merge conflict" in check.out


def test_merge_driver_by_hand(tmp_path: Path, cli: Any) -> None:
    base = b"---\ntitle: a\ncreated: 2026-01-01\nconfidence: low\ntags: [x]\n---\nbody\n"
    (tmp_path / "o").write_bytes(base)
    (tmp_path / "a").write_bytes(base.replace(b"[x]", b"[x, y]"))
    (tmp_path / "b").write_bytes(base.replace(b"low", b"high"))
    args = [str(tmp_path / n) for n in ("o", "a", "b")]
    res = cli("--json", "merge-driver", *args, "7", "documents/a.md")
    assert res.code == 0, res
    assert res.json()["clean"] is True
    assert (tmp_path / "a").read_bytes() == base.replace(b"[x]", b"[x, y]").replace(b"low", b"high")
    (tmp_path / "b").write_bytes(base.replace(b"low", b"medium"))
    (tmp_path / "a").write_bytes(base.replace(b"low", b"high"))
    res = cli("merge-driver", *args, "7", "documents/a.md")
    assert res.code == 1 and "both sides changed confidence" in res.err
    helped = cli("merge-driver", "--help")
    assert helped.code == 0 and "%O" in helped.out


def test_check_reports_duplicate_ids_with_file_and_line(tmp_path: Path, cli: Any) -> None:
    kb = tmp_path / "kb"
    assert cli("init", str(kb), "--no-pre-commit").code == 0
    note = "---\nid: same-id\ntitle: t\ncreated: 2026-01-01\nconfidence: low\n---\nb\n"
    for name in ("one", "two"):
        (kb / "documents" / f"{name}.md").write_text(note)
    res = cli("check", "--kb", str(kb))
    assert res.code == 1
    assert "documents/two.md:2:5: id: 'same-id' is already used by documents/one.md" in res.out


def test_init_adds_the_attributes_to_an_existing_kb_once(tmp_path: Path, cli: Any) -> None:
    kb = tmp_path / "kb"
    assert cli("init", str(kb), "--no-pre-commit").code == 0
    git("rm", "-q", ".gitattributes", cwd=kb)
    (kb / ".gitattributes").write_text("*.png binary\n")
    git("add", ".gitattributes", cwd=kb)
    git("commit", "-qm", "an older KB", cwd=kb)
    git("config", "--remove-section", "merge.reflect-git", cwd=kb)
    doc = cli("--json", "init", str(kb), "--no-pre-commit").json()
    assert doc["written"] == [".gitattributes"] and doc["merge_driver"] == "set"
    text = (kb / ".gitattributes").read_text()
    assert text.startswith("*.png binary\n") and "documents/*.md merge=reflect-git\n" in text
    again = cli("--json", "init", str(kb), "--no-pre-commit").json()
    assert again["commit"] is None and again["merge_driver"] == "unchanged"
    attr = git("check-attr", "merge", "documents/x.md", "documents/x.entities.yaml", cwd=kb)
    assert attr.count(": merge: reflect-git") == 2


def test_hooks_install_sets_the_driver_and_uninstall_removes_it(
    tmp_path: Path, cli: Any, repo: Path
) -> None:
    res = cli("--json", "hooks", "install", str(repo))
    assert res.code == 0, res
    assert json.loads(res.out)["merge_driver"]["action"] == "set"
    command = _config(repo, "merge.reflect-git.driver")
    assert command.split()[0].startswith("/") and " -m reflectgit.hooks.merge " in command
    again = cli("hooks", "install", str(repo))
    assert "merge driver already set" in again.out
    assert cli("hooks", "install", str(repo), "--uninstall").code == 0
    assert _config(repo, "merge.reflect-git.driver") == ""


def test_team_clone_and_team_sync_set_the_driver(tmp_path: Path, cli: Any) -> None:
    alice, _bob, _ident = _team(tmp_path, cli)
    clone = tmp_path / "team-clone"
    kb = tmp_path / "personal"
    assert cli("init", str(kb), "--no-pre-commit").code == 0
    res = cli("--kb", str(kb), "team", "clone", str(tmp_path / "team.git"), "--path", str(clone))
    assert res.code == 0, res
    assert _config(clone, "merge.reflect-git.driver") == _config(alice, "merge.reflect-git.driver")
    git("config", "--remove-section", "merge.reflect-git", cwd=clone)
    assert cli("--kb", str(kb), "team", "sync").code == 0
    assert _config(clone, "merge.reflect-git.driver") == _config(alice, "merge.reflect-git.driver")


def test_the_pre_commit_check_hook_refuses_a_staged_note_with_markers(
    tmp_path: Path, cli: Any, capsys: Any
) -> None:
    from reflectgit.hooks import check as check_hook

    kb = tmp_path / "kb"
    assert cli("init", str(kb), "--no-pre-commit").code == 0
    note = (
        "---\ntitle: t\ncreated: 2026-01-01\n<<<<<<< ours\nconfidence: low\n=======\n"
        "confidence: high\n>>>>>>> theirs\n---\nbody\n"
    )
    (kb / "documents" / "n.md").write_text(note)
    git("add", "documents/n.md", cwd=kb)
    capsys.readouterr()
    assert check_hook.main(["--kb", str(kb)]) == 1
    out = capsys.readouterr().out
    assert "documents/n.md:4:1: unresolved merge conflict (git's markers, lines 4 to 8)" in out
    assert "invalid YAML" not in out  # the markers are the problem to name, once


def test_status_says_whether_git_merges_notes_field_by_field(tmp_path: Path, cli: Any) -> None:
    """A fresh clone has the team's .gitattributes but none of our git config: status says
    the driver is not registered; after `init` it is; without the attributes it is not active."""
    origin = tmp_path / "team.git"
    git("init", "-q", "--bare", "-b", "main", str(origin), cwd=tmp_path)
    kb = tmp_path / "kb"
    assert cli("init", str(kb), "--no-pre-commit").code == 0
    git("push", "-q", str(origin), "main", cwd=kb)
    done = cli("--kb", str(kb), "--json", "status").json()["merge_driver"]
    assert done["registered"] and done["current"] and done["attributes"] and done["active"]
    text = cli("--kb", str(kb), "status").out
    assert "merge:    driver registered, .gitattributes names it" in text

    clone = tmp_path / "clone"
    git("clone", "-q", str(origin), str(clone), cwd=tmp_path)
    fresh = cli("--kb", str(clone), "--json", "status").json()["merge_driver"]
    assert not fresh["registered"] and fresh["attributes"] and not fresh["active"]
    assert fresh["command"] is None and fresh["missing_attributes"] == []
    text = cli("--kb", str(clone), "status").out
    assert "driver not registered" in text and "line by line" in text

    (kb / ".gitattributes").write_text("*.png binary\n")  # the lines gone (uncommitted)
    gone = cli("--kb", str(kb), "--json", "status").json()["merge_driver"]
    assert gone["registered"] and not gone["attributes"] and not gone["active"]
    assert "documents/*.md merge=reflect-git" in gone["missing_attributes"]
    assert ".gitattributes lacks" in cli("--kb", str(kb), "status").out
