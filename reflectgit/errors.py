"""The one error family. Library code raises these; only the CLI turns them into text and exit codes."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3


class ReflectGitError(Exception):
    """Something the user can act on: a message, an optional hint, an exit code."""

    exit_code = EXIT_FAILED

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message


class UsageError(ReflectGitError):
    """The call itself is wrong (bad option combination, missing argument)."""

    exit_code = EXIT_USAGE


class NoteError(ReflectGitError):
    """A note or sidecar cannot be read or does not validate; carries where, when known."""

    def __init__(
        self,
        message: str,
        hint: str | None = None,
        *,
        line: int | None = None,
        column: int | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message, hint)
        self.line = line
        self.column = column
        self.field = field


class NotFoundError(ReflectGitError):
    """An id, branch, revision or file that does not exist."""


class ConflictError(ReflectGitError):
    """The change would clobber something: a dirty work tree path, an existing id, a moved ref."""


class LockError(ConflictError):
    """Another reflect-git process holds the KB write lock for too long."""


class RemoteError(ReflectGitError):
    """Fetch or push failed: rejected, unauthenticated or unreachable."""


class ForgeError(ReflectGitError):
    """The forge API or CLI refused or failed."""


class ConfigError(ReflectGitError):
    """A setting is missing or malformed."""


class RefusedError(ReflectGitError):
    """Something git or a teammate's checkout cannot hold: a sha256 repository, a control
    character, a file name Windows or a file system refuses, a write through a symlink, an id
    that clashes with another by case or Unicode normalisation."""


class StorageError(ReflectGitError):
    """The disk said no: full, over quota, read-only or not permitted."""


_STORAGE_HINTS = {
    "ENOSPC": "free some space on that disk (or point REFLECT_STATE_DIR elsewhere) and run again",
    "EDQUOT": "you are over your disk quota there: free some space and run again",
    "EROFS": "that file system is mounted read-only: remount it read-write, or point "
    "REFLECT_STATE_DIR (or --kb) at a writable folder",
    "EACCES": "you may not write there: fix its permissions (or owner), or point "
    "REFLECT_STATE_DIR (or --kb) at a folder you own",
}
_STORAGE_HINTS["EPERM"] = _STORAGE_HINTS["EACCES"]
_SQLITE_WORDS = {
    "database or disk is full": "ENOSPC",
    "readonly database": "EROFS",
    "unable to open database file": "EACCES",
}


def disk_error(code: int, where: str | None = None) -> StorageError | None:
    """A ``StorageError`` for an errno a full, read-only or forbidden disk gives; None for
    any other errno. ``where`` names the file or folder that could not be written."""
    import errno as _errno
    import os as _os

    name = _errno.errorcode.get(code, "")
    hint = _STORAGE_HINTS.get(name)
    if hint is None:
        return None
    what = f"cannot write to {where}" if where else "a write failed"
    return StorageError(f"{what}: {_os.strerror(code)} [{name}]", hint=hint)


def storage_error(exc: BaseException, where: str | None = None) -> StorageError | None:
    """The user's own disk trouble (full, over quota, read-only, not permitted) as a
    ``StorageError``; None for anything else, which stays an internal error."""
    if isinstance(exc, OSError) and exc.errno is not None:
        filename = None if exc.filename is None else str(exc.filename)
        return disk_error(exc.errno, where or filename)
    if type(exc).__module__ == "sqlite3":
        text = str(exc).lower()
        for words, name in _SQLITE_WORDS.items():
            if words in text:
                return StorageError(
                    f"a database in the state directory: {exc}", _STORAGE_HINTS[name]
                )
    return None


# --------------------------------------------------------------------------- the queue (issue 18)


class DeadLetterError(ConflictError):
    """A transcript queued again while its entry sits in the dead letters."""


class BranchMovedError(ConflictError):
    """A commit built on an older tip of the branch that is checked out: the branch moved on."""
