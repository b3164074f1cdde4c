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
    for warning in report.warnings:
        click.echo(f"warning: {warning}")


@db.command("scrub-secrets")
@click.option("--dry-run", is_flag=True, help="Count what would change; change nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
@click.pass_obj
def db_scrub_secrets(app: App, dry_run: bool, as_json: bool) -> None:
    """Redact secrets from text stored before redaction existed.

    Applies the rule every new message and row goes through (the keys named by
    QUIZBOT_MODEL_SETTINGS' api_key_env, *_KEY/*_TOKEN/*PASSWORD variables, the database and
    admin passwords, webhook tokens of QUIZBOT_SCHEDULES_FILE, well-known key shapes, passwords
    in URLs) to the stored answers and errors of runs, monitor nights, alerts, incidents, the
    call caches and the audit log, in one transaction. Running it again changes nothing; run it
    with the same environment as the app, so it knows the same secrets.
    """
    from quizbot.errors import QuizbotError, redact
    from storage import Database
    from storage.scrub import scrub

    settings = app.settings  # loading the settings registers their secrets
    if settings.schedules_file is not None:
        from schedules.config import load_monitors

        try:
            load_monitors(settings.schedules_file)  # registers the webhooks' tokens
        except QuizbotError as exc:
            click.echo(f"warning: webhook tokens not known ({exc.message})", err=True)
    database = Database(settings.effective_database_url, settings.engine_options(), must_exist=True)
    try:
        database.ping()
        counts = scrub(database, redact, dry_run=dry_run)
        if not dry_run:
            from quizbot.accounts import record_action

            record_action(
                database, None, "db.scrub-secrets", detail=f"{sum(counts.values())} values"
            )
    finally:
        database.dispose()
    total = sum(counts.values())
    if as_json:
        emit_json({"dry_run": dry_run, "changed": counts, "total": total})
        return
    verb = "would redact" if dry_run else "redacted"
    for column, n in counts.items():
        if n:
            click.echo(f"  {column:<28} {n:>8,}")
    click.echo(f"{verb} secrets in {total:,} stored value(s)" + (" (dry run)" if dry_run else ""))
