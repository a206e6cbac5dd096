"""The release this package is, and how the files it generates pin it.

The convention (docs/validation.md, CHANGELOG.md): a release is the commit tagged
``v<version>``, where ``<version>`` is ``reflectgit.__version__`` (the ``version`` in
pyproject.toml), and CHANGELOG.md has its entry. The ``.pre-commit-config.yaml`` that
``reflect-git init`` writes names that tag as its ``rev``; the CI templates install that version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reflectgit import __version__
from reflectgit.notes.note import dump_yaml

PACKAGE = "reflect-git"
REPOSITORY = "https://github.com/reflect-git/reflect-git"
TAG = f"v{__version__}"
# The stage names below (pre-commit, pre-merge-commit) arrived in pre-commit 3.2.0.
MINIMUM_PRE_COMMIT = "3.2.0"
HOOK_IDS = ("reflect-git-validate", "reflect-git-check")


def requirement(version: str = __version__) -> str:
    """The pip requirement that installs exactly this release."""
    return f"{PACKAGE}=={version}"


def pre_commit_config_text(
    extra_hooks: Sequence[Mapping[str, object]] = (),
    repo: str = REPOSITORY,
    rev: str = TAG,
) -> str:
    """A ``.pre-commit-config.yaml`` that runs this release's hooks (pre-commit installs
    reflect-git into the hooks' own environment, so nothing needs to be on ``PATH``)."""
    hooks: list[Mapping[str, object]] = [{"id": hook_id} for hook_id in HOOK_IDS]
    hooks.extend(extra_hooks)
    header = (
        "# reflect-git: validate notes and check the KB before every commit.\n"
        f"# Enable with `pre-commit install` (`pip install '{PACKAGE}[pre-commit]'` brings it).\n"
        f"# rev is the tag of the reflect-git release that wrote this file ({rev}).\n"
    )
    body = {
        "minimum_pre_commit_version": MINIMUM_PRE_COMMIT,
        "repos": [{"repo": repo, "rev": rev, "hooks": hooks}],
    }
    return header + dump_yaml(body)
