"""``codebase.follow``: where a file went, commit by commit, in real git histories, with
``git log --follow`` (which walks back from the file's path at HEAD) as the oracle wherever it
applies: a file moved and then rewritten, a deletion, a deletion and an unrelated addition,
renames back and forth, two files moved in one commit, a rename brought in by a merge, a copy,
paths with spaces and accents."""

from __future__ import annotations

from pathlib import Path

import pytest

from reflectgit.git import codebase
from tests.conftest import git
from tests.support.coderepo import CodeRepo

# A file long enough that rewriting most of it takes it below git's 50% rename similarity.
ORIGINAL = "".join(f"def step_{i}(x):\n    return x + {i}\n\n\n" for i in range(12))
REWRITTEN = ORIGINAL.replace("return x + ", "return x * ").replace("(x)", "(value)")


@pytest.fixture
def code(tmp_path: Path) -> CodeRepo:
    repo = CodeRepo(tmp_path / "code")
    repo.write("steps.py", ORIGINAL).write("keep.py", "KEEP = 1\n").commit("first")
    return repo


def followed_back(code: CodeRepo, path: str) -> list[str]:
    """Every name ``git log --follow`` gives the file at ``path`` at HEAD, newest first."""
    out = git(
        "-c", "core.quotePath=false", "log", "--follow", "--name-only", "--format=", "--", path,
        cwd=code.path,
    )  # fmt: skip
    return list(dict.fromkeys(line for line in out.splitlines() if line))


def whole_range(code: CodeRepo, since: str) -> dict[str, str]:
    """The whole-range ``git diff -M`` statuses, by old path."""
    return {c.old: c.status for c in codebase.changes(code.path, since) if c.old is not None}


def test_a_file_moved_then_rewritten_is_followed_where_a_whole_range_diff_loses_it(
    code: CodeRepo,
) -> None:
    start = code.head()
    moved = code.move("steps.py", "src/steps.py").commit("move into src")
    code.write("src/steps.py", REWRITTEN).commit("rewrite the steps")
    assert whole_range(code, start)["steps.py"] == "D"  # the case a single diff misses
    trail = codebase.follow(code.path, start, "HEAD", ["steps.py", "keep.py"])
    assert trail["steps.py"].now == "src/steps.py"
    assert [c.sha for c in trail["steps.py"].renames] == [moved]
    assert trail["steps.py"].renames[0].subject == "move into src"
    assert trail["steps.py"].names == ("steps.py", "src/steps.py")
    assert followed_back(code, "src/steps.py") == ["src/steps.py", "steps.py"]  # the oracle
    # a file no commit renamed or deleted stays where it was
    assert trail["keep.py"].now == "keep.py" and trail["keep.py"].renames == ()


def test_a_deleted_file_ends_its_trail_at_the_deleting_commit(code: CodeRepo) -> None:
    start = code.head()
    gone = code.delete("steps.py").commit("drop the steps")
    code.write("keep.py", "KEEP = 2\n").commit("later")
    trail = codebase.follow(code.path, start, "HEAD", ["steps.py"])["steps.py"]
    assert trail.now is None and trail.ended is not None and trail.ended.sha == gone


def test_a_deletion_then_a_different_file_elsewhere_is_no_rename(code: CodeRepo) -> None:
    start = code.head()
    code.delete("steps.py").commit("drop the steps")
    code.write("lib/other.py", "OTHER = True\n").commit("something else")
    assert codebase.follow(code.path, start, "HEAD", ["steps.py"])["steps.py"].now is None
    assert "steps.py" not in followed_back(code, "lib/other.py")


def test_a_name_added_again_after_the_trail_ended_is_another_file(code: CodeRepo) -> None:
    start = code.head()
    code.move("steps.py", "src/steps.py").commit("move into src")
    gone = code.delete("src/steps.py").commit("drop the steps")
    code.write("src/steps.py", ORIGINAL).commit("the same name, added again")
    trail = codebase.follow(code.path, start, "HEAD", ["steps.py"])["steps.py"]
    assert trail.now is None and trail.ended is not None and trail.ended.sha == gone
    # (no oracle here: ``git log --follow`` follows a name through its deletion)


def test_renames_back_and_forth_end_where_the_last_one_put_the_file(code: CodeRepo) -> None:
    start = code.head()
    there = code.move("steps.py", "old/steps.py").commit("there")
    back = code.move("old/steps.py", "steps.py").commit("and back")
    trail = codebase.follow(code.path, start, "HEAD", ["steps.py"])["steps.py"]
    assert trail.now == "steps.py" and [c.sha for c in trail.renames] == [there, back]
    further = code.move("steps.py", "src/steps.py").commit("further")
    code.write("src/steps.py", REWRITTEN).commit("rewrite")
    trail = codebase.follow(code.path, start, "HEAD", ["steps.py"])["steps.py"]
    assert trail.now == "src/steps.py"
    assert [c.sha for c in trail.renames] == [there, back, further]
    assert followed_back(code, "src/steps.py") == ["src/steps.py", "steps.py", "old/steps.py"]


def test_two_files_moved_in_one_commit_each_go_their_own_way(code: CodeRepo) -> None:
    start = code.head()
    both = code.move("steps.py", "pkg/a.py").move("keep.py", "pkg/b.py").commit("package")
    trails = codebase.follow(code.path, start, "HEAD", ["steps.py", "keep.py"])
    assert (trails["steps.py"].now, trails["keep.py"].now) == ("pkg/a.py", "pkg/b.py")
    assert [c.sha for c in trails["keep.py"].renames] == [both]


def test_a_rename_made_on_a_merged_side_branch_is_the_merges(code: CodeRepo) -> None:
    start = code.head()
    code.branch("side")
    code.move("steps.py", "src/steps.py").commit("move on the side")
    git("checkout", "-q", "main", cwd=code.path)
    code.write("keep.py", "KEEP = 3\n").commit("meanwhile on main")
    git("merge", "-q", "--no-ff", "-m", "merge side", "side", cwd=code.path)
    merge = code.head()
    code.write("src/steps.py", REWRITTEN).commit("rewrite on main")
    assert whole_range(code, start)["steps.py"] == "D"
    trail = codebase.follow(code.path, start, "HEAD", ["steps.py"])["steps.py"]
    # the first-parent history: main saw the file renamed by the merge
    assert trail.now == "src/steps.py" and [c.sha for c in trail.renames] == [merge]
    assert "steps.py" in followed_back(code, "src/steps.py")


def test_a_copy_is_not_a_rename(code: CodeRepo) -> None:
    start = code.head()
    code.write("src/steps.py", ORIGINAL).commit("a copy")
    code.write("steps.py", REWRITTEN).commit("rewrite the original")
    trail = codebase.follow(code.path, start, "HEAD", ["steps.py"])["steps.py"]
    assert trail.now == "steps.py" and trail.renames == ()
    # the original deleted later: its trail ends, the copy was never it
    code.delete("steps.py").commit("drop the original")
    assert codebase.follow(code.path, start, "HEAD", ["steps.py"])["steps.py"].now is None
    # (no oracle: ``git log --follow`` takes a copy for the file's past, as the note would not)
    # not even where the repository asks git for copies
    git("config", "diff.renames", "copies", cwd=code.path)
    assert codebase.follow(code.path, start, "HEAD", ["steps.py"])["steps.py"].now is None


def test_paths_with_spaces_and_accents_are_read_as_they_are(code: CodeRepo) -> None:
    odd = "my steps/été x.py"
    code.move("steps.py", odd).commit("an odd name")
    start = code.head()
    moved = code.move(odd, "src/été y.py").commit("moved again")
    code.write("src/été y.py", REWRITTEN).commit("rewrite")
    trail = codebase.follow(code.path, start, "HEAD", [odd])[odd]
    assert trail.now == "src/été y.py" and [c.sha for c in trail.renames] == [moved]
    assert odd in followed_back(code, "src/été y.py")


def test_nothing_asked_runs_nothing_and_nothing_since_moves_nothing(code: CodeRepo) -> None:
    assert codebase.follow(code.path, "HEAD", "HEAD", []) == {}
    trail = codebase.follow(code.path, "HEAD", "HEAD", ["steps.py"])["steps.py"]
    assert trail.now == "steps.py" and trail.renames == () and trail.ended is None
