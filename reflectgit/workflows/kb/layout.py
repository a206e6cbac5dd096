"""The KB layout on disk: create a knowledge base, or adopt an existing folder or repository.

``init`` plans a few scaffold files (layout folders, ``.gitignore``, ``.gitattributes`` naming
the notes' merge driver, ``.reflect-git.toml``, ``.pre-commit-config.yaml``), compares each with what the branch already holds, and commits
only the difference through the KB's mutation door (``base.Base.mutate``). A second run finds nothing to change and makes
no commit. New scaffolds (a CI workflow, say) are one more entry in ``plan``.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reflectgit.config import ARCHIVED, DOCUMENTS, REVIEW_QUEUE, SETTINGS_FILE
from reflectgit.errors import ConflictError, ReflectGitError
from reflectgit.notes.messages import build, chore_subject
from reflectgit.workflows.merging import ATTRIBUTES, gitattributes

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

LAYOUT_FOLDERS = (DOCUMENTS, ARCHIVED, REVIEW_QUEUE)
KEEP_FILE = ".gitkeep"
GITIGNORE = ".gitignore"
PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
HOOK_FILES = r"^(documents|archived)/[^/]+\.(md|entities\.yaml)$"

# Derived and runtime state never belongs in the KB's history (DESIGN.md section 1).
IGNORED = (
    "# reflect-git: derived and runtime state is never committed",
    ".reflect-git/",
    "nano_graphrag_cache/",
    ".venv/",
    "__pycache__/",
    "*.pyc",
)

Render = Callable[[bytes | None], bytes]


@dataclass(frozen=True)
class Scaffold:
    """One file init keeps in shape: its path and how to render it from the committed bytes."""

    path: str
    render: Render


@dataclass(frozen=True)
class InitOptions:
    """What ``reflect-git init`` was asked for."""

    team_remote: str | None = None
    pre_commit: bool = True
    force: bool = False
    # The interpreter git starts the merge driver with (by absolute path, as the hooks): the
    # driver is registered in the repository's git config with it. None: the config is left alone.
    python: str | None = None


@dataclass
class InitResult:
    """What init did: the KB, the commit (None when nothing changed), what it wrote or left."""

    kb: Path
    commit: str | None
    created: bool
    written: list[str] = field(default_factory=list)
    left_untracked: list[str] = field(default_factory=list)
    merge_driver: str | None = None  # set | unchanged: the git config's merge driver

    def to_dict(self) -> dict[str, object]:
        return {
            "kb": str(self.kb),
            "commit": self.commit,
            "created": self.created,
            "written": self.written,
            "left_untracked": self.left_untracked,
            "merge_driver": self.merge_driver,
        }


def is_kb(path: Path) -> bool:
    """A folder already laid out as a KB (ours, or the original reflect tool's)."""
    return (path / SETTINGS_FILE).is_file() or (path / DOCUMENTS).is_dir()


def init(path: Path, options: InitOptions, env: Mapping[str, str] | None = None) -> InitResult:
    """Create or adopt the KB at ``path`` and commit the scaffold; idempotent."""
    from reflectgit.git.change import write
    from reflectgit.git.store import Store

    root = path.absolute()
    if root.exists() and not root.is_dir():
        raise ReflectGitError(
            f"{root} is a file, not a folder", hint="choose a folder for the knowledge base"
        )
    was_kb = root.is_dir() and is_kb(root)
    if root.is_dir() and not was_kb and not options.force:
        foreign = sorted(p.name for p in root.iterdir() if p.name != ".git")
        if foreign:
            shown = ", ".join(foreign[:5]) + (" ..." if len(foreign) > 5 else "")
            raise ConflictError(
                f"{root} is not empty ({shown}) and is not a knowledge base "
                f"(no {DOCUMENTS}/ folder, no {SETTINGS_FILE})",
                hint="choose an empty folder, or pass --force to add the KB layout next to "
                "what is there (existing files are left alone)",
            )
    from reflectgit.workflows.kb.base import Base, Edit, Snapshot

    def scaffold(snap: Snapshot) -> Edit[tuple[list[str], list[str]]]:
        """(written, left untracked) and the scaffold's commit, read from the branch tip."""
        changes = []
        left: list[str] = []
        for item in plan(options, snap.list("")):
            committed = snap.read(item.path)
            wanted = item.render(committed)
            if wanted == committed:
                continue
            if committed is None and (root / item.path).exists():
                # Untracked in the user's work tree: theirs to commit, never ours to clobber.
                left.append(item.path)
                continue
            changes.append(write(item.path, wanted))
        message = build(chore_subject("init", "knowledge base"), "init")
        return Edit(([c.path for c in changes], left), changes, message)

    with Base(Store.init(root, env=env)) as kb:
        kb.adopting = True
        done = kb.mutate(scaffold)
        for folder in LAYOUT_FOLDERS:
            (root / folder).mkdir(exist_ok=True)
    written, left = done.value
    driver = None
    if options.python is not None:
        from reflectgit.workflows.merging import register

        driver = register(root, options.python, env or {}).action
    return InitResult(
        kb=root,
        commit=done.commit,
        created=not was_kb,
        written=written,
        left_untracked=left,
        merge_driver=driver,
    )


def plan(options: InitOptions, tracked: Mapping[str, str]) -> list[Scaffold]:
    """The scaffold files for these options; ``tracked`` is what the branch holds already."""
    scaffolds = [
        Scaffold(f"{folder}/{KEEP_FILE}", _keep)
        for folder in LAYOUT_FOLDERS
        if not any(p.startswith(folder + "/") and not p.endswith(KEEP_FILE) for p in tracked)
    ]
    scaffolds.append(Scaffold(GITIGNORE, _gitignore))
    scaffolds.append(Scaffold(ATTRIBUTES, gitattributes))
    scaffolds.append(Scaffold(SETTINGS_FILE, lambda old: settings_file(old, options.team_remote)))
    if options.pre_commit:
        scaffolds.append(Scaffold(PRE_COMMIT_CONFIG, _pre_commit_config))
    return scaffolds


def _keep(old: bytes | None) -> bytes:
    return old if old is not None else b""


def _gitignore(old: bytes | None) -> bytes:
    """The user's .gitignore with our lines added once (theirs kept as they wrote them)."""
    text = old.decode("utf-8", "replace") if old is not None else ""
    present = {line.strip() for line in text.splitlines()}
    missing = [line for line in IGNORED[1:] if line not in present]
    if not missing:
        return old if old is not None else b""
    block = "\n".join([IGNORED[0], *missing]) + "\n"
    if text and not text.endswith("\n"):
        text += "\n"
    return (text + ("\n" if text else "") + block).encode("utf-8")


def settings_file(old: bytes | None, team_remote: str | None) -> bytes:
    """``.reflect-git.toml``: kept as is, except the team remote when one is given."""
    if old is None:
        text = (
            "# reflect-git knowledge base settings (committed; shared by everyone using the KB)\n"
            "\n[team]\n"
        )
        text += (
            f"remote = {json.dumps(team_remote)}\n"
            if team_remote
            else '# remote = "git@host:team/kb.git"\n'
        )
        return text.encode("utf-8")
    if not team_remote:
        return old
    text = old.decode("utf-8")
    try:
        current = tomllib.loads(text).get("team", {}).get("remote")
    except tomllib.TOMLDecodeError as exc:
        raise ReflectGitError(
            f"{SETTINGS_FILE} is not valid TOML: {exc}",
            hint="fix the file by hand, then run init again",
        ) from exc
    if current == team_remote:
        return old
    line = f"remote = {json.dumps(team_remote)}"
    section = re.search(r"(?m)^\[team\][ \t]*$", text)
    if section is None:
        sep = "" if text.endswith("\n") or not text else "\n"
        return f"{text}{sep}\n[team]\n{line}\n".encode()
    # Replace (or add) the remote line inside the [team] table, leaving everything else.
    start = section.end()
    nxt = re.search(r"(?m)^\[", text[start:])
    end = start + nxt.start() if nxt else len(text)
    body = text[start:end]
    new_body, count = re.subn(r"(?m)^#?[ \t]*remote[ \t]*=.*$", line, body, count=1)
    if not count:
        new_body = "\n" + line + body
    return (text[:start] + new_body + text[end:]).encode("utf-8")


def _pre_commit_config(old: bytes | None) -> bytes:
    """Kept as is when the user has one; otherwise our two hooks, from this release's tag."""
    if old is not None:
        return old
    return pre_commit_config_text().encode("utf-8")


def pre_commit_config_text(extra_hooks: Sequence[Mapping[str, object]] = ()) -> str:
    """A pre-commit config that runs this release's hooks (``rev: v<version>``)."""
    from reflectgit.workflows.release import pre_commit_config_text as text

    return text(extra_hooks)
