"""Helpers for the git-configuration matrix and the kill trials: KBs configured the many ways
git can be configured, a real fsmonitor hook, a user's own uncommitted state, and the checks
(all made with real git) that a reflect-git command left the repository as git expects."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

NOTE_DIRS = ("documents/", "archived/", ".forgotten/")


def gitp(
    *args: str, cwd: Path | str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run real git; return the whole process (callers look at the code and stderr too)."""
    full = dict(os.environ)
    if env:
        full.update(env)
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, env=full, check=False
    )


def g(*args: str, cwd: Path | str) -> str:
    """Run real git, fail loudly, return stdout."""
    proc = gitp(*args, cwd=cwd)
    if proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc.stdout


def gitdir(kb: Path) -> Path:
    """The KB's own git directory (a linked worktree's or a submodule's, too)."""
    return Path(g("rev-parse", "--absolute-git-dir", cwd=kb).strip())


def is_note_path(path: str) -> bool:
    return path.startswith(NOTE_DIRS)


# --------------------------------------------------------------------------- fsmonitor

FSMONITOR_HOOK = r'''#!{python}
"""A real core.fsmonitor hook speaking protocol v2, without a daemon.

git runs ``hook 2 <token>``; we answer with a new token, NUL, then every path that may have
changed since <token>, NUL-separated (or "/" when we do not know the token: everything).
A token names a snapshot of the work tree's lstat data; the answer is the set of paths whose
stat data differ from that snapshot (new, deleted or changed), plus paths that were racy
(changed in the same clock tick as the snapshot) when it was taken.
"""
import json, os, sys

WORKTREE = {worktree!r}
STATE = {state!r}


def scan():
    snap = {{}}
    for root, dirs, files in os.walk(WORKTREE):
        rel_root = os.path.relpath(root, WORKTREE)
        rel_root = "" if rel_root == "." else rel_root
        if rel_root == "":
            dirs[:] = [d for d in dirs if d != ".git"]
            files = [f for f in files if f != ".git"]
        for name in files:
            rel = os.path.join(rel_root, name) if rel_root else name
            try:
                st = os.lstat(os.path.join(root, name))
            except FileNotFoundError:
                continue
            snap[rel] = [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode]
    return snap


def main():
    old = sys.argv[2] if len(sys.argv) > 2 else ""
    os.makedirs(STATE, exist_ok=True)
    counter = os.path.join(STATE, "counter")
    n = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
    with open(counter, "w") as fh:
        fh.write(str(n))
    token = "reflect-fsm:%d" % n
    marker = os.path.join(STATE, "marker-%d" % n)
    with open(marker, "w") as fh:
        fh.write("tick")
    tick = os.stat(marker).st_mtime_ns  # the file system's clock, before the scan
    snap = scan()
    racy = sorted(p for p, s in snap.items() if max(s[0], s[1]) >= tick)
    with open(os.path.join(STATE, "snap-%d.json" % n), "w") as fh:
        json.dump({{"snap": snap, "racy": racy}}, fh)
    with open(os.path.join(STATE, "calls.log"), "a") as fh:
        fh.write("%s -> %s\n" % (old, token))
    prev = None
    if old.startswith("reflect-fsm:"):
        path = os.path.join(STATE, "snap-%s.json" % old.split(":", 1)[1])
        if os.path.exists(path):
            prev = json.load(open(path))
    if prev is None:
        changed = ["/"]
    else:
        before = prev["snap"]
        changed = sorted(
            set(prev["racy"])
            | {{p for p in snap if before.get(p) != snap[p]}}
            | {{p for p in before if p not in snap}}
        )
    sys.stdout.write(token + "\0" + "\0".join(changed))
    sys.stdout.flush()


main()
'''


def install_fsmonitor(kb: Path, state: Path) -> Path:
    hook = state.parent / f"{state.name}-hook"
    hook.write_text(
        FSMONITOR_HOOK.format(python=sys.executable, worktree=str(kb), state=str(state))
    )
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)
    g("config", "core.fsmonitor", str(hook), cwd=kb)
    g("config", "core.fsmonitorHookVersion", "2", cwd=kb)
    return hook


# --------------------------------------------------------------------------- the user's state

USER_MODIFIED = "user-mod.txt"
USER_STAGED = "user-staged.txt"
USER_UNTRACKED = "user-untracked.txt"
USER_SKIP = "user-skip.txt"


def commit_user_files(kb: Path) -> None:
    """Files of the user's own, committed by the user (not by reflect-git)."""
    (kb / USER_MODIFIED).write_text("the user's file\n")
    (kb / USER_SKIP).write_text("a file the user marks skip-worktree\n")
    (kb / "src").mkdir(exist_ok=True)
    (kb / "src" / "app.py").write_text("print('hello')\n")
    g("add", USER_MODIFIED, USER_SKIP, "src/app.py", cwd=kb)
    g("commit", "-q", "-m", "chore: the user's own files", cwd=kb)


@dataclass
class UserState:
    """What the user had before the reflect-git command: we must never touch it."""

    porcelain: set[str]
    staged_blob: str
    files: dict[str, bytes] = field(default_factory=dict)


def make_user_state(kb: Path) -> UserState:
    with (kb / USER_MODIFIED).open("a") as fh:
        fh.write("an unsaved edit\n")
    (kb / USER_STAGED).write_text("staged, not committed\n")
    g("add", USER_STAGED, cwd=kb)
    (kb / USER_UNTRACKED).write_text("untracked scratch\n")
    staged = g("ls-files", "-s", "--", USER_STAGED, cwd=kb).split()[1]
    files = {p: (kb / p).read_bytes() for p in (USER_MODIFIED, USER_STAGED, USER_UNTRACKED)}
    return UserState(
        porcelain={f" M {USER_MODIFIED}", f"A  {USER_STAGED}", f"?? {USER_UNTRACKED}"},
        staged_blob=staged,
        files=files,
    )


# --------------------------------------------------------------------------- checks


def porcelain(kb: Path) -> set[str]:
    """``git status --porcelain`` as a set of lines; git must not die doing it."""
    proc = gitp("status", "--porcelain", cwd=kb)
    assert proc.returncode == 0 and "BUG" not in proc.stderr, (
        f"git status died ({proc.returncode}): {proc.stderr}"
    )
    return {line for line in proc.stdout.splitlines() if line}


def tree_entries(kb: Path, rev: str) -> dict[str, tuple[str, str]]:
    out = g("ls-tree", "-r", "-z", rev, cwd=kb)
    entries = {}
    for item in out.split("\0"):
        if not item:
            continue
        meta, path = item.split("\t", 1)
        mode, _type, sha = meta.split()
        entries[path] = (mode, sha)
    return entries


def index_entries(kb: Path) -> dict[str, tuple[str, str]]:
    out = g("ls-files", "-s", "-z", cwd=kb)
    entries: dict[str, tuple[str, str]] = {}
    for item in out.split("\0"):
        if not item:
            continue
        meta, path = item.split("\t", 1)
        mode, sha, stage = meta.split()
        assert stage == "0", f"unmerged index entry {path} (stage {stage})"
        entries[path] = (mode, sha)
    return entries


def note_entries(entries: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    return {p: e for p, e in entries.items() if is_note_path(p)}


def assert_index_holds_head(kb: Path, user: UserState | None) -> None:
    """The index is HEAD's tree plus only the user's staged file (``git write-tree`` too)."""
    head = tree_entries(kb, "HEAD")
    index = index_entries(kb)
    if user is not None:
        assert index.pop(USER_STAGED, None) == ("100644", user.staged_blob), (
            "the user's staged file is no longer staged as it was"
        )
    missing = sorted(set(head) - set(index))
    extra = sorted(set(index) - set(head))
    differ = sorted(p for p in set(head) & set(index) if head[p] != index[p])
    assert not (missing or extra or differ), (
        f"index and HEAD disagree: missing from index {missing[:10]}, only in index "
        f"{extra[:10]}, different {[(p, head[p], index[p]) for p in differ[:10]]}"
    )
    written = gitp("write-tree", cwd=kb)
    assert written.returncode == 0, f"git write-tree failed: {written.stderr}"
    tree = written.stdout.strip()
    if user is None:
        assert tree == g("rev-parse", "HEAD^{tree}", cwd=kb).strip()
    else:
        got = tree_entries(kb, tree)
        assert got.pop(USER_STAGED, None) == ("100644", user.staged_blob)
        assert got == head, "git write-tree (cache-tree) does not hold HEAD's tree"


def assert_fsck_clean(kb: Path) -> None:
    proc = gitp("fsck", "--strict", "--no-dangling", "--no-progress", cwd=kb)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0 and not any(
        word in text for word in ("error", "missing", "broken", "warning", "bad")
    ), f"git fsck --strict: {text}"


def assert_worktree_as_git_writes(kb: Path, paths: list[str], skip: set[str] = frozenset()) -> None:  # type: ignore[assignment]
    """Each present note file holds exactly what git itself would check out (eol, filters)."""
    for path in paths:
        if path in skip or not (kb / path).exists():
            continue
        want = subprocess.run(
            ["git", "cat-file", "--filters", f"HEAD:{path}"],
            cwd=kb,
            capture_output=True,
            check=False,
        )
        if want.returncode != 0:
            continue  # not in HEAD (a deleted path whose file is gone is checked by status)
        assert (kb / path).read_bytes() == want.stdout, (
            f"{path} in the work tree is not what git would check out "
            f"(first bytes {(kb / path).read_bytes()[:60]!r} vs {want.stdout[:60]!r})"
        )


def assert_user_commit_keeps_notes(kb: Path, edited: set[str] = frozenset()) -> None:  # type: ignore[assignment]
    """A plain ``git add -A && git commit`` keeps every note HEAD has, unchanged."""
    before = {p: e for p, e in note_entries(tree_entries(kb, "HEAD")).items() if p not in edited}
    add = gitp("add", "-A", cwd=kb)
    assert add.returncode == 0, f"git add -A failed: {add.stderr}"
    commit = gitp("commit", "-q", "--allow-empty", "-m", "x", cwd=kb)
    assert commit.returncode == 0, f"git commit failed: {commit.stderr}"
    after = note_entries(tree_entries(kb, "HEAD"))
    lost = sorted(set(before) - set(after))
    changed = sorted(p for p in before if p in after and after[p] != before[p])
    assert not lost and not changed, (
        f"the user's next commit deleted {len(lost)} note(s) {lost[:5]} and changed {changed[:5]}"
    )


def changed_paths(kb: Path, old: str, new: str = "HEAD") -> list[str]:
    out = g("diff", "--name-only", "--no-renames", "-z", old, new, cwd=kb)
    return [p for p in out.split("\0") if p]


def snapshot_worktree(kb: Path) -> dict[str, bytes]:
    files = {}
    for root, dirs, names in os.walk(kb):
        if Path(root) == kb:
            dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            full = Path(root) / name
            if full == kb / ".git":
                continue
            files[str(full.relative_to(kb))] = full.read_bytes() if not full.is_symlink() else b""
    return files


def refs(kb: Path) -> str:
    return g("for-each-ref", "--format=%(refname) %(objectname)", cwd=kb) + g(
        "rev-parse", "HEAD", cwd=kb
    )
