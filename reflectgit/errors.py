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
