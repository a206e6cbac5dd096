"""The project a session works in: the name of the repository that holds its directory.

One answer for every writer (capture, the drain) and for recall, so a note learned in
``billing-api/src`` is recalled in ``billing-api``. A directory outside any repository (or
gone by the time the drain runs) is named by its last path component.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from reflectgit.git import repo_info


def project_name(cwd: str | Path | None, env: Mapping[str, str] | None = None) -> str | None:
    """The repository's name for ``cwd`` (its top-level folder), else the folder's name."""
    if cwd is None or str(cwd).strip() == "":
        return None
    path = Path(cwd)
    root = repo_info.toplevel(path, env) if path.is_dir() else None
    name = (root or path).name
    return name or None
