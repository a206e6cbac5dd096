"""Questions asked of a code repository (not a KB): what HEAD is, what changed between two
commits (renames followed as ``git diff -M`` follows them), where a file went commit by commit
(``follow``), which commits touched a file, what a file held at a commit. ``stale``,
``pr-notes`` and recall ask here; every git runs through ``run.run``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reflectgit.errors import NotFoundError, ReflectGitError
from reflectgit.git.run import run, start_together

if TYPE_CHECKING:
    from pathlib import Path

Env = Mapping[str, str] | None
LOG_TIMEOUT = 120.0


@dataclass(frozen=True)
class FileChange:
    """One entry of ``git diff --name-status -M``: ``status`` A, M, D, R (renamed), C, T."""

    status: str
    old: str | None  # None when added
    new: str | None  # None when deleted
    similarity: int | None = None  # a rename's or copy's score, percent alike (``R053``: 53)


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    subject: str


def _git(repo: Path, args: Sequence[str], env: Env, timeout: float = LOG_TIMEOUT) -> str:
    try:
        result = run(args, cwd=repo, env=env or {}, timeout=timeout)
    except NotFoundError:
        raise NotFoundError(f"{repo} is not a directory") from None
    if not result.ok:
        raise ReflectGitError(
            f"git {' '.join(args[:2])} failed in {repo}: {result.err or 'exit ' + str(result.code)}",
            hint="check that --repo is a git repository and the revisions exist there",
        )
    return result.stdout.decode("utf-8", "surrogateescape")


def resolve(repo: Path, rev: str, env: Env = None) -> str | None:
    """The full commit name of ``rev`` in ``repo``; None when it names no commit."""
    try:
        result = run(
            ["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], cwd=repo, env=env or {}
        )
    except NotFoundError:
        return None
    return result.out if result.ok and result.out else None


def top(repo: Path, env: Env = None) -> Path:
    """The top of the work tree holding ``repo``; NotFoundError when it is not in one."""
    from pathlib import Path as P

    try:
        result = run(["rev-parse", "--show-toplevel"], cwd=repo, env=env or {})
    except NotFoundError:
        raise NotFoundError(f"{repo} is not a directory") from None
    if not result.ok or not result.out:
        raise NotFoundError(
            f"{repo} is not a git repository",
            hint="give the code repository with --repo PATH (or run inside it)",
        )
    return P(result.out)


def changes(repo: Path, since: str, until: str = "HEAD", env: Env = None) -> list[FileChange]:
    """What changed between two commits, renames found as git finds them (``-M``)."""
    out = _git(repo, ["diff", "--no-ext-diff", "--name-status", "-M", "-z", since, until], env)
    return _name_status(out)


@dataclass(frozen=True)
class Trail:
    """Where a path of one commit is at a later one, followed commit by commit (``follow``)."""

    path: str  # the path at the first commit
    now: str | None  # the path at the last; None when the trail ends (the file was deleted)
    renames: tuple[CommitInfo, ...] = ()  # the commits that renamed it, oldest first
    names: tuple[str, ...] = ()  # every path it had, the first first, ``now`` last
    ended: CommitInfo | None = None  # the commit that deleted it
    # the least alike of its renames, as git scored each in the commit that made it (percent);
    # None when it was not renamed
    similarity: int | None = None


def follow(
    repo: Path, since: str, until: str, paths: Iterable[str], env: Env = None
) -> dict[str, Trail]:
    """Where each of ``paths`` (files at ``since``) is at ``until``: followed through the
    renames git finds commit by commit, as ``git log --follow`` does, forward. One ``git log``
    over the range reads only the commits that deleted or renamed something.

    A whole-range ``git diff -M`` misses a file moved and then heavily edited (the two ends are
    less alike than git's rename threshold, though each commit was a rename); this does not.

    - Merges: the first-parent line, each merge as its diff against its first parent, which is
      the history a user sees on the branch (a rename made on a side branch is the merge's).
    - A deletion git pairs with no addition ends the trail; a file added later under the same
      name is another file. A copy (``C``) is not a rename: the original stays where it was.
    - Every path moves by its commit's renames at once: two files renamed in one commit each go
      their own way.
    """
    wanted = list(dict.fromkeys(paths))
    if not wanted:
        return {}
    out = _git(
        repo,
        [
            "log",
            "--reverse",
            "--first-parent",
            "--diff-merges=first-parent",
            "--no-show-signature",
            "-M",
            "--diff-filter=DR",
            "--name-status",
            "-z",
            "--format=%x01%H%x1f%s",
            f"{since}..{until}",
        ],
        env,
    )
    at: dict[str, list[str]] = {p: [p] for p in wanted}  # current path -> the paths there
    renames: dict[str, list[CommitInfo]] = {p: [] for p in wanted}
    names: dict[str, list[str]] = {p: [p] for p in wanted}
    alike: dict[str, int] = {}
    ended: dict[str, CommitInfo] = {}
    for commit, entries in _log_name_status(out):
        arrived: dict[str, list[str]] = {}
        for c in entries:
            if c.old is None or c.old not in at or c.status not in ("R", "D"):
                continue
            for p in at.pop(c.old):
                if c.new is None:
                    ended[p] = commit
                    continue
                renames[p].append(commit)
                names[p].append(c.new)
                if c.similarity is not None:
                    alike[p] = min(alike.get(p, 100), c.similarity)
                arrived.setdefault(c.new, []).append(p)
        for new, moved in arrived.items():  # after all of the commit's renames: at once
            at.setdefault(new, []).extend(moved)
        if not at:
            break
    now = {p: where for where, here in at.items() for p in here}
    return {
        p: Trail(p, now.get(p), tuple(renames[p]), tuple(names[p]), ended.get(p), alike.get(p))
        for p in wanted
    }


def _log_name_status(out: str) -> list[tuple[CommitInfo, list[FileChange]]]:
    """The commits of ``git log --name-status -z --format=%x01%H%x1f%s`` with their changes
    (git ends each header with a NUL, and the first change's status begins with a newline)."""
    parts = out.split("\0")
    result: list[tuple[CommitInfo, list[FileChange]]] = []
    i = 0
    while i < len(parts):
        field = parts[i].lstrip("\n")
        if field.startswith("\x01"):
            sha, _, subject = field[1:].partition("\x1f")
            result.append((CommitInfo(sha, subject), []))
            i += 1
            continue
        if not field or not result:
            i += 1
            continue
        width = 3 if field[:1] in ("R", "C") else 2
        result[-1][1].extend(_name_status("\0".join([field, *parts[i + 1 : i + width]])))
        i += width
    return result


def _name_status(out: str) -> list[FileChange]:
    parts = out.split("\0")
    result: list[FileChange] = []
    i = 0
    while i < len(parts) and parts[i]:
        status = parts[i][:1]
        if status in ("R", "C"):
            score = parts[i][1:]
            alike = int(score) if score.isdigit() else None
            result.append(FileChange(status, parts[i + 1], parts[i + 2], alike))
            i += 3
            continue
        path = parts[i + 1]
        if status == "A":
            result.append(FileChange(status, None, path))
        elif status == "D":
            result.append(FileChange(status, path, None))
        else:
            result.append(FileChange(status, path, path))
        i += 2
    return result


def commits_touching(
    repo: Path, since: str, until: str, paths: Iterable[str], env: Env = None
) -> list[CommitInfo]:
    """The commits after ``since`` up to ``until`` that changed any of ``paths``, newest first."""
    names = sorted(set(paths))
    if not names:
        return []
    out = _git(
        repo,
        [
            "--literal-pathspecs",
            "log",
            "--no-merges",
            "--format=%H%x1f%s",
            f"{since}..{until}",
            "--",
            *names,
        ],
        env,
    )
    return [CommitInfo(*line.split("\x1f", 1)) for line in out.splitlines() if "\x1f" in line]


def messages(repo: Path, base: str, head: str, env: Env = None) -> list[str]:
    """The messages (subject and body) of the commits in ``base..head``."""
    out = _git(repo, ["log", "--no-merges", "--format=%B%x00", f"{base}..{head}"], env)
    return [m.strip() for m in out.split("\0") if m.strip()]


def merge_base(repo: Path, a: str, b: str, env: Env = None) -> str | None:
    try:
        result = run(["merge-base", a, b], cwd=repo, env=env or {})
    except NotFoundError:
        return None
    return result.out if result.ok and result.out else None


def upstream(repo: Path, env: Env = None) -> str | None:
    """The branch the current one is compared with: its upstream, else the remote's default
    branch, else ``main``/``master``; None when there is none (or HEAD is one of them)."""
    for rev in (
        "@{upstream}",
        "refs/remotes/origin/HEAD",
        "origin/main",
        "origin/master",
        "main",
        "master",
    ):
        full = resolve(repo, rev, env)
        if full is not None:
            return full
    return None


def texts(
    repo: Path,
    wanted: Sequence[tuple[str, str]],
    env: Env = None,
    known: Mapping[tuple[str, str], str] | None = None,
) -> list[str | None]:
    """The contents of ``(rev, path)`` pairs (None where missing or not text), one git process;
    ``known`` gives the blob ids of pairs already known (a diff's ``--full-index`` lines), read
    by id with no lookup of their paths."""
    if not wanted:
        return []
    from reflectgit.git.staged import read_blobs

    names = _blob_names(repo, wanted, env, known or {})
    try:
        blobs = read_blobs(repo, names, env or {}, timeout=LOG_TIMEOUT)
    except NotFoundError:
        raise NotFoundError(f"{repo} is not a directory") from None
    out: list[str | None] = []
    for name in names:
        body = blobs.get(name)
        out.append(
            None if body is None or b"\0" in body[:8000] else body.decode("utf-8", "replace")
        )
    return out


# A rev asked for this many paths or more has them looked up in one ``git ls-tree``: git
# resolves each ``REV:path`` on its own, 5 ms apiece in a folder of 10,000 notes.
LS_TREE_FROM = 8


def _blob_names(
    repo: Path,
    wanted: Sequence[tuple[str, str]],
    env: Env,
    known: Mapping[tuple[str, str], str],
) -> list[str]:
    """What to ask ``cat-file --batch`` for each ``(rev, path)``: the blob id when it is
    ``known`` or a batch of paths of one rev was looked up at once, else ``rev:path``."""
    by_rev: dict[str, list[str]] = {}
    for rev, path in wanted:
        if (rev, path) not in known:
            by_rev.setdefault(rev, []).append(path)
    ids: dict[tuple[str, str], str] = dict(known)
    for rev, paths in by_rev.items():
        if len(paths) < LS_TREE_FROM:
            continue
        try:
            out = run(
                ["--literal-pathspecs", "ls-tree", "-z", "-r", rev, "--", *sorted(set(paths))],
                cwd=repo,
                env=env or {},
                timeout=LOG_TIMEOUT,
            )
        except NotFoundError:
            continue
        for entry in out.stdout.decode("utf-8", "surrogateescape").split("\0"):
            meta, _, path = entry.partition("\t")
            parts = meta.split()
            if len(parts) == 3 and parts[1] == "blob":
                ids[(rev, path)] = parts[2]
    return [ids.get((rev, path), f"{rev}:{path}") for rev, path in wanted]


def tracked(repo: Path, rev: str, paths: Sequence[str], env: Env = None) -> set[str]:
    """Which of ``paths`` exist (as files) in ``rev``'s tree."""
    if not paths:
        return set()
    out = _git(
        repo, ["--literal-pathspecs", "ls-tree", "-r", "-z", "--name-only", rev, "--", *paths], env
    )
    return {p for p in out.split("\0") if p}


def patch(repo: Path, base: str, head: str, env: Env = None) -> str:
    """``git diff -U0 -M base head``: the changed files (renames found), their blob ids whole
    (``--full-index``: each version is read by id, not looked up by path again) and, in each
    hunk's header, the definition git sees around it (its funcname rules)."""
    options = ["--no-ext-diff", "--no-color", "--no-textconv", "--full-index", "-U0", "-M"]
    return _git(repo, ["diff", *options, base, head], env)


def matching_lines(
    repo: Path, rev: str, pattern: str, folder: str, env: Env = None
) -> list[tuple[str, str]]:
    """``(file, line)`` for every line under ``folder`` at ``rev`` matching the extended
    ``pattern``: one ``git grep``, which reads a KB of 10,000 notes faster than any list of
    fixed strings would (1,000 ``-F`` needles cost git a second there)."""
    return start_matching_lines(repo, rev, pattern, folder, env)()


def start_matching_lines(
    repo: Path, rev: str, pattern: str, folder: str, env: Env = None
) -> Callable[[], list[tuple[str, str]]]:
    """``matching_lines`` started now (``run.start_together``): the call returned waits for
    git's answer, so what the caller does in between runs alongside it. Call it, also on the
    way out of an error, so no git is left behind."""
    try:
        wait = start_together(
            [["grep", "-I", "-E", "-e", pattern, rev, "--", folder]],
            cwd=repo,
            env=env or {},
            timeout=LOG_TIMEOUT,
        )
    except NotFoundError:
        return list

    def answer() -> list[tuple[str, str]]:
        (result,) = wait()
        if result.code not in (0, 1):
            raise ReflectGitError(f"git grep failed in {repo}: {result.err}")
        prefix = f"{rev}:"
        out: list[tuple[str, str]] = []
        for raw in result.stdout.decode("utf-8", "surrogateescape").splitlines():
            line = raw[len(prefix) :] if raw.startswith(prefix) else raw
            name, _, text = line.partition(":")
            out.append((name, text))
        return out

    return answer
