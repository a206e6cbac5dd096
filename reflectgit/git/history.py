"""Questions about commit history that need the object graph: merge bases."""

from __future__ import annotations

from typing import Any

from reflectgit.errors import NotFoundError
from reflectgit.git.run import run


def merge_base(store: Any, a: str, b: str) -> str | None:
    """The best common ancestor of two commits in ``store``'s repository; None when unrelated.

    Git's own answer (``git merge-base``), not dulwich's ``find_merge_base``: on a team's main
    just merged by a forge, dulwich's walk answered the root commit where git answered the
    merged tip, in the same repository over the same objects (seen under load in the Gitea
    approve tests, about one run in twenty), and every review diff and approve reads this.
    """
    done = run(["merge-base", a, b], env=store.env, git_dir=store.git_dir)
    if done.ok:
        return done.out.split()[0]
    if done.code == 1 and not done.err:
        return None  # no common ancestor
    raise NotFoundError(
        f"git merge-base {a[:10]} {b[:10]} failed: {done.err or f'exit {done.code}'}",
        hint="check the repository with `git fsck`",
    )
