"""The ``quizbot`` command.

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
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from quizbot import __version__
from quizbot.config import Settings, load_settings
from quizbot.errors import QuizbotError
from quizbot.logs import configure_logging
from quizbot.server import serve
from quizbot.status import database_report
from storage import Database, upgrade

__all__ = ["cli", "main"]

log = logging.getLogger("quizbot.cli")

EXIT_INTERNAL = 70  # EX_SOFTWARE


def _debug_requested() -> bool:
    return os.environ.get("QUIZBOT_DEBUG", "").strip().lower() in {"1", "true", "yes", "on"}


class _App:
    """What every command gets through ``ctx.obj``: settings loaded once, on first use."""

    def __init__(self, debug: bool) -> None:
        self.debug = debug
        self._settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = load_settings()
            configure_logging(self._settings.log_level)
        return self._settings


class _Group(click.Group):
    """A group that turns exceptions into user-safe messages and exit codes."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except QuizbotError as exc:
            _fail(str(exc), exc.exit_code)
        except KeyboardInterrupt:
            _fail("interrupted", 130)
        except Exception as exc:
            app = ctx.obj if isinstance(ctx.obj, _App) else None
            if _debug_requested() or (app is not None and app.debug):
                raise
            log.debug("unexpected error", exc_info=True)
            _fail(
                f"internal error ({type(exc).__name__}): {exc}\n"
                "  this is a bug in quizbot; rerun with QUIZBOT_DEBUG=1 to see the traceback",
                EXIT_INTERNAL,
            )


def _fail(message: str, code: int) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False, default=str))


@click.group(name="quizbot", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="quizbot")
@click.option("--debug", is_flag=True, help="Show tracebacks for unexpected errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """quizbot: medical knowledge quizzes for students and knowledge monitoring for LLMs.

    Settings come from environment variables (QUIZBOT_HOME, DATABASE_URL, QUIZBOT_PORT, ...);
    see the README.
    """
    configure_logging("WARNING")
    ctx.obj = _App(debug=debug)


# ------------------------------------------------------------------------------------- db


@cli.group(cls=_Group)
def db() -> None:
    """Manage the database: schema upgrades and what it holds."""


@db.command("upgrade")
@click.option("--revision", default="head", show_default=True, help="Migrate up to this revision.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def db_upgrade(app: _App, revision: str, as_json: bool) -> None:
    """Apply pending schema migrations (a no-op when there are none)."""
    settings = app.settings
    settings.ensure_home()
    database = Database(settings.effective_database_url, settings.engine_options())
    try:
        database.ping()
        before, after = upgrade(database, revision)
    finally:
        database.dispose()
    if as_json:
        _emit_json(
            {"url": database.masked_url, "from": before, "to": after, "changed": before != after}
        )
    elif before == after:
        click.echo(f"{database.masked_url}: schema already at {after}; nothing to do")
    else:
        click.echo(f"{database.masked_url}: schema upgraded from {before or 'empty'} to {after}")


@db.command("info")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_obj
def db_info(app: _App, as_json: bool) -> None:
    """Show the database URL (password masked), schema version and row counts per table."""
    settings = app.settings
    settings.ensure_home()
    database = Database(settings.effective_database_url, settings.engine_options())
    try:
        database.ping()
        report = database_report(database)
    finally:
        database.dispose()
    if as_json:
        _emit_json(report.as_json())
        return
    click.echo(f"url:            {report.url}")
    click.echo(f"backend:        {report.backend}")
    state = (
        "up to date" if report.up_to_date else f"needs `quizbot db upgrade` to {report.schema_head}"
    )
    click.echo(f"schema version: {report.schema_version or 'none (empty database)'} ({state})")
    if report.counts:
        width = max(len(t) for t in report.counts)
        click.echo("rows:")
        for table, n in report.counts.items():
            click.echo(f"  {table:<{width}}  {n:>10,}")


# ---------------------------------------------------------------------------------- serve


@cli.command("serve")
@click.option(
    "--host", default=None, help="Address to listen on [default: QUIZBOT_HOST or 127.0.0.1]."
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=None,
    help="Port to listen on [default: QUIZBOT_PORT or 7860].",
)
@click.pass_obj
def serve_cmd(app: _App, host: str | None, port: int | None) -> None:
    """Start the web app (migrates an empty database first)."""
    settings = app.settings
    configure_logging(settings.log_level if settings.log_level != "WARNING" else "INFO")
    serve(settings, host=host, port=port)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``quizbot`` console script."""
    cli.main(args=list(argv) if argv is not None else None, prog_name="quizbot")


if __name__ == "__main__":  # pragma: no cover
    main()
