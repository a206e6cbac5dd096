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


def loaded(entry: str, *argv: str, stdin: str = "") -> tuple[set[str], str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, entry, *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
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


# What the pre-commit hook must not import for a valid plain note (issue 17, "validate, third
# pass"): PyYAML's package, the schema module that explains problems, jsonschema, and the
# standard modules the quick path no longer needs. The note and sidecar that fail go on to the
# full path (PyYAML, jsonschema) as before.
NOT_FOR_A_VALID_NOTE = (
    *NEVER,
    "yaml",
    "jsonschema",
    "reflectgit.notes.schema",
    "reflectgit.notes.note",
    "decimal",
)
# ... and, with no site-packages at all (``python -S``: the editable install's import finder,
# which imports pathlib itself, is not there either), nor these.
NOT_IN_THE_BARE_HOOK = (*NOT_FOR_A_VALID_NOTE, "typing", "pathlib", "json", "datetime")


def test_the_validate_hook_reads_a_valid_note_without_yaml_or_the_schema(tmp_path: Path) -> None:
    note = tmp_path / "one.md"
    note.write_text(VALID_NOTE)
    for entry, argv in (
        ("reflect-git-validate", [str(note)]),
        ("reflect-git", ["validate", str(note)]),
    ):
        modules, out = loaded(entry, *argv)
        assert "reflectgit.notes.quickcheck" in modules, entry
        assert out == ""
        assert not modules & set(NOT_FOR_A_VALID_NOTE), (entry, modules & set(NOT_FOR_A_VALID_NOTE))
    # a bare interpreter: only the standard library and this checkout
    proc = subprocess.run(
        [sys.executable, "-S", "-c", PROBE, "reflect-git-validate", str(note)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    _, _, listed = proc.stderr.partition("\n--modules--\n")
    modules = set(listed.split())
    assert "reflectgit.notes.quickcheck" in modules, proc.stderr
    assert not modules & set(NOT_IN_THE_BARE_HOOK), modules & set(NOT_IN_THE_BARE_HOOK)
    # an invalid note goes on to the full path, which explains it
    bad = tmp_path / "bad.md"
    bad.write_text(VALID_NOTE.replace("confidence: high", "confidence: sure"))
    modules, out = loaded("reflect-git-validate", str(bad))
    assert {"yaml", "jsonschema", "reflectgit.notes.schema"} <= modules
    assert "confidence" in out
