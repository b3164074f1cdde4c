"""The ``quizbot`` command line: one module per command group (see :mod:`quizbot.cli.main`)."""

from quizbot.cli.main import cli, main

__all__ = ["cli", "main"]
