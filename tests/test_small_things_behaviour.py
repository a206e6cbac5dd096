"""Issue 18, the small things a user trips over: processes, files and objects left behind."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures_drain import TRANSCRIPTS, enqueue, make_config, stub_command

RG = [sys.executable, "-m", "reflectgit"]


def g(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def new_kb(tmp: Path, cli: Any) -> Path:
    kb = tmp / "kb"
    g("init", "-q", "-b", "main", str(kb), cwd=tmp)
    res = cli("-q", "--kb", str(kb), "init", "--no-pre-commit")
    assert res.code == 0, res
    return kb


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _poll(cond: Any, limit: float) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


# --------------------------------------------------------------------------- kill -9 of a drain


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal: Linux")
def test_kill_9_of_a_drain_takes_its_model_with_it(tmp_path: Path, cli: Any) -> None:
    kb = new_kb(tmp_path, cli)
    pidfile = tmp_path / "model.pid"
    stub = stub_command(
        tmp_path,
        f"import os\nopen({str(pidfile)!r}, 'w').write(str(os.getpid()))\ntime.sleep(300)\n",
    )
    env = {
        "REFLECT_DRAIN_CMD": str(stub),
        "REFLECT_DRAIN_DEBOUNCE_SEC": "0",
        "REFLECT_DRAIN_TIMEOUT": "600",
        "REFLECT_DRAIN_MODEL_TIMEOUT": "600",
    }
    name = sorted(p.name for p in (TRANSCRIPTS / "claude").glob("correction-*.jsonl"))[0]
    dst = tmp_path / "transcripts" / name
    dst.parent.mkdir()
    shutil.copyfile(TRANSCRIPTS / "claude" / name, dst)
    enqueue(make_config(kb, **env), dst)
    drain = subprocess.Popen(
        [*RG, "--kb", str(kb), "drain"],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    model = 0
    try:
        assert _poll(lambda: pidfile.exists() and pidfile.read_text().strip(), 60), (
            "the stub model never started"
        )
        model = int(pidfile.read_text())
        assert _alive(model)
        drain.send_signal(signal.SIGKILL)
        drain.wait(timeout=30)
        assert _poll(lambda: not _alive(model), 30), "the model outlived the drain"
    finally:
        if drain.poll() is None:
            drain.kill()
            drain.wait()
        if model and _alive(model):
            os.kill(model, signal.SIGKILL)
