"""hooks install --timer: systemd user units checked by systemd-analyze, launchd agents by a
plistlib round trip, the commands they run run for real; idempotent, foreign files kept."""

from __future__ import annotations

import os
import plistlib
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reflectgit.workflows import timers
from tests.conftest import git

SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
needs_systemd_analyze = pytest.mark.skipif(
    SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed (Debian package: systemd)"
)


def _verify(*units: Path) -> subprocess.CompletedProcess[str]:
    """``systemd-analyze verify`` in system mode: this machine runs no user manager for
    ``--user``; the unit syntax, the timer's unit and ExecStart's executable are checked alike."""
    assert SYSTEMD_ANALYZE is not None
    return subprocess.run(
        [SYSTEMD_ANALYZE, "verify", *map(str, units)],
        capture_output=True,
        text=True,
        check=False,
        cwd=units[0].parent,
    )


@pytest.fixture
def made_kb(tmp_path: Path, cli) -> Path:
    kb = tmp_path / "kb"
    assert cli("-q", "init", str(kb), "--no-pre-commit").code == 0
    return kb


def _units(home: Path) -> Path:
    return home / ".config" / "systemd" / "user"


@needs_systemd_analyze
def test_systemd_units_install_idempotently_and_verify(cli, made_kb: Path, pinned_env: Path):
    res = cli("--kb", str(made_kb), "--json", "hooks", "install", "--timer")
    assert res.code == 0, res.err
    doc = res.json()
    folder = _units(pinned_env)
    names = sorted(Path(p).name for p in doc["files"])
    assert names == [
        "reflect-git-drain.service",
        "reflect-git-drain.timer",
        "reflect-git-idle.service",
        "reflect-git-idle.timer",
    ]
    assert doc["action"] == "installed" and doc["kind"] == "systemd"
    assert doc["next"][-1] == (
        "systemctl --user enable --now reflect-git-drain.timer reflect-git-idle.timer"
    )
    files = sorted(folder.iterdir())
    proc = _verify(*files)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    again = cli("--kb", str(made_kb), "--json", "hooks", "install", "--timer")
    assert again.json()["action"] == "unchanged"
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files} == before
    service = (folder / "reflect-git-drain.service").read_text()
    assert f"ExecStart={sys.executable} -m reflectgit --kb {made_kb} -q drain\n" in service
    timer = (folder / "reflect-git-idle.timer").read_text()
    assert "OnUnitActiveSec=600s\n" in timer and "WantedBy=timers.target\n" in timer


@needs_systemd_analyze
def test_systemd_analyze_catches_what_the_test_relies_on(tmp_path: Path):
    """Negative control: a typo, a bad timer value and a missing executable are all reported."""
    units = timers.systemd_units(sys.executable, tmp_path, timers.JOBS[0])
    for name, text in units.items():
        (tmp_path / name).write_text(text)
    service, timer = tmp_path / "reflect-git-drain.service", tmp_path / "reflect-git-drain.timer"
    assert _verify(service, timer).stderr == ""
    for broken, old, new in (
        (service, "Type=oneshot", "Typo=oneshot"),
        (timer, "OnUnitActiveSec=600s", "OnUnitActiveSec=soon"),
        (service, f"ExecStart={sys.executable}", "ExecStart=/nowhere/python"),
    ):
        good = broken.read_text()
        broken.write_text(good.replace(old, new))
        assert _verify(service, timer).stderr != "", (old, new)
        broken.write_text(good)


@needs_systemd_analyze
def test_exec_start_quotes_paths_with_spaces_and_percent(tmp_path: Path):
    folder = tmp_path / "my tools 100%"
    folder.mkdir()
    python = folder / "python"
    python.symlink_to(sys.executable)
    kb = tmp_path / "team kb"
    kb.mkdir()
    units = timers.systemd_units(str(python), kb, timers.JOBS[0])
    for name, text in units.items():
        (tmp_path / name).write_text(text)
    proc = _verify(tmp_path / "reflect-git-drain.service", tmp_path / "reflect-git-drain.timer")
    assert (proc.returncode, proc.stderr) == (0, "")
    line = next(x for x in units["reflect-git-drain.service"].splitlines() if x.startswith("Exec"))
    assert '"' + str(python).replace("%", "%%") + '"' in line
    assert '"' + str(kb) + '"' in line


def test_the_commands_the_timers_run_work(cli, made_kb: Path, pinned_env: Path):
    """Run each ExecStart as the timer would: the drain of an empty queue, the idle sweep."""
    assert cli("--kb", str(made_kb), "hooks", "install", "--timer").code == 0
    for job in timers.JOBS:
        service = (_units(pinned_env) / f"reflect-git-{job.name}.service").read_text()
        exec_start = next(x for x in service.splitlines() if x.startswith("ExecStart="))
        argv = shlex.split(exec_start.removeprefix("ExecStart="))
        assert argv == timers.command(sys.executable, made_kb, job)
        proc = subprocess.run(argv, capture_output=True, text=True, check=False, env=os.environ)
        assert proc.returncode == 0, (job.name, proc.stdout, proc.stderr)
        assert proc.stdout == ""  # -q: a timer's log stays quiet when there is nothing to do
    assert git("status", "--porcelain", cwd=made_kb) == ""


def test_launchd_agents_round_trip_through_plistlib(cli, made_kb: Path, pinned_env: Path):
    res = cli("--kb", str(made_kb), "--json", "hooks", "install", "--timer-kind", "launchd")
    assert res.code == 0, res.err
    doc = res.json()
    assert doc["kind"] == "launchd" and doc["action"] == "installed"
    agents = pinned_env / "Library" / "LaunchAgents"
    assert sorted(p.name for p in agents.iterdir()) == [
        "io.github.reflect-git.drain.plist",
        "io.github.reflect-git.idle.plist",
    ]
    for job in timers.JOBS:
        data = (agents / f"io.github.reflect-git.{job.name}.plist").read_bytes()
        assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist')
        agent = plistlib.loads(data)
        assert agent == timers.launchd_agent(sys.executable, made_kb, job, pinned_env)
        assert plistlib.dumps(agent) == data
        assert agent["Label"] == f"io.github.reflect-git.{job.name}"
        assert agent["ProgramArguments"][:4] == [sys.executable, "-m", "reflectgit", "--kb"]
        assert isinstance(agent["StartInterval"], int) and agent["StartInterval"] == 600
        assert Path(agent["StandardOutPath"]).parent.is_dir()
    assert doc["next"][0].startswith('launchctl bootstrap "gui/$(id -u)" ')
    again = cli("--kb", str(made_kb), "--json", "hooks", "install", "--timer-kind", "launchd")
    assert again.json()["action"] == "unchanged"
    gone = cli("--json", "hooks", "install", "--timer-kind", "launchd", "--uninstall")
    assert gone.json()["action"] == "removed" and list(agents.iterdir()) == []


def test_uninstall_removes_ours_and_the_enable_links_and_keeps_the_rest(
    cli, made_kb: Path, pinned_env: Path
):
    assert cli("--kb", str(made_kb), "hooks", "install", "--timer").code == 0
    folder = _units(pinned_env)
    wants = folder / "timers.target.wants"
    wants.mkdir()
    (wants / "reflect-git-drain.timer").symlink_to(folder / "reflect-git-drain.timer")
    mine = folder / "backup.service"
    mine.write_text("[Service]\nExecStart=/bin/true\n")
    res = cli("--json", "hooks", "install", "--timer", "--uninstall")
    assert res.code == 0, res.err
    assert res.json()["action"] == "removed" and len(res.json()["files"]) == 4
    assert res.json()["next"][0].startswith("systemctl --user disable --now reflect-git-drain")
    assert sorted(p.name for p in folder.iterdir()) == ["backup.service", "timers.target.wants"]
    assert list(wants.iterdir()) == []
    assert cli("--json", "hooks", "install", "--timer", "--uninstall").json()["action"] == "absent"


def test_a_foreign_unit_of_the_same_name_is_never_replaced(cli, made_kb: Path, pinned_env: Path):
    folder = _units(pinned_env)
    folder.mkdir(parents=True)
    theirs = folder / "reflect-git-drain.service"
    theirs.write_text("[Service]\nExecStart=/usr/local/bin/my-drain\n")
    res = cli("--kb", str(made_kb), "hooks", "install", "--timer")
    assert res.code == 1
    assert "was not written by reflect-git" in res.err and "hint:" in res.err
    assert sorted(p.name for p in folder.iterdir()) == ["reflect-git-drain.service"]
    assert theirs.read_text() == "[Service]\nExecStart=/usr/local/bin/my-drain\n"
    assert cli("hooks", "install", "--timer", "--uninstall").code == 0
    assert theirs.exists()


def test_bad_input_writes_nothing(cli, tmp_path: Path, pinned_env: Path):
    res = cli("--kb", str(tmp_path / "missing"), "hooks", "install", "--timer")
    assert res.code == 1 and "no knowledge base at" in res.err and "hint:" in res.err
    kb = tmp_path / "kb"
    kb.mkdir()
    bad = cli("--kb", str(kb), "hooks", "install", "--timer-kind", "cron")
    assert bad.code == 2 and "unknown timer kind 'cron'" in bad.err
    assert not (pinned_env / ".config").exists() and not (pinned_env / "Library").exists()


def test_the_default_kind_follows_the_platform():
    assert timers.default_kind("darwin") == "launchd"
    assert timers.default_kind("linux") == "systemd"
