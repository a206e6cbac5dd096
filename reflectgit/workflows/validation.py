"""Validate many notes and sidecars: find them, check each, collect every problem.

What ``reflect-git validate`` and the pre-commit hook run. Every file is checked and reported
(a bad file never hides the next one). Large batches are spread over a few worker processes,
forked after the validators are compiled so each worker starts warm.
"""

from __future__ import annotations

import os
import sys
from collections import namedtuple
from collections.abc import Iterable, Sequence

from reflectgit.errors import UsageError
from reflectgit.notes.problems import Problem
from reflectgit.notes.quickcheck import (
    NOTE_SCHEMA,
    SIDECAR_SCHEMA,
    fast_validator,
    kind_of_path,
    note_is_valid,
    sidecar_is_valid,
)


def validate_file(
    path: str | os.PathLike[str], strict: bool = False, display: str | None = None
) -> list[Problem]:
    """Read and validate one note or sidecar (chosen by its name); unreadable files are problems."""
    shown = display if display is not None else str(path)
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as exc:
        return [Problem(shown, 1, 1, "", f"cannot read the file: {exc.strerror or exc}")]
    if kind_of_path(os.fspath(path)) == "sidecar":
        if sidecar_is_valid(data, strict=strict):
            return []
        from reflectgit.notes.schema import validate_sidecar_bytes

        return validate_sidecar_bytes(data, shown, strict=strict)
    if note_is_valid(data):
        return []  # the quick yes: no PyYAML, no jsonschema (``notes/quickcheck.py``)
    from reflectgit.notes.schema import validate_note_bytes

    return validate_note_bytes(data, shown, strict=strict)


# Below this many files a worker pool costs more than it saves.
PARALLEL_MIN_FILES = 400


# The records are ``collections.namedtuple``'s (``notes/problems.py`` says why).
class Target(namedtuple("Target", ("path", "display"))):
    """A file to validate (its path as ``pathlib`` writes it) and the name to report it under."""

    __slots__ = ()
    path: str
    display: str


class ValidationRun(namedtuple("ValidationRun", ("checked", "problems"))):
    """What was checked and what was wrong."""

    __slots__ = ()
    checked: list[str]
    problems: list[Problem]

    @property
    def failed(self) -> list[str]:
        return sorted({p.file for p in self.problems if p.severity == "error"})

    @property
    def ok(self) -> bool:
        return not self.failed


def collect(
    paths: Iterable[str | os.PathLike[str]], base: str | os.PathLike[str] | None = None
) -> list[Target]:
    """Notes (``*.md``) and sidecars (``*.entities.yaml``) under ``paths``; folders recurse.

    Shown names are the paths as given (or relative to ``base`` when given), written as
    ``pathlib`` writes them (``./a//b.md`` is ``a/b.md``). A path that does not exist, or a named
    file that is neither a note nor a sidecar, is a usage error. (Paths are strings here:
    ``pathlib`` costs the pre-commit hook about 5 ms.)
    """
    targets: list[Target] = []
    seen: set[str] = set()
    for raw in paths:
        path = path_text(os.fspath(raw))
        if os.path.isdir(path):
            found = sorted(_walk(path), key=_parts)
        elif os.path.isfile(path):
            if kind_of_path(path) is None:
                raise UsageError(
                    f"{raw}: not a note (*.md) or a sidecar (*.entities.yaml)",
                    hint="pass notes, sidecars or folders holding them",
                )
            found = [path]
        else:
            raise UsageError(f"{raw}: no such file or folder", hint="check the path")
        for item in found:
            key = os.path.realpath(item)
            if key in seen:
                continue
            seen.add(key)
            targets.append(Target(item, _display(item, base)))
    return targets


def path_text(text: str) -> str:
    """``str(pathlib.PurePosixPath(text))``: no empty or ``.`` parts, ``.`` for nothing, and a
    leading ``//`` kept (POSIX leaves its meaning to the system), without importing pathlib."""
    root, parts = _root_and_parts(text)
    return root + "/".join(parts) if root or parts else "."


def _root_and_parts(text: str) -> tuple[str, list[str]]:
    if text.startswith("//") and not text.startswith("///"):
        root = "//"
    else:
        root = "/" if text.startswith("/") else ""
    return root, [part for part in text.split("/") if part and part != "."]


def _parts(path: str) -> list[str]:
    return [part for part in path.split("/") if part]  # pathlib's order: part by part


def _walk(folder: str) -> Iterable[str]:
    for root, dirs, files in os.walk(folder):
        # Hidden folders (.git, .forgotten, tool caches) are not part of what gets validated.
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if kind_of_path(name) is not None:
                yield path_text(f"{root}/{name}")


def _display(path: str, base: str | os.PathLike[str] | None) -> str:
    """``path`` relative to ``base`` as ``PurePath.relative_to(...).as_posix()`` writes it, else
    ``path``."""
    if base is None:
        return path
    root, parts = _root_and_parts(path)
    base_root, base_parts = _root_and_parts(os.fspath(base))
    if root != base_root or parts[: len(base_parts)] != base_parts:
        return path
    return "/".join(parts[len(base_parts) :]) or "."


def validate_targets(
    targets: Sequence[Target], strict: bool = False, workers: int | None = None
) -> ValidationRun:
    """Validate every target; spread large batches over ``workers`` processes (default: cores)."""
    jobs = _workers(workers, len(targets))
    if jobs > 1:
        problems = _validate_parallel(targets, strict, jobs)
    else:
        problems = _validate_chunk(list(targets), strict)
    return ValidationRun([t.display for t in targets], problems)


def _validate_chunk(targets: list[Target], strict: bool) -> list[Problem]:
    problems: list[Problem] = []
    for target in targets:
        problems.extend(validate_file(target.path, strict=strict, display=target.display))
    return problems


def _workers(requested: int | None, count: int) -> int:
    if requested is not None:
        return max(1, requested) if count > 1 else 1
    if count < PARALLEL_MIN_FILES or not sys.platform.startswith("linux"):
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 8))


def _validate_parallel(targets: Sequence[Target], strict: bool, jobs: int) -> list[Problem]:
    import multiprocessing

    # Compile before forking: every worker inherits the ready validators.
    fast_validator(NOTE_SCHEMA)
    fast_validator(SIDECAR_SCHEMA)
    chunk_count = jobs * 4
    size = -(-len(targets) // chunk_count)
    chunks = [list(targets[i : i + size]) for i in range(0, len(targets), size)]
    context = multiprocessing.get_context("fork")
    with context.Pool(jobs) as pool:
        results = pool.starmap(_validate_chunk, [(chunk, strict) for chunk in chunks])
    return [problem for chunk in results for problem in chunk]
