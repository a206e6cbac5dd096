"""Questions asked of a repository, answered by git (or by git's files, where that is cheaper).

Each function is one named question: where the git directory is, what HEAD's tree is, which
files a diff names, what a commit touched, where hooks run from. Everything outside
``reflectgit/git/`` asks here (or ``store``/``remote``) instead of starting git or reading
``.git`` itself. Nothing here imports dulwich: the hook and search fast paths use this module.
Every git runs through ``run.run``, the one runner with the one environment policy.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence

# No `re` nor `git.objects` at import: a search against a fresh index asks only
# ``has_git_dir``; the questions that need them import them.
from typing import TYPE_CHECKING

from reflectgit.config import git_dir_of
from reflectgit.errors import NotFoundError, ReflectGitError

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from reflectgit.git.run import Result

Env = Mapping[str, str] | None


def run(args: Sequence[str], **kwargs: Any) -> Result:
    """``git.run.run``, imported when a git really runs: a search against a fresh index reads
    HEAD from the files and never starts one, so it need not import ``subprocess``."""
    from reflectgit.git.run import run as run_git

    return run_git(args, **kwargs)


# --------------------------------------------------------------------------- where things are


def git_dir(work_tree: Path) -> Path:
    """The git directory of a work tree (a ``.git`` folder, or where a ``.git`` file points)."""
    return git_dir_of(work_tree)


def repository_dir(path: Path) -> Path:
    """The git directory of ``path``: its ``.git`` when it has one, else ``path`` (bare)."""
    return git_dir_of(path) if os.path.exists(path / ".git") else path


def is_repository(path: Path) -> bool:
    """Does ``path`` look like a repository: a work tree with ``.git``, or a bare one?"""
    return (path / ".git").exists() or (path / "HEAD").exists()


def has_git_dir(work_tree: str | os.PathLike[str]) -> bool:
    """Is there a git directory for this work tree (not a bare repository, not a plain folder)?"""
    from pathlib import Path

    return git_dir_of(Path(work_tree)).is_dir()


def objects_dir(common_dir: Path) -> Path:
    """The object database of a (common) git directory."""
    return common_dir / "objects"


def reflog_dir(common_dir: Path) -> Path:
    """Where the reflogs of local branches live."""
    return common_dir / "logs" / "refs" / "heads"


def config_may_set(paths: Iterable[str | os.PathLike[str]], *words: bytes) -> bool:
    """Could these git config files set a key named with one of ``words`` (``b"fsync"``)?
    False only when none of them so much as mentions one, in any case, nor includes another
    file: then nothing needs parsing. Unreadable files count as mentioning them."""
    lowered = [w.lower() for w in (*words, b"include")]
    for path in paths:
        try:
            with open(path, "rb") as fh:
                text = fh.read().lower()
        except FileNotFoundError:
            continue
        except OSError:
            return True
        if any(w in text for w in lowered):
            return True
    return False


_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "b": "\b"}


def config_user(paths: Iterable[str | os.PathLike[str]]) -> tuple[str | None, str | None] | None:
    """``user.name`` and ``user.email`` from these git config files, most specific first
    (the first file that sets a key wins; in a file, its last value), read with git's syntax:
    sections and keys in any case, ``"..."`` quoting, the ``\\`` escapes, ``#``/``;``
    comments. None when a file includes another, continues a line with a trailing ``\\``,
    is unreadable, or is not UTF-8 or not plain: the caller then parses them in full."""
    found: dict[str, str] = {}
    for path in paths:
        try:
            with open(path, "rb") as fh:
                text = fh.read().decode("utf-8")
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError):
            return None
        if "include" in text.lower():
            return None
        values = _user_section(text)
        if values is None:
            return None
        for key, value in values.items():
            found.setdefault(key, value)
    return found.get("name"), found.get("email")


def _user_section(text: str) -> dict[str, str] | None:
    """The plain ``[user]`` section's ``name`` and ``email`` of one config file's text; None
    for what this reader leaves to the full parser (a continued line, a malformed one)."""
    out: dict[str, str] = {}
    in_user = False
    for raw_line in text.split("\n"):
        line = raw_line.lstrip(" \t")
        if not line or line[0] in "#;":
            continue
        if line[0] == "[":
            end = line.find("]")
            if end < 0:
                return None
            header = line[1:end]
            if any(c in header for c in " \t") and '"' not in header:
                return None
            in_user = header.lower() == "user"
            line = line[end + 1 :].lstrip(" \t")  # git allows ``[user] name = x``
            if not line or line[0] in "#;":
                continue
        key, eq, rest = line.partition("=")
        if not eq:
            continue  # a boolean key: never name or email
        value = _value(rest)
        if value is None:
            return None
        if in_user and key.strip().lower() in ("name", "email"):
            out[key.strip().lower()] = value
    return out


def _value(raw: str) -> str | None:
    """One config value as git reads it: outer blanks dropped, inner ones kept, ``"..."``
    quoting, the escapes, a comment ending it; None when malformed or continued."""
    out: list[str] = []
    pending = ""  # blanks, kept only when something follows them
    quoted = False
    j = 0
    raw = raw.removesuffix("\r").lstrip(" \t")
    while j < len(raw):
        ch = raw[j]
        j += 1
        if ch == "\\":
            esc = _ESCAPES.get(raw[j]) if j < len(raw) else None
            if esc is None:
                return None
            out.append(pending + esc)
            pending = ""
            j += 1
        elif ch == '"':
            out.append(pending)
            pending = ""
            quoted = not quoted
        elif quoted:
            out.append(ch)
        elif ch in "#;":
            break
        elif ch in " \t":
            pending += " "  # as git: each blank a space
        else:
            out.append(pending + ch)
            pending = ""
    return None if quoted else "".join(out)


# --------------------------------------------------------------------------- HEAD and trees


def head_tree(kb: str | os.PathLike[str], env: Env = None) -> str | None:
    """The root tree of HEAD, read cheaply (the ref file and the commit object, loose or packed).

    Falls back to ``git rev-parse`` when the files cannot say (``git/objects.py``). None on an unborn branch;
    ``NotFoundError`` when ``kb`` is not a repository. This is the whole git cost of a search
    against a fresh index, so it imports no dulwich.
    """
    from pathlib import Path

    from reflectgit.git.objects import common_dir, head_commit, read_object

    kb = Path(kb)
    where = git_dir_of(kb)
    if not where.is_dir():
        where = kb  # a bare repository
    sha = head_commit(where)
    if sha is not None:
        try:
            commit = read_object(objects_dir(common_dir(where)), sha, b"commit")
        except (OSError, ValueError):
            commit = None
        if commit is not None and commit.startswith(b"tree "):
            return commit[5:45].decode("ascii")
    return _rev_parse_tree(kb, env)


def _rev_parse_tree(kb: Path, env: Env) -> str | None:
    where = git_dir_of(kb)
    # --git-dir: a GIT_DIR inherited from a hook must not point us at another repository.
    result = run(
        ["rev-parse", "-q", "--verify", "HEAD^{tree}"],
        git_dir=where if where.exists() else kb,
        cwd=kb if kb.is_dir() else None,
        env=env or {},
    )
    if not result.ok or not result.out:
        if not (where.exists() or (kb / "HEAD").exists()):
            raise NotFoundError(
                f"{kb} is not a git repository",
                hint=f"run `reflect-git init {kb}` to create a knowledge base there",
            )
        return None
    return result.out


def diff_tree(
    git_dir: Path, old: str, new: str, paths: Sequence[str], env: Env = None
) -> list[tuple[str, str | None, str | None]] | None:
    """(path, old blob, new blob) for files under ``paths`` that differ between two trees.

    ``git diff-tree`` compares tree objects in C (about 40 ms for a folder of 100,000 notes,
    where a Python walk takes 0.6 s). None when git cannot answer; the caller falls back.
    """
    try:
        result = run(
            ["diff-tree", "-r", "-z", "--no-renames", old, new, "--", *paths],
            git_dir=git_dir,
            cwd=git_dir,
            env=env or {},
            timeout=None,
        )
    except ReflectGitError:
        return None
    if not result.ok:
        return None
    out: list[tuple[str, str | None, str | None]] = []
    fields = result.stdout.split(b"\0")
    zero = "0" * 40
    for i in range(0, len(fields) - 1, 2):
        meta = fields[i].decode("ascii").split()
        path = fields[i + 1].decode("utf-8", "surrogateescape")
        if len(meta) < 5:
            continue
        out.append(
            (path, None if meta[2] == zero else meta[2], None if meta[3] == zero else meta[3])
        )
    return out


# --------------------------------------------------------------------------- a working repository


def _answer(cwd: Path, args: Sequence[str], env: Env, timeout: float = 10) -> str | None:
    """git's stdout, or None when git fails or cannot run here."""
    try:
        result = run(args, cwd=cwd, env=env or {}, timeout=timeout)
    except ReflectGitError:
        return None
    return result.stdout.decode("utf-8", "surrogateescape") if result.ok else None


class _Unsure(Exception):
    """The files alone cannot say what git would answer: ask git."""


# What in a repository's config changes where its work tree is, or whether git reads it at all:
# ``core.worktree``, ``core.bare`` set true, includes, extensions, a format version over 1.
_TRUE = ("true", "yes", "on", "1")


def odd_config(config: str) -> bool:
    """Does a repository's ``config`` text hold any of the above (a key in any section, a
    section ``[include...`` or ``[extensions...``; ASCII letters in any case)? Over-cautious,
    never under: then git is asked. Read line by line (a regular expression here cost every
    session start its compile, about 1 ms)."""
    text = config.lower()
    start = text.find("[")
    while start != -1:
        if text[start + 1 :].lstrip(" \t").startswith(("include", "extensions")):
            return True
        start = text.find("[", start + 1)
    for line in text.split("\n"):
        line = line.lstrip(" \t")
        if line.startswith("worktree"):
            after = line[len("worktree") : len("worktree") + 1]
            if not (after.isalnum() or after == "_"):
                return True
        elif line.startswith("bare"):
            rest = line[len("bare") :].strip(" \t")
            if not rest or (rest[0] == "=" and rest[1:].strip(" \t") in _TRUE):
                return True
        elif line.startswith("repositoryformatversion"):
            rest = line[len("repositoryformatversion") :].lstrip(" \t")
            value = rest[1:].lstrip(" \t")
            if rest[:1] == "=" and not (value[:1] in ("0", "1") and not value[1:].strip(" \t")):
                return True
    return False


def toplevel(cwd: Path, env: Env = None) -> Path | None:
    """The top of the work tree that holds ``cwd``; None outside a repository.

    Read from the files the way git's discovery walks up (``.git`` folder or ``gitdir:`` file,
    stopping at a file-system boundary, as git does without ``GIT_DISCOVERY_ACROSS_FILESYSTEM``,
    which ``git.run`` never passes on); whenever the files leave any doubt (a ceiling, someone
    else's files, ``core.worktree``, a bare repository on the way ...) ``git rev-parse
    --show-toplevel`` answers, as before. recall and the Stop hook ask this in every process."""
    try:
        found = _discover(cwd, env or {})
    except _Unsure:
        out = (_answer(cwd, ["rev-parse", "--show-toplevel"], env) or "").strip()
        from pathlib import Path

        return Path(out) if out else None
    return found[0] if found else None


def top_and_branch(cwd: Path, env: Env = None) -> tuple[Path | None, str | None]:
    """``toplevel(cwd)`` and that top's ``current_branch``, from one reading of the files (a
    session start asks both: the files, HEAD and the config are read and checked once); git
    answers what they leave in doubt, as in each."""
    try:
        found = _discover(cwd, env or {})
        if found is None:
            return None, None
        return found[0], _branch_of(found[1])
    except _Unsure:
        top = toplevel(cwd, env)
        return top, current_branch(top, env) if top is not None else None


def _discover(cwd: Path, env: Mapping[str, str]) -> tuple[Path, Path] | None:
    """(work tree top, git directory) of the repository git finds from ``cwd``; None when git
    finds none; ``_Unsure`` when only git can say."""
    if env.get("GIT_CEILING_DIRECTORIES") or (os.geteuid() == 0 and "SUDO_UID" in env):
        raise _Unsure  # git's ceilings, and its sudo rule for who owns a repository
    from pathlib import Path

    here = Path(os.path.realpath(cwd))  # git works from the physical folder, as getcwd() gives
    try:
        device = here.stat().st_dev
    except OSError:
        return None  # git cannot run there either
    if not here.is_dir():
        return None
    while True:
        dot_git = here / ".git"
        if dot_git.is_dir():
            return here, _checked(here, dot_git, None)
        if dot_git.exists():
            return here, _checked(here, _gitfile_target(dot_git), dot_git)
        if (here / "HEAD").exists():
            raise _Unsure  # a bare repository or the inside of a git directory
        parent = here.parent
        if parent == here:
            return None
        try:
            if parent.stat().st_dev != device:
                return None  # git stops at a file-system boundary too
        except OSError:
            raise _Unsure from None
        here = parent


def _gitfile_target(dot_git: Path) -> Path:
    """The git directory a ``.git`` file names (``config.git_dir_of`` reads it); ``_Unsure``
    when it names none."""
    try:
        target = git_dir_of(dot_git.parent)
    except (OSError, ValueError):
        raise _Unsure from None
    if target == dot_git:  # no `gitdir:` line: git refuses it, let git say so
        raise _Unsure
    return target


def _checked(top: Path, git_dir: Path, gitfile: Path | None) -> Path:
    """``git_dir`` when git would take it as it stands: a valid git directory (HEAD, objects,
    refs), owned by us (else ``safe.directory`` decides), no config that moves the work tree."""
    from reflectgit.git.objects import common_dir

    common = common_dir(git_dir)
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        owners = {p.lstat().st_uid for p in (top, git_dir, *([gitfile] if gitfile else []))}
        config = (common / "config").read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):
        raise _Unsure from None
    if not ((common / "objects").is_dir() and (common / "refs").is_dir()):
        raise _Unsure
    if not (head.startswith("ref: refs/") or len(head) == 40) or owners != {os.geteuid()}:
        raise _Unsure
    if odd_config(config) or (git_dir / "config.worktree").exists():
        raise _Unsure
    return git_dir


def current_branch(root: Path, env: Env = None) -> str | None:
    """The checked-out branch's short name; None when detached or unknown (an unborn branch
    too, as ``git rev-parse --abbrev-ref HEAD`` answers).

    Read from HEAD and the refs (symbolic refs followed, ``packed-refs`` too); git answers
    when the files leave doubt: a ref outside ``refs/heads``, or a short name that another ref
    shares (git then prints a longer one)."""
    try:
        found = _discover(root, env or {})
        if found is None:
            return None
        return _branch_of(found[1])
    except _Unsure:
        out = (_answer(root, ["rev-parse", "--abbrev-ref", "HEAD"], env) or "").strip()
        return out if out and out != "HEAD" else None


def _branch_of(git_dir: Path) -> str | None:
    from reflectgit.git.objects import ref_exists, resolve_ref

    resolved = resolve_ref(git_dir, "HEAD")
    if resolved is None:
        raise _Unsure
    ref, sha = resolved
    if ref == "HEAD" or sha is None:
        return None  # detached, or a branch with no commit yet
    if not ref.startswith("refs/heads/") or len(sha) != 40 or sha.strip("0123456789abcdef"):
        raise _Unsure
    short = ref[len("refs/heads/") :]
    # git's rules for a short name (``git help revisions``): any other ref it could mean
    # makes git print a longer, unambiguous name instead.
    rivals = (short, f"refs/{short}", f"refs/tags/{short}", f"refs/remotes/{short}")
    if any(ref_exists(git_dir, r) for r in (*rivals, f"refs/remotes/{short}/HEAD")):
        raise _Unsure
    return short


_MODIFIED = ("status", "--porcelain", "--untracked-files=no")


def _modified_of(out: str) -> list[str]:
    return [line[3:].strip() for line in out.splitlines() if len(line) > 3]


def modified_files(root: Path, env: Env = None) -> list[str]:
    """Tracked files with uncommitted changes (``git status``, untracked files left out)."""
    return _modified_of(_answer(root, _MODIFIED, env) or "")


def asking_worked_files(
    root: Path, commits: int, env: Env = None, recent: Sequence[str] | None = None
) -> Callable[[], tuple[list[str], list[str]]]:
    """``modified_files``, and the files the last ``commits`` commits touched (newest first,
    repeats kept): both gits started now and at once; the call returned waits for their
    answers (``run.start_together``: call it, also on the way out of an error). ``recent``:
    those files, known already (then only the first git runs)."""
    from reflectgit.git.run import start_together

    try:
        log = ["log", f"-n{commits}", "--name-only", "--format="]
        wait = start_together(
            [_MODIFIED] if recent is not None else [_MODIFIED, log], cwd=root, env=env or {}
        )
    except ReflectGitError:
        return lambda: ([], [])

    def answers() -> tuple[list[str], list[str]]:
        try:
            results = wait()
        except ReflectGitError:
            return [], []
        text = [r.stdout.decode("utf-8", "surrogateescape") if r.ok else "" for r in results]
        if recent is not None:
            return _modified_of(text[0]), list(recent)
        return _modified_of(text[0]), [
            line.strip() for line in text[1].splitlines() if line.strip()
        ]

    return answers


def config_value(repo: Path, key: str, env: Env = None) -> str | None:
    """One git config value as git resolves it for ``repo``; None when unset."""
    return (_answer(repo, ["config", "--get", key], env, timeout=30) or "").strip() or None


def set_config_value(repo: Path, key: str, value: str | None, env: Env = None) -> None:
    """Set (or, with None, unset) one key in the repository's own git config."""
    args = ["config", "--local", key, value] if value is not None else None
    args = args or ["config", "--local", "--unset-all", key]
    result = run(args, cwd=repo, env=env or {}, timeout=30)
    if not result.ok and value is not None:
        raise ReflectGitError(f"git config {key} failed: {result.err}")


def hooks_dir(repo: Path, env: Env = None) -> Path:
    """The folder git runs hooks from (``core.hooksPath`` or the common git dir's ``hooks``)."""
    if not repo.is_dir():
        raise NotFoundError(f"{repo} is not a directory")
    out = _required(repo, ["rev-parse", "--path-format=absolute", "--git-path", "hooks"], env)
    from pathlib import Path

    path = Path(out)
    if not path.is_absolute():
        path = Path(_required(repo, ["rev-parse", "--show-toplevel"], env)) / path
    return path


def _required(repo: Path, args: Sequence[str], env: Env) -> str:
    try:
        result = run(args, cwd=repo, env=env or {}, timeout=30)
    except NotFoundError:
        raise NotFoundError(f"{repo} is not a directory") from None
    if not result.ok:
        raise NotFoundError(
            f"{repo} is not a git repository ({result.err or 'git failed'})",
            hint="give the path of a repository: `reflect-git hooks install PATH`",
        )
    return result.out


# --------------------------------------------------------------------------- one commit


def read_commit(repo: Path, rev: str, env: Env = None) -> dict[str, Any] | None:
    """sha, parents, branch, message, changed files and whether a merge conflicted, of one
    commit (one git call, two for a merge); None when git cannot read it."""
    try:
        result = run(
            [
                "log",
                "-1",
                "-m",
                "--first-parent",
                "--no-color",
                "--format=%H%x00%P%x00%D%x00%B%x00",
                "--name-only",
                "-z",
                rev,
                "--",
            ],
            cwd=repo,
            env=env or {},
            timeout=30,
        )
    except ReflectGitError:
        return None
    if not result.ok:
        return None
    parts = result.stdout.decode("utf-8", "replace").split("\x00")
    if len(parts) < 5:
        return None
    sha, parents, decoration, message = parts[0].strip(), parts[1].split(), parts[2], parts[3]
    files = sorted({p.strip("\n") for p in parts[4:] if p.strip("\n")})
    branch = None
    import re

    m = re.search(r"HEAD -> ([^,]+)", decoration)
    if m:
        branch = m.group(1).strip()
    conflicted = False
    if len(parents) > 1:
        conflicted = merge_had_conflicts(repo, parents, message, env)
    return {
        "sha": sha,
        "parents": parents,
        "branch": branch,
        "message": message.strip("\n"),
        "files": files,
        "conflicted": conflicted,
    }


def merge_had_conflicts(repo: Path, parents: Sequence[str], message: str, env: Env = None) -> bool:
    """Would merging the parents again conflict? (git >= 2.38; else the message's Conflicts list).

    ``merge-tree --write-tree`` writes the merged trees and blobs; it runs with a throw-away
    object directory in front of the repository's own (``GIT_OBJECT_DIRECTORY`` plus the real
    one as an alternate), so the user's object store is only read, never written.
    """
    import re

    if re.search(r"^#?\s*Conflicts:", message, re.MULTILINE):
        return True
    try:
        where = run(
            ["rev-parse", "--path-format=absolute", "--git-path", "objects"],
            cwd=repo,
            env=env or {},
        )
        if not where.ok or not where.out:
            return False
        import tempfile  # only here (shutil, random): every search and recall imports this module

        with tempfile.TemporaryDirectory(prefix="reflect-git-merge-tree-") as scratch:
            result = run(
                ["merge-tree", "--write-tree", "--name-only", *parents[:2]],
                cwd=repo,
                env=env or {},
                timeout=30,
                extra_env={
                    "GIT_OBJECT_DIRECTORY": scratch,
                    "GIT_ALTERNATE_OBJECT_DIRECTORIES": where.out,
                },
            )
    except ReflectGitError:
        return False
    return result.code == 1
