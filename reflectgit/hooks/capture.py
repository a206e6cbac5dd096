"""``reflect-git capture commit``: what the post-commit shim runs. Also ``idle`` for timers.

Records the commit in the state directory's ``commits.jsonl`` and returns 0 whatever happens;
errors leave a breadcrumb in the state directory's log. Every lock wait is bounded (about two
seconds, ``hooks.agent.LOCK_WAIT``): a commit whose capture cannot get its lock in time is
written to ``capture/deferred-commits.jsonl`` and recorded by the next capture that can. ``python -m reflectgit.hooks.capture
commit [SHA [BRANCH]]`` is what the shim runs (no CLI framework is imported).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def fallback_log(line: str) -> None:
    """Last-resort breadcrumb when no state directory could be resolved."""
    try:
        import time

        home = os.path.expanduser("~")
        folder = os.path.join(home, ".cache", "reflect-git")
        os.makedirs(folder, exist_ok=True)
        from reflectgit.notes.dates import format_epoch
        from reflectgit.notes.privacy import clean

        stamp = format_epoch(time.time())
        with open(os.path.join(folder, "hooks.log"), "a", encoding="utf-8") as fh:
            fh.write(f"{stamp} {clean(line)[:2000]}\n")
    except BaseException:
        pass


def main(argv: Sequence[str] | None = None, kb: str | None = None) -> int:
    """``commit [SHA [BRANCH]]``, ``merge`` or ``idle``; always returns 0."""
    args = list(sys.argv[1:] if argv is None else argv)
    what = args[0] if args else "commit"
    cap: Any = None
    try:
        from reflectgit.config import Config, environ
        from reflectgit.git.run import without_hook_vars
        from reflectgit.workflows.capture.commits import Capture

        # git exports GIT_DIR, GIT_INDEX_FILE, ... to its hooks; none of them may leak into
        # the git calls or the KB commits the capture makes.
        cfg = Config.resolve(kb, without_hook_vars(environ()))
        if cfg.internal:
            return 0
        cap = Capture(cfg)
        if not cap.usable:
            return 0
        if what == "commit":
            sha = args[1] if len(args) > 1 and args[1] else None
            branch = args[2] if len(args) > 2 and args[2] else None
            _record(cap, Path.cwd(), sha, branch)
        elif what == "merge":  # git's post-merge hook: a clean merge fires no post-commit
            cap.record_merge(Path.cwd())
        elif what == "idle":
            if not cap.idle_disabled:
                root, threshold, max_age, limit = cap.idle_settings()
                cap.idle_sweep(root, threshold=threshold, max_age=max_age, limit=limit)
        else:
            cap.log("capture", "skip", f"unknown capture {what!r}")
    except BaseException as exc:  # a post-commit hook must never fail the commit
        if cap is not None:
            cap.breadcrumb(f"capture {what}", exc)
        else:
            fallback_log(f"capture {what}: {type(exc).__name__}: {exc}")
    return 0


DEFERRED = "deferred-commits.jsonl"


def _record(cap: Any, repo: Any, sha: str | None, branch: str | None) -> None:
    """Record the commit (and any deferred before it) with bounded lock waits."""
    import json

    from reflectgit.errors import LockError
    from reflectgit.git.lockwait import bounded
    from reflectgit.hooks.agent import LOCK_WAIT
    from reflectgit.workflows.capture.commits import CAPTURE_DIR

    folder = cap.state_dir / CAPTURE_DIR
    deferred = folder / DEFERRED
    if sha is None:
        from reflectgit.git.repo_info import read_commit

        info = read_commit(repo, "HEAD", cap.cfg.env)
        sha = info["sha"] if info else None
    todo: list[tuple[str, str | None, str | None]] = []
    try:
        for line in deferred.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            todo.append((row["repo"], row.get("sha"), row.get("branch")))
        deferred.unlink()
    except (OSError, ValueError, KeyError, TypeError):
        pass
    todo.append((str(repo), sha, branch))
    left: list[tuple[str, str | None, str | None]] = []
    for where, one_sha, one_branch in todo:
        if left:
            left.append((where, one_sha, one_branch))  # keep the order
            continue
        try:
            with bounded(LOCK_WAIT):
                cap.record_commit(Path(where), one_sha, one_branch)
        except LockError as exc:
            cap.log("capture commit", "deferred", f"{(one_sha or '?')[:12]}: {exc}")
            left.append((where, one_sha, one_branch))
    if left:
        folder.mkdir(parents=True, exist_ok=True)
        with deferred.open("a", encoding="utf-8") as fh:
            for where, one_sha, one_branch in left:
                fh.write(json.dumps({"repo": where, "sha": one_sha, "branch": one_branch}) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
