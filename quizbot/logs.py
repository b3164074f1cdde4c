"""Logging set-up: one format, to stderr, so stdout stays clean for ``--json`` output."""

from __future__ import annotations

import logging
import sys

__all__ = ["configure_logging"]


def configure_logging(level: str = "INFO") -> None:
    """Send quizbot's logs to stderr at ``level``; quiet down chatty libraries."""
    root = logging.getLogger()
    if not any(getattr(h, "_quizbot", False) for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s", "%H:%M:%S")
        )
        handler._quizbot = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    root.setLevel(level)
    for noisy in ("httpx", "httpcore", "urllib3", "LiteLLM", "alembic"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level)))
