"""The one reader of a unified diff (``notes/diffs.py``), on real ``git diff -U0 -M`` output of
real repositories: a file's header is read only before its first hunk, so a content line that
begins with ``---`` or ``+++`` (a removed ``-- comment``, an added ``++i;``) is content, and
headers (new, deleted, renamed, binary files, ``\\ No newline``) still read as headers."""

from __future__ import annotations

from pathlib import Path

from reflectgit.git import codebase
from reflectgit.notes import diffs
from reflectgit.notes.sweeps import sweeps
from tests.conftest import git

LUA = """local M = {}

-- writes nothing to /dev/null
function M.first(t)
  return t[1]
end

return M
"""

C = """int count(int *xs, int n) {
    int i = 0;
    while (xs[i]) {
    }
    return i;
}
"""


def commit(repo: Path, files: dict[str, str | bytes | None], message: str) -> str:
    """Write (or, for None, remove) ``files`` and commit them; the diff of that commit."""
    for name, text in files.items():
        path = repo / name
        if text is None:
            git("rm", "-q", name, cwd=repo)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        git("add", name, cwd=repo)
    git("commit", "-q", "--allow-empty", "-m", message, cwd=repo)
    if git("rev-list", "--count", "HEAD", cwd=repo).strip() == "1":
        return ""
    return codebase.patch(repo, "HEAD^", "HEAD")


def by_path(patch: str) -> dict[str, diffs.FileDiff]:
    return {f.new or f.old or "": f for f in diffs.parse(patch)}


def test_a_removed_dash_dash_comment_is_a_removed_line_not_a_header(repo: Path) -> None:
    commit(repo, {"m.lua": LUA}, "module")
    patch = commit(repo, {"m.lua": LUA.replace("-- writes nothing to /dev/null\n", "")}, "drop")
    assert "\n--- writes nothing to /dev/null\n" in patch  # git wrote it so
    (lua,) = diffs.parse(patch)
    # the line names /dev/null, as a deleted file's header does: still the file's content
    assert (lua.status, lua.old, lua.new) == ("modified", "m.lua", "m.lua")
    assert [(h.gone, h.came) for h in lua.hunks] == [(["-- writes nothing to /dev/null"], [])]


def test_an_added_plus_plus_line_is_an_added_line_not_a_header(repo: Path) -> None:
    commit(repo, {"count.c": C}, "count")
    patch = commit(repo, {"count.c": C.replace("    }\n", "++i;\n    }\n")}, "count up")
    assert "\n+++i;\n" in patch  # git wrote it so
    (c,) = diffs.parse(patch)
    assert (c.status, c.old, c.new) == ("modified", "count.c", "count.c")
    assert [(h.gone, h.came) for h in c.hunks] == [([], ["++i;"])]


def test_file_headers_still_read_as_headers(repo: Path) -> None:
    commit(repo, {"keep.py": "def a():\n    return 1\n", "gone.py": "x = 1\n",
                  "old_name.py": "def moved():\n" + "    y = 2\n" * 20}, "start")  # fmt: skip
    patch = commit(
        repo,
        {
            "keep.py": "def a():\n    return 2\n",
            "gone.py": None,
            "new.py": "def fresh():\n    pass\n",
            "logo.bin": b"\x00\x01\x02binary\x00",
        },
        "edit, delete, add",
    )
    git("mv", "old_name.py", "new_name.py", cwd=repo)
    (repo / "new_name.py").write_text("def moved():\n" + "    y = 2\n" * 19 + "    y = 3\n")
    git("add", "new_name.py", cwd=repo)
    git("commit", "-q", "-m", "rename", cwd=repo)
    renamed = codebase.patch(repo, "HEAD^", "HEAD")
    files = by_path(patch)
    assert {p: f.status for p, f in files.items()} == {
        "keep.py": "modified",
        "gone.py": "deleted",
        "new.py": "added",
        "logo.bin": "added",
    }
    assert files["keep.py"].symbols == {"a"}
    assert files["new.py"].symbols == {"fresh"}
    assert [(h.gone, h.came) for h in files["gone.py"].hunks] == [(["x = 1"], [])]
    assert files["logo.bin"].hunks == []  # "Binary files ... differ": no lines
    (moved,) = diffs.parse(renamed)
    assert (moved.status, moved.old, moved.new) == ("renamed", "old_name.py", "new_name.py")
    assert [(h.gone, h.came) for h in moved.hunks] == [(["    y = 2"], ["    y = 3"])]


def test_no_newline_at_end_of_file_is_no_line(repo: Path) -> None:
    commit(repo, {"a.txt": "one\ntwo"}, "a")
    patch = commit(repo, {"a.txt": "one\nthree"}, "b")
    assert "\\ No newline at end of file" in patch
    (a,) = diffs.parse(patch)
    assert [(h.gone, h.came) for h in a.hunks] == [(["two"], ["three"])]


def test_a_line_is_cut_only_at_its_newline(repo: Path) -> None:
    # U+2028 and a form feed inside a line of code are part of that line
    commit(repo, {"s.js": "const s = 'a';\n"}, "a")
    patch = commit(repo, {"s.js": "const s = 'a\u2028b\x0cc';\n"}, "b")
    (js,) = diffs.parse(patch)
    assert js.hunks[0].came == ["const s = 'a\u2028b\x0cc';"]


def test_a_sweep_of_dash_dash_comments_is_read_from_both_sides(repo: Path) -> None:
    # every comment's "nil" become "false" in three functions apart: the edit is nil -> false
    # (the removed ``--- ...`` lines are read; skipping them made it a comment added)
    body = "".join(
        f"-- {name} returns nil when empty\nfunction {name}(t)\n  return t[1]\nend\n\n"
        for name in ("first", "second", "third")
    )
    commit(repo, {"m.lua": body}, "m")
    patch = commit(repo, {"m.lua": body.replace("nil", "false")}, "false, not nil")
    assert sweeps(diffs.parse(patch)) == {(("nil",), ("false",))}


def test_quoted_paths_are_read_unquoted(repo: Path) -> None:
    # git quotes a path with a byte above 0x7f (core.quotePath, on by default) in the
    # ``diff --git`` line and in ``rename from``/``rename to``; a plain path is not quoted
    commit(repo, {"café.py": "def brew():\n" + "    cup = 1\n" * 20, "plain.py": "x = 1\n"},
           "start")  # fmt: skip
    patch = commit(repo, {"café.py": "def brew():\n" + "    cup = 1\n" * 19 + "    cup = 2\n",
                          "plain.py": "x = 2\n"}, "edit")  # fmt: skip
    assert '"a/caf' in patch  # the quoting this test is about
    assert {p: f.status for p, f in by_path(patch).items()} == {
        "café.py": "modified",
        "plain.py": "modified",
    }
    git("mv", "café.py", "thé.py", cwd=repo)
    git("commit", "-q", "-m", "rename", cwd=repo)
    renamed = codebase.patch(repo, "HEAD^", "HEAD")
    assert "rename from " in renamed
    (moved,) = diffs.parse(renamed)
    assert (moved.status, moved.old, moved.new) == ("renamed", "café.py", "thé.py")


def test_a_hunk_keeps_the_definition_git_names_above_it(repo: Path) -> None:
    tests = "def test_prefill():\n    pool = make()\n    assert pool.size == 2\n"
    commit(repo, {"test_pool.py": tests}, "test")
    patch = commit(repo, {"test_pool.py": tests.replace("== 2", "== 3")}, "expect 3")
    (f,) = diffs.parse(patch)
    assert [(h.gone, h.came, h.context) for h in f.hunks] == [
        (["    assert pool.size == 2"], ["    assert pool.size == 3"], "def test_prefill():")
    ]


def test_a_hunk_with_no_definition_above_it_has_no_context(repo: Path) -> None:
    commit(repo, {"notes.txt": "one\ntwo\n"}, "notes")
    patch = commit(repo, {"notes.txt": "zero\none\ntwo\n"}, "zero first")
    (f,) = diffs.parse(patch)
    assert [(h.gone, h.came, h.context) for h in f.hunks] == [([], ["zero"], "")]


def blob(repo: Path, rev: str, path: str) -> str:
    return git("rev-parse", f"{rev}:{path}", cwd=repo).strip()


def test_each_version_carries_its_blob_id_whole(repo: Path) -> None:
    # ``codebase.patch`` asks for ``--full-index``: each side is read by the id git names
    commit(repo, {"keep.py": "def a():\n    return 1\n", "gone.py": "x = 1\n"}, "start")
    patch = commit(
        repo, {"keep.py": "def a():\n    return 2\n", "gone.py": None, "new.py": "y = 1\n"}, "edit"
    )
    files = by_path(patch)
    assert files["keep.py"].blobs == (blob(repo, "HEAD^", "keep.py"), blob(repo, "HEAD", "keep.py"))
    assert files["gone.py"].blobs == (blob(repo, "HEAD^", "gone.py"), None)  # no new side
    assert files["new.py"].blobs == (None, blob(repo, "HEAD", "new.py"))  # no old side


def test_no_blob_ids_without_a_whole_index_line(repo: Path) -> None:
    commit(repo, {"old_name.py": "def moved():\n" + "    y = 2\n" * 20}, "start")
    git("mv", "old_name.py", "new_name.py", cwd=repo)
    git("commit", "-q", "-m", "rename only", cwd=repo)
    (moved,) = diffs.parse(codebase.patch(repo, "HEAD^", "HEAD"))
    assert moved.status == "renamed" and moved.blobs == (None, None)  # a pure rename: no line
    commit(repo, {"new_name.py": "def moved():\n" + "    y = 3\n" * 20}, "edit")
    short = git("diff", "-U0", "HEAD^", "HEAD", cwd=repo)  # abbreviated ids, as git's default
    assert "\nindex " in short
    (edited,) = diffs.parse(short)
    assert edited.status == "modified" and edited.blobs == (None, None)
