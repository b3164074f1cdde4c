"""What every ``quizbot`` command shares: the root group, settings, errors, the database.

Errors a user can fix print one line (``error: ...`` plus a ``fix:`` line) and exit non-zero;
unexpected errors print a short apology and exit 70, with the traceback only when
``QUIZBOT_DEBUG=1`` or ``--debug`` asks for it. Machine-readable output (``--json``) goes to stdout
alone; logs and progress go to stderr.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

import click

from quizbot import __version__
from quizbot.errors import QuizbotError, redact
from quizbot.logs import configure_logging

if TYPE_CHECKING:
    from quizbot.config import Settings
    from storage import Database

__all__ = [
    "EXIT_INTERNAL",
    "App",
    "Group",
    "cli",
    "database_for",
    "emit_json",
    "fail",
    "split_list",
]

log = logging.getLogger("quizbot.cli")

EXIT_INTERNAL = 70  # EX_SOFTWARE


def _debug_requested() -> bool:
    return os.environ.get("QUIZBOT_DEBUG", "").strip().lower() in {"1", "true", "yes", "on"}


class App:
    """What every command gets through ``ctx.obj``: settings loaded once, on first use."""

    def __init__(self, debug: bool) -> None:
        self.debug = debug
        self._settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        """The validated settings (loaded, and logging configured, on first use)."""
        if self._settings is None:
            from quizbot.config import load_settings

            self._settings = load_settings()
            configure_logging(self._settings.log_level)
        return self._settings


class Group(click.Group):
    """A group that turns exceptions into user-safe messages and exit codes."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except QuizbotError as exc:
            fail(redact(str(exc)), exc.exit_code)
        except KeyboardInterrupt:
            fail("interrupted", 130)
        except Exception as exc:
            app = ctx.obj if isinstance(ctx.obj, App) else None
            if _debug_requested() or (app is not None and app.debug):
                raise
            log.debug("unexpected error", exc_info=True)
            fail(
                f"internal error ({type(exc).__name__}): {redact(str(exc))}\n"
                "  this is a bug in quizbot; rerun with QUIZBOT_DEBUG=1 to see the traceback",
                EXIT_INTERNAL,
            )


def fail(message: str, code: int) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code``."""
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def emit_json(data: Any) -> None:
    """Print ``data`` as one JSON object on stdout (the only thing ``--json`` writes there)."""
    click.echo(json.dumps(data, indent=2, sort_keys=False, default=str))


@click.group(name="quizbot", cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="quizbot")
@click.option("--debug", is_flag=True, help="Show tracebacks for unexpected errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """quizbot: medical knowledge quizzes for students and knowledge monitoring for LLMs.

    Settings come from environment variables (QUIZBOT_HOME, DATABASE_URL, QUIZBOT_PORT, ...);
    see the README.
    """
    configure_logging("WARNING")
    ctx.obj = App(debug=debug)


@contextmanager
def database_for(app: App) -> Iterator[Database]:
    """The configured database, migrated if empty, closed afterwards."""
    from storage import open_database

    settings = app.settings
    settings.ensure_home()
    database = open_database(settings.effective_database_url, settings.engine_options())
    try:
        yield database
    finally:
        database.dispose()


def split_list(value: str | None) -> list[str] | None:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``; ``None`` for no value (an option left out)."""
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


# The choices of quizbot.generate.candidates.DIFFICULTIES, spelled out so `--help` imports
# nothing (tests/cli/test_generate.py checks the two agree).
DIFFICULTY_CHOICES = ("plausible", "distant")

difficulty_option = click.option(
    "--difficulty",
    type=click.Choice(DIFFICULTY_CHOICES),
    default="plausible",
    show_default=True,
    help="How negatives and distractors are chosen: 'plausible' prefers the same organ system "
    "(a student must know the fact), 'distant' other systems (easier). Both skip anything that "
    "may be true.",
)
