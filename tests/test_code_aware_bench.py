"""bench/code_aware.py --ask-model (issue 35): the same measure with the configured model reading
each note stale for a change. Without a model command it refuses (``error:``/``hint:``, exit
1, nothing run); with one (a stub here, which always answers "unsure") it reads and counts,
and a model that never decides leaves every figure as the heuristic's."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from bench import code_aware
from tests.conftest import REPO_ROOT

BENCH = REPO_ROOT / "bench" / "code_aware.py"


def test_ask_model_without_a_model_command_exits_1(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--ask-model", "--only", "godotenv"],
        capture_output=True, text=True, check=False,
        env={"PATH": "/usr/bin:/bin", "REFLECT_DRAIN_CMD": str(tmp_path / "no-model")},
    )  # fmt: skip
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("error: --ask-model needs the drain's model command")
    assert "\nhint: set REFLECT_DRAIN_CMD" in done.stderr


def test_a_model_that_never_decides_leaves_the_heuristics_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = tmp_path / "unsure-model"
    answer = json.dumps({"verdict": "unsure", "why": "stub"})
    stub.write_text(
        f"#!{sys.executable}\nimport json, sys\nsys.stdin.read()\n"
        f"print(json.dumps({{'type': 'result', 'is_error': False, 'result': {answer!r}}}))\n"
    )
    stub.chmod(stub.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("REFLECT_DRAIN_CMD", str(stub))
    folder = code_aware.DATA / "godotenv"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    heuristic = code_aware.run_dataset(folder, tmp_path / "a")
    read = code_aware.run_dataset(folder, tmp_path / "b", ask_model=True)
    reading = read.pop("model_reading")
    assert "model_reading" not in heuristic and read == heuristic
    assert reading["asked"] > 0 and reading["asked"] == reading["unsure"]
    assert reading["failed"] == 0 and reading["not_asked"] == 0
