"""How this reflect-git is installed: where it came from, and which optional extras it has.

Where it came from is what pip recorded (PEP 610): an install from a URL (a git repository, an
archive, a local folder or wheel file) leaves ``direct_url.json`` in the distribution's metadata;
an install from a package index leaves none. The files ``init`` writes for others (the CI jobs,
``.pre-commit-config.yaml``) name reflect-git the same way, and only when others can: a local
folder, an editable install or a wheel file on this machine names nothing a CI runner or a
teammate can install, so the caller says what to set instead of guessing.

The extras (``serve``, ``mcp``) bring the web and MCP stacks; the core never imports them. A
command that needs one checks for it first and, when it is missing, names the ``pip install``
line that brings it.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from reflectgit import __version__
from reflectgit.errors import ReflectGitError

PACKAGE = "reflect-git"
# The project's repository; a release is its commit tagged v<version> (CHANGELOG.md).
REPOSITORY = "https://github.com/reflect-git/reflect-git"
TAG = f"v{__version__}"

# extra -> the top-level modules it brings (what reflectgit imports from each).
EXTRAS: dict[str, tuple[str, ...]] = {
    "serve": ("starlette", "uvicorn", "jinja2"),
    "mcp": ("mcp",),
}


class MissingExtraError(ReflectGitError):
    """A command needs an optional extra that this install does not have."""


@dataclass(frozen=True)
class Source:
    """Where this reflect-git was installed from, and how others can install the same.

    ``requirement`` is what others can ``pip install`` (``reflect-git==0.1.0``,
    ``git+URL@COMMIT``, an archive's URL: one argument any pip takes); ``repo`` and ``rev`` are pre-commit's (a git repository
    and a commit). Each is None when the install cannot be named for others. ``described``
    says how it was installed, in words; ``here`` is what pip takes on this machine (a folder,
    a wheel file), for the hint that adds an extra."""

    described: str
    requirement: str | None = None
    repo: str | None = None
    rev: str | None = None
    here: str | None = None
    editable: bool = False

    def pip_line(self, extra: str) -> str:
        """The ``pip install`` command that brings ``extra`` to this install."""
        if self.requirement is not None:
            if self.requirement.startswith(f"{PACKAGE}=="):
                return f"pip install '{PACKAGE}[{extra}]{self.requirement[len(PACKAGE) :]}'"
            return f"pip install '{PACKAGE}[{extra}] @ {self.requirement}'"
        if self.here is not None:
            flag = "-e " if self.editable else ""
            return f"pip install {flag}'{self.here}[{extra}]'"
        return f"pip install '{PACKAGE}[{extra}]'"


def source() -> Source:
    """This install's ``Source``, from what pip recorded in the installed distribution."""
    import importlib.metadata

    from reflectgit import jsonio

    # What an installer installed (it writes INSTALLER), never the .egg-info a build leaves in a
    # source tree, which shadows it when the tree is on sys.path (`python -m` from the checkout).
    installed = [
        d for d in importlib.metadata.distributions(name=PACKAGE) if d.read_text("INSTALLER")
    ]
    if not installed:
        return Source(described="not installed by pip (run from a source tree)")
    text = installed[0].read_text("direct_url.json")
    try:
        doc = jsonio.loads(text) if text else None
    except ValueError:
        doc = None
    return from_direct_url(doc if isinstance(doc, dict) else None)


def from_direct_url(direct_url: dict | None) -> Source:
    """The ``Source`` PEP 610's document describes (None: an install from a package index)."""
    if direct_url is None:
        # A release on an index is the commit tagged v<version> of the project's repository.
        return Source(
            described=f"from a package index ({PACKAGE} {__version__})",
            requirement=f"{PACKAGE}=={__version__}",
            repo=REPOSITORY,
            rev=TAG,
        )
    url = str(direct_url.get("url", ""))
    vcs = direct_url.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("commit_id"):
        commit = str(vcs["commit_id"])
        kind = str(vcs.get("vcs", "git"))
        subdirectory = direct_url.get("subdirectory")
        ref = f"{kind}+{url}@{commit}" + (f"#subdirectory={subdirectory}" if subdirectory else "")
        plain_git = kind == "git" and not subdirectory
        return Source(
            described=f"from {kind}+{url} at {commit}",
            requirement=ref,
            repo=url if plain_git else None,
            rev=commit if plain_git else None,
        )
    local = _local_path(url)
    if isinstance(direct_url.get("archive_info"), dict):
        if local is None:
            return Source(described=f"from {url}", requirement=url)
        return Source(described=f"from the file {local}", here=local)
    editable = bool((direct_url.get("dir_info") or {}).get("editable"))
    where = local or url
    how = "an editable install of" if editable else "the local folder"
    return Source(described=f"from {how} {where}", here=where, editable=editable)


def _local_path(url: str) -> str | None:
    """The path of a ``file:`` URL, else None."""
    parts = urlsplit(url)
    if parts.scheme != "file":
        return None
    return unquote(parts.path)


def require(extra: str, command: str) -> None:
    """Raise ``MissingExtraError`` (with the ``pip install`` line) when ``extra`` is missing."""
    missing = [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]
    if not missing:
        return
    here = source()
    line = here.pip_line(extra)
    if _in_pipx():
        line = line.replace("pip install -e ", "pipx install --force -e ").replace(
            "pip install ", "pipx install --force "
        )
    raise MissingExtraError(
        f"`reflect-git {command}` needs the {extra!r} extra, which this install does not have "
        f"(missing: {', '.join(missing)})",
        hint=line,
    )


def _in_pipx() -> bool:
    """Whether this interpreter is one of pipx's environments (``.../pipx/venvs/<name>``)."""
    prefix = Path(sys.prefix)
    return prefix.parent.name == "venvs" and "pipx" in prefix.parent.parent.name
