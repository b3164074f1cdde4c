"""The error tree. Every message here is safe to show to a user as it is.

Code anywhere in quizbot raises a subclass of :class:`QuizbotError` for a problem the user can act
on (bad setting, bad file, missing record, database unreachable). The CLI and the UI turn these into
a one-line message and a non-zero exit code or a visible notice; anything else is a bug, logged with
context and shown as a short apology.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterable, Mapping
from urllib.parse import quote, quote_plus

__all__ = [
    "ConfigError",
    "DuplicateError",
    "InputError",
    "NotFoundError",
    "QuizbotError",
    "RunFailedError",
    "SchemaError",
    "StorageError",
    "WaitTimeoutError",
    "redact",
    "register_secret",
]

REDACTED = "[redacted]"
# Environment variables whose values are secrets by their name (OPENAI_API_KEY, HF_TOKEN,
# PGPASSWORD, WEBHOOK_SECRET, ...). Their values are removed from any text shown or stored.
_SECRET_SUFFIXES = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "CREDENTIALS")
_MIN_SECRET = 6  # shorter values would redact ordinary words
# Secret values this process learnt from its settings (keys named by QUIZBOT_MODEL_SETTINGS'
# api_key_env, the admin password, the database password, webhook URLs): see register_secret.
_KNOWN: set[str] = set()
_KNOWN_LOCK = threading.Lock()
_EXPANDED: dict[frozenset[str], list[str]] = {}  # secrets -> their variants, longest first
_EXPANDED_MAX = 64
_ENVIRON: dict[frozenset[object], frozenset[str]] = {}  # os.environ's entries -> its secrets
_PATTERNS = (
    # Bearer tokens and Authorization / x-api-key headers, whatever the token looks like.
    re.compile(
        r"(?i)\b((?:authorization:?\s*)?(?:bearer|basic)|authorization:?"
        r"|(?:x-)?api[-_ ]?key[\"']?\s*[:=]\s*[\"']?)\s*(?!(?:bearer|basic)\b)[\w.~+/=-]{6,}"
    ),
    # Well-known key shapes: OpenAI/Anthropic sk-..., Google AIza..., GitHub ghp_..., HF hf_....
    re.compile(r"\b(sk-(?:ant-|proj-)?[\w-]{8,}|AIza[\w-]{20,}|gh[pousr]_\w{20,}|hf_\w{20,})"),
    # Passwords in URLs: scheme://user:password@host (a password may itself hold '@' or ':'),
    # and in a URL mistyped without its colon (postgresql//user:password@host).
    re.compile(r"(?<=//)([^:/@\s]*):([^/\s]*)@(?=[^@/\s]+)"),
    # Secrets in query strings and form bodies: ?key=..., &access_token=..., password=...
    re.compile(
        r"(?i)([?&;\s](?:api[-_]?key|key|token|access[-_]?token|secret|password|passwd|pwd"
        r"|signature)=)[^&#\s\"']+"
    ),
)


def register_secret(value: str | None) -> None:
    """Remember ``value`` as a secret of this process: :func:`redact` removes it from then on.

    Called for every secret quizbot learns from its settings (keys, passwords, tokens), so a
    provider or a library that echoes one cannot get it stored, logged or shown.
    """
    if value and len(value.strip()) >= _MIN_SECRET:
        with _KNOWN_LOCK:
            _KNOWN.add(value.strip())


def _variants(value: str) -> set[str]:
    """``value`` as it may appear when echoed: plain, URL-encoded, JSON-escaped."""
    return {value, quote(value, safe=""), quote_plus(value), json.dumps(value)[1:-1]}


def _environ_secrets(environ: Mapping[str, str]) -> frozenset[str]:
    """Values of the secret-named variables; for ``os.environ``, remembered until it changes
    (reading ``os.environ`` decodes every entry, the dearest part of redacting a message)."""
    data = getattr(environ, "_data", None)  # os.environ's raw bytes: cheap to fingerprint
    key = frozenset(data.items()) if isinstance(data, dict) else None
    if key is not None and (hit := _ENVIRON.get(key)) is not None:
        return hit
    found = frozenset(
        value
        for name, value in environ.items()
        if name.upper().endswith(_SECRET_SUFFIXES) and len(value.strip()) >= _MIN_SECRET
    )
    if key is not None:
        if len(_ENVIRON) >= _EXPANDED_MAX:
            _ENVIRON.clear()
        _ENVIRON[key] = found
    return found


def _secret_values(environ: Mapping[str, str], given: Iterable[str]) -> list[str]:
    values = set(_environ_secrets(environ))
    values.update(s for s in given if s and len(s) >= _MIN_SECRET)
    with _KNOWN_LOCK:
        values.update(_KNOWN)
    key = frozenset(values)
    cached = _EXPANDED.get(key)
    if cached is None:  # the same secrets nearly every time: expand and sort them once
        out = {v for value in values for v in _variants(value) if len(v) >= _MIN_SECRET}
        cached = sorted(out, key=len, reverse=True)
        if len(_EXPANDED) >= _EXPANDED_MAX:
            _EXPANDED.clear()
        _EXPANDED[key] = cached
    return cached


def redact(text: str, secrets: Iterable[str] = (), environ: Mapping[str, str] | None = None) -> str:
    """``text`` with secrets removed: the given values, the values registered with
    :func:`register_secret`, the values of secret-named environment variables (``*_KEY``,
    ``*_TOKEN``, ``*PASSWORD`` ...), bearer tokens and ``x-api-key`` headers, well-known key
    shapes, passwords in URLs and ``key=``/``token=``/``password=`` parameters. Used on every
    provider error, every error message, every log line and anything stored or shown."""
    env = os.environ if environ is None else environ
    for value in _secret_values(env, secrets):
        text = text.replace(value, REDACTED)
    bearer, shapes, url, query = _PATTERNS
    text = bearer.sub(
        lambda m: m.group(1) + ("" if m.group(1)[-1] in "=:\"'" else " ") + REDACTED, text
    )
    text = shapes.sub(REDACTED, text)
    text = query.sub(lambda m: m.group(1) + REDACTED, text)
    # A password already masked (mask_url writes ***) stays as it is.
    return url.sub(
        lambda m: m.group(0) if m.group(2) in {"***", REDACTED} else f"{m.group(1)}:{REDACTED}@",
        text,
    )


class QuizbotError(Exception):
    """Base class: a problem with a message a user can read and act on."""

    exit_code: int = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        message = redact(message)  # a message is shown, logged or stored: never with a secret
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

    exit_code = 66  # EX_NOINPUT


class DuplicateError(QuizbotError):
    """A record that must be unique already exists."""

    exit_code = 65  # EX_DATAERR


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


class WaitTimeoutError(QuizbotError):
    """Waiting for something (a queued run) took longer than the caller allowed.

    Exit code 124, as ``timeout(1)`` exits: the thing waited for may still finish.
    """

    exit_code = 124


class RunFailedError(QuizbotError):
    """An evaluation run or monitor night ended with no usable answers (its cause in the message).

    Exit code 69 (EX_UNAVAILABLE): the model could not be used; nothing about the input is wrong.
    """

    exit_code = 69  # EX_UNAVAILABLE
