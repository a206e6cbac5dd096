"""Every write command on a KB configured each way git can be configured, checked with real git.

Each (configuration, command) pair is its own test. A KB starts from one base repository (built
once per worker and copied), gets its configuration, the user's own uncommitted state (a modified
file, a staged file, an untracked file), and then one reflect-git command. Afterwards git must
agree that nothing but the command's commit changed: ``git status`` shows only what the user had,
the index holds HEAD's tree (``git ls-files -s`` and ``git write-tree``), ``git fsck --strict`` is
clean, every note file is what git itself would check out, and the user's next plain
``git add -A && git commit`` keeps every note.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.gitconfig import (
    USER_SKIP,
    UserState,
    assert_fsck_clean,
    assert_index_holds_head,
    assert_user_commit_keeps_notes,
    assert_worktree_as_git_writes,
    commit_user_files,
    g,
    gitdir,
    gitp,
    install_fsmonitor,
    is_note_path,
    make_user_state,
    porcelain,
    refs,
    snapshot_worktree,
    tree_entries,
)
from tests.support.kb import VALID

COMMANDS = ("add", "update", "confirm", "archive", "restore", "forget", "import", "undo")
CONFIGS = (
    "plain",
    "index-v4",
    "split-index",
    "sparse-index",
    "sparse-index-in",
    "sparse-cone-in",
    "sparse-cone-out",
    "fsmonitor",
    "untracked-cache",
    "autocrlf",
    "eol-crlf",
    "filemode-false",
    "linked-worktree",
    "submodule",
    "skip-worktree",
    "stale-index-lock",
    "same-stat-edit",
)
SIDECAR_NOTE = "use-docker-for-docker-workflows-66dab4"
KB_DIRS = ("documents", "archived", ".forgotten", "review-queue")


# --------------------------------------------------------------------------- the base KB


@dataclass
class Base:
    path: Path
    target: str  # a live note with a sidecar: update, confirm, archive and forget act on it
    archived: str  # an archived note: restore acts on it
    other: str  # another live note nobody touches


_BASE: dict[str, Base] = {}


def _json(res: Any) -> Any:
    assert res.code == 0, res
    return res.json()


def _add_flags(cli: Any, kb: Path, title: str) -> dict[str, Any]:
    return _json(
        cli(
            "--kb",
            str(kb),
            "--json",
            "add",
            "--title",
            title,
            "--insight",
            f"{title}: insight",
            "--category",
            "ci",
            "--confidence",
            "high",
        )
    )


@pytest.fixture
def base(cli: Any, tmp_path_factory: pytest.TempPathFactory) -> Base:
    """The base KB, built once per worker: three notes (one with a sidecar), one archived note,
    and the user's own committed files."""
    if "base" not in _BASE:
        path = tmp_path_factory.mktemp("matrix-base") / "kb"
        g("init", "-q", "-b", "main", str(path), cwd=path.parent)
        assert cli("-q", "--kb", str(path), "init", "--no-pre-commit").code == 0
        target = _json(
            cli(
                "--kb",
                str(path),
                "--json",
                "add",
                str(VALID / f"{SIDECAR_NOTE}.md"),
                "--entities",
                str(VALID / f"{SIDECAR_NOTE}.entities.yaml"),
            )
        )["id"]
        other = _add_flags(cli, path, "Pin the CI image")["id"]
        archived = _add_flags(cli, path, "Retire the old runner")["id"]
        assert cli("--kb", str(path), "archive", archived).code == 0
        commit_user_files(path)
        _BASE["base"] = Base(path, target, archived, other)
    return _BASE["base"]


# --------------------------------------------------------------------------- configurations


def _recheckout(kb: Path) -> None:
    """Check the work tree out again, as git writes it under the new settings."""
    for path in g("ls-files", "-z", cwd=kb).split("\0"):
        if path and (kb / path).exists():
            (kb / path).unlink()
    g("checkout", "-q", "--", ".", cwd=kb)


def _note_files(kb: Path) -> list[Path]:
    return [p for d in KB_DIRS if (kb / d).is_dir() for p in (kb / d).rglob("*") if p.is_file()]


def build(config: str, tmp: Path, base: Base) -> Path:
    """Copy the base KB and configure it; returns the KB path reflect-git is pointed at."""
    if config == "linked-worktree":
        main = tmp / "main-checkout"
        shutil.copytree(base.path, main, symlinks=True)
        g("worktree", "add", "-q", "-b", "side", str(tmp / "kb"), cwd=main)
        return tmp / "kb"
    if config == "submodule":
        upstream = tmp / "upstream"
        shutil.copytree(base.path, upstream, symlinks=True)
        superproject = tmp / "super"
        g("init", "-q", "-b", "main", str(superproject), cwd=tmp)
        g("submodule", "add", "-q", str(upstream), "kb", cwd=superproject)
        g("commit", "-q", "-m", "add the KB as a submodule", cwd=superproject)
        kb = superproject / "kb"
        assert (kb / ".git").is_file()
        return kb
    kb = tmp / "kb"
    shutil.copytree(base.path, kb, symlinks=True)
    gitp("status", "--porcelain", cwd=kb)  # refresh the copied index's stat data
    if config == "index-v4":
        g("update-index", "--index-version", "4", cwd=kb)
    elif config == "split-index":
        g("config", "core.splitIndex", "true", cwd=kb)
        g("update-index", "--split-index", cwd=kb)
    elif config == "sparse-index":  # cone with only top-level files: documents/ is out
        g("sparse-checkout", "init", "--cone", "--sparse-index", cwd=kb)
    elif config == "sparse-index-in":
        g("sparse-checkout", "init", "--cone", "--sparse-index", cwd=kb)
        g("sparse-checkout", "set", *KB_DIRS, cwd=kb)
    elif config == "sparse-cone-in":
        g("sparse-checkout", "set", "--cone", *KB_DIRS, cwd=kb)
    elif config == "sparse-cone-out":
        g("sparse-checkout", "set", "--cone", "src", cwd=kb)
    elif config == "fsmonitor":
        install_fsmonitor(kb, tmp / "fsmonitor-state")
    elif config == "untracked-cache":
        g("config", "core.untrackedCache", "true", cwd=kb)
        g("update-index", "--untracked-cache", cwd=kb)
    elif config == "autocrlf":
        g("config", "core.autocrlf", "true", cwd=kb)
        _recheckout(kb)
    elif config == "eol-crlf":
        (kb / ".gitattributes").write_text("* text eol=crlf\n")
        g("add", ".gitattributes", cwd=kb)
        g("commit", "-q", "-m", "chore: CRLF in the work tree", cwd=kb)
        _recheckout(kb)
    elif config == "filemode-false":
        g("config", "core.filemode", "false", cwd=kb)
        for note in _note_files(kb):  # as on a mount where every file looks executable
            note.chmod(0o755)
    elif config == "skip-worktree":
        g("update-index", "--skip-worktree", USER_SKIP, cwd=kb)
        (kb / USER_SKIP).write_text("the user's hidden local edit\n")
    return kb


# --------------------------------------------------------------------------- commands


@dataclass
class Plan:
    args: list[str]
    target: str | None  # the note file the command rewrites, moves or deletes (if any)
    undo_target: str | None = None
    expected: dict[str, Any] = field(default_factory=dict)


def plan(command: str, kb: Path, base: Base, tmp: Path, cli: Any) -> Plan:
    t = base.target
    if command == "add":
        return Plan(
            ["add", "--title", "Matrix note", "--insight", "m", "--confidence", "high"],
            f"documents/{base.other}.md",
        )
    if command == "update":
        return Plan(["update", t, "--set", "category=changed"], f"documents/{t}.md")
    if command == "confirm":
        return Plan(["confirm", t, "--source", "matrix"], f"documents/{t}.md")
    if command == "archive":
        return Plan(["archive", t], f"documents/{t}.md")
    if command == "restore":
        return Plan(["restore", base.archived], f"archived/{base.archived}.md")
    if command == "forget":
        return Plan(["forget", t, "--reason", "matrix"], f"documents/{t}.md")
    if command == "import":
        src = tmp / "import-src"
        src.mkdir()
        for n in range(3):
            (src / f"imported-{n}.md").write_text(
                f"---\ntitle: Imported {n}\ncreated: 2026-03-04\nconfidence: low\n"
                f"key_insight: insight {n}\n---\nBody {n}\n"
            )
        return Plan(["import", str(src)], f"documents/{base.other}.md")
    assert command == "undo"
    added = _add_flags(cli, kb, "Undo target")
    return Plan(["undo"], added["path"], undo_target=added["path"])


TOUCHES_TARGET = {"update", "confirm", "archive", "restore", "forget", "undo"}


def check_effect(command: str, kb: Path, before: str, base: Base, p: Plan) -> None:
    """The command did what it says (so a no-op cannot pass the checks below)."""
    old = tree_entries(kb, before)
    new = tree_entries(kb, "HEAD")
    added = sorted(set(new) - set(old))
    removed = sorted(set(old) - set(new))
    t = base.target
    if command == "add":
        assert len([a for a in added if a.startswith("documents/")]) == 1, added
    elif command in ("update", "confirm"):
        assert new[f"documents/{t}.md"] != old[f"documents/{t}.md"]
    elif command == "archive":
        assert f"archived/{t}.md" in added and f"documents/{t}.md" in removed
        assert f"archived/{t}.entities.yaml" in added
    elif command == "restore":
        assert f"documents/{base.archived}.md" in added, added
    elif command == "forget":
        assert f"documents/{t}.md" in removed and any(a.startswith(".forgotten/") for a in added)
    elif command == "import":
        assert len([a for a in added if a.startswith("documents/imported-")]) == 3, added
    elif command == "undo":
        assert p.undo_target in removed, removed


# --------------------------------------------------------------------------- the test


def _same_stat_edit(path: Path) -> None:
    """A hand edit that keeps the file's size and mtime (``cp -p`` of an edited copy)."""
    data = path.read_bytes()
    edited = data.replace(b"a", b"A", 1) if b"a" in data else data[:-1] + b"#"
    assert len(edited) == len(data) and edited != data
    copy = path.parent.parent.parent / f"edited-{path.name}"
    copy.write_bytes(edited)
    st = path.stat()
    os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns))
    subprocess.run(["cp", "-p", str(copy), str(path)], check=True)
    assert path.stat().st_mtime_ns == st.st_mtime_ns and path.stat().st_size == st.st_size


def _wait_for_the_next_second(path: Path, scratch: Path) -> None:
    """git 2.39 (built without USE_NSEC) compares ctime to the second: an edit in the same
    second as git's last look is invisible to git too. Wait until the file system's clock has
    moved past the file's ctime second, so the edit is one git sees (and so must we)."""
    after = path.stat().st_ctime_ns // 1_000_000_000
    probe = scratch / "clock-probe"
    while True:
        probe.write_bytes(b"tick")
        if probe.stat().st_ctime_ns // 1_000_000_000 > after:
            break
        time.sleep(0.02)
    probe.unlink()


def tags(kb: Path) -> dict[str, str]:
    """``git ls-files -t``: H tracked, S skip-worktree, ... per path."""
    out = g("ls-files", "-t", "-z", cwd=kb)
    return {item[2:]: item[0] for item in out.split("\0") if item}


SPARSE_WITHOUT_NOTES = {"sparse-index", "sparse-cone-out"}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("config", CONFIGS)
def test_matrix(config: str, command: str, tmp_path: Path, cli: Any, base: Base) -> None:
    kb = build(config, tmp_path, base)
    p = plan(command, kb, base, tmp_path, cli)
    rg = ["--kb", str(kb), *p.args]
    user: UserState = make_user_state(kb)
    expected = set(user.porcelain)
    edited: set[str] = set()
    if config == "same-stat-edit":
        assert p.target is not None
        os.utime(kb / p.target, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
    porcelain(kb)  # the user looks: git refreshes the index (fsmonitor token, untracked cache)
    if config in ("autocrlf", "eol-crlf"):
        for note in _note_files(kb):  # "after a checkout and a touch"
            os.utime(note)
    if config == "same-stat-edit":
        assert p.target is not None
        _wait_for_the_next_second(kb / p.target, tmp_path)
        _same_stat_edit(kb / p.target)
        expected.add(f" M {p.target}")
        edited.add(p.target)
        assert porcelain(kb) == expected, "git sees the same-stat edit"
    lock = gitdir(kb) / "index.lock"
    if config == "stale-index-lock":
        lock.touch()
    before_head = g("rev-parse", "HEAD", cwd=kb).strip()
    before_refs = refs(kb)
    before_files = snapshot_worktree(kb)
    before_tags = tags(kb)
    index_file = gitdir(kb) / "index"
    before_index = index_file.read_bytes()

    refuse = config == "stale-index-lock" or (
        config == "same-stat-edit" and command in TOUCHES_TARGET
    )
    res = cli(*rg)
    if refuse:
        assert res.code == 1, f"expected a refusal (exit 1): {res}"
        assert "error:" in res.err and "hint:" in res.err, res
        assert refs(kb) == before_refs, "a refused command moved a ref"
        assert snapshot_worktree(kb) == before_files, "a refused command wrote to the work tree"
        assert index_file.read_bytes() == before_index, "a refused command wrote the index"
        if config == "stale-index-lock":
            assert lock.exists(), "reflect-git removed a lock it does not own"
            lock.unlink()
            assert porcelain(kb) == expected
            res = cli(*rg)  # and with the lock gone, the command works
        else:
            assert (kb / p.target).read_bytes() != (  # type: ignore[operator]
                subprocess.run(
                    ["git", "cat-file", "--filters", f"HEAD:{p.target}"],
                    cwd=kb,
                    capture_output=True,
                    check=True,
                ).stdout
            )
    if not (refuse and config == "same-stat-edit"):
        assert res.code == 0, res
        check_effect(command, kb, before_head, base, p)
        assert g("rev-parse", "HEAD~1", cwd=kb).strip() == before_head or command == "import"
    assert not lock.exists(), "index.lock left behind"
    check_git_agrees(kb, config, user, expected, edited, before_tags, before_files, command)


def check_git_agrees(
    kb: Path,
    config: str,
    user: UserState,
    expected: set[str],
    edited: set[str],
    before_tags: dict[str, str],
    before_files: dict[str, bytes],
    what: str,
) -> None:
    """Everything git says after our command(s): status, index, fsck, work tree, flags, and
    the user's next commit."""
    assert porcelain(kb) == expected, f"git status after {what}"
    assert_index_holds_head(kb, user)
    assert_fsck_clean(kb)
    notes = [path for path in tree_entries(kb, "HEAD") if is_note_path(path)]
    assert_worktree_as_git_writes(kb, notes, skip=edited)
    for path, data in user.files.items():
        assert (kb / path).read_bytes() == data, f"the user's {path} changed"
    for path in edited:
        assert (kb / path).read_bytes() == before_files[path], f"the user's edit of {path} is lost"
    after_tags = tags(kb)
    flipped = {
        path: (tag, after_tags[path])
        for path, tag in before_tags.items()
        if not is_note_path(path) and path in after_tags and after_tags[path] != tag
    }
    assert not flipped, f"index flags of the user's files changed (ls-files -t): {flipped}"
    if config in SPARSE_WITHOUT_NOTES:  # as `git checkout` leaves paths outside the cone
        outside = {p: t for p, t in after_tags.items() if is_note_path(p)}
        on_disk = sorted(p for p in outside if (kb / p).exists())
        unflagged = sorted(p for p, t in outside.items() if t != "S")
        assert not on_disk and not unflagged, (
            f"notes outside the sparse cone: in the work tree {on_disk[:5]}, without the "
            f"skip-worktree bit {unflagged[:5]}"
        )
    if config == "skip-worktree":
        assert g("ls-files", "-v", "--", USER_SKIP, cwd=kb).startswith("S "), "skip-worktree lost"
        assert (kb / USER_SKIP).read_text() == "the user's hidden local edit\n"
    assert_user_commit_keeps_notes(kb, edited)
    assert porcelain(kb) == set(), "after the user's own commit"


SEQUENCE_CONFIGS = [c for c in CONFIGS if c not in ("stale-index-lock", "same-stat-edit")]


@pytest.mark.parametrize("config", SEQUENCE_CONFIGS)
def test_every_command_in_a_row(config: str, tmp_path: Path, cli: Any, base: Base) -> None:
    """add, update, confirm, archive, restore, forget, import and undo back to back, with no
    git command in between (index extensions copied through stale pile up here: the
    fsmonitor ``BUG: ... has more entries than the index`` abort came after add + undo)."""
    kb = build(config, tmp_path, base)
    user = make_user_state(kb)
    porcelain(kb)
    if config in ("autocrlf", "eol-crlf"):
        for note in _note_files(kb):
            os.utime(note)
    before_tags = tags(kb)
    src = tmp_path / "import-src"
    src.mkdir()
    (src / "imported-in-a-row.md").write_text(
        "---\ntitle: Imported in a row\ncreated: 2026-03-04\nconfidence: low\n"
        "key_insight: k\n---\nBody\n"
    )
    t = base.target
    steps = [
        ["add", "--title", "In a row", "--insight", "r", "--confidence", "high"],
        ["update", t, "--set", "category=changed"],
        ["confirm", t, "--source", "row"],
        ["archive", t],
        ["restore", t],
        ["forget", base.other, "--reason", "row"],
        ["import", str(src)],
        ["add", "--title", "In a row, last", "--insight", "l", "--confidence", "high"],
        ["undo"],
    ]
    head_before = g("rev-parse", "HEAD", cwd=kb).strip()
    for step in steps:
        res = cli("--kb", str(kb), *step)
        assert res.code == 0, f"{step[0]}: {res}"
    assert int(g("rev-list", "--count", f"{head_before}..HEAD", cwd=kb)) >= len(steps)
    assert not (gitdir(kb) / "index.lock").exists()
    check_git_agrees(
        kb, config, user, set(user.porcelain), set(), before_tags, {}, "the whole sequence"
    )


# --------------------------------------------------------------------------- index.lock, as filed


@pytest.mark.parametrize("commit", ["commit -am", "add -A && commit -m"])
def test_a_stale_index_lock_refuses_add_and_the_next_commit_keeps_every_note(
    tmp_path: Path, commit: str, base: Base
) -> None:
    """``touch KB/.git/index.lock; reflect-git add note.md`` -> exit 1, nothing written;
    ``rm index.lock; git commit -am x`` keeps every note (the issue's reproduction, 5 times)."""
    script = Path(sys.executable).parent / "reflect-git"  # the console script of this venv
    exe = [str(script)] if script.exists() else [sys.executable, "-m", "reflectgit"]
    for attempt in range(5):
        kb = tmp_path / f"kb{attempt}"
        shutil.copytree(base.path, kb, symlinks=True)
        gitp("status", cwd=kb)
        (kb / "user-mod.txt").write_text(f"the user's edit {attempt}\n")
        note = tmp_path / f"note{attempt}.md"
        note.write_text(
            f"---\ntitle: Locked out {attempt}\ncreated: 2026-03-04\nconfidence: high\n"
            f"key_insight: the index was locked\n---\nBody\n"
        )
        notes_before = sorted(p for p in tree_entries(kb, "HEAD") if is_note_path(p))
        head_before = g("rev-parse", "HEAD", cwd=kb).strip()
        files_before = snapshot_worktree(kb)
        (kb / ".git" / "index.lock").touch()
        proc = subprocess.run(
            [*exe, "--kb", str(kb), "add", str(note)], capture_output=True, text=True
        )
        assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
        assert "error:" in proc.stderr and "hint:" in proc.stderr, proc.stderr
        assert g("rev-parse", "HEAD", cwd=kb).strip() == head_before, "HEAD moved"
        assert snapshot_worktree(kb) == files_before, "the work tree changed"
        (kb / ".git" / "index.lock").unlink()
        if commit == "commit -am":
            g("commit", "-q", "-am", "x", cwd=kb)
        else:
            g("add", "-A", cwd=kb)
            g("commit", "-q", "-m", "x", cwd=kb)
        notes_after = sorted(p for p in tree_entries(kb, "HEAD") if is_note_path(p))
        assert notes_after == notes_before, f"attempt {attempt}: the user's commit lost notes"
        assert g("diff", "--name-only", "HEAD~1", "HEAD", cwd=kb).split() == ["user-mod.txt"]


# --------------------------------------------------------------------------- fsmonitor, as filed


def test_fsmonitor_add_then_undo_leaves_git_working(tmp_path: Path, cli: Any, base: Base) -> None:
    """The issue's reproduction: with a real core.fsmonitor hook and a modified file, one
    ``add`` must not hide the modification from ``git status`` / ``git commit -am``, and
    ``undo`` after it must not make git abort (``BUG: fsmonitor.c ... has more entries``)."""
    kb = build("fsmonitor", tmp_path, base)
    (kb / "user-mod.txt").write_text("modified by the user\n")
    assert porcelain(kb) == {" M user-mod.txt"}
    assert (
        cli(
            "--kb", str(kb), "add", "--title", "Monitored", "--insight", "m", "--confidence", "high"
        ).code
        == 0
    )
    assert porcelain(kb) == {" M user-mod.txt"}, "git status hides the user's modified file"
    assert cli("--kb", str(kb), "undo").code == 0
    for args in (["status", "--porcelain"], ["diff", "--stat"], ["commit", "-q", "-am", "x"]):
        proc = gitp(*args, cwd=kb)
        assert proc.returncode == 0 and "BUG" not in proc.stderr, f"git {args[0]}: {proc.stderr}"
    assert g("show", "--name-only", "--format=", "HEAD", cwd=kb).split() == ["user-mod.txt"], (
        "git commit -am did not commit the user's modified file"
    )
