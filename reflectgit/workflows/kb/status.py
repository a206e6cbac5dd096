"""``reflect-git status``: counts by state and tier, the queue, the search index, the hooks."""

from __future__ import annotations

import importlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reflectgit.config import REVIEW_QUEUE
from reflectgit.git.store import Store
from reflectgit.notes.note import normalize_tier, tier_of
from reflectgit.state import leftovers
from reflectgit.workflows.kb.base import STATE_FOLDERS, Base, is_note_path


@dataclass(frozen=True)
class StatusResult:
    kb: str
    branch: str | None
    head: str | None
    notes: dict[str, int]
    tiers: dict[str, int]
    queue_depth: int
    dead_letters: int
    index: str
    hooks: dict[str, bool]
    clean: bool
    pending: str | None = None  # an interrupted write not yet finished (git/worktree.py)
    # The clone layout (the KB is a clone of the team KB): what `git push` would publish.
    publish: dict[str, Any] | None = None
    # Files a dead writer left or the queue moved aside (issue 18): queue/corrupt/, and
    # temporary files an hour old whose writer is gone (queue .tmp.*, git tmp_obj_/tmp_pack_).
    corrupt_files: int = 0
    stale_files: int = 0
    errors: dict[str, int] | None = None  # the last 7 days, by kind (`reflect-git errors`)
    # Live notes recall and the MCP tools never serve (they fail validation or hold a secret:
    # notes/withheld.py), with why, as the search index found them; None without an index.
    withheld: list[tuple[str, str]] | None = None
    # The merge driver in the KB's repository (workflows/merging.py ``state``).
    merge_driver: dict[str, Any] | None = None


class Status(Base):
    """status."""

    def status(self) -> StatusResult:
        """Counts by state and tier, the queue, the index, the hooks, and whether the tree is clean."""
        tree = self._tree()
        counts = {"live": 0, "archived": 0, "forgotten": 0, "review_queue": 0}
        tiers = {"high": 0, "medium": 0, "low": 0, "unknown": 0}
        if tree:
            for state in ("live", "archived", "forgotten"):
                files = self.store.list_tree(tree, STATE_FOLDERS[state])
                for path, blob in files.items():
                    if not is_note_path(path):
                        continue
                    counts[state] += 1
                    if state == "live":
                        tier = _peek_tier(self.store.read_blob(blob))
                        tiers[tier or "unknown"] += 1
            counts["review_queue"] = sum(
                1 for p in self.store.list_tree(tree, REVIEW_QUEUE) if p.endswith(".yaml")
            )
        depth, dead = _queue_counts(self.state_dir)
        corrupt, stale = _leftover_counts(self.state_dir)
        stale += len(leftovers.stale(self.store.temporaries()))
        hooks = _hooks_installed(self.store)
        tracked: list[str] = []
        if tree:
            for state in ("live", "archived"):
                tracked.extend(self.store.list_tree(tree, STATE_FOLDERS[state]))
        clean = not self.store.dirty_paths(tracked)
        index = _index_freshness(self)
        return StatusResult(
            kb=str(self.store.path or self.store.git_dir),
            branch=self.store.current_branch(),
            head=self.store.head(),
            notes=counts,
            tiers=tiers,
            queue_depth=depth,
            dead_letters=dead,
            index=index,
            hooks=hooks,
            clean=clean,
            pending=self.store.pending(),
            publish=_would_publish(self.store),
            corrupt_files=corrupt,
            stale_files=stale,
            errors=_error_counts(self.state_dir),
            withheld=_withheld(self, index),
            merge_driver=_merge_driver(self.store, tree),
        )


_TIER_LINE = re.compile(rb"^confidence:[ \t]*['\"]?([A-Za-z]+)", re.MULTILINE)
_NUM_LINE = re.compile(rb"^confidence_num:[ \t]*([0-9.]+)", re.MULTILINE)


def _peek_tier(data: bytes) -> str | None:
    end = data.find(b"\n---", 3)
    head = data[: end if end > 0 else 4096]
    match = _TIER_LINE.search(head)
    if match:
        return normalize_tier(match.group(1).decode("ascii"))
    num = _NUM_LINE.search(head)
    if num:
        try:
            return tier_of({"confidence_num": float(num.group(1))})
        except ValueError:
            return None
    return None


def _would_publish(store: Store) -> dict[str, Any] | None:
    """In the clone layout, the notes a plain ``git push`` of main would put on the team's main
    (from the last fetch: no network), and which of them are not reviewed."""
    from reflectgit.config import Config
    from reflectgit.errors import ReflectGitError
    from reflectgit.workflows.team import publication

    if store.path is None:
        return None
    try:
        pub = publication(Config.resolve(store.path, store.env))
    except ReflectGitError:
        return None
    return pub.to_json() if pub is not None else None


def _queue_counts(state_dir: Path | None) -> tuple[int, int]:
    """Queue depth and dead letters, when the queue module is installed (else zeros).

    Entries are counted as files, not read: ``status`` must never change the queue.
    """
    if state_dir is None:
        return 0, 0
    try:
        queue_mod = importlib.import_module("reflectgit.state.queue")
    except ImportError:
        return 0, 0
    try:
        queue = queue_mod.Queue(state_dir)
        depth = sum(1 for _ in Path(queue.dir).glob("*.json"))
        dead = sum(1 for _ in Path(queue.dead_dir).glob("*.json"))
    except Exception:  # a queue we cannot read says nothing about the KB itself
        return 0, 0
    return depth, dead


def _error_counts(state_dir: Path | None) -> dict[str, int] | None:
    """What went wrong in the last 7 days, by kind (read only)."""
    if state_dir is None:
        return None
    from reflectgit.workflows.errors import errors_report

    try:
        return errors_report(state_dir, "7d").counts()
    except OSError:
        return None


def _leftover_counts(state_dir: Path | None) -> tuple[int, int]:
    """Corrupt queue files moved aside, and stale temporary files in the queue (read only)."""
    if state_dir is None:
        return 0, 0
    from reflectgit.state.queue import Queue

    try:
        queue = Queue(state_dir, read_only=True)
        return len(queue.corrupt()), len(queue.stale_temporaries())
    except OSError:
        return 0, 0


def _index_freshness(kb: Base) -> str:
    try:
        search_mod = importlib.import_module("reflectgit.workflows.search.index")
    except ImportError:
        return "n/a"
    fresh = getattr(search_mod, "freshness", None)
    if callable(fresh) and kb.state_dir is not None:
        try:
            return str(fresh(kb.store, kb.state_dir))
        except Exception:
            return "n/a"
    return "n/a"


def _withheld(kb: Base, index: str) -> list[tuple[str, str]] | None:
    """The live notes withheld from agents, from the search index (brought up to HEAD when it
    is behind); None when there is no index yet (status does not build one)."""
    if index not in ("fresh", "behind") or kb.state_dir is None or kb.store.path is None:
        return None
    from reflectgit.errors import ReflectGitError
    from reflectgit.workflows.search.index import open_fresh

    try:
        found, _ = open_fresh(kb.store.path, kb.state_dir, kb.store.env)
        with found:
            return found.withheld()
    except (ReflectGitError, OSError):
        return None


def _merge_driver(store: Store, tree: str | None) -> dict[str, Any]:
    """Is the merge driver registered in the repository's own git config, and do the
    ``.gitattributes`` git reads (the work tree's, else the commit's) name it?"""
    from reflectgit.workflows.merging import ATTRIBUTES, DRIVER, state

    try:
        raw = store.repo.get_config().get((b"merge", DRIVER.encode()), b"driver")
        command: str | None = raw.decode("utf-8", "replace")
    except KeyError:
        command = None
    attributes: bytes | None = None
    if store.path is not None and (store.path / ATTRIBUTES).is_file():
        attributes = (store.path / ATTRIBUTES).read_bytes()
    elif tree:
        attributes = store.read_at_tree(tree, ATTRIBUTES)
    return state(command, attributes)


def _hooks_installed(store: Store) -> dict[str, bool]:
    hooks_dir = store.common_dir / "hooks"
    try:
        cfg = store.repo.get_config()
        custom = cfg.get((b"core",), b"hooksPath").decode("utf-8")
        hooks_dir = (
            (store.path or store.git_dir) / custom if not os.path.isabs(custom) else Path(custom)
        )
    except KeyError:
        pass
    try:
        text = (hooks_dir / "post-commit").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    pre_commit = store.path is not None and (store.path / ".pre-commit-config.yaml").exists()
    return {
        "post_commit": "reflect-git" in text or "reflectgit" in text,
        "pre_commit_config": pre_commit,
    }
