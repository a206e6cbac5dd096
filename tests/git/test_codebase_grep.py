"""``codebase.start_matching_lines``: one ``git grep`` at a revision, started at once and waited
for by the call it returns (``pr-notes`` reads a change alongside its KB's anchor lines)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reflectgit.errors import ReflectGitError
from reflectgit.git import codebase
from tests.support.coderepo import CodeRepo


def test_the_started_grep_answers_what_matching_lines_does(tmp_path: Path) -> None:
    code = CodeRepo(tmp_path / "kb")
    code.write("documents/a.md", "anchors:\n- path: x.py\n").write("documents/b.md", "none\n")
    code.commit("notes")
    code.write("documents/b.md", "- path: uncommitted.py\n")  # the work tree is not read
    answer = codebase.start_matching_lines(code.path, "HEAD", r"^- path: ", "documents")
    code.write("documents/a.md", "gone\n")  # what git read is HEAD's, whatever happens meanwhile
    assert answer() == [("documents/a.md", "- path: x.py")]
    # matching_lines is the same grep, waited for at once
    assert codebase.matching_lines(code.path, "HEAD", r"^- path: ", "documents") == [
        ("documents/a.md", "- path: x.py")
    ]


def test_a_failed_grep_raises_when_its_answer_is_asked(tmp_path: Path) -> None:
    code = CodeRepo(tmp_path / "kb")
    code.write("documents/a.md", "- path: x.py\n").commit("notes")
    answer = codebase.start_matching_lines(code.path, "no-such-rev", r"^- path: ", "documents")
    with pytest.raises(ReflectGitError, match="git grep failed"):
        answer()
    missing = codebase.start_matching_lines(tmp_path / "nowhere", "HEAD", "x", "documents")
    assert missing() == []  # no folder: no lines, as matching_lines answers
