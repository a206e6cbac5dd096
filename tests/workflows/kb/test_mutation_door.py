"""The one mutation door: every writer reads, edits, validates and commits through
``KnowledgeBase.mutate`` with compare-and-swap, and a writer that loses a race re-applies its
change on top of the winner's (it never reverts it).

The races are real: a slow stub model that waits until the test has made a real
``reflect-git update`` (a subprocess, real git), and a concurrent writer that commits through
a second ``Store`` between a mutation's read and its commit.
"""

from __future__ import annotations

import ast
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reflectgit.config import Config
from reflectgit.errors import NoteError
from reflectgit.git.change import write
from reflectgit.git.store import PathChanged, Store
from reflectgit.notes import edit
from reflectgit.notes.messages import build
from reflectgit.notes.note import TIER_NUM, Note, parse_note, render_note, tier_from_num
from reflectgit.workflows.drain.loop import run_drain
from reflectgit.workflows.kb import KnowledgeBase
from reflectgit.workflows.kb.base import RETRIES, Edit, Snapshot
from tests.conftest import REPO_ROOT, git, run_cli_proc
from tests.support.drain import Clock, copy_transcript, enqueue, make_config, stub_command

NID = "lrn-pip-installs-abc123"
PATH = f"documents/{NID}.md"


def _seed(repo: Path) -> None:
    """One live note (and sidecar) the drain will be asked to UPDATE or DELETE."""
    note = Note(
        {
            "type": "learning",
            "id": NID,
            "created": "2026-01-01",
            "confidence": "medium",
            "title": "Install requirements with uv pip sync",
            "tags": ["pip", "uv"],
            "key_insight": "uv pip sync requirements.lock",
            "rule": "uv pip sync requirements.lock",
            "provenance": {"proof_count": 1, "source_memory_ids": ["cli"]},
        },
        "\nBody.\n",
    )
    with Store.open(repo) as st:
        st.commit(
            [
                write(PATH, render_note(note)),
                write(f"documents/{NID}.entities.yaml", f"document_id: {NID}\n".encode()),
                write(".reflect-git.toml", b"[team]\n"),  # a KB, as init makes it
            ],
            build("seed", "add", [NID]),
        )


def _front(repo: Path, path: str = PATH) -> dict[str, Any]:
    return parse_note(git("show", f"HEAD:{path}", cwd=repo).encode(), path).frontmatter


def _cli(repo: Path, *args: str) -> None:
    proc = run_cli_proc("--kb", str(repo), *args)
    assert proc.returncode == 0, proc.stderr


def _wait_for(path: Path, what: str) -> None:
    deadline = time.monotonic() + 120  # a bound, not a timing assertion
    while not path.exists():
        assert time.monotonic() < deadline, f"{what} never happened"
        time.sleep(0.02)


# A stub model that says it is waiting, waits until the test has edited the KB, then answers
# with one action on the first listed id (the note above).
SLOW_REVISE = """
import os
open(WAITING, "w").close()
while not os.path.exists(GO):
    time.sleep(0.02)
ids = [l.split('id: ')[1].split(' |')[0] for l in prompt.split('=== EXISTING LEARNINGS')[1].splitlines() if l.startswith('- id: ')]
emit({'actions': [{'action': ACTION, 'id': ids[0], 'reason': 'the session proved it again'}]})
"""


def _race_drain(
    tmp_path: Path, repo: Path, action: str, user_edit: Callable[[], None]
) -> dict[str, Any]:
    """Run a drain whose model call waits for ``user_edit`` (made meanwhile); its one row."""
    _seed(repo)
    waiting, go = tmp_path / "model-waiting", tmp_path / "user-done"
    body = f"ACTION = {action!r}\nWAITING = {str(waiting)!r}\nGO = {str(go)!r}\n" + SLOW_REVISE
    stub = stub_command(tmp_path, body)
    cfg = make_config(repo, REFLECT_DRAIN_CMD=str(stub))
    enqueue(cfg, copy_transcript(tmp_path, "claude/correction-0.jsonl"))
    reports: list[Any] = []
    errors: list[BaseException] = []

    def drain() -> None:
        try:
            reports.append(run_drain(cfg, clock=Clock()))
        except BaseException as exc:  # surfaced in the test thread
            errors.append(exc)

    worker = threading.Thread(target=drain)
    worker.start()
    try:
        _wait_for(waiting, "the drain's model call")
        user_edit()
    finally:
        go.touch()
        worker.join(timeout=300)
    assert not worker.is_alive()
    assert not errors, errors
    [row] = reports[0].rows
    return row


# --------------------------------------------------------------------------- the drain


def test_a_drain_update_that_loses_the_race_reapplies_on_top_of_the_users_update(
    tmp_path: Path, repo: Path
) -> None:
    row = _race_drain(
        tmp_path,
        repo,
        "UPDATE",
        lambda: _cli(repo, "update", NID, "--set", "tags=[pip, uv, edited-by-user]"),
    )
    assert row["outcome"] == "ok", row
    assert row["confirmed"] == [NID]
    front = _front(repo)
    assert front["tags"] == ["pip", "uv", "edited-by-user"]  # the user's edit survived
    prov = front["provenance"]
    assert prov["proof_count"] == 2  # ... and the drain's confirm is on top of it
    assert prov["source_memory_ids"] == ["cli", "drain:correction-0"]
    ops = git("log", "--format=%(trailers:key=Reflect-Op,valueonly)", cwd=repo).split()
    assert ops[:3] == ["confirm", "update", "add"]
    assert git("status", "--porcelain", cwd=repo) == ""


def test_a_drain_delete_that_loses_the_race_archives_the_users_version(
    tmp_path: Path, repo: Path
) -> None:
    row = _race_drain(
        tmp_path,
        repo,
        "DELETE",
        lambda: _cli(repo, "update", NID, "--set", "category=edited-by-user"),
    )
    assert row["outcome"] == "ok" and row["archived"] == [NID], row
    assert _front(repo, f"archived/{NID}.md")["category"] == "edited-by-user"
    assert git("ls-tree", "--name-only", "HEAD", "documents/", cwd=repo) == ""
    assert git("status", "--porcelain", cwd=repo) == ""


@pytest.mark.parametrize("how", ["forget", "archive", "git rm"])
def test_a_drain_update_of_a_note_removed_meanwhile_is_a_recorded_skip_not_a_resurrection(
    tmp_path: Path, repo: Path, how: str
) -> None:
    def remove() -> None:
        if how == "git rm":
            git("rm", "-q", PATH, f"documents/{NID}.entities.yaml", cwd=repo)
            git("commit", "-qm", "drop the pip note", cwd=repo)
        else:
            _cli(repo, how, NID)

    row = _race_drain(tmp_path, repo, "UPDATE", remove)
    head = git("rev-parse", "HEAD", cwd=repo)
    assert row["outcome"] == "ok", row
    assert row["confirmed"] == [] and row["commit"] is None
    [skip] = [d for d in row["dropped"] if d.get("id") == NID]
    assert skip["action"] == "UPDATE" and "not a live learning" in skip["reason"]
    assert git("ls-tree", "--name-only", "HEAD", "documents/", cwd=repo) == ""
    assert git("rev-parse", "HEAD", cwd=repo) == head  # no commit by the drain at all
    assert git("status", "--porcelain", cwd=repo) == ""


def test_cli_confirm_and_drain_confirm_write_the_same_field(tmp_path: Path, repo: Path) -> None:
    # The drain's confirm (no race: the stub answers at once) ...
    stub = stub_command(
        tmp_path,
        "ids = [l.split('id: ')[1].split(' |')[0] for l in prompt.split('=== EXISTING LEARNINGS')"
        "[1].splitlines() if l.startswith('- id: ')]\n"
        "emit({'actions': [{'action': 'UPDATE', 'id': ids[0]}]})\n",
    )
    _seed(repo)
    cfg = make_config(repo, REFLECT_DRAIN_CMD=str(stub))
    enqueue(cfg, copy_transcript(tmp_path, "claude/correction-0.jsonl"))
    [row] = run_drain(cfg, clock=Clock()).rows
    assert row["confirmed"] == [NID], row
    after_drain = _front(repo)["provenance"]
    # ... and the CLI's, on the same note: one field, one count.
    _cli(repo, "confirm", NID, "--source", "pr-12")
    after_cli = _front(repo)["provenance"]
    assert set(after_drain) == set(after_cli) == {"proof_count", "source_memory_ids"}
    assert after_drain["source_memory_ids"] == ["cli", "drain:correction-0"]
    assert after_cli["source_memory_ids"] == ["cli", "drain:correction-0", "pr-12"]
    assert (after_drain["proof_count"], after_cli["proof_count"]) == (2, 3)


def test_a_legacy_sources_list_is_folded_into_the_one_field() -> None:
    note = Note({"id": "x", "provenance": {"proof_count": 2, "sources": ["pr-1"]}}, "")
    again = edit.confirm(note, "pr-1")
    assert again is None  # already counted under the old name
    confirmed = edit.confirm(note, "drain:s")
    assert confirmed is not None
    assert confirmed.frontmatter["provenance"] == {
        "proof_count": 3,
        "source_memory_ids": ["pr-1", "drain:s"],
    }


# --------------------------------------------------------------------------- capture


def _capture_note(repo: Path, note_id: str, session: str, confidence: str) -> None:
    path = repo / "documents" / f"{note_id}.md"
    path.parent.mkdir(exist_ok=True)
    path.write_text(
        f"---\nid: {note_id}\ntitle: {note_id} title\ncreated: 2026-11-01\n"
        f"confidence: {confidence}\nsession_id: {session}\n---\nbody\n"
    )
    git("add", "documents", cwd=repo)
    git("commit", "-qm", f"seed {note_id}", cwd=repo)


def _once_before_commit(monkeypatch: pytest.MonkeyPatch, action: Callable[[], None]) -> list[int]:
    """Run ``action`` (a real concurrent writer) right before the first KB commit of the test;
    returns the list of commit attempts seen so far."""
    attempts: list[int] = []
    real = Store.commit

    def commit(self: Store, *args: Any, **kwargs: Any) -> Any:
        attempts.append(1)
        if len(attempts) == 1:
            action()
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Store, "commit", commit)
    return attempts


def test_capture_demotion_racing_a_user_update_keeps_the_update(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reflectgit.workflows.capture.commits import TIER_DOWN, Capture

    _capture_note(repo, "lrn-a", "sess-x", "high")
    attempts = _once_before_commit(
        monkeypatch, lambda: _cli(repo, "update", "lrn-a", "--set", "tags=[user-edit]")
    )
    cap = Capture(Config.resolve(str(repo)))
    written = cap.retier(
        None, session="sess-x", step=TIER_DOWN, op="demote", source="capture:revert", reason="r"
    )
    assert written.ids == ("lrn-a",)
    assert written.commit == git("rev-parse", "HEAD", cwd=repo).strip()
    assert len(attempts) == 2  # lost the race once, re-read, re-applied
    front = _front(repo, "documents/lrn-a.md")
    assert front["tags"] == ["user-edit"]  # the user's update survived
    assert (front["confidence"], front["confidence_num"]) == ("medium", TIER_NUM["medium"])
    ops = git("log", "--format=%(trailers:key=Reflect-Op,valueonly)", cwd=repo).split()
    assert ops[:2] == ["demote", "update"]
    assert git("status", "--porcelain", cwd=repo) == ""


def test_capture_demotion_of_a_note_forgotten_meanwhile_does_not_bring_it_back(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reflectgit.workflows.capture.commits import TIER_DOWN, Capture

    _capture_note(repo, "lrn-a", "sess-x", "high")
    _once_before_commit(monkeypatch, lambda: _cli(repo, "forget", "lrn-a"))
    cap = Capture(Config.resolve(str(repo)))
    written = cap.retier(
        None, session="sess-x", step=TIER_DOWN, op="demote", source="capture:revert", reason="r"
    )
    assert written == type(written)((), None)
    assert git("ls-tree", "--name-only", "HEAD", "documents/", cwd=repo) == ""
    assert "high" in git("show", "HEAD:.forgotten/lrn-a.md", cwd=repo)


def test_two_captures_of_one_id_at_once_keep_both_notes(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reflectgit.workflows.capture.commits import Capture, NoteDraft

    _kb_with(repo)
    cap = Capture(Config.resolve(str(repo)))

    def draft(session: str) -> NoteDraft:  # same title and body: the same first-choice id
        return NoteDraft("todo-done", "PostToolUse", "Done: ship it", "medium", "b\n", session)

    _once_before_commit(monkeypatch, lambda: cap.write_notes([draft("s-one")]))
    second = cap.write_notes([draft("s-two")])
    names = git("ls-tree", "--name-only", "HEAD", "documents/", cwd=repo).split()
    assert len(names) == 2 and f"documents/{second.ids[0]}.md" in names
    sessions = sorted(_front(repo, n)["session_id"] for n in names)
    assert sessions == ["s-one", "s-two"]  # the second capture never overwrote the first


# --------------------------------------------------------------------------- the door itself


def _kb_with(repo: Path, text: str = "v1") -> None:
    with Store.open(repo) as st:
        st.commit(
            [write("notes.txt", text.encode()), write(".reflect-git.toml", b"[team]\n")],
            build("seed", "add"),
        )


def _append(line: str) -> Callable[[Snapshot], Edit[int]]:
    def build_edit(snap: Snapshot) -> Edit[int]:
        data = snap.read("notes.txt") or b""
        return Edit(snap.attempt, [write("notes.txt", data + line.encode())], build("x", "update"))

    return build_edit


def test_a_lost_race_reads_again_and_applies_on_top(repo: Path) -> None:
    _kb_with(repo)
    with KnowledgeBase.open(repo) as kb, Store.open(repo) as other:
        inner = _append("+door")
        raced: list[int] = []

        def build_edit(snap: Snapshot) -> Edit[int]:
            if not raced:  # another writer commits between our read and our commit
                raced.append(1)
                other.commit([write("notes.txt", b"v1+other")], build("other", "update"))
            return inner(snap)

        done = kb.mutate(build_edit)
    assert done.attempts == 2 and done.value == 2
    assert git("show", "HEAD:notes.txt", cwd=repo) == "v1+other+door"


def test_a_writer_that_loses_every_race_gives_up_after_the_bound_and_writes_nothing(
    repo: Path,
) -> None:
    _kb_with(repo)
    with KnowledgeBase.open(repo) as kb, Store.open(repo) as other:
        calls: list[int] = []

        def build_edit(snap: Snapshot) -> Edit[int]:
            calls.append(1)
            edit_ = _append("+door")(snap)
            other.commit([write("notes.txt", f"other {len(calls)}".encode())], build("o", "u"))
            return edit_

        with pytest.raises(PathChanged):
            kb.mutate(build_edit)
    assert len(calls) == RETRIES
    assert git("show", "HEAD:notes.txt", cwd=repo) == f"other {RETRIES}"
    assert "+door" not in git("log", "-p", cwd=repo)


def test_the_door_validates_before_the_commit_exists(repo: Path) -> None:
    _kb_with(repo)
    head = git("rev-parse", "HEAD", cwd=repo)
    bad = b"---\ntitle: no created, no confidence\nimportance: 3\n---\nbody\n"
    with KnowledgeBase.open(repo) as kb:
        with pytest.raises(NoteError, match="importance"):
            kb.write_files([write("documents/bad.md", bad)], build("x", "add"))
        with pytest.raises(NoteError):
            kb.write_files(
                [write("documents/bad.entities.yaml", b"entities: [{name: a}]\n")],
                build("x", "add"),
            )
    assert git("rev-parse", "HEAD", cwd=repo) == head
    assert git("status", "--porcelain", cwd=repo) == ""


def test_moving_a_hand_written_invalid_note_is_not_refused(repo: Path) -> None:
    # The door validates bytes it did not read from the repository: an archive moves bytes.
    (repo / "documents").mkdir()
    (repo / "documents" / "hand.md").write_text("---\ntitle: hand\n---\nbody\n")
    git("add", ".", cwd=repo)
    git("commit", "-qm", "hand-written", cwd=repo)
    _cli(repo, "archive", "hand")
    assert git("ls-tree", "--name-only", "HEAD", "archived/", cwd=repo) == "archived/hand.md\n"


# --------------------------------------------------------------------------- the one tier table


def test_the_one_tier_table_reads_back_as_its_own_tier() -> None:
    assert TIER_NUM == {"high": 0.9, "medium": 0.6, "low": 0.3}
    for tier, num in TIER_NUM.items():
        assert tier_from_num(num) == tier


def test_no_other_tier_table_is_left() -> None:
    offenders = []
    for path in sorted((REPO_ROOT / "reflectgit").rglob("*.py")):
        rel = path.relative_to(REPO_ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(), rel)):
            if isinstance(node, ast.Dict) and len(node.keys) == 3:
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                numbers = all(
                    isinstance(v, ast.Constant) and isinstance(v.value, float) for v in node.values
                )
                if (
                    keys == {"high", "medium", "low"}
                    and numbers
                    and rel != "reflectgit/notes/note.py"
                ):
                    offenders.append(f"{rel}:{node.lineno}")
    assert offenders == []


# --------------------------------------------------------------------------- one door, by AST

DOOR = "reflectgit/workflows/kb/base.py"


def test_nothing_outside_the_git_layer_and_the_door_commits() -> None:
    """No ``.commit(`` call outside ``reflectgit/git/`` and the mutation door."""
    offenders = []
    for path in sorted((REPO_ROOT / "reflectgit").rglob("*.py")):
        rel = path.relative_to(REPO_ROOT).as_posix()
        if rel.startswith("reflectgit/git/") or rel == DOOR:
            continue
        for node in ast.walk(ast.parse(path.read_text(), rel)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("commit", "set_ref")
            ):
                offenders.append(f"{rel}:{node.lineno}: .{node.func.attr}(")
    assert offenders == []
    door = ast.parse((REPO_ROOT / DOOR).read_text())
    calls = [
        n
        for n in ast.walk(door)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "commit"
    ]
    assert len(calls) == 1  # one commit call, inside Base.mutate
