"""`quizbot db`: migrate the schema and report on the database."""

from __future__ import annotations

import click

from quizbot.cli.base import App, Group, cli, emit_json


@cli.group(cls=Group)
def db() -> None:
    """Manage the database: schema upgrades and what it holds."""


@db.command("upgrade")
@click.option("--revision", default="head", show_default=True, help="Migrate up to this revision.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def db_upgrade(app: App, revision: str, as_json: bool) -> None:
    """Apply pending schema migrations (a no-op when there are none)."""
    from storage import Database, upgrade

    settings = app.settings
    settings.ensure_home()
    database = Database(settings.effective_database_url, settings.engine_options())
    try:
        database.ping()
        before, after = upgrade(database, revision)
    finally:
        database.dispose()
    if as_json:
        emit_json(
            {"url": database.masked_url, "from": before, "to": after, "changed": before != after}
        )
    elif before == after:
        click.echo(f"{database.masked_url}: schema already at {after}; nothing to do")
    else:
        click.echo(f"{database.masked_url}: schema upgraded from {before or 'empty'} to {after}")


@db.command("info")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_obj
def db_info(app: App, as_json: bool) -> None:
    """Show the database URL (password masked), schema version and row counts per table.

    Only reads: a SQLite file named by DATABASE_URL that does not exist is an error (a typo
    creates nothing); the default file in QUIZBOT_HOME is reported as an empty database.
    """
    from quizbot.status import database_report
    from storage import Database

    settings = app.settings
    named = settings.database_url is not None
    if not named:
        settings.ensure_home()
    database = Database(
        settings.effective_database_url, settings.engine_options(), must_exist=named
    )
    try:
        database.ping()
        report = database_report(database)
    finally:
        database.dispose()
    if as_json:
        emit_json(report.as_json())
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
