"""What git's config files tell a writer: the committer's identity and ``core.fsync``.

A part of ``Store`` (``store.Store`` inherits it): the repository's config and the user's
global ones, read directly when no dulwich ``Repo`` is open and nothing in them needs its
parser, else through ``dulwich.config``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reflectgit.git import fsync
from reflectgit.git.repo_info import config_may_set, config_user

if TYPE_CHECKING:
    from dulwich.config import ConfigFile
    from dulwich.repo import Repo

FALLBACK_NAME = "reflect-git"
FALLBACK_EMAIL = "reflect-git@localhost"


class RepoConfig:
    """The git config a ``Store`` reads, cached for the store's life."""

    env: Mapping[str, str]
    common_dir: Path
    _repo: Repo | None
    _cached_identity: tuple[str | None, str | None] | None
    _fsync: fsync.Policy | None

    def _identity(self, kind: str) -> bytes:
        name = self.env.get(f"GIT_{kind}_NAME")
        email = self.env.get(f"GIT_{kind}_EMAIL")
        if not (name and email):
            cfg_name, cfg_email = self._config_identity()
            name = name or cfg_name or self.env.get("GIT_AUTHOR_NAME") or FALLBACK_NAME
            email = email or cfg_email or self.env.get("GIT_AUTHOR_EMAIL") or FALLBACK_EMAIL
        return f"{name} <{email}>".encode()

    def author(self) -> str:
        """The name of the person this repository's commits are authored by (git's own order:
        ``GIT_AUTHOR_NAME``, then ``user.name``), as a review names who reviewed."""
        identity = self._identity("AUTHOR").decode("utf-8", "replace")
        return identity.rsplit(" <", 1)[0].strip() or FALLBACK_NAME

    def _config_identity(self) -> tuple[str | None, str | None]:
        if self._cached_identity is not None:
            return self._cached_identity
        name = email = None
        if self._repo is None:  # git's files read directly, without dulwich.config (~8 ms)
            quick = config_user(self._config_paths())
            if quick is not None:
                self._cached_identity = quick
                return quick
        for cfg in self._configs():
            with contextlib.suppress(KeyError):
                name = name or cfg.get((b"user",), b"name").decode("utf-8")
            with contextlib.suppress(KeyError):
                email = email or cfg.get((b"user",), b"email").decode("utf-8")
        self._cached_identity = (name, email)
        return name, email

    def _configs(self) -> list[ConfigFile]:
        """The repository's config, then the user's global ones (most specific first)."""
        from dulwich.config import ConfigFile

        configs = []
        with contextlib.suppress(Exception):
            if self._repo is not None:
                configs.append(self._repo.get_config())
            elif (self.common_dir / "config").is_file():  # as dulwich's get_config reads it
                configs.append(ConfigFile.from_path(os.fspath(self.common_dir / "config")))
        for candidate in self._global_configs():
            with contextlib.suppress(Exception):
                configs.append(ConfigFile.from_path(candidate))
        return configs

    def _global_configs(self) -> list[str]:
        """The user's global config files that exist, as ``_configs`` reads them."""
        global_path = self.env.get("GIT_CONFIG_GLOBAL")
        home = self.env.get("HOME")
        candidates = [global_path] if global_path else []
        if home and not global_path:
            candidates.append(os.path.join(home, ".gitconfig"))
        xdg = self.env.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else None)
        if xdg and not global_path:
            candidates.append(os.path.join(xdg, "git", "config"))
        return [c for c in candidates if c and os.path.isfile(c)]

    def _config_paths(self) -> list[str]:
        """The files ``_configs`` parses when no dulwich repository is open, most specific
        first (the quick readers ``config_may_set`` and ``config_user`` read these)."""
        return [os.fspath(self.common_dir / "config"), *self._global_configs()]

    def _configs_may_set(self, *words: bytes) -> bool:
        """Could the config files ``_configs`` reads set a key named with one of ``words``?
        False only when no file so much as mentions one (nor an include), so the common
        commit reads a few small files instead of importing ``dulwich.config`` (with
        ``logging``, about 8 ms); anything else parses them as before."""
        if self._repo is not None:
            return True
        return config_may_set(self._config_paths(), *words)

    def config_value(self, section: bytes, name: bytes) -> str | None:
        """A setting from the repository's config or the user's global ones (the most
        specific that sets it), None when none does; nothing is parsed unless a file so
        much as mentions the section (a key is set only under its section's header)."""
        if not self._configs_may_set(section):
            return None
        for cfg in self._configs():
            with contextlib.suppress(KeyError, UnicodeDecodeError):
                return cfg.get((section,), name).decode("utf-8")
        return None

    def maintenance_tasks_enabled(self) -> bool:
        """Does a config file turn on a task of ``git maintenance`` (``maintenance.<task>.enabled``)?"""
        if not self._configs_may_set(b"maintenance"):
            return False
        for cfg in self._configs():
            for section in cfg.sections():
                if len(section) == 2 and section[0].lower() == b"maintenance":
                    with contextlib.suppress(KeyError):
                        if cfg.get(section, b"enabled").lower() in (b"true", b"yes", b"on", b"1"):
                            return True
        return False

    def may_follow_a_remote(self) -> bool:
        """Could a branch of this repository follow a remote (its config mentions one)?

        False only when the repository's own config names no remote (a KB made by
        ``git init``): then no branch tracks the team's, and nobody need ask git."""
        return config_may_set([os.fspath(self.common_dir / "config")], b"remote")

    @property
    def fsync_policy(self) -> fsync.Policy:
        """What git's ``core.fsync`` / ``core.fsyncMethod`` say to flush (git's default unset)."""
        if self._fsync is None:
            values: dict[bytes, str | None] = {}
            keys = (b"fsync", b"fsyncmethod", b"fsyncobjectfiles")
            for key in keys if self._configs_may_set(b"fsync") else ():
                for cfg in self._configs():
                    with contextlib.suppress(KeyError, UnicodeDecodeError):
                        values[key] = cfg.get((b"core",), key).decode("utf-8")
                        break
            self._fsync = fsync.policy(
                values.get(b"fsync"), values.get(b"fsyncmethod"), values.get(b"fsyncobjectfiles")
            )
        return self._fsync
