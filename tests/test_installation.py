"""Where this reflect-git came from, read from PEP 610's ``direct_url.json`` document: what each
kind of install names for others, and the ``pip install`` line that adds an extra to it.
(tests/test_install.py and tests/test_packaging.py install for real, from a git URL and a
wheel; these are the other shapes pip writes.)"""

from __future__ import annotations

import pytest

from reflectgit import __version__
from reflectgit.installation import (
    REPOSITORY,
    TAG,
    from_direct_url,
    require,
    source,
)

SHA = "0123456789abcdef0123456789abcdef01234567"


def test_an_index_install_names_the_release_and_its_tag() -> None:
    here = from_direct_url(None)
    assert here.requirement == f"reflect-git=={__version__}"
    assert (here.repo, here.rev) == (REPOSITORY, TAG)
    assert here.pip_line("serve") == f"pip install 'reflect-git[serve]=={__version__}'"


@pytest.mark.parametrize(
    "url", ["https://git.example.com/tools/reflect-git", "file:///srv/mirrors/reflect-git"]
)
def test_a_git_install_names_the_url_at_the_commit(url: str) -> None:
    here = from_direct_url(
        {"url": url, "vcs_info": {"vcs": "git", "commit_id": SHA, "requested_revision": "main"}}
    )
    assert here.requirement == f"git+{url}@{SHA}"  # the commit, never the moving branch
    assert (here.repo, here.rev) == (url, SHA)
    assert here.pip_line("mcp") == f"pip install 'reflect-git[mcp] @ git+{url}@{SHA}'"


def test_a_subdirectory_or_another_vcs_is_installable_but_not_a_pre_commit_repo() -> None:
    sub = from_direct_url(
        {
            "url": "https://git.example.com/mono",
            "vcs_info": {"vcs": "git", "commit_id": SHA},
            "subdirectory": "tools/reflect-git",
        }
    )
    assert (
        sub.requirement == f"git+https://git.example.com/mono@{SHA}#subdirectory=tools/reflect-git"
    )
    assert (sub.repo, sub.rev) == (None, None)
    hg = from_direct_url(
        {"url": "https://hg.example.com/rg", "vcs_info": {"vcs": "hg", "commit_id": "abc"}}
    )
    assert hg.requirement == "hg+https://hg.example.com/rg@abc"
    assert (hg.repo, hg.rev) == (None, None)


def test_a_remote_archive_is_named_by_its_url() -> None:
    url = "https://files.example.com/reflect_git-0.1.0-py3-none-any.whl"
    here = from_direct_url({"url": url, "archive_info": {"hash": "sha256=00"}})
    assert here.requirement == url and here.repo is None


@pytest.mark.parametrize(
    ("doc", "described", "line"),
    [
        (
            {"url": "file:///home/ada/src/reflect-git", "dir_info": {"editable": True}},
            "from an editable install of /home/ada/src/reflect-git",
            "pip install -e '/home/ada/src/reflect-git[serve]'",
        ),
        (
            {"url": "file:///home/ada/src/reflect-git", "dir_info": {}},
            "from the local folder /home/ada/src/reflect-git",
            "pip install '/home/ada/src/reflect-git[serve]'",
        ),
        (
            {"url": "file:///tmp/dist/reflect_git-0.1.0-py3-none-any.whl", "archive_info": {}},
            "from the file /tmp/dist/reflect_git-0.1.0-py3-none-any.whl",
            "pip install '/tmp/dist/reflect_git-0.1.0-py3-none-any.whl[serve]'",
        ),
    ],
    ids=["editable", "folder", "wheel-file"],
)
def test_a_local_install_names_nothing_for_others(doc: dict, described: str, line: str) -> None:
    here = from_direct_url(doc)
    assert (here.requirement, here.repo, here.rev) == (None, None, None)
    assert here.described == described
    assert here.pip_line("serve") == line  # for this machine only


def test_this_test_environment_is_a_checkout_installed_for_development() -> None:
    """``make test`` installs the checkout (``pip install -e``): nothing others could install.
    The ``.egg-info`` the build leaves in the checkout (on ``sys.path`` here) is not an install."""
    here = source()
    assert here.requirement is None and here.here is not None, here


def test_require_passes_the_extras_the_dev_install_has() -> None:
    """The refusal without them: tests/test_install.py and tests/test_packaging.py, in real
    environments that lack them."""
    require("serve", "serve")
    require("mcp", "mcp")
