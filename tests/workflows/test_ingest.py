"""``reflect-git ingest``: other tools' memory files (sample of each format) into notes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reflectgit.errors import UsageError
from reflectgit.notes.memoryfiles import (
    claude_project_slug,
    content_hash,
    extract_rules,
    read_memory_file,
    split_frontmatter,
)
from reflectgit.workflows.ingest import Candidate, select
from tests.conftest import DATA, TEST_DATA, git, run_cli_proc
from tests.support.kb import assert_clean, count_commits

SAMPLES = TEST_DATA / "ingest"
PROJECT = SAMPLES / "project"


def rules_of(path: Path, kind: str = "md") -> list[str]:
    return [r.text for r in read_memory_file(path.read_text(encoding="utf-8"), kind).rules]


# --------------------------------------------------------------------------- parsing, per format


def test_claude_md_rules_and_what_is_not_a_rule() -> None:
    rules = rules_of(PROJECT / "CLAUDE.md")
    assert rules == [
        "Always run `make lint` before committing; CI rejects unformatted code.",
        "Never edit files under `migrations/` by hand: generate them with `alembic revision`.",
        "Use `Decimal`, not `float`, for money amounts. Rounding happens only at the edge, in "
        "`billing/format.py`.",
        "Prefer small pull requests that change one thing.",
        "Do not add new dependencies without asking first.",
    ]
    text = " ".join(rules)
    # negatives: headings, the prose paragraph, command glossaries, a code block, an @import,
    # an HTML comment, a table
    for never in (
        "CLAUDE.md",
        "provides guidance",
        "run the unit tests",
        "rm -rf build",
        "architecture.md",
        "commented-out",
        "use the table",
    ):
        assert never.lower() not in text.lower()


def test_agents_md_numbered_items_and_prose() -> None:
    rules = rules_of(PROJECT / "AGENTS.md")
    assert "Fix every failing test before you ask for review, even unrelated ones." in rules
    assert "Add or update tests for the code you change." in rules
    assert "Use `uv sync` to install dependencies; never call `pip install` directly." in rules
    assert not any("CI plan" in r or "four minutes" in r for r in rules)  # a prose paragraph
    assert not any(r.startswith("Title format") for r in rules)  # a term and its value


def test_cursorrules_plain_text() -> None:
    rules = rules_of(PROJECT / ".cursorrules", "text")
    assert len(rules) == 5
    assert rules[0] == "Write concise, technical responses with accurate Python examples."
    # "You are an expert ..." is a persona, "Key principles" a label: not rules
    assert not any("expert" in r or r == "Key principles" for r in rules)


def test_mdc_frontmatter_and_line_numbers() -> None:
    path = PROJECT / ".cursor" / "rules" / "typescript.mdc"
    text = path.read_text(encoding="utf-8")
    memory = read_memory_file(text, "mdc")
    assert memory.meta == {
        "description": "TypeScript style for the dashboard",
        "globs": "*.ts,*.tsx",  # not YAML: `*.ts` would be an alias there
        "alwaysApply": "false",
    }
    lines = text.split("\n")
    assert [r.text for r in memory.rules] == [
        "Prefer `unknown` over `any`; narrow with type guards.",
        "Never use `enum`; use union types of string literals.",
    ]
    for rule in memory.rules:  # the line is the file's line, frontmatter counted
        assert rule.text in lines[rule.line - 1]
    assert memory.rules[0].section == "TypeScript"


def test_copilot_instructions_and_claude_auto_memory() -> None:
    assert rules_of(PROJECT / ".github" / "copilot-instructions.md") == [
        "Use type hints on every public function.",
        "Do not log request bodies; they can hold card numbers.",
        "Write docstrings in the imperative mood.",
    ]
    # MEMORY.md is an index: entries that only point at a topic file are not rules
    assert rules_of(SAMPLES / "auto-memory" / "MEMORY.md") == [
        "The user prefers pnpm over npm in the dashboard folder."
    ]
    topic = rules_of(SAMPLES / "auto-memory" / "debugging.md")
    assert topic[1] == "Never retry a flaky test in CI; find the shared state instead."
    assert not any("flaky for a week" in r for r in topic)


def test_frontmatter_without_a_closing_line_is_body() -> None:
    meta, body, skipped = split_frontmatter("---\n- Always keep this rule in view.\n")
    assert (meta, skipped) == ({}, 0)
    assert "Always keep" in body


@pytest.mark.parametrize(
    ("line", "is_rule"),
    [
        ("- Always pin the base image digest.", True),
        ("* **Never** log tokens, even in debug builds.", True),
        ("1) Run the linter before pushing.", True),
        ("Prefer composition over inheritance in the service layer.", True),
        ("- Use pnpm: it is faster here.", True),
        ("- `src/` - the source code", False),
        ("- **Build**: `make build`", False),
        ("- Setup:", False),
        ("- [Guide](guide.md)", False),
        ("- two words", False),
        ("The service talks to Postgres over a pool.", False),  # prose, not imperative
        ("## Always headings", False),
        ("> Always quoted text", False),
        ("@AGENTS.md", False),
    ],
)
def test_one_line(line: str, is_rule: bool) -> None:
    assert bool(extract_rules(line)) is is_rule


def test_content_hash_ignores_case_spacing_and_emphasis() -> None:
    a = content_hash("Always run `make lint` before committing.")
    assert a == content_hash("always  run make lint before committing")
    assert a != content_hash("Always run make test before committing.")


def test_claude_project_slug_matches_real_sessions() -> None:
    """Real Claude Code sessions name their project folder after the cwd this way."""
    real = DATA / "real"
    cwds = set()
    folders = set()
    for path in real.rglob("*.jsonl"):
        text = path.read_text(encoding="utf-8", errors="replace")
        for line in text.splitlines()[:50]:
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict) and isinstance(row.get("cwd"), str):
                cwds.add(row["cwd"])
        folders.update(
            part
            for part in text.replace('"', " ").split()
            if part.startswith(".claude/projects/-") or "/.claude/projects/-" in part
        )
    joined = " ".join(folders)
    matched = [c for c in cwds if f".claude/projects/{claude_project_slug(c)}" in joined]
    assert matched, "no real session cwd maps onto a real project folder"
    assert claude_project_slug("/home/me/my.app") == "-home-me-my-app"


def test_select_numbers_ranges_and_refusals() -> None:
    def cand(n: int, status: str = "new") -> Candidate:
        return Candidate(n, "cursor", "f", n, f"rule {n}", f"Rule {n}", f"h{n}", status)

    cands = [cand(1), cand(2, "ingested"), cand(3), cand(4), cand(5)]
    assert [c.number for c in select(cands, "1,3-4")] == [1, 3, 4]
    assert [c.number for c in select(cands, "all")] == [1, 3, 4, 5]
    with pytest.raises(UsageError):
        select(cands, "2")  # already ingested
    with pytest.raises(UsageError):
        select(cands, "one")


# --------------------------------------------------------------------------- the real CLI


@pytest.fixture
def setup(tmp_path: Path, pinned_env: Path) -> dict[str, Path]:
    """A KB, a project repository holding every sample file, and a HOME with Claude Code's
    user memory and auto memory for that project."""
    kb = tmp_path / "kb"
    assert run_cli_proc("--kb", str(kb), "init").returncode == 0
    project = tmp_path / "billing"
    shutil.copytree(PROJECT, project)
    git("init", "-q", "-b", "main", str(project), cwd=tmp_path)
    memory = pinned_env / ".claude" / "projects" / claude_project_slug(str(project)) / "memory"
    shutil.copytree(SAMPLES / "auto-memory", memory)
    shutil.copy(SAMPLES / "user-claude" / "CLAUDE.md", pinned_env / ".claude" / "CLAUDE.md")
    return {"kb": kb, "project": project, "home": pinned_env}


def ingest(s: dict[str, Path], *args: str, input: str | None = "") -> object:
    return run_cli_proc("--kb", str(s["kb"]), "ingest", *args, cwd=s["project"], input=input)


def ledger(s: dict[str, Path]) -> Path:
    return s["kb"] / ".git" / "reflect-git" / "ingest-ledger.jsonl"


def test_dry_run_and_non_tty_write_nothing(setup: dict[str, Path]) -> None:
    before = count_commits(setup["kb"])
    dry = ingest(setup, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "dry run: nothing written" in dry.stdout
    for shown in ("CLAUDE.md:18", "AGENTS.md:", ".cursorrules:4", "typescript.mdc:8",
                  "copilot-instructions.md:7", "CLAUDE.local.md:3", "memory/debugging.md:",
                  "~/.claude/CLAUDE.md:3"):  # fmt: skip
        assert shown in dry.stdout
    asked = ingest(setup, input="")  # stdin is a pipe, not a terminal: never wait for an answer
    assert asked.returncode == 1
    assert "error:" in asked.stderr and "--yes" in asked.stderr and "--dry-run" in asked.stderr
    assert count_commits(setup["kb"]) == before
    assert not ledger(setup).exists()
    assert_clean(setup["kb"])


def test_yes_writes_validated_notes_with_provenance_once(setup: dict[str, Path]) -> None:
    kb = setup["kb"]
    before = count_commits(kb)
    done = ingest(setup, "--yes", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    written = doc["written"]
    new = [c for c in doc["candidates"] if c["status"] == "new"]
    assert len(written) == len(new) >= 25
    # the same rule in CLAUDE.md and AGENTS.md is one note
    lint = [c for c in doc["candidates"] if c["rule"].startswith("Always run `make lint`")]
    assert [c["status"] for c in lint] == ["new", "duplicate"]
    assert count_commits(kb) == before + len(written)
    assert_clean(kb)
    check = run_cli_proc("--kb", str(kb), "validate", str(kb / "documents"))
    assert check.returncode == 0, check.stdout + check.stderr
    shown = run_cli_proc("--kb", str(kb), "--json", "show", written[0]["id"])
    front = json.loads(shown.stdout)["frontmatter"]
    assert front["provenance"]["source_path"] == written[0]["file"]
    assert front["provenance"]["source_line"] == written[0]["line"]
    assert front["provenance"]["content_hash"] == written[0]["content_hash"]
    assert front["confidence"] == "medium" and front["project"] == "billing"
    assert front["scope"] == "project"
    personal = next(c for c in written if c["file"] == "~/.claude/CLAUDE.md")
    front = json.loads(run_cli_proc("--kb", str(kb), "--json", "show", personal["id"]).stdout)[
        "frontmatter"
    ]
    assert front["scope"] == "global"  # the user's own memory holds in every project
    rows = [json.loads(line) for line in ledger(setup).read_text().splitlines()]
    assert {r["hash"] for r in rows} == {c["content_hash"] for c in written}

    # Again: nothing new, nothing written, even for a rule copied into another file.
    (setup["project"] / ".cursorrules").write_text(
        "- Do not log request bodies; they can hold card numbers.\n"
        "- Always close the HTTP client when the worker stops.\n",
        encoding="utf-8",
    )
    again = ingest(setup, "--yes", "--json")
    assert again.returncode == 0, again.stderr
    doc = json.loads(again.stdout)
    assert [c["rule"] for c in doc["written"]] == [
        "Always close the HTTP client when the worker stops."
    ]
    assert count_commits(kb) == before + len(written) + 1


def test_named_file_and_missing_path(setup: dict[str, Path]) -> None:
    mdc = setup["project"] / ".cursor" / "rules" / "always.mdc"
    done = ingest(setup, str(mdc), "--yes", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert [c["rule"] for c in doc["written"]] == [
        "Keep functions under 50 lines; split them when they grow."
    ]
    missing = ingest(setup, "no-such-file.md", "--yes")
    assert missing.returncode == 1
    assert "error: no such file or folder" in missing.stderr and "hint:" in missing.stderr


def test_title_drops_emphasis_not_underscores_in_names() -> None:
    from reflectgit.notes.memoryfiles import title_of

    assert title_of("Use the `billing_dev` database locally.") == (
        "Use the billing_dev database locally"
    )
    assert title_of("**never** push _now_. More text here.") == "Never push now"


def test_a_terminal_is_asked_which_rules_to_ingest(setup: dict[str, Path]) -> None:
    """On a terminal the table is shown and the answer picks rows (a real pty)."""
    import os
    import subprocess
    import sys

    main, side = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "reflectgit", "--kb", str(setup["kb"]), "ingest",
         str(setup["project"] / "AGENTS.md")],
        stdin=side, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=setup["project"],
    )  # fmt: skip
    os.close(side)
    os.write(main, b"1,3\n")
    out, err = proc.communicate(timeout=60)
    os.close(main)
    assert proc.returncode == 0, err
    text = out.decode()
    assert "ingested 2 notes (2 commits)" in text
    assert "AGENTS.md:4" in text.split("ingested", 1)[1]
    assert "AGENTS.md:11" in text.split("ingested", 1)[1]
    assert "AGENTS.md:5" not in text.split("ingested", 1)[1]


def test_json_without_yes_on_a_pipe_is_one_error_document(setup: dict[str, Path]) -> None:
    done = run_cli_proc(
        "--kb", str(setup["kb"]), "--json", "ingest", cwd=setup["project"], input=""
    )
    assert done.returncode == 1
    doc = json.loads(done.stdout)  # exactly one document
    assert "--yes" in doc["hint"]


def test_a_rule_holding_a_secret_is_masked_and_never_written(setup: dict[str, Path]) -> None:
    key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    (setup["project"] / "AGENTS.md").write_text(
        f"- Use the token {key} when you call the GitHub API.\n"
        "- Always pin the base image digest in the Dockerfile.\n",
        encoding="utf-8",
    )
    done = ingest(setup, str(setup["project"] / "AGENTS.md"), "--yes", "--json")
    assert done.returncode == 0, done.stderr
    assert key not in done.stdout
    doc = json.loads(done.stdout)
    assert [c["status"] for c in doc["candidates"]] == ["secret", "new"]
    assert [c["rule"] for c in doc["written"]] == [
        "Always pin the base image digest in the Dockerfile."
    ]
    assert key not in git("log", "-p", "--all", cwd=setup["kb"])


def test_copilot_path_instructions_keep_apply_to(setup: dict[str, Path]) -> None:
    path = SAMPLES / "copilot-path" / "python.instructions.md"
    memory = read_memory_file(path.read_text(encoding="utf-8"), "md")
    assert memory.meta == {"applyTo": "**/*.py"}
    assert [r.text for r in memory.rules] == [
        "Use `pathlib.Path`, not `os.path`, for file paths.",
        "Never catch a bare `Exception` without logging it.",
    ]
    done = ingest(setup, str(path), "--yes", "--json")
    assert done.returncode == 0, done.stderr
    written = json.loads(done.stdout)["written"]
    assert [c["file"] for c in written] == [str(path)] * 2  # outside the project: as given
    shown = run_cli_proc("--kb", str(setup["kb"]), "--json", "show", written[0]["id"])
    body = json.loads(shown.stdout)["body"]
    assert "Applies to: `**/*.py`." in body
    assert json.loads(shown.stdout)["frontmatter"]["tags"] == ["ingested", "copilot"]
