"""Logging set-up: one format, to stderr, so stdout stays clean for ``--json`` output."""

from __future__ import annotations

import logging
import sys

from quizbot.errors import redact

__all__ = ["RedactingFormatter", "configure_logging"]


class RedactingFormatter(logging.Formatter):
    """A formatter whose every line (message, arguments, traceback) is passed through
    :func:`~quizbot.errors.redact`: a key or password a library puts in a log line never
    reaches the log."""

    def format(self, record: logging.LogRecord) -> str:
        """The formatted line, redacted."""
        return redact(super().format(record))


def configure_logging(level: str = "INFO") -> None:
    """Send quizbot's logs to stderr at ``level``; quiet down chatty libraries."""
    root = logging.getLogger()
    if not any(getattr(h, "_quizbot", False) for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(
            RedactingFormatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s", "%H:%M:%S")
        )
        handler._quizbot = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    root.setLevel(level)
    for noisy in ("httpx", "httpcore", "urllib3", "LiteLLM", "alembic"):
        logger = logging.getLogger(noisy)
        logger.setLevel(max(logging.WARNING, logging.getLevelName(level)))
        for own in logger.handlers:  # libraries with a handler of their own (litellm) redact too
            if not isinstance(own.formatter, RedactingFormatter):
                fmt = own.formatter._fmt if own.formatter else None
                own.setFormatter(RedactingFormatter(fmt))
