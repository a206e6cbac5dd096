"""Where an agent works: the repository's name, its branch and the files recently touched, and
the words that describe it (what recall looks for).

Described from what the caller passes in (the working directory; never read implicitly). The
two questions git answers here (changed files, recent commits' files) run at the same time.
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile each field's
# annotation from text (a session start's first compile(), about 0.8 ms).
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from reflectgit.git import repo_info

RECENT_COMMITS = 10
MAX_TERMS = 40
MAX_FILES = 50

# File kinds that say which tools a project uses, so notes tagged with the tool come back.
_KIND_WORDS = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".js": "javascript",
    ".jsx": "javascript",
    ".go": "go",
    ".rs": "rust",
    ".rb": "ruby",
    ".java": "java",
    ".kt": "kotlin",
    ".tf": "terraform",
    ".sql": "sql",
    ".sh": "bash",
    ".zsh": "zsh",
    "dockerfile": "docker",
    "docker-compose.yml": "docker",
    "package.json": "npm",
    "pyproject.toml": "python",
    "cargo.toml": "rust",
    "go.mod": "go",
    "makefile": "make",
}
_STOP = {
    "the", "and", "for", "with", "src", "lib", "test", "tests", "main", "master", "index",
    "init", "readme", "docs", "md", "txt", "json", "yaml", "yml", "toml", "feature", "fix",
    "app", "bin", "utils", "util", "core", "common", "new", "old", "tmp",
}  # fmt: skip


class ProjectContext(NamedTuple):
    """Where the agent works: repository name, branch (None: unknown) and recently touched
    files (none: ``()``), the work tree's top (None: not in a repository)."""

    name: str
    branch: str | None = None
    files: Sequence[str] = ()
    root: Path | None = None
    # The recent commits' files with the stamp of the project's HEAD and config they were
    # read at (``recent_stamp``): what ``describing`` is given back to skip that git.
    recent: tuple[list[object], list[str]] | None = None

    def said(self) -> list[str]:
        """The words of the project's name and branch: what the project says it is (with
        ``--project``, what the caller said), ranked ahead of the files' words."""
        return _words([self.name, self.branch or ""])

    def terms(self) -> list[str]:
        """Every word that describes the project, once, most telling first: the name's and
        branch's, then the touched files' kinds (``*.py``: python) and their paths' words."""
        kinds: list[str] = []
        paths: list[str] = []
        for path in self.files:
            lower = path.lower()
            base = lower.rsplit("/", 1)[-1]
            for key, word in _KIND_WORDS.items():
                if base == key or (key.startswith(".") and base.endswith(key)):
                    kinds.append(word)
            # The file's kind said above; its extension is no word of the project ("py").
            dot = base.rfind(".")
            paths.append(path[: len(path) - len(base) + dot] if dot > 0 else path)
        return _words([self.name, self.branch or "", " ".join(kinds), *paths])[:MAX_TERMS]


def _words(texts: Sequence[str]) -> list[str]:
    """The words of ``texts`` in order, once each, without the short, numeric and path-noise
    ones (``src``, ``tests``, ...)."""
    seen: set[str] = set()
    words = []
    for text in texts:
        for word in re.split(r"[^0-9A-Za-z]+", text.lower()):
            if len(word) < 2 or word in _STOP or word.isdigit() or word in seen:
                continue
            seen.add(word)
            words.append(word)
    return words


def project_context(
    cwd: Path, project: str | None = None, env: Mapping[str, str] | None = None
) -> ProjectContext:
    """Describe the project at ``cwd`` (the caller's working directory, passed in explicitly)."""
    return describing(cwd, project, env)()


def describing(
    cwd: Path,
    project: str | None = None,
    env: Mapping[str, str] | None = None,
    known: Mapping[str, object] | None = None,
) -> Callable[[], ProjectContext]:
    """``project_context`` with git's questions asked now and answered when the call returned
    is made (what the caller does in between runs alongside git; make the call, also on the
    way out of an error, so no git is left behind). ``known``: an earlier context's
    ``recent`` by its top folder; when the project's HEAD and config have that stamp still,
    the recent commits' files are taken from it and only the changed files are asked."""
    root, branch = repo_info.top_and_branch(cwd, env)
    name = project or (root.name if root else cwd.name)
    if root is None:
        alone = ProjectContext(name=name)
        return lambda: alone
    stamp = recent_stamp(root)
    kept = (known or {}).get(str(root))
    recent = None
    if stamp is not None and isinstance(kept, list | tuple) and len(kept) == 2:
        same = kept[0] == stamp and isinstance(kept[1], list)
        recent = [f for f in kept[1] if isinstance(f, str)] if same else None
    files = repo_info.asking_worked_files(root, RECENT_COMMITS, env, recent)

    def described() -> ProjectContext:
        modified, recent = files()
        unique = list(dict.fromkeys(modified + recent))[:MAX_FILES]
        read = None if stamp is None else (stamp, recent)
        return ProjectContext(name=name, branch=branch, files=unique, root=root, recent=read)

    return described


def recent_stamp(root: Path) -> list[object] | None:
    """What ``git log --name-only`` of the recent commits at ``root`` is read from, as far as
    files say it: HEAD's commit (``git/headstamp``) and the stat of the repository's config.
    None when they cannot vouch. (git's user-wide settings that change how it names files,
    ``diff.renames`` or ``core.quotePath``, are not in it: a change there shows from the next
    commit on.)"""
    from reflectgit.config import git_dir_of
    from reflectgit.git.headstamp import head_stamp

    try:
        git_dir = git_dir_of(root)
        head = head_stamp(git_dir)
        st = os.stat(os.path.join(git_dir, "config"))
    except (OSError, ValueError):
        return None
    if head is None:
        return None
    return [head, st.st_ino, st.st_size, st.st_mtime_ns]
