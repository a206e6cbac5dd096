"""What the hot entry points import: each runs as a real process, then lists ``sys.modules``.

The hooks run on every agent tool call and every commit, so their start-up is what they cost
(bench/startup.py and bench/policy.py time it; no test here asserts a time). What they must
not import is checked here, so a top-level import added later shows up as a failing test
rather than a slower benchmark: ``dataclasses`` (it imports ``inspect``, ``ast``, ``dis`` and
``tokenize``), typer, dulwich, and for the agent hooks YAML and the note schema.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git
from tests.fixtures_capture import kb_fixture  # noqa: F401  (the kb fixture)
from tests.fixtures_validation import VALID_NOTE

# Runs an entry point's main with argv and stdin as its console script would, then prints the
# names of the modules loaded, one a line, on stderr after a marker.
PROBE = """
import sys
entry, argv = sys.argv[1], sys.argv[2:]
sys.argv = [entry, *argv]
if entry == "reflect-git":
    from reflectgit.__main__ import main
else:
    from reflectgit.hooks.validate import main
try:
    main()
finally:
    sys.stderr.write("\\n--modules--\\n" + "\\n".join(sorted(sys.modules)) + "\\n")
"""

NEVER = ("dataclasses", "inspect", "typer", "click", "dulwich", "argparse")
NOT_IN_AGENT_HOOKS = (*NEVER, "yaml", "reflectgit.notes.schema", "reflectgit.notes.note")

RULE_NOTE = """---
id: no-force-push
title: Never force-push
created: 2026-11-30
confidence: high
enforce:
  deny:
    - "Bash(git push --force:*)"
---
Force pushes rewrote the team's history twice.
"""


def loaded(
    entry: str, *argv: str, stdin: str = "", cwd: Path | None = None
) -> tuple[set[str], str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, entry, *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )
    _, _, modules = proc.stderr.partition("\n--modules--\n")
    assert modules, proc.stderr
    return set(modules.split()), proc.stdout


def _payload(kb: Path, tool: str, tool_input: dict[str, str], event: str) -> str:
    return json.dumps(
        {
            "session_id": "s-imports",
            "hook_event_name": event,
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_response": {"type": "text", "file": {"content": "hello"}},
            "cwd": str(kb),
            "transcript_path": str(kb / "none.jsonl"),
        }
    )


@pytest.fixture
def ruled_kb(kb: Path) -> Path:
    (kb / "documents" / "no-force-push.md").write_text(RULE_NOTE)
    git("add", "documents", cwd=kb)
    git("commit", "-qm", "a rule", cwd=kb)
    return kb


def test_the_agent_hooks_import_no_dataclasses_yaml_or_schema(ruled_kb: Path) -> None:
    kb = ruled_kb
    cases = {
        "PostToolUse": _payload(kb, "Read", {"file_path": "f.txt"}, "PostToolUse"),
        "PreToolUse quiet": _payload(kb, "Bash", {"command": "git status"}, "PreToolUse"),
        "PreToolUse deny": _payload(kb, "Bash", {"command": "git push --force"}, "PreToolUse"),
    }
    # the first call after the KB changed compiles the rules (git objects, YAML): once
    modules, _ = loaded("reflect-git", "hook", "PreToolUse", stdin=cases["PreToolUse quiet"])
    assert "reflectgit.notes.note" in modules
    for name, payload in cases.items():
        modules, out = loaded("reflect-git", "hook", name.split()[0], stdin=payload)
        assert "reflectgit.hooks.agent" in modules, name  # the probe ran the hook
        assert not modules & set(NOT_IN_AGENT_HOOKS), (name, modules & set(NOT_IN_AGENT_HOOKS))
        if name == "PreToolUse deny":
            assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
            # the breadcrumb is written without the capture workflow
            assert "reflectgit.workflows.capture.commits" not in modules
            log = (kb / ".git" / "reflect-git" / "logs" / "hooks.log").read_text()
            assert "policy:deny" in log


def test_the_validate_entry_points_import_no_dataclasses_or_argparse(tmp_path: Path) -> None:
    note = tmp_path / "one.md"
    note.write_text(VALID_NOTE)
    for entry, argv in (
        ("reflect-git-validate", [str(note)]),
        ("reflect-git", ["validate", str(note)]),
    ):
        modules, _ = loaded(entry, *argv)
        assert "reflectgit.workflows.validation" in modules, entry
        assert not modules & set(NEVER), (entry, modules & set(NEVER))
    # an unusual argument still reaches argparse, which explains it
    modules, _ = loaded("reflect-git-validate", "--help")
    assert "argparse" in modules


def test_search_and_recall_import_no_dataclasses_or_typer(ruled_kb: Path) -> None:
    """Against an index that is up to date (the common case: every search and recall after
    the first since a commit). A refresh after a commit still opens the store and its git
    modules (docs/performance.md lists them)."""
    kb = ruled_kb
    loaded("reflect-git", "--kb", str(kb), "reindex")  # the build itself may read more
    for argv, marker in (
        (["--kb", str(kb), "search", "force"], "reflectgit.workflows.search.index"),
        (["--kb", str(kb), "recall", "--format", "claude"], "reflectgit.workflows.recall"),
        (["--kb", str(kb), "recall"], "reflectgit.workflows.recall"),
    ):
        modules, out = loaded("reflect-git", *argv)
        assert marker in modules, argv  # the probe ran the command
        assert out.strip(), argv
        assert not modules & set(NEVER), (argv, modules & set(NEVER))


def test_recall_finds_the_project_from_the_files_and_hashes_without_openssl(
    ruled_kb: Path, tmp_path: Path
) -> None:
    """A SessionStart recall outside a repository starts no git (no ``subprocess``), and no
    recall or search loads OpenSSL (``_hashlib``) or ``mmap`` for a KB with no packs; inside
    a repository it still asks git for the modified and recent files, not for the top and
    branch (``git.repo_info`` reads them)."""
    kb = ruled_kb
    loaded("reflect-git", "--kb", str(kb), "reindex")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    heavy = {"_hashlib", "mmap"}
    modules, out = loaded(
        "reflect-git", "--kb", str(kb), "recall", "--format", "claude", cwd=outside
    )
    assert "reflectgit.workflows.recall" in modules and "elsewhere" in out
    assert not modules & {"subprocess", *heavy}, modules & {"subprocess", *heavy}
    modules, out = loaded("reflect-git", "--kb", str(kb), "recall", "--format", "claude", cwd=kb)
    assert f"{kb.name} (branch main)" in out  # the top and the branch, read from the files
    assert "subprocess" in modules and not modules & heavy  # git status and git log still run
    modules, out = loaded("reflect-git", "--kb", str(kb), "search", "force", cwd=outside)
    assert "no-force-push" in out and not modules & heavy, modules & heavy


def test_a_search_right_after_a_commit_refreshes_without_dataclasses_or_git(
    ruled_kb: Path, tmp_path: Path
) -> None:
    """The first search after a commit brings the index up to HEAD through the store: with
    the kept folder trees it reads the new note's objects itself, so it imports neither
    ``dataclasses`` nor ``subprocess`` (no git runs) nor dulwich."""
    kb = ruled_kb
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    loaded("reflect-git", "--kb", str(kb), "reindex")
    (kb / "documents" / "fresh-one.md").write_text(
        RULE_NOTE.replace("no-force-push", "fresh-one").replace("Never force-push", "Quokka")
    )
    git("add", "documents", cwd=kb)
    git("commit", "-qm", "one more", cwd=kb)
    modules, out = loaded("reflect-git", "--kb", str(kb), "search", "quokka", cwd=outside)
    assert "fresh-one" in out  # the refresh ran and indexed the new note
    assert "reflectgit.git.store" in modules
    unwanted = {*NEVER, "subprocess", "_hashlib"}
    assert not modules & unwanted, modules & unwanted
