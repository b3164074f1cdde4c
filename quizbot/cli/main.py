"""The ``quizbot`` console script: the root group with every command group registered.

Each group lives in its own module (db, kb, generate, items, assignment, evaluate, local_model,
monitor, serve, user, worker) and registers itself on the root group of :mod:`quizbot.cli.base` when
imported here.
"""

from __future__ import annotations

from collections.abc import Sequence

from quizbot.cli import (
    assignment,
    db,
    evaluate,
    generate,
    items,
    kb,
    local_model,
    monitor,
    serve,
    user,
    worker,
)
from quizbot.cli.base import cli

__all__ = ["cli", "main"]

COMMAND_MODULES = (
    db, kb, generate, items, assignment, evaluate, local_model, monitor, serve, user, worker,
)  # fmt: skip


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``quizbot`` console script."""
    cli.main(args=list(argv) if argv is not None else None, prog_name="quizbot")


if __name__ == "__main__":  # pragma: no cover
    main()
