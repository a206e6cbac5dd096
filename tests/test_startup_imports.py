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

from reflectgit.notes.dates import format_epoch, parse_instant
from tests.conftest import REPO_ROOT, git
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
    # the rules are compiled once (git objects, YAML); REFLECT_GIT_HOOK_SYNC=1 in the hook,
    # as in tests: otherwise a background process does it
    with pytest.MonkeyPatch.context() as env:
        env.setenv("REFLECT_GIT_HOOK_SYNC", "1")
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


# What the rules hook (``hook PreToolUse``, every tool call) no longer imports at all, in a
# process with nothing preloaded: ``python -c pass`` loads none of them either, so each one
# would be paid on every call (docs/performance.md, "The hook processes, third pass").
NOT_IN_THE_RULES_HOOK = (
    *NOT_IN_AGENT_HOOKS,
    "pathlib", "typing", "re", "enum", "functools", "collections", "contextlib", "shlex",
    "json", "json.decoder", "json.scanner", "json.encoder", "fnmatch", "urllib.parse",
    "datetime", "reflectgit.git.objects",
)  # fmt: skip
# A deny also writes its breadcrumb (the clock and the secret scanner: notes.dates, privacy),
# with ``time`` alone for its stamp, and a line no secret rule could fire on is not scanned:
# nothing more than the quiet path (docs/performance.md, "The hook processes, fourth pass").
NOT_IN_A_DENY = (*NOT_IN_THE_RULES_HOOK, "reflectgit.notes.secrets")

# The installed launcher itself (scripts/reflect-git, what pip puts in bin/), in a process
# without ``site`` (an editable install's finder imports pathlib and re itself): the package
# and the site-packages come from PYTHONPATH instead.
SCRIPT_PROBE = """
import sys
script = sys.argv[1]
sys.argv = [script, *sys.argv[2:]]
try:
    with open(script, encoding="utf-8") as fh:
        code = compile(fh.read(), script, "exec")
    exec(code, {"__name__": "__main__"})
finally:
    sys.stderr.write("\\n--modules--\\n" + "\\n".join(sorted(sys.modules)) + "\\n")
"""


def launched(
    script: str, *argv: str, stdin: str = "", env: dict | None = None
) -> tuple[set[str], str]:
    import os

    path = os.pathsep.join([str(REPO_ROOT), *(p for p in sys.path if "-packages" in p)])
    proc = subprocess.run(
        [sys.executable, "-S", "-c", SCRIPT_PROBE, str(REPO_ROOT / "scripts" / script), *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {}), "PYTHONPATH": path},
    )
    _, _, modules = proc.stderr.partition("\n--modules--\n")
    assert modules, proc.stderr
    return set(modules.split()), proc.stdout


def _age(folder: Path) -> None:
    """Every file an hour old: past git/headstamp.py's racy window."""
    import os

    old = os.stat(folder).st_mtime - 3600
    for path in [folder, *folder.rglob("*")]:
        os.utime(path, (old, old))


def test_the_rules_hook_imports_no_pathlib_typing_re_or_json(ruled_kb: Path) -> None:
    kb = ruled_kb
    env = {"REFLECT_GIT_KB": str(kb)}
    quiet = _payload(kb, "Bash", {"command": "git status"}, "PreToolUse")
    deny = _payload(kb, "Bash", {"command": "git push --force origin"}, "PreToolUse")
    sync = {"REFLECT_GIT_HOOK_SYNC": "1"}  # the hook compiles (else a background process does)
    launched("reflect-git", "hook", "PreToolUse", stdin=quiet, env=env | sync)
    _age(kb / ".git")
    launched("reflect-git", "hook", "PreToolUse", stdin=quiet, env=env)  # reads the commit once
    for name, extra in (("quiet", {}), ("off", {"REFLECT_POLICY": "0"})):
        modules, out = launched("reflect-git", "hook", "PreToolUse", stdin=quiet, env=env | extra)
        assert "reflectgit.hooks.agent" in modules and out == "", name
        if name == "quiet":
            assert "reflectgit.workflows.policy" in modules  # the rules were checked
        assert not modules & set(NOT_IN_THE_RULES_HOOK), (
            name,
            modules & set(NOT_IN_THE_RULES_HOOK),
        )
    modules, out = launched("reflect-git", "hook", "PreToolUse", stdin=deny, env=env)
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert not modules & set(NOT_IN_A_DENY), modules & set(NOT_IN_A_DENY)
    last = (kb / ".git" / "reflect-git" / "logs" / "hooks.log").read_text().splitlines()[-1]
    stamp, _, rest = last.partition(" ")  # the breadcrumb was written, stamped as before
    assert rest.startswith("PreToolUse - policy:deny Bash"), last
    assert stamp == format_epoch(parse_instant(stamp).timestamp()), last  # type: ignore[union-attr]
    # HEAD moves: the stamp no longer vouches, the commit is read and the new rule acts
    (kb / "documents" / "no-rebase.md").write_text(
        RULE_NOTE.replace("no-force-push", "no-rebase").replace("git push --force", "git rebase")
    )
    git("add", "documents", cwd=kb)
    git("commit", "-qm", "another rule", cwd=kb)
    _age(kb / ".git")
    rebase = _payload(kb, "Bash", {"command": "git rebase main"}, "PreToolUse")
    modules, out = launched("reflect-git", "hook", "PreToolUse", stdin=rebase, env=env | sync)
    assert "no-rebase" in json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]
    modules, out = launched("reflect-git", "hook", "PreToolUse", stdin=quiet, env=env)
    assert out == "" and not modules & set(NOT_IN_THE_RULES_HOOK)


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
    started = {"reflectgit.git.run", "subprocess"}  # git runs through git.run (posix_spawn)
    assert not modules & {*started, *heavy}, modules & {*started, *heavy}
    modules, out = loaded("reflect-git", "--kb", str(kb), "recall", "--format", "claude", cwd=kb)
    assert f"{kb.name} (branch main)" in out  # the top and the branch, read from the files
    assert "reflectgit.git.run" in modules and not modules & heavy  # git status and git log run
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


# ``hook PostToolUse`` (every tool call's capture), in a process without ``site``: the per-session
# state is kept as strings and the capture settings (whose path defaults need ``pathlib``) are
# built when first used; the payload's text gets past the secret sieve unscanned
# (docs/performance.md, "The hook processes, fourth pass").
NOT_IN_A_CAPTURE = (
    *NOT_IN_AGENT_HOOKS,
    "pathlib",
    "typing",
    "urllib.parse",
    "ipaddress",
    "datetime",
    "shlex",
    "reflectgit.notes.secrets",
    "reflectgit.notes.testruns",
    "contextlib",
)  # fmt: skip  (the event log is written with the standard json, and json imports re)


def test_the_capture_hook_imports_no_pathlib_typing_or_the_scanner(ruled_kb: Path) -> None:
    kb = ruled_kb
    env = {"REFLECT_GIT_KB": str(kb)}
    read = _payload(kb, "Read", {"file_path": "f.txt"}, "PostToolUse")
    doc = json.loads(read)
    del doc["cwd"], doc["transcript_path"]  # what bench/startup.py sends
    modules, out = launched("reflect-git", "hook", "PostToolUse", stdin=json.dumps(doc), env=env)
    assert "reflectgit.state.eventlog" in modules and out == ""
    assert "reflectgit.workflows.capture.events" not in modules  # the detectors run later
    assert not modules & set(NOT_IN_A_CAPTURE), modules & set(NOT_IN_A_CAPTURE)
    state = kb / ".git" / "reflect-git"
    # a malformed capture setting is still logged as a fallback at once
    bad = env | {"REFLECT_AUTO_REFLECT": "maybe"}
    launched("reflect-git", "hook", "PostToolUse", stdin=read, env=bad)
    log = (state / "logs" / "hooks.log").read_text()
    assert "config - fallback REFLECT_AUTO_REFLECT='maybe' is not a boolean" in log


# With ``REFLECT_STATE_DIR`` set (what bench/startup.py and many installs do), the override is
# resolved as strings too: it cost every hook ``pathlib`` with ``fnmatch``, ``re``, ``enum`` and
# ``urllib.parse`` (docs/performance.md, "The hook processes, fifth pass").
def test_the_capture_hook_with_a_state_dir_imports_no_pathlib(
    ruled_kb: Path, tmp_path: Path
) -> None:
    kb = ruled_kb
    state = tmp_path / "elsewhere" / "state"
    env = {"REFLECT_GIT_KB": str(kb), "REFLECT_STATE_DIR": str(tmp_path / "elsewhere/./state/")}
    doc = json.loads(_payload(kb, "Read", {"file_path": "f.txt"}, "PostToolUse"))
    del doc["cwd"], doc["transcript_path"]  # pytest's long folder names would wake the scanner
    read = json.dumps(doc)
    modules, out = launched("reflect-git", "hook", "PostToolUse", stdin=read, env=env)
    assert "reflectgit.state.eventlog" in modules and out == ""
    assert not modules & set(NOT_IN_A_CAPTURE), modules & set(NOT_IN_A_CAPTURE)
    assert (state / "events" / "s-imports.jsonl").is_file()  # the call was logged
    assert not (kb / ".git" / "reflect-git" / "capture").exists()
    # a state dir that cannot be a folder is still refused, and the hook still exits quietly
    (tmp_path / "a-file").write_text("x")
    blocked = env | {"REFLECT_STATE_DIR": str(tmp_path / "a-file" / "state")}
    _, out = launched("reflect-git", "hook", "PostToolUse", stdin=read, env=blocked)
    assert out == "" and not (tmp_path / "a-file" / "state").exists()


# What a search against a fresh index must not import (issue 17, "add and search, fourth
# pass"): ``typing`` (annotations' imports are under TYPE_CHECKING on its whole path) and
# ``shlex`` (cli.render quotes commands only where it prints one); and it reads the shipped
# synonym table compiled ahead (workflows/search/synonyms_table.py) instead of parsing it.
NOT_IN_THE_BARE_SEARCH = (*NEVER, "typing", "shlex", "json", "yaml", "subprocess", "_hashlib")


def test_a_bare_search_imports_no_typing_and_reads_the_compiled_synonyms(
    ruled_kb: Path, tmp_path: Path
) -> None:
    kb = ruled_kb
    loaded("reflect-git", "--kb", str(kb), "reindex")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    # "force push" reaches the synonym table's groups; the note must still be found.
    proc = subprocess.run(
        [sys.executable, "-S", "-c", PROBE, "reflect-git", "--kb", str(kb), "search", "force"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=outside,
        env={"PYTHONPATH": str(REPO_ROOT), "HOME": str(tmp_path)},
    )
    _, _, listed = proc.stderr.partition("\n--modules--\n")
    modules = set(listed.split())
    assert "no-force-push" in proc.stdout, proc.stderr
    assert "reflectgit.workflows.search.synonyms_table" in modules, proc.stderr
    assert not modules & set(NOT_IN_THE_BARE_SEARCH), modules & set(NOT_IN_THE_BARE_SEARCH)


# A search against a fresh index holds the KB, its state directory and the index file as
# strings, and knows HEAD has not moved from a stamp of HEAD's files kept in the index with its
# tree (git/headstamp.py, as the rules hook): no ``pathlib`` (with ``urllib.parse``,
# ``ipaddress`` and ``fnmatch``), and no commit read (``git.objects``, ``mmap``, ``zlib``); its
# word rules are plain Python (no ``re``, ``enum``); docs/performance.md, "search, sixth pass".
# The first search after HEAD moved reads the commit.
NOT_IN_A_STAMPED_SEARCH = (
    *NOT_IN_THE_BARE_SEARCH,
    "pathlib",
    "urllib.parse",
    "ipaddress",
    "fnmatch",
    "reflectgit.git.objects",
    "mmap",
    "zlib",
    "re",  # the search's word rules are workflows/search/tokens.py's
    "enum",
    "contextlib",  # search.index imports it when a transaction is first entered
)


@pytest.mark.parametrize("state_dir", [False, True], ids=["state-in-kb", "REFLECT_STATE_DIR"])
def test_a_search_against_a_stamped_index_imports_no_pathlib(
    ruled_kb: Path, tmp_path: Path, state_dir: bool
) -> None:
    kb = ruled_kb
    env = {"HOME": str(tmp_path)}
    if state_dir:
        env["REFLECT_STATE_DIR"] = str(tmp_path / "elsewhere" / "state")
    launched("reflect-git", "--kb", str(kb), "reindex", env=env)
    _age(kb / ".git")  # HEAD's files past the stamp's racy window
    argv = ("--kb", str(kb), "search", "force")
    first, out = launched("reflect-git", *argv, env=env)  # reads HEAD's commit, keeps the stamp
    assert "no-force-push" in out and "reflectgit.git.objects" in first
    modules, again = launched("reflect-git", *argv, env=env)
    assert again == out
    assert "reflectgit.git.headstamp" in modules  # the stamp was taken ...
    assert not modules & set(NOT_IN_A_STAMPED_SEARCH), modules & set(NOT_IN_A_STAMPED_SEARCH)
    # ... and HEAD moving (a commit; its files aged too) is seen at once
    (kb / "documents" / "fresh-one.md").write_text(
        RULE_NOTE.replace("no-force-push", "fresh-one").replace("Never force-push", "Quokka")
    )
    git("add", "documents", cwd=kb)
    git("commit", "-qm", "one more", cwd=kb)
    _age(kb / ".git")
    _, found = launched("reflect-git", "--kb", str(kb), "search", "quokka", env=env)
    assert "fresh-one" in found


NOT_IN_AN_ADD = ("dataclasses", "inspect", "typing")


def test_add_imports_no_dataclasses_or_typing(kb: Path) -> None:
    """``add``'s result types, the door's values, the commit message and the in-place editor
    are ``records`` classes, the write path's ``NamedTuple``, ``Generic`` and ``TypeVar`` are
    ``records``' run-time stand-ins and every ``typing`` import is under ``TYPE_CHECKING``: an
    add (the identity from GIT_AUTHOR_*, as the start-up benchmark runs it) imports none of
    ``dataclasses``, ``inspect`` or ``typing``."""
    modules, out = loaded(
        "reflect-git",
        "--kb",
        str(kb),
        "add",
        "--title",
        "Quokka pouch",
        "--confidence",
        "high",
        "--insight",
        "x",
    )
    assert "reflectgit.workflows.kb.mutations" in modules  # the add ran
    assert "reflectgit.git.store" in modules
    log = subprocess.run(["git", "log", "-1", "--format=%s"], cwd=kb, capture_output=True)
    assert b"Quokka pouch" in log.stdout, out  # committed
    assert not modules & set(NOT_IN_AN_ADD), modules & set(NOT_IN_AN_ADD)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=kb, capture_output=True)
    assert status.stdout == b""


NOT_IN_A_PLAIN_ADD = (
    "yaml",
    "jsonschema",
    "reflectgit.notes.yamlcodec",
    "json",
)  # json: the schema loads its file with it, only on the full path


def _add(kb: Path, title: str, insight: str) -> set[str]:
    modules, out = loaded(
        "reflect-git", "--kb", str(kb), "add", "--title", title, "--confidence", "high",
        "--insight", insight,
    )  # fmt: skip
    log = subprocess.run(["git", "log", "-1", "--format=%s"], cwd=kb, capture_output=True)
    assert title.encode() in log.stdout, out  # committed
    status = subprocess.run(["git", "status", "--porcelain"], cwd=kb, capture_output=True)
    assert status.stdout == b""
    return modules


def test_a_plain_add_imports_no_yaml_or_jsonschema(kb: Path) -> None:
    """An add from flags writes its note with the plain emitter (``plainyaml.dump``, PyYAML's
    bytes) and checks the bytes it wrote with the plain reader and the generated validators
    (``quickcheck.note_is_writable``): it imports neither PyYAML nor jsonschema, and the note
    it committed is the one PyYAML renders; so does an add with a multi-line insight (a literal
    block). An insight PyYAML escapes (a character past U+FFFF) imports PyYAML to write it and
    is committed as before."""
    from reflectgit.notes.note import parse_note
    from reflectgit.notes.yamlcodec import dump

    modules = _add(kb, "Wombat burrow: yes, 1.5 #tags", "x")
    assert "reflectgit.notes.plainyaml" in modules  # the add ran its writer
    assert not modules & set(NOT_IN_A_PLAIN_ADD), modules & set(NOT_IN_A_PLAIN_ADD)
    path = subprocess.run(
        ["git", "show", "--name-only", "--format=", "HEAD"], cwd=kb, capture_output=True, text=True
    ).stdout.split()[0]
    assert path.startswith("documents/") and path.endswith(".md")
    data = subprocess.run(["git", "show", f"HEAD:{path}"], cwd=kb, capture_output=True).stdout
    note = parse_note(data, path)
    assert data.decode().startswith("---\n" + dump(note.frontmatter) + "---\n")
    assert note.frontmatter["title"] == "Wombat burrow: yes, 1.5 #tags"

    modules = _add(kb, "Numbat termites", "first line\nsecond line")
    assert not modules & set(NOT_IN_A_PLAIN_ADD)  # a literal block is written and read plain
    shown = subprocess.run(["git", "show", "HEAD"], cwd=kb, capture_output=True, text=True)
    assert "+key_insight: |-\n+  first line\n+  second line\n" in shown.stdout

    modules = _add(kb, "Quoll den", "pouch \U0001f998")
    assert "yaml" in modules  # past U+FFFF libyaml escapes: PyYAML wrote it
    shown = subprocess.run(["git", "show", "HEAD"], cwd=kb, capture_output=True, text=True)
    assert '+key_insight: "pouch \\U0001F998"\n' in shown.stdout


# --------------------------------------------------------------------------- add, sixth pass: git

NOT_IN_AN_ADD_GIT_SIDE = ("subprocess", "shutil", "random", "_hashlib", "hashlib")
NOT_IN_THE_STORE = (*NOT_IN_AN_ADD_GIT_SIDE, "json", "signal", "threading", "selectors")


def _big_kb(tmp_path: Path, notes: int = 5000) -> Path:
    """A KB whose ``documents`` tree is past 256 KB (where main's digest took OpenSSL)."""
    kb = tmp_path / "big"
    git("init", "-q", "-b", "main", str(kb), cwd=tmp_path)
    docs = kb / "documents"
    docs.mkdir()
    for i in range(notes):
        ident = f"note-number-{i:06d}-abcdef"
        (docs / f"{ident}.md").write_text(
            f"---\nid: {ident}\ntitle: Note {i}\ncreated: 2026-03-04\nconfidence: high\n---\nx\n"
        )
    git("add", "documents", cwd=kb)
    git("-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "notes", cwd=kb)
    size = len(git("cat-file", "-p", "HEAD:documents", cwd=kb))  # ls-tree text: larger
    assert size > 256 * 1024
    return kb


def test_an_add_starts_git_without_subprocess_and_hashes_its_tree_without_openssl(
    tmp_path: Path,
) -> None:
    """git runs through ``git.run``'s ``posix_spawn`` (no ``subprocess``, ``signal``,
    ``threading`` or ``selectors``), the scratch objects go without ``shutil``, ``random``
    waits for a lost race, and the 5,000-note ``documents`` tree (about 290 KB, hashed once)
    takes the built-in SHA-1, not OpenSSL's: none of them is imported by an add, and the work
    tree and the index are as git would leave them."""
    kb = _big_kb(tmp_path)
    argv = ["--kb", str(kb), "add", "--title", "Quokka pouch", "--insight", "x"]
    modules, out = loaded("reflect-git", *argv, "--confidence", "high")
    assert "reflectgit.git.run" in modules and "reflectgit.git.worktree" in modules  # git ran
    assert "added quokka-pouch" in out, out
    assert not modules & set(NOT_IN_AN_ADD_GIT_SIDE), modules & set(NOT_IN_AN_ADD_GIT_SIDE)
    assert git("status", "--porcelain", cwd=kb) == ""
    path = out.split("(", 1)[1].split(")", 1)[0]  # added ID (documents/ID.md) in SHA
    assert path.startswith("documents/quokka-pouch") and (kb / path).is_file(), out
    assert git("ls-files", path, cwd=kb).strip() == path  # in the index too
    assert subprocess.run(["git", "fsck", "--strict"], cwd=kb, capture_output=True).returncode == 0
    assert not list((kb / ".git").glob("reflect-git-objects.*"))  # the scratch folder went


def test_the_store_and_the_work_tree_import_no_json_subprocess_or_openssl() -> None:
    """The write path's own modules (the journal's JSON through ``cjson``)."""
    probe = (
        "import sys\nimport reflectgit.git.store, reflectgit.git.worktree, reflectgit.git.run\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    modules = set(out.stdout.split())
    assert "reflectgit.git.run" in modules
    assert not modules & set(NOT_IN_THE_STORE), modules & set(NOT_IN_THE_STORE)


# The script's own entry, with an object in __main__ that marks the interpreter's teardown.
END_PROBE = """
import sys
marker, setup, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
class Last:
    def __del__(self, open=open, marker=marker):  # the module's globals are gone by then
        with open(marker, "w") as fh:
            fh.write("torn down")
last = Last()
exec(setup)
sys.argv = ["reflect-git", *argv]
from reflectgit.cli import script
script()
"""


def _ended(tmp_path: Path, setup: str, *argv: str) -> tuple[int, str, bool]:
    marker = tmp_path / f"marker-{len(list(tmp_path.glob('marker-*')))}"
    proc = subprocess.run(
        [sys.executable, "-c", END_PROBE, str(marker), setup, *argv],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return proc.returncode, proc.stdout + proc.stderr, marker.exists()


def test_a_fast_add_ends_without_the_teardown_only_when_nothing_waits(
    kb: Path, tmp_path: Path
) -> None:
    """A fast ``add`` that committed ends at once (its report flushed, exit 0, the KB clean),
    so the 12-15 ms of tearing the interpreter down are not paid; with an ``atexit``
    callback, after a refused add, or for another command, the interpreter ends as always."""
    add = ["--kb", str(kb), "add", "--confidence", "high", "--insight", "x", "--title"]
    code, out, torn = _ended(tmp_path, "", *add, "Ends at once")
    assert code == 0 and "added ends-at-once" in out and not torn, (code, out)
    assert git("status", "--porcelain", cwd=kb) == ""
    assert "Ends at once" in git("log", "-1", "--format=%s", cwd=kb)
    code, out, torn = _ended(tmp_path, "", "--json", *add, "As json")
    assert code == 0 and json.loads(out)["commit"] and not torn, (code, out)
    # something waits for the end: the teardown runs
    waits = "import atexit; atexit.register(lambda: None)"
    code, out, torn = _ended(tmp_path, waits, *add, "Waits for atexit")
    assert code == 0 and "added waits-for-atexit" in out and torn, (code, out)
    thread = "import threading, time; threading.Thread(target=time.sleep, args=(60,), daemon=True).start()"
    code, out, torn = _ended(tmp_path, thread, *add, "Waits for a thread")
    assert code == 0 and "added waits-for-a-thread" in out and torn, (code, out)
    # a refused add, and another command: as always
    code, out, torn = _ended(tmp_path, "", "--kb", str(kb), "add", "--title", "No insight")
    assert code != 0 and "error:" in out and torn, (code, out)
    code, out, torn = _ended(tmp_path, "", "--kb", str(kb), "list")
    assert code == 0 and "ends-at-once" in out and torn, (code, out)
    assert git("status", "--porcelain", cwd=kb) == ""
