"""Issue 18, the messages a user trips over: each refusal says what to do next."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import git
from tests.support.kb import count_commits, head, kb
from tests.support.remote import git_daemon

__all__ = ["git_daemon", "kb"]  # the fixtures, imported for pytest


def _project(tmp_path: Path) -> Path:
    """Somebody's code repository with history and no KB layout."""
    path = tmp_path / "project"
    git("init", "-q", "-b", "main", str(path), cwd=tmp_path)
    (path / "README.md").write_text("# a project\n")
    git("add", "README.md", cwd=path)
    git("-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "start", cwd=path)
    return path


ADD = ("add", "--title", "T", "--insight", "I", "--category", "ci", "--confidence", "high")


# ---------------------------------------------------------------- 1. a repository that is no KB


@pytest.mark.parametrize(
    "args",
    [
        ADD,
        ("update", "some-id", "--set", "title=New"),
        ("confirm", "some-id", "--source", "pr"),
        ("archive", "some-id"),
        ("forget", "some-id"),
    ],
)
def test_writing_into_a_project_repository_is_refused(cli, tmp_path, args):
    project = _project(tmp_path)
    before = head(project)
    res = cli("--kb", str(project), *args)
    assert res.code == 1, res
    assert "error:" in res.err and "not a reflect-git knowledge base" in res.err
    assert "hint:" in res.err and "reflect-git init" in res.err
    assert head(project) == before and count_commits(project) == 1
    assert git("status", "--porcelain", cwd=project) == ""
    assert not (project / "documents").exists()


def test_a_kb_made_by_init_or_by_hand_or_new_is_accepted(cli, tmp_path, kb):
    project = _project(tmp_path)
    assert cli("init", str(project), "--force").code == 0
    assert cli("--kb", str(project), *ADD).code == 0
    # a repository without commits is a new KB (the kb fixture); so is one with documents/
    assert cli("--kb", str(kb), *ADD).code == 0
    (tmp_path / "old").mkdir()
    legacy = _project(tmp_path / "old")
    (legacy / "documents").mkdir()
    assert cli("--kb", str(legacy), *ADD).code == 0, "the original reflect tool's layout"


# ---------------------------------------------------------------- 2. add from flags


def test_add_from_flags_without_confidence_names_the_flag(cli, kb):
    res = cli("--kb", str(kb), "add", "--title", "T", "--insight", "I")
    assert res.code == 2, res
    assert "error: --confidence is required" in res.err
    assert "<stdin>" not in res.err and "validate FILE" not in res.err
    assert "hint:" in res.err and "--confidence high" in res.err
    assert count_commits(kb) == 0


def test_add_from_a_file_without_confidence_still_names_the_file(cli, kb, tmp_path):
    note = tmp_path / "n.md"
    note.write_text("---\ntitle: T\nkey_insight: I\n---\nbody\n")
    res = cli("--kb", str(kb), "add", str(note))
    assert res.code == 1, res
    assert f"{note}:" in res.err and "confidence: is required" in res.err
    assert "--confidence is required" not in res.err


# ---------------------------------------------------------------- 3. log of an unknown id


def test_log_of_an_unknown_id_says_no_commits_for_it(cli, kb):
    assert cli("--kb", str(kb), *ADD).code == 0
    res = cli("--kb", str(kb), "log", "no-such-id")
    assert res.code == 0, res
    assert res.out.strip() == "no commits for no-such-id"
    assert "no reflect-git commits yet" not in res.out
    assert "hint:" in res.err and "reflect-git list" in res.err
    # a known id lists its commit and no hint; --json stays a list
    known = cli("--kb", str(kb), "--json", "log")
    ident = known.json()[0]["id"]
    res = cli("--kb", str(kb), "log", ident)
    assert "add" in res.out and "hint:" not in res.err
    assert cli("--kb", str(kb), "--json", "log", "no-such-id").json() == []


# ---------------------------------------------------------------- 4. team sync that cannot move


def test_team_sync_that_cannot_fast_forward_fails(git_daemon, tmp_path, cli):
    team = git_daemon.new_repo()
    team.seed({"README.md": "x\n"})
    kb_path, clone = tmp_path / "kb", tmp_path / "clone"
    assert cli("--kb", str(kb_path), "team", "clone", team.url, "--path", str(clone)).code == 0
    before = git("rev-parse", "HEAD", cwd=clone).strip()
    (clone / "README.md").write_text("my local edit\n")  # uncommitted, in the way
    team.seed({"README.md": "theirs\n"})
    res = cli("--kb", str(kb_path), "team", "sync")
    assert res.code == 1, res
    assert "error: main was not updated" in res.err and "hint:" in res.err
    assert git("rev-parse", "HEAD", cwd=clone).strip() == before
    assert (clone / "README.md").read_text() == "my local edit\n"
    # nothing in the way: the same sync succeeds
    git("checkout", "--", "README.md", cwd=clone)
    ok = cli("--kb", str(kb_path), "--json", "team", "sync")
    assert ok.code == 0 and ok.json()["updated"] is True, ok


# ---------------------------------------------------------------- 5. a group without a subcommand


@pytest.mark.parametrize(
    ("group", "sub"),
    [
        ("queue", "add"),
        ("review", "approve"),
        ("team", "sync"),
        ("hooks", "install"),
        ("capture", "commit"),
    ],
)
def test_a_group_alone_shows_its_help(tmp_path, group, sub):
    from tests.conftest import run_cli_proc

    proc = run_cli_proc(group, env={"REFLECT_GIT_KB": str(tmp_path / "kb")})
    assert proc.returncode == 0, proc
    assert proc.stdout.startswith(f"Usage: reflect-git {group} ")
    assert sub in proc.stdout and "error:" not in proc.stderr
    # an unknown subcommand is still a usage error
    bad = run_cli_proc(group, "no-such-sub", env={"REFLECT_GIT_KB": str(tmp_path / "kb")})
    assert bad.returncode == 2 and "error:" in bad.stderr


# ---------------------------------------------------------------- 6. corrupt queue files


def test_queue_list_names_the_corrupt_transcripts_and_how_to_re_add(cli, tmp_path, kb):
    edited, torn = tmp_path / "sess edited.jsonl", tmp_path / "sess-torn.jsonl"
    ids = {}
    for path in (edited, torn):
        path.write_text('{"type":"user","message":{"content":"hi"}}\n')
        res = cli("--kb", str(kb), "--json", "queue", "add", str(path))
        assert res.code == 0, res
        ids[path] = res.json()["id"]
    folder = kb / ".git" / "reflect-git" / "queue"
    one = folder / f"{ids[edited]}.json"
    one.write_text(one.read_text().replace('"retries": 0', '"retries": 7'))  # checksum breaks
    two = folder / f"{ids[torn]}.json"
    two.write_bytes(two.read_bytes()[:40])  # torn before its transcript path
    res = cli("--kb", str(kb), "queue", "list")
    assert res.code == 0, res
    assert "2 corrupt queue files moved aside" in res.out
    assert str(edited) in res.out and "checksum mismatch" in res.out
    assert "transcript unknown" in res.out
    assert f"`reflect-git queue add '{edited}'`" in res.out
    assert str(torn) not in res.out
    doc = cli("--kb", str(kb), "--json", "queue", "list").json()
    assert sorted(c["transcript"] or "" for c in doc["corrupt"]) == ["", str(edited)]
    # re-adding as the message says queues it again
    assert cli("--kb", str(kb), "queue", "add", str(edited)).code == 0
    assert [
        e["transcript_path"]
        for e in cli("--kb", str(kb), "--json", "queue", "list").json()["pending"]
    ] == [str(edited)]


def test_plural():
    from reflectgit.notes.words import plural

    assert [plural(n, "note") for n in (0, 1, 2)] == ["0 notes", "1 note", "2 notes"]
    assert plural(1, "problem") == "1 problem" and plural(3, "entry") == "3 entries"
    assert plural(2, "day") == "2 days" and plural(2, "process") == "2 processes"
    assert plural(2, "person", "people") == "2 people"


# ---------------------------------------------------------------- 7. route with uncommitted edits


def test_route_refuses_a_note_with_uncommitted_edits(cli, kb):
    added = cli("--kb", str(kb), "--json", *ADD[:-1], "low")
    assert added.code == 0, added
    ident, rel = added.json()["id"], added.json()["path"]
    note = kb / rel
    assert note.is_file(), "add keeps the work tree in step"
    note.write_text(note.read_text().replace("T\n", "T, edited\n", 1))
    before = head(kb)
    res = cli("--kb", str(kb), "route", ident)
    assert res.code == 1, res
    assert f"error: {rel} has uncommitted edits" in res.err
    assert "hint: commit them first" in res.err and f"reflect-git route {note}" in res.err
    assert head(kb) == before
    # the file path routes what is on disk; a clean note routes by id as before
    git("checkout", "--", rel, cwd=kb)
    ok = cli("--kb", str(kb), "--json", "route", ident)
    assert ok.code == 0, ok


# ---------------------------------------------------------------- 8. hints


def test_refusals_that_had_no_hint_have_one(cli, kb):
    ident = cli("--kb", str(kb), "--json", *ADD).json()["id"]
    cases = [
        (("forget", "--sweep", "--now", "garbage"), "--now 2026-03-04"),
        (("supersede", ident, "--by", ident), "reflect-git supersede OLD --by NEW"),
        (("show", ident, "--at", "2001-01-01"), "its first commit is from"),
    ]
    for args, hint in cases:
        res = cli("--kb", str(kb), *args)
        assert res.code in (1, 2) and "error:" in res.err, (args, res)
        assert "hint: " in res.err and hint in res.err, (args, res)
    assert count_commits(kb) == 1


# ---------------------------------------------------------------- 9. counts in words


def test_import_of_one_note_says_one_note(cli, kb, tmp_path):
    from tests.support.kb import VALID

    folder = tmp_path / "in"
    folder.mkdir()
    one = sorted(VALID.glob("*.md"))[0]
    (folder / one.name).write_bytes(one.read_bytes())
    res = cli("--kb", str(kb), "import", str(folder))
    assert res.code == 0, res
    assert res.out.startswith("imported 1 note in 1 commit: "), res
    assert "(s)" not in res.out


def test_review_item_with_one_problem_says_one_problem():
    from reflectgit.workflows import review_lines as render
    from reflectgit.workflows.review import BranchReview, Unreviewed

    item = BranchReview(
        branch="knowledge/x",
        tip="0" * 40,
        note_path="documents/x.md",
        id="x",
        title="X",
        tier="high",
        age_days=1.0,
        pr_url=None,
        pr_number=None,
        valid=False,
        problems=["documents/x.md:2:1: title: is required"],
        duplicates=[],
    )
    assert "INVALID (1 problem)" in render.review_item(item)[1]
    item.problems = item.problems * 2
    assert "INVALID (2 problems)" in render.review_item(item)[1]
    item.unreviewed = [Unreviewed(".reflect-git.toml", "changes the team's reflect-git settings")]
    lines = render.review_item(item)
    assert "INVALID (3 problems)" in lines[1]
    assert "  not reviewed: .reflect-git.toml: changes the team's reflect-git settings" in lines
    assert any("--accept .reflect-git.toml" in line for line in lines)


def test_no_count_in_the_cli_says_s_in_brackets():
    """Every count the CLI prints goes through plural (no `note(s)` left in render)."""
    import inspect

    from reflectgit.cli import render

    assert "(s)" not in inspect.getsource(render)


def test_no_message_anywhere_says_s_in_brackets():
    """No string literal in the package (messages, logs, note texts) counts with `(s)`."""
    import ast

    package = Path(__file__).resolve().parent.parent / "reflectgit"
    found = []
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and "(s)" in node.value
            ):
                found.append(f"{path.name}:{node.lineno}")
    assert found == []


# ---------------------------------------------------------------- 10. a truncated export


def test_import_of_a_truncated_tarball_says_why(cli, kb, tmp_path):
    import hashlib

    for i in range(6):
        noise = "".join(hashlib.sha256(f"{i}-{j}".encode()).hexdigest() for j in range(8))
        res = cli(
            "--kb",
            str(kb),
            "add",
            "--title",
            f"Note {i}",
            "--insight",
            noise,
            "--category",
            "ci",
            "--confidence",
            "high",
        )
        assert res.code == 0, res
    whole = tmp_path / "kb.tar.gz"
    assert cli("--kb", str(kb), "export", str(whole)).code == 0
    data = whole.read_bytes()
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(data[: len(data) * 2 // 3])
    other = tmp_path / "other"
    assert cli("init", str(other)).code == 0
    before = count_commits(other)
    res = cli("--kb", str(other), "import", str(cut))
    assert res.code == 1, res
    assert "aborted" not in res.err and not res.err.startswith("\n")
    assert f"error: {cut} is truncated or damaged" in res.err
    assert "hint:" in res.err and "reflect-git export" in res.err
    assert count_commits(other) == before
    ok = cli("--kb", str(other), "import", str(whole))
    assert ok.code == 0 and ok.out.startswith("imported 6 notes"), ok


# ---------------------------------------------------------------- Reflect-Confidence trailers


def test_every_commit_of_a_note_with_a_tier_carries_reflect_confidence(cli, kb):
    from tests.support.kb import trailers

    def add(title: str, tier: str) -> str:
        res = cli(
            "--kb", str(kb), "--json", "add", "--title", title,
            "--insight", f"Because {title.lower()} matters.", "--confidence", tier,
        )  # fmt: skip
        assert res.code == 0, res.err
        return json.loads(res.out)["id"]

    old = add("Pin the node version in CI", "low")
    new = add("Pin node with .nvmrc in CI", "high")
    steps = [
        (("archive", old), "low"),
        (("restore", old), "low"),
        (("supersede", old, "--by", new), "low"),
        (("undo",), "low"),  # the undone supersede's tier comes back with its revert
        (("forget", new), "high"),
    ]
    for args, tier in steps:
        res = cli("--kb", str(kb), *args)
        assert res.code == 0, (args, res.err)
        assert trailers(kb, "Reflect-Op") == [args[0]], args
        assert trailers(kb, "Reflect-Confidence") == [tier], args


# ---------------------------------------------------------------- add --entities: the user's lines


def test_add_entities_names_the_line_of_the_users_sidecar(cli, kb, tmp_path):
    side = tmp_path / "pool.entities.yaml"
    side.write_text(
        "# entities for the pool note\n"
        "# (written by hand)\n"
        "\n"
        "entities:\n"
        "  - name: redis\n"
        "    type: tool\n"
        "  - name: pgbouncer\n"
        "    type: spaceship\n"
        "relationships: []\n"
    )
    res = cli(
        "--kb", str(kb), "add", "--title", "Size the pool", "--insight", "Size it to peak.",
        "--confidence", "medium", "--entities", str(side),
    )  # fmt: skip
    assert res.code == 1
    assert f"{side}:8:" in res.err, res.err  # line 8 of the user's file, not of our YAML
    assert count_commits(kb) == 0


# ---------------------------------------------------------------- legacy queue: bad lines said once


def test_bad_lines_of_a_legacy_queue_file_are_shown_once(cli, kb, tmp_path):
    assert cli("--kb", str(kb), "init").code == 0
    transcript = tmp_path / "session.jsonl"
    transcript.write_text('{"type": "user", "message": {"role": "user", "content": "hi"}}\n')
    legacy = kb / ".git" / "reflect-git" / "pending_reflections.jsonl"
    legacy.parent.mkdir(parents=True, exist_ok=True)
    legacy.write_text(
        json.dumps({"transcript_path": str(transcript), "trigger": "stop"})
        + "\nnot json at all\n"
        + json.dumps({"no": "transcript"})
        + "\n"
    )
    first = cli("--kb", str(kb), "queue", "list")
    assert first.code == 0, first.err
    assert "warning:" in first.err and "2 lines" in first.err and str(legacy) in first.err
    assert str(transcript) in first.out  # the good line was imported
    second = cli("--kb", str(kb), "queue", "list")
    assert second.code == 0 and "warning:" not in second.err  # said once
