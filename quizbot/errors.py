"""The error tree. Every message here is safe to show to a user as it is.

Code anywhere in quizbot raises a subclass of :class:`QuizbotError` for a problem the user can act
on (bad setting, bad file, missing record, database unreachable). The CLI and the UI turn these into
a one-line message and a non-zero exit code or a visible notice; anything else is a bug, logged with
context and shown as a short apology.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "DuplicateError",
    "InputError",
    "NotFoundError",
    "QuizbotError",
    "SchemaError",
    "StorageError",
]


class QuizbotError(Exception):
    """Base class: a problem with a message a user can read and act on."""

    exit_code: int = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message}\n  fix: {self.hint}"
        return self.message


class ConfigError(QuizbotError):
    """A setting is missing or invalid; the message names the setting and the fix."""

    exit_code = 78  # EX_CONFIG


class StorageError(QuizbotError):
    """The database cannot be reached or refused an operation."""

    exit_code = 69  # EX_UNAVAILABLE


class SchemaError(StorageError):
    """The database schema does not match this version of quizbot."""


class NotFoundError(QuizbotError):
    """A named record (run, knowledge base, respondent...) does not exist."""


class DuplicateError(QuizbotError):
    """A record that must be unique already exists."""


class InputError(QuizbotError):
    """A user-supplied file or value is malformed.

    Carries the location so a message can say exactly where: file, line and field.
    """

    exit_code = 65  # EX_DATAERR

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        field: str | None = None,
        hint: str | None = None,
    ) -> None:
        where = ", ".join(
            part
            for part in (
                path,
                f"line {line}" if line is not None else None,
                f"field {field!r}" if field else None,
            )
            if part
        )
        super().__init__(f"{where}: {message}" if where else message, hint=hint)
        self.path = path
        self.line = line
        self.field = field
