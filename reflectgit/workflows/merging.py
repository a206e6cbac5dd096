"""Git's merge driver for notes and sidecars, and its registration in a repository.

Two teammates who change one note in different fields must not meet a conflict (every
``update`` rewrites ``updated:``, so git's line merge always saw one). ``.gitattributes`` names
the driver for notes and sidecars (``merge=reflect-git``) and the repository's git config says
how to start it, by the absolute path of the interpreter reflect-git is installed in (as the git
hooks do), so ``git pull``, ``git merge`` and ``git rebase`` use it whatever PATH git runs with.

``drive`` is what git runs (``reflectgit.hooks.merge %O %A %B %L %P``): it merges the three versions with
``notes.merge`` (the body, and a file that does not parse, with ``git merge-file``), validates
the result, and writes it over ``%A``. A clean merge is exit 0; a conflict leaves git's markers
around the conflicting field (or the body's lines) and is exit 1, as git's contract says.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflectgit.config import ARCHIVED, DOCUMENTS, FORGOTTEN

DRIVER = "reflect-git"
ENTRY = "reflectgit.hooks.merge"  # the driver's own entry point, run with ``python -m``
DRIVER_NAME = "reflect-git: notes and sidecars merged field by field"
SIDECAR_SUFFIX = ".entities.yaml"
ATTRIBUTES = ".gitattributes"
ATTRIBUTES_HEADER = (
    "# reflect-git: notes and sidecars merge field by field (reflect-git merge-driver)"
)
ATTRIBUTE_LINES = tuple(
    f"{folder}/*{suffix} merge={DRIVER}"
    for folder in (DOCUMENTS, ARCHIVED, FORGOTTEN)
    for suffix in (".md", SIDECAR_SUFFIX)
)


# --------------------------------------------------------------------------- the driver


@dataclass
class DriverResult:
    """What one run of the driver did to one file."""

    path: str
    kind: str  # note | sidecar | text (a side did not parse: git's line merge)
    conflicts: list[str] = field(default_factory=list)  # field names, "body", "text"
    problems: list[str] = field(default_factory=list)  # the merge does not validate

    @property
    def clean(self) -> bool:
        return not self.conflicts and not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "clean": self.clean}


def drive(
    base: Path,
    ours: Path,
    theirs: Path,
    marker_size: int,
    path: str,
    env: Mapping[str, str],
) -> DriverResult:
    """Merge ``base``/``ours``/``theirs`` (git's temporary files) of the file at ``path``,
    write the result over ``ours``; a result that is not clean says why."""
    old, one, two = base.read_bytes(), ours.read_bytes(), theirs.read_bytes()
    result, data = merge_bytes(old, one, two, path, marker_size=marker_size, env=env)
    if data != one:
        with open(ours, "wb") as out:
            out.write(data)
    return result


def merge_bytes(
    base: bytes | None,
    ours: bytes,
    theirs: bytes,
    path: str,
    *,
    marker_size: int = 7,
    env: Mapping[str, str] | None = None,
) -> tuple[DriverResult, bytes]:
    """The merge of one note or sidecar (``base`` None or empty: both sides added it)."""
    from reflectgit.errors import NoteError
    from reflectgit.git.mergefile import merge_text
    from reflectgit.notes import merge

    def merge_body(old: str, one: str, two: str) -> tuple[str, bool]:
        text, count = merge_text(
            old.encode("utf-8"),
            one.encode("utf-8"),
            two.encode("utf-8"),
            marker_size=marker_size,
            env=env,
        )
        return text.decode("utf-8", "surrogateescape"), count > 0

    sidecar = path.endswith(SIDECAR_SUFFIX)
    kind = "sidecar" if sidecar else "note"
    try:
        if sidecar:
            merged = merge.merge_sidecar(base, ours, theirs, marker_size=marker_size, source=path)
        else:
            merged = merge.merge_note(
                base, ours, theirs, merge_body, marker_size=marker_size, source=path
            )
    except NoteError:
        # A side that does not parse (a hand edit, markers left in): git's own line merge.
        data, count = merge_text(base or b"", ours, theirs, marker_size=marker_size, env=env)
        return DriverResult(path, "text", ["text"] if count else []), data
    result = DriverResult(path, kind, list(merged.conflicts))
    if result.conflicts or merged.data in (ours, theirs):
        return result, merged.data  # (one side's own bytes are as valid as they were)
    from reflectgit.notes.schema import validate_note_bytes, validate_sidecar_bytes

    validate = validate_sidecar_bytes if sidecar else validate_note_bytes
    problems = _errors(validate(merged.data, path))
    if problems and not _errors(validate(ours, path)) and not _errors(validate(theirs, path)):
        # Both sides were valid and the merge is not: a conflict for a person to resolve.
        result.problems = problems
    return result, merged.data


def _errors(problems: list[Any]) -> list[str]:
    return [
        f"line {p.line}: {p.field + ': ' if p.field else ''}{p.message}"
        for p in problems
        if p.severity == "error"
    ]


# --------------------------------------------------------------------------- registration


def driver_command(python: str) -> str:
    """The command git runs for a merge: this interpreter by absolute path running the driver's
    own entry point, ``PYTHON -m reflectgit.hooks.merge %O %A %B %L %P``."""
    return f"{shlex.quote(python)} -m {ENTRY} %O %A %B %L %P"


def missing_attributes(data: bytes | None) -> list[str]:
    """Our ``.gitattributes`` lines that ``data`` (the file, or None) does not hold."""
    text = data.decode("utf-8", "replace") if data is not None else ""
    present = {" ".join(line.split()) for line in text.splitlines()}
    return [line for line in ATTRIBUTE_LINES if line not in present]


def gitattributes(old: bytes | None) -> bytes:
    """``.gitattributes`` with our lines added once (the user's lines kept as written)."""
    text = old.decode("utf-8", "replace") if old is not None else ""
    present = {" ".join(line.split()) for line in text.splitlines()}
    missing = missing_attributes(old)
    if not missing:
        return old if old is not None else b""
    header = [] if ATTRIBUTES_HEADER in present else [ATTRIBUTES_HEADER]
    block = "\n".join([*header, *missing]) + "\n"
    if text and not text.endswith("\n"):
        text += "\n"
    return (text + ("\n" if text else "") + block).encode("utf-8")


@dataclass(frozen=True)
class Registration:
    """The driver in one repository's git config: what is set and whether we changed it."""

    repo: str
    command: str
    action: str  # set | unchanged | removed | absent

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def register(repo: Path, python: str, env: Mapping[str, str]) -> Registration:
    """Set ``merge.reflect-git.driver`` and ``.name`` in ``repo``'s own git config."""
    from reflectgit.git import repo_info

    command = driver_command(python)
    key = f"merge.{DRIVER}"
    if (
        repo_info.config_value(repo, f"{key}.driver", env) == command
        and repo_info.config_value(repo, f"{key}.name", env) == DRIVER_NAME
    ):
        return Registration(str(repo), command, "unchanged")
    repo_info.set_config_value(repo, f"{key}.name", DRIVER_NAME, env)
    repo_info.set_config_value(repo, f"{key}.driver", command, env)
    return Registration(str(repo), command, "set")


def unregister(repo: Path, env: Mapping[str, str]) -> Registration:
    """Remove the driver from ``repo``'s git config (git then merges notes line by line)."""
    from reflectgit.git import repo_info

    key = f"merge.{DRIVER}"
    command = repo_info.config_value(repo, f"{key}.driver", env)
    if command is None:
        return Registration(str(repo), "", "absent")
    repo_info.set_config_value(repo, f"{key}.driver", None, env)
    repo_info.set_config_value(repo, f"{key}.name", None, env)
    return Registration(str(repo), command, "removed")


def ensure(repo: Path, env: Mapping[str, str]) -> Registration:
    """``register`` with this reflect-git's own interpreter (what a team clone, a sync and a
    route make sure of, as ``team guard`` names the interpreter in its hook)."""
    import sys

    return register(repo, sys.executable, env)


def registered(repo: Path, env: Mapping[str, str]) -> str | None:
    """The driver command ``repo``'s git config names, or None."""
    from reflectgit.git import repo_info

    return repo_info.config_value(repo, f"merge.{DRIVER}.driver", env)


def state(command: str | None, attributes: bytes | None) -> dict[str, Any]:
    """What ``status`` says of the driver: the command the repository's git config names
    (None: not registered), whether it is this reflect-git's, and the ``.gitattributes`` lines
    that name it for notes and sidecars (``missing``: ours that the file lacks)."""
    import sys

    missing = missing_attributes(attributes)
    return {
        "registered": command is not None,
        "command": command,
        "current": command == driver_command(sys.executable),
        "attributes": not missing,
        "missing_attributes": missing,
        "active": command is not None and not missing,
    }
