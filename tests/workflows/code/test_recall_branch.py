"""Recall at session start favours the notes anchored to the files the current branch changes
(against its upstream, else main), committed or not."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli_proc
from tests.support.coderepo import POOL_PY, CodeRepo


def _setup(tmp_path: Path) -> tuple[CodeRepo, Path, str]:
    code = CodeRepo(tmp_path / "billing-api")
    code.write("src/pool.py", POOL_PY).write("src/retry.py", "def backoff(n):\n    return n\n")
    code.write("README.md", "# billing api\n")
    code.commit("first")
    kb = tmp_path / "kb"
    run_cli_proc("init", str(kb), "-q")
    for i in range(8):  # strong notes of the project (anchored to a file no branch changes)
        args = ["--kb", str(kb), "add", "--title", f"Billing rule {i}", "--insight",
                f"billing api rule number {i}", "--category", "c", "--confidence", "high",
                "--tag", "billing", "--anchor", "README.md"]  # fmt: skip
        assert run_cli_proc(*args, cwd=code.path).returncode == 0
    args = ["--kb", str(kb), "--json", "add", "--title", "Backoff is capped", "--insight",
            "the cap is sixty seconds", "--category", "c", "--confidence", "low",
            "--anchor", "src/retry.py:backoff"]  # fmt: skip
    anchored = json.loads(run_cli_proc(*args, cwd=code.path).stdout)["id"]
    return code, kb, anchored


def _recalled(kb: Path, code: CodeRepo) -> dict[str, list[str]]:
    done = run_cli_proc("--kb", str(kb), "recall", "--json", "--limit", "3", cwd=code.path)
    assert done.returncode == 0, done.stderr
    return {n["id"]: n["reasons"] for n in json.loads(done.stdout)["notes"]}


def test_a_branch_that_changes_the_anchored_file_recalls_its_note_first(tmp_path: Path) -> None:
    code, kb, anchored = _setup(tmp_path)
    assert anchored not in _recalled(kb, code)  # on main nothing is changed: not favoured
    code.branch("cap-backoff")
    code.write("src/retry.py", "def backoff(n):\n    return min(n, 60)\n").commit("cap")
    got = _recalled(kb, code)
    assert next(iter(got)) == anchored
    assert "anchored to src/retry.py:backoff, which this branch modifies" in got[anchored]


def test_uncommitted_edits_count_and_other_files_do_not(tmp_path: Path) -> None:
    code, kb, anchored = _setup(tmp_path)
    code.branch("pool-work")
    code.write("src/pool.py", POOL_PY + "\nX = 1\n").commit("pool only")
    assert anchored not in _recalled(kb, code)
    (code.path / "src" / "retry.py").write_text("def backoff(n):\n    return 1\n")
    assert next(iter(_recalled(kb, code))) == anchored
