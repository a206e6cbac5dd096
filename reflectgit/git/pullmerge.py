"""The merge ``git pull --no-rebase`` makes: a fetched branch merged into the checked-out one.

``team sync`` combines a team clone whose ``main`` has diverged from the team's this way. git
does the merge (``git merge``), so the merge driver the repository's config names merges notes
and sidecars field by field, and the index and work tree are git's to keep. Our environment
policy applies (``run.git_env``: our own hooks know it is us) and git runs no hooks of the
user's for it (``--no-verify``), as for every commit reflect-git makes. Options a user's config
could add to a merge (``--no-commit``, ``--squash``, an autostash) are turned off.

A merge that stops on a conflict is aborted (``git merge --abort``) after the three versions of
every conflicting path are read, so the caller can say which fields conflict; the branch, the
index and the work tree are as they were. It runs only when nothing uncommitted sits at a path
either side changed, so the abort has nothing of the user's to lose.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reflectgit.errors import ConflictError
from reflectgit.git.run import GitFailed, Result, run

Stages = tuple[bytes | None, bytes | None, bytes | None]  # base, ours, theirs


@dataclass
class PullMerge:
    """What one merge did: the merge commit, or the conflicting paths' three versions."""

    head: str  # the branch's commit before the merge
    target: str  # what was merged into it
    base: str | None  # their merge base
    ours: list[str] = field(default_factory=list)  # paths changed on our side since base
    theirs: list[str] = field(default_factory=list)  # paths changed on the merged side
    commit: str | None = None  # the merge commit (None: it conflicted and was aborted)
    conflicts: dict[str, Stages] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return self.commit is not None


def merge_into_head(
    repo: Path, branch: str, target: str, message: str, env: Mapping[str, str]
) -> PullMerge:
    """Merge ``target`` into ``branch``, which must be checked out in ``repo``."""

    def git(*args: str) -> Result:
        return run(args, cwd=repo, env=env)

    head_ref = git("symbolic-ref", "-q", "HEAD").out
    if head_ref != f"refs/heads/{branch}":
        raise ConflictError(
            f"{branch} is not checked out in {repo} (HEAD is {head_ref or 'detached'}); "
            "nothing was merged",
            hint=f"run `git -C {repo} switch {branch}`, then sync again",
        )
    if git("rev-parse", "-q", "--verify", "MERGE_HEAD").ok:
        raise ConflictError(
            f"a merge is already in progress in {repo}; nothing was merged",
            hint=f"finish it (`git -C {repo} commit`) or abandon it (`git -C {repo} merge "
            "--abort`), then sync again",
        )
    head = git("rev-parse", "--verify", "HEAD").out
    base = git("merge-base", head, target).out or None
    outcome = PullMerge(head, target, base)
    if base is not None:
        outcome.ours = _changed(repo, base, head, env)
        outcome.theirs = _changed(repo, base, target, env)
    from reflectgit.git.repo_info import git_dir
    from reflectgit.git.worktree import WorkTree

    # the house's dirty check, as `git status` sees the paths either side changed
    dirty = WorkTree(git_dir(repo), repo, env).dirty({*outcome.ours, *outcome.theirs})
    if dirty:
        raise ConflictError(
            f"{branch} was not merged: uncommitted changes in {repo} at "
            f"{', '.join(dirty[:5])}{' …' if len(dirty) > 5 else ''}",
            hint=f"commit them (or drop them) in {repo}, then sync again",
        )
    done = git(
        "merge", "--no-edit", "--no-verify", "--commit", "--no-squash", "--no-autostash",
        "--quiet", "-m", message, target,
    )  # fmt: skip
    if done.ok:
        outcome.commit = git("rev-parse", "--verify", "HEAD").out
        return outcome
    unmerged = _unmerged(repo, env)
    in_progress = git("rev-parse", "-q", "--verify", "MERGE_HEAD").ok
    if in_progress:
        git("merge", "--abort")
    if not unmerged:
        raise GitFailed(
            f"`git merge` did not merge {target[:10]} into {branch}: "
            f"{done.err or done.out or f'exit {done.code}'}",
            hint=f"run `git -C {repo} pull --no-rebase` yourself to see why",
        )
    outcome.conflicts = unmerged
    return outcome


def _changed(repo: Path, old: str, new: str, env: Mapping[str, str]) -> list[str]:
    res = run(["diff", "--name-only", "--no-renames", "-z", old, new], cwd=repo, env=env)
    return [p for p in res.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


def _unmerged(repo: Path, env: Mapping[str, str]) -> dict[str, Stages]:
    """The conflicting paths of a stopped merge with their base, ours and theirs versions."""
    res = run(["ls-files", "-u", "-z"], cwd=repo, env=env)
    blobs: dict[str, list[str | None]] = {}
    for entry in res.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if not entry:
            continue
        info, _, path = entry.partition("\t")
        _mode, sha, stage = info.split()
        blobs.setdefault(path, [None, None, None])[int(stage) - 1] = sha
    return {path: _read(repo, shas, env) for path, shas in sorted(blobs.items())}


def _read(repo: Path, shas: Sequence[str | None], env: Mapping[str, str]) -> Stages:
    from reflectgit.git.staged import read_blobs

    blobs = read_blobs(repo, [sha for sha in shas if sha], env)
    one, two, three = (blobs[sha] if sha else None for sha in shas)
    return one, two, three
