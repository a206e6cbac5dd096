"""The built package: LICENSE and metadata in the wheel and sdist, no cap on Python, pre-commit
as an extra, bounded dependencies, a Keep a Changelog CHANGELOG; installed on every interpreter
this machine has."""

from __future__ import annotations

import email
import os
import re
import subprocess
import tarfile
import zipfile
from email.message import Message
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

import reflectgit
from tests.conftest import REPO_ROOT
from tests.support.dist import Dist, dist
from tests.support.validation import VALID_NOTE

__all__ = ["dist"]

LICENSE = (REPO_ROOT / "LICENSE").read_text(encoding="utf-8")
URLS = {"Homepage", "Repository", "Documentation", "Issues", "Changelog"}


def _metadata(wheel: Path) -> Message:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return email.message_from_bytes(archive.read(name))


def _requires(meta: Message) -> dict[str, Requirement]:
    out = {}
    for line in meta.get_all("Requires-Dist") or []:
        req = Requirement(line)
        key = req.name.lower() + (
            f"[{req.marker}]" if req.marker and "extra" in str(req.marker) else ""
        )
        out[key] = req
    return out


def test_the_license_is_mit_and_ships_in_the_wheel_and_the_sdist(dist: Dist) -> None:
    assert LICENSE.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in LICENSE
    with zipfile.ZipFile(dist.wheel) as archive:
        (inside,) = [n for n in archive.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
        assert archive.read(inside).decode() == LICENSE
    with tarfile.open(dist.sdist) as archive:
        top = f"reflect_git-{reflectgit.__version__}"
        member = archive.extractfile(f"{top}/LICENSE")
        assert member is not None and member.read().decode() == LICENSE
        pkg_info = archive.extractfile(f"{top}/PKG-INFO")
        assert pkg_info is not None
        assert email.message_from_bytes(pkg_info.read())["License-Expression"] == "MIT"


def test_the_wheel_metadata_names_the_project_and_caps_no_python(dist: Dist) -> None:
    meta = _metadata(dist.wheel)
    assert meta["Name"] == "reflect-git"
    assert meta["Version"] == reflectgit.__version__
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert set(urls) == URLS
    assert all(u.startswith("https://github.com/reflect-git/reflect-git") for u in urls.values())
    requires_python = SpecifierSet(meta["Requires-Python"])
    assert str(requires_python) == ">=3.10"
    for minor in range(10, 20):
        assert Version(f"3.{minor}") in requires_python
    assert Version("3.9") not in requires_python


def test_pre_commit_is_an_extra_and_the_fast_moving_libraries_are_bounded(dist: Dist) -> None:
    requires = _requires(_metadata(dist.wheel))
    runtime = {name for name in requires if "[" not in name}
    assert "pre-commit" not in runtime and "virtualenv" not in runtime
    extra = [r for n, r in requires.items() if n.startswith("pre-commit[")]
    assert any('extra == "pre-commit"' in str(r.marker) for r in extra), extra
    dulwich = requires["dulwich"].specifier
    assert Version("1.2.21") in dulwich and Version("2.0") not in dulwich
    typer = requires["typer"].specifier
    # typer 0.29 validates every parameter through pydantic (about 50 ms on every command)
    assert Version("0.16.0") in typer and Version("0.28.0") in typer
    assert Version("0.29.0") not in typer


def _interpreters() -> list[Path]:
    """Every CPython 3 on this machine (named python3.N in the usual places), once each."""
    found: dict[str, Path] = {}
    for folder in ("/usr/bin", "/usr/local/bin", "/opt/python/bin"):
        for path in sorted(Path(folder).glob("python3.*")):
            if re.fullmatch(r"python3\.\d+", path.name) and os.access(path, os.X_OK):
                found.setdefault(os.path.realpath(path), path)
    return list(found.values())


INTERPRETERS = _interpreters()


def test_this_machine_has_interpreters_to_install_on() -> None:
    """Say which: the test below installs the wheel on each (this machine: python3.11 only)."""
    assert INTERPRETERS, "no python3.N found in /usr/bin, /usr/local/bin or /opt/python/bin"


@pytest.mark.parametrize("python", INTERPRETERS, ids=[p.name for p in INTERPRETERS])
def test_the_wheel_installs_and_runs_without_pre_commit(
    python: Path, dist: Dist, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    subprocess.run([str(python), "-m", "venv", str(venv)], check=True, timeout=300)
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(dist.wheel)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert pip.returncode == 0, pip.stderr[-3000:]
    listed = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.lower()
    assert "reflect-git==" in listed or "reflect_git==" in listed
    freeze = listed
    for heavy in ("pre-commit", "pre_commit", "virtualenv", "nodeenv"):
        assert f"{heavy}==" not in listed, heavy
    note = tmp_path / "documents" / "n.md"
    note.parent.mkdir()
    note.write_text(VALID_NOTE)
    run = subprocess.run(
        [str(venv / "bin" / "reflect-git-validate"), str(note)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    bad = subprocess.run(
        [str(venv / "bin" / "reflect-git-validate"), str(note.parent / "missing.md")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "missing.md" in bad.stderr
    # The command line with the newest typer the index has, its console script's exit codes.
    cli = subprocess.run(
        [str(venv / "bin" / "reflect-git"), "--kb", str(tmp_path), "validate", str(note)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert cli.returncode == 0, cli.stderr
    usage = subprocess.run(
        [str(venv / "bin" / "reflect-git"), "--json", "no-such-command"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert usage.returncode == 2 and "No such command" in usage.stdout, usage.stderr
    listed = subprocess.run(
        [str(venv / "bin" / "reflect-git"), "--help"], capture_output=True, text=True, check=False
    )
    assert listed.returncode == 0 and "  rules " in listed.stdout, listed.stderr
    # The agent hooks' entry point: no KB, no payload, still `{}` for SubagentStop and exit 0.
    hook = subprocess.run(
        [str(venv / "bin" / "reflect-git-hook"), "SubagentStop"],
        input="",
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "HOME": str(tmp_path), "REFLECT_GIT_KB": str(tmp_path / "none")},
    )
    assert (hook.returncode, hook.stdout) == (0, "{}\n"), hook.stderr
    # SessionStart's: no KB there, nothing for the agent, a line for the person, exit 0.
    start = subprocess.run(
        [str(venv / "bin" / "reflect-git-session-start"), "--harness", "claude"],
        input="",
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "HOME": str(tmp_path), "REFLECT_GIT_KB": str(tmp_path / "none")},
    )
    assert (start.returncode, start.stdout) == (0, ""), start.stderr
    assert start.stderr.startswith("reflect-git recall: "), start.stderr
    # Installed from a wheel file, reflect-git cannot name itself for others: init says what to
    # set, and writes placeholders that fail until someone does, never a made-up release.
    env = {**os.environ, "HOME": str(tmp_path)}
    init = subprocess.run(
        [str(venv / "bin" / "reflect-git"), "init", str(tmp_path / "kb"), "--ci", "gitlab"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert init.returncode == 0, init.stderr
    assert (
        f"Set by hand: this reflect-git was installed from the file {dist.wheel}, which others "
        "cannot install." in init.stdout
    )
    assert "  .pre-commit-config.yaml: set repo: and rev: (SET-ME now)" in init.stdout
    assert "  .gitlab-ci.yml: set the CI variable REFLECT_GIT_PIP (SET-ME now)" in init.stdout
    written = (tmp_path / "kb" / ".pre-commit-config.yaml").read_text() + (
        tmp_path / "kb" / ".gitlab-ci.yml"
    ).read_text()
    assert "SET-ME (" in written and f"v{reflectgit.__version__}" not in written
    assert "==" not in written.split("REFLECT_GIT_PIP:")[1].splitlines()[0]
    # The extras: not installed, and `serve` names the line that adds one to this install.
    serve = subprocess.run(
        [str(venv / "bin" / "reflect-git"), "--kb", str(tmp_path / "kb"), "serve"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert serve.returncode == 1
    assert serve.stderr.splitlines()[-1] == f"hint: pip install '{dist.wheel}[serve]'"
    for extra in ("starlette", "uvicorn", "jinja2", "mcp", "fastjsonschema"):
        assert f"\n{extra}==" not in "\n" + freeze, extra
    with zipfile.ZipFile(dist.wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
        scripts = archive.read(name).decode()
    for script in (
        "reflect-git",
        "reflect-git-validate",
        "reflect-git-check",
        "reflect-git-hook",
        "reflect-git-session-start",
    ):
        assert f"\n{script} = reflectgit." in scripts, script


SECTIONS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_the_changelog_keeps_a_changelog() -> None:
    text = (REPO_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n")
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings[0] == "[Unreleased]"
    releases = []
    for heading in headings[1:]:
        match = re.fullmatch(r"\[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})", heading)
        assert match, heading
        releases.append((Version(match[1]), match[2]))
    assert releases[0][0] == Version(reflectgit.__version__)
    assert releases == sorted(releases, reverse=True)
    for section in re.findall(r"^### (.+)$", text, re.MULTILINE):
        assert section in SECTIONS, section
    # each release (and Unreleased) holds each kind of change once, a merge's second
    # "### Fixed" folded into the first
    for block in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        sections = re.findall(r"^### (.+)$", block, re.MULTILINE)
        assert len(sections) == len(set(sections)), block.splitlines()[0]
    links = dict(re.findall(r"^\[([^\]]+)\]: (\S+)$", text, re.MULTILINE))
    assert links["Unreleased"].endswith(f"/compare/v{reflectgit.__version__}...HEAD")
    for version, _date in releases:
        assert links[str(version)].endswith(f"/releases/tag/v{version}")
