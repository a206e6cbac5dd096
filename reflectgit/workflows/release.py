"""The release this package is, and how the files it generates name it.

The convention (docs/validation.md, CHANGELOG.md): a release is the commit tagged
``v<version>``, where ``<version>`` is ``reflectgit.__version__`` (the ``version`` in
pyproject.toml), and CHANGELOG.md has its entry. The files ``init`` writes for others name
reflect-git as it was installed here (``reflectgit.installation``): the ``.pre-commit-config.yaml``
names the git repository and commit it came from (a release from an index: the project's
repository at the release's tag); the CI templates pip-install the same. When this install
cannot be named for others (a local folder, an editable install, a wheel file), they hold a
placeholder that fails until someone sets it, and ``init`` says what to set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reflectgit.installation import PACKAGE, REPOSITORY, TAG, Source, source
from reflectgit.notes.note import dump_yaml

__all__ = ["PACKAGE", "REPOSITORY", "TAG"]

# The stage names below (pre-commit, pre-merge-commit) arrived in pre-commit 3.2.0.
MINIMUM_PRE_COMMIT = "3.2.0"
HOOK_IDS = ("reflect-git-validate", "reflect-git-check")
# What the generated files hold where this install cannot be named for others.
REPO_PLACEHOLDER = "SET-ME (the git URL of a reflect-git repository your team can reach)"
REV_PLACEHOLDER = "SET-ME (a tag or commit of it)"
PIP_PLACEHOLDER = "SET-ME (what pip installs reflect-git from, see the comment above)"


def requirement(installed: Source | None = None) -> str:
    """The pip requirement that installs this reflect-git elsewhere (a placeholder if none)."""
    return (installed or source()).requirement or PIP_PLACEHOLDER


def pre_commit_config_text(
    extra_hooks: Sequence[Mapping[str, object]] = (), installed: Source | None = None
) -> str:
    """A ``.pre-commit-config.yaml`` that runs this reflect-git's hooks (pre-commit installs
    reflect-git into the hooks' own environment, so nothing needs to be on ``PATH``)."""
    here = installed or source()
    hooks: list[Mapping[str, object]] = [{"id": hook_id} for hook_id in HOOK_IDS]
    hooks.extend(extra_hooks)
    if here.repo is None or here.rev is None:
        repo, rev = REPO_PLACEHOLDER, REV_PLACEHOLDER
        origin = (
            "# SET repo and rev below: reflect-git was installed from a local folder or file,\n"
            "# which others cannot install. Name a git repository of reflect-git and a tag or\n"
            "# commit of it (pre-commit clones it and installs reflect-git from it).\n"
        )
    elif here.rev == TAG and here.repo == REPOSITORY:
        repo, rev = here.repo, here.rev
        origin = f"# rev is the tag of the reflect-git release that wrote this file ({rev}).\n"
    else:
        repo, rev = here.repo, here.rev
        origin = "# repo and rev: the git repository and commit reflect-git was installed from.\n"
    header = (
        "# reflect-git: validate notes and check the KB before every commit.\n"
        f"# Enable with `pre-commit install` (`pip install '{PACKAGE}[pre-commit]'` brings it).\n"
        + origin
    )
    body = {
        "minimum_pre_commit_version": MINIMUM_PRE_COMMIT,
        "repos": [{"repo": repo, "rev": rev, "hooks": hooks}],
    }
    return header + dump_yaml(body)
